import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { clockFromEnv } from '../../core/episodic/clock.js';
import { loadOptions, type MemoryOptions } from '../../core/episodic/options.js';
import { EpisodeRecorder, type RecordResult } from '../../core/episodic/recorder.js';
import type { StoredEpisode } from '../../core/episodic/store.js';
import { afterOutcome } from '../../core/procedural/afterOutcome.js';
import type { RefreshReport } from '../../core/procedural/refresh.js';
import { StructuralIndexer } from '../../core/structural/index/indexer.js';
import { type Workspace, TENURE_DIR } from '../../core/store/workspace.js';
import { openWorkspace } from '../../core/workspace.js';
import { findRoot } from '../context.js';

/*
 * What the episodic and procedural commands share: the workspace a recording
 * belongs to, a recorder, the line that says what was recorded, and telling
 * the person what an outcome changed (archived episodes, rules proposed).
 */

/** The workspace a recording belongs to: --cwd, the nearest folder with .tenure, else the repository's top level (so one memory serves the whole repository), else the current folder. */
export function recordingRoot(cwd: string | undefined): string {
  const root = findRoot(cwd);
  if (cwd || fs.existsSync(path.join(root, TENURE_DIR))) return root;
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return root;
  }
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function warn(message: string): void {
  process.stderr.write(`tenure: ${message}\n`);
}

/** A recorder whose index refresh starts parse workers only if a changed file needs it. */
export async function withRecorder<T>(root: string, fn: (recorder: EpisodeRecorder, ws: Workspace) => Promise<T>, opts: { indexUpdate?: boolean } = {}): Promise<T> {
  const ws = await openWorkspace(root);
  let indexer: StructuralIndexer | undefined;
  try {
    const recorder = new EpisodeRecorder({
      workspace: ws,
      clock: clockFromEnv(),
      options: loadOptions(root, warn),
      ...(opts.indexUpdate === false
        ? {}
        : {
            refreshIndex: async (paths: string[]) => {
              indexer ??= await StructuralIndexer.create(ws);
              await indexer.updateFiles(paths);
            },
          }),
    });
    return await fn(recorder, ws);
  } finally {
    await indexer?.dispose().catch(() => undefined);
    await ws.close();
  }
}

/** One line for the terminal: what was recorded and what it touched. */
export function describeRecorded(r: RecordResult): string {
  const e = r.episode;
  const symbols = e.touches.filter((t) => t.sid);
  const files = new Set(e.touches.map((t) => t.path));
  const tests = e.tests ? `; tests ${e.tests.total - e.tests.failed - e.tests.errors}/${e.tests.total} passed` : '';
  const touched = symbols.length
    ? `touched ${symbols.length} symbol${symbols.length === 1 ? '' : 's'} (${symbols.slice(0, 3).map((t) => t.qname).join(', ')}${symbols.length > 3 ? ', …' : ''})`
    : files.size
      ? `touched ${files.size} file${files.size === 1 ? '' : 's'}`
      : 'no changes since the last outcome';
  return `recorded episode #${e.id}: ${e.commandKind ?? 'test'} ${e.outcome.status}${e.outcome.exitCode !== null ? ` (exit ${e.outcome.exitCode})` : ''}${tests}; ${touched}`;
}

/** main() maps a normal return to 0: exit with this code instead, once the output is flushed. */
export async function exitWith(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}

/** `import` is shared by the memories (SCIP indexes, bean wiring, traces): join it if it exists. */
export function importCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'import') ?? program.command('import').description('Import what other tools produced into the memories: test reports, episode files, GitHub outcomes, SCIP indexes, bean wiring, traces.');
}

export function printRuleNews(r: RefreshReport, out: (s: string) => void = (s) => process.stdout.write(s + '\n')): void {
  for (const rule of r.proposed) out(`rule ${rule.id} is proven and proposed for AGENTS.md: ${rule.text} (${count(rule.successes, 'success', 'successes')}, ${count(rule.failures, 'failure')}) — review with \`tenure rules promote ${rule.id}\``);
  for (const rule of r.demotionProposed) out(`rule ${rule.id} is failing since it was promoted (${rule.failuresSincePromotion} failures): ${rule.promotedText ?? rule.text} — review with \`tenure rules demote ${rule.id}\``);
}

/** After an outcome: archive what has gone stale (at most every few hours) and re-mine rules; tell the person what changed. */
export async function afterRecording(ws: Workspace, options: MemoryOptions, quiet: boolean, episode?: StoredEpisode): Promise<void> {
  const news = await afterOutcome(ws, options, clockFromEnv(), episode);
  if (quiet) return;
  const ev = news.evicted;
  if (ev && ev.archived.length) warn(`archived ${ev.archived.length} episode${ev.archived.length === 1 ? '' : 's'} about code that has changed or gone (\`tenure episodes list --archived\`)`);
  printRuleNews(news.rules, (s) => warn(s));
}
