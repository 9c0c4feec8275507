import { TenureError, errorMessage } from '../../shared/errors.js';
import { git } from './git.js';

/*
 * GitHub's REST API, read with the user's token (VS Code's GitHub sign-in, or
 * GITHUB_TOKEN on the command line), for both memories that read GitHub: the
 * knowledge memory (pull-request and issue threads) and the episodic one (CI
 * check runs and review decisions). The token goes in the Authorization
 * header and nowhere else: no message, log line or error carries it.
 */

export interface GitHubRepo {
  readonly owner: string;
  readonly name: string;
}

export interface GitHubClientOptions {
  /** Without one, only public repositories answer (and with a lower rate limit). */
  readonly token?: string;
  /** Default https://api.github.com (GitHub Enterprise: https://host/api/v3). */
  readonly apiBase?: string;
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}

export interface GitHubClient {
  /** GET a path under the API base (`/repos/o/r/pulls?state=all`): the parsed JSON. Throws TenureError('io') with GitHub's status in `details`. */
  get(path: string): Promise<unknown>;
}

/** What a failed request carries in TenureError.details. */
export interface GitHubFailure {
  /** The HTTP status; undefined when GitHub was not reached. */
  readonly status?: number;
  readonly path: string;
}

export function gitHubClient(options: GitHubClientOptions): GitHubClient {
  const base = (options.apiBase ?? 'https://api.github.com').replace(/\/$/, '');
  const f = options.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'tenure' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return {
    async get(path: string): Promise<unknown> {
      let res: Response;
      try {
        res = await f(`${base}${path}`, { headers, ...(options.signal ? { signal: options.signal } : {}) });
      } catch (e) {
        if (options.signal?.aborted) throw new TenureError('cancelled', 'Cancelled.', { path } satisfies GitHubFailure, { cause: e });
        throw new TenureError('io', `GitHub is not reachable (${errorMessage(e)}).`, { path } satisfies GitHubFailure, { cause: e });
      }
      const details: GitHubFailure = { status: res.status, path };
      if (res.status === 401 || res.status === 403) {
        throw new TenureError('io', `GitHub refused the request (${res.status}) for ${path}: sign in again or check the token's access to the repository.`, details);
      }
      if (!res.ok) throw new TenureError('io', `GitHub answered ${res.status} for ${path}${await said(res)}.`, details);
      return res.json();
    },
  };
}

/** GitHub's own words about a failure (its JSON `message`), briefly. */
async function said(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: unknown };
    return typeof body.message === 'string' && body.message ? `: ${body.message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

/** `/repos/{owner}/{name}`, each part escaped. */
export function repoPath(repo: GitHubRepo): string {
  return `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
}

/** owner/name of the workspace's GitHub repository, from its `origin` remote; undefined when there is none or it is not on GitHub. */
export async function githubRepoOf(root: string): Promise<GitHubRepo | undefined> {
  const r = await git(root, ['remote', 'get-url', 'origin']);
  if (r.code !== 0) return undefined;
  const m = /github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(r.stdout.trim());
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
}
