import type { EdgeKind } from '../../model/structural.js';
import type { ImplementationFact, Loc, ResolutionBatch, SiteQuery, SymbolAnchor, SymbolQuery } from './types.js';
import type { Db } from '../../store/db.js';

/*
 * Reads and writes what resolvers proved (enrichment/schema.ts). Two duties:
 *
 * 1. invalidateResolutions(): called by the structural store inside the very
 *    transaction that rewrites or removes files. Every resolver claim that may
 *    depend on a changed file falls back to the inventory's answer before the
 *    transaction commits, so no reader ever sees a stale `resolved`.
 *
 * 2. ResolutionStore.apply(): turns a resolver's batch (locations and symbol
 *    ids) into edge rows: confirm in place, refute (move to refutations), add.
 */

type SiteTuple = [number, number, EdgeKind, string, string | null, string | null, number, number, string | null];

const json = (list: Iterable<number>) => JSON.stringify([...list]);

/** Is there any resolver state at all? Cheap (partial index), so a tree-sitter-only workspace pays nothing. */
async function hasResolutions(db: Db): Promise<boolean> {
  const row = await db.get<{ n: number }>(
    `SELECT EXISTS(SELECT 1 FROM edges WHERE base_tier IS NOT NULL OR added = 1)
         OR EXISTS(SELECT 1 FROM refutations) OR EXISTS(SELECT 1 FROM implementations)
         OR EXISTS(SELECT 1 FROM resolution_files) OR EXISTS(SELECT 1 FROM resolution_symbols) AS n`,
  );
  return !!row?.n;
}

/**
 * Files whose resolved edges may depend on the given files: the files
 * themselves, and every file that reaches one of them through imports
 * (transitively: a type can flow through re-exports and return types), or
 * through a resolved edge (which covers imports the inventory could not
 * follow, such as path aliases). A change to an ambient declaration file
 * (`*.d.ts`) can change any TypeScript file's types: all of them depend on it.
 */
async function dependentFiles(db: Db, seeds: readonly number[]): Promise<number[]> {
  if (!seeds.length) return [];
  const rows = await db.all<{ f: number }>(
    `WITH RECURSIVE dep(f) AS (
       SELECT value FROM json_each(?1)
       UNION
       SELECT i.file_id FROM imports i JOIN dep ON i.target_file_id = dep.f
       UNION
       SELECT e.file_id FROM dep JOIN symbols s ON s.file_id = dep.f JOIN edges e ON e.dst_id = s.id
         WHERE e.base_tier IS NOT NULL OR e.added = 1
     ) SELECT f FROM dep`,
    [json(seeds)],
  );
  const out = new Set(rows.map((r) => r.f));
  const ambient = await db.get<{ n: number }>(`SELECT count(*) AS n FROM files WHERE id IN (SELECT value FROM json_each(?)) AND path LIKE '%.d.ts'`, [json(seeds)]);
  if (ambient?.n) {
    for (const r of await db.all<{ id: number }>(`SELECT id FROM files WHERE language IN ('typescript', 'tsx', 'javascript')`)) out.add(r.id);
  }
  return [...out];
}

/**
 * Puts every resolver claim that may depend on `changed` back to the
 * inventory's answer. `rewritten` files are about to have all their edges
 * and sites replaced by the inventory: their refutations are dropped, not
 * restored. `sites` are inventory sites about to be re-resolved: their
 * refutations are dropped too. Must run inside the writer's transaction,
 * before the rows of `rewritten` files are deleted (the import graph is read).
 */
export async function invalidateResolutions(
  db: Db,
  change: { readonly changed: readonly number[]; readonly rewritten: readonly number[]; readonly sites: readonly number[] },
): Promise<number> {
  if (!change.changed.length && !change.sites.length) return 0;
  if (!(await hasResolutions(db))) return 0;
  const deps = json(await dependentFiles(db, change.changed));
  const rewritten = json(change.rewritten);
  const sites = json(change.sites);
  const downgraded = await db.run(
    `UPDATE edges SET tier = base_tier, source = base_source, reason = base_reason, base_tier = NULL, base_source = NULL, base_reason = NULL
       WHERE base_tier IS NOT NULL AND file_id IN (SELECT value FROM json_each(?))`,
    [deps],
  );
  const dropped = await db.run(`DELETE FROM edges WHERE added = 1 AND file_id IN (SELECT value FROM json_each(?))`, [deps]);
  const restored = await db.run(
    `INSERT INTO edges (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col)
       SELECT site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col FROM refutations
       WHERE file_id IN (SELECT value FROM json_each(?1))
         AND file_id NOT IN (SELECT value FROM json_each(?2))
         AND (site_id IS NULL OR site_id NOT IN (SELECT value FROM json_each(?3)))
         AND (dst_id IS NULL OR dst_id IN (SELECT id FROM symbols))`,
    [deps, rewritten, sites],
  );
  await db.run(`DELETE FROM refutations WHERE file_id IN (SELECT value FROM json_each(?1)) OR site_id IN (SELECT value FROM json_each(?2))`, [deps, sites]);
  await db.run(`DELETE FROM implementations WHERE file_id IN (SELECT value FROM json_each(?))`, [deps]);
  await db.run(`DELETE FROM resolution_files WHERE file_id IN (SELECT value FROM json_each(?))`, [deps]);
  await db.run(`DELETE FROM resolution_symbols WHERE file_id IN (SELECT value FROM json_each(?))`, [deps]);
  return downgraded.changes + dropped.changes + restored.changes;
}

// ---------------------------------------------------------------------------

interface FileRow {
  id: number;
  path: string;
  hash: string | null;
  language: string | null;
}

interface SymRow {
  id: number;
  sid: string;
  name: string;
  kind: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  parent_id: number | null;
  file_id: number;
}

interface InvSite {
  id: number;
  ownerId: number;
  kind: EdgeKind;
  name: string;
  receiver: string | null;
  line: number;
  col: number;
  dynamic: string | null;
}

interface EdgeRow {
  id: number;
  site_id: number | null;
  src_id: number;
  dst_id: number | null;
  kind: EdgeKind;
  name: string;
  tier: string;
  source: string;
  reason: string;
  candidates: number;
  file_id: number;
  line: number;
  col: number;
  base_tier: string | null;
  base_source: string | null;
  base_reason: string | null;
  added: number;
}

/** Per-file data needed to map locations to rows, loaded once per batch. */
class FileIndex {
  readonly symbols: SymRow[] = [];
  readonly sitesAt = new Map<string, InvSite>();
  constructor(readonly file: FileRow) {}

  /**
   * The definition whose name starts exactly here. No nearest-match: a
   * location the inventory has no definition for (a local, a parameter) is
   * not one of its symbols, and guessing would confirm a wrong edge.
   */
  symbolAt(at: Loc): SymRow | undefined {
    return this.symbols.find((s) => s.line === at.line && s.col === at.col && s.kind !== 'module');
  }

  /** The innermost definition around a position: the dependent a missed site belongs to. */
  enclosing(at: Loc): SymRow | undefined {
    let best: SymRow | undefined;
    for (const s of this.symbols) {
      const starts = s.kind === 'module' ? 0 : s.line;
      const inside = (at.line > starts || (at.line === starts && at.col >= (s.kind === 'module' ? 0 : s.col))) && (at.line < s.end_line || (at.line === s.end_line && (s.end_col === 0 || at.col <= s.end_col)) || s.kind === 'module');
      if (!inside) continue;
      if (!best || best.kind === 'module' || (s.kind !== 'module' && s.end_line - s.line <= best.end_line - best.line && s.line >= best.line)) best = s;
    }
    return best;
  }
}

export interface ApplyResult {
  readonly confirmed: number;
  readonly refuted: number;
  readonly added: number;
  readonly implementations: number;
  /** Verdicts dropped because the files they speak of changed while the resolver worked. */
  readonly stale: boolean;
  readonly unmatchedSites: number;
}

export interface FileToEnrich {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly hash: string | null;
}

export interface ResolutionStats {
  readonly bySource: readonly { source: string; files: number; confirmed: number; refuted: number; added: number }[];
  readonly edges: { readonly resolved: number; readonly upgraded: number; readonly added: number; readonly refutations: number; readonly implementations: number };
}

/** Repository for the resolution tables; the only module besides the structural store that writes edges. */
export class ResolutionStore {
  constructor(readonly db: Db) {}

  /** A stamp that changes whenever the structural memory is rewritten: a batch computed before it changed is not applied. */
  async generation(): Promise<string> {
    const row = await this.db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.indexedAt'");
    return row?.value ?? '0';
  }

  /** Files of the given languages not yet enriched by `source` at their current content. */
  async pendingFiles(source: string, languages: readonly string[]): Promise<FileToEnrich[]> {
    return this.db.all<FileToEnrich>(
      `SELECT f.id, f.path, f.language, f.hash FROM files f
         WHERE f.skip_reason IS NULL AND f.language IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id AND r.source = ?2 AND r.hash IS f.hash)
         ORDER BY f.path`,
      [JSON.stringify(languages), source],
    );
  }

  async filesWithLanguage(languages: readonly string[]): Promise<FileToEnrich[]> {
    return this.db.all<FileToEnrich>(`SELECT id, path, language, hash FROM files WHERE skip_reason IS NULL AND language IN (SELECT value FROM json_each(?)) ORDER BY path`, [JSON.stringify(languages)]);
  }

  /** The inventory's view of one file, as a resolver unit: its use sites (with the names the inventory linked) and its definitions. */
  async fileUnit(fileId: number): Promise<{ sites: SiteQuery[]; symbols: SymbolQuery[] } | undefined> {
    const f = await this.db.get<FileRow>('SELECT id, path, hash, language FROM files WHERE id = ?', [fileId]);
    if (!f) return undefined;
    const row = await this.db.get<{ sites: string }>('SELECT sites FROM file_sites WHERE file_id = ?', [fileId]);
    const tuples = row ? (JSON.parse(row.sites) as SiteTuple[]) : [];
    const cands = await this.db.all<{ site_id: number; qname: string }>(
      `SELECT e.site_id, s.qname FROM edges e JOIN symbols s ON s.id = e.dst_id WHERE e.file_id = ? AND e.site_id IS NOT NULL`,
      [fileId],
    );
    const bySite = new Map<number, string[]>();
    for (const c of cands) {
      const list = bySite.get(c.site_id) ?? [];
      list.push(c.qname);
      bySite.set(c.site_id, list);
    }
    const sites = tuples.map(([id, , kind, name, receiver, , line, col, dynamic]): SiteQuery => ({
      at: { path: f.path, line, col },
      kind,
      name,
      receiver,
      candidates: bySite.get(id) ?? [],
      dynamic: dynamic !== null,
    }));
    const syms = await this.db.all<{ sid: string; name: string; kind: string; line: number; col: number; pkind: string | null }>(
      `SELECT s.sid, s.name, s.kind, s.line, s.col, p.kind AS pkind FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id WHERE s.file_id = ? AND s.kind != 'module'`,
      [fileId],
    );
    return { sites, symbols: syms.map((s) => ({ sid: s.sid, name: s.name, kind: s.kind, at: { path: f.path, line: s.line, col: s.col }, parentKind: s.pkind })) };
  }

  /** Methods whose calls may dispatch elsewhere: members of interfaces, and of types the inventory knows have subtypes. */
  async dispatchRoots(languages: readonly string[], source: string): Promise<(SymbolQuery & { id: number; language: string })[]> {
    const rows = await this.db.all<{ id: number; sid: string; name: string; kind: string; line: number; col: number; pkind: string; path: string; language: string }>(
      `SELECT s.id, s.sid, s.name, s.kind, s.line, s.col, p.kind AS pkind, f.path, f.language
         FROM symbols s JOIN symbols p ON p.id = s.parent_id JOIN files f ON f.id = s.file_id
         WHERE s.kind IN ('method', 'field', 'function') AND f.language IN (SELECT value FROM json_each(?1))
           AND (p.kind = 'interface' OR EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = p.id AND e.kind IN ('extends', 'implements')))
           AND NOT EXISTS (SELECT 1 FROM resolution_symbols r WHERE r.symbol_id = s.id AND r.source = ?2)
         ORDER BY f.path, s.line`,
      [JSON.stringify(languages), source],
    );
    return rows.map((r) => ({ id: r.id, sid: r.sid, name: r.name, kind: r.kind, at: { path: r.path, line: r.line, col: r.col }, parentKind: r.pkind, language: r.language }));
  }

  /** Functions and methods nothing in the graph uses, not yet searched by `source`: candidates for a references search. */
  async uncalledCallables(languages: readonly string[], source: string, limit = 500): Promise<{ sid: string; path: string }[]> {
    return this.db.all<{ sid: string; path: string }>(
      `SELECT s.sid, f.path FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.kind IN ('function', 'method') AND f.language IN (SELECT value FROM json_each(?1)) AND f.skip_reason IS NULL
           AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = s.id AND e.tier != 'dynamic')
           AND NOT EXISTS (SELECT 1 FROM resolution_symbols r WHERE r.symbol_id = s.id AND r.source = ?2)
         ORDER BY s.kind = 'method', f.path, s.line LIMIT ?3`,
      [JSON.stringify(languages), source, limit],
    );
  }

  async symbolQuery(sid: string): Promise<(SymbolQuery & { id: number; language: string }) | undefined> {
    const r = await this.db.get<{ id: number; sid: string; name: string; kind: string; line: number; col: number; pkind: string | null; path: string; language: string }>(
      `SELECT s.id, s.sid, s.name, s.kind, s.line, s.col, p.kind AS pkind, f.path, f.language FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id JOIN files f ON f.id = s.file_id WHERE s.sid = ?`,
      [sid],
    );
    return r ? { id: r.id, sid: r.sid, name: r.name, kind: r.kind, at: { path: r.path, line: r.line, col: r.col }, parentKind: r.pkind, language: r.language } : undefined;
  }

  async markSymbol(symbolSid: string, source: string, questions: readonly string[]): Promise<void> {
    await this.db.write((db) =>
      db.run(
        `INSERT INTO resolution_symbols (symbol_id, source, file_id, questions, at) SELECT id, ?2, file_id, ?3, ?4 FROM symbols WHERE sid = ?1
           ON CONFLICT(symbol_id, source) DO UPDATE SET questions = excluded.questions, at = excluded.at`,
        [symbolSid, source, questions.join(','), Date.now()],
      ),
    );
  }

  /** Files changed since a generation stamp (the pass tells its servers about them). */
  async filesChangedSince(stampMs: number): Promise<string[]> {
    return (await this.db.all<{ path: string }>('SELECT path FROM files WHERE indexed_at > ?', [stampMs])).map((r) => r.path);
  }

  /**
   * Applies one batch atomically. `generation` is the stamp read before the
   * resolver started: if the structural memory changed meanwhile, the batch
   * is dropped (it may describe files as they were) and `stale` is returned.
   */
  async apply(source: string, tier: 'resolved' | 'observed', batch: ResolutionBatch, generation?: string): Promise<ApplyResult> {
    return this.db.write(async (db) => {
      if (generation !== undefined && generation !== (await this.generation())) {
        return { confirmed: 0, refuted: 0, added: 0, implementations: 0, stale: true, unmatchedSites: 0 };
      }
      const files = await this.loadFiles(db, batch);
      const now = Date.now();
      let confirmed = 0;
      let refuted = 0;
      let added = 0;
      let unmatchedSites = 0;
      const perFile = new Map<number, { sites: number; confirmed: number; refuted: number; added: number }>();
      const count = (fileId: number) => {
        let c = perFile.get(fileId);
        if (!c) perFile.set(fileId, (c = { sites: 0, confirmed: 0, refuted: 0, added: 0 }));
        return c;
      };

      const upgrade: [number, string][] = [];
      const refute: number[] = [];
      const refuteReason = new Map<number, string>();
      const dropAdded: number[] = [];
      const inserts: (string | number | null)[][] = [];

      // Edges already at the sites of this batch, in one query per file.
      const edgesBySite = new Map<number, EdgeRow[]>();
      const edgesAtLoc = new Map<string, EdgeRow[]>();
      const siteFileIds = new Set<number>();
      for (const v of batch.sites) {
        const fi = files.get(v.site.path);
        if (fi) siteFileIds.add(fi.file.id);
      }
      for (const fid of siteFileIds) {
        const rows = await db.all<EdgeRow>(
          `SELECT id, site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, base_tier, base_source, base_reason, added FROM edges WHERE file_id = ?`,
          [fid],
        );
        for (const r of rows) {
          if (r.site_id !== null) {
            const list = edgesBySite.get(r.site_id) ?? [];
            list.push(r);
            edgesBySite.set(r.site_id, list);
          } else {
            const key = `${r.file_id}:${r.line}:${r.col}`;
            const list = edgesAtLoc.get(key) ?? [];
            list.push(r);
            edgesAtLoc.set(key, list);
          }
        }
      }

      for (const v of batch.sites) {
        const fi = files.get(v.site.path);
        if (!fi) {
          unmatchedSites++;
          continue;
        }
        const c = count(fi.file.id);
        c.sites++;
        const site = fi.sitesAt.get(`${v.site.line}:${v.site.col}`);
        if (site?.dynamic) continue;
        const targets = new Set<number>();
        let outside = 0;
        for (const t of v.targets) {
          const id = this.mapAnchor(files, t);
          if (id === undefined) outside++;
          else targets.add(id);
        }
        if (!targets.size && !v.complete) continue;
        const existing = site ? (edgesBySite.get(site.id) ?? []) : (edgesAtLoc.get(`${fi.file.id}:${v.site.line}:${v.site.col}`) ?? []);
        const have = new Set<number>();
        for (const e of existing) {
          if (e.dst_id !== null && targets.has(e.dst_id)) {
            have.add(e.dst_id);
            upgrade.push([e.id, v.reason]);
            if (e.tier !== tier || e.source !== source) {
              confirmed++;
              c.confirmed++;
            }
          } else if (v.complete) {
            if (e.added) dropAdded.push(e.id);
            else {
              refute.push(e.id);
              refuteReason.set(e.id, targets.size ? v.reason : `${v.reason}${outside ? ' (the target is outside the workspace or not a definition the inventory lists)' : ''}`);
              refuted++;
              c.refuted++;
            }
          }
        }
        const missing = [...targets].filter((t) => !have.has(t));
        if (!missing.length) continue;
        let srcId: number | undefined;
        let kind: EdgeKind;
        let name: string;
        if (site) {
          srcId = site.ownerId;
          kind = site.kind;
          name = site.name;
        } else {
          srcId = v.from ? this.mapAnchor(files, v.from) : undefined;
          srcId ??= fi.enclosing(v.site)?.id;
          kind = v.kind ?? 'reference';
          name = files.get(targetPath(files, missing[0]!) ?? '')?.symbols.find((s) => s.id === missing[0])?.name ?? '';
        }
        if (srcId === undefined) continue;
        for (const dst of missing) {
          if (dst === srcId && kind !== 'call') continue;
          const dstName = site ? name : (symbolName(files, dst) ?? name);
          inserts.push([site?.id ?? null, srcId, dst, kind, dstName, tier, source, v.reason, targets.size, fi.file.id, v.site.line, v.site.col, 1]);
          added++;
          c.added++;
        }
      }

      if (refute.length) {
        await db.run(
          `INSERT INTO refutations (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, refuted_by, refuted_reason, at)
             SELECT site_id, src_id, dst_id, kind, name, COALESCE(base_tier, tier), COALESCE(base_source, source), COALESCE(base_reason, reason), candidates, file_id, line, col, ?2, j.value->>1, ?3
             FROM edges JOIN json_each(?1) j ON j.value->>0 = edges.id`,
          [JSON.stringify(refute.map((id) => [id, refuteReason.get(id) ?? ''])), source, now],
        );
        await db.run(`DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))`, [json(refute)]);
      }
      if (dropAdded.length) await db.run(`DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))`, [json(dropAdded)]);
      if (upgrade.length) {
        await db.run(
          `UPDATE edges SET base_tier = COALESCE(base_tier, CASE WHEN added = 1 THEN NULL ELSE tier END),
                            base_source = COALESCE(base_source, CASE WHEN added = 1 THEN NULL ELSE source END),
                            base_reason = COALESCE(base_reason, CASE WHEN added = 1 THEN NULL ELSE reason END),
                            tier = ?2, source = ?3, reason = (SELECT j.value->>1 FROM json_each(?1) j WHERE j.value->>0 = edges.id)
             WHERE id IN (SELECT value->>0 FROM json_each(?1))`,
          [JSON.stringify(upgrade), tier, source],
        );
      }
      if (inserts.length) {
        await db.run(
          `INSERT INTO edges (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, added)
             SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8, value->>9, value->>10, value->>11, value->>12 FROM json_each(?)`,
          [JSON.stringify(inserts)],
        );
      }

      let impls = 0;
      for (const fact of batch.implementations) impls += await this.insertImplementation(db, files, fact, tier, source);

      for (const p of batch.coveredFiles ?? []) {
        const fi = files.get(p);
        if (!fi) continue;
        const c = perFile.get(fi.file.id) ?? { sites: 0, confirmed: 0, refuted: 0, added: 0 };
        await db.run(
          `INSERT INTO resolution_files (file_id, source, hash, at, sites, confirmed, refuted, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(file_id, source) DO UPDATE SET hash = excluded.hash, at = excluded.at, sites = excluded.sites,
               confirmed = excluded.confirmed, refuted = excluded.refuted, added = excluded.added`,
          [fi.file.id, source, fi.file.hash, now, c.sites, c.confirmed, c.refuted, c.added],
        );
      }
      return { confirmed, refuted, added, implementations: impls, stale: false, unmatchedSites };
    });
  }

  private async insertImplementation(db: Db, files: Map<string, FileIndex>, fact: ImplementationFact, tier: string, source: string): Promise<number> {
    const base = this.mapAnchor(files, fact.base);
    const impl = this.mapAnchor(files, fact.impl);
    if (base === undefined || impl === undefined || base === impl) return 0;
    const r = await db.run(
      `INSERT INTO implementations (impl_id, base_id, file_id, tier, source, reason, wired_by) SELECT ?1, ?2, file_id, ?3, ?4, ?5, ?6 FROM symbols WHERE id = ?1
         ON CONFLICT(impl_id, base_id, source) DO UPDATE SET tier = excluded.tier, reason = excluded.reason, wired_by = excluded.wired_by`,
      [impl, base, tier, source, fact.reason, fact.wiredBy ?? null],
    );
    return r.changes;
  }

  private mapAnchor(files: Map<string, FileIndex>, a: SymbolAnchor): number | undefined {
    if ('external' in a) return undefined;
    if ('sid' in a) {
      for (const fi of files.values()) {
        const s = fi.symbols.find((x) => x.sid === a.sid);
        if (s) return s.id;
      }
      return undefined;
    }
    return files.get(a.at.path)?.symbolAt(a.at)?.id;
  }

  /** Loads the files a batch mentions: their symbols and inventory sites. */
  private async loadFiles(db: Db, batch: ResolutionBatch): Promise<Map<string, FileIndex>> {
    const paths = new Set<string>();
    const sids = new Set<string>();
    const addAnchor = (a: SymbolAnchor | undefined) => {
      if (!a) return;
      if ('at' in a) paths.add(a.at.path);
      else if ('sid' in a) sids.add(a.sid);
    };
    for (const v of batch.sites) {
      paths.add(v.site.path);
      addAnchor(v.from);
      for (const t of v.targets) addAnchor(t);
    }
    for (const i of batch.implementations) {
      addAnchor(i.base);
      addAnchor(i.impl);
    }
    for (const p of batch.coveredFiles ?? []) paths.add(p);
    if (sids.size) {
      for (const r of await db.all<{ path: string }>(`SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid IN (SELECT value FROM json_each(?))`, [JSON.stringify([...sids])])) paths.add(r.path);
    }
    const out = new Map<string, FileIndex>();
    const fileRows = await db.all<FileRow>(`SELECT id, path, hash, language FROM files WHERE path IN (SELECT value FROM json_each(?))`, [JSON.stringify([...paths])]);
    for (const f of fileRows) out.set(f.path, new FileIndex(f));
    const byId = new Map([...out.values()].map((fi) => [fi.file.id, fi]));
    const ids = json(byId.keys());
    for (const s of await db.all<SymRow>(`SELECT id, sid, name, kind, line, col, end_line, end_col, parent_id, file_id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))`, [ids])) {
      byId.get(s.file_id)!.symbols.push(s);
    }
    for (const row of await db.all<{ file_id: number; sites: string }>(`SELECT file_id, sites FROM file_sites WHERE file_id IN (SELECT value FROM json_each(?))`, [ids])) {
      const fi = byId.get(row.file_id)!;
      for (const [id, ownerId, kind, name, receiver, , line, col, dynamic] of JSON.parse(row.sites) as SiteTuple[]) {
        fi.sitesAt.set(`${line}:${col}`, { id, ownerId, kind, name, receiver, line, col, dynamic });
      }
    }
    return out;
  }

  /**
   * Overrides that follow from resolved inheritance: when a type checker
   * resolved `class C extends B` (or `implements`), a member of C with the
   * name of a member of B overrides it (in Python, TypeScript and Java
   * overriding is by name, checked by the compiler). Closed transitively, so
   * a call through a grandparent's method reaches the grandchild. Covers
   * servers without `textDocument/implementation` (pyright).
   */
  async deriveOverrides(): Promise<number> {
    return this.db.write(async (db) => {
      let total = 0;
      const direct = await db.run(
        `INSERT OR IGNORE INTO implementations (impl_id, base_id, file_id, tier, source, reason)
           SELECT m.id, bm.id, m.file_id, e.tier, e.source, 'overrides \`' || t.name || '.' || bm.name || '\` (inheritance resolved by ' || e.source || ')'
           FROM edges e
           JOIN symbols m ON m.parent_id = e.src_id AND m.kind IN ('method', 'field', 'function')
           JOIN symbols bm ON bm.parent_id = e.dst_id AND bm.name = m.name AND bm.kind IN ('method', 'field', 'function')
           JOIN symbols t ON t.id = e.dst_id
           WHERE e.kind IN ('extends', 'implements') AND e.tier IN ('resolved', 'observed') AND m.name NOT IN ('constructor', '__init__')`,
      );
      total += direct.changes;
      for (let i = 0; i < 10; i++) {
        const r = await db.run(
          `INSERT OR IGNORE INTO implementations (impl_id, base_id, file_id, tier, source, reason)
             SELECT a.impl_id, b.base_id, a.file_id, a.tier, a.source, a.reason || '; which ' || b.reason
             FROM implementations a JOIN implementations b ON b.impl_id = a.base_id
             WHERE a.impl_id != b.base_id`,
        );
        total += r.changes;
        if (!r.changes) break;
      }
      return total;
    });
  }

  async stats(): Promise<ResolutionStats> {
    const bySource = await this.db.all<{ source: string; files: number; confirmed: number; refuted: number; added: number }>(
      'SELECT source, count(*) AS files, sum(confirmed) AS confirmed, sum(refuted) AS refuted, sum(added) AS added FROM resolution_files GROUP BY source ORDER BY source',
    );
    const e = await this.db.get<{ resolved: number; upgraded: number; added: number }>(
      `SELECT sum(tier = 'resolved') AS resolved, sum(base_tier IS NOT NULL) AS upgraded, sum(added = 1) AS added FROM edges`,
    );
    const r = await this.db.get<{ n: number }>('SELECT count(*) AS n FROM refutations');
    const i = await this.db.get<{ n: number }>('SELECT count(*) AS n FROM implementations');
    return { bySource, edges: { resolved: e?.resolved ?? 0, upgraded: e?.upgraded ?? 0, added: e?.added ?? 0, refutations: r?.n ?? 0, implementations: i?.n ?? 0 } };
  }
}

function targetPath(files: Map<string, FileIndex>, id: number): string | undefined {
  for (const [p, fi] of files) if (fi.symbols.some((s) => s.id === id)) return p;
  return undefined;
}

function symbolName(files: Map<string, FileIndex>, id: number): string | undefined {
  for (const fi of files.values()) {
    const s = fi.symbols.find((x) => x.id === id);
    if (s) return s.name;
  }
  return undefined;
}

