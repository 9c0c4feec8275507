import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import { TenureError, errorMessage } from '../../shared/errors.js';
import { reportStates } from '../../core/episodic/junit.js';
import { COMMAND_KINDS, type Actor, type CommandKind } from '../../core/episodic/model.js';
import { loadOptions } from '../../core/episodic/options.js';
import type { EpisodeRecorder } from '../../core/episodic/recorder.js';
import { RunJournal } from '../../core/episodic/runJournal.js';
import { cwdOf } from '../context.js';
import { afterRecording, describeRecorded, exitWith, recordingRoot, warn, withRecorder } from './recording.js';
import { afterRunInCi } from './teamCi.js';

/* `tenure run -- <command>`: runs the command as typed and records the attempt as an episode. */

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
const TAIL_BYTES = 256 * 1024;

interface RunOptions {
  intent?: string;
  actor?: string;
  kind?: CommandKind;
  junit?: string[];
  reports: boolean;
  quiet?: boolean;
  indexUpdate: boolean;
}

/** Runs the command as the user typed it, teeing its output, and resolves with how it ended. */
function runChild(argv: readonly string[], onSpawn: (pid: number | undefined) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; startedAt: number; endedAt: number; spawnError?: string }> {
  const oneString = argv.length === 1;
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = oneString
      ? spawn(argv[0]!, { shell: true, stdio: ['inherit', 'pipe', 'pipe'] })
      : spawn(argv[0]!, argv.slice(1), { shell: process.platform === 'win32', stdio: ['inherit', 'pipe', 'pipe'] });
    onSpawn(child.pid);
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail += chunk.toString('utf8');
      if (tail.length > TAIL_BYTES * 2) tail = tail.slice(-TAIL_BYTES);
    };
    child.stdout!.on('data', (d: Buffer) => {
      process.stdout.write(d);
      keep(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      process.stderr.write(d);
      keep(d);
    });
    // Ctrl+C reaches the child through the terminal's process group; Tenure stays to record the outcome.
    const ignore = () => undefined;
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    const onTerm = forward('SIGTERM');
    const onHup = forward('SIGHUP');
    process.on('SIGINT', ignore);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
    const done = (r: { code: number | null; signal: NodeJS.Signals | null; spawnError?: string }) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      resolve({ ...r, output: tail.slice(-TAIL_BYTES), startedAt, endedAt: Date.now() });
    };
    child.on('error', (e) => done({ code: 127, signal: null, spawnError: errorMessage(e) }));
    child.on('close', (code, signal) => done({ code, signal }));
  });
}

/** Attempts an earlier Tenure started and never saw end (it was killed): recorded as interrupted, so they are not lost. */
async function recordInterrupted(journal: RunJournal, recorder: EpisodeRecorder): Promise<void> {
  for (const run of journal.orphans()) {
    const child = run.childPid ? ` (its process, ${run.childPid}, may have gone on running)` : '';
    await recorder.recordCommand({
      command: run.command,
      cwd: run.cwd,
      startedAt: run.startedAt,
      endedAt: run.startedAt,
      exitCode: null,
      source: 'run',
      actor: run.actor,
      intent: run.intent,
      searchReports: false,
      interrupted: { why: `tenure run was stopped before it recorded how \`${run.command}\` ended${child}: the outcome is unknown` },
    });
    journal.end(run);
    warn(`recorded an interrupted attempt: \`${run.command}\` started ${new Date(run.startedAt).toISOString()}; its outcome was never seen`);
  }
}

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('Run a command and record the attempt as an episode: exit code, duration, failing tests from the JUnit reports it writes, and the symbols changed since the last outcome. Exits with the command\'s code.')
    .argument('<command...>', 'the command, after `--` (quote compound commands: "npm run gen && npm test")')
    .option('--intent <text>', 'what this attempt is for (also TENURE_INTENT)')
    .addOption(new Option('--actor <who>', 'who made the change (also TENURE_ACTOR)').choices(['agent', 'person', 'ci']))
    .addOption(new Option('--kind <kind>', 'override the command classification').choices([...COMMAND_KINDS]))
    .option('--junit <files...>', 'JUnit reports to read (default: search the configured globs for reports written during the run)')
    .option('--no-reports', 'do not look for JUnit reports')
    .option('--no-index-update', 'do not re-index changed files before mapping them to symbols')
    .option('-q, --quiet', 'print nothing but the command\'s own output')
    .action(async (argv: string[], opts: RunOptions) => {
      if (!argv.length) throw new TenureError('invalid-input', 'Nothing to run. Usage: tenure run -- <command> [args…]');
      const root = recordingRoot(cwdOf(program));
      // What reports exist before the command runs: afterwards only the new and the rewritten ones are its own.
      const reportsBefore = opts.reports && !opts.junit?.length ? reportStates(root, loadOptions(root).junitGlobs) : undefined;
      const command = argv.length === 1 ? argv[0]! : argv.map(shellQuote).join(' ');
      const actor = ((opts.actor ?? process.env['TENURE_ACTOR']) as Actor | undefined) ?? null;
      const intent = opts.intent ?? process.env['TENURE_INTENT'] ?? null;
      // Written before the command starts: if Tenure is killed before it records the outcome, the next run records it as interrupted.
      const journal = new RunJournal(root);
      let entry = journal.begin({ command, cwd: process.cwd(), startedAt: Date.now(), actor, intent });
      const result = await runChild(argv, (pid) => (entry = journal.started(entry, pid)));
      if (result.spawnError) warn(`could not start ${argv[0]}: ${result.spawnError}`);
      const exitCode = result.code ?? (result.signal ? 128 + (SIGNALS[result.signal] ?? 0) : 1);
      try {
        await withRecorder(root, async (recorder, ws) => {
          await recordInterrupted(journal, recorder);
          const rec = await recorder.recordCommand({
            command,
            cwd: process.cwd(),
            startedAt: result.startedAt,
            endedAt: result.endedAt,
            exitCode: result.code,
            signal: result.signal,
            source: 'run',
            actor,
            intent,
            ...(opts.kind ? { kind: opts.kind } : {}),
            output: result.output,
            ...(opts.junit?.length ? { junitFiles: opts.junit.map((f) => path.resolve(f)) } : {}),
            searchReports: opts.reports,
            ...(reportsBefore ? { reportsBefore } : {}),
          });
          if (!opts.quiet) {
            warn(describeRecorded(rec));
            for (const n of rec.notes) warn(`  note: ${n}`);
          }
          journal.end(entry);
          if (rec.episode.outcome.status !== 'cancelled') await afterRecording(ws, loadOptions(root), !!opts.quiet, rec.episode);
          // In CI: CI's record of the run (pipeline, changed symbols), pushed to the team store when one is configured.
          if (rec.episode.outcome.status !== 'cancelled') await afterRunInCi(ws, rec.episode, !!opts.quiet);
        }, { indexUpdate: opts.indexUpdate });
      } catch (e) {
        // Recording never changes the command's exit code: CI must see the command's own result.
        warn(`the command ran, but the attempt could not be recorded: ${errorMessage(e)}`);
      }
      await exitWith(exitCode);
    });
}
