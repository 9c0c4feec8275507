import type { ResolutionBatch, SiteQuery, SymbolQuery } from './types.js';
import type { Db } from '../../store/db.js';
import type { SiteTuple } from '../schema.js';
import { applyBatch, type Coverage, type FileRow } from './applyBatch.js';

/*
 * Reads and writes what resolvers proved (enrichment/schema.ts). Two duties:
 *
 * 1. invalidateResolutions(): called by the structural store inside the very
 *    transaction that rewrites or removes files. Every resolver claim that may
 *    depend on a changed file falls back to the inventory's answer before the
 *    transaction commits, so no reader ever sees a stale `resolved`.
 *
 * 2. ResolutionStore.apply(): turns a resolver's batch (locations and symbol
 *    ids) into edge rows: confirm in place, refute (move to refutations), add
 *    (applyBatch.ts).
 */

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
    `INSERT INTO edges (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, binding)
       SELECT site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, binding FROM refutations
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

export interface ApplyResult {
  readonly confirmed: number;
  readonly refuted: number;
  readonly added: number;
  readonly implementations: number;
  /** Inventory edges in the covered files the resolver neither confirmed nor refuted: they say so. */
  readonly unanswered: number;
  /** Data uses through receivers the checker types `any`: kept once by name, not attributed to a member. */
  readonly untyped: number;
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

  /**
   * Files of the given languages not yet enriched at their current content by
   * `source`, nor by another resolver over the same type checker.
   */
  async pendingFiles(source: string, languages: readonly string[], checker?: string): Promise<FileToEnrich[]> {
    return this.db.all<FileToEnrich>(
      `SELECT f.id, f.path, f.language, f.hash FROM files f
         WHERE f.skip_reason IS NULL AND f.language IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id AND (r.source = ?2 OR r.checker = ?3) AND r.hash IS f.hash)
         ORDER BY f.path`,
      [JSON.stringify(languages), source, checker ?? null],
    );
  }

  /** How many files of the languages there are, and how many no resolver over `checker` has covered at their content. */
  async coverage(languages: readonly string[], checker: string): Promise<{ total: number; pending: number }> {
    const r = await this.db.get<{ total: number; pending: number }>(
      `SELECT count(*) AS total,
              sum(NOT EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id AND r.checker = ?2 AND r.hash IS f.hash)) AS pending
         FROM files f WHERE f.skip_reason IS NULL AND f.language IN (SELECT value FROM json_each(?1))`,
      [JSON.stringify(languages), checker],
    );
    return { total: r?.total ?? 0, pending: r?.pending ?? 0 };
  }

  /** The inventory languages the workspace has files in. */
  async languagesPresent(): Promise<string[]> {
    return (await this.db.all<{ language: string }>('SELECT DISTINCT language FROM files WHERE language IS NOT NULL AND skip_reason IS NULL')).map((r) => r.language);
  }

  /** Workspace-relative paths of the inventory's files in these languages. */
  async filePaths(languages: readonly string[]): Promise<string[]> {
    const rows = await this.db.all<{ path: string }>(`SELECT path FROM files WHERE skip_reason IS NULL AND language IN (SELECT value FROM json_each(?)) ORDER BY path`, [JSON.stringify(languages)]);
    return rows.map((r) => r.path);
  }

  /** Whether a resolver over `checker` read every use of this symbol's file at its content (no references search needed). */
  async allUsesRead(sid: string, checker: string | undefined): Promise<boolean> {
    if (!checker) return false;
    const r = await this.db.get<{ n: number }>(
      `SELECT EXISTS (SELECT 1 FROM symbols s JOIN files f ON f.id = s.file_id JOIN resolution_files r ON r.file_id = f.id
         WHERE s.sid = ?1 AND r.checker = ?2 AND r.all_uses = 1 AND r.hash IS f.hash) AS n`,
      [sid, checker],
    );
    return !!r?.n;
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

  /**
   * Methods whose calls may dispatch elsewhere: members of interfaces, and of
   * types the inventory knows have subtypes; none in a file whose every use a
   * resolver over `checker` read (it proved the implementations already).
   */
  async dispatchRoots(languages: readonly string[], source: string, checker?: string): Promise<(SymbolQuery & { id: number; language: string })[]> {
    const rows = await this.db.all<{ id: number; sid: string; name: string; kind: string; line: number; col: number; pkind: string; path: string; language: string }>(
      `SELECT s.id, s.sid, s.name, s.kind, s.line, s.col, p.kind AS pkind, f.path, f.language
         FROM symbols s JOIN symbols p ON p.id = s.parent_id JOIN files f ON f.id = s.file_id
         WHERE s.kind IN ('method', 'field', 'function') AND f.language IN (SELECT value FROM json_each(?1))
           AND (p.kind = 'interface' OR EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = p.id AND e.kind IN ('extends', 'implements')))
           AND NOT EXISTS (SELECT 1 FROM resolution_symbols r WHERE r.symbol_id = s.id AND r.source = ?2)
           AND NOT EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id AND r.checker = ?3 AND r.all_uses = 1 AND r.hash IS f.hash)
         ORDER BY f.path, s.line`,
      [JSON.stringify(languages), source, checker ?? null],
    );
    return rows.map((r) => ({ id: r.id, sid: r.sid, name: r.name, kind: r.kind, at: { path: r.path, line: r.line, col: r.col }, parentKind: r.pkind, language: r.language }));
  }

  /**
   * Functions, methods and data (fields, constants) nothing in the graph uses,
   * not yet searched by `source`: candidates for a references search. None in
   * a file whose every use a resolver over `checker` read: nothing is missing there.
   */
  async uncalledCallables(languages: readonly string[], source: string, limit = 500, checker?: string): Promise<{ sid: string; path: string }[]> {
    return this.db.all<{ sid: string; path: string }>(
      `SELECT s.sid, f.path FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.kind IN ('function', 'method', 'field', 'constant') AND f.language IN (SELECT value FROM json_each(?1)) AND f.skip_reason IS NULL
           AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = s.id AND e.tier != 'dynamic')
           AND NOT EXISTS (SELECT 1 FROM resolution_symbols r WHERE r.symbol_id = s.id AND r.source = ?2)
           AND NOT EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id AND r.checker = ?4 AND r.all_uses = 1 AND r.hash IS f.hash)
         ORDER BY s.kind NOT IN ('function'), s.kind NOT IN ('method'), f.path, s.line LIMIT ?3`,
      [JSON.stringify(languages), source, limit, checker ?? null],
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
  async apply(source: string, tier: 'resolved' | 'observed', batch: ResolutionBatch, generation?: string, coverage: Coverage = {}): Promise<ApplyResult> {
    return this.db.write(async (db) => {
      if (generation !== undefined && generation !== (await this.generation())) {
        return { confirmed: 0, refuted: 0, added: 0, implementations: 0, unanswered: 0, untyped: 0, stale: true, unmatchedSites: 0 };
      }
      const o = await applyBatch(db, source, tier, batch, coverage);
      return { confirmed: o.confirmed, refuted: o.refuted, added: o.added, implementations: o.implementations, unanswered: o.unanswered, untyped: o.untyped, stale: false, unmatchedSites: o.unmatchedSites };
    });
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
           WHERE e.kind IN ('extends', 'implements') AND e.tier IN ('resolved', 'observed') AND m.name NOT IN ('constructor', '__init__')
             -- A call through a function-typed property reads the property: a method of that name is not reached by dispatch.
             AND NOT (bm.kind IN ('field', 'constant') AND m.kind IN ('method', 'function'))`,
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
      `SELECT sum(tier = 'resolved') AS resolved, sum(base_tier IS NOT NULL AND tier IN ('resolved', 'observed')) AS upgraded, sum(added = 1 AND dst_id IS NOT NULL) AS added FROM edges`,
    );
    const r = await this.db.get<{ n: number }>('SELECT count(*) AS n FROM refutations');
    const i = await this.db.get<{ n: number }>('SELECT count(*) AS n FROM implementations');
    return { bySource, edges: { resolved: e?.resolved ?? 0, upgraded: e?.upgraded ?? 0, added: e?.added ?? 0, refutations: r?.n ?? 0, implementations: i?.n ?? 0 } };
  }
}
