import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import { clockFromEnv } from '../core/episodic/clock.js';
import { importEpisodes } from '../core/episodic/seed.js';
import { indexKnowledge, type KnowledgeIndexReport } from '../core/knowledge/pipeline.js';
import { renderSurvey, surveyKnowledge } from '../core/knowledge/sources/survey.js';
import { createChatModel, createEmbedder, missingKey, modelSettings } from '../core/llm/config.js';
import type { ChatModel } from '../core/llm/types.js';
import { applySectionChange, declineProposal, planSectionChange, type SectionPlan } from '../core/procedural/promotion.js';
import { refreshRules } from '../core/procedural/refresh.js';
import { openTeamModelCalls } from '../core/session/teamSync.js';
import { listRules } from '../core/procedural/store.js';
import { resolveSymbols } from '../core/structural/lookup.js';
import type { SymbolRef } from '../core/model/symbolRef.js';
import { TENURE_DIR, Workspace } from '../core/store/workspace.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import type { Config } from './config.js';
import type { Panels } from './panels.js';
import { fetchGitHubThreadsWithVsCodeAuth, pickKnowledgeChatModel } from './knowledgeModel.js';
import type { KnowledgeJob, KnowledgeWorkerMessage } from './knowledgeWorker.js';
import { symbolAt } from './memoryQueries.js';
import { ruleIdOf } from './views.js';

/** What the commands need from the extension's context (ctx.ts implements it). */
export interface CommandHost {
  readonly extension: vscode.ExtensionContext;
  readonly config: Config;
  readonly log: vscode.LogOutputChannel;
  readonly panels: Panels;
  readonly restricted: boolean;
  readonly root: string | undefined;
  measure<T>(what: string, fn: () => Promise<T>): Promise<T>;
  memoryChanged(what: string): void;
  memoryOptions(): MemoryOptions;
  workspaceIfReady(): Workspace | undefined;
  workspaceForQuery(token: vscode.CancellationToken): Promise<Workspace>;
  reindex(): Promise<void>;
  clearAndReindex(): Promise<void>;
  /** Syncs with the team store now (after its password changed); nothing when not connected. */
  teamSyncNow(): Promise<void>;
}

/** The secret under which the OpenAI-compatible API key is kept (SecretStorage, never settings). */
export const API_KEY_SECRET = 'tenure.model.apiKey';
/** The team store's password, when neither PGPASSWORD, TENURE_TEAM_PASSWORD nor a pgpass file gives it. */
export const TEAM_PASSWORD_SECRET = 'tenure.team.password';

/**
 * The symbol at the cursor, as the index knows it: the symbol a use site there
 * refers to, else the one declared there, else the innermost one around it.
 */
/** The active editor's file in the workspace, workspace-relative; undefined for an untitled or outside file. */
function cursorFile(ctx: CommandHost): { editor: vscode.TextEditor; ws: Workspace; rel: string } | undefined {
  const editor = vscode.window.activeTextEditor;
  const ws = ctx.workspaceIfReady();
  if (!editor || !ws || editor.document.uri.scheme !== 'file') return undefined;
  const rel = path.relative(ws.root, editor.document.uri.fsPath).split(path.sep).join('/');
  return rel.startsWith('..') ? undefined : { editor, ws, rel };
}

export async function symbolAtCursor(ctx: CommandHost): Promise<SymbolRef | undefined> {
  const at = cursorFile(ctx);
  if (!at) return undefined;
  const { editor, ws, rel } = at;
  const pos = editor.selection.active;
  const range = editor.document.getWordRangeAtPosition(pos, /[A-Za-z_$][\w$]*/);
  const word = range ? editor.document.getText(range) : undefined;
  return symbolAt(ws.db, rel, pos.line + 1, range ? range.start.character : pos.character, word);
}

/**
 * "Why is this?" on a line inside a function (a `case`, a statement, not the
 * declaration and not a name that denotes another symbol) asks about that
 * line, as `path:line`: the comment there leads the answer.
 */
async function lineInside(ctx: CommandHost, atCursor: SymbolRef): Promise<string | undefined> {
  const at = cursorFile(ctx);
  if (!at) return undefined;
  const { editor, ws, rel } = at;
  const line = editor.selection.active.line + 1;
  if (rel !== atCursor.path || line === atCursor.line) return undefined;
  const enclosing = await symbolAt(ws.db, rel, line, editor.selection.active.character, undefined);
  return enclosing?.sid === atCursor.sid ? `${rel}:${line}` : undefined;
}

/** A symbol from a command argument, the cursor, or a prompt; several matches become a quick pick, never a silent choice. */
async function pickSymbol(ctx: CommandHost, arg: unknown, title: string, atLine = false): Promise<string | undefined> {
  if (typeof arg === 'string' && arg) return arg;
  if (arg instanceof vscode.Uri) return undefined;
  const atCursor = await symbolAtCursor(ctx).catch(() => undefined);
  if (atCursor) return (atLine && (await lineInside(ctx, atCursor))) || atCursor.sid;
  const text = await vscode.window.showInputBox({
    title,
    prompt: 'A symbol: a name (retry), a qualified name (SettlementService.retry), a symbol id or path/file.ts:42',
    ignoreFocusOut: true,
  });
  if (!text) return undefined;
  const cts = new vscode.CancellationTokenSource();
  try {
    const ws = await ctx.workspaceForQuery(cts.token);
    const found = await resolveSymbols(ws.db, text, { root: ws.root });
    if (found.length === 1) return found[0]!.sid;
    const pick = await vscode.window.showQuickPick(
      found.map((s) => ({ label: s.qname, description: `${s.kind} · ${s.path}:${s.line}`, sid: s.sid })),
      { title: `"${text}" matches ${found.length} symbols — Tenure will not pick one for you`, matchOnDescription: true },
    );
    return pick?.sid;
  } catch (e) {
    void vscode.window.showWarningMessage(`Tenure: ${errorMessage(e)}`);
    return undefined;
  } finally {
    cts.dispose();
  }
}

async function withWs<T>(ctx: CommandHost, fn: (ws: Workspace) => Promise<T>): Promise<T | undefined> {
  const cts = new vscode.CancellationTokenSource();
  try {
    return await fn(await ctx.workspaceForQuery(cts.token));
  } catch (e) {
    if (TenureError.is(e, 'cancelled')) return undefined;
    ctx.log.warn(errorMessage(e));
    void vscode.window.showWarningMessage(`Tenure: ${errorMessage(e)}`);
    return undefined;
  } finally {
    cts.dispose();
  }
}

/* ---------------------------------------------------------------- knowledge */

/** Runs the knowledge pipeline in dist/knowledgeWorker.js and resolves with its report; aborting stops it between batches. */
function runKnowledgeWorker(
  extensionPath: string,
  job: KnowledgeJob,
  signal: AbortSignal,
  log: (m: string) => void,
  onProgress: (p: { workflow: string; done: number; total: number }) => void,
): Promise<KnowledgeIndexReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(extensionPath, 'dist', 'knowledgeWorker.js'), { workerData: job });
    let settled = false;
    const finish = (fn: () => void, end: 'wait' | 'now') => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
      // After its answer the worker has closed its database and exits by itself; it is ended here only if it lingers.
      if (end === 'now') void worker.terminate();
      else setTimeout(() => void worker.terminate(), 10_000).unref();
    };
    const onAbort = () => worker.postMessage({ type: 'abort' });
    signal.addEventListener('abort', onAbort);
    worker.on('message', (m: KnowledgeWorkerMessage) => {
      if (m.type === 'progress') onProgress(m);
      else if (m.type === 'log') log(m.message);
      else if (m.type === 'done') finish(() => resolve(m.report), 'wait');
      else if (m.type === 'error') finish(() => reject(new Error(m.message)), 'wait');
    });
    worker.on('error', (e) => finish(() => reject(e), 'now'));
    worker.on('exit', (code) => finish(() => reject(new Error(`the knowledge worker exited (${code}) before it finished`)), 'now'));
  });
}

async function indexKnowledgeCommand(ctx: CommandHost): Promise<void> {
  await withWs(ctx, async (ws) => {
    const provider = ctx.config.knowledgeProvider;
    let chat: ChatModel | undefined;
    let settings = modelSettings({}, {});
    if (provider === 'vscode-lm') {
      if (ctx.restricted) {
        void vscode.window.showWarningMessage('Tenure: this folder is not trusted, so no model is called on its text. Indexing offline instead (no model, no cost). Trust the folder to use a model.');
      } else {
        // The user's Copilot models through VS Code (no key); VS Code asks for consent on the first request.
        chat = await pickKnowledgeChatModel(ctx.config.knowledgeModel ? { family: ctx.config.knowledgeModel } : {});
        if (!chat) {
          const pick = await vscode.window.showWarningMessage('Tenure: no language model is available through VS Code (is Copilot signed in?).', 'Index Offline');
          if (pick !== 'Index Offline') return;
        } else {
          const survey = await surveyKnowledge(ws.root, ws.db, { chat, embedderIsModel: false });
          ctx.log.info(renderSurvey(survey));
          const yes = await vscode.window.showInformationMessage(`Tenure: index the knowledge memory with ${chat.id}?`, { modal: true, detail: renderSurvey(survey) }, 'Run Model Pass');
          if (yes !== 'Run Model Pass') return;
          settings = modelSettings({ model: chat.id }, {});
        }
      }
    } else if (provider === 'openai') {
      if (ctx.restricted) {
        void vscode.window.showWarningMessage('Tenure: this folder is not trusted, so no model is called on its text. Indexing offline instead (no model, no cost). Trust the folder to use a model.');
      } else {
        const apiKey = await ctx.extension.secrets.get(API_KEY_SECRET);
        settings = modelSettings({ model: ctx.config.knowledgeModel || 'gpt-4o-mini', ...(ctx.config.knowledgeBaseUrl ? { baseURL: ctx.config.knowledgeBaseUrl } : {}), ...(apiKey ? { apiKey } : {}) }, {});
        if (missingKey(settings)) {
          const pick = await vscode.window.showWarningMessage('Tenure: a model endpoint that needs an API key is configured, and no key is stored.', 'Set API Key', 'Index Offline');
          if (pick === 'Set API Key') return void vscode.commands.executeCommand('tenure.setApiKey');
          if (pick !== 'Index Offline') return;
          settings = modelSettings({}, {});
        } else {
          chat = createChatModel(settings);
          // A model pass costs money: show the survey's estimate first and run only after a yes.
          const survey = await surveyKnowledge(ws.root, ws.db, { ...(chat ? { chat } : {}), embedderIsModel: !!settings.embeddingModel });
          ctx.log.info(renderSurvey(survey));
          const yes = await vscode.window.showInformationMessage(`Tenure: index the knowledge memory with ${settings.model}?`, { modal: true, detail: renderSurvey(survey) }, 'Run Model Pass');
          if (yes !== 'Run Model Pass') return;
        }
      }
    }
    const title = `Tenure: indexing knowledge${chat ? ` with ${chat.id}` : ' (offline, no model)'}`;
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      let last = '';
      const onProgress = ({ workflow, done, total }: { workflow: string; done: number; total: number }) => {
        const msg = `${workflow.replace(/_/g, ' ')} ${done}/${total}`;
        if (msg !== last) progress.report({ message: msg });
        last = msg;
      };
      try {
        // A VS Code model is reachable only from the host; everything else runs in a worker thread, off the event loop.
        if (provider === 'vscode-lm' && chat) {
          // In a workspace connected to a team store, what a teammate's pass already asked is not asked again.
          const team = await openTeamModelCalls(ws, { trusted: vscode.workspace.isTrusted, log: (m) => ctx.log.info(m) });
          try {
            return await ctx.measure('knowledge index', () =>
              indexKnowledge(ws, { chat, embedder: createEmbedder({}), signal: ac.signal, log: (m) => ctx.log.info(m), onProgress, ...(team ? { calls: team.calls } : {}) }),
            );
          } finally {
            if (team) {
              const hits = team.teamHits();
              if (hits) ctx.log.info(`${hits} model answers came from the team's cache (not paid again)`);
              await team.finish();
            }
          }
        }
        return await ctx.measure('knowledge index (worker)', () =>
          runKnowledgeWorker(ctx.extension.extensionPath, { root: ws.root, settings: { ...settings, fetch: undefined } as KnowledgeJob['settings'], embedWithModel: !!chat && !!settings.embeddingModel }, ac.signal, (m) => ctx.log.info(m), onProgress),
        );
      } finally {
        sub.dispose();
      }
    });
    ctx.log.info(`Knowledge: ${report.status}: ${report.documents.total} documents, ${report.entities} entities, ${report.communities.total} communities in ${report.ms} ms`);
    ctx.memoryChanged('knowledge');
    if (report.status !== 'done') void vscode.window.showWarningMessage(`Tenure: knowledge indexing ${report.status}: ${report.message ?? ''}`);
    else if (!report.documents.total) void vscode.window.showInformationMessage('Tenure found no documents to index: add decision records (docs/adr), post-mortems or design docs, or commit messages with real content.');
    else void vscode.window.setStatusBarMessage(`Tenure: knowledge indexed — ${report.documents.total} documents, ${report.communities.total} communities`, 5000);
  });
}

async function fetchGitHub(ctx: CommandHost): Promise<void> {
  const root = ctx.root;
  if (!root) return;
  if (ctx.restricted) return void vscode.window.showWarningMessage('Tenure: this folder is not trusted; fetching its pull requests with your GitHub sign-in is off until you trust it.');
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Tenure: fetching pull requests and issues from GitHub', cancellable: true }, async (_p, token) => {
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort());
    try {
      return await fetchGitHubThreadsWithVsCodeAuth(root, { signal: ac.signal });
    } finally {
      sub.dispose();
    }
  });
  if (!r) return;
  const pick = await vscode.window.showInformationMessage(`Tenure: wrote ${r.written} threads of ${r.repo} to .tenure/exports/github.`, 'Index Knowledge');
  if (pick) await vscode.commands.executeCommand('tenure.indexKnowledge');
}

async function setTeamPassword(ctx: CommandHost): Promise<void> {
  const pw = await vscode.window.showInputBox({ title: 'Tenure: password for the team store', password: true, ignoreFocusOut: true, prompt: 'Used when PGPASSWORD, TENURE_TEAM_PASSWORD or a pgpass file does not give one. Stored in VS Code’s SecretStorage, never in settings or the repository.' });
  if (pw === undefined) return;
  if (pw) await ctx.extension.secrets.store(TEAM_PASSWORD_SECRET, pw);
  else await ctx.extension.secrets.delete(TEAM_PASSWORD_SECRET);
  await ctx.teamSyncNow();
}

async function setApiKey(ctx: CommandHost): Promise<void> {
  const key = await vscode.window.showInputBox({ title: 'Tenure: API key for the OpenAI-compatible endpoint', password: true, ignoreFocusOut: true, prompt: 'Stored in VS Code’s SecretStorage (the OS keychain), never in settings.' });
  if (key === undefined) return;
  if (key) await ctx.extension.secrets.store(API_KEY_SECRET, key.trim());
  else await ctx.extension.secrets.delete(API_KEY_SECRET);
  void vscode.window.showInformationMessage(key ? 'Tenure: API key stored in SecretStorage.' : 'Tenure: API key removed.');
}

/* ---------------------------------------------------------------- episodes */

async function importEpisodesCommand(ctx: CommandHost, arg?: unknown): Promise<void> {
  let file = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : undefined;
  if (!file) {
    const root = ctx.root;
    const seed = root ? path.join(root, 'tenure-seed') : undefined;
    const picked = await vscode.window.showOpenDialog({
      title: 'Tenure: import an episode file (an export, or a seed such as tenure-seed/episodes.json)',
      canSelectMany: false,
      filters: { 'Episode files': ['json'] },
      ...(seed && fs.existsSync(seed) ? { defaultUri: vscode.Uri.file(seed) } : root ? { defaultUri: vscode.Uri.file(root) } : {}),
    });
    file = picked?.[0]?.fsPath;
  }
  if (!file) return;
  const chosen = file;
  await withWs(ctx, async (ws) => {
    const options = ctx.memoryOptions();
    const r = await ctx.measure('import episodes', () => importEpisodes(ws, path.resolve(chosen), clockFromEnv(), options));
    const rules = await refreshRules(ws, options, clockFromEnv());
    ctx.memoryChanged('episodes');
    const proposed = rules.proposed.length ? ` ${rules.proposed.length} rule(s) are now proposed for AGENTS.md: review them in the Rules view.` : '';
    void vscode.window.showInformationMessage(`Tenure: imported ${r.imported} episodes and ${r.conclusions} conclusions${r.skipped ? ` (${r.skipped} already present)` : ''}.${proposed}`);
  });
}

/* ---------------------------------------------------------------- rules */

/** A virtual document per side of a planned change, so the diff opens before anything is written. */
export class PlanDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'tenure-plan';
  private readonly texts = new Map<string, string>();
  set(key: string, text: string): vscode.Uri {
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: PlanDocuments.scheme, path: `/${key}` });
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path.slice(1)) ?? '';
  }
}

async function changeRules(ctx: CommandHost, plans: PlanDocuments, arg: unknown, verb: 'promote' | 'demote'): Promise<void> {
  if (ctx.restricted) {
    void vscode.window.showWarningMessage('Tenure: this folder is not trusted, so Tenure writes no instruction file (AGENTS.md). Trust the folder to promote or demote rules.');
    return;
  }
  const id = ruleIdOf(arg);
  await withWs(ctx, async (ws) => {
    const ids = id !== undefined ? [id] : (await listRules(ws.db, { statuses: [verb === 'promote' ? 'proposed' : 'demotion-proposed'] })).map((r) => r.id);
    if (!ids.length) return void vscode.window.showInformationMessage(`Tenure: no rule is proposed for ${verb === 'promote' ? 'promotion' : 'demotion'}.`);
    const plan: SectionPlan = await planSectionChange(ws, verb === 'promote' ? { promote: ids } : { demote: ids });
    if (!plan.files.length) return void vscode.window.showInformationMessage('Tenure: the instruction files already say this; nothing to write.');
    // The diff first: what is shown is what is written (the plan id binds them).
    for (const f of plan.files) {
      const before = plans.set(`${plan.id}/before/${f.path}`, f.before ?? '');
      const after = plans.set(`${plan.id}/after/${f.path}`, f.after);
      await vscode.commands.executeCommand('vscode.diff', before, after, `${f.path}: ${verb} rule${ids.length > 1 ? 's' : ''} ${ids.join(', ')} (not written yet)`, { preview: true });
    }
    const rules = [...plan.promote, ...plan.demote].map((r) => `• ${r.promotedText ?? r.text} (${r.successes}✓ ${r.failures}✗)`).join('\n');
    const ok = await vscode.window.showWarningMessage(
      `Write this change to ${plan.files.map((f) => f.path).join(' and ')}?`,
      { modal: true, detail: `${verb === 'promote' ? 'Promote' : 'Demote'}:\n${rules}${plan.notes.length ? `\n\nNotes:\n${plan.notes.join('\n')}` : ''}\n\nThe diff is open in the editor. Every agent reads these files.` },
      verb === 'promote' ? 'Promote' : 'Demote',
    );
    if (!ok) return;
    const approver = process.env['USER'] ?? process.env['USERNAME'] ?? 'VS Code user';
    const r = await applySectionChange(ws, plan, { approver, via: 'vscode confirmation after diff' }, clockFromEnv());
    ctx.memoryChanged('rules');
    void vscode.window.showInformationMessage(`Tenure: wrote ${r.written.join(', ')}.`);
  });
}

async function rejectRule(ctx: CommandHost, arg: unknown): Promise<void> {
  const id = ruleIdOf(arg);
  if (id === undefined) return;
  const note = await vscode.window.showInputBox({ title: `Tenure: decline rule ${id}`, prompt: 'Why (optional)', ignoreFocusOut: true });
  if (note === undefined) return;
  await withWs(ctx, async (ws) => {
    const r = await declineProposal(ws, id, process.env['USER'] ?? 'VS Code user', clockFromEnv(), note || null);
    ctx.memoryChanged('rules');
    void vscode.window.showInformationMessage(`Tenure: rule ${id} is now ${r.status}.`);
  });
}

/* ---------------------------------------------------------------- index */

async function clearIndex(ctx: CommandHost): Promise<void> {
  const ok = await vscode.window.showWarningMessage(
    'Clear Tenure’s structural index and build it again?',
    { modal: true, detail: 'Only the derived code graph is dropped and rebuilt (seconds). Episodes, rules, notes and the knowledge memory are kept.' },
    'Clear and Re-index',
  );
  if (!ok) return;
  await ctx.clearAndReindex();
}

async function openDatabaseFolder(ctx: CommandHost): Promise<void> {
  const root = ctx.root;
  if (!root) return void vscode.window.showInformationMessage('Tenure: no folder is open.');
  const dir = vscode.Uri.file(path.join(root, TENURE_DIR));
  // Desktop: the OS file manager. Remote and web hosts have none to show: reveal the database in the explorer instead.
  if (vscode.env.remoteName || vscode.env.uiKind === vscode.UIKind.Web) {
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(Workspace.dbPath(root))).then(undefined, () => undefined);
    void vscode.window.showInformationMessage(`Tenure's database: ${Workspace.dbPath(root)}`);
    return;
  }
  await vscode.commands.executeCommand('revealFileInOS', dir);
}

export function registerCommands(ctx: CommandHost, plans: PlanDocuments): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg('tenure.reindex', () => ctx.reindex()),
    reg('tenure.clearIndex', () => clearIndex(ctx)),
    reg('tenure.openDatabaseFolder', () => openDatabaseFolder(ctx)),
    reg('tenure.showOutput', () => ctx.log.show()),
    reg('tenure.whyIsThis', async (arg?: unknown) => {
      const sym = await pickSymbol(ctx, arg, 'Tenure: Why Is This?', true);
      if (sym) await ctx.panels.show('why', sym);
    }),
    reg('tenure.whatBreaks', async (arg?: unknown) => {
      const sym = await pickSymbol(ctx, arg, 'Tenure: What Breaks If This Changes?');
      if (sym) await ctx.panels.show('impact', sym);
    }),
    reg('tenure.showImpact', async (arg?: unknown, depth?: unknown) => {
      const sym = await pickSymbol(ctx, arg, 'Tenure: Impact');
      if (sym) await ctx.panels.show('impact', sym, typeof depth === 'number' ? depth : undefined);
    }),
    reg('tenure.indexKnowledge', () => indexKnowledgeCommand(ctx)),
    reg('tenure.importEpisodes', (arg?: unknown) => importEpisodesCommand(ctx, arg)),
    reg('tenure.setApiKey', () => setApiKey(ctx)),
    reg('tenure.team.setPassword', () => setTeamPassword(ctx)),
    reg('tenure.fetchGitHub', () => fetchGitHub(ctx)),
    reg('tenure.showEpisode', async (arg?: unknown) => {
      const id = typeof arg === 'number' ? arg : Number((arg as { id?: string } | undefined)?.id?.replace(/^episode-/, ''));
      if (!Number.isInteger(id)) return;
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'tenure-episode', path: `/episode-${id}.md` }));
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    reg('tenure.rules.promote', (arg?: unknown) => changeRules(ctx, plans, arg, 'promote')),
    reg('tenure.rules.demote', (arg?: unknown) => changeRules(ctx, plans, arg, 'demote')),
    reg('tenure.rules.reject', (arg?: unknown) => rejectRule(ctx, arg)),
    reg('tenure.refreshViews', () => ctx.memoryChanged('refresh')),
    vscode.workspace.registerTextDocumentContentProvider(PlanDocuments.scheme, plans),
  ];
}
