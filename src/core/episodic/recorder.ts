import * as fs from 'node:fs';
import * as path from 'node:path';
import { TenureError } from '../../shared/errors.js';
import { resolveSymbols } from '../structural/lookup.js';
import type { Workspace } from '../store/workspace.js';
import { classifyCommand, loadProjectCommands, type Classification } from './classify.js';
import { describeAge, type Clock } from './clock.js';
import { diffStat } from './diff.js';
import { commitDiff, commitSubject, repoInfo } from './git.js';
import { findReports, readReports, type ReportStates } from './junit.js';
import type { Actor, AuthorKind, CaptureSource, CommandKind, NewEpisode, OutcomeKind, OutcomeSource, OutcomeStatus, TestSummary, Touch } from './model.js';
import type { MemoryOptions } from './options.js';
import { hasEpisode, insertConclusion, insertEpisode, latestEpisode, loadEpisodes, type StoredEpisode } from './store.js';
import { symbolsInFiles, touchesFor } from './touches.js';
import { ANY, changesSince, currentTree, saveSnapshot, type ChangesSinceLastOutcome, type CurrentTree, type FileChange } from './worktree.js';
import { readWorkspaceText } from '../repo/read.js';

/*
 * Turns what happened into episodes: a command and its exit code, the test
 * reports it wrote, the symbols changed since the last outcome. Shared by
 * `tenure run`, `tenure import junit`, the VS Code capture and the
 * record_conclusion tool, so every front door records the same way.
 */

export interface RecorderDeps {
  readonly workspace: Workspace;
  readonly clock: Clock;
  readonly options: MemoryOptions;
  /** Brings the structural index up to date for these files (absolute paths) before their symbols are read. */
  readonly refreshIndex?: (absPaths: string[]) => Promise<void>;
}

export interface CommandAttempt {
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: number;
  readonly endedAt: number;
  /** null when the process was killed by a signal or the exit code is unknown. */
  readonly exitCode: number | null;
  readonly signal?: string | null;
  readonly source: CaptureSource;
  readonly actor?: Actor | null;
  readonly intent?: string | null;
  /** Overrides the classification (a VS Code task's group, `--kind`). */
  readonly kind?: CommandKind;
  /** The tail of the command's output, for the evidence excerpt. */
  readonly output?: string;
  /** Reports named explicitly; otherwise the configured globs are searched for reports written during the run. */
  readonly junitFiles?: readonly string[];
  readonly searchReports?: boolean;
  /**
   * The reports as they were before the command ran (reportStates): only
   * those new or changed since are the command's. Without it, those written
   * since `startedAt` (see findReports).
   */
  readonly reportsBefore?: ReportStates;
  /** Files an editor saw change, used when the workspace is not a git repository. */
  readonly editedFiles?: readonly FileChange[];
  /** Tenure was stopped before it saw the command end (run journal): the outcome is unknown. */
  readonly interrupted?: { readonly why: string };
}

export interface RecordResult {
  readonly episode: StoredEpisode;
  readonly classification: Classification | null;
  /** What the recording could not see or had to skip, in words. */
  readonly notes: readonly string[];
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** A short excerpt a person can check: failing tests first, else the error lines near the end of the output. */
export function evidenceFrom(output: string | undefined, tests: TestSummary | null, status: OutcomeStatus): string | null {
  const parts: string[] = [];
  if (tests && tests.failing.length) {
    const short = (m: string) => {
      const line = m.split('\n')[0]!.trim();
      return line.length > 140 ? `${line.slice(0, 139)}…` : line;
    };
    const names = tests.failing.slice(0, 5).map((f) => `${f.suite ? `${f.suite} › ` : ''}${f.name}${f.message ? ` — ${short(f.message)}` : ''}`);
    parts.push(`${tests.failing.length} of ${tests.total} tests failed: ${names.join('; ')}${tests.failing.length > 5 ? '; …' : ''}`);
  }
  // The failing tests are the evidence when a report names them; otherwise the error lines of the output.
  if (output && status !== 'success' && !tests?.failing.length) {
    const lines = output.replace(ANSI, '').split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim()).slice(-300);
    const errorish = lines.filter((l) => /\b(error|errors|fail(ed|ure|ing)?|exception|cannot|can't|not found|undefined|expected|assert|panic|fatal|denied|ERR!)\b|✗|✖|×/i.test(l));
    const chosen = (errorish.length ? errorish.slice(0, 12) : lines.slice(-6)).join('\n');
    if (chosen) parts.push(chosen.length > 1500 ? chosen.slice(0, 1499) + '…' : chosen);
  }
  return parts.join('\n') || null;
}

/**
 * Which earlier outcome an attempt is measured from. Tests, builds and lint
 * are verdicts on the code: each answers for everything changed since the
 * previous verdict of its kind. Generating and other commands are actions:
 * they answer for what changed just before them.
 */
function windowKey(kind: CommandKind): string {
  return kind === 'test' || kind === 'build' || kind === 'lint' ? kind : ANY;
}

export class EpisodeRecorder {
  constructor(private readonly deps: RecorderDeps) {}

  private get db() {
    return this.deps.workspace.db;
  }

  /**
   * What this attempt touched: everything changed since the previous outcome
   * of the same kind (a test run answers for all edits since the last test
   * run, including those made before a generator ran), each touch marked
   * fresh when it changed since the previous outcome of any kind.
   */
  private async touches(extra: readonly FileChange[] | undefined, kind: string): Promise<{ tree: CurrentTree; window: ChangesSinceLastOutcome; touches: Touch[]; notes: string[] }> {
    const root = this.deps.workspace.root;
    const notes: string[] = [];
    const tree = await currentTree(root);
    let window = await changesSince(this.db, root, tree, kind);
    let fresh = await changesSince(this.db, root, tree, ANY);
    if (!tree.repo && extra?.length) {
      window = { ...window, changes: extra, basis: 'files saved in the editor since the last outcome (not a git repository)' };
      fresh = window;
    }
    if (!tree.repo && !extra?.length) notes.push('not a git repository: the symbols this attempt touched are unknown');
    const paths = [...new Set([...window.changes, ...fresh.changes].map((c) => c.path))];
    const indexed = (await this.db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? 0;
    if (!indexed && paths.length) notes.push('the workspace is not indexed (run `tenure index`): touches are recorded as files, not symbols');
    const before = await symbolsInFiles(this.db, paths);
    const stale = indexed && this.deps.refreshIndex ? await this.staleInIndex(paths) : [];
    if (stale.length && this.deps.refreshIndex) {
      try {
        await this.deps.refreshIndex(stale.map((p) => path.join(root, p)));
      } catch (e) {
        notes.push(`could not bring the index up to date for the changed files (${e instanceof Error ? e.message : String(e)}): symbol lines may be stale`);
      }
    }
    const after = indexed ? await symbolsInFiles(this.db, paths) : new Map();
    const touches = await touchesFor(this.db, root, window.changes, fresh.changes, before, after);
    return { tree, window, touches, notes };
  }

  /** Changed files the index has not seen as they are now (a watcher or the editor may have re-indexed them already). */
  private async staleInIndex(paths: readonly string[]): Promise<string[]> {
    const rows = await this.db.all<{ path: string; size: number; mtime_ms: number }>('SELECT path, size, mtime_ms FROM files WHERE path IN (SELECT value FROM json_each(?))', [JSON.stringify(paths)]);
    const known = new Map(rows.map((r) => [r.path, r]));
    return paths.filter((p) => {
      const k = known.get(p);
      let st: fs.Stats;
      try {
        st = fs.statSync(path.join(this.deps.workspace.root, p));
      } catch {
        return !!k; // deleted: the index must drop it
      }
      return !k || k.size !== st.size || k.mtime_ms !== Math.floor(st.mtimeMs);
    });
  }

  /** Records one command run: its exit code, the reports it wrote, what it was run on. */
  async recordCommand(a: CommandAttempt): Promise<RecordResult> {
    const root = this.deps.workspace.root;
    const classification = classifyCommand(a.command, loadProjectCommands(a.cwd && a.cwd !== root ? a.cwd : root), this.deps.options.commandPatterns);
    const kind: CommandKind = a.kind ?? classification.kind;
    const notes: string[] = [];

    let tests: TestSummary | null = null;
    const reportFiles = a.junitFiles?.length
      ? [...a.junitFiles]
      : a.searchReports !== false && (kind === 'test' || kind === 'build' || kind === 'other')
        ? findReports(root, this.deps.options.junitGlobs, a.startedAt, a.reportsBefore)
        : [];
    if (reportFiles.length) {
      const r = readReports(root, reportFiles);
      tests = r.summary;
      notes.push(...r.notes);
    }

    const cancelled = a.signal === 'SIGINT' || a.signal === 'SIGTERM' || a.exitCode === 130 || a.exitCode === 143;
    let status: OutcomeStatus = a.interrupted ? 'interrupted' : cancelled ? 'cancelled' : a.exitCode === 0 ? 'success' : 'failure';
    if (status === 'success' && tests && tests.failed + tests.errors > 0) {
      status = 'failure';
      notes.push(`the command exited 0 but its test reports list ${tests.failed + tests.errors} failing tests: recorded as a failure`);
    }
    const t = await this.touches(a.editedFiles, windowKey(kind));
    notes.push(...t.notes);
    const stat = diffStat(t.window.changes.flatMap((c) => c.hunks));
    const evidence = a.interrupted ? a.interrupted.why : evidenceFrom(a.output, tests, status);
    const episode: NewEpisode = {
      startedAt: a.startedAt,
      endedAt: a.endedAt,
      source: a.source,
      actor: a.actor ?? null,
      intent: a.intent ?? null,
      command: a.command,
      commandKind: kind,
      cwd: path.relative(root, a.cwd).split(path.sep).join('/') || '.',
      branch: t.tree.repo?.branch ?? null,
      head: t.tree.repo?.head ?? null,
      commitMessage: null,
      diff: { files: t.window.changes.length, added: stat.added, removed: stat.removed },
      touchBasis: t.window.basis,
      touches: t.touches,
      outcome: { kind: kind as OutcomeKind, status, source: 'build-system', confidence: 'high', exitCode: a.exitCode, evidence },
      tests,
    };
    // Only a decided outcome moves the snapshots: a cancelled or interrupted run's changes belong to the next outcome.
    const id = await this.write(episode, classification.key, status !== 'cancelled' && status !== 'interrupted' ? { tree: t.tree, kind: windowKey(kind) } : null);
    return { episode: (await loadEpisodes(this.db, [id]))[0]!, classification, notes };
  }

  /** Records a test report (a CI artifact, a run outside `tenure run`) as the outcome of the changes since the last one. */
  async recordTestReports(files: readonly string[], opts: { command?: string | null; intent?: string | null; at?: number; diff?: boolean; source?: CaptureSource; outcomeSource?: OutcomeSource } = {}): Promise<RecordResult> {
    const root = this.deps.workspace.root;
    const r = readReports(root, files);
    if (!r.summary) throw new TenureError('invalid-input', `No JUnit report could be read: ${r.notes.join('; ') || files.join(', ')}`);
    const tests = r.summary;
    const status: OutcomeStatus = tests.failed + tests.errors > 0 ? 'failure' : 'success';
    const useDiff = opts.diff !== false;
    const t = useDiff ? await this.touches(undefined, 'test') : null;
    const at = opts.at ?? this.deps.clock.now();
    const stat = t ? diffStat(t.window.changes.flatMap((c) => c.hunks)) : { added: 0, removed: 0 };
    const episode: NewEpisode = {
      startedAt: at,
      endedAt: at,
      source: opts.source ?? 'junit',
      actor: null,
      intent: opts.intent ?? null,
      command: opts.command ?? null,
      commandKind: 'test',
      cwd: '.',
      branch: t?.tree.repo?.branch ?? null,
      head: t?.tree.repo?.head ?? null,
      commitMessage: null,
      diff: { files: t?.window.changes.length ?? 0, added: stat.added, removed: stat.removed },
      touchBasis: t ? t.window.basis : 'not compared with the working tree (--no-diff)',
      touches: t?.touches ?? [],
      outcome: { kind: 'test', status, source: opts.outcomeSource ?? 'test-report', confidence: 'high', exitCode: null, evidence: evidenceFrom(undefined, tests, status) },
      tests,
    };
    const key = opts.command ? classifyCommand(opts.command).key : null;
    const id = await this.write(episode, key, t ? { tree: t.tree, kind: 'test' } : null);
    return { episode: (await loadEpisodes(this.db, [id]))[0]!, classification: null, notes: [...r.notes, ...(t?.notes ?? [])] };
  }

  /**
   * A commit, as an event on the timeline (not an outcome: nothing judged
   * it), charged with the symbols its diff touched. Recorded once per sha.
   */
  async recordCommit(sha: string, opts: { at?: number; actor?: Actor | null } = {}): Promise<RecordResult | null> {
    const uid = `commit:${sha}`;
    if (await hasEpisode(this.db, { uid })) return null;
    const root = this.deps.workspace.root;
    const repo = await repoInfo(root);
    if (!repo) return null;
    const files = await commitDiff(root, repo, sha);
    const changes: FileChange[] = files.map((f) => {
      let newText: string | null = null;
      try {
        if (f.change !== 'deleted') newText = readWorkspaceText(root, path.join(root, f.path)) ?? null;
      } catch {
        newText = null;
      }
      return { path: f.path, change: f.change, hunks: f.hunks, newText, binary: false };
    });
    const paths = changes.map((c) => c.path);
    const symbols = await symbolsInFiles(this.db, paths);
    const touches = await touchesFor(this.db, root, changes, changes, symbols, symbols);
    const at = opts.at ?? this.deps.clock.now();
    const stat = diffStat(changes.flatMap((c) => c.hunks));
    const episode: NewEpisode = {
      uid,
      startedAt: at,
      endedAt: at,
      source: 'git',
      actor: opts.actor ?? null,
      intent: null,
      command: null,
      commandKind: null,
      cwd: '.',
      branch: repo.branch,
      head: sha,
      commitMessage: await commitSubject(root, sha),
      diff: { files: changes.length, added: stat.added, removed: stat.removed },
      touchBasis: `the diff of commit ${sha.slice(0, 7)}`,
      touches,
      outcome: { kind: 'commit', status: 'recorded', source: 'git', confidence: 'high', exitCode: null, evidence: null },
      tests: null,
    };
    const id = await this.write(episode, null, null);
    return { episode: (await loadEpisodes(this.db, [id]))[0]!, classification: null, notes: [] };
  }

  private async write(episode: NewEpisode, commandKey: string | null, snapshot: { tree: CurrentTree; kind: string } | null): Promise<number> {
    const now = this.deps.clock.now();
    return this.db.write(async (db) => {
      const { id } = await insertEpisode(db, episode, commandKey, now);
      // The snapshots move only with a decided outcome: a cancelled run's changes belong to the next outcome.
      if (snapshot?.tree.repo) {
        await saveSnapshot(db, ANY, snapshot.tree.snapshot, now);
        if (snapshot.kind !== ANY) await saveSnapshot(db, snapshot.kind, snapshot.tree.snapshot, now);
      }
      return id;
    });
  }

  /**
   * Records an agent's or person's conclusion: never an outcome, always at
   * the configured (low, for an agent) confidence, decaying from now on.
   */
  async recordConclusion(c: { text: string; author?: string; authorKind: AuthorKind; symbols?: readonly string[]; episodeId?: number | null }): Promise<{ id: number; episodeId: number | null; confidence: number; halfLifeDays: number; symbols: { sid: string | null; qname: string | null; path: string | null }[]; notes: string[] }> {
    const text = c.text.trim();
    if (!text) throw new TenureError('invalid-input', 'A conclusion needs text: what you concluded, in one or two sentences.');
    if (text.length > 2000) throw new TenureError('invalid-input', 'A conclusion is at most 2000 characters: keep it to what you learned.');
    const now = this.deps.clock.now();
    const o = this.deps.options;
    const notes: string[] = [];
    let episodeId: number | null = null;
    if (c.episodeId !== undefined && c.episodeId !== null) {
      if (!(await hasEpisode(this.db, { id: c.episodeId }))) throw new TenureError('invalid-input', `There is no episode #${c.episodeId}. Omit the episode to attach to the latest one, or list episodes with \`tenure history <symbol>\`.`);
      episodeId = c.episodeId;
    } else {
      const last = await latestEpisode(this.db);
      if (last && now - last.ended_at <= o.conclusionAttachMinutes * 60_000) {
        episodeId = last.id;
        notes.push(`attached to episode #${last.id} (${last.command ?? 'no command'}, ${last.outcome_status}, ${describeAge(now - last.ended_at)})`);
      }
    }
    const symbols: { sid: string | null; qname: string | null; path: string | null }[] = [];
    for (const s of c.symbols ?? []) {
      try {
        const found = await resolveSymbols(this.db, s, { root: this.deps.workspace.root });
        if (found.length > 1) notes.push(`"${s}" matches ${found.length} symbols; the conclusion is linked to all of them`);
        for (const f of found) symbols.push({ sid: f.sid, qname: f.qname, path: f.path });
      } catch (e) {
        if (!TenureError.is(e, 'symbol-not-found') && !TenureError.is(e, 'not-indexed')) throw e;
        notes.push(`"${s}" is not a symbol in the index: kept as text, linked to nothing`);
        symbols.push({ sid: null, qname: s, path: null });
      }
    }
    if (!symbols.length && episodeId !== null) {
      const [ep] = await loadEpisodes(this.db, [episodeId]);
      for (const t of ep?.touches ?? []) if (t.sid && t.change !== 'deleted') symbols.push({ sid: t.sid, qname: t.qname, path: t.path });
    }
    const person = c.authorKind === 'person';
    const confidence = person ? o.personConclusionConfidence : o.agentConclusionConfidence;
    const halfLifeDays = person ? o.personConclusionHalfLifeDays : o.conclusionHalfLifeDays;
    const { id } = await this.db.write((db) =>
      insertConclusion(db, { episodeId, at: now, author: c.author ?? (person ? 'person' : 'agent'), authorKind: c.authorKind, text, confidence, halfLifeDays, symbols }),
    );
    return { id, episodeId, confidence, halfLifeDays, symbols, notes };
  }
}
