import * as fs from 'node:fs';
import * as path from 'node:path';
import { toPosixRelative } from '../../../shared/paths.js';
import { Yielder } from '../../../shared/yielder.js';
import { StructuralStore } from '../store.js';
import type { Workspace } from '../../store/workspace.js';
import type { Db } from '../../store/db.js';
import { worthRetrying, type SkipKind } from '../../model/skips.js';
import { IgnoreRules } from '../../repo/gitignore.js';
import { ALWAYS_SKIPPED_DIRS } from '../../repo/walk.js';
import { discover, type DiscoveredFile, type UnreadLanguage } from '../inventory/discover.js';
import { languageForPath } from '../inventory/languages.js';
import { extractionVersion } from '../inventory/inventory.js';
import { ParsePool, defaultPoolSize, type ParseJob } from '../inventory/parsePool.js';
import { factsOf, type ParseResponse } from '../inventory/parseProtocol.js';
import { Resolver } from './resolve.js';
import { StructuralState, type FileEntry, type Import, type Site, type Sym } from './state.js';
import { inherits } from './pendingSites.js';

export interface IndexerOptions {
  /** Parse workers; defaults to the cores available, at most 4. */
  readonly workers?: number;
  readonly maxFileBytes?: number;
  /** Site text and symbol records one write keeps in memory, each, before they go to a temporary file (FileTexts); the default suits every size. */
  readonly spillBytes?: number;
  /** Per-file parse budget. */
  readonly parseBudgetMs?: number;
  readonly exclude?: readonly string[];
  readonly log?: (message: string) => void;
  /**
   * Restricted mode (an untrusted workspace): the inventory is tree-sitter
   * only, which is all it is today; enrichment passes that start language
   * servers or call models must check this and stay off.
   */
  readonly restricted?: boolean;
}

export interface IndexReport {
  readonly files: number;
  readonly parsed: number;
  readonly unchanged: number;
  readonly removed: number;
  readonly skipped: readonly { path: string; kind: SkipKind; reason: string }[];
  /** Files parsed in this run with some constructs left out (each with its reason); the rest of each file is indexed. */
  readonly partial: readonly { path: string; constructs: number; line: number; reason: string }[];
  readonly symbols: number;
  readonly sites: number;
  readonly edges: number;
  readonly bytes: number;
  readonly ms: number;
  /**
   * Where the time went, in milliseconds. A first index takes each file's facts into the working set while the
   * others parse, so its `parse` holds that work too; `resolve` runs from the write's start to the last edge made.
   */
  readonly phases: { discover: number; load: number; parse: number; resolve: number; write: number };
  /** Source files in languages the inventory does not read (Rust, C, …), by language: no answer sees their code. */
  readonly unread: readonly UnreadLanguage[];
  /** The stored index was made by another version of the extractor and was built again from scratch. */
  readonly rebuilt?: 'extractor changed';
}

interface Parsed {
  readonly rel: string;
  readonly file?: DiscoveredFile;
  readonly response: ParseResponse;
  /** The file's mtime, taken before it was read: an edit during the parse leaves a later mtime, so the next index reads it again. */
  readonly mtimeMs?: number;
}

/** A batch this large gets one more parse worker (each pays for its runtime and queries); a larger one is a bulk parse. */
const JOBS_PER_WORKER = 200;

/** What one index run or update writes, by path: ids are looked up in the working set under the write lock. */
interface Plan {
  parsed: Parsed[];
  /** Paths that are gone (updates). */
  readonly removedRels: readonly string[];
  /** A full index: every file the walk found, so a reloaded working set can be checked against it (and files not found are removed). */
  readonly discovered?: readonly DiscoveredFile[];
  readonly texts?: ReadonlyMap<string, string>;
  /** Files already taken into the working set as they were parsed (a first index), and what that changed. */
  readonly takenIn?: Batch;
}

/** The sites a batch resolves: its inheritance sites first, then the rest in groups read as resolution reaches them. */
interface AffectedSites {
  readonly inheritance: readonly Site[];
  readonly groups: Iterable<Site[]>;
  /** The stored sites among them (files not rewritten), whose old edges the write replaces. */
  readonly storedIds: readonly number[];
}

/** What a written batch did. */
interface Applied {
  readonly parsed: number;
  readonly unchanged: number;
  readonly resolveMs: number;
  readonly writeMs: number;
  readonly removed: number;
  readonly partial: IndexReport['partial'];
}

/** What one batch of parsed and removed files changes in the working set, as it is taken in. */
interface Batch {
  /** Nothing was indexed before: every site is resolved, nothing is compared. */
  readonly fresh: boolean;
  /** Names that gained or lost a definition: the sites that use them may resolve differently. */
  readonly names: Set<string>;
  /** Files came or went, so modules may resolve to other files. */
  structureChanged: boolean;
  /** A configuration file changed: every read of a key by its string may resolve differently. */
  configChanged: boolean;
  /** Files whose rows are rewritten (parsed or skipped). */
  readonly replaced: FileEntry[];
  /** Files with the same bytes and a new mtime. */
  readonly touched: FileEntry[];
  /** Symbols an edit kept (same id), so edges from other files into them survive. */
  readonly kept: number[];
  parsed: number;
  unchanged: number;
  /** Files parsed with some constructs left out. */
  readonly partial: IndexReport['partial'][number][];
}

/**
 * Builds and keeps the structural memory up to date: discovery, parsing in
 * workers, resolution in memory, one transaction per batch into SQLite.
 * Batches are serialised, so a save during a full index waits its turn.
 */
export class StructuralIndexer {
  private state: StructuralState;
  private resolver: Resolver;
  /** The structural generation the working set was loaded at (or last wrote). */
  private generation = 0;
  /** What the last walk found of the workspace's package roots, kept across reloads. */
  private roots: { goModules: Map<string, string>; pythonRoot: string } | undefined;
  /** Writes that found another writer had moved the memory first and were applied again on a reloaded working set. */
  private staleRetries = 0;
  private readonly store: StructuralStore;
  private pool: ParsePool | undefined;
  private loaded = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly maxFileBytes: number;
  private readonly parseBudgetMs: number;

  private constructor(
    readonly workspace: Workspace,
    private readonly options: IndexerOptions,
  ) {
    this.state = new StructuralState(this.options.spillBytes);
    this.resolver = new Resolver(this.state);
    this.store = new StructuralStore(workspace.db);
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.parseBudgetMs = options.parseBudgetMs ?? 2000;
  }

  static async create(workspace: Workspace, options: IndexerOptions = {}): Promise<StructuralIndexer> {
    return new StructuralIndexer(workspace, options);
  }

  /**
   * The parse workers, started on first use. Each worker pays for loading the
   * runtime and compiling the tag queries, so a small first batch (a save, a
   * small repository) starts one worker, and a large one as many as allowed.
   */
  private parsePoolFor(jobs: number): ParsePool {
    const wanted = this.options.workers ?? Math.min(defaultPoolSize(), Math.max(1, Math.ceil(jobs / JOBS_PER_WORKER)));
    this.pool ??= new ParsePool(wanted);
    this.pool.grow(wanted);
    return this.pool;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async ensureLoaded(): Promise<number> {
    if (this.loaded) return 0;
    const t = performance.now();
    // Read before the load: a write that lands while the rows are read moves it, and the next write reloads.
    this.generation = await this.store.generation();
    await this.store.load(this.state);
    if (this.roots) {
      this.state.goModules = this.roots.goModules;
      this.state.pythonRoot = this.roots.pythonRoot;
    }
    // The database keeps one target per import; a re-export or a Go or Java package has several, and resolution reads them all.
    await this.resolver.resolveImports(this.state.files.keys());
    this.loaded = true;
    return performance.now() - t;
  }

  /** Drops the working set; the next use loads it from SQLite again. */
  private forget(): void {
    this.state.releasePending();
    this.state = new StructuralState(this.options.spillBytes);
    this.resolver = new Resolver(this.state);
    this.loaded = false;
  }

  /**
   * A stored index whose facts another version of the extractor made (other tag queries, other module names)
   * is dropped, so that this index builds it again from scratch: its unchanged files would never be parsed again.
   */
  private async dropIfExtractedElsewise(): Promise<'extractor changed' | undefined> {
    const made = await this.store.extraction();
    if (made === extractionVersion() || (await this.store.isEmpty())) return undefined;
    this.options.log?.(`the structural memory was made by another version of the extractor (${made ?? 'unknown'}): building it again`);
    await this.store.clear();
    this.forget();
    return 'extractor changed';
  }

  /** Another process wrote the structural memory since this working set was loaded: load it again. */
  private async refresh(db = this.workspace.db): Promise<boolean> {
    if (!this.loaded || (await this.store.generation(db)) === this.generation) return false;
    this.forget();
    await this.ensureLoaded();
    return true;
  }

  /** Whether a walked file must be parsed, given what the working set knows of it. */
  private needsParse(f: DiscoveredFile): boolean {
    const knownId = this.state.fileByRel.get(f.rel);
    const known = knownId !== undefined ? this.state.files.get(knownId) : undefined;
    // A file skipped for a passing reason (a budget, a crashed worker) is tried again every time;
    // one skipped for what its bytes are (binary, minified, not UTF-8) only when they change; size limits are settings, so "too large" is re-checked too.
    return !(known && !worthRetrying(known.skip) && known.size === f.size && known.mtimeMs === f.mtimeMs && known.hash && known.language?.id === f.language.id);
  }

  private jobFor(abs: string, rel: string, language: string, text?: string): ParseJob {
    const knownId = this.state.fileByRel.get(rel);
    const known = knownId !== undefined ? this.state.files.get(knownId) : undefined;
    return {
      root: this.workspace.root, abs, language, maxBytes: this.maxFileBytes, budgetMs: this.parseBudgetMs,
      ...(known?.hash && !worthRetrying(known.skip) ? { knownHash: known.hash } : {}),
      ...(text !== undefined ? { text } : {}),
    };
  }

  /** Indexes the whole workspace; files unchanged since the last run (size, mtime, hash) are not parsed again. */
  indexAll(opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<IndexReport> {
    return this.serial(async () => {
      const t0 = performance.now();
      // A first index parses every file: one worker starts loading its runtime now, while discovery walks the tree.
      if (!this.pool && !this.loaded && (await this.store.isEmpty())) this.parsePoolFor(1);
      const d = await discover(this.workspace.root, { exclude: this.options.exclude ?? [] });
      // Kept for every load, which would otherwise bring back the name the last index gave the root package.
      this.roots = { goModules: d.goModules, pythonRoot: d.pythonRoot };
      this.state.goModules = d.goModules;
      const tDiscover = performance.now() - t0;
      const rebuilt = await this.dropIfExtractedElsewise();
      let tLoad = await this.ensureLoaded();
      const tr = performance.now();
      if (await this.refresh()) tLoad += performance.now() - tr;
      this.state.pythonRoot = d.pythonRoot;
      this.state.goModules = d.goModules;
      const seen = new Set<string>();
      const jobs: ParseJob[] = [];
      const jobFiles: DiscoveredFile[] = [];
      let unchanged = 0;
      for (const f of d.files) {
        seen.add(f.rel);
        if (!this.needsParse(f)) {
          unchanged++;
          continue;
        }
        jobFiles.push(f);
        jobs.push(this.jobFor(f.abs, f.rel, f.language.id));
      }
      const removed = [...this.state.fileByRel.keys()].filter((rel) => !seen.has(rel));
      const tp = performance.now();
      const pool = this.parsePoolFor(jobs.length);
      const progress = (done: number) => opts.onProgress?.(done + unchanged, d.files.length);
      const parsedOf = (response: ParseResponse): Parsed => ({ rel: jobFiles[response.id]!.rel, file: jobFiles[response.id]!, response, mtimeMs: jobFiles[response.id]!.mtimeMs });
      let plan: Plan;
      this.state.expectFiles(d.files.map((f) => f.rel));
      if (this.nothingStored()) {
        // A first index takes each file's facts in as its worker sends them, while the others parse: no file's
        // facts wait for the rest, and the main thread's share of the work is done beside the workers'. (Another
        // writer that indexes meanwhile is found under the write lock, and the files are read again: `apply`.)
        const takenIn = this.newBatch(true, []);
        try {
          await pool.parseEach(jobs, (response) => this.takeIn(parsedOf(response), takenIn), progress, opts.signal);
        } catch (e) {
          this.forget();
          throw e;
        }
        plan = { parsed: [], removedRels: removed, discovered: d.files, takenIn };
      } else {
        const responses = await pool.parseAll(jobs, progress, opts.signal);
        plan = { parsed: responses.map(parsedOf), removedRels: removed, discovered: d.files };
      }
      const tParse = performance.now() - tp;
      // A worker's WebAssembly memory grows to the largest file it parsed and never shrinks: after a
      // bulk parse the workers are let go (about 50 MB each on Django), and the next save starts one afresh.
      if (jobs.length > JOBS_PER_WORKER) await this.releasePool();
      const result = await this.apply(plan);
      const walkSkips = d.skipped.map((s) => ({ path: s.rel, kind: s.kind, reason: s.reason }));
      const store = new StructuralStore(this.workspace.db);
      await store.saveExtraction(extractionVersion());
      await store.saveWalkSkips(walkSkips);
      await store.saveUnread(d.unread);
      const skipped = [
        ...walkSkips,
        ...[...this.state.files.values()].flatMap((f) => (f.skip ? [{ path: f.rel, kind: f.skip.kind, reason: f.skip.reason }] : [])),
      ];
      const report: IndexReport = {
        files: d.files.length,
        parsed: result.parsed,
        unchanged: unchanged + result.unchanged,
        removed: result.removed,
        skipped,
        partial: result.partial,
        symbols: this.state.symbols.size,
        sites: this.state.siteCount,
        edges: await this.countEdges(),
        bytes: d.files.reduce((n, f) => n + f.size, 0),
        ms: performance.now() - t0,
        phases: { discover: tDiscover, load: tLoad, parse: tParse, resolve: result.resolveMs, write: result.writeMs },
        unread: d.unread,
        ...(rebuilt ? { rebuilt } : {}),
      };
      this.options.log?.(`indexed ${report.files} files (${report.parsed} parsed, ${report.unchanged} unchanged, ${report.removed} removed, ${skipped.length} skipped) in ${Math.round(report.ms)} ms`);
      return report;
    });
  }

  /**
   * Re-indexes the given files (created, changed or deleted). Paths outside
   * the workspace, in ignored folders or in languages without a grammar are
   * ignored. Unsaved editor text can be passed in `texts`.
   */
  updateFiles(absPaths: readonly string[], texts: ReadonlyMap<string, string> = new Map()): Promise<{ parsed: number; removed: number; ms: number }> {
    return this.serial(async () => {
      const t0 = performance.now();
      await this.ensureLoaded();
      await this.refresh();
      const jobs: ParseJob[] = [];
      const rels: string[] = [];
      const mtimes: (number | undefined)[] = [];
      const removed: string[] = [];
      const rules = new IgnoreRules(this.workspace.root, this.options.exclude ?? []);
      for (const abs of await this.expandFolders(absPaths)) {
        const rel = toPosixRelative(this.workspace.root, abs);
        if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
        const language = languageForPath(rel);
        if (!language || rel.split('/').some((seg) => ALWAYS_SKIPPED_DIRS.has(seg)) || rules.ignoresPath(rel)) continue;
        if (!fs.existsSync(abs) && texts.get(abs) === undefined) {
          if (this.state.fileByRel.has(rel)) removed.push(rel);
          continue;
        }
        // Stat before the read: an edit while it is parsed leaves a later mtime behind, read again next time.
        mtimes.push(statOf(abs)?.mtimeMs);
        jobs.push(this.jobFor(abs, rel, language.id, texts.get(abs)));
        rels.push(rel);
      }
      if (!jobs.length && !removed.length) return { parsed: 0, removed: 0, ms: performance.now() - t0 };
      const responses = await this.parsePoolFor(jobs.length).parseAll(jobs);
      const parsed: Parsed[] = [];
      responses.forEach((response, i) => {
        if (response.status === 'missing') {
          if (this.state.fileByRel.has(rels[i]!)) removed.push(rels[i]!);
        } else parsed.push({ rel: rels[i]!, response, ...(mtimes[i] !== undefined ? { mtimeMs: mtimes[i] } : {}) });
      });
      const result = await this.apply({ parsed, removedRels: removed, texts });
      return { parsed: result.parsed, removed: result.removed, ms: performance.now() - t0 };
    });
  }

  /**
   * Watchers report a created or deleted folder once, not each file in it:
   * a folder that exists stands for the source files under it, one that is
   * gone for every indexed file that was under it.
   */
  private async expandFolders(absPaths: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const p of absPaths) {
      const abs = path.resolve(p);
      let isDir = false;
      try {
        isDir = fs.statSync(abs).isDirectory();
      } catch {
        // gone: a deleted file, or a deleted folder if indexed files lie under it
      }
      const rel = toPosixRelative(this.workspace.root, abs);
      if (isDir) {
        if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
        const sub = await discover(this.workspace.root, { exclude: this.options.exclude ?? [], under: rel });
        for (const f of sub.files) out.add(f.abs);
        continue;
      }
      const prefix = rel === '' ? '' : rel + '/';
      let under = false;
      if (!fs.existsSync(abs)) {
        for (const known of this.state.fileByRel.keys()) {
          if (prefix && known.startsWith(prefix)) {
            out.add(path.join(this.workspace.root, known));
            under = true;
          }
        }
      }
      if (!under) out.add(abs);
    }
    return out;
  }

  /** Totals for status displays, without the cost of a full status query. */
  async counts(): Promise<{ files: number; skipped: number; symbols: number; edges: number }> {
    await this.queue.catch(() => undefined);
    await this.ensureLoaded();
    let skipped = 0;
    for (const f of this.state.files.values()) if (f.skip) skipped++;
    let symbols = 0;
    for (const s of this.state.symbols.values()) if (s.kind !== 'module') symbols++;
    return { files: this.state.files.size - skipped, skipped, symbols, edges: await this.countEdges() };
  }

  /**
   * Writes a plan under SQLite's write lock. The working set must be the
   * memory as stored: if another process wrote since it was loaded (the
   * generation moved), it is loaded again inside the lock and the plan
   * checked against it (files that process indexed in a newer version are
   * left as it wrote them, files it changed are read again), so ids never
   * clash and nothing another writer did is lost. A write that fails leaves
   * the working set to be loaded again.
   */
  private async apply(plan: Plan): Promise<Applied> {
    try {
      return await this.workspace.db.write(async (db) => {
        if (await this.refresh(db)) {
          this.staleRetries++;
          plan = await this.replan(plan);
        }
        return this.applyLocked(db, plan);
      });
    } catch (e) {
      this.forget();
      throw e;
    }
  }

  /** A plan made on a stale working set, checked against the reloaded one: what another writer indexed newer is kept, what it changed is read again. */
  private async replan(plan: Plan): Promise<Plan> {
    const parsed: Parsed[] = [];
    const again: { rel: string; abs: string; language: string; file?: DiscoveredFile }[] = [];
    const entryOf = (rel: string) => {
      const id = this.state.fileByRel.get(rel);
      return id !== undefined ? this.state.files.get(id) : undefined;
    };
    for (const p of plan.parsed) {
      const entry = entryOf(p.rel);
      if (entry && p.mtimeMs !== undefined && entry.mtimeMs > p.mtimeMs && !plan.texts?.size) continue;
      if (p.response.status === 'unchanged' && entry?.hash !== p.response.hash) {
        const language = languageForPath(p.rel);
        if (language) again.push({ rel: p.rel, abs: path.join(this.workspace.root, p.rel), language: language.id, ...(p.file ? { file: p.file } : {}) });
        continue;
      }
      parsed.push(p);
    }
    const planned = new Set(plan.parsed.map((p) => p.rel));
    for (const f of plan.discovered ?? []) if (!planned.has(f.rel) && this.needsParse(f)) again.push({ rel: f.rel, abs: f.abs, language: f.language.id, file: f });
    // Files taken in as they were parsed went with the stale working set: every discovered file the reloaded one
    // does not hold as it is on disk is read again below.
    if (again.length) {
      const mtimes = again.map((a) => a.file?.mtimeMs ?? statOf(a.abs)?.mtimeMs);
      const responses = await this.parsePoolFor(again.length).parseAll(again.map((a) => this.jobFor(a.abs, a.rel, a.language, plan.texts?.get(a.abs))));
      responses.forEach((response, i) => {
        if (response.status !== 'missing') parsed.push({ rel: again[i]!.rel, response, ...(again[i]!.file ? { file: again[i]!.file } : {}), ...(mtimes[i] !== undefined ? { mtimeMs: mtimes[i] } : {}) });
      });
    }
    return { ...plan, parsed, takenIn: undefined };
  }

  private async applyLocked(db: Db, plan: Plan): Promise<Applied> {
    // A working set reloaded under the lock (another writer wrote first) must know what the walk found too.
    if (plan.discovered) this.state.expectFiles(plan.discovered.map((f) => f.rel));
    try {
      return await this.applyExpected(db, plan);
    } finally {
      this.state.expectFiles(undefined);
    }
  }

  private async applyExpected(db: Db, plan: Plan): Promise<Applied> {
    const t0 = performance.now();
    const seen = plan.discovered ? new Set(plan.discovered.map((f) => f.rel)) : undefined;
    const removed = seen
      ? [...this.state.fileByRel.entries()].filter(([rel]) => !seen.has(rel)).map(([, id]) => id)
      : [...new Set(plan.removedRels)].map((rel) => this.state.fileByRel.get(rel)).filter((id): id is number => id !== undefined);
    const parsed = plan.parsed;
    const batch = plan.takenIn ?? this.newBatch(this.nothingStored(), removed);
    for (const id of removed) for (const n of this.state.removeFile(id)) batch.names.add(n);
    // Per file: one large file's facts take milliseconds to take in.
    const yielder = new Yielder(12, 1);
    for (const p of parsed) {
      if (yielder.due()) await yielder.yield();
      this.takeIn(p, batch);
    }
    const importChanged = await this.reresolveImports(batch);
    const affected = await this.affectedSites(db, batch, importChanged);
    const replacedIds = new Set(batch.replaced.map((f) => f.id));
    let t1 = performance.now();
    // Edges are resolved inside the write, after the files' symbols, sites and imports are stored.
    let written: { generation: number };
    try {
      written = await StructuralStore.applyIn(
        db,
        this.state,
        {
          fresh: batch.fresh, removed, replaced: batch.replaced, touched: batch.touched, keptSymbols: batch.kept, resolvedSites: affected.storedIds,
          importTargets: () =>
            [...importChanged]
              .filter((id) => !replacedIds.has(id))
              .flatMap((id) => (this.state.importsByFile.get(id) ?? []).map((i) => ({ id: i.id, target: i.targets[0] ?? null }))),
        },
        async (write) => {
          const edges = await this.resolver.resolveSites(affected.inheritance, affected.groups, write);
          t1 = performance.now();
          return edges;
        },
      );
    } finally {
      // Written or not, the batch's sites and symbol records are let go (temporary files with them, when they went to some).
      this.state.releasePending();
    }
    this.generation = written.generation;
    const t2 = performance.now();
    return { parsed: batch.parsed, unchanged: batch.unchanged, resolveMs: t1 - t0, writeMs: t2 - t1, removed: removed.length, partial: batch.partial };
  }

  /**
   * Nothing stored yet. A store of skipped files only (every file minified, or failed to parse) holds
   * rows of them that a write of the same files must replace, so it is not empty.
   */
  private nothingStored(): boolean {
    return this.state.files.size === 0 && this.state.siteCount === 0 && this.state.symbols.size === 0;
  }

  /** A batch about to take files in, given the files it removes. */
  private newBatch(fresh: boolean, removed: readonly number[]): Batch {
    return {
      fresh,
      names: new Set(),
      structureChanged: removed.length > 0,
      configChanged: removed.some((id) => this.state.files.get(id)?.language?.scheme === 'config'),
      replaced: [],
      touched: [],
      kept: [],
      parsed: 0,
      unchanged: 0,
      partial: [],
    };
  }

  /** One parsed file into the working set: its facts replace the old ones, a skip is recorded, the same bytes only move its mtime. */
  private takeIn(p: Parsed, batch: Batch): void {
    const r = p.response;
    if (r.status === 'missing') return;
    const existingId = this.state.fileByRel.get(p.rel);
    let entry = existingId !== undefined ? this.state.files.get(existingId) : undefined;
    const stat = p.mtimeMs !== undefined ? { mtimeMs: p.mtimeMs } : (p.file ?? statOf(path.join(this.workspace.root, p.rel)));
    if (r.status === 'unchanged') {
      if (!entry) return;
      // Same bytes, new mtime: remember the mtime so the next run skips it without reading.
      entry.mtimeMs = stat?.mtimeMs ?? entry.mtimeMs;
      entry.size = r.size;
      batch.touched.push(entry);
      batch.unchanged++;
      return;
    }
    const previous = new Map<number, Sym>();
    if (entry) {
      for (const sym of this.state.symbolsByFile.get(entry.id) ?? []) if (!previous.has(sym.sidKey)) previous.set(sym.sidKey, sym);
      this.state.removeFile(entry.id, true);
    } else {
      batch.structureChanged = true;
      entry = {
        id: this.state.allocate('file'), rel: p.rel, language: languageForPath(p.rel), hash: null, size: 0, mtimeMs: 0,
        skip: null, errorNodes: 0, computedAccesses: 0, parseMs: null, packageName: null, moduleName: '', moduleSymbolId: null,
      };
      this.state.addFileEntry(entry);
    }
    entry.size = 'size' in r ? r.size : 0;
    entry.mtimeMs = stat?.mtimeMs ?? 0;
    entry.hash = 'hash' in r ? (r.hash ?? null) : null;
    entry.moduleSymbolId = null;
    if (r.status === 'parsed') {
      const facts = factsOf(r);
      // Taken in: the text is let go now, not when the whole batch is written (on a first index, every file's).
      (r as { factsJson?: string }).factsJson = undefined;
      entry.skip = null;
      entry.errorNodes = facts.errorNodes;
      entry.computedAccesses = facts.computedAccesses ?? 0;
      const constructs = facts.skipped ?? [];
      if (constructs.length) {
        batch.partial.push({ path: p.rel, constructs: constructs.length, line: constructs[0]!.at.line, reason: constructs[0]!.reason });
        this.options.log?.(`${p.rel}: ${constructs.length} construct${constructs.length === 1 ? '' : 's'} skipped, the rest indexed (line ${constructs[0]!.at.line}: ${constructs[0]!.reason})`);
      }
      entry.parseMs = facts.parseMs;
      const moduleBefore = entry.moduleName;
      const kept = this.state.addFacts(entry, facts, previous);
      // A file under a new module name (its package gained an `__init__.py`, a Go file moved package) moves what imports resolve to.
      if (moduleBefore !== entry.moduleName) batch.structureChanged = true;
      // Only names that gained or lost a definition can change how other files resolve.
      for (const sym of this.state.symbolsByFile.get(entry.id) ?? []) {
        if (kept.has(sym.id)) batch.kept.push(sym.id);
        else batch.names.add(sym.name);
      }
      for (const old of previous.values()) if (!kept.has(old.id)) batch.names.add(old.name);
      batch.parsed++;
    } else if (r.status === 'skipped') {
      for (const old of previous.values()) batch.names.add(old.name);
      entry.skip = r.skip;
      entry.errorNodes = 0;
      entry.computedAccesses = 0;
      entry.parseMs = null;
    }
    if (entry.language?.scheme === 'config') batch.configChanged = true;
    batch.replaced.push(entry);
  }

  /** Import targets, recomputed for changed files, and for every file when files came or went; returns the files whose targets moved. */
  private async reresolveImports(batch: Batch): Promise<Set<number>> {
    if (batch.structureChanged) this.resolver.invalidateModules();
    const importFiles = batch.structureChanged || batch.fresh ? [...this.state.files.keys()] : batch.replaced.map((f) => f.id);
    const before = new Map<number, string>();
    if (!batch.fresh) for (const id of importFiles) before.set(id, targetsKey(this.state, id));
    await this.resolver.resolveImports(importFiles);
    const importChanged = new Set<number>();
    if (!batch.fresh) for (const id of importFiles) if (before.get(id) !== targetsKey(this.state, id)) importChanged.add(id);
    return importChanged;
  }

  /**
   * The sites to resolve again: those of rewritten files (read from the batch's pending sites one file at a
   * time, as resolution comes to them), of files whose imports moved, and those naming what gained or lost a
   * definition (read back from the store for files not rewritten).
   */
  private async affectedSites(db: Db, batch: Batch, importChanged: ReadonlySet<number>): Promise<AffectedSites> {
    const pending = this.state.pendingSites;
    const inBatch = function* (): Generator<Site[]> {
      for (const id of pending.files()) yield pending.sitesOf(id);
    };
    if (batch.fresh) return { inheritance: pending.inheritance(), groups: inBatch(), storedIds: [] };
    const replaced = new Set(batch.replaced.map((f) => f.id));
    const names = this.namesThroughAliases(batch.names);
    // Stored files, and whether all their sites or only some are wanted.
    const whole = new Set([...importChanged].filter((id) => !replaced.has(id)));
    const some = new Set<number>();
    for (const n of names) for (const id of this.state.filesWithSite(n)) if (!replaced.has(id) && !whole.has(id)) some.add(id);
    // Key reads are named by their whole string (`settlement.retry.max`), the keys by their last segment.
    if (batch.configChanged) for (const id of this.state.keyReadFiles) if (!replaced.has(id) && !whole.has(id)) some.add(id);
    const keyRead = (s: Site) => batch.configChanged && !!s.nameIs && s.nameIs !== 'receiver';
    const stored = (await StructuralStore.sitesOf(db, [...whole, ...some])).filter((s) => whole.has(s.fileId) || names.has(s.name) || keyRead(s));
    return {
      inheritance: [...pending.inheritance(), ...stored.filter((s) => inherits(s.kind))],
      groups: (function* () {
        yield* inBatch();
        yield stored;
      })(),
      storedIds: stored.map((s) => s.id),
    };
  }

  /**
   * The changed names and every name they are imported or re-exported under (`import { members as installMembers }`):
   * a site calls the local name, so a definition gained or lost under the original one moves it too. Followed through chains of aliases.
   */
  private namesThroughAliases(names: ReadonlySet<string>): Set<string> {
    const all = new Set(names);
    if (!all.size) return all;
    const aliased: Import[] = [];
    for (const imports of this.state.importsByFile.values()) for (const i of imports) if (i.name && i.local && i.local !== i.name) aliased.push(i);
    for (let grew = true; grew; ) {
      grew = false;
      for (const i of aliased) {
        if (all.has(i.name!) && !all.has(i.local!)) {
          all.add(i.local!);
          grew = true;
        }
      }
    }
    return all;
  }

  private async countEdges(): Promise<number> {
    return (await this.workspace.db.get<{ n: number }>('SELECT count(*) AS n FROM edges'))?.n ?? 0;
  }

  async dispose(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.releasePool();
  }

  /** Parse workers running now: none before the first index and after a bulk parse. */
  get parseWorkers(): number {
    return this.pool?.workers ?? 0;
  }

  private async releasePool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.dispose();
  }

  get restricted(): boolean {
    return this.options.restricted ?? false;
  }

  /** For tests and diagnostics: how many writes found the memory moved by another writer and were applied again on a reloaded working set. */
  get debugStaleRetries(): number {
    return this.staleRetries;
  }

  /** For tests and diagnostics: the in-memory working set. */
  get debugState(): StructuralState {
    return this.state;
  }
}

function statOf(abs: string): { mtimeMs: number } | undefined {
  try {
    return { mtimeMs: Math.floor(fs.statSync(abs).mtimeMs) };
  } catch {
    return undefined;
  }
}

function targetsKey(state: StructuralState, fileId: number): string {
  return (state.importsByFile.get(fileId) ?? []).map((i) => i.targets.join(',')).join(';');
}

