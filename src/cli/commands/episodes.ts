import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Option } from 'commander';
import { TenureError, errorMessage } from '../../shared/errors.js';
import { clockFromEnv, describeAge } from '../../core/episodic/clock.js';
import { backupDatabase } from '../../core/episodic/backup.js';
import { afterOutcome as coreAfterOutcome } from '../../core/episodic/capture.js';
import { evictEpisodes } from '../../core/episodic/eviction.js';
import { repoInfo, userEmail, userName } from '../../core/episodic/git.js';
import { GitHubImporter, fetchGitHubOutcomes } from '../../core/episodic/github.js';
import { githubRepoOf } from '../../core/repo/github.js';
import { COMMAND_KINDS, decayedConfidence, type Actor, type CommandKind } from '../../core/episodic/model.js';
import { loadOptions, type MemoryOptions } from '../../core/episodic/options.js';
import { EpisodeRecorder, type RecordResult } from '../../core/episodic/recorder.js';
import { exportEpisodes, importEpisodes } from '../../core/episodic/seed.js';
import { allEpisodeIds, conclusionsFor, episodeCounts, loadEpisodes, type StoredEpisode } from '../../core/episodic/store.js';
import { RULE_STATUS_MEANING, type Rule, type RuleStatus } from '../../core/procedural/model.js';
import { applySectionChange, declineProposal, planSectionChange, type SectionPlan } from '../../core/procedural/promotion.js';
import { refreshRules, type RefreshReport } from '../../core/procedural/refresh.js';
import { getRule, listRules, ruleEvents, ruleEvidence } from '../../core/procedural/store.js';
import { StructuralIndexer } from '../../core/structural/index/indexer.js';
import { type Workspace, TENURE_DIR } from '../../core/store/workspace.js';
import { openWorkspace } from '../../core/workspace.js';
import { cwdOf, EXIT, findRoot, withWorkspace, type CommandGroup } from '../context.js';

/*
 * The episodic and procedural commands that are not catalog tools:
 * `tenure run` (record an attempt), `tenure import …`, `tenure export …`,
 * `tenure episodes …` and `tenure rules …` (rules change AGENTS.md, so they
 * are for people, never tools an agent can call).
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

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function warn(message: string): void {
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
async function exitWith(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}

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
function runChild(argv: readonly string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; startedAt: number; endedAt: number; spawnError?: string }> {
  const oneString = argv.length === 1;
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = oneString
      ? spawn(argv[0]!, { shell: true, stdio: ['inherit', 'pipe', 'pipe'] })
      : spawn(argv[0]!, argv.slice(1), { shell: process.platform === 'win32', stdio: ['inherit', 'pipe', 'pipe'] });
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

export const episodeCommands: CommandGroup = (program) => {
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
      const result = await runChild(argv);
      if (result.spawnError) warn(`could not start ${argv[0]}: ${result.spawnError}`);
      const exitCode = result.code ?? (result.signal ? 128 + (SIGNALS[result.signal] ?? 0) : 1);
      try {
        await withRecorder(root, async (recorder, ws) => {
          const rec = await recorder.recordCommand({
            command: argv.length === 1 ? argv[0]! : argv.map(shellQuote).join(' '),
            cwd: process.cwd(),
            startedAt: result.startedAt,
            endedAt: result.endedAt,
            exitCode: result.code,
            signal: result.signal,
            source: 'run',
            actor: ((opts.actor ?? process.env['TENURE_ACTOR']) as Actor | undefined) ?? null,
            intent: opts.intent ?? process.env['TENURE_INTENT'] ?? null,
            ...(opts.kind ? { kind: opts.kind } : {}),
            output: result.output,
            ...(opts.junit?.length ? { junitFiles: opts.junit.map((f) => path.resolve(f)) } : {}),
            searchReports: opts.reports,
          });
          if (!opts.quiet) {
            warn(describeRecorded(rec));
            for (const n of rec.notes) warn(`  note: ${n}`);
          }
          if (rec.episode.outcome.status !== 'cancelled') await afterOutcome(ws, loadOptions(root), !!opts.quiet, rec.episode);
        }, { indexUpdate: opts.indexUpdate });
      } catch (e) {
        // Recording never changes the command's exit code: CI must see the command's own result.
        warn(`the command ran, but the attempt could not be recorded: ${errorMessage(e)}`);
      }
      await exitWith(exitCode);
    });

  // `import` is shared by the memories (SCIP indexes, bean wiring, traces): join it if it exists.
  const imp = program.commands.find((c) => c.name() === 'import') ?? program.command('import').description('Import what other tools produced into the memories: test reports, episode files, GitHub outcomes, SCIP indexes, bean wiring, traces.');
  imp
    .command('junit')
    .description('Record JUnit XML reports (from CI or a run outside `tenure run`) as an outcome of the changes since the last one.')
    .argument('<files...>', 'JUnit XML files')
    .option('--command <text>', 'the command that produced them')
    .option('--intent <text>', 'what the attempt was for')
    .option('--no-diff', 'do not charge the working-tree changes to this outcome')
    .action(async (files: string[], opts: { command?: string; intent?: string; diff: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withRecorder(root, async (recorder, ws) => {
        const rec = await recorder.recordTestReports(files.map((f) => path.resolve(f)), { command: opts.command ?? null, intent: opts.intent ?? null, diff: opts.diff });
        process.stdout.write(describeRecorded(rec) + '\n');
        for (const n of rec.notes) process.stdout.write(`  note: ${n}\n`);
        if (rec.episode.tests?.failing.length) {
          for (const f of rec.episode.tests.failing.slice(0, 10)) process.stdout.write(`  ✗ ${f.suite ? `${f.suite} › ` : ''}${f.name}\n`);
        }
        await afterOutcome(ws, loadOptions(root), false, rec.episode);
      });
    });

  imp
    .command('github')
    .description('Record outcomes decided on GitHub: CI check runs, and pull-request reviews (changes requested, closed unmerged, merged). From JSON exports in the REST API\'s shapes, or live with --fetch.')
    .argument('[files...]', 'JSON files: pull bundles ({ pull, reviews, files }), check-runs responses')
    .option('--fetch', 'read the current branch\'s pull requests and HEAD\'s check runs from the GitHub API (token: --token or GITHUB_TOKEN)')
    .option('--repo <owner/name>', 'the repository (default: from the origin remote)')
    .option('--token <token>', 'a GitHub token (default: GITHUB_TOKEN)')
    .option('--api-base <url>', 'API base URL (GitHub Enterprise)', 'https://api.github.com')
    .action(async (files: string[], opts: { fetch?: boolean; repo?: string; token?: string; apiBase: string }) => {
      const root = recordingRoot(cwdOf(program));
      if (!files.length && !opts.fetch) throw new TenureError('invalid-input', 'Name JSON files to import, or pass --fetch to read GitHub.');
      await withWorkspace(root, async (ws) => {
        const clock = clockFromEnv();
        const importer = new GitHubImporter(ws, clock);
        let imported = 0;
        let skipped = 0;
        for (const f of files) {
          let value: unknown;
          try {
            value = JSON.parse(fs.readFileSync(path.resolve(f), 'utf8'));
          } catch (e) {
            throw new TenureError('invalid-input', `${f} is not a readable JSON file: ${errorMessage(e)}`);
          }
          const r = await importer.importJson(value, f);
          imported += r.imported;
          skipped += r.skipped;
          for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
        }
        if (opts.fetch) {
          const token = opts.token ?? process.env['GITHUB_TOKEN'];
          if (!token) throw new TenureError('invalid-input', 'A token is needed to read GitHub: pass --token or set GITHUB_TOKEN.');
          const named = opts.repo ? /^([^/]+)\/([^/]+)$/.exec(opts.repo) : null;
          const repo = named ? { owner: named[1]!, name: named[2]! } : await githubRepoOf(root);
          if (!repo) throw new TenureError('invalid-input', 'The origin remote is not on GitHub: pass --repo owner/name.');
          const info = await repoInfo(root);
          const bundles = await fetchGitHubOutcomes({ token, owner: repo.owner, repo: repo.name, branch: info?.branch ?? null, sha: info?.head ?? null, apiBase: opts.apiBase });
          const r = await importer.importJson(bundles, `${repo.owner}/${repo.name}`);
          imported += r.imported;
          skipped += r.skipped;
        }
        process.stdout.write(`Recorded ${imported} GitHub outcome${imported === 1 ? '' : 's'}${skipped ? ` (${skipped} already recorded or undecided)` : ''}.\n`);
        if (imported) await afterOutcome(ws, loadOptions(root, warn), false);
      });
    });

  const eps = program.command('episodes').description('Inspect and maintain the episodic memory.');
  eps
    .command('note')
    .description('Record a note of your own (human feedback) about symbols or the latest attempt: kept at higher confidence than an agent\'s conclusion, decaying slowly.')
    .argument('<text>', 'what you want the agent to know')
    .option('--symbol <symbols...>', 'symbols it is about')
    .option('--episode <id>', 'the episode it is about', (v) => Number(v))
    .action(async (text: string, opts: { symbol?: string[]; episode?: number }) => {
      const root = recordingRoot(cwdOf(program));
      await withRecorder(root, async (recorder) => {
        const r = await recorder.recordConclusion({ text, authorKind: 'person', author: process.env['USER'] ?? 'person', symbols: opts.symbol ?? [], episodeId: opts.episode ?? null });
        process.stdout.write(`recorded note #${r.id} at confidence ${r.confidence} (half-life ${r.halfLifeDays} days)${r.symbols.length ? ` on ${r.symbols.map((s) => s.qname).join(', ')}` : ''}\n`);
        for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
      });
    });

  eps
    .command('list')
    .description('The most recent episodes, newest first.')
    .option('-n, --limit <n>', 'how many', (v) => Number(v), 20)
    .option('--archived', 'include archived episodes')
    .option('--json', 'print as JSON')
    .action(async (opts: { limit: number; archived?: boolean; json?: boolean }) => {
      await withWorkspace(recordingRoot(cwdOf(program)), async (ws) => {
        const ids = (await allEpisodeIds(ws.db, { includeArchived: !!opts.archived })).slice(-opts.limit).reverse();
        const list = await loadEpisodes(ws.db, ids);
        if (opts.json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        const now = clockFromEnv().now();
        const c = await episodeCounts(ws.db);
        process.stdout.write(`${c.active} active episodes (${Object.entries(c.byStatus).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}), ${c.archived} archived, ${c.conclusions} conclusions.\n`);
        for (const e of list) process.stdout.write(episodeLine(e, now) + '\n');
      });
    });

  eps
    .command('show')
    .description('One episode in full: command, outcome, evidence, failing tests, touched symbols, conclusions.')
    .argument('<id>', 'episode id', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(async (id: number, opts: { json?: boolean }) => {
      await withWorkspace(recordingRoot(cwdOf(program)), async (ws) => {
        const [e] = await loadEpisodes(ws.db, [id]);
        if (!e) throw new TenureError('invalid-input', `There is no episode #${id}. List them with \`tenure episodes list\`.`);
        const conclusions = await conclusionsFor(ws.db, { episodeIds: [id] });
        if (opts.json) return void process.stdout.write(JSON.stringify({ ...e, conclusions }, null, 2) + '\n');
        const now = clockFromEnv().now();
        const out = [episodeLine(e, now)];
        if (e.intent) out.push(`intent: ${e.intent}`);
        out.push(`captured by: ${e.source}${e.actor ? ` (${e.actor})` : ''}; branch ${e.branch ?? '?'} at ${e.head?.slice(0, 10) ?? '?'}${e.commitMessage ? ` — ${e.commitMessage}` : ''}`);
        out.push(`outcome: ${e.outcome.kind} ${e.outcome.status} — decided by ${e.outcome.source}, confidence high (outcomes never decay)`);
        if (e.outcome.evidence) out.push('evidence:', ...e.outcome.evidence.split('\n').map((l) => `  ${l}`));
        if (e.tests) out.push(`tests: ${e.tests.total - e.tests.failed - e.tests.errors}/${e.tests.total} passed, ${e.tests.skipped} skipped (reports: ${e.tests.reports.join(', ') || 'n/a'})`);
        for (const f of e.tests?.failing ?? []) out.push(`  ✗ ${f.suite ? `${f.suite} › ` : ''}${f.name}${f.message ? ` — ${f.message.split('\n')[0]}` : ''}`);
        out.push(`touched (${e.touchBasis ?? 'unknown basis'}): ${e.diff.files} files, +${e.diff.added} −${e.diff.removed}`);
        for (const t of e.touches) out.push(`  ${t.change} ${t.qname ?? '(file)'} ${t.path} (${t.lines} lines)`);
        for (const c of conclusions) out.push(`conclusion #${c.id} by ${c.author} (${c.authorKind}), confidence ${c.confidence} → ${decayedConfidence(c, now).toFixed(2)} now: "${c.text}"`);
        if (e.archivedAt) out.push(`archived ${new Date(e.archivedAt).toISOString().slice(0, 10)}: ${e.archiveReason}`);
        process.stdout.write(out.join('\n') + '\n');
      });
    });

  eps
    .command('evict')
    .description('Archive episodes whose symbols are gone or whose code has changed beyond the threshold, and the lowest-weight ones beyond the size cap. Nothing is deleted.')
    .option('--dry-run', 'list what would be archived')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const r = await evictEpisodes(ws, loadOptions(root, warn), clockFromEnv(), { dryRun: !!opts.dryRun });
        if (opts.json) return void process.stdout.write(JSON.stringify(r, null, 2) + '\n');
        if (r.skipped) process.stdout.write(`note: ${r.skipped}\n`);
        process.stdout.write(`${r.dryRun ? 'Would archive' : 'Archived'} ${r.archived.length} of ${r.checked} episodes with touched code (symbols gone ${r.byReason.symbolsGone}, code changed ${r.byReason.codeChanged}, files gone ${r.byReason.filesGone}, size cap ${r.byReason.sizeCap}).\n`);
        for (const a of r.archived.slice(0, 20)) process.stdout.write(`  #${a.id}: ${a.reason}\n`);
      });
    });

  eps
    .command('backup')
    .description('Copy the whole database (episodes, rules, notes included) to .tenure/backups/.')
    .action(async () => {
      await withWorkspace(recordingRoot(cwdOf(program)), async (ws) => {
        process.stdout.write(`Backed up to ${await backupDatabase(ws, 'manual')}\n`);
      });
    });

  imp
    .command('episodes')
    .description('Import an episode file (a seed such as examples/settlement/tenure-seed/episodes.json, or an export). Idempotent.')
    .argument('<file>', 'episode JSON file')
    .action(async (file: string) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const options = loadOptions(root, warn);
        const r = await importEpisodes(ws, path.resolve(file), clockFromEnv(), options);
        process.stdout.write(`Imported ${r.imported} episodes and ${r.conclusions} conclusions${r.skipped ? `; ${r.skipped} already present` : ''}.\n`);
        for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
        const rules = await refreshRules(ws, options, clockFromEnv());
        printRuleNews(rules);
      });
    });

  program
    .command('export')
    .description('Export memories that cannot be rebuilt.')
    .command('episodes')
    .description('Every episode and conclusion (archived included) as an episode file.')
    .argument('[file]', 'output file (default: stdout)')
    .action(async (file: string | undefined) => {
      await withWorkspace(recordingRoot(cwdOf(program)), async (ws) => {
        const text = JSON.stringify(await exportEpisodes(ws), null, 2) + '\n';
        if (file) fs.writeFileSync(file, text);
        else process.stdout.write(text);
      });
    });

  ruleCommands(program);
};

function episodeLine(e: StoredEpisode, now: number): string {
  const symbols = e.touches.filter((t) => t.sid).map((t) => t.qname);
  const tests = e.tests ? ` · tests ${e.tests.total - e.tests.failed - e.tests.errors}/${e.tests.total}` : '';
  return `#${e.id} · ${describeAge(now - e.startedAt)} · ${e.outcome.kind} ${e.outcome.status}${tests}${e.command ? ` · ${e.command}` : ''}${symbols.length ? ` · ${symbols.slice(0, 3).join(', ')}${symbols.length > 3 ? ', …' : ''}` : ''}${e.archivedAt ? ' · archived' : ''}`;
}

/** Who approves: git's user, else the login name. */
async function approver(root: string): Promise<string> {
  const [name, email] = await Promise.all([userName(root), userEmail(root)]);
  return name ? `${name}${email ? ` <${email}>` : ''}` : (process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown person');
}

function printRuleNews(r: RefreshReport, out: (s: string) => void = (s) => process.stdout.write(s + '\n')): void {
  for (const rule of r.proposed) out(`rule ${rule.id} is proven and proposed for AGENTS.md: ${rule.text} (${count(rule.successes, 'success', 'successes')}, ${count(rule.failures, 'failure')}) — review with \`tenure rules promote ${rule.id}\``);
  for (const rule of r.demotionProposed) out(`rule ${rule.id} is failing since it was promoted (${rule.failuresSincePromotion} failures): ${rule.promotedText ?? rule.text} — review with \`tenure rules demote ${rule.id}\``);
}

/** After an outcome: archive what has gone stale (at most every few hours) and re-mine rules; tell the person what changed. */
export async function afterOutcome(ws: Workspace, options: MemoryOptions, quiet: boolean, episode?: StoredEpisode): Promise<void> {
  const news = await coreAfterOutcome(ws, options, clockFromEnv(), episode);
  if (quiet) return;
  const ev = news.evicted;
  if (ev && ev.archived.length) warn(`archived ${ev.archived.length} episode${ev.archived.length === 1 ? '' : 's'} about code that has changed or gone (\`tenure episodes list --archived\`)`);
  printRuleNews(news.rules, (s) => warn(s));
}

const STATUS_ORDER: readonly RuleStatus[] = ['proposed', 'demotion-proposed', 'promoted', 'candidate', 'demoted', 'rejected'];

function ruleLine(r: Rule): string {
  return `${String(r.id).padStart(3)} ${r.status.padEnd(17)} ${r.successes}✓ ${r.failures}✗ lb ${r.lowerBound.toFixed(2)}  ${r.promotedText ?? r.text}`;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function printPlan(plan: SectionPlan): void {
  for (const r of plan.promote) process.stdout.write(`promote rule ${r.id}: ${r.text}\n  ${r.reason ?? ''}\n`);
  for (const r of plan.demote) process.stdout.write(`demote rule ${r.id}: ${r.promotedText ?? r.text}\n  ${r.reason ?? ''}\n`);
  for (const n of plan.notes) process.stdout.write(`note: ${n}\n`);
  process.stdout.write('\n');
  for (const f of plan.files) process.stdout.write(f.diff + '\n');
}

/** Shows the exact diff, asks, and writes only on a yes (or --yes). */
async function reviewAndApply(ws: Workspace, plan: SectionPlan, yes: boolean, verb: string): Promise<number> {
  if (!plan.files.length) {
    process.stdout.write('The instruction files already say this: nothing to write.\n');
    return EXIT.ok;
  }
  printPlan(plan);
  const ok = yes || (await confirm(`Write this change to ${plan.files.map((f) => f.path).join(' and ')}? [y/N] `));
  if (!ok) {
    process.stdout.write(
      process.stdin.isTTY || yes
        ? 'Not written.\n'
        : `Not written: ${verb} needs a person's approval of the diff above. Run this in a terminal to confirm, or pass --yes once you have read it.\n`,
    );
    return EXIT.failure;
  }
  const r = await applySectionChange(ws, plan, { approver: await approver(ws.root), via: yes ? 'cli --yes' : 'cli confirmation' }, clockFromEnv());
  process.stdout.write(`Wrote ${r.written.join(', ')}: ${[...r.promoted.map((id) => `rule ${id} promoted`), ...r.demoted.map((id) => `rule ${id} demoted`)].join(', ')}.\n`);
  return EXIT.ok;
}

function ruleCommands(program: import('commander').Command): void {
  const rules = program.command('rules').description('Procedural memory: rules learned from episodes; promotion into AGENTS.md needs your approval.');
  rules
    .command('list')
    .description('Rules mined from the episodes, with their counters, standing and why they are (not yet) proposed.')
    .option('--all', 'include demoted and rejected rules')
    .option('--json', 'print as JSON')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        await refreshRules(ws, loadOptions(root, warn), clockFromEnv());
        const list = (await listRules(ws.db)).filter((r) => opts.all || (r.status !== 'demoted' && r.status !== 'rejected'));
        if (opts.json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        if (!list.length) return void process.stdout.write('No rules yet. Rules are mined from recorded attempts (`tenure run -- <command>`): an ordering that keeps succeeding, a change that keeps failing.\n');
        for (const status of STATUS_ORDER) {
          const group = list.filter((r) => r.status === status);
          if (!group.length) continue;
          process.stdout.write(`${status} (${group.length}) — ${RULE_STATUS_MEANING[status]}:\n`);
          for (const r of group) process.stdout.write(`${ruleLine(r)}\n${r.reason ? `      ${r.reason}\n` : ''}`);
        }
      });
    });

  rules
    .command('promote')
    .description('Show the exact change to AGENTS.md (and .github/copilot-instructions.md if present) that promoting rules makes, and write it after you confirm.')
    .argument('[ids...]', 'rule ids (default: every proposed rule)')
    .option('-y, --yes', 'approve without asking (for scripts: read the diff first)')
    .action(async (idArgs: string[], opts: { yes?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      const code = await withWorkspace(root, async (ws) => {
        await refreshRules(ws, loadOptions(root, warn), clockFromEnv());
        const chosen = idArgs.length ? idArgs.map(Number) : (await listRules(ws.db, { statuses: ['proposed'] })).map((r) => r.id);
        if (!chosen.length) {
          process.stdout.write('No rule is proposed for promotion. `tenure rules list` shows candidates and what each still needs.\n');
          return EXIT.ok;
        }
        return reviewAndApply(ws, await planSectionChange(ws, { promote: chosen }), !!opts.yes, 'promotion');
      });
      if (code) await exitWith(code);
    });

  rules
    .command('demote')
    .description('Show the change that takes promoted rules out of AGENTS.md, and write it after you confirm.')
    .argument('[ids...]', 'rule ids (default: every rule proposed for demotion)')
    .option('-y, --yes', 'approve without asking')
    .action(async (idArgs: string[], opts: { yes?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      const code = await withWorkspace(root, async (ws) => {
        await refreshRules(ws, loadOptions(root, warn), clockFromEnv());
        const chosen = idArgs.length ? idArgs.map(Number) : (await listRules(ws.db, { statuses: ['demotion-proposed'] })).map((r) => r.id);
        if (!chosen.length) {
          process.stdout.write('No rule is proposed for demotion.\n');
          return EXIT.ok;
        }
        return reviewAndApply(ws, await planSectionChange(ws, { demote: chosen }), !!opts.yes, 'demotion');
      });
      if (code) await exitWith(code);
    });

  rules
    .command('reject')
    .description('Decline a proposal: a proposed rule becomes rejected; a rule proposed for demotion is kept (its failures count afresh).')
    .argument('<id>', 'rule id', (v) => Number(v))
    .option('--note <text>', 'why')
    .action(async (id: number, opts: { note?: string }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const r = await declineProposal(ws, id, await approver(root), clockFromEnv(), opts.note ?? null);
        process.stdout.write(`Rule ${id} is now ${r.status}.\n`);
      });
    });

  rules
    .command('audit')
    .description('Why a rule is what it is: the episodes that proved (or broke) it, and every decision taken on it, with the diff that was approved.')
    .argument('<id>', 'rule id', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(async (id: number, opts: { json?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const r = await getRule(ws.db, id);
        if (!r) throw new TenureError('invalid-input', `There is no rule ${id}. List rules with \`tenure rules list --all\`.`);
        const evidence = await ruleEvidence(ws.db, id);
        const events = await ruleEvents(ws.db, id);
        const episodes = new Map((await loadEpisodes(ws.db, evidence.map((e) => e.episodeId))).map((e) => [e.id, e]));
        if (opts.json) return void process.stdout.write(JSON.stringify({ rule: r, evidence, events, episodes: [...episodes.values()] }, null, 2) + '\n');
        const now = clockFromEnv().now();
        const out = [`rule ${r.id} (${r.kind}) — ${r.status}: ${RULE_STATUS_MEANING[r.status]}`, `  ${r.promotedText ?? r.text}`];
        if (r.promotedText && r.promotedText !== r.text) out.push(`  mining now says: ${r.text}`);
        out.push(`  ${count(r.successes, 'success', 'successes')}, ${count(r.failures, 'failure')}, Wilson lower bound ${r.lowerBound.toFixed(2)}${r.reason ? `; ${r.reason}` : ''}`);
        out.push(`evidence (${evidence.length} episodes):`);
        for (const e of evidence) {
          const ep = episodes.get(e.episodeId);
          out.push(`  ${e.role === 'success' ? '✓' : '✗'} #${e.episodeId} ${describeAge(now - e.at)} — ${e.detail}${ep ? ` [${ep.outcome.kind} ${ep.outcome.status}${ep.archivedAt ? ', archived' : ''}]` : ''}`);
        }
        out.push(`decisions (${events.length}):`);
        for (const ev of events) {
          const d = ev.detail as { diff?: string; via?: string; note?: string } | null;
          out.push(`  ${new Date(ev.at).toISOString().slice(0, 16).replace('T', ' ')} ${ev.event} by ${ev.actor}${d?.via ? ` (${d.via})` : ''}${d?.note ? `: ${d.note}` : ''}`);
          if (d?.diff) out.push(...d.diff.trimEnd().split('\n').map((l) => `      ${l}`));
        }
        process.stdout.write(out.join('\n') + '\n');
      });
    });
}
