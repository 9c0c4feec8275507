import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALWAYS_SKIPPED_DIRS } from '../core/structural/discover.js';
import { StructuralIndexer } from '../core/structural/indexer.js';
import { LANGUAGES } from '../core/structural/languages.js';
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

    const root = this.root;
    if (!root) {
      this.setState({ kind: 'no-folder' });
      this.log.info('No folder is open; Tenure waits for one.');
      this.resolveFirstIndex();
      return;
    }
    this.setState({ kind: 'starting' });
    const t0 = Date.now();
    this.workspace = await Workspace.open(root);
    if (this.disposed) return;
    this.indexer = await StructuralIndexer.create(this.workspace, {
      workers: this.config.indexWorkers,
      log: (m) => this.log.debug(m),
    });
    this.log.info(`Opened ${Workspace.dbPath(root)} in ${Date.now() - t0} ms`);
    this.watch(root);
    if (this.config.indexOnStartup) {
      await this.reindex();
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

  /** Source files the core reads, changed on disk (any tool) or saved in the editor. */
  private watch(root: string): void {
    const exts = [...new Set(LANGUAGES.flatMap((l) => l.extensions.map((e) => e.slice(1))))].sort();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), `**/*.{${exts.join(',')}}`));
    const onUri = (uri: vscode.Uri): void => {
      this.log.info(`DEBUG change ${uri.toString()}`);
      if (uri.scheme !== 'file' || !this.isSource(root, uri.fsPath)) return;
      this.queue.add([uri.fsPath]);
    };
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate(onUri),
      watcher.onDidChange(onUri),
      watcher.onDidDelete(onUri),
      vscode.workspace.onDidSaveTextDocument((doc) => onUri(doc.uri)),
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
   * while one runs joins it rather than starting over.
   */
  reindex(): Promise<void> {
    if (this.fullIndex) return this.fullIndex.promise;
    const abort = new AbortController();
    const promise = this.exclusive(() => this.runFullIndex(abort)).finally(() => {
      this.fullIndex = undefined;
      this.resolveFirstIndex();
    });
    this.fullIndex = { promise, abort };
    return promise;
  }

  private async runFullIndex(abort: AbortController): Promise<void> {
    const indexer = this.indexer;
    if (!indexer || this.disposed) return;
    this.setState({ kind: 'indexing', done: 0, total: 0 });
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Tenure: indexing', cancellable: true },
      async (progress, token) => {
        const sub = token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        let lastPaint = 0;
        try {
          const summary = await indexer.indexAll({
            signal: abort.signal,
            onProgress: (done, total) => {
              const now = Date.now();
              if (total > 0) {
                const pct = (done / total) * 100;
                progress.report({ increment: pct - reported, message: `${done}/${total} files` });
                reported = pct;
              }
              // The status bar repaints at most ten times a second.
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
          sub.dispose();
        }
      },
    );
  }

  private update(paths: string[]): Promise<void> {
    return this.exclusive(async () => {
      const indexer = this.indexer;
      if (!indexer || this.disposed) return;
      const before = this.state;
      this.setState({ kind: 'updating', files: paths.length, counts: this.lastCounts });
      const t0 = Date.now();
      try {
        const result = await indexer.updateFiles(paths);
        this.log.debug(`update: ${result.parsed} parsed, ${result.removed} removed`);
        const counts = await this.counts();
        this.lastCounts = counts;
        this.log.info(`Re-indexed ${paths.length} changed files in ${Date.now() - t0} ms: ${paths.map((p) => path.basename(p)).join(', ')}`);
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
    await this.chain;
    for (const d of this.subscriptions.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // keep disposing the rest
      }
    }
    const indexer = this.indexer;
    const workspace = this.workspace;
    this.indexer = undefined;
    this.workspace = undefined;
    await indexer?.dispose().catch(() => undefined);
    await workspace?.close().catch(() => undefined);
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
