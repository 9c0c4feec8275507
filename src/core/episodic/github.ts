import * as path from 'node:path';
import { gitHubClient, repoPath } from '../repo/github.js';
import type { Workspace } from '../store/workspace.js';
import type { Clock } from './clock.js';
import { diffStat } from './diff.js';
import { commitDiff, repoInfo } from './git.js';
import type { Actor, NewEpisode, OutcomeStatus } from './model.js';
import { insertEpisode } from './store.js';
import { symbolsInFiles, touchesFor } from './touches.js';
import type { FileChange } from './worktree.js';
import { readWorkspaceText } from '../repo/read.js';

/*
 * Outcomes decided on GitHub: CI check runs and pull-request reviews
 * (changes requested, closed unmerged, merged). Read from the REST API with
 * the user's token (VS Code's GitHub sign-in, or GITHUB_TOKEN on the command
 * line), or from JSON exports in the same shapes. Each becomes an episode
 * whose outcome the reviewer or the CI system decided: high confidence.
 */

interface GhUser {
  login?: string;
  type?: string;
}
interface GhPull {
  number: number;
  title?: string;
  state?: string;
  merged_at?: string | null;
  closed_at?: string | null;
  created_at?: string;
  user?: GhUser;
  head?: { ref?: string; sha?: string };
  html_url?: string;
}
interface GhReview {
  id: number;
  state?: string;
  body?: string | null;
  user?: GhUser;
  submitted_at?: string;
}
interface GhFile {
  filename: string;
  status?: string;
  patch?: string;
}
interface GhCheckRun {
  id: number;
  name?: string;
  status?: string;
  conclusion?: string | null;
  head_sha?: string;
  completed_at?: string | null;
  started_at?: string | null;
  html_url?: string;
  output?: { title?: string | null; summary?: string | null };
}

/** One pull request with what was said about it (the export shape the knowledge memory reads too). */
export interface PullBundle {
  readonly pull: GhPull;
  readonly reviews?: readonly GhReview[];
  readonly files?: readonly GhFile[];
  readonly review_comments?: readonly { path?: string }[];
}

export interface GitHubImportReport {
  readonly imported: number;
  readonly skipped: number;
  readonly notes: readonly string[];
}

function actorOf(u: GhUser | undefined): Actor | null {
  if (!u) return null;
  return u.type === 'Bot' || /copilot|\[bot\]|-agent$/i.test(u.login ?? '') ? 'agent' : 'person';
}

function firstLines(text: string | null | undefined, n = 3, max = 600): string {
  const t = (text ?? '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean).slice(0, n).join(' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Hunks of a GitHub file patch (unified diff without headers). */
function patchHunks(patch: string | undefined): FileChange['hunks'] {
  const out: { oldStart: number; oldLines: number; newStart: number; newLines: number }[] = [];
  for (const m of (patch ?? '').matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    const oldLines = m[2] === undefined ? 1 : Number(m[2]);
    const newLines = m[4] === undefined ? 1 : Number(m[4]);
    out.push({ oldStart: Number(m[1]) + (oldLines === 0 ? 1 : 0), oldLines, newStart: Number(m[3]) + (newLines === 0 ? 1 : 0), newLines });
  }
  return out;
}

/** The decided outcomes of one pull request: changes requested (each time), closed unmerged, merged. */
function pullOutcomes(b: PullBundle): { uid: string; at: number; status: OutcomeStatus; evidence: string }[] {
  const p = b.pull;
  const out: { uid: string; at: number; status: OutcomeStatus; evidence: string }[] = [];
  for (const r of b.reviews ?? []) {
    if (r.state !== 'CHANGES_REQUESTED' || !r.submitted_at) continue;
    out.push({ uid: `gh:pr:${p.number}:changes-requested:${r.id}`, at: Date.parse(r.submitted_at), status: 'rejected', evidence: `PR #${p.number} changes requested by ${r.user?.login ?? 'a reviewer'}${r.body ? `: "${firstLines(r.body)}"` : ''}` });
  }
  if (p.merged_at) out.push({ uid: `gh:pr:${p.number}:merged`, at: Date.parse(p.merged_at), status: 'success', evidence: `PR #${p.number} merged` });
  else if (p.state === 'closed' && p.closed_at) out.push({ uid: `gh:pr:${p.number}:closed`, at: Date.parse(p.closed_at), status: 'rejected', evidence: `PR #${p.number} closed unmerged` });
  return out;
}

function checkStatus(c: GhCheckRun): OutcomeStatus | null {
  if (c.status !== 'completed') return null;
  switch (c.conclusion) {
    case 'success':
      return 'success';
    case 'failure':
    case 'timed_out':
    case 'action_required':
    case 'startup_failure':
      return 'failure';
    case 'cancelled':
      return 'cancelled';
    default:
      return null; // neutral, skipped, stale: nothing was decided
  }
}

export class GitHubImporter {
  constructor(
    private readonly ws: Workspace,
    private readonly clock: Clock,
  ) {}

  private async exists(uid: string): Promise<boolean> {
    return !!(await this.ws.db.get('SELECT 1 FROM episodes WHERE uid = ?', [uid]));
  }

  private async touches(files: readonly { path: string; change: FileChange['change']; hunks: FileChange['hunks'] }[]): Promise<{ touches: NewEpisode['touches']; changes: FileChange[] }> {
    const root = this.ws.root;
    const changes: FileChange[] = files.map((f) => {
      let newText: string | null = null;
      try {
        if (f.change !== 'deleted') newText = readWorkspaceText(root, path.join(root, f.path)) ?? null;
      } catch {
        newText = null;
      }
      return { ...f, newText, binary: false };
    });
    const symbols = await symbolsInFiles(this.ws.db, changes.map((c) => c.path));
    return { touches: await touchesFor(this.ws.db, root, changes, changes, symbols, symbols), changes };
  }

  private touchesFromFiles(files: readonly GhFile[]) {
    return this.touches(files.map((f) => ({ path: f.filename, change: f.status === 'removed' ? 'deleted' : f.status === 'added' ? 'added' : 'modified', hunks: patchHunks(f.patch) })));
  }

  private async touchesFromCommit(sha: string | undefined) {
    const repo = sha ? await repoInfo(this.ws.root) : null;
    if (!repo || !sha) return { touches: [], changes: [] };
    return this.touches(await commitDiff(this.ws.root, repo, sha));
  }

  async importPull(b: PullBundle): Promise<{ imported: number; skipped: number }> {
    let imported = 0;
    let skipped = 0;
    const outcomes = pullOutcomes(b);
    if (!outcomes.length) return { imported, skipped };
    const files = b.files?.length ? b.files : [...new Set((b.review_comments ?? []).map((c) => c.path).filter((p): p is string => !!p))].map((filename) => ({ filename }));
    const { touches, changes } = await this.touchesFromFiles(files);
    const stat = diffStat(changes.flatMap((c) => c.hunks));
    for (const o of outcomes) {
      if (await this.exists(o.uid)) {
        skipped++;
        continue;
      }
      const p = b.pull;
      const ep: NewEpisode = {
        uid: o.uid,
        startedAt: o.at,
        endedAt: o.at,
        source: 'github',
        actor: actorOf(p.user),
        intent: p.title ?? null,
        command: null,
        commandKind: null,
        cwd: '.',
        branch: p.head?.ref ?? null,
        head: p.head?.sha ?? null,
        commitMessage: `PR #${p.number}: ${p.title ?? ''}`.trim(),
        diff: { files: changes.length, added: stat.added, removed: stat.removed },
        touchBasis: b.files?.length ? `the files of PR #${p.number}` : `the files reviewers commented on in PR #${p.number}`,
        touches,
        outcome: { kind: 'review', status: o.status, source: 'review', confidence: 'high', exitCode: null, evidence: `${o.evidence}${p.html_url ? ` (${p.html_url})` : ''}` },
        tests: null,
      };
      await this.ws.db.write((db) => insertEpisode(db, ep, null, this.clock.now()));
      imported++;
    }
    return { imported, skipped };
  }

  async importCheckRuns(runs: readonly GhCheckRun[]): Promise<{ imported: number; skipped: number }> {
    let imported = 0;
    let skipped = 0;
    for (const c of runs) {
      const status = checkStatus(c);
      const uid = `gh:check:${c.id}`;
      if (!status || (await this.exists(uid))) {
        skipped++;
        continue;
      }
      const { touches, changes } = await this.touchesFromCommit(c.head_sha);
      const stat = diffStat(changes.flatMap((x) => x.hunks));
      const end = Date.parse(c.completed_at ?? '') || this.clock.now();
      const ep: NewEpisode = {
        uid,
        startedAt: Date.parse(c.started_at ?? '') || end,
        endedAt: end,
        source: 'github',
        actor: 'ci',
        intent: null,
        command: c.name ?? 'check run',
        commandKind: null,
        cwd: '.',
        branch: null,
        head: c.head_sha ?? null,
        commitMessage: null,
        diff: { files: changes.length, added: stat.added, removed: stat.removed },
        touchBasis: c.head_sha ? `the diff of commit ${c.head_sha.slice(0, 7)}` : 'unknown',
        touches,
        outcome: {
          kind: 'ci',
          status,
          source: 'ci',
          confidence: 'high',
          exitCode: null,
          evidence: [`check "${c.name ?? c.id}" ${c.conclusion}`, firstLines(c.output?.title, 1), firstLines(c.output?.summary)].filter(Boolean).join(' — ') + (c.html_url ? ` (${c.html_url})` : ''),
        },
        tests: null,
      };
      await this.ws.db.write((db) => insertEpisode(db, ep, null, this.clock.now()));
      imported++;
    }
    return { imported, skipped };
  }

  /** Any of: a pull bundle, an array of them, a check-runs response (`{ check_runs }`), or an array of check runs. */
  async importJson(value: unknown, label: string): Promise<GitHubImportReport> {
    const items = Array.isArray(value) ? value : [value];
    let imported = 0;
    let skipped = 0;
    const notes: string[] = [];
    const runs: GhCheckRun[] = [];
    for (const item of items as Record<string, unknown>[]) {
      if (item && typeof item === 'object' && 'pull' in item) {
        const r = await this.importPull(item as unknown as PullBundle);
        imported += r.imported;
        skipped += r.skipped;
      } else if (item && typeof item === 'object' && Array.isArray(item['check_runs'])) runs.push(...(item['check_runs'] as GhCheckRun[]));
      else if (item && typeof item === 'object' && typeof item['id'] === 'number' && 'conclusion' in item) runs.push(item as unknown as GhCheckRun);
      else notes.push(`${label}: an item that is neither a pull request bundle ({ pull, reviews, files }) nor a check run was skipped`);
    }
    const r = await this.importCheckRuns(runs);
    return { imported: imported + r.imported, skipped: skipped + r.skipped, notes };
  }
}

export interface FetchOptions {
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  /** The branch whose pull requests to read, and the commit whose check runs to read. */
  readonly branch: string | null;
  readonly sha: string | null;
  readonly apiBase?: string;
  readonly fetchImpl?: typeof fetch;
}

/** Reads check runs for a commit and the pull requests of a branch (with reviews and files) from the REST API. */
export async function fetchGitHubOutcomes(o: FetchOptions): Promise<unknown[]> {
  const gh = gitHubClient({ token: o.token, ...(o.apiBase ? { apiBase: o.apiBase } : {}), ...(o.fetchImpl ? { fetch: o.fetchImpl } : {}) });
  const repo = repoPath({ owner: o.owner, name: o.repo });
  const out: unknown[] = [];
  if (o.sha) out.push(await gh.get(`${repo}/commits/${o.sha}/check-runs?per_page=100`));
  if (o.branch) {
    const pulls = (await gh.get(`${repo}/pulls?state=all&per_page=30&head=${encodeURIComponent(`${o.owner}:${o.branch}`)}`)) as GhPull[];
    for (const pull of pulls) {
      const [reviews, files] = await Promise.all([gh.get(`${repo}/pulls/${pull.number}/reviews?per_page=100`), gh.get(`${repo}/pulls/${pull.number}/files?per_page=100`)]);
      out.push({ pull, reviews, files });
    }
  }
  return out;
}
