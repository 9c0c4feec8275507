import { TYPE_KINDS, type SymbolKind } from '../model/structural.js';
import { EDGE_TIERS, type EdgeTier } from '../model/tiers.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';
import { innermostSymbolAt } from './lookup.js';

/*
 * The structural reads behind the editor's CodeLens, hover, "symbol at
 * cursor" and status: a few aggregate queries each, never a language
 * server, so they answer while the editor draws.
 */

/** Kinds that get a CodeLens and a hover line. */
export const LENS_KINDS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum', 'function', 'method']);

export interface LensCounts {
  readonly id: number;
  readonly sid: string;
  readonly name: string;
  readonly qname: string;
  readonly kind: SymbolKind;
  /** 1-based. */
  readonly line: number;
  readonly endLine: number;
  /** Distinct direct dependents (for a type: of it and its members), dynamic sites excluded: a lower bound. */
  readonly dependents: number;
  /** Of those, the ones only a type checker or a run confirmed. */
  readonly resolved: number;
  /** Of those, the ones that call it. */
  readonly callers: number;
  /** The symbols it stands for, itself first: a type stands for itself and its members (changing it breaks users of either). */
  readonly groupSids: readonly string[];
  /** For a member of a type, the type's sid: what is said of the type is said of its members. */
  readonly typeSid: string | null;
}

interface FileSymbol {
  id: number;
  sid: string;
  name: string;
  qname: string;
  kind: SymbolKind;
  line: number;
  end_line: number;
  parent_id: number | null;
  origin: string | null;
}

const rank = (tier: EdgeTier): number => EDGE_TIERS.indexOf(tier);

/**
 * Dependent counts for every lens-worthy symbol of one file (declared in the
 * source, of a LENS_KINDS kind), in two queries whatever the number of
 * symbols. `relPath` is workspace-relative with `/`.
 */
export async function lensCounts(db: Db, relPath: string): Promise<LensCounts[]> {
  const syms = await db.all<FileSymbol>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, s.line, s.end_line, s.parent_id, s.origin FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE f.path = ? AND s.kind != 'module' ORDER BY s.line`,
    [relPath],
  );
  const shown = syms.filter((s) => LENS_KINDS.has(s.kind) && s.origin === null);
  if (!shown.length) return [];
  const members = new Map<number, number[]>();
  for (const s of syms) {
    if (s.parent_id === null) continue;
    const list = members.get(s.parent_id) ?? [];
    list.push(s.id);
    members.set(s.parent_id, list);
  }
  const groupOf = (s: FileSymbol): number[] => (TYPE_KINDS.has(s.kind) ? [s.id, ...(members.get(s.id) ?? [])] : [s.id]);
  const byDst = await edgesInto(db, [...new Set(shown.flatMap(groupOf))]);
  const byId = new Map(syms.map((s) => [s.id, s]));
  return shown.map((s) => {
    const group = groupOf(s);
    const parent = s.parent_id !== null ? byId.get(s.parent_id) : undefined;
    return {
      id: s.id,
      sid: s.sid,
      name: s.name,
      qname: s.qname,
      kind: s.kind,
      line: s.line,
      endLine: s.end_line,
      ...dependentsOf(group, byDst),
      groupSids: group.map((id) => byId.get(id)!.sid),
      typeSid: parent && TYPE_KINDS.has(parent.kind) ? parent.sid : null,
    };
  });
}

/** Non-dynamic edges into the given symbols from symbols that are not modules, by target. */
async function edgesInto(db: Db, ids: readonly number[]): Promise<Map<number, { src: number; tier: EdgeTier; kind: string }[]>> {
  const edges = await db.all<{ dst_id: number; src_id: number; tier: EdgeTier; kind: string }>(
    `SELECT e.dst_id, e.src_id, e.tier, e.kind FROM edges e JOIN symbols s ON s.id = e.src_id
     WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier != 'dynamic' AND s.kind != 'module'`,
    [JSON.stringify(ids)],
  );
  const byDst = new Map<number, { src: number; tier: EdgeTier; kind: string }[]>();
  for (const e of edges) {
    const list = byDst.get(e.dst_id) ?? [];
    list.push({ src: e.src_id, tier: e.tier, kind: e.kind });
    byDst.set(e.dst_id, list);
  }
  return byDst;
}

/** Distinct dependents of a group from outside it, each at its strongest tier, and those that call. */
function dependentsOf(group: readonly number[], byDst: ReadonlyMap<number, readonly { src: number; tier: EdgeTier; kind: string }[]>): { dependents: number; resolved: number; callers: number } {
  const own = new Set(group);
  const best = new Map<number, EdgeTier>();
  const callers = new Set<number>();
  for (const id of group) {
    for (const e of byDst.get(id) ?? []) {
      if (own.has(e.src)) continue;
      const prev = best.get(e.src);
      if (!prev || rank(e.tier) < rank(prev)) best.set(e.src, e.tier);
      if (e.kind === 'call') callers.add(e.src);
    }
  }
  return { dependents: best.size, resolved: [...best.values()].filter((t) => t === 'resolved' || t === 'observed').length, callers: callers.size };
}

/**
 * The symbol a person means at a position: the symbol a use site there refers
 * to (the index knows which `retry` a call names), else a symbol declared on
 * that line whose name is the word, else the innermost symbol around it.
 * `line` is 1-based, `col` 0-based, as the index stores them.
 */
export async function symbolAt(db: Db, relPath: string, line: number, col: number, word: string | undefined): Promise<SymbolRef | undefined> {
  const file = await db.get<{ id: number }>('SELECT id FROM files WHERE path = ?', [relPath]);
  if (!file) return undefined;
  const select = 'SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id';
  if (word) {
    const use = await db.get<SymbolRef & { col: number; tier: string }>(
      `${select} JOIN edges e ON e.dst_id = s.id WHERE e.file_id = ? AND e.line = ? AND s.name = ? AND e.tier != 'ambiguous' ORDER BY abs(e.col - ?) LIMIT 1`,
      [file.id, line, word, col],
    );
    if (use) return { id: use.id, sid: use.sid, name: use.name, qname: use.qname, kind: use.kind, path: use.path, line: use.line };
    const declared = await db.get<SymbolRef>(`${select} WHERE s.file_id = ? AND s.line = ? AND s.name = ? AND s.kind != 'module' LIMIT 1`, [file.id, line, word]);
    if (declared) return declared;
  }
  return innermostSymbolAt(db, relPath, line);
}

export interface StructuralTotals {
  /** Files the inventory read (skipped ones not counted). */
  readonly files: number;
  /** Symbols, modules not counted. */
  readonly symbols: number;
  readonly edges: number;
  /** Edges by tier; a tier with no edge is absent. */
  readonly edgesByTier: Readonly<Partial<Record<EdgeTier, number>>>;
  /** Edges by the language of the file their site is in, then by tier: what each language's server has confirmed. */
  readonly edgesByLanguage: Readonly<Record<string, Readonly<Partial<Record<EdgeTier, number>>>>>;
}

/** What the structural memory holds, for a status bar and a status view. */
export async function structuralTotals(db: Db): Promise<StructuralTotals> {
  const byLanguage = await db.all<{ language: string | null; tier: EdgeTier; n: number }>('SELECT f.language, e.tier, count(*) AS n FROM edges e JOIN files f ON f.id = e.file_id GROUP BY f.language, e.tier');
  const tiers = new Map<EdgeTier, number>();
  const edgesByLanguage: Record<string, Partial<Record<EdgeTier, number>>> = {};
  for (const r of byLanguage) {
    tiers.set(r.tier, (tiers.get(r.tier) ?? 0) + r.n);
    const lang = (edgesByLanguage[r.language ?? 'unknown'] ??= {});
    lang[r.tier] = (lang[r.tier] ?? 0) + r.n;
  }
  const files = await db.get<{ n: number }>('SELECT count(*) AS n FROM files WHERE skip_reason IS NULL');
  const symbols = await db.get<{ n: number }>("SELECT count(*) AS n FROM symbols WHERE kind != 'module'");
  return {
    files: files?.n ?? 0,
    symbols: symbols?.n ?? 0,
    edges: [...tiers.values()].reduce((a, n) => a + n, 0),
    edgesByTier: Object.fromEntries(tiers),
    edgesByLanguage,
  };
}
