import * as path from 'node:path';
import { TenureError } from '../../shared/errors.js';
import { looksLikeSymbolId } from '../model/symbolId.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';


const SELECT = `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.end_line, s.origin FROM symbols s JOIN files f ON f.id = s.file_id`;

type Row = SymbolRef & { end_line: number; origin: string | null };

function ref(r: Row): SymbolRef {
  return { id: r.id, sid: r.sid, name: r.name, qname: r.qname, kind: r.kind, path: r.path, line: r.line };
}

/** `a.b.C.m` and `a/b.C#m().` both become [a, b, C, m]. */
function segments(text: string): string[] {
  return text
    .replace(/\(\S*?\)/g, '')
    .split(/[.#/:]+|::/)
    .map((s) => s.replace(/`/g, ''))
    .filter(Boolean);
}

export interface ResolveOptions {
  readonly root: string;
}

/**
 * What a person or agent typed → the symbols it denotes. Accepts a full
 * symbol id, a dotted name (`SettlementService.retry`, `retry`), a
 * `path:line` location, or a file path. Several matches are an error that
 * lists them all: Tenure never picks one silently.
 */
export async function resolveSymbols(db: Db, text: string, options: ResolveOptions): Promise<SymbolRef[]> {
  const query = text.trim();
  if (!query) throw new TenureError('invalid-input', 'No symbol given. Pass a name such as `SettlementService.retry`, a symbol id, or `path/file.ts:42`.');
  const indexed = await db.get<{ n: number }>('SELECT count(*) AS n FROM files');
  if (!indexed?.n) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index` (or wait for the first index in VS Code), then ask again.');

  if (looksLikeSymbolId(query)) {
    const rows = await db.all<Row>(`${SELECT} WHERE s.sid = ?`, [query]);
    if (rows.length) return rows.map(ref);
  }

  const loc = /^(.+?):(\d+)(?::\d+)?$/.exec(query);
  if (loc) {
    const rel = toRel(loc[1]!, options.root);
    const line = Number(loc[2]);
    const rows = await db.all<Row>(
      `${SELECT} WHERE f.path = ? AND s.kind != 'module' AND s.line <= ? AND s.end_line >= ? ORDER BY (s.end_line - s.line) ASC LIMIT 1`,
      [rel, line, line],
    );
    if (rows.length) return rows.map(ref);
    const mod = await db.all<Row>(`${SELECT} WHERE f.path = ? AND s.kind = 'module'`, [rel]);
    if (mod.length) return mod.map(ref);
    throw new TenureError('symbol-not-found', `No indexed file ${rel}. Check the path (relative to the workspace root) or run \`tenure index\`.`);
  }

  const asFile = await db.all<Row>(`${SELECT} WHERE f.path = ? AND s.kind = 'module'`, [toRel(query, options.root)]);
  if (asFile.length) return asFile.map(ref);

  const segs = segments(query);
  const name = segs[segs.length - 1];
  if (!name) throw new TenureError('invalid-input', `Cannot read a symbol name from "${query}".`);
  const rows = await db.all<Row>(`${SELECT} WHERE s.name = ?`, [name]);
  const matches = rows.filter((r) => endsWith(segments(r.qname), segs) || endsWith([...segments(r.path.replace(/\.\w+$/, '')), ...segments(r.qname)], segs));
  const nonModule = matches.filter((m) => m.kind !== 'module');
  let found = nonModule.length ? nonModule : matches;
  // A name people type means the declared symbol, not code generated beside it (a bridge, a record accessor): those stay reachable by id.
  const declared = found.filter((m) => m.origin === null);
  if (declared.length && declared.length < found.length) found = declared;
  if (found.length) return found.map(ref);

  const like = await db.all<Row>(`${SELECT} WHERE s.name LIKE ? AND s.kind != 'module' LIMIT 8`, [`%${name}%`]);
  const hint = like.length ? ` Did you mean: ${like.map((l) => `${l.qname} (${l.path}:${l.line})`).join(', ')}?` : '';
  throw new TenureError('symbol-not-found', `No symbol matches "${query}" in the index.${hint}`, { suggestions: like.map(ref) });
}

/** Like resolveSymbols, but exactly one symbol or an error listing the candidates. */
export async function resolveOneSymbol(db: Db, text: string, options: ResolveOptions): Promise<SymbolRef> {
  const found = await resolveSymbols(db, text, options);
  if (found.length === 1) return found[0]!;
  const list = found.slice(0, 20).map((f) => `  ${f.qname} (${f.kind}, ${f.path}:${f.line})  id: ${f.sid}`).join('\n');
  throw new TenureError(
    'symbol-ambiguous',
    `"${text}" matches ${found.length} symbols; Tenure will not pick one. Ask again with a qualified name, a path:line, or one of these ids:\n${list}${found.length > 20 ? `\n  … and ${found.length - 20} more` : ''}`,
    { candidates: found },
  );
}

function endsWith(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length > haystack.length) return false;
  const off = haystack.length - needle.length;
  return needle.every((n, i) => haystack[off + i] === n);
}

function toRel(p: string, root: string): string {
  const abs = path.isAbsolute(p) ? p : path.join(root, p);
  return path.relative(root, abs).split(path.sep).join('/');
}

// ---------------------------------------------------------------- reads other memories make through the seam

/** Whether the structural memory has indexed any file yet. */
export async function hasIndexedFiles(db: Db): Promise<boolean> {
  return ((await db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? 0) > 0;
}

export interface IndexedFile {
  readonly path: string;
  /** Of the content the index read; null when it was not read. */
  readonly hash: string | null;
  /** The inventory left it out (too large, binary, generated…). */
  readonly skipped: boolean;
}

/** Every file the structural memory knows, in the order it first indexed them. */
export async function indexedFiles(db: Db): Promise<IndexedFile[]> {
  const rows = await db.all<{ path: string; hash: string | null; skip_reason: string | null }>('SELECT path, hash, skip_reason FROM files ORDER BY id');
  return rows.map((r) => ({ path: r.path, hash: r.hash, skipped: r.skip_reason !== null }));
}

/** The qualified name of each of these symbol ids that is indexed. */
export async function qnamesOf(db: Db, sids: readonly string[]): Promise<Map<string, string>> {
  if (!sids.length) return new Map();
  const rows = await db.all<{ sid: string; qname: string }>('SELECT sid, qname FROM symbols WHERE sid IN (SELECT value FROM json_each(?)) ORDER BY id', [JSON.stringify(sids)]);
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.sid)) out.set(r.sid, r.qname);
  return out;
}

export interface NeighbourSymbol {
  readonly sid: string;
  readonly qname: string;
}

export interface SymbolNeighbours {
  readonly members: readonly NeighbourSymbol[];
  /** The enclosing type. */
  readonly container?: NeighbourSymbol;
  /** What the symbol and its members use directly (calls, instantiations, references that are not dynamic), with the edge's tier and the used symbol's type. */
  readonly uses: readonly (NeighbourSymbol & { readonly tier: string; readonly container?: NeighbourSymbol })[];
}

/** A symbol's members, its enclosing type, and the symbols it uses through one edge (at most `limit`, by name). */
export async function neighboursOf(db: Db, target: SymbolRef, limit = 40): Promise<SymbolNeighbours> {
  const members = await db.all<{ id: number; sid: string; qname: string }>("SELECT id, sid, qname FROM symbols WHERE parent_id = ? AND kind != 'module'", [target.id]);
  const container = await db.get<NeighbourSymbol>("SELECT p.sid, p.qname FROM symbols s JOIN symbols p ON p.id = s.parent_id WHERE s.id = ? AND p.kind != 'module'", [target.id]);
  const uses = await db.all<{ sid: string; qname: string; tier: string; psid: string | null; pqname: string | null }>(
    `SELECT DISTINCT d.sid, d.qname, e.tier, p.sid AS psid, p.qname AS pqname FROM edges e JOIN symbols d ON d.id = e.dst_id
     LEFT JOIN symbols p ON p.id = d.parent_id AND p.kind != 'module'
     WHERE e.src_id IN (SELECT value FROM json_each(?)) AND e.kind IN ('call', 'instantiate', 'reference') AND e.tier IN ('resolved', 'observed', 'inferred')
     ORDER BY d.qname LIMIT ?`,
    [JSON.stringify([target.id, ...members.map((m) => m.id)]), limit],
  );
  return {
    members: members.map((m) => ({ sid: m.sid, qname: m.qname })),
    ...(container ? { container } : {}),
    uses: uses.map((u) => ({ sid: u.sid, qname: u.qname, tier: u.tier, ...(u.psid && u.pqname ? { container: { sid: u.psid, qname: u.pqname } } : {}) })),
  };
}
