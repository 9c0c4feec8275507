import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALWAYS_SKIPPED_DIRS } from '../core/structural/discover.js';
import { StructuralIndexer } from '../core/structural/indexer.js';
import { LANGUAGES, languageForPath } from '../core/structural/languages.js';
import { getStatus } from '../core/query/status.js';
import { TOOLS } from '../core/tools/catalog.js';
import { Workspace } from '../core/workspace.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import { ChangeQueue } from './changeQueue.js';
import { registerCommands } from './commands.js';
import { Config } from './config.js';
import { registerLmTools, type ToolHost } from './lmTools.js';
import { registerMcpProvider } from './mcp.js';
import { StatusBar, describeCounts, type IndexCounts, type IndexState } from './statusBar.js';

/** A queue entry that asks for a rescan rather than naming a file. */
const RESCAN = '\0rescan';

/** What activate() returns: enough for tests and other extensions to wait on the index. */
export interface TenureApi {
  /** True while the workspace is untrusted: tree-sitter only, no language server, no model. */
  readonly restricted: boolean;
  indexState(): IndexState;
  /** Resolves when the first index has settled and no update is pending or running. */
  whenIdle(): Promise<IndexState>;
}

/**
 * The one object that owns everything the extension creates — workspace,
 * indexer, status bar, log, watchers, tools, commands — and disposes it as one
 * (rust-analyzer's `Ctx`). Activation constructs it and returns at once; the
 * heavy work (parsing) runs in the core's worker threads.
 */
export class Ctx implements ToolHost, TenureApi, vscode.Disposable {
  readonly config = new Config();
  readonly log: vscode.LogOutputChannel;
  private readonly status: StatusBar;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly queue: ChangeQueue;

  private workspace: Workspace | undefined;
  private indexer: StructuralIndexer | undefined;
  private state: IndexState = { kind: 'starting' };
  private lastCounts: IndexCounts | undefined;
  private started: Promise<void> | undefined;
  /** Settles when the first full index ends, however it ends. */
  private firstIndex: Promise<void>;
  private resolveFirstIndex!: () => void;
  /** Index runs and updates take turns: one writer, in order. */
  private chain: Promise<unknown> = Promise.resolve();
  private fullIndex: { promise: Promise<void>; abort: AbortController } | undefined;
  private disposed = false;
  private _restricted: boolean;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Tenure', { log: true });
    this._restricted = !vscode.workspace.isTrusted;
    this.status = new StatusBar(() => this._restricted);
    this.firstIndex = new Promise((r) => (this.resolveFirstIndex = r));
    this.queue = new ChangeQueue(
      (paths) => this.update(paths),
      this.config.updateDebounceMs,
      1000,
      (e) => this.log.error(`Re-index of changed files failed: ${errorMessage(e)}`),
    );
    this.subscriptions.push(this.log, this.status);
  }

  get restricted(): boolean {
    return this._restricted;
  }

  /** The folder Tenure serves: the first workspace folder on disk. Multi-root: only the first, for now. */
  get root(): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    return folder?.uri.fsPath;
  }

  indexState(): IndexState {
    return this.state;
  }

  start(): Promise<void> {
    this.started ??= this.doStart().catch((e: unknown) => {
      this.setState({ kind: 'failed', message: errorMessage(e) });
      this.log.error(`Tenure could not start: ${errorMessage(e)}`);
      this.resolveFirstIndex();
    });
    return this.started;
  }

  private async doStart(): Promise<void> {
    const version = (this.extension.extension.packageJSON as { version?: string }).version ?? '0.0.0';
    this.log.info(`Tenure ${version} in VS Code ${vscode.version}; workspace ${this._restricted ? 'restricted (tree-sitter only)' : 'trusted'}`);
    this.subscriptions.push(...registerCommands(this));
    // Optional front doors: a failure here is logged and never stops indexing.
    this.optional('language-model tools', () => this.subscriptions.push(...registerLmTools(TOOLS, this)));
    this.optional('MCP server provider', () => this.registerMcp(version));
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this._restricted = false;
        this.log.info('Workspace trusted: language-server and model enrichment may run (when the core offers them).');
        this.setState(this.state);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (this.config.affects(e, 'index.updateDebounceMs')) this.queue.setQuietMs(this.config.updateDebounceMs);
      }),
    );

    // Opening the first folder in an empty window restarts the extension host, so there is no folder to wait for.
    const root = this.root;
    if (!root) {
      this.setState({ kind: 'no-folder' });
      this.log.info('No folder is open.');
      this.resolveFirstIndex();
      return;
    }
    this.setState({ kind: 'starting' });
    const t0 = Date.now();
    // dispose() waits for start(), so whatever is assigned here is closed by it.
    this.workspace = await Workspace.open(root);
    if (this.disposed) return;
    this.indexer = await StructuralIndexer.create(this.workspace, {
      workers: this.config.indexWorkers,
      log: (m) => this.log.debug(m),
    });
    if (this.disposed) return;
    this.log.info(`Opened ${Workspace.dbPath(root)} in ${Date.now() - t0} ms`);
    this.watch(root);
    if (this.config.indexOnStartup) {
      await this.reindex({ notifyAfterMs: 1000 });
    } else {
      this.setState({ kind: 'ready', counts: { files: 0, symbols: 0, edges: 0 } });
      this.resolveFirstIndex();
    }
  }

  private optional(what: string, fn: () => unknown): void {
    try {
      fn();
    } catch (e) {
      this.log.error(`Could not register the ${what}: ${errorMessage(e)}`);
    }
  }

  private registerMcp(version: string): void {
    const mcp = registerMcpProvider({
      extensionPath: this.extension.extensionPath,
      version,
      root: () => this.root,
      enabled: () => this.config.mcpEnabled,
      nodePath: () => this.config.mcpNodePath,
      log: this.log,
    });
    if (!mcp) return;
    this.subscriptions.push(
      mcp.disposable,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (this.config.affects(e, 'mcp')) mcp.refresh();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => mcp.refresh()),
    );
  }

  /**
   * Source files the core reads, changed on disk (any tool) or saved in the
   * editor. A folder that appears or disappears (a checkout, an unzip, `rm -r`)
   * is reported as the folder alone: files written into a new folder before the
   * OS watch on it exists produce no event of their own, so folder events ask
   * for a rescan (an incremental full index: unchanged files are skipped).
   */
  private watch(root: string): void {
    const exts = [...new Set(LANGUAGES.flatMap((l) => l.extensions.map((e) => e.slice(1))))].sort();
    const sources = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), `**/*.{${exts.join(',')}}`));
    const onSource = (uri: vscode.Uri): void => {
      this.log.trace(`changed: ${uri.toString()}`);
      if (uri.scheme !== 'file' || !this.isSource(root, uri.fsPath)) return;
      this.queue.add([uri.fsPath]);
    };
    // Everything else, created or deleted, to catch folders.
    const all = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*'), false, true, false);
    const isSourceName = (p: string): boolean => languageForPath(p) !== undefined;
    const onCreateAny = (uri: vscode.Uri): void => {
      if (uri.scheme !== 'file' || isSourceName(uri.fsPath) || !this.isSource(root, uri.fsPath)) return;
      void fs.promises.stat(uri.fsPath).then(
        (st) => {
          if (st.isDirectory()) {
            this.log.trace(`folder created: ${uri.fsPath}`);
            this.queue.add([RESCAN]);
          }
        },
        () => undefined,
      );
    };
    const onDeleteAny = (uri: vscode.Uri): void => {
      // Gone, so no stat: a name without an extension is most likely a folder.
      if (uri.scheme !== 'file' || isSourceName(uri.fsPath) || !this.isSource(root, uri.fsPath) || path.extname(uri.fsPath)) return;
      this.log.trace(`folder deleted: ${uri.fsPath}`);
      this.queue.add([RESCAN]);
    };
    this.subscriptions.push(
      sources,
      sources.onDidCreate(onSource),
      sources.onDidChange(onSource),
      sources.onDidDelete(onSource),
      all,
      all.onDidCreate(onCreateAny),
      all.onDidDelete(onDeleteAny),
      vscode.workspace.onDidSaveTextDocument((doc) => onSource(doc.uri)),
    );
  }

  private isSource(root: string, file: string): boolean {
    const rel = path.relative(root, file);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return false;
    return !rel.split(path.sep).some((part) => ALWAYS_SKIPPED_DIRS.has(part));
  }

  /** Runs work after whatever index work is queued, one at a time. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * A full index with a cancellable progress notification. A second request
   * while one runs joins it rather than starting over. At startup the
   * notification appears only when the index takes longer than a second (a
   * re-open with few changed files stays silent); asked for by the user, at once.
   */
  reindex(options: { notifyAfterMs?: number } = {}): Promise<void> {
    if (this.fullIndex) return this.fullIndex.promise;
    const abort = new AbortController();
    const promise = this.exclusive(() => this.runFullIndex(abort, options.notifyAfterMs ?? 0)).finally(() => {
      this.fullIndex = undefined;
      this.resolveFirstIndex();
    });
    this.fullIndex = { promise, abort };
    return promise;
  }

  private async runFullIndex(abort: AbortController, notifyAfterMs: number): Promise<void> {
    const indexer = this.indexer;
    if (!indexer || this.disposed) return;
    this.setState({ kind: 'indexing', done: 0, total: 0 });
    const notification = new ProgressNotification('Tenure: indexing', abort, notifyAfterMs);
    let lastPaint = 0;
    try {
      const summary = await indexer.indexAll({
        signal: abort.signal,
        onProgress: (done, total) => {
          notification.report(done, total);
          // The status bar repaints at most ten times a second.
          const now = Date.now();
          if (now - lastPaint > 100 || done === total) {
            lastPaint = now;
            this.setState({ kind: 'indexing', done, total });
          }
        },
      });
      const counts = await this.counts();
      this.lastCounts = counts;
      this.setState({ kind: 'ready', counts });
      this.log.info(
        `Indexed ${summary.files} files (${summary.parsed} parsed, ${summary.unchanged} unchanged, ${summary.removed} removed, ` +
          `${summary.skipped.length} skipped): ${summary.symbols} symbols, ${summary.edges} edges in ${Math.round(summary.ms)} ms`,
      );
      for (const s of summary.skipped.slice(0, 20)) this.log.debug(`skipped ${s.path}: ${s.reason}`);
    } catch (e) {
      if (abort.signal.aborted || TenureError.is(e, 'cancelled')) {
        this.setState({ kind: 'cancelled', counts: this.lastCounts });
        this.log.info('Indexing cancelled.');
      } else {
        this.setState({ kind: 'failed', message: errorMessage(e) });
        this.log.error(`Indexing failed: ${errorMessage(e)}`);
        if (e instanceof Error && e.stack) this.log.debug(e.stack);
        void vscode.window.showErrorMessage(`Tenure: indexing failed: ${errorMessage(e)}`, 'Show Log').then((pick) => {
          if (pick) this.log.show();
        });
      }
    } finally {
      notification.done();
    }
  }

  private update(batch: string[]): Promise<void> {
    return this.exclusive(async () => {
      const indexer = this.indexer;
      if (!indexer || this.disposed) return;
      const before = this.state;
      const rescan = batch.includes(RESCAN);
      const paths = batch.filter((p) => p !== RESCAN);
      this.setState({ kind: 'updating', files: paths.length, counts: this.lastCounts });
      const t0 = Date.now();
      try {
        if (rescan) {
          // Covers the listed files too: one pass, no notification (it is incremental and usually quick).
          const r = await indexer.indexAll({});
          this.log.info(`Rescanned after a folder change in ${Date.now() - t0} ms: ${r.parsed} parsed, ${r.removed} removed, ${r.unchanged} unchanged`);
        } else {
          const result = await indexer.updateFiles(paths);
          this.log.info(
            `Re-indexed ${paths.length} changed files in ${Date.now() - t0} ms (${result.parsed} parsed, ${result.removed} removed): ` +
              paths.map((p) => path.basename(p)).join(', '),
          );
        }
        const counts = await this.counts();
        this.lastCounts = counts;
        this.setState({ kind: 'ready', counts });
      } catch (e) {
        this.setState(before);
        throw e;
      }
    });
  }

  /** What the status bar shows, read from the store as the `tenure status` command reads it. */
  private async counts(): Promise<IndexCounts> {
    if (!this.workspace) return { files: 0, symbols: 0, edges: 0 };
    const s = await getStatus(this.workspace);
    return { files: s.files, symbols: s.symbols, edges: s.edges, edgesByTier: s.edgesByTier };
  }

  async workspaceForQuery(token: vscode.CancellationToken): Promise<Workspace> {
    void this.start();
    await raceCancellation(this.firstIndex, token);
    if (token.isCancellationRequested) throw new TenureError('cancelled', 'Cancelled.');
    if (!this.workspace) {
      const why = this.state.kind === 'failed' ? `it failed to start: ${this.state.message}` : 'no folder is open';
      throw new TenureError('store-unavailable', `Tenure has no workspace memory because ${why}. Open a folder, or run "Tenure: Re-index Workspace".`);
    }
    return this.workspace;
  }

  async whenIdle(): Promise<IndexState> {
    await this.start();
    await this.firstIndex;
    // An update can queue another; loop until a pass finds nothing to wait for.
    for (;;) {
      const chain = this.chain;
      await this.queue.whenIdle();
      await chain;
      if (chain === this.chain && this.queue.size === 0) return this.state;
    }
  }

  private setState(state: IndexState): void {
    this.state = state;
    if (!this.disposed) this.status.show(state);
  }

  describe(): string {
    const s = this.state;
    if (s.kind === 'ready') return `ready: ${describeCounts(s.counts)}`;
    return s.kind;
  }

  /** Stops indexing, lets a running write finish, then closes the database. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.fullIndex?.abort.abort();
    await this.queue.dispose();
    await this.started;
    await this.chain;
    const indexer = this.indexer;
    const workspace = this.workspace;
    this.indexer = undefined;
    this.workspace = undefined;
    await indexer?.dispose().catch((e: unknown) => this.log.warn(`Stopping the indexer: ${errorMessage(e)}`));
    await workspace?.close().catch((e: unknown) => this.log.warn(`Closing the database: ${errorMessage(e)}`));
    // Last, so the log outlives everything that writes to it.
    for (const d of this.subscriptions.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // keep disposing the rest
      }
    }
  }
}

function raceCancellation<T>(p: Promise<T>, token: vscode.CancellationToken): Promise<T | undefined> {
  if (token.isCancellationRequested) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      resolve(undefined);
    });
    p.then(
      (v) => {
        sub.dispose();
        resolve(v);
      },
      (e: unknown) => {
        sub.dispose();
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * A cancellable progress notification that opens only after `delayMs`, then
 * follows the work to its end. Cancelling it aborts the work.
 */
class ProgressNotification {
  private timer: NodeJS.Timeout | undefined;
  private sink: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  private finish!: () => void;
  private readonly finished = new Promise<void>((r) => (this.finish = r));
  private reported = 0;
  private last: { done: number; total: number } | undefined;

  constructor(
    private readonly title: string,
    private readonly abort: AbortController,
    delayMs: number,
  ) {
    if (delayMs <= 0) this.open();
    else this.timer = setTimeout(() => this.open(), delayMs);
  }

  private open(): void {
    this.timer = undefined;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: this.title, cancellable: true }, (progress, token) => {
      const sub = token.onCancellationRequested(() => this.abort.abort());
      this.sink = progress;
      if (this.last) this.report(this.last.done, this.last.total);
      return this.finished.finally(() => sub.dispose());
    });
  }

  report(done: number, total: number): void {
    this.last = { done, total };
    if (!this.sink || total <= 0) return;
    const pct = (done / total) * 100;
    this.sink.report({ increment: pct - this.reported, message: `${done}/${total} files` });
    this.reported = pct;
  }

  done(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.finish();
  }
}
