import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { IndexerThread, type StructuralIndex } from '../core/structural/index/indexerThread.js';
import { Session } from '../core/session/session.js';
import { startSessionTeamSync } from '../core/session/teamSync.js';
import type { TeamSyncHandle, TeamSyncStatus } from '../core/team/autoSync.js';
import { TOOLS } from '../core/tools/catalog.js';
import { Workspace } from '../core/store/workspace.js';
import { openWorkspace } from '../core/workspace.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import { BackgroundEnricher } from '../core/structural/enrichment/background.js';
import { describeResolverReport, resolutionStatus } from '../core/structural/enrichment/enrich.js';
import { UserIdleGate, editorResolvers } from './codeIntelBridge.js';
import { importGitHubOutcomes, registerEpisodeCapture, type EpisodeCaptureCore } from './episodeCapture.js';
import { PlanDocuments, TEAM_PASSWORD_SECRET, registerCommands } from './commands.js';
import { Config } from './config.js';
import { DOCUMENT_SELECTOR, MemoryLens } from './editorProviders.js';
import { registerLmTools, type ToolHost } from './lmTools.js';
import { registerMcpProvider } from './mcp.js';
import { Responsiveness, type ResponsivenessReport } from './responsiveness.js';
import { Panels, type PanelReport } from './panels.js';
import { ProgressNotification } from './progress.js';
import { watchSourceFiles } from './fileEvents.js';
import { STATUS_MENU_COMMAND, StatusBar, describeCounts, type IndexState } from './statusBar.js';
import type { ResolverState } from './statusText.js';
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
  /** Stops the running enrichment pass (the status bar menu's "Stop"); undefined while none runs. */
  private cancelEnrichment: (() => void) | undefined;
  private resolverStates: Readonly<Record<string, ResolverState>> = {};
  private readonly subscriptions: vscode.Disposable[] = [];

  /** The headless engine (src/core/session): workspace, indexer, change queue, enrichment. Created once a folder is open. */
  private session: Session | undefined;
  /** Sync with the team store while the window is open (off in restricted mode and when not connected). */
  private teamSync: TeamSyncHandle | undefined;
  private teamStatus: TeamSyncStatus | undefined;
  private state: IndexState = { kind: 'starting' };
  private started: Promise<void> | undefined;
  /** Settles once start() has made its session (or found no folder): what workspaceForQuery waits on before the session's own readiness. */
  private sessionMade: Promise<void>;
  private resolveSessionMade!: () => void;
  private disposed = false;
  private _restricted: boolean;
  private readonly memoryEmitter = new vscode.EventEmitter<void>();
  /** Fires when anything a view, panel or lens shows may have changed: the index, a memory, another process's write. */
  readonly onDidChangeMemory = this.memoryEmitter.event;
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeState = this.stateEmitter.event;
  private memoryGeneration = 0;
  readonly responsiveness = new Responsiveness();
  readonly panels: Panels;
  private readonly plans = new PlanDocuments();
  private views: { status: StatusView; timeline: TimelineView; knowledge: KnowledgeView; rules: RulesView } | undefined;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Tenure', { log: true });
    this._restricted = !vscode.workspace.isTrusted;
    this.status = new StatusBar(() => this._restricted);
    this.panels = new Panels(this);
    this.sessionMade = new Promise((r) => (this.resolveSessionMade = r));
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
    return this.session?.readyNow();
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
      this.resolveSessionMade();
    });
    return this.started;
  }

  private async doStart(): Promise<void> {
    const version = (this.extension.extension.packageJSON as { version?: string }).version ?? '0.0.0';
    this.log.info(`Tenure ${version} in VS Code ${vscode.version}; workspace ${this._restricted ? 'restricted (tree-sitter only)' : 'trusted'}`);
    this.subscriptions.push(...registerCommands(this, this.plans));
    this.subscriptions.push(vscode.commands.registerCommand(STATUS_MENU_COMMAND, () => this.statusMenu()));
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
        this.session?.scheduleEnrichment(500);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (this.config.affects(e, 'index.updateDebounceMs')) this.session?.setDebounceMs(this.config.updateDebounceMs);
      }),
    );

    // Opening the first folder in an empty window restarts the extension host, so there is no folder to wait for.
    const root = this.root;
    if (!root) {
      this.setState({ kind: 'no-folder' });
      this.log.info('No folder is open.');
      this.resolveSessionMade();
      return;
    }
    this.setState({ kind: 'starting' });
    const t0 = Date.now();
    // dispose() waits for start(), so whatever is assigned here is closed by it.
    const workspace = await openWorkspace(root);
    if (this.disposed) return void (await workspace.close());
    this.session = new Session({
      workspace,
      indexer: this.createIndexer(workspace),
      enricher: () => this.backgroundEnricher(workspace),
      debounceMs: this.config.updateDebounceMs,
      unsavedText: (paths) => this.unsavedText(paths),
      pollExternalMs: EXTERNAL_POLL_MS,
      log: (level, m) => (level === 'error' ? this.log.error(m) : level === 'info' ? this.log.info(m) : this.log.debug(m)),
      onState: (state) => this.setState(state),
      onMemoryChanged: (what) => this.memoryChanged(what),
      measure: (what, fn) => this.measure(what, fn),
    });
    this.resolveSessionMade();
    this.log.info(`Opened ${Workspace.dbPath(root)} in ${Date.now() - t0} ms`);
    this.subscriptions.push(...watchSourceFiles(root, { changed: (paths) => this.session?.changed(paths), indexUnsaved: () => this.config.indexUnsaved, log: this.log }));
    this.optional('episode capture', () => this.registerCapture());
    this.teamSync = startSessionTeamSync(this.session, {
      trusted: !this._restricted,
      secret: () => Promise.resolve(this.extension.secrets.get(TEAM_PASSWORD_SECRET)),
      log: (m) => this.log.info(m),
      onStatus: (s) => {
        this.teamStatus = s;
        if (!this.disposed) this.stateEmitter.fire();
      },
    });
    if (this.config.indexOnStartup) await this.reindex({ notifyAfterMs: 1000 });
    else await this.session.skipFirstIndex();
  }

  /** Open files with unsaved edits are indexed as the editor holds them (a file deleted on disk is gone, whatever an editor holds). */
  private unsavedText(paths: readonly string[]): Map<string, string> {
    const texts = new Map<string, string>();
    if (!this.config.indexUnsaved) return texts;
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.isDirty && doc.uri.scheme === 'file' && paths.includes(doc.uri.fsPath) && fs.existsSync(doc.uri.fsPath)) texts.set(doc.uri.fsPath, doc.getText());
    }
    return texts;
  }

  /** Episodes from the integrated terminal, tasks, commits and test reports (episodeCapture.ts). */
  private registerCapture(): void {
    const core: EpisodeCaptureCore = {
      workspace: () => this.session?.workspace,
      options: () => this.memoryOptions(),
      refreshIndex: (absPaths) => {
        this.session?.changed(absPaths);
        return this.session?.whenIdle().then(() => undefined) ?? Promise.resolve();
      },
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
    const host = { log: this.log, workspaceIfReady: () => this.workspaceIfReady(), indexState: () => this.state, restricted: this._restricted, onDidChangeMemory: this.onDidChangeMemory, onDidChangeState: this.onDidChangeState, teamStatus: () => this.teamStatus };
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

  /**
   * Type-checked enrichment in the background (src/core/structural/resolvers):
   * the language servers VS Code already runs confirm, refute or add edges, so
   * tiers move from inferred to resolved. Never on the query path; waits while
   * the user types; one pass at a time; off in restricted mode (no language
   * server for an untrusted folder). A pass shows its progress in the status
   * bar, and the status bar's menu stops it.
   */
  /** Symbols just queried and files in view are confirmed first: they join the running pass, else start the next. */
  prioritizeEnrichment(p: { symbols?: readonly string[]; files?: readonly string[] }): void {
    this.session?.prioritize(p);
  }

  /** The session asks for this on first use; undefined while the folder is untrusted or enrichment is off. */
  private backgroundEnricher(ws: Workspace): BackgroundEnricher | undefined {
    if (this._restricted || !this.config.enrichmentEnabled || this.disposed) return undefined;
    const gate = new UserIdleGate();
    this.subscriptions.push(gate);
    const enricher = new BackgroundEnricher(ws.db, editorResolvers(ws.root, this.extension.extension.id), {
      root: ws.root,
      idle: () => gate.idle(),
      pauseMs: 25,
      debounceMs: 1500,
      log: (m) => this.log.debug(m),
      onPass: ({ cancel }) => {
        // Progress in the status bar, stopped from its menu: no notification for work nobody asked for.
        this.cancelEnrichment = cancel;
        this.status.enrichmentStarted();
        const timed = this.responsiveness.begin('enrich');
        return {
          progress: (p) => this.status.enrichmentProgress(p),
          // Each language's share moves as soon as its server is done, not after the last one.
          resolverEnd: (r) => {
            this.log.info(`Enrichment ${describeResolverReport(r)}`);
            this.resolverStates = { ...this.resolverStates, [r.source]: { state: r.state, languages: r.languages, ...(r.message ? { message: r.message } : {}) } };
            this.status.setResolvers(this.resolverStates);
            if (r.confirmed || r.refuted || r.added) void this.refreshContextKeys();
          },
          end: (report) => {
            this.cancelEnrichment = undefined;
            this.status.enrichmentEnded();
            timed();
            if (!report || this.disposed) return;
            void this.session?.enrichmentEnded().catch((e: unknown) => this.log.warn(`Reading the index counts: ${errorMessage(e)}`));
          },
        };
      },
    });
    void resolutionStatus(ws.db)
      .then((saved) => {
        // What the last session's passes said, until this one's resolvers report.
        const states: Record<string, ResolverState> = {};
        for (const [source, st] of Object.entries(saved)) states[source] = { state: st.state, languages: st.languages ?? [], ...(st.message ? { message: st.message } : {}) };
        this.resolverStates = { ...states, ...this.resolverStates };
        this.status.setResolvers(this.resolverStates);
      })
      .catch((e: unknown) => this.log.debug(`resolution status: ${errorMessage(e)}`));
    enricher.prioritize({ files: this.visibleFiles() });
    this.subscriptions.push(vscode.window.onDidChangeVisibleTextEditors(() => this.session?.prioritize({ files: this.visibleFiles() })));
    return enricher;
  }

  /** Workspace-relative paths of the files in visible editors. */
  private visibleFiles(): string[] {
    const root = this.session?.workspace.root;
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
  async teamSyncNow(): Promise<void> {
    await this.teamSync?.syncNow();
  }

  async clearAndReindex(): Promise<void> {
    const session = this.session;
    if (!session) return;
    await session.clearAndReindex(() => this.createIndexer(session.workspace));
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
   * A full index with a cancellable progress notification. A second request
   * while one runs joins it rather than starting over. At startup the
   * notification appears only when the index takes longer than a second (a
   * re-open with few changed files stays silent); asked for by the user, at once.
   */
  async reindex(options: { notifyAfterMs?: number } = {}): Promise<void> {
    const session = this.session;
    if (!session || this.disposed) return;
    const notification = new ProgressNotification('Tenure: indexing', () => session.cancelReindex(), options.notifyAfterMs ?? 0);
    try {
      await session.reindex({ onProgress: (done, total) => notification.report(done, total) });
    } catch (e) {
      this.log.error(`Indexing failed: ${errorMessage(e)}`);
      if (e instanceof Error && e.stack) this.log.debug(e.stack);
      void vscode.window.showErrorMessage(`Tenure: indexing failed: ${errorMessage(e)}`, 'Show Log').then((pick) => {
        if (pick) this.log.show();
      });
    } finally {
      notification.done();
    }
  }

  /** The status bar items' menu: stop what runs in the background, open the sidebar, re-index, the log. */
  async statusMenu(): Promise<void> {
    type Item = vscode.QuickPickItem & { run: () => unknown };
    const items: Item[] = [];
    const cancel = this.cancelEnrichment;
    if (cancel) items.push({ label: '$(debug-stop) Stop confirming edges', description: 'this background pass; edges keep the tier they have', run: cancel });
    if (this.state.kind === 'indexing' && this.session) {
      const session = this.session;
      items.push({ label: '$(debug-stop) Stop indexing', run: () => session.cancelReindex() });
    }
    items.push(
      { label: '$(list-tree) Open the Tenure sidebar', run: () => vscode.commands.executeCommand('workbench.view.extension.tenure') },
      { label: '$(refresh) Re-index the workspace', run: () => vscode.commands.executeCommand('tenure.reindex') },
      { label: '$(output) Show the Tenure log', run: () => this.log.show() },
    );
    const pick = await vscode.window.showQuickPick(items, { title: 'Tenure', placeHolder: this.status.summary() });
    await pick?.run();
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
    await raceCancellation(this.sessionMade, token);
    const ready = this.session ? await raceCancellation(this.session.ready(), token) : undefined;
    if (token.isCancellationRequested) throw new TenureError('cancelled', 'Cancelled.');
    if (!ready) {
      const why = this.state.kind === 'failed' ? `it failed to start: ${this.state.message}` : 'no folder is open';
      throw new TenureError('store-unavailable', `Tenure has no workspace memory because ${why}. Open a folder, or run "Tenure: Re-index Workspace".`);
    }
    return ready;
  }

  async whenIdle(): Promise<IndexState> {
    await this.start();
    await this.session?.whenIdle();
    return this.state;
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
    await this.started;
    await this.teamSync?.dispose();
    const session = this.session;
    this.session = undefined;
    await session?.dispose();
    await session?.workspace.close().catch((e: unknown) => this.log.warn(`Closing the database: ${errorMessage(e)}`));
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
