import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALWAYS_SKIPPED_DIRS } from '../core/repo/walk.js';
import { IndexerThread, type StructuralIndex } from '../core/structural/index/indexerThread.js';
import { LANGUAGES, languageForPath } from '../core/structural/inventory/languages.js';
import { getStatus } from '../core/structural/status.js';
import { TOOLS } from '../core/tools/catalog.js';
import { Workspace } from '../core/store/workspace.js';
import { openWorkspace } from '../core/workspace.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import { BackgroundEnricher } from '../core/structural/enrichment/background.js';
import { describeResolverReport } from '../core/structural/enrichment/enrich.js';
import { ChangeQueue } from '../core/session/changeQueue.js';
import { UserIdleGate, editorResolvers } from './codeIntelBridge.js';
import { importGitHubOutcomes, registerEpisodeCapture, type EpisodeCaptureCore } from './episodeCapture.js';
import { PlanDocuments, registerCommands } from './commands.js';
import { Config } from './config.js';
import { DOCUMENT_SELECTOR, MemoryLens } from './editorProviders.js';
import { registerLmTools, type ToolHost } from './lmTools.js';
import { registerMcpProvider } from './mcp.js';
import { Responsiveness, type ResponsivenessReport } from './responsiveness.js';
import { Panels, type PanelReport } from './panels.js';
import { StatusBar, describeCounts, type IndexCounts, type IndexState } from './statusBar.js';
import { KnowledgeView, RulesView, StatusView, TimelineView, VIEW_IDS, episodeMarkdown } from './views.js';

/** How often Tenure checks whether another process (the CLI in a terminal, the MCP server) changed the database. */
const EXTERNAL_POLL_MS = 1500;

/** What activate() returns: enough for tests and other extensions to wait on the index. */
export interface TenureApi {
  /** True while the workspace is untrusted: tree-sitter only, no language server, no model. */
  readonly restricted: boolean;
  indexState(): IndexState;
  /** Resolves when the first index has settled and no update is pending or running. */
  whenIdle(): Promise<IndexState>;
  /** For tests and diagnostics: what the panels rendered, what the views show, how long Tenure's own work took. */
  debug(): Promise<TenureDebug>;
}

export interface TenureDebug {
  readonly panels: readonly PanelReport[];
  readonly views: Readonly<Record<'status' | 'timeline' | 'knowledge' | 'rules', readonly string[]>>;
  readonly responsiveness: ResponsivenessReport;
  readonly memoryGeneration: number;
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
  private indexer: StructuralIndex | undefined;
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
  private readonly memoryEmitter = new vscode.EventEmitter<void>();
  /** Fires when anything a view, panel or lens shows may have changed: the index, a memory, another process's write. */
  readonly onDidChangeMemory = this.memoryEmitter.event;
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeState = this.stateEmitter.event;
  private memoryGeneration = 0;
  private firstIndexDone = false;
  readonly responsiveness = new Responsiveness();
  readonly panels: Panels;
  private readonly plans = new PlanDocuments();
  private views: { status: StatusView; timeline: TimelineView; knowledge: KnowledgeView; rules: RulesView } | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private dataVersion: number | undefined;
  private enricher: BackgroundEnricher | undefined;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Tenure', { log: true });
    this._restricted = !vscode.workspace.isTrusted;
    this.status = new StatusBar(() => this._restricted);
    this.panels = new Panels(this);
    this.firstIndex = new Promise((r) => (this.resolveFirstIndex = r));
    this.queue = new ChangeQueue(
      (paths) => this.update(paths),
      this.config.updateDebounceMs,
      1000,
      (e) => this.log.error(`Re-index of changed files failed: ${errorMessage(e)}`),
    );
    this.subscriptions.push(this.config, this.log, this.status, this.panels, this.memoryEmitter, this.stateEmitter);
    void vscode.commands.executeCommand('setContext', 'tenure.restricted', this._restricted);
  }

  get extensionUri(): vscode.Uri {
    return this.extension.extensionUri;
  }

  memoryOptions(): MemoryOptions {
    return this.config.memoryOptions((m) => this.log.warn(m));
  }

  /** Times Tenure's own work; slow answers are logged (the event loop is measured separately, see responsiveness.ts). */
  measure<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return this.responsiveness.time(what, fn, (ms) => {
      if (ms > 500) this.log.debug(`${what} took ${ms} ms`);
    });
  }

  /** The workspace once its first index has settled; providers that must not wait get undefined before. */
  workspaceIfReady(): Workspace | undefined {
    return this.firstIndexDone ? this.workspace : undefined;
  }

  /** Something a view, panel or lens shows may have changed. */
  memoryChanged(what: string): void {
    this.memoryGeneration++;
    this.log.trace(`memory changed: ${what}`);
    this.memoryEmitter.fire();
    void this.refreshContextKeys();
    if (what !== 'index-update') this.panels.refresh();
  }

  private async refreshContextKeys(): Promise<void> {
    const ws = this.workspaceIfReady();
    if (!ws) return;
    try {
      const { memoryTotals } = await import('./memoryQueries.js');
      const t = await memoryTotals(ws.db);
      await vscode.commands.executeCommand('setContext', 'tenure.indexed', t.files > 0);
      await vscode.commands.executeCommand('setContext', 'tenure.knowledge.empty', t.documents === 0);
      await vscode.commands.executeCommand('setContext', 'tenure.episodes.empty', t.episodes === 0);
      await vscode.commands.executeCommand('setContext', 'tenure.rules.empty', Object.keys(t.rules).length === 0);
      this.status.setTotals(t);
    } catch (e) {
      this.log.debug(`context keys: ${errorMessage(e)}`);
    }
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
    this.subscriptions.push(...registerCommands(this, this.plans));
    this.optional('editor CodeLens and hover', () => this.registerEditor());
    this.optional('sidebar views', () => this.registerViews());
    // Optional front doors: a failure here is logged and never stops indexing.
    this.optional('language-model tools', () => this.subscriptions.push(...registerLmTools(TOOLS, this)));
    this.optional('MCP server provider', () => this.registerMcp(version));
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this._restricted = false;
        this.log.info('Workspace trusted: language-server and model enrichment may run (when the core offers them).');
        void vscode.commands.executeCommand('setContext', 'tenure.restricted', false);
        this.setState(this.state);
        this.memoryChanged('trust');
        this.scheduleEnrichment(500);
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
    this.workspace = await openWorkspace(root);
    if (this.disposed) return;
    this.indexer = this.createIndexer(this.workspace);
    if (this.disposed) return;
    this.log.info(`Opened ${Workspace.dbPath(root)} in ${Date.now() - t0} ms`);
    this.watch(root);
    this.pollExternalChanges();
    this.optional('episode capture', () => this.registerCapture());
    if (this.config.indexOnStartup) {
      await this.reindex({ notifyAfterMs: 1000 });
    } else {
      this.setState({ kind: 'ready', counts: await this.counts() });
      this.resolveFirstIndex();
    }
  }

  /** Episodes from the integrated terminal, tasks, commits and test reports (episodeCapture.ts). */
  private registerCapture(): void {
    const core: EpisodeCaptureCore = {
      workspace: () => this.workspace,
      options: () => this.memoryOptions(),
      refreshIndex: (absPaths) => this.update(absPaths),
      log: this.log,
      onRecorded: () => this.memoryChanged('episode'),
      onChanged: () => this.memoryChanged('episodes'),
    };
    this.subscriptions.push(
      registerEpisodeCapture(this.extension, core),
      vscode.commands.registerCommand('tenure.episodes.importGitHub', () => {
        if (this._restricted) return void vscode.window.showWarningMessage('Tenure: this folder is not trusted; reading its CI results and reviews with your GitHub sign-in is off until you trust it.');
        return importGitHubOutcomes(core);
      }),
    );
  }

  private registerEditor(): void {
    const lens = new MemoryLens({
      log: this.log,
      workspaceIfReady: () => this.workspaceIfReady(),
      onDidChangeMemory: this.onDidChangeMemory,
      codeLensEnabled: () => this.config.codeLensEnabled,
      hoverEnabled: () => this.config.hoverEnabled,
      measure: (what, fn) => this.measure(what, fn),
    });
    this.subscriptions.push(
      lens,
      vscode.languages.registerCodeLensProvider(DOCUMENT_SELECTOR, lens),
      vscode.languages.registerHoverProvider(DOCUMENT_SELECTOR, lens),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (this.config.affects(e, 'editor')) this.memoryChanged('settings');
      }),
    );
  }

  private registerViews(): void {
    const host = { log: this.log, workspaceIfReady: () => this.workspaceIfReady(), indexState: () => this.state, restricted: this._restricted, onDidChangeMemory: this.onDidChangeMemory, onDidChangeState: this.onDidChangeState };
    Object.defineProperty(host, 'restricted', { get: () => this._restricted });
    const views = { status: new StatusView(host), timeline: new TimelineView(host), knowledge: new KnowledgeView(host), rules: new RulesView(host) };
    this.views = views;
    for (const [key, provider] of Object.entries(views)) {
      const view = vscode.window.createTreeView(VIEW_IDS[key as keyof typeof VIEW_IDS], { treeDataProvider: provider, showCollapseAll: key !== 'status' });
      this.subscriptions.push(provider, view);
    }
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider('tenure-episode', {
        provideTextDocumentContent: async (uri) => {
          const id = Number(/episode-(\d+)/.exec(uri.path)?.[1]);
          const ws = this.workspaceIfReady();
          return ws && Number.isInteger(id) ? episodeMarkdown(ws, id) : 'Tenure has not opened this workspace’s memory yet.';
        },
      }),
    );
  }

  /** SQLite's count of commits by other connections to this file; undefined when the database is closed. */
  private async dataVersionNow(): Promise<number | undefined> {
    try {
      return (await this.workspace?.db.get<{ data_version: number }>('PRAGMA data_version'))?.data_version;
    } catch {
      return undefined; // closed meanwhile
    }
  }

  /** The indexer thread writes through its own connection: its commits are ours, not another process's. */
  private async absorbOwnWrites(): Promise<void> {
    this.dataVersion = (await this.dataVersionNow()) ?? this.dataVersion;
  }

  /**
   * Another process may write the database: the CLI's \`tenure run\` in the
   * integrated terminal, the MCP server, a second window. SQLite's
   * data_version changes when another connection commits; checking it is one
   * tiny query, so the timeline and lenses follow those writes within seconds.
   */
  private pollExternalChanges(): void {
    const tick = async () => {
      if (this.workspaceIfReady() && !this.disposed) {
        const v = await this.dataVersionNow();
        if (v !== undefined && this.dataVersion !== undefined && v !== this.dataVersion) this.memoryChanged('external');
        this.dataVersion = v;
      }
      if (!this.disposed) this.pollTimer = setTimeout(() => void tick(), EXTERNAL_POLL_MS);
    };
    this.pollTimer = setTimeout(() => void tick(), EXTERNAL_POLL_MS);
  }

  /**
   * Type-checked enrichment in the background (src/core/structural/resolvers):
   * the language servers VS Code already runs confirm, refute or add edges, so
   * tiers move from inferred to resolved. Never on the query path; waits while
   * the user types; one pass at a time; off in restricted mode (no language
   * server for an untrusted folder). The first pass shows a cancellable
   * notification once it has run for a few seconds.
   */
  scheduleEnrichment(delayMs: number): void {
    this.backgroundEnricher()?.schedule(delayMs);
  }

  /** Symbols just queried and files in view are confirmed first: they join the running pass, else start the next. */
  prioritizeEnrichment(p: { symbols?: readonly string[]; files?: readonly string[] }): void {
    this.backgroundEnricher()?.prioritize(p);
  }

  private backgroundEnricher(): BackgroundEnricher | undefined {
    const ws = this.workspace;
    if (this._restricted || !this.config.enrichmentEnabled || this.disposed || !ws) return undefined;
    if (this.enricher) return this.enricher;
    const gate = new UserIdleGate();
    this.subscriptions.push(gate);
    const enricher = new BackgroundEnricher(ws.db, editorResolvers(ws.root), {
      root: ws.root,
      idle: () => gate.idle(),
      pauseMs: 25,
      debounceMs: 1500,
      log: (m) => this.log.debug(m),
      onPass: ({ number, cancel }) => {
        // The first pass (a whole workspace) gets a cancellable notification once it has run for a few seconds.
        const notification = number === 1 ? new ProgressNotification('Tenure: confirming edges with the language servers', cancel, 4000) : undefined;
        const timed = this.responsiveness.begin('enrich');
        return {
          progress: (p) => notification?.report(p.done, p.total),
          end: (report) => {
            notification?.done();
            timed();
            for (const r of report?.resolvers ?? []) {
              this.log.info(`Enrichment ${describeResolverReport(r)}`);
            }
            if (!report || this.disposed) return;
            void this.counts().then((counts) => {
              this.lastCounts = counts;
              if (this.state.kind === 'ready') this.setState({ kind: 'ready', counts });
              this.memoryChanged('enrichment');
            }, (e: unknown) => this.log.warn(`Reading the index counts: ${errorMessage(e)}`));
          },
        };
      },
    });
    this.enricher = enricher;
    enricher.prioritize({ files: this.visibleFiles() });
    this.subscriptions.push(vscode.window.onDidChangeVisibleTextEditors(() => this.enricher?.prioritize({ files: this.visibleFiles() })));
    return enricher;
  }

  /** Workspace-relative paths of the files in visible editors. */
  private visibleFiles(): string[] {
    const root = this.workspace?.root;
    if (!root) return [];
    return vscode.window.visibleTextEditors
      .map((e) => e.document.uri)
      .filter((u) => u.scheme === 'file')
      .map((u) => path.relative(root, u.fsPath).split(path.sep).join('/'))
      .filter((r) => !r.startsWith('..'));
  }

  /**
   * The indexer runs in its own thread with its own connection to the
   * database: resolution and writing a large repository would otherwise hold
   * the extension host (every extension's thread) for a hundred milliseconds
   * at a time. The thread starts on first use.
   */
  private createIndexer(workspace: Workspace): StructuralIndex {
    const workers = this.config.indexWorkers;
    return new IndexerThread(workspace, { ...(workers ? { workers } : {}), restricted: this._restricted }, (m) => this.log.debug(m));
  }

  /** Drops the derived structural tables only (never episodes, rules, notes or knowledge), then indexes again. */
  async clearAndReindex(): Promise<void> {
    await this.exclusive(async () => {
      const ws = this.workspace;
      if (!ws) return;
      await ws.db.write((db) => db.run('DELETE FROM files').then(() => undefined));
      await this.indexer?.dispose();
      this.indexer = this.createIndexer(ws);
    });
    await this.reindex();
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
   * OS watch on it exists produce no event of their own, so the folder is
   * queued and the indexer expands it (its files, or the indexed files that
   * were under it).
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
            this.queue.add([uri.fsPath]);
          }
        },
        () => undefined,
      );
    };
    const onDeleteAny = (uri: vscode.Uri): void => {
      // Gone, so no stat: a name without an extension is most likely a folder.
      if (uri.scheme !== 'file' || isSourceName(uri.fsPath) || !this.isSource(root, uri.fsPath) || path.extname(uri.fsPath)) return;
      this.log.trace(`folder deleted: ${uri.fsPath}`);
      this.queue.add([uri.fsPath]);
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
      // Unsaved edits: re-index from the editor's text (debounced by the queue), so lenses follow typing.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (!this.config.indexUnsaved || !e.contentChanges.length || e.document.uri.scheme !== 'file') return;
        if (languageForPath(e.document.uri.fsPath) === undefined || !this.isSource(root, e.document.uri.fsPath)) return;
        this.queue.add([e.document.uri.fsPath]);
      }),
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
      this.firstIndexDone = true;
      this.resolveFirstIndex();
      this.memoryChanged('index');
      this.scheduleEnrichment(1500);
    });
    this.fullIndex = { promise, abort };
    return promise;
  }

  private async runFullIndex(abort: AbortController, notifyAfterMs: number): Promise<void> {
    const indexer = this.indexer;
    if (!indexer || this.disposed) return;
    this.setState({ kind: 'indexing', done: 0, total: 0 });
    const notification = new ProgressNotification('Tenure: indexing', () => abort.abort(), notifyAfterMs);
    let lastPaint = 0;
    try {
      const summary = await this.measure('index full', () => indexer.indexAll({
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
      }));
      await this.absorbOwnWrites();
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
      this.setState({ kind: 'updating', files: batch.length, counts: this.lastCounts });
      const t0 = Date.now();
      try {
        // Open files with unsaved edits are indexed as the editor holds them.
        const texts = new Map<string, string>();
        if (this.config.indexUnsaved) {
          for (const doc of vscode.workspace.textDocuments) {
            // A file deleted on disk is gone for Tenure even while an editor still holds its text.
            if (doc.isDirty && doc.uri.scheme === 'file' && batch.includes(doc.uri.fsPath) && fs.existsSync(doc.uri.fsPath)) texts.set(doc.uri.fsPath, doc.getText());
          }
        }
        const result = await this.measure('index update', () => indexer.updateFiles(batch, texts));
        await this.absorbOwnWrites();
        this.log.info(
          `Re-indexed ${batch.length} changed paths in ${Date.now() - t0} ms (${result.parsed} parsed, ${result.removed} removed${texts.size ? `, ${texts.size} from unsaved editors` : ''}): ` +
            batch.map((p) => path.basename(p)).join(', '),
        );
        const counts = await this.counts();
        this.lastCounts = counts;
        this.setState({ kind: 'ready', counts });
        this.memoryChanged('index-update');
        this.scheduleEnrichment(3000);
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

  /** What runTool passes to a catalog tool beside the workspace: trust and the episodic options from settings. */
  toolContextExtras(): { restricted: boolean; memoryOptions: MemoryOptions; queried: (symbols: readonly string[]) => void } {
    return { restricted: this._restricted, memoryOptions: this.memoryOptions(), queried: (symbols) => this.prioritizeEnrichment({ symbols }) };
  }

  async debug(): Promise<TenureDebug> {
    const v = this.views;
    if (v) await Promise.all([v.status.getChildren(), v.timeline.getChildren(), v.knowledge.getChildren(), v.rules.getChildren()]);
    return {
      panels: this.panels.report(),
      views: { status: v?.status.lastRows ?? [], timeline: v?.timeline.lastRows ?? [], knowledge: v?.knowledge.lastRows ?? [], rules: v?.rules.lastRows ?? [] },
      responsiveness: this.responsiveness.report(),
      memoryGeneration: this.memoryGeneration,
    };
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
    if (!this.disposed) {
      this.status.show(state);
      this.stateEmitter.fire();
    }
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
    if (this.pollTimer) clearTimeout(this.pollTimer);
    await this.enricher?.dispose().catch((e: unknown) => this.log.warn(`Stopping enrichment: ${errorMessage(e)}`));
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
    /** What the notification's Cancel button does. */
    private readonly cancel: () => void,
    delayMs: number,
  ) {
    if (delayMs <= 0) this.open();
    else this.timer = setTimeout(() => this.open(), delayMs);
  }

  private open(): void {
    this.timer = undefined;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: this.title, cancellable: true }, (progress, token) => {
      const sub = token.onCancellationRequested(() => this.cancel());
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
