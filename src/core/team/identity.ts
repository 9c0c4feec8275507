import { git } from '../repo/git.js';
import { TeamError } from './errors.js';

/*
 * Which repository a workspace is, in the team store: its root commit (the
 * first commit of its first-parent history, the same in every clone and
 * fork) and the normalised URL of its remote. Clones and forks of one
 * repository share the root commit and so meet; the URL is a name and an
 * alias, not the key.
 */

export interface RepositoryIdentity {
  readonly rootCommit: string;
  /** Normalised (`github.com/acme/settlement`); null without a remote. */
  readonly remote: string | null;
  /** HEAD and its branch, for what a push records. */
  readonly head: string | null;
  readonly branch: string | null;
}

/**
 * `git@github.com:Acme/settlement.git`, `https://user@github.com/acme/settlement/`
 * and `ssh://git@github.com/acme/settlement` all name github.com/acme/settlement:
 * scheme, credentials, port of ssh, `.git` and trailing slashes dropped, the
 * host lower-cased.
 */
export function normaliseRemote(url: string): string {
  let u = url.trim();
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) u = `ssh://${scp[1]}/${scp[2]}`;
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?(\/.*)?$/i.exec(u);
  if (!m) return u.replace(/\.git$/, '').replace(/\/+$/, '');
  const host = m[1]!.toLowerCase();
  const p = (m[2] ?? '').replace(/\/+$/, '').replace(/\.git$/, '').replace(/^\/+/, '');
  return p ? `${host}/${p}` : host;
}

async function remoteUrl(root: string): Promise<string | null> {
  const origin = await git(root, ['config', '--get', 'remote.origin.url']);
  if (origin.code === 0 && origin.stdout.trim()) return origin.stdout.trim();
  // No `origin`: the first remote git lists.
  const names = await git(root, ['remote']);
  const first = names.code === 0 ? names.stdout.split('\n').map((s) => s.trim()).find(Boolean) : undefined;
  if (!first) return null;
  const r = await git(root, ['config', '--get', `remote.${first}.url`]);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export async function repositoryIdentity(root: string): Promise<RepositoryIdentity> {
  const roots = await git(root, ['rev-list', '--first-parent', '--max-parents=0', 'HEAD']);
  const rootCommit = roots.code === 0 ? roots.stdout.split('\n').map((s) => s.trim()).filter(Boolean).pop() : undefined;
  if (!rootCommit) {
    throw new TeamError('no-repository', `${root} is not a git repository with a commit: the team store knows a repository by its first commit. Commit once, then connect.`);
  }
  const [url, head, branch] = await Promise.all([
    remoteUrl(root),
    git(root, ['rev-parse', '--verify', '-q', 'HEAD']),
    git(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
  ]);
  return {
    rootCommit,
    remote: url ? normaliseRemote(url) : null,
    head: head.code === 0 ? head.stdout.trim() : null,
    branch: branch.code === 0 ? branch.stdout.trim() : null,
  };
}
