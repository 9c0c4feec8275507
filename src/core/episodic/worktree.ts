import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeCrypto } from '../../shared/nodeCrypto.js';
import { readWorkspaceFile } from '../repo/read.js';
import type { Db } from '../store/db.js';
import { diffLines, type Hunk } from './diff.js';
import { commitsBetween, dirtyPaths, isAncestor, repoInfo, showAt, userEmail, type RepoInfo } from './git.js';

/*
 * What changed since the last recorded outcome. The working tree is
 * snapshotted at every outcome (the content of files that differ from HEAD),
 * so the next attempt is charged only with what it changed itself: not with
 * edits an earlier attempt already answered for, not with commits pulled from
 * others, not with the files a branch switch brought.
 */

const MAX_SNAPSHOT_BYTES = 1024 * 1024;

export interface FileChange {
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted';
  /** Changed regions, old → new; empty for binary or oversized files (treated as changed throughout). */
  readonly hunks: readonly Hunk[];
  readonly newText: string | null;
  readonly binary: boolean;
}

export interface WorktreeSnapshot {
  readonly head: string | null;
  readonly branch: string | null;
  readonly files: ReadonlyMap<string, { hash: string; content: string | null }>;
}

export interface ChangesSinceLastOutcome {
  readonly repo: RepoInfo | null;
  readonly changes: readonly FileChange[];
  /** How the changes were found, in words, for the episode's record. */
  readonly basis: string;
  /** The snapshot to store with the new outcome. */
  readonly snapshot: WorktreeSnapshot;
}

function hashOf(content: string | Buffer | null): string {
  return content === null ? 'absent' : nodeCrypto().createHash('sha1').update(content).digest('hex');
}

function readCurrent(root: string, rel: string): { text: string | null; binary: boolean; hash: string; exists: boolean } {
  const abs = path.join(root, rel);
  let buf: Buffer;
  try {
    const st = fs.statSync(abs);
    if (!st.isFile()) return { text: null, binary: false, hash: 'absent', exists: false };
    if (st.size > MAX_SNAPSHOT_BYTES) return { text: null, binary: true, hash: `size:${st.size}:${st.mtimeMs}`, exists: true };
    const read = readWorkspaceFile(root, abs, MAX_SNAPSHOT_BYTES);
    if (!read.ok) return { text: null, binary: false, hash: 'absent', exists: false };
    buf = read.bytes;
  } catch {
    return { text: null, binary: false, hash: 'absent', exists: false };
  }
  const binary = buf.subarray(0, 8000).includes(0);
  return { text: binary ? null : buf.toString('utf8'), binary, hash: hashOf(buf), exists: true };
}

/** The snapshot a kind of outcome is compared with: its own last outcome ('test', 'build', …) or the last outcome of any kind ('any'). */
export type SnapshotKey = string;
export const ANY = 'any';

async function loadSnapshot(db: Db, key: SnapshotKey): Promise<WorktreeSnapshot | null> {
  const meta = await db.all<{ key: string; value: string }>('SELECT key, value FROM meta WHERE key IN (?, ?, ?)', [`episodic.worktree.${key}.head`, `episodic.worktree.${key}.branch`, `episodic.worktree.${key}.at`]);
  const m = new Map(meta.map((r) => [r.key.slice(`episodic.worktree.${key}.`.length), r.value]));
  if (!m.has('at')) return null;
  const rows = await db.all<{ path: string; hash: string; content: string | Buffer | null }>('SELECT path, hash, content FROM episodic_worktree WHERE kind = ?', [key]);
  return {
    head: m.get('head') || null,
    branch: m.get('branch') || null,
    files: new Map(rows.map((r) => [r.path, { hash: r.hash, content: r.content === null ? null : String(r.content) }])),
  };
}

/** Replaces a stored snapshot; call inside the transaction that records the outcome. */
export async function saveSnapshot(db: Db, key: SnapshotKey, snap: WorktreeSnapshot, at: number): Promise<void> {
  await db.run('DELETE FROM episodic_worktree WHERE kind = ?', [key]);
  for (const [p, f] of snap.files) await db.run('INSERT INTO episodic_worktree (kind, path, hash, content) VALUES (?, ?, ?, ?)', [key, p, f.hash, f.content]);
  const set = (k: string, v: string) => db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [`episodic.worktree.${key}.${k}`, v]);
  await set('head', snap.head ?? '');
  await set('branch', snap.branch ?? '');
  await set('at', String(at));
}

export interface CurrentTree {
  readonly repo: RepoInfo | null;
  readonly current: Map<string, ReturnType<typeof readCurrent>>;
  readonly snapshot: WorktreeSnapshot;
}

/** The working tree now: HEAD, branch, and the content of every file that differs from HEAD. */
export async function currentTree(root: string): Promise<CurrentTree> {
  const repo = await repoInfo(root);
  if (!repo) return { repo: null, current: new Map(), snapshot: { head: null, branch: null, files: new Map() } };
  const dirty = await dirtyPaths(root, repo);
  const current = new Map<string, ReturnType<typeof readCurrent>>();
  for (const p of dirty) current.set(p, readCurrent(root, p));
  const snapshot: WorktreeSnapshot = {
    head: repo.head,
    branch: repo.branch,
    files: new Map([...current].map(([p, c]) => [p, { hash: c.hash, content: c.text !== null && c.text.length <= MAX_SNAPSHOT_BYTES ? c.text : null }])),
  };
  return { repo, current, snapshot };
}

/**
 * The files changed since the snapshot under `key` and their changed lines.
 * Outside a git repository nothing can be compared: the answer says so and
 * carries no changes (a caller may add the files an editor saw saved).
 */
export async function changesSince(db: Db, root: string, tree: CurrentTree, key: SnapshotKey): Promise<ChangesSinceLastOutcome> {
  const { repo, current, snapshot } = tree;
  if (!repo) return { repo: null, changes: [], basis: 'not a git repository: touched files unknown', snapshot };
  const prev = await loadSnapshot(db, key);
  const since = key === ANY ? 'the last outcome' : `the last ${key} outcome`;

  // Where each candidate file's "before" comes from.
  let basis: string;
  let baseRev: string | null = repo.head;
  const candidates = new Set(current.keys());
  if (!prev) {
    basis = repo.head ? `working tree vs HEAD ${repo.head.slice(0, 7)} (first recorded ${key === ANY ? '' : `${key} `}outcome)` : 'working tree (no commit yet)';
  } else {
    for (const p of prev.files.keys()) candidates.add(p);
    if (prev.head && repo.head && prev.head !== repo.head) {
      if (await isAncestor(root, prev.head, repo.head)) {
        const me = await userEmail(root);
        const commits = await commitsBetween(root, repo, prev.head, repo.head);
        const own = commits.filter((c) => !me || c.email === me);
        for (const c of own) for (const f of c.files) candidates.add(f);
        baseRev = prev.head;
        const pulled = commits.length - own.length;
        basis = `changes since ${since}: working tree and ${own.length} own commit${own.length === 1 ? '' : 's'} since ${prev.head.slice(0, 7)}${pulled ? ` (${pulled} commit${pulled === 1 ? '' : 's'} by others not counted)` : ''}`;
      } else {
        // A branch switch or rebase: what HEAD brought is not this attempt's doing.
        basis = `HEAD moved from ${prev.head.slice(0, 7)} to an unrelated ${repo.head.slice(0, 7)}${repo.branch ? ` (${repo.branch})` : ''}: only working-tree changes counted`;
        for (const p of prev.files.keys()) if (!current.has(p)) candidates.delete(p);
      }
    } else {
      basis = `changes since ${since} (working tree)`;
      if (!prev.head) baseRev = repo.head;
    }
  }

  const changes: FileChange[] = [];
  for (const rel of [...candidates].sort()) {
    const now = current.get(rel) ?? readCurrent(root, rel);
    const before = prev?.files.get(rel);
    let oldText: string | null;
    let oldHash: string;
    if (before) {
      oldText = before.content;
      oldHash = before.hash;
    } else {
      oldText = baseRev ? await showAt(root, repo, baseRev, rel) : null;
      oldHash = hashOf(oldText === null ? null : Buffer.from(oldText, 'utf8'));
    }
    if (oldHash === now.hash) continue;
    if (oldText === null && !now.exists && !before) continue;
    const change: FileChange['change'] = !now.exists ? 'deleted' : oldText === null && !before ? 'added' : 'modified';
    let hunks: Hunk[] = [];
    if (now.text !== null && oldText !== null) hunks = diffLines(oldText, now.text);
    else if (now.text !== null) hunks = diffLines('', now.text);
    else if (oldText !== null && !now.exists) hunks = diffLines(oldText, '');
    changes.push({ path: rel, change, hunks, newText: now.exists ? now.text : null, binary: now.binary });
  }
  return { repo, changes, basis, snapshot };
}
