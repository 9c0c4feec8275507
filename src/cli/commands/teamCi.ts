import * as path from 'node:path';
import { readWorkspaceText } from '../../core/repo/read.js';
import { errorMessage } from '../../shared/errors.js';
import { commitDiff, commitsBetween, repoInfo } from '../../core/episodic/git.js';
import type { Touch } from '../../core/episodic/model.js';
import { markCiEpisode, type StoredEpisode } from '../../core/episodic/store.js';
import { symbolsInFiles, touchesFor } from '../../core/episodic/touches.js';
import type { FileChange } from '../../core/episodic/worktree.js';
import { git } from '../../core/repo/git.js';
import type { Workspace } from '../../core/store/workspace.js';
import { CI_NAMES, detectCi, type CiEnvironment } from '../../core/team/ci.js';
import { TeamError } from '../../core/team/errors.js';
import { configuredUrl, openTeam, push, recordSyncTime, type PushReport } from '../../core/team/sync.js';

/*
 * CI as a writer of the team's history, for `tenure run` (the slim bundle:
 * nothing of the knowledge memory is loaded here). Inside GitHub Actions,
 * GitLab CI or Jenkins the recorded episode becomes CI's record of the run
 * and is pushed, so every clone's what_happened_before sees it.
 */

function warn(s: string): void {
  process.stderr.write(`tenure: ${s}\n`);
}

export function pushLine(p: PushReport): string {
  const kn = Object.values(p.knowledge).reduce((a, b) => a + b, 0);
  const parts = [`${p.episodes} episodes`, `${p.conclusions} conclusions`, `${p.rules} rules`, `${p.decisions} decisions`, `${kn} model answers`, `${p.builds} model passes`, `${p.sources} export files`];
  return `pushed ${parts.join(', ')} in ${Math.round(p.ms)} ms${p.notCi ? `; ${p.notCi} episode(s) that claim to be CI's stay local: only a CI login may record CI outcomes` : ''}`;
}

// ---------------------------------------------------------------- CI as a writer

/** The symbols a CI run's change touched: a CI checkout is clean, so they come from the commits between the change's base and HEAD. */
async function ciTouches(ws: Workspace, ci: CiEnvironment): Promise<{ touches: Touch[]; note: string | null }> {
  const root = ws.root;
  const repo = await repoInfo(root);
  if (!repo?.head) return { touches: [], note: 'no commit checked out' };
  let base = ci.base;
  if (base && !/^[0-9a-f]{7,64}$/i.test(base)) {
    const mb = await git(root, ['merge-base', base, 'HEAD']);
    base = mb.code === 0 ? mb.stdout.trim() : null;
  }
  const shas = base ? (await commitsBetween(root, repo, base, 'HEAD')).map((c) => c.sha).slice(0, 50) : [repo.head];
  if (!shas.length) return { touches: [], note: `no commit between ${ci.base} and HEAD (a shallow clone?): changed symbols unknown` };
  const byKey = new Map<string, Touch>();
  for (const sha of shas) {
    const files = await commitDiff(root, repo, sha);
    const changes: FileChange[] = files.map((f) => {
      const newText = f.change === 'deleted' ? null : (readWorkspaceText(root, path.join(root, f.path)) ?? null);
      return { path: f.path, change: f.change, hunks: f.hunks, newText, binary: false };
    });
    const symbols = await symbolsInFiles(ws.db, changes.map((c) => c.path));
    for (const t of await touchesFor(ws.db, root, changes, changes, symbols, symbols)) {
      const key = `${t.path}\u0000${t.sid ?? ''}`;
      const prev = byKey.get(key);
      byKey.set(key, prev ? { ...prev, lines: prev.lines + t.lines } : t);
    }
  }
  return { touches: [...byKey.values()], note: base ? null : 'no base commit in the environment: the touches are those of HEAD\'s own commit' };
}

/**
 * After `tenure run` records an episode: inside CI, mark it as CI's record
 * (the pipeline URL, the job, the branch, the symbols the change under test
 * touched) and push it when a team store is configured (TENURE_TEAM_URL in
 * the job's environment, or a connection). Never changes the exit code.
 */
export async function afterRunInCi(ws: Workspace, episode: StoredEpisode, quiet: boolean): Promise<void> {
  const ci = detectCi();
  if (!ci && !configuredUrl(ws.root)) return;
  try {
    if (ci) {
      const t = episode.touches.length ? { touches: [], note: null } : await ciTouches(ws, ci);
      await ws.db.write((d) => markCiEpisode(d, episode.id, ci, { touches: t.touches, branch: ci.branch }));
      if (!quiet) warn(`recorded as ${CI_NAMES[ci.provider]}'s outcome${ci.pipelineUrl ? ` (${ci.pipelineUrl})` : ''}${t.touches.length ? `; the change touched ${t.touches.filter((x) => x.sid).length} symbols` : ''}${t.note ? `; ${t.note}` : ''}`);
    }
    if (!ci || !configuredUrl(ws.root)) return;
    const team = await openTeam(ws, { ci });
    try {
      const r = await push(team);
      await recordSyncTime(team, Date.now());
      if (!quiet) warn(`team store: ${pushLine(r)}`);
    } finally {
      await team.close();
    }
  } catch (e) {
    warn(`the episode is recorded here, but it could not be shared with the team store: ${errorMessage(e)}${TeamError.is(e, 'unreachable') ? ' (the next `tenure team push` sends it)' : ''}`);
  }
}

