import * as path from 'node:path';
import type { Db } from '../store/db.js';
import { splitLines } from './diff.js';
import { readWorkspaceText } from '../repo/read.js';
import { fnv1a } from '../../shared/hash.js';

/*
 * A structural fingerprint of a symbol: the set of its kind and name, its
 * members, the names it calls, references and instantiates (from the
 * structural index), and its normalised source lines, summarised as a
 * bottom-k sketch. The Jaccard similarity of two sketches estimates how much
 * of the symbol is still what it was when an episode touched it: a lesson
 * about code that has since been rewritten is archived.
 */

const K = 64;

/** The K smallest distinct feature hashes, encoded as base64 of big-endian uint32s. */
export function sketch(features: Iterable<string>): string {
  const hashes = [...new Set([...features].map(fnv1a))].sort((x, y) => x - y).slice(0, K);
  const buf = Buffer.alloc(hashes.length * 4);
  hashes.forEach((h, i) => buf.writeUInt32BE(h, i * 4));
  return buf.toString('base64');
}

/** Decoded sketches, kept: the same current fingerprint is compared with every episode that touched the symbol. */
const decoded = new Map<string, Uint32Array>();

function decode(s: string): Uint32Array {
  let v = decoded.get(s);
  if (v) return v;
  const buf = Buffer.from(s, 'base64');
  v = new Uint32Array(buf.length >> 2);
  for (let i = 0; i < v.length; i++) v[i] = buf.readUInt32BE(i * 4);
  // sketch() writes them sorted; a sketch from elsewhere is sorted here so the merge below holds.
  for (let i = 1; i < v.length; i++) {
    if (v[i - 1]! > v[i]!) {
      v.sort();
      break;
    }
  }
  if (decoded.size >= 10_000) decoded.clear();
  decoded.set(s, v);
  return v;
}

/**
 * Estimated Jaccard similarity of the feature sets behind two sketches (exact
 * when both sets are small). The K smallest hashes of the union are the K
 * smallest of the union of the full sets (bottom-k estimator): one merge walk
 * over the two sorted sketches counts how many of those are in both.
 */
export function similarity(a: string, b: string): number {
  const x = decode(a);
  const y = decode(b);
  if (!x.length && !y.length) return 1;
  let i = 0;
  let j = 0;
  let considered = 0;
  let both = 0;
  while (considered < K && (i < x.length || j < y.length)) {
    const xi = i < x.length ? x[i]! : Infinity;
    const yj = j < y.length ? y[j]! : Infinity;
    if (xi === yj) {
      both++;
      i++;
      j++;
    } else if (xi < yj) i++;
    else j++;
    considered++;
  }
  return both / considered;
}

export interface SymbolForPrint {
  readonly id: number;
  readonly sid: string;
  readonly name: string;
  readonly kind: string;
  readonly line: number;
  readonly endLine: number;
  readonly path: string;
}

/** Source lines, trimmed and with whitespace runs collapsed; repeats numbered so the set keeps multiplicity. */
function lineFeatures(lines: readonly string[]): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const raw of lines) {
    const l = raw.trim().replace(/\s+/g, ' ');
    if (!l || l === '{' || l === '}' || l === '};') continue;
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    out.push(`l:${l}#${n}`);
  }
  return out;
}

/**
 * Fingerprints of symbols, reading each file once. `texts` may hold file
 * contents already in memory (workspace-relative path → text).
 */
export async function fingerprints(db: Db, root: string, symbols: readonly SymbolForPrint[], texts: ReadonlyMap<string, string> = new Map()): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!symbols.length) return out;
  const fileLines = new Map<string, string[] | null>();
  const linesOf = (rel: string): string[] | null => {
    if (!fileLines.has(rel)) {
      let text = texts.get(rel);
      if (text === undefined) {
        try {
          text = readWorkspaceText(root, path.join(root, rel));
        } catch {
          text = undefined;
        }
      }
      fileLines.set(rel, text === undefined ? null : splitLines(text));
    }
    return fileLines.get(rel)!;
  };
  const ids = JSON.stringify(symbols.map((s) => s.id));
  // Members and outgoing uses of each symbol and of everything nested in it.
  const rows = await db.all<{ root_id: number; f: string }>(
    `WITH RECURSIVE d(root_id, id) AS (
       SELECT value, value FROM json_each(?)
       UNION ALL SELECT d.root_id, s.id FROM symbols s JOIN d ON s.parent_id = d.id
     )
     SELECT d.root_id, 'c:' || s.kind || ':' || s.name AS f FROM d JOIN symbols s ON s.parent_id = d.id
     UNION ALL
     SELECT d.root_id, 'e:' || e.kind || ':' || coalesce(t.name, '?') AS f FROM d JOIN edges e ON e.src_id = d.id LEFT JOIN symbols t ON t.id = e.dst_id`,
    [ids],
  );
  const structural = new Map<number, string[]>();
  for (const r of rows) {
    let list = structural.get(r.root_id);
    if (!list) structural.set(r.root_id, (list = []));
    list.push(r.f);
  }
  for (const s of symbols) {
    const lines = linesOf(s.path);
    const features = [`k:${s.kind}`, `n:${s.name}`, ...(structural.get(s.id) ?? [])];
    if (lines) features.push(...lineFeatures(lines.slice(Math.max(0, s.line - 1), s.endLine)));
    out.set(s.sid, sketch(features));
  }
  return out;
}

/** Current symbols for stable ids (the first definition when an id repeats). */
export async function symbolsBySid(db: Db, sids: readonly string[]): Promise<Map<string, SymbolForPrint>> {
  const out = new Map<string, SymbolForPrint>();
  if (!sids.length) return out;
  const rows = await db.all<{ id: number; sid: string; name: string; kind: string; line: number; end_line: number; path: string }>(
    `SELECT s.id, s.sid, s.name, s.kind, s.line, s.end_line, f.path FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE s.sid IN (SELECT value FROM json_each(?)) ORDER BY s.id`,
    [JSON.stringify([...new Set(sids)])],
  );
  for (const r of rows) if (!out.has(r.sid)) out.set(r.sid, { id: r.id, sid: r.sid, name: r.name, kind: r.kind, line: r.line, endLine: r.end_line, path: r.path });
  return out;
}
