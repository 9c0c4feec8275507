import type { Workspace } from '../store/workspace.js';
import { classifyCommand, loadProjectCommands } from './classify.js';
import type { Clock } from './clock.js';
import type { CommandKind } from './model.js';
import type { MemoryOptions } from './options.js';
import { EpisodeRecorder, type CommandAttempt, type RecordResult } from './recorder.js';
import type { FileChange } from './worktree.js';

/*
 * Live capture for a front door that sees commands as they happen (the VS
 * Code extension: terminal shell integration, tasks, saves, test reports).
 * It decides what is worth an episode — build, test, lint and generate
 * commands; other commands only when asked; never `cd`, `ls`, `git status`,
 * never a `tenure run` (which records itself) — records one attempt at a
 * time, and after each outcome runs the step its caller gave it (archiving
 * stale episodes and re-mining rules: src/core/procedural/afterOutcome.ts).
 */

export interface CaptureDeps<News> {
  readonly workspace: () => Workspace | undefined;
  readonly clock: Clock;
  readonly options: () => MemoryOptions;
  /** Brings the index up to date for changed files (the front door's own indexer). */
  readonly refreshIndex?: (absPaths: string[]) => Promise<void>;
  readonly log: (message: string) => void;
  /**
   * What follows each recorded outcome (no episode: a report recorded on its
   * own). The caller's, because what follows — re-mining the rules — belongs
   * to a memory built on this one.
   */
  readonly afterOutcome: (ws: Workspace, episode?: RecordResult['episode']) => Promise<News>;
  /** Told after every recorded episode, with what `afterOutcome` reported. */
  readonly onRecorded?: (result: RecordResult, news: News) => void;
}

export interface EndedCommand {
  readonly command: string;
  readonly cwd: string | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  /** undefined when the shell could not tell (no shell integration, or the command was interrupted). */
  readonly exitCode: number | undefined;
  readonly output?: string;
  readonly source: 'terminal' | 'task';
  /** A task's group, when VS Code knows it. */
  readonly kind?: CommandKind;
}

/** Why a command was not recorded, or null when it is worth an episode. */
export function skipReason(command: string, cwd: string, options: MemoryOptions, kind?: CommandKind): string | null {
  const text = command.trim();
  if (!text) return 'empty command line';
  if (/^(npx\s+)?tenure(\.js)?\s+run\b|\bdist\/cli\.js\s+run\b/.test(text)) return '`tenure run` records its own episode';
  const c = classifyCommand(text, loadProjectCommands(cwd), options.commandPatterns);
  if (c.trivial && !kind) return 'navigation or inspection command';
  if ((kind ?? c.kind) === 'other' && !options.captureOtherCommands) return 'not a build, test, lint or generate command (set tenure.episodes.captureOtherCommands to record it)';
  return null;
}

export class CaptureSession<News> {
  private queue: Promise<unknown> = Promise.resolve();
  /** Lines an editor saw change since the last outcome, per workspace-relative file: used only outside git. */
  private readonly edited = new Map<string, Set<number>>();
  /** Reports already attached to a recorded command, so the report watcher does not record them twice. */
  private readonly seenReports = new Map<string, number>();

  constructor(private readonly deps: CaptureDeps<News>) {}

  /** One recording at a time, in order; a failure is logged and never stops the next. */
  private serial<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const next = this.queue.then(fn).catch((e: unknown) => {
      this.deps.log(`Tenure could not record an episode: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
    this.queue = next;
    return next;
  }

  private recorder(ws: Workspace): EpisodeRecorder {
    return new EpisodeRecorder({ workspace: ws, clock: this.deps.clock, options: this.deps.options(), ...(this.deps.refreshIndex ? { refreshIndex: this.deps.refreshIndex } : {}) });
  }

  /** An editor change: lines touched in a file (1-based, new coordinates). */
  noteEdit(relPath: string, lines: Iterable<number>): void {
    let set = this.edited.get(relPath);
    if (!set) this.edited.set(relPath, (set = new Set()));
    for (const l of lines) set.add(l);
  }

  private editedChanges(): FileChange[] {
    return [...this.edited].map(([path, lines]) => {
      const sorted = [...lines].sort((a, b) => a - b);
      const hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number }[] = [];
      for (const l of sorted) {
        const last = hunks[hunks.length - 1];
        if (last && last.newStart + last.newLines === l) (last as { newLines: number }).newLines++;
        else hunks.push({ oldStart: l, oldLines: 0, newStart: l, newLines: 1 });
      }
      return { path, change: 'modified' as const, hunks, newText: null, binary: false };
    });
  }

  /** A command ended in a terminal or a task. Resolves with the episode, or undefined when it was not recorded. */
  commandEnded(c: EndedCommand): Promise<RecordResult | undefined> {
    return this.serial(async () => {
      const ws = this.deps.workspace();
      if (!ws) return undefined;
      const options = this.deps.options();
      const why = skipReason(c.command, c.cwd ?? ws.root, options, c.kind);
      if (why) {
        this.deps.log(`not recorded: \`${c.command.slice(0, 80)}\` — ${why}`);
        return undefined;
      }
      if (c.exitCode === undefined) {
        this.deps.log(`not recorded: \`${c.command.slice(0, 80)}\` — the shell did not report an exit code`);
        return undefined;
      }
      const attempt: CommandAttempt = {
        command: c.command,
        cwd: c.cwd ?? ws.root,
        startedAt: c.startedAt,
        endedAt: c.endedAt,
        exitCode: c.exitCode,
        source: c.source,
        ...(c.kind ? { kind: c.kind } : {}),
        ...(c.output !== undefined ? { output: c.output } : {}),
        editedFiles: this.editedChanges(),
      };
      const result = await this.recorder(ws).recordCommand(attempt);
      if (result.episode.outcome.status !== 'cancelled') this.edited.clear();
      for (const r of result.episode.tests?.reports ?? []) this.seenReports.set(r, this.deps.clock.now());
      const news = await this.deps.afterOutcome(ws, result.episode);
      this.deps.onRecorded?.(result, news);
      return result;
    });
  }

  /**
   * A JUnit report was written outside any recorded command (the Testing
   * view, an external runner): recorded as a test outcome of its own unless
   * a command episode already read it.
   */
  reportWritten(absPath: string): Promise<RecordResult | undefined> {
    return this.serial(async () => {
      const ws = this.deps.workspace();
      if (!ws) return undefined;
      const rel = absPath.startsWith(ws.root) ? absPath.slice(ws.root.length + 1).split('\\').join('/') : absPath;
      const seen = this.seenReports.get(rel);
      if (seen !== undefined && this.deps.clock.now() - seen < 5 * 60_000) return undefined;
      const result = await this.recorder(ws).recordTestReports([absPath], { command: null });
      this.seenReports.set(rel, this.deps.clock.now());
      const news = await this.deps.afterOutcome(ws);
      this.deps.onRecorded?.(result, news);
      return result;
    });
  }

  /** A commit appeared on the current branch (the git extension saw HEAD move forward): a timeline event, recorded once. */
  commitAdded(sha: string): Promise<RecordResult | null | undefined> {
    return this.serial(async () => {
      const ws = this.deps.workspace();
      if (!ws) return undefined;
      const result = await this.recorder(ws).recordCommit(sha);
      if (result) this.deps.log(`recorded commit ${sha.slice(0, 7)} as episode #${result.episode.id}`);
      return result;
    });
  }

  /** Waits for every queued recording (for tests and shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const q = this.queue;
      await q;
      if (q === this.queue) return;
    }
  }
}
