import type { Db } from '../../src/core/store/db';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import type { SiteTuple } from '../../src/core/structural/schema';
import { openWorkspace } from '../../src/core/workspace';

/**
 * The structural memory as sets of stable keys (paths, names, positions,
 * sids — never row ids), so two indexes of the same tree compare equal
 * whatever ids their writers allocated. Sites are keyed by where they are;
 * an edge names its site by that key, so a site id that points at the wrong
 * site (or none) shows up as a difference. `duplicateSiteIds` counts ids
 * that more than one site holds.
 */
export interface IndexDump {
  files: string[];
  symbols: string[];
  sites: string[];
  imports: string[];
  edges: string[];
  duplicateSiteIds: number;
}

export async function dumpIndex(db: Db): Promise<IndexDump> {
  const files = await db.all<{ id: number; path: string; hash: string | null; skip_kind: string | null }>('SELECT id, path, hash, skip_kind FROM files WHERE id > 0');
  const pathOf = new Map(files.map((f) => [f.id, f.path]));
  const syms = await db.all<{ id: number; sid: string; kind: string; file_id: number; line: number; col: number; parent_id: number | null }>('SELECT id, sid, kind, file_id, line, col, parent_id FROM symbols WHERE id > 0');
  const sidOf = new Map(syms.map((s) => [s.id, s.sid]));
  const siteKey = new Map<number, string>();
  const sites: string[] = [];
  let duplicateSiteIds = 0;
  for (const row of await db.all<{ file_id: number; sites: string }>('SELECT file_id, sites FROM file_sites')) {
    for (const [id, ownerId, kind, name, receiver, , line, col, dynamic] of JSON.parse(row.sites) as SiteTuple[]) {
      const key = `${pathOf.get(row.file_id)}:${line}:${col} ${kind} ${receiver ?? ''}.${name} in ${sidOf.get(ownerId) ?? `?${ownerId}`}${dynamic ? ' dynamic' : ''}`;
      if (siteKey.has(id)) duplicateSiteIds++;
      siteKey.set(id, key);
      sites.push(key);
    }
  }
  const imports = (await db.all<{ file_id: number; module: string; name: string | null; local: string | null; target_file_id: number | null; line: number; col: number }>(
    'SELECT file_id, module, name, local, target_file_id, line, col FROM imports',
  )).map((i) => `${pathOf.get(i.file_id)}:${i.line}:${i.col} ${i.module} ${i.name ?? '*'} as ${i.local ?? '-'} -> ${i.target_file_id === null ? 'external' : (pathOf.get(i.target_file_id) ?? `?${i.target_file_id}`)}`);
  const edges = (await db.all<{ site_id: number | null; src_id: number; dst_id: number | null; kind: string; name: string; tier: string; source: string; file_id: number; line: number; col: number }>(
    'SELECT site_id, src_id, dst_id, kind, name, tier, source, file_id, line, col FROM edges',
  )).map((e) => `${pathOf.get(e.file_id)}:${e.line}:${e.col} ${e.kind} ${e.name} ${e.tier} ${e.source} ${sidOf.get(e.src_id) ?? `?${e.src_id}`} -> ${e.dst_id === null ? 'none' : (sidOf.get(e.dst_id) ?? `?${e.dst_id}`)} site ${e.site_id === null ? 'none' : (siteKey.get(e.site_id) ?? `?${e.site_id}`)}`);
  const sort = (a: string[]) => a.sort();
  return {
    files: sort(files.map((f) => `${f.path} ${f.hash} ${f.skip_kind ?? ''}`)),
    symbols: sort(syms.map((s) => `${s.sid} ${s.kind} ${pathOf.get(s.file_id)}:${s.line}:${s.col} in ${s.parent_id === null ? '-' : (sidOf.get(s.parent_id) ?? `?${s.parent_id}`)}`)),
    sites: sort(sites),
    imports: sort(imports),
    edges: sort(edges),
    duplicateSiteIds,
  };
}

/** The first few differences between two dumps, for a failure message. */
export function dumpDiff(a: IndexDump, b: IndexDump, limit = 12): string[] {
  const out: string[] = [];
  for (const k of ['files', 'symbols', 'sites', 'imports', 'edges'] as const) {
    const sa = new Set(a[k]);
    const sb = new Set(b[k]);
    for (const x of a[k]) if (!sb.has(x) && out.length < limit) out.push(`${k} only in the first: ${x}`);
    for (const x of b[k]) if (!sa.has(x) && out.length < limit) out.push(`${k} only in the second: ${x}`);
    if (a[k].length !== b[k].length && out.length < limit) out.push(`${k}: ${a[k].length} vs ${b[k].length}`);
  }
  if (a.duplicateSiteIds !== b.duplicateSiteIds) out.push(`duplicated site ids: ${a.duplicateSiteIds} vs ${b.duplicateSiteIds}`);
  return out;
}

/** Brings the workspace's index up to date with one indexer (one parse worker, a minute of parse budget per file so a loaded machine skips nothing) and dumps it. */
export async function indexAndDump(root: string): Promise<IndexDump> {
  const ws = await openWorkspace(root);
  const indexer = await StructuralIndexer.create(ws, { workers: 1, parseBudgetMs: 60_000 });
  try {
    await indexer.indexAll();
    return await dumpIndex(ws.db);
  } finally {
    await indexer.dispose();
    await ws.close();
  }
}
