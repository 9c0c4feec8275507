import { git } from '../repo/git.js';

/*
 * The few git facts the episodic memory needs, read with the git command
 * line (no library: the user's git is the truth) through the one runner that
 * lets the repository run nothing. Paths are workspace-relative even when the
 * workspace is a folder inside a larger repository.
 */

export interface RepoInfo {
  /** The workspace root's path inside the repository, '' or ending in '/'. */
  readonly prefix: string;
  readonly top: string;
  /** null before the first commit. */
  readonly head: string | null;
  readonly branch: string | null;
}

/** The repository the workspace is in, or null when it is not in one (or git is missing). */
export async function repoInfo(root: string): Promise<RepoInfo | null> {
  const r = await git(root, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (r.code !== 0) return null;
  const [top = '', prefix = ''] = r.stdout.split('\n');
  const [head, branch] = await Promise.all([git(root, ['rev-parse', '--verify', '-q', 'HEAD']), git(root, ['symbolic-ref', '--short', '-q', 'HEAD'])]);
  return {
    top: top.trim(),
    prefix: prefix.trim(),
    head: head.code === 0 ? head.stdout.trim() : null,
    branch: branch.code === 0 ? branch.stdout.trim() : null,
  };
}

/** Files under the workspace that differ from HEAD (modified, added, deleted, untracked; not ignored). */
export async function dirtyPaths(root: string, repo: RepoInfo): Promise<string[]> {
  const r = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']);
  if (r.code !== 0) return [];
  const out: string[] = [];
  const parts = r.stdout.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    out.push(entry.slice(3));
    // A rename or copy is followed by its source path; the source changed too (it is gone).
    if (code[0] === 'R' || code[0] === 'C') out.push(parts[++i] ?? '');
  }
  return out.filter(Boolean).map((p) => stripPrefix(p, repo.prefix)).filter((p): p is string => p !== null);
}

function stripPrefix(p: string, prefix: string): string | null {
  if (!prefix) return p;
  return p.startsWith(prefix) ? p.slice(prefix.length) : null;
}

/** A file's content at a revision, or null when it did not exist there. */
export async function showAt(root: string, repo: RepoInfo, rev: string, rel: string): Promise<string | null> {
  const r = await git(root, ['show', '--no-textconv', `${rev}:${repo.prefix}${rel}`]);
  return r.code === 0 ? r.stdout : null;
}

export async function isAncestor(root: string, older: string, newer: string): Promise<boolean> {
  return (await git(root, ['merge-base', '--is-ancestor', older, newer])).code === 0;
}

export async function userEmail(root: string): Promise<string | null> {
  const r = await git(root, ['config', 'user.email']);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export async function userName(root: string): Promise<string | null> {
  const r = await git(root, ['config', 'user.name']);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export interface CommitInfo {
  readonly sha: string;
  readonly email: string;
  readonly subject: string;
  readonly files: readonly string[];
}

/** Commits in older..newer (no merges) with the workspace files they changed. */
export async function commitsBetween(root: string, repo: RepoInfo, older: string, newer: string): Promise<CommitInfo[]> {
  const r = await git(root, ['log', '--no-merges', '--no-ext-diff', '--no-textconv', '--format=%x01%H%x00%ae%x00%s', '--name-only', '-z', `${older}..${newer}`, '--', '.']);
  if (r.code !== 0) return [];
  const out: CommitInfo[] = [];
  for (const block of r.stdout.split('\x01').slice(1)) {
    const fields = block.split('\0');
    const [sha = '', email = '', subject = ''] = fields;
    const files = fields
      .slice(3)
      .map((f) => f.replace(/^\n/, ''))
      .filter(Boolean)
      .map((f) => stripPrefix(f, repo.prefix))
      .filter((f): f is string => f !== null);
    out.push({ sha, email, subject: subject.trim(), files });
  }
  return out;
}

export async function commitSubject(root: string, rev: string): Promise<string | null> {
  const r = await git(root, ['log', '-1', '--format=%s', rev]);
  return r.code === 0 ? r.stdout.trim() : null;
}

export interface CommitFileDiff {
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted';
  readonly hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number }[];
}

/** The files a commit changed and its changed regions (`git show -U0`), workspace-relative. */
export async function commitDiff(root: string, repo: RepoInfo, sha: string): Promise<CommitFileDiff[]> {
  const r = await git(root, ['show', '--format=', '--unified=0', '--no-color', '--no-renames', '--no-ext-diff', '--no-textconv', sha, '--', '.']);
  if (r.code !== 0) return [];
  const out: CommitFileDiff[] = [];
  let cur: { path: string; change: CommitFileDiff['change']; hunks: CommitFileDiff['hunks'] } | null = null;
  let oldPath: string | null = null;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('diff --git ')) {
      if (cur) out.push(cur);
      cur = null;
      oldPath = null;
    } else if (line.startsWith('--- ')) {
      oldPath = line === '--- /dev/null' ? null : line.slice(6);
    } else if (line.startsWith('+++ ')) {
      const newPath = line === '+++ /dev/null' ? null : line.slice(6);
      const p = stripPrefix(newPath ?? oldPath ?? '', repo.prefix);
      cur = p === null ? null : { path: p, change: newPath === null ? 'deleted' : oldPath === null ? 'added' : 'modified', hunks: [] };
    } else if (cur && line.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m) cur.hunks.push({ oldStart: Number(m[1]), oldLines: m[2] === undefined ? 1 : Number(m[2]), newStart: Number(m[3]), newLines: m[4] === undefined ? 1 : Number(m[4]) });
    }
  }
  if (cur) out.push(cur);
  // git numbers a pure insertion or deletion from the line before it; the diff module numbers from the line after.
  return out.map((f) => ({ ...f, hunks: f.hunks.map((h) => ({ ...h, oldStart: h.oldLines === 0 ? h.oldStart + 1 : h.oldStart, newStart: h.newLines === 0 ? h.newStart + 1 : h.newStart })) }));
}
