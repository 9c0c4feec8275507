import * as z from 'zod';
import { gitHubClient, repoPath } from '../../repo/github.js';
import type { CommitLike, DocKind, SourceDocument, Section } from './document.js';
import { byCodeUnits } from '../../../shared/order.js';

/*
 * GitHub REST shapes → documents. Accepted, as GitHub's API returns them
 * (extra fields ignored):
 *   - one pull request (GET /repos/{o}/{r}/pulls/{n}) or issue (…/issues/{n}), or a list of them;
 *   - a thread bundle: { pull | pull_request | issue, comments, reviews, review_comments }
 *     holding the responses of …/issues/{n}/comments, …/pulls/{n}/reviews, …/pulls/{n}/comments;
 *   - a list of commits (GET /repos/{o}/{r}/commits): [{ sha, commit: { message, author } }].
 * A thread becomes one document whose text is a transcript; each comment is a
 * section with its own URL, so a quotation cites the comment it came from.
 */

const User = z.object({ login: z.string() }).passthrough().nullish();

const Thread = z
  .object({
    number: z.number().int(),
    title: z.string(),
    body: z.string().nullish(),
    html_url: z.string().nullish(),
    user: User,
    created_at: z.string().nullish(),
    state: z.string().nullish(),
    merged_at: z.string().nullish(),
    pull_request: z.unknown().optional(),
    head: z.unknown().optional(),
    labels: z.array(z.union([z.string(), z.object({ name: z.string() }).passthrough()])).nullish(),
  })
  .passthrough();
type Thread = z.infer<typeof Thread>;

const Comment = z
  .object({
    id: z.number().nullish(),
    body: z.string().nullish(),
    user: User,
    created_at: z.string().nullish(),
    submitted_at: z.string().nullish(),
    html_url: z.string().nullish(),
    state: z.string().nullish(), // reviews: APPROVED | CHANGES_REQUESTED | COMMENTED
    path: z.string().nullish(), // review comments
    line: z.number().nullish(),
    original_line: z.number().nullish(),
  })
  .passthrough();
type Comment = z.infer<typeof Comment>;

const Bundle = z
  .object({
    pull: Thread.optional(),
    pull_request: Thread.optional(),
    issue: Thread.optional(),
    comments: z.array(Comment).optional(),
    reviews: z.array(Comment).optional(),
    review_comments: z.array(Comment).optional(),
  })
  .passthrough();

export const GitHubCommit = z
  .object({
    sha: z.string().min(7),
    html_url: z.string().nullish(),
    commit: z.object({
      message: z.string(),
      author: z.object({ name: z.string().nullish(), date: z.string().nullish() }).passthrough().nullish(),
    }).passthrough(),
    author: User,
  })
  .passthrough();
export type GitHubCommit = z.infer<typeof GitHubCommit>;

export type ExportContents =
  | { readonly kind: 'threads'; readonly documents: SourceDocument[] }
  | { readonly kind: 'commits'; readonly commits: CommitLike[] }
  | { readonly kind: 'unknown' };

/** Recognises a parsed JSON export by its shape. `path` is the workspace-relative file. */
export function readExport(json: unknown, path: string): ExportContents {
  if (Array.isArray(json)) {
    if (json.length && json.every((x) => GitHubCommit.safeParse(x).success)) {
      return { kind: 'commits', commits: json.map((x) => fromGitHubCommit(GitHubCommit.parse(x))) };
    }
    const threads = json.map((x) => Thread.safeParse(x));
    if (json.length && threads.every((t) => t.success)) {
      return { kind: 'threads', documents: threads.map((t) => threadDocument(t.data!, [], [], [], path)) };
    }
    return { kind: 'unknown' };
  }
  const bundle = Bundle.safeParse(json);
  if (bundle.success) {
    const b = bundle.data;
    const head = b.pull ?? b.pull_request ?? b.issue;
    if (head) return { kind: 'threads', documents: [threadDocument(head, b.comments ?? [], b.reviews ?? [], b.review_comments ?? [], path, !!(b.pull ?? b.pull_request))] };
  }
  const single = Thread.safeParse(json);
  if (single.success) return { kind: 'threads', documents: [threadDocument(single.data, [], [], [], path)] };
  return { kind: 'unknown' };
}

export function fromGitHubCommit(c: GitHubCommit): CommitLike {
  return {
    sha: c.sha,
    message: c.commit.message,
    ...(c.commit.author?.name ? { author: c.commit.author.name } : c.author?.login ? { author: c.author.login } : {}),
    ...(c.commit.author?.date ? { date: c.commit.author.date } : {}),
    ...(c.html_url ? { url: c.html_url } : {}),
  };
}

function isPull(t: Thread): boolean {
  return t.pull_request !== undefined || t.head !== undefined || t.merged_at !== undefined || /\/pull\/\d+/.test(t.html_url ?? '');
}

function threadDocument(t: Thread, comments: Comment[], reviews: Comment[], reviewComments: Comment[], path: string, forcePull = false): SourceDocument {
  const pull = forcePull || isPull(t);
  const kind: DocKind = pull ? 'pr' : 'issue';
  const ref = `${pull ? 'PR' : 'issue'} #${t.number}`;
  const state = t.merged_at ? 'merged' : (t.state ?? undefined);
  const labels = (t.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)).filter(Boolean);
  let text = `${ref}: ${t.title}\n`;
  const meta = [state, t.user?.login ? `by @${t.user.login}` : undefined, t.created_at?.slice(0, 10), labels.length ? `labels: ${labels.join(', ')}` : undefined].filter(Boolean);
  if (meta.length) text += `${meta.join(' · ')}\n`;
  const sections: Section[] = [];
  const add = (header: string | undefined, body: string, c: { url?: string | null; author?: string | null }) => {
    text += '\n';
    if (header) text += `${header}\n`;
    const start = text.length;
    text += body.replace(/\r\n?/g, '\n').trim() + '\n';
    sections.push({ start, end: text.length, ...(c.url ? { url: c.url } : {}), ...(c.author ? { author: c.author } : {}) });
  };
  if (t.body?.trim()) add(undefined, t.body, { url: t.html_url ?? null, author: t.user?.login ?? null });
  // Everything said in the thread, in time order.
  const entries: { at: string; header: string; body: string; url?: string | null; author?: string | null }[] = [];
  for (const c of comments) {
    if (!c.body?.trim()) continue;
    entries.push({ at: c.created_at ?? '', header: `--- comment by @${c.user?.login ?? 'unknown'}${c.created_at ? `, ${c.created_at.slice(0, 10)}` : ''} ---`, body: c.body, url: c.html_url ?? null, author: c.user?.login ?? null });
  }
  for (const r of reviews) {
    if (!r.body?.trim()) continue;
    const at = r.submitted_at ?? r.created_at ?? '';
    entries.push({ at, header: `--- review by @${r.user?.login ?? 'unknown'}${r.state ? ` (${r.state.toLowerCase().replace(/_/g, ' ')})` : ''}${at ? `, ${at.slice(0, 10)}` : ''} ---`, body: r.body, url: r.html_url ?? null, author: r.user?.login ?? null });
  }
  for (const rc of reviewComments) {
    if (!rc.body?.trim()) continue;
    const line = rc.line ?? rc.original_line;
    const where = rc.path ? ` on ${rc.path}${line ? `:${line}` : ''}` : '';
    entries.push({ at: rc.created_at ?? '', header: `--- review comment by @${rc.user?.login ?? 'unknown'}${where}${rc.created_at ? `, ${rc.created_at.slice(0, 10)}` : ''} ---`, body: rc.body, url: rc.html_url ?? null, author: rc.user?.login ?? null });
  }
  entries.sort((a, b) => byCodeUnits(a.at, b.at));
  for (const e of entries) add(e.header, e.body, { url: e.url ?? null, author: e.author ?? null });
  return {
    source: `${path}#${pull ? 'pull' : 'issue'}/${t.number}`,
    kind,
    title: t.title,
    ref,
    path,
    ...(t.html_url ? { url: t.html_url } : {}),
    ...(t.user?.login ? { author: t.user.login } : {}),
    ...(t.created_at ? { createdAt: t.created_at } : {}),
    text,
    sections,
  };
}

/** Fetches a repository's recent pull requests and issues with their comments, in the bundle shape readExport accepts. */
export async function fetchGitHubThreads(options: {
  readonly owner: string;
  readonly repo: string;
  readonly token?: string;
  /** Default https://api.github.com (GitHub Enterprise: https://host/api/v3). */
  readonly apiBase?: string;
  /** Threads to fetch, newest first. Default 50. */
  readonly limit?: number;
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}): Promise<{ file: string; json: unknown }[]> {
  const gh = gitHubClient({
    ...(options.token ? { token: options.token } : {}),
    ...(options.apiBase ? { apiBase: options.apiBase } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const repo = repoPath({ owner: options.owner, name: options.repo });
  const limit = options.limit ?? 50;
  const list = (await gh.get(`${repo}/issues?state=all&sort=updated&direction=desc&per_page=${Math.min(100, limit)}`)) as Thread[];
  const out: { file: string; json: unknown }[] = [];
  for (const t of list.slice(0, limit)) {
    const pull = t.pull_request !== undefined;
    const comments = (t as { comments?: number }).comments ? await gh.get(`${repo}/issues/${t.number}/comments?per_page=100`) : [];
    if (pull) {
      const [pr, reviews, reviewComments] = await Promise.all([gh.get(`${repo}/pulls/${t.number}`), gh.get(`${repo}/pulls/${t.number}/reviews?per_page=100`), gh.get(`${repo}/pulls/${t.number}/comments?per_page=100`)]);
      out.push({ file: `pulls/${t.number}.json`, json: { pull: pr, comments, reviews, review_comments: reviewComments } });
    } else {
      out.push({ file: `issues/${t.number}.json`, json: { issue: t, comments } });
    }
  }
  return out;
}
