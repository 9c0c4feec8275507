import { git } from '../../repo/git.js';
import type { CommitLike } from './document.js';
import { judgeCommit } from './documents.js';
import { byCodeUnits } from '../../../shared/order.js';

/*
 * The git history of a symbol's lines: the commits that last changed each of
 * them (`git blame -w` over the symbol's range, as GitLens shows them, but
 * read for why), with their messages when they have content and the pull
 * request they came from when the message names it. Deterministic; through
 * the one git runner (src/core/repo/git.ts), which runs nothing the
 * repository configures.
 */

export interface LineCommit extends CommitLike {
  /** The lines of the range it last changed. */
  readonly lines: number;
  /** "PR #1234" when the message names the pull request it came from. */
  readonly pr?: string;
  /** Other pull requests its message links to ("as described by the [proposal]: …/pull/3364"). */
  readonly links: readonly string[];
  readonly informative: boolean;
}

/** The pull request a commit is, by its subject alone: GitHub's squash "(#123)" or a merge "Merge pull request #123". */
function ownPullRequest(subject: string): string | undefined {
  const m = /\(#(\d+)\)\s*$/.exec(subject) ?? /^Merge pull request #(\d+)\b/.exec(subject);
  return m ? `PR #${m[1]}` : undefined;
}

/** The pull request a commit message names: its own by its subject (`ownPullRequest`), else "PR #123" in its text. */
export function pullRequestOf(message: string): string | undefined {
  const own = ownPullRequest(message.split('\n')[0] ?? '');
  if (own) return own;
  const m = /\b(?:PR|pull request)\s*#(\d+)\b/i.exec(message);
  return m ? `PR #${m[1]}` : undefined;
}

/** The number of a pull request as the finder names it (`PR #3364` → `3364`). */
export function pullRequestNumber(pr: string): string | undefined {
  return /(\d+)$/.exec(pr)?.[1];
}

/** The pull requests a commit message links to by address (`https://github.com/org/repo/pull/3364`), other than its own. */
export function pullRequestsLinked(message: string, own?: string): string[] {
  const out = new Set<string>();
  for (const m of message.matchAll(/\/pull\/(\d+)(?!\d)/g)) out.add(`PR #${m[1]}`);
  if (own) out.delete(own);
  return [...out];
}

/** Commits behind lines [start, end] of a workspace file, most lines first; empty outside git or on any failure. */
export async function historyOfLines(root: string, file: string, start: number, end: number, options: { readonly timeoutMs?: number; readonly max?: number } = {}): Promise<LineCommit[]> {
  const blame = await git(root, ['blame', '-w', '--porcelain', '-L', `${start},${end}`, '--', file], { timeoutMs: options.timeoutMs ?? 8000, maxBuffer: 16 * 1024 * 1024 });
  if (blame.code !== 0) return [];
  const count = new Map<string, number>();
  for (const m of blame.stdout.matchAll(/^([0-9a-f]{40}) \d+ \d+(?: (\d+))?$/gm)) {
    const sha = m[1]!;
    if (/^0+$/.test(sha)) continue;
    count.set(sha, (count.get(sha) ?? 0) + Number(m[2] ?? 0));
  }
  const shas = [...count.keys()].slice(0, options.max ?? 12);
  if (!shas.length) return [];
  const show = await git(root, ['show', '-s', '--no-color', '--format=%H%x1f%an%x1f%aI%x1f%B%x1e', ...shas], { timeoutMs: options.timeoutMs ?? 8000 });
  if (show.code !== 0) return [];
  const out: LineCommit[] = [];
  for (const rec of show.stdout.split('\x1e')) {
    const [sha, author, date, message] = rec.replace(/^\n+/, '').split('\x1f');
    if (!sha || message === undefined) continue;
    const msg = message.trim();
    const pr = pullRequestOf(msg);
    out.push({ sha: sha.trim(), author: author ?? '', date: date ?? '', message: msg, lines: count.get(sha.trim()) ?? 0, informative: judgeCommit(msg).informative, ...(pr ? { pr } : {}), links: pullRequestsLinked(msg, pr) });
  }
  return out.sort((a, b) => b.lines - a.lines || byCodeUnits(b.date ?? '', a.date ?? ''));
}

/**
 * The files each commit changed, by full sha (`git show --name-only`, first
 * parent for a merge); a commit git cannot show, or whose change lists no
 * file, is left out (nothing is known of it). Empty outside git or on any
 * failure.
 */
export async function filesOfCommits(root: string, shas: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const valid = shas.filter((s) => /^[0-9a-f]{7,40}$/.test(s));
  if (!valid.length) return out;
  const show = await git(root, ['show', '--no-color', '--name-only', '--first-parent', '-m', '--format=%x1e%H', ...valid], { timeoutMs: options.timeoutMs ?? 8000, maxBuffer: 16 * 1024 * 1024 });
  if (show.code !== 0) return out;
  for (const rec of show.stdout.split('\x1e')) {
    const [sha, ...files] = rec.split('\n').map((l) => l.trim()).filter(Boolean);
    if (!sha || !files.length) continue;
    out.set(sha, [...(out.get(sha) ?? []), ...files]);
  }
  return out;
}

/**
 * The files among `paths` that each of these pull requests added, by the
 * commits that added them and whose subject is the pull request's ("… (#123)",
 * a squash merge). A file added on a branch that was merged with a merge commit
 * is not seen (its commit does not name the pull request). Empty outside git
 * or on any failure.
 */
export async function filesAddedByPullRequests(root: string, pullRequests: readonly string[], paths: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!pullRequests.length || !paths.length) return out;
  const wanted = new Set(pullRequests);
  const known = new Set(paths);
  // Their folders as the pathspec: a short command line, the same commits.
  const folders = [...new Set(paths.map((p) => p.slice(0, Math.max(p.lastIndexOf('/'), 0)) || '.'))];
  // Only commits whose message names one of them have their changes listed (git walks the history once either way).
  const named = pullRequests.flatMap((pr) => ['--grep', `(#${pullRequestNumber(pr)})`]);
  const log = await git(root, ['log', '--no-color', '--no-renames', '--diff-filter=A', '--name-only', '--format=%x1e%s%x1f', '-F', ...named, '--', ...folders], { timeoutMs: options.timeoutMs ?? 8000, maxBuffer: 16 * 1024 * 1024 });
  if (log.code !== 0) return out;
  for (const rec of log.stdout.split('\x1e')) {
    const [subject, files = ''] = rec.split('\x1f');
    const pr = ownPullRequest(subject ?? '');
    if (!pr || !wanted.has(pr)) continue;
    const added = files.split('\n').map((f) => f.trim()).filter((f) => known.has(f));
    if (added.length) out.set(pr, [...(out.get(pr) ?? []), ...added]);
  }
  return out;
}
