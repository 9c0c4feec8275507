import type { SymbolKind } from '../model/structural.js';
import type { SkipKind } from '../model/skips.js';
import { sidKeyOf, specOf, type Edge, type FileEntry, type Site, type StructuralState, type SymbolRecord } from './index/state.js';
import { siteOf } from './index/pendingSites.js';
import { Yielder } from '../../shared/yielder.js';
import { deferIndexes, deleteWhereIn, insertRows, type Cell } from '../store/bulk.js';
import type { Db } from '../store/db.js';
import { invalidateResolutions } from './enrichment/store.js';
import type { SiteTuple } from './schema.js';
import type { UnreadLanguage } from './inventory/discover.js';


/** A table's rows, a page at a time, checking the clock before each row: a large workspace has hundreds of thousands. */
async function* rowsOf<T>(db: Db, yielder: Yielder, table: string, select: string, pageSize?: number): AsyncGenerator<T> {
  for await (const page of db.pages<T>(table, select, 'true', pageSize)) {
    for (const row of page) {
      if (yielder.due()) await yielder.yield();
      yield row;
    }
  }
}

/** Reads and writes the structural tables; the only module that knows their SQL shape. */
export class StructuralStore {
  constructor(private readonly db: Db) {}

  /**
   * Drops the structural memory (files cascade to their symbols, sites,
   * imports and edges, and to what artifacts added): the next index starts
   * from scratch. Nothing else in the database is touched.
   */
  async clear(): Promise<void> {
    await this.db.write(async (db) => {
      await db.run('DELETE FROM files');
      await bumpGeneration(db);
    });
  }

  /**
   * The structural memory's generation: moved by every write of files,
   * symbols, sites and imports. An indexer whose working set was loaded at
   * another generation holds a stale copy (another process wrote since) and
   * must reload it under the write lock before it writes.
   */
  async generation(db: Db = this.db): Promise<number> {
    const row = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.generation'");
    return row ? Number(row.value) : 0;
  }

  /**
   * What the last full walk passed over that is not a file row (folders it
   * could not list, links out of the workspace, FIFOs and devices, broken
   * links): kept so `tenure status` reports them, not only the index run.
   */
  async saveWalkSkips(skips: readonly { path: string; kind: SkipKind; reason: string }[]): Promise<void> {
    await this.saveMeta('structural.walkSkips', skips);
  }

  /** Source files of languages the inventory does not read, as the last full index counted them. */
  async saveUnread(unread: readonly UnreadLanguage[]): Promise<void> {
    await this.saveMeta('structural.unread', unread);
  }

  /** A value `saveMeta` kept, or undefined when none was. */
  private async meta<T>(key: string): Promise<T | undefined> {
    const row = await this.db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]);
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  private async saveMeta(key: string, value: unknown): Promise<void> {
    await this.db.write((db) => db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, JSON.stringify(value)]).then(() => undefined));
  }

  /** Whether no file has been indexed. */
  async isEmpty(): Promise<boolean> {
    return !(await this.db.get<{ one: number }>('SELECT 1 AS one FROM files LIMIT 1'));
  }

  /** The extraction version (inventory.ts) the stored facts were made with; undefined for a store from before versions were kept. */
  async extraction(): Promise<string | undefined> {
    return this.meta<string>('structural.extraction');
  }

  async saveExtraction(version: string): Promise<void> {
    await this.saveMeta('structural.extraction', version);
  }

  async walkSkips(): Promise<{ path: string; kind: SkipKind; reason: string }[]> {
    return (await this.meta<{ path: string; kind: SkipKind; reason: string }[]>('structural.walkSkips')) ?? [];
  }

  /** Loads the indexer's working set. Edges are not loaded: only inheritance, which resolution needs. */
  async load(state: StructuralState): Promise<void> {
    const files = await this.db.all<{
      id: number; path: string; language: string | null; hash: string | null; size: number; mtime_ms: number;
      skip_reason: string | null; skip_kind: SkipKind | null; error_nodes: number; parse_ms: number | null; package: string | null; computed_accesses: number;
    }>('SELECT id, path, language, hash, size, mtime_ms, skip_reason, skip_kind, error_nodes, parse_ms, package, computed_accesses FROM files');
    const modules = await this.db.all<{ file_id: number; id: number; qname: string }>("SELECT file_id, id, qname FROM symbols WHERE kind = 'module'");
    const moduleByFile = new Map(modules.map((m) => [m.file_id, m]));
    // The root package's name as the last full index found it, for files added before the next one.
    const rootInit = files.find((f) => f.path === '__init__.py');
    const rootName = rootInit ? moduleByFile.get(rootInit.id)?.qname : undefined;
    state.pythonRoot = rootName && rootName !== '__init__' ? rootName : '';
    // A large workspace has hundreds of thousands of rows: give the thread back as they are taken in.
    const yielder = new Yielder();
    for (const f of files) {
      if (yielder.due()) await yielder.yield();
      const spec = specOf(f.language);
      // Artifact rows (class files, bean exports, traces: sources/artifacts/schema.ts) are not the inventory's to index or remove.
      if (f.language && !spec) continue;
      const mod = moduleByFile.get(f.id);
      state.addFileEntry({
        id: f.id, rel: f.path, language: spec, hash: f.hash, size: f.size, mtimeMs: f.mtime_ms,
        // A skip written without its kind is one to try again.
        skip: f.skip_reason === null ? null : { kind: f.skip_kind ?? 'unreadable', reason: f.skip_reason },
        errorNodes: f.error_nodes, computedAccesses: f.computed_accesses, parseMs: f.parse_ms, packageName: f.package,
        moduleName: spec?.scheme === 'java' ? (f.package ?? '') : (mod?.qname ?? ''),
        moduleSymbolId: mod?.id ?? null,
      });
    }
    type SymbolRow = {
      id: number; sid: string; name: string; qname: string; kind: SymbolKind; file_id: number; parent_id: number | null; exported: number;
    };
    for await (const s of rowsOf<SymbolRow>(this.db, yielder, 'symbols', 'id, sid, name, qname, kind, file_id, parent_id, exported')) {
      if (!state.files.has(s.file_id)) continue; // symbols only an artifact shows (generated code, endpoints)
      // The sid and place stay in the store: the working set keeps the sid's key (see Sym).
      state.addSymbol({
        id: s.id, sidKey: sidKeyOf(s.sid), name: s.name, qname: s.qname, kind: s.kind, fileId: s.file_id, parentId: s.parent_id,
        exported: s.exported === 1,
      });
    }
    // Sites stay in the store; the working set keeps their names. A file's sites are one JSON text, parsed whole: check the clock after each file.
    for await (const row of rowsOf<{ file_id: number; sites: string }>(this.db, new Yielder(12, 1), 'file_sites', 'file_id, sites', 200)) {
      state.indexSites(row.file_id, JSON.parse(row.sites) as SiteTuple[]);
    }
    type ImportRow = { id: number; file_id: number; owner_id: number; module: string; name: string | null; local: string | null; wildcard: number; line: number; col: number };
    for await (const i of rowsOf<ImportRow>(this.db, yielder, 'imports', 'id, file_id, owner_id, module, name, local, wildcard, line, col')) {
      state.addImport({ id: i.id, fileId: i.file_id, ownerId: i.owner_id, module: i.module, name: i.name, local: i.local, wildcard: i.wildcard === 1, line: i.line, col: i.col, targets: [] });
    }
    const inherit = await this.db.all<{ src_id: number; dst_id: number }>(
      "SELECT src_id, dst_id FROM edges WHERE kind IN ('extends', 'implements') AND dst_id IS NOT NULL AND tier != 'ambiguous'",
    );
    for (const e of inherit) {
      if (!state.symbols.has(e.src_id)) continue;
      let set = state.supertypes.get(e.src_id);
      if (!set) state.supertypes.set(e.src_id, (set = new Set()));
      set.add(e.dst_id);
    }
  }

  /** The stored sites of these files (read inside the caller's transaction when it holds one). */
  static async sitesOf(db: Db, fileIds: readonly number[]): Promise<Site[]> {
    const out: Site[] = [];
    for (let i = 0; i < fileIds.length; i += 500) {
      const rows = await db.all<{ file_id: number; sites: string }>('SELECT file_id, sites FROM file_sites WHERE file_id IN (SELECT value FROM json_each(?))', [JSON.stringify(fileIds.slice(i, i + 500))]);
      for (const row of rows) for (const t of JSON.parse(row.sites) as SiteTuple[]) out.push(siteOf(row.file_id, t));
    }
    return out;
  }

  /**
   * Writes one batch of changes atomically: files removed, files replaced
   * (their rows rewritten from the state), and the new edges of every site
   * that was re-resolved.
   */
  async apply(
    state: StructuralState,
    change: StructuralChange,
    computeEdges: EdgeSource,
  ): Promise<{ edges: number; generation: number }> {
    return this.db.write((db) => StructuralStore.applyIn(db, state, change, computeEdges));
  }

  /**
   * `apply` inside a write transaction the caller holds (it checked the
   * generation under the same lock); returns the edges and the generation
   * this write moved the memory to.
   */
  static async applyIn(
    db: Db,
    state: StructuralState,
    change: StructuralChange,
    computeEdges: EdgeSource,
  ): Promise<{ edges: number; generation: number }> {
    let edges = 0;
    {
      const now = Date.now();
      // On a first index there is nothing to delete; skipping it saves a probe per row.
      if (!change.fresh) {
        // Resolver claims that may depend on these files fall back to the inventory in this same transaction.
        await invalidateResolutions(db, { changed: [...change.removed, ...change.replaced.map((f) => f.id)], rewritten: [...change.removed, ...change.replaced.map((f) => f.id)], sites: change.resolvedSites });
        await deleteWhereIn(db, 'files', 'id', change.removed);
        const replacedIds = change.replaced.map((f) => f.id);
        // Symbols the edit kept (same id) stay, so edges from other files into them survive.
        for (let i = 0; i < replacedIds.length; i += 4000) {
          await db.run('DELETE FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)) AND id NOT IN (SELECT value FROM json_each(?))', [
            JSON.stringify(replacedIds.slice(i, i + 4000)),
            JSON.stringify(change.keptSymbols ?? []),
          ]);
        }
        await deleteWhereIn(db, 'file_sites', 'file_id', replacedIds);
        await deleteWhereIn(db, 'imports', 'file_id', replacedIds);
        await deleteWhereIn(db, 'edges', 'file_id', replacedIds);
        await deleteWhereIn(db, 'edges', 'site_id', change.resolvedSites);
      }
      await insertRows(
        db,
        'files',
        ['id', 'path', 'language', 'hash', 'size', 'mtime_ms', 'skip_reason', 'error_nodes', 'parse_ms', 'package', 'indexed_at', 'skip_kind', 'computed_accesses'],
        change.replaced.map((f) => [f.id, f.rel, f.language?.id ?? null, f.hash, f.size, f.mtimeMs, f.skip?.reason ?? null, f.errorNodes, f.parseMs, f.packageName, now, f.skip?.kind ?? null, f.computedAccesses]),
        { upsert: 'id' },
      );
      for (const f of change.touched) {
        await db.run('UPDATE files SET mtime_ms = ?, size = ? WHERE id = ?', [f.mtimeMs, f.size, f.id]);
      }
      // A first index fills empty tables: their indexes are built once at the end.
      const restoreIndexes = change.fresh ? await deferIndexes(db, ['symbols', 'imports', 'edges']) : async () => undefined;
      // Edges name symbols: the files' own rows go first. The batch's sites stay pending (text, or a temporary
      // file on a large index) until resolution has read them; the caller lets them go.
      await writeFileRows(db, state, change.replaced);
      const writeEdges = async (batch: readonly Edge[]) => {
        await insertRows(
          db,
          'edges',
          ['site_id', 'src_id', 'dst_id', 'kind', 'name', 'tier', 'source', 'reason', 'candidates', 'file_id', 'line', 'col', 'binding'],
          batch.map((e) => [e.siteId, e.srcId, e.dstId, e.kind, e.name, e.tier, e.source, e.reason, e.candidates, e.fileId, e.line, e.col, e.binding]),
        );
      };
      edges = await computeEdges(writeEdges);
      await restoreIndexes();
      await updateImportTargets(db, change.importTargets?.() ?? []);
      await db.run("INSERT INTO meta (key, value) VALUES ('structural.indexedAt', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [String(now)]);
    }
    return { edges, generation: await bumpGeneration(db) };
  }
}

/**
 * The symbols, sites and imports of the files a change rewrites. The rows
 * are built and written a slice of files at a time, giving the thread back
 * between files: on a large first index all of them at once were hundreds
 * of megabytes (each file's sites as JSON text).
 */
async function writeFileRows(db: Db, state: StructuralState, files: readonly FileEntry[]): Promise<void> {
  const yielder = new Yielder(12, 1);
  for (let start = 0; start < files.length; start += FILE_ROWS_SLICE) {
    const symbolRows: Cell[][] = [];
    const siteRows: Cell[][] = [];
    const importRows: Cell[][] = [];
    for (const f of files.slice(start, start + FILE_ROWS_SLICE)) {
      // None when stored already, by this write or an earlier one.
      const records = state.unwrittenSymbols.text(f.id);
      for (const [id, sid, line, col, endLine, endCol] of records ? (JSON.parse(records) as SymbolRecord[]) : []) {
        const s = state.symbols.get(id)!;
        symbolRows.push([s.id, sid, s.name, s.qname, s.kind, s.fileId, s.parentId, line, col, endLine, endCol, s.exported ? 1 : 0]);
      }
      // Stored: the working set lets the records go (a write that fails reloads the working set from the store).
      state.unwrittenSymbols.delete(f.id);
      siteRows.push([f.id, state.pendingSites.text(f.id) ?? '[]']);
      for (const i of state.importsByFile.get(f.id) ?? []) importRows.push([i.id, i.fileId, i.ownerId, i.module, i.name, i.local, i.wildcard ? 1 : 0, i.targets[0] ?? null, i.line, i.col]);
      if (yielder.due()) await yielder.yield();
    }
    await insertRows(db, 'symbols', ['id', 'sid', 'name', 'qname', 'kind', 'file_id', 'parent_id', 'line', 'col', 'end_line', 'end_col', 'exported'], symbolRows, { upsert: 'id' });
    await insertRows(db, 'file_sites', ['file_id', 'sites'], siteRows);
    await insertRows(db, 'imports', ['id', 'file_id', 'owner_id', 'module', 'name', 'local', 'wildcard', 'target_file_id', 'line', 'col'], importRows);
  }
}

/** Files whose rows are built and written together. */
const FILE_ROWS_SLICE = 500;

/**
 * Makes the edges of a change and hands them to `write` in batches, each once
 * the one before is written (memory holds a batch or two, not every edge);
 * resolves to how many it made.
 */
export type EdgeSource = (write: (edges: readonly Edge[]) => Promise<void>) => Promise<number>;

export interface StructuralChange {
  fresh?: boolean;
  removed: readonly number[];
  replaced: readonly FileEntry[];
  touched: readonly FileEntry[];
  keptSymbols?: readonly number[];
  resolvedSites: readonly number[];
  /** Import targets that moved in files not otherwise rewritten (a new file made an import resolvable), read after the edges are resolved. */
  importTargets?: () => readonly { id: number; target: number | null }[];
}

async function bumpGeneration(db: Db): Promise<number> {
  const row = await db.get<{ value: string }>(
    "INSERT INTO meta (key, value) VALUES ('structural.generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) RETURNING value",
  );
  return Number(row!.value);
}

/** Import targets changed for files not otherwise rewritten. Call inside `db.write`. */
async function updateImportTargets(db: Db, rows: readonly { id: number; target: number | null }[]): Promise<void> {
  if (!rows.length) return;
  // A file whose imports now point elsewhere may resolve differently: its resolved edges (and its importers') fall back.
  const owners = await db.all<{ file_id: number }>('SELECT DISTINCT file_id FROM imports WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(rows.map((r) => r.id))]);
  await invalidateResolutions(db, { changed: owners.map((o) => o.file_id), rewritten: [], sites: [] });
  await db.run(
    'UPDATE imports SET target_file_id = (SELECT value->>1 FROM json_each(?1) WHERE value->>0 = imports.id) WHERE id IN (SELECT value->>0 FROM json_each(?1))',
    [JSON.stringify(rows.map((r) => [r.id, r.target]))],
  );
}

/** The source files in languages Tenure does not read, by language, as the last full index counted them (none before one has run). */
export async function unreadLanguages(db: Db): Promise<UnreadLanguage[]> {
  const row = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.unread'");
  return row ? (JSON.parse(row.value) as UnreadLanguage[]) : [];
}
