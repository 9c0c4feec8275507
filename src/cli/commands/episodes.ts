import type { Command } from 'commander';
import { TenureError } from '../../shared/errors.js';
import { clockFromEnv, describeAge } from '../../core/episodic/clock.js';
import { backupDatabase } from '../../core/episodic/backup.js';
import { evictEpisodes } from '../../core/episodic/eviction.js';
import { decayedConfidence } from '../../core/episodic/model.js';
import { loadOptions } from '../../core/episodic/options.js';
import { allEpisodeIds, conclusionsFor, episodeCounts, loadEpisodes, type StoredEpisode } from '../../core/episodic/store.js';
import { cwdOf, withWorkspace, type CommandGroup } from '../context.js';
import { episodeFileCommands } from './episodeFiles.js';
import { outcomeImportCommands } from './outcomeImports.js';
import { recordingRoot, warn, withRecorder } from './recording.js';
import { ruleCommands } from './rules.js';
import { runCommand } from './run.js';

/*
 * The episodic and procedural commands that are not catalog tools:
 * `tenure run` (record an attempt), `tenure import …`, `tenure export …`,
 * `tenure episodes …` and `tenure rules …` (rules change AGENTS.md, so they
 * are for people, never tools an agent can call). Each group is a file of
 * its own; the order here is the order `tenure --help` lists them in.
 */

export const episodeCommands: CommandGroup = (program) => {
  runCommand(program);
  outcomeImportCommands(program);
  episodeCommandGroup(program);
  episodeFileCommands(program);
  ruleCommands(program);
};

/** `tenure episodes …`: notes, listing, one episode in full, eviction, backup. */
function episodeCommandGroup(program: Command): void {
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
}

function episodeLine(e: StoredEpisode, now: number): string {
  const symbols = e.touches.filter((t) => t.sid).map((t) => t.qname);
  const tests = e.tests ? ` · tests ${e.tests.total - e.tests.failed - e.tests.errors}/${e.tests.total}` : '';
  return `#${e.id} · ${describeAge(now - e.startedAt)} · ${e.outcome.kind} ${e.outcome.status}${tests}${e.command ? ` · ${e.command}` : ''}${symbols.length ? ` · ${symbols.slice(0, 3).join(', ')}${symbols.length > 3 ? ', …' : ''}` : ''}${e.archivedAt ? ' · archived' : ''}`;
}
