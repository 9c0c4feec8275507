import { TenureError, errorMessage } from '../../shared/errors.js';
import type { Workspace } from '../store/workspace.js';
import type { BackgroundEnricher } from '../structural/enrichment/background.js';
import type { IndexReport } from '../structural/index/indexer.js';
import type { StructuralIndex } from '../structural/index/indexerThread.js';
import { StructuralStore } from '../structural/store.js';
import { getStatus } from '../structural/status.js';
import { ChangeQueue } from './changeQueue.js';

/*
 * The headless engine every long-lived host runs — the extension, `tenure
 * watch`, `tenure mcp --watch`: a workspace, its indexer, the queue of changed
 * files, background enrichment and the watch on other processes' writes. The
 * host owns its lifetimes and its UI and tells the session what changed; the
 * session keeps the memories fresh, one writer at a time, and says what
 * state it is in. Readiness is a type: `ready()` resolves to the workspace
 * once the first index has settled, so no caller checks a flag.
 */

export interface IndexCounts {
  readonly files: number;
  readonly symbols: number;
  readonly edges: number;
  readonly edgesByTier?: Readonly<Record<string, number>>;
}

export type SessionState =
  | { readonly kind: 'starting' }
  | { readonly kind: 'indexing'; readonly done: number; readonly total: number }
  | { readonly kind: 'updating'; readonly files: number; readonly counts?: IndexCounts }
  | { readonly kind: 'ready'; readonly counts: IndexCounts }
  | { readonly kind: 'cancelled'; readonly counts?: IndexCounts }
  | { readonly kind: 'failed'; readonly message: string };

/** What changed in the memories, for views and panels to follow. */
export type MemoryChange = 'index' | 'index-update' | 'enrichment' | 'external';

export interface SessionOptions {
  readonly workspace: Workspace;
  readonly indexer: StructuralIndex;
  /** Starts background enrichment on first use; undefined when the host runs none (restricted mode, --no-enrich). */
  readonly enricher?: () => BackgroundEnricher | undefined;
  /** Quiet time before changed files are re-indexed as one batch. */
  readonly debounceMs?: number;
  /** Unsaved editor text for some of the changed paths: indexed instead of the file on disk. */
  readonly unsavedText?: (paths: readonly string[]) => ReadonlyMap<string, string>;
  /** Check this often whether another process wrote the database (the CLI, the MCP server); 0: never. */
  readonly pollExternalMs?: number;
  readonly log?: (level: 'info' | 'debug' | 'error', message: string) => void;
  readonly onState?: (state: SessionState) => void;
  readonly onMemoryChanged?: (what: MemoryChange) => void;
  /** A batch of changed files was re-indexed. */
  readonly onUpdate?: (r: { readonly paths: readonly string[]; readonly parsed: number; readonly removed: number; readonly ms: number }) => void;
  /** How long a step took, for a host that measures its own responsiveness. */
  readonly measure?: <T>(what: string, fn: () => Promise<T>) => Promise<T>;
}

export class Session {
  readonly workspace: Workspace;
  private indexer: StructuralIndex;
  private readonly queue: ChangeQueue;
  private state: SessionState = { kind: 'starting' };
  private lastCounts: IndexCounts | undefined;
  /** Index runs and updates take turns: one writer, in order. */
  private chain: Promise<unknown> = Promise.resolve();
  private fullIndex: { promise: Promise<IndexReport | undefined>; abort: AbortController } | undefined;
  private readonly firstIndex: Promise<void>;
  private resolveFirstIndex!: () => void;
  private enricher: BackgroundEnricher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private dataVersion: number | undefined;
  private disposed = false;

  constructor(private readonly options: SessionOptions) {
    this.workspace = options.workspace;
    this.indexer = options.indexer;
    this.firstIndex = new Promise((r) => (this.resolveFirstIndex = r));
    this.queue = new ChangeQueue((paths) => this.update(paths), options.debounceMs ?? 50, 1000, (e) => this.log('error', `Re-index of changed files failed: ${errorMessage(e)}`));
    if (options.pollExternalMs) this.pollExternalWrites(options.pollExternalMs);
  }

  get current(): SessionState {
    return this.state;
  }

  /** The workspace once the first index has settled, however it ended. */
  async ready(): Promise<Workspace> {
    await this.firstIndex;
    return this.workspace;
  }

  /** The workspace if the first index has settled, else undefined: for providers that must not wait (hover, CodeLens). */
  readyNow(): Workspace | undefined {
    return this.firstSettled ? this.workspace : undefined;
  }

  private firstSettled = false;

  /** The first index has settled without indexing: the host chose not to index at start. */
  async skipFirstIndex(): Promise<void> {
    this.setState({ kind: 'ready', counts: await this.counts() });
    this.settleFirst();
  }

  setDebounceMs(ms: number): void {
    this.queue.setQuietMs(ms);
  }

  /** Files (or folders) changed on disk or in an editor: re-indexed in the next batch. */
  changed(paths: Iterable<string>): void {
    this.queue.add(paths);
  }

  /** Symbols just asked about and files in view are confirmed by a type checker first. */
  prioritize(p: { symbols?: readonly string[]; files?: readonly string[] }): void {
    this.backgroundEnricher()?.prioritize(p);
  }

  /** Background enrichment the host started itself (a headless host starts its language servers after the first index). */
  attachEnricher(enricher: BackgroundEnricher): void {
    if (this.disposed || this.enricher) return;
    this.enricher = enricher;
  }

  scheduleEnrichment(delayMs?: number): void {
    this.backgroundEnricher()?.schedule(delayMs);
  }

  /**
   * A full index. A second request while one runs joins it rather than
   * starting over; `cancel()` stops it between files.
   */
  reindex(opts: { onProgress?: (done: number, total: number) => void } = {}): Promise<IndexReport | undefined> {
    if (this.fullIndex) return this.fullIndex.promise;
    const abort = new AbortController();
    const promise = this.exclusive(() => this.runFullIndex(abort, opts.onProgress)).finally(() => {
      this.fullIndex = undefined;
      this.settleFirst();
      this.options.onMemoryChanged?.('index');
      this.scheduleEnrichment(1500);
    });
    this.fullIndex = { promise, abort };
    return promise;
  }

  cancelReindex(): void {
    this.fullIndex?.abort.abort();
  }

  /** Drops the derived structural tables only (never episodes, rules, notes or knowledge), then indexes again. */
  async clearAndReindex(recreate: () => StructuralIndex): Promise<IndexReport | undefined> {
    await this.exclusive(async () => {
      await new StructuralStore(this.workspace.db).clear();
      await this.indexer.dispose();
      this.indexer = recreate();
    });
    return this.reindex();
  }

  /** Resolves when the first index has settled and no update is pending or running. */
  async whenIdle(): Promise<SessionState> {
    await this.firstIndex;
    // An update can queue another; loop until a pass finds nothing to wait for.
    for (;;) {
      const chain = this.chain;
      await this.queue.whenIdle();
      await chain;
      if (chain === this.chain && this.queue.size === 0) return this.state;
    }
  }

  /** Stops indexing, lets a running write finish, then stops the indexer. The workspace is the host's to close. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    await this.enricher?.dispose().catch((e: unknown) => this.log('error', `Stopping enrichment: ${errorMessage(e)}`));
    this.fullIndex?.abort.abort();
    await this.queue.dispose();
    await this.chain;
    await this.indexer.dispose().catch((e: unknown) => this.log('error', `Stopping the indexer: ${errorMessage(e)}`));
    this.settleFirst();
  }

  private settleFirst(): void {
    this.firstSettled = true;
    this.resolveFirstIndex();
  }

  private log(level: 'info' | 'debug' | 'error', message: string): void {
    this.options.log?.(level, message);
  }

  private measure<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return this.options.measure ? this.options.measure(what, fn) : fn();
  }

  private setState(state: SessionState): void {
    this.state = state;
    if (!this.disposed) this.options.onState?.(state);
  }

  /** Runs work after whatever index work is queued, one at a time. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async runFullIndex(abort: AbortController, onProgress?: (done: number, total: number) => void): Promise<IndexReport | undefined> {
    if (this.disposed) return undefined;
    this.setState({ kind: 'indexing', done: 0, total: 0 });
    let lastPaint = 0;
    try {
      const report = await this.measure('index full', () =>
        this.indexer.indexAll({
          signal: abort.signal,
          onProgress: (done, total) => {
            onProgress?.(done, total);
            // State changes (the status bar) at most ten times a second.
            const now = Date.now();
            if (now - lastPaint > 100 || done === total) {
              lastPaint = now;
              this.setState({ kind: 'indexing', done, total });
            }
          },
        }),
      );
      await this.absorbOwnWrites();
      this.lastCounts = await this.counts();
      this.setState({ kind: 'ready', counts: this.lastCounts });
      this.log('info', `Indexed ${report.files} files (${report.parsed} parsed, ${report.unchanged} unchanged, ${report.removed} removed, ${report.skipped.length} skipped): ${report.symbols} symbols, ${report.edges} edges in ${Math.round(report.ms)} ms`);
      for (const s of report.skipped.slice(0, 20)) this.log('debug', `skipped ${s.path}: ${s.reason}`);
      return report;
    } catch (e) {
      if (abort.signal.aborted || TenureError.is(e, 'cancelled')) {
        this.setState({ kind: 'cancelled', ...(this.lastCounts ? { counts: this.lastCounts } : {}) });
        this.log('info', 'Indexing cancelled.');
        return undefined;
      }
      this.setState({ kind: 'failed', message: errorMessage(e) });
      throw e;
    }
  }

  private update(batch: string[]): Promise<void> {
    return this.exclusive(async () => {
      if (this.disposed) return;
      const before = this.state;
      this.setState({ kind: 'updating', files: batch.length, ...(this.lastCounts ? { counts: this.lastCounts } : {}) });
      const t0 = Date.now();
      try {
        const texts = this.options.unsavedText?.(batch) ?? new Map<string, string>();
        const result = await this.measure('index update', () => this.indexer.updateFiles(batch, texts));
        await this.absorbOwnWrites();
        this.log('info', `Re-indexed ${batch.length} changed paths in ${Date.now() - t0} ms (${result.parsed} parsed, ${result.removed} removed${texts.size ? `, ${texts.size} from unsaved editors` : ''})`);
        this.lastCounts = await this.counts();
        this.setState({ kind: 'ready', counts: this.lastCounts });
        this.options.onMemoryChanged?.('index-update');
        this.options.onUpdate?.({ paths: batch, ...result });
        if (result.parsed || result.removed) this.scheduleEnrichment(3000);
      } catch (e) {
        this.setState(before);
        throw e;
      }
    });
  }

  /** What a status line shows, read from the store as `tenure status` reads it. */
  async counts(): Promise<IndexCounts> {
    const s = await getStatus(this.workspace);
    return { files: s.files, symbols: s.symbols, edges: s.edges, edgesByTier: s.edgesByTier };
  }

  private backgroundEnricher(): BackgroundEnricher | undefined {
    if (this.disposed) return undefined;
    this.enricher ??= this.options.enricher?.();
    return this.enricher;
  }

  /** A pass of enrichment ended with changes: counts and views follow. */
  async enrichmentEnded(): Promise<void> {
    if (this.disposed) return;
    this.lastCounts = await this.counts();
    if (this.state.kind === 'ready') this.setState({ kind: 'ready', counts: this.lastCounts });
    this.options.onMemoryChanged?.('enrichment');
  }

  private async dataVersionNow(): Promise<number | undefined> {
    try {
      return await this.workspace.db.dataVersion();
    } catch {
      return undefined; // closed meanwhile
    }
  }

  /** The indexer thread writes through its own connection: its commits are ours, not another process's. */
  private async absorbOwnWrites(): Promise<void> {
    this.dataVersion = (await this.dataVersionNow()) ?? this.dataVersion;
  }

  /**
   * Another process may write the database: the CLI's `tenure run` in a
   * terminal, the MCP server, a second window. SQLite's data_version changes
   * when another connection commits; checking it is one tiny query, so views
   * follow those writes within seconds.
   */
  private pollExternalWrites(everyMs: number): void {
    const tick = async () => {
      if (this.firstSettled && !this.disposed) {
        const v = await this.dataVersionNow();
        if (v !== undefined && this.dataVersion !== undefined && v !== this.dataVersion) this.options.onMemoryChanged?.('external');
        this.dataVersion = v;
      }
      if (!this.disposed) this.pollTimer = setTimeout(() => void tick(), everyMs);
    };
    this.pollTimer = setTimeout(() => void tick(), everyMs);
  }
}

