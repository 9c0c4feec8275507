import * as path from 'node:path';
import * as vscode from 'vscode';
import { CaptureSession } from '../core/episodic/capture.js';
import { clockFromEnv } from '../core/episodic/clock.js';
import { repoInfo } from '../core/episodic/git.js';
import { GitHubImporter, fetchGitHubOutcomes } from '../core/episodic/github.js';
import { githubRepoOf } from '../core/repo/github.js';
import type { CommandKind } from '../core/episodic/model.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import type { RecordResult } from '../core/episodic/recorder.js';
import { afterOutcome, type OutcomeNews } from '../core/procedural/afterOutcome.js';
import type { Workspace } from '../core/store/workspace.js';

/*
 * Episodes from what happens in the editor: commands run in the integrated
 * terminal (shell integration — also where Copilot agent mode runs its
 * commands), task results, edits (for workspaces without git), commits seen
 * by the built-in git extension, and JUnit reports written by runners the
 * terminal does not see (the Testing view). The decisions — what is worth an
 * episode, what it touched — are the core's (CaptureSession); this file only
 * listens and forwards.
 */

/** What the capture needs from the extension. */
export interface EpisodeCaptureCore {
  /** The workspace memory, once it is open. */
  workspace(): Workspace | undefined;
  /** tenure.episodes.* and tenure.rules.* (Config.memoryOptions). */
  options(): MemoryOptions;
  /** The extension's own indexer, so changed files are re-indexed before their symbols are read. */
  refreshIndex?(absPaths: string[]): Promise<void>;
  readonly log: vscode.LogOutputChannel;
  /** Called after each recorded episode (refresh views, CodeLens). */
  onRecorded?(result: RecordResult, news: OutcomeNews): void;
  /** Called when episodes were added in bulk (a GitHub import). */
  onChanged?(): void;
}

const MAX_OUTPUT = 256 * 1024;

function groupKind(task: vscode.Task): CommandKind | undefined {
  const id = task.group?.id;
  if (id === vscode.TaskGroup.Test.id) return 'test';
  if (id === vscode.TaskGroup.Build.id) return 'build';
  return undefined;
}

function taskCommandLine(task: vscode.Task): string {
  const ex = task.execution;
  if (ex instanceof vscode.ShellExecution) {
    if (ex.commandLine) return ex.commandLine;
    const cmd = typeof ex.command === 'string' ? ex.command : (ex.command?.value ?? '');
    return [cmd, ...(ex.args ?? []).map((a) => (typeof a === 'string' ? a : a.value))].join(' ');
  }
  if (ex instanceof vscode.ProcessExecution) return [ex.process, ...ex.args].join(' ');
  const def = task.definition as { type?: string; script?: string };
  if (def.type === 'npm' && def.script) return `npm run ${def.script}`;
  return task.name;
}

interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: { readonly HEAD?: { readonly name?: string; readonly commit?: string }; readonly onDidChange: vscode.Event<void> };
}
interface GitApi {
  readonly repositories: readonly GitRepository[];
  readonly onDidOpenRepository: vscode.Event<GitRepository>;
}

/**
 * Starts capturing. Returns one disposable for everything it registered.
 * Wire it in activation once the workspace memory is open (see the issue note).
 */
export function registerEpisodeCapture(context: vscode.ExtensionContext, core: EpisodeCaptureCore): vscode.Disposable {
  const subs: vscode.Disposable[] = [];
  const root = () => core.workspace()?.root;
  const clock = clockFromEnv();
  const session = new CaptureSession<OutcomeNews>({
    workspace: () => core.workspace(),
    clock,
    options: () => core.options(),
    ...(core.refreshIndex ? { refreshIndex: (p: string[]) => core.refreshIndex!(p) } : {}),
    log: (m) => core.log.debug(m),
    afterOutcome: (ws, episode) => afterOutcome(ws, core.options(), clock, episode),
    onRecorded: (result, news) => {
      const e = result.episode;
      core.log.info(`episode #${e.id}: ${e.command ?? 'report'} → ${e.outcome.kind} ${e.outcome.status}; touched ${e.touches.filter((t) => t.sid).length} symbols`);
      for (const r of news.rules.proposed) {
        void vscode.window.showInformationMessage(`Tenure: a rule is proven by ${r.successes} attempts: ${r.text}`, 'Review the change to AGENTS.md').then((pick) => {
          if (pick) void vscode.commands.executeCommand('tenure.rules.promote', r.id);
        });
      }
      for (const r of news.rules.demotionProposed) {
        void vscode.window.showWarningMessage(`Tenure: a promoted rule keeps failing (${r.failuresSincePromotion} failures since): ${r.promotedText ?? r.text}`, 'Review demotion').then((pick) => {
          if (pick) void vscode.commands.executeCommand('tenure.rules.demote', r.id);
        });
      }
      core.onRecorded?.(result, news);
    },
  });

  // Terminal commands: output is read from the start event, the outcome comes with the end event.
  const running = new Map<vscode.TerminalShellExecution, { startedAt: number; output: string[]; size: number }>();
  if (typeof vscode.window.onDidStartTerminalShellExecution === 'function') {
    subs.push(
      vscode.window.onDidStartTerminalShellExecution((e) => {
        const entry = { startedAt: Date.now(), output: [] as string[], size: 0 };
        running.set(e.execution, entry);
        void (async () => {
          try {
            for await (const chunk of e.execution.read()) {
              entry.output.push(chunk);
              entry.size += chunk.length;
              while (entry.size > MAX_OUTPUT && entry.output.length > 1) entry.size -= entry.output.shift()!.length;
            }
          } catch {
            // the stream ends with the command; an error only loses the evidence excerpt
          }
        })();
      }),
      vscode.window.onDidEndTerminalShellExecution((e) => {
        const entry = running.get(e.execution);
        running.delete(e.execution);
        const command = e.execution.commandLine.value;
        // A command line VS Code is not sure of (typed without shell integration's help) is not worth a guess.
        if (e.execution.commandLine.confidence === vscode.TerminalShellExecutionCommandLineConfidence.Low) return;
        void session.commandEnded({
          command,
          cwd: e.execution.cwd?.fsPath ?? root(),
          startedAt: entry?.startedAt ?? Date.now(),
          endedAt: Date.now(),
          exitCode: e.exitCode,
          output: entry?.output.join('') ?? '',
          source: 'terminal',
        });
      }),
    );
  } else {
    core.log.warn('This VS Code has no terminal shell integration API: terminal commands are not recorded as episodes.');
  }

  // Tasks: the group (build, test) says what they are.
  const taskStarts = new Map<vscode.TaskExecution, number>();
  subs.push(
    vscode.tasks.onDidStartTaskProcess((e) => taskStarts.set(e.execution, Date.now())),
    vscode.tasks.onDidEndTaskProcess((e) => {
      const task = e.execution.task;
      const startedAt = taskStarts.get(e.execution) ?? Date.now();
      taskStarts.delete(e.execution);
      const scope = task.scope && typeof task.scope === 'object' ? task.scope.uri.fsPath : root();
      const kind = groupKind(task);
      void session.commandEnded({
        command: taskCommandLine(task),
        cwd: scope,
        startedAt,
        endedAt: Date.now(),
        exitCode: e.exitCode,
        source: 'task',
        ...(kind ? { kind } : {}),
      });
    }),
  );

  // Edits: the lines an editor changed, used to find touched symbols where there is no git to diff against.
  subs.push(
    vscode.workspace.onDidChangeTextDocument((e) => {
      const r = root();
      if (!r || e.document.uri.scheme !== 'file' || !e.contentChanges.length) return;
      const rel = path.relative(r, e.document.uri.fsPath);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return;
      const lines: number[] = [];
      for (const c of e.contentChanges) {
        const added = c.text.split('\n').length - 1;
        for (let l = c.range.start.line; l <= c.range.start.line + added; l++) lines.push(l + 1);
      }
      session.noteEdit(rel.split(path.sep).join('/'), lines);
    }),
  );

  // Commits: the built-in git extension tells when HEAD moves.
  const watchRepo = (repo: GitRepository) => {
    let head = repo.state.HEAD;
    subs.push(
      repo.state.onDidChange(() => {
        const next = repo.state.HEAD;
        const moved = next?.commit && next.commit !== head?.commit;
        const sameBranch = next?.name === head?.name;
        const prev = head;
        head = next ? { ...next } : undefined;
        if (!moved) return;
        if (!sameBranch) {
          core.log.info(`branch switch ${prev?.name ?? '?'} → ${next?.name ?? 'detached'}: later attempts are measured from the new HEAD`);
          return;
        }
        void session.commitAdded(next!.commit!);
      }),
    );
  };
  try {
    const gitExt = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
    if (gitExt) {
      void Promise.resolve(gitExt.isActive ? gitExt.exports : gitExt.activate()).then(
        (exports) => {
          const api = exports.getAPI(1);
          for (const repo of api.repositories) watchRepo(repo);
          subs.push(api.onDidOpenRepository(watchRepo));
        },
        (e: unknown) => core.log.warn(`git extension unavailable: commits are not recorded (${e instanceof Error ? e.message : String(e)})`),
      );
    }
  } catch (e) {
    core.log.warn(`git extension unavailable: commits are not recorded (${e instanceof Error ? e.message : String(e)})`);
  }

  // JUnit reports written by runners the terminal does not see (the Testing view, watch modes).
  const watchReports = () => {
    const r = root();
    if (!r) return [];
    return core.options().junitGlobs.map((glob) => {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(r), glob), false, false, true);
      const pending = new Map<string, NodeJS.Timeout>();
      const onReport = (uri: vscode.Uri) => {
        clearTimeout(pending.get(uri.fsPath));
        // Runners write reports in pieces: wait for quiet before reading.
        pending.set(
          uri.fsPath,
          setTimeout(() => {
            pending.delete(uri.fsPath);
            void session.reportWritten(uri.fsPath);
          }, 3000),
        );
      };
      return vscode.Disposable.from(w, w.onDidCreate(onReport), w.onDidChange(onReport), { dispose: () => pending.forEach((t) => clearTimeout(t)) });
    });
  };
  let reportWatchers = watchReports();
  subs.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('tenure.episodes.junitGlobs')) return;
      reportWatchers.forEach((d) => d.dispose());
      reportWatchers = watchReports();
    }),
    { dispose: () => reportWatchers.forEach((d) => d.dispose()) },
  );

  const all = vscode.Disposable.from(...subs, { dispose: () => void session.idle() });
  context.subscriptions.push(all);
  return all;
}

/**
 * CI check runs and pull-request reviews for the current branch, read with
 * the user's GitHub sign-in (asked for here, from a user action: register
 * this behind a command such as `tenure.episodes.importGitHub`).
 */
export async function importGitHubOutcomes(core: EpisodeCaptureCore): Promise<void> {
  const ws = core.workspace();
  if (!ws) {
    void vscode.window.showWarningMessage('Tenure: open a folder first.');
    return;
  }
  const repo = await githubRepoOf(ws.root);
  if (!repo) {
    void vscode.window.showWarningMessage('Tenure: the origin remote of this folder is not on GitHub.');
    return;
  }
  const session = await vscode.authentication.getSession('github', ['repo'], { createIfNone: true });
  const info = await repoInfo(ws.root);
  const clock = clockFromEnv();
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Tenure: reading CI and reviews from ${repo.owner}/${repo.name}` }, async () => {
    const bundles = await fetchGitHubOutcomes({ token: session.accessToken, owner: repo.owner, repo: repo.name, branch: info?.branch ?? null, sha: info?.head ?? null });
    const r = await new GitHubImporter(ws, clock).importJson(bundles, `${repo.owner}/${repo.name}`);
    const news = await afterOutcome(ws, core.options(), clock);
    core.log.info(`GitHub: ${r.imported} outcomes recorded, ${r.skipped} already recorded or undecided`);
    const proposed = news.rules.proposed.length ? ` ${news.rules.proposed.length} rule(s) are now proposed for AGENTS.md.` : '';
    void vscode.window.showInformationMessage(`Tenure: recorded ${r.imported} CI and review outcome${r.imported === 1 ? '' : 's'} from GitHub.${proposed}`);
    if (r.imported) core.onChanged?.();
  });
}
