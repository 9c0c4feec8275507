import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultPoolSize } from '../src/core/structural/inventory/parsePool.js';
import type { FullResult, QueryResult, ThreadResult } from './child.js';
import { claimBenchDir, prepareDjango, prepareSettlement, prepareTsPackage, BENCH_DIR, type Corpus } from './corpora.js';
import { describeMachine } from './machine.js';
import { fmtInt, fmtMB, fmtMs, median, medianIndex, percentile, verdict, withKeptSections, type Row } from './stats.js';
import { artifactRows } from './artifacts.js';
import { historyAtScaleRows, runOverheadRows } from './episodic.js';
import { knowledgeBenchRows } from './knowledge.js';
import { reasonRows, runReasonBench } from './knowledgeReasons.js';
import { leidenBenchRows } from './leiden.js';
import { teamBenchRows } from './team.js';
import { tokenRows } from './tokens.js';
import { cliQueryRows, djangoProcessRows, scaleRows } from './scale.js';

/*
 * `npm run bench`: indexes three corpora, then measures the knowledge, episodic
 * and artifact memories and Leiden, and prints one markdown table (also
 * written to docs/benchmarks.md). Every full index and every re-index runs in
 * its own process. Options: --only=django,ts,settlement,leiden,knowledge,reasons,episodic,artifacts,tokens,team,scale   --no-write
 * --scale-files=N (the scale section's full size; 4,000 by default, 40000 for the large corpus)
 *
 * Only a full run rewrites docs/benchmarks.md, and only its generated part:
 * the sections written by hand below its end marker (stats.ts) are measurements of their
 * own (dated, with their commands) and are kept. A section that fails is a
 * row of the table and makes the run exit 1.
 */

const REPO_ROOT = path.resolve(__dirname, '..', '..');
let CHILD = path.join(__dirname, 'child.js');
const FULL_RUNS = 3;
const NOOP_RUNS = 3;

const TARGETS = {
  djangoFullMs: 3000,
  saveToQueryMs: 200,
  whatBreaksP95Ms: 10,
  /** The extension host must never be blocked longer than this by Tenure. */
  holdMs: 50,
};


function runChild<T>(mode: 'full' | 'noop' | 'query' | 'thread' | 'wb', root: string, timeoutMs: number): { ok: true; value: T } | { ok: false; error: string } {
  const r = spawnSync(process.execPath, [CHILD, mode, root], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) return { ok: false, error: `${mode} child failed: ${r.error.message}` };
  if (r.signal) return { ok: false, error: `${mode} child killed by ${r.signal}${r.signal === 'SIGTERM' ? ` (over the ${timeoutMs / 1000} s limit)` : ''}` };
  if (r.status !== 0) return { ok: false, error: `${mode} child exited ${r.status}: ${firstError(r.stderr || '')}` };
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return { ok: true, value: JSON.parse(line) as T };
  } catch {
    return { ok: false, error: `${mode} child printed no result: ${line.slice(0, 200)}` };
  }
}

/** The line of a stack trace or log that says what went wrong. */
function firstError(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /^\w*(Error|Exception)\b|^\w+Error:/.test(l)) ?? lines[lines.length - 1] ?? 'no output';
  return line.slice(0, 300);
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function fullRows(c: Corpus, runs: FullResult[]): Row[] {
  const label = c.label;
  const mid = runs[medianIndex(runs.map((r) => r.report.ms))]!;
  const ms = median(runs.map((r) => r.report.ms));
  const r = mid.report;
  const secs = ms / 1000;
  const p = r.phases;
  const rss = Math.max(...runs.map((x) => x.maxRssKB)) / 1024;
  const target = c.id === 'django' ? verdict(ms < TARGETS.djangoFullMs, `< ${TARGETS.djangoFullMs / 1000} s`) : '';
  return [
    [label, 'corpus', `${fmtInt(r.files)} files (${fmtInt(r.parsed)} parsed, ${r.skippedCount} skipped), ${fmtMB(r.bytes)}; ${fmtInt(r.symbols)} symbols, ${fmtInt(r.edges)} edges`, ''],
    [
      label,
      `full index, fresh DB (median of ${runs.length})`,
      `**${fmtMs(ms)}** · ${fmtInt(r.files / secs)} files/s · ${(r.bytes / 1e6 / secs).toFixed(2)} MB/s (runs: ${runs.map((x) => fmtMs(x.report.ms)).join(', ')}; whole process ${fmtMs(median(runs.map((x) => x.processMs)))})`,
      target,
    ],
    [
      label,
      'full index phases (median run)',
      `parse ${fmtMs(p.parse)} (of which tree-sitter ${fmtMs(mid.treeSitterMs)} CPU summed over workers) · resolve ${fmtMs(p.resolve)} · write ${fmtMs(p.write)} · discover ${fmtMs(p.discover)}`,
      '',
    ],
    [label, `peak RSS, full index (max of ${runs.length})`, `${Math.round(rss)} MB`, ''],
  ];
}

/**
 * How long a thread is held while indexing: the thread that runs the indexer
 * (the CLI and MCP server run it in their main thread), and the host's thread
 * when the indexer runs in its own (the extension), which is what the editor feels.
 */
function holdRows(c: Corpus, full: FullResult[], noop: FullResult[], threaded: ThreadResult | undefined, threadError: string | undefined): Row[] {
  const worst = Math.max(...full.map((r) => r.longestHoldMs), ...noop.map((r) => r.longestHoldMs));
  const parts = [`full index ${full.map((r) => `${r.longestHoldMs} ms`).join(', ')}`];
  if (noop.length) parts.push(`re-open and re-index ${noop.map((r) => `${r.longestHoldMs} ms`).join(', ')}`);
  return [
    [c.label, 'longest hold of the thread running the indexer (CLI, MCP server)', `**${worst} ms** (${parts.join(' · ')})`, ''],
    [
      c.label,
      'longest hold of the host thread, indexer in its own thread (the extension), full index',
      threaded ? `**${threaded.longestHoldMs} ms** (index ${fmtMs(threaded.ms)})` : `not measured: ${threadError ?? 'unknown error'}`,
      threaded ? verdict(threaded.longestHoldMs <= TARGETS.holdMs, `≤ ${TARGETS.holdMs} ms`) : '',
    ],
  ];
}

function queryRows(c: Corpus, noop: FullResult[], noopError: string | undefined, q: QueryResult | undefined, qError: string | undefined): Row[] {
  const label = c.label;
  const rows: Row[] = [];
  const noopParts: string[] = [];
  if (noop.length) {
    const parsed = Math.max(...noop.map((n) => n.report.parsed));
    const mid = noop[medianIndex(noop.map((n) => n.report.ms))]!;
    noopParts.push(
      `new process **${fmtMs(median(noop.map((n) => n.report.ms)))}** (median of ${noop.length}; load ${fmtMs(mid.report.phases.load)}, discover ${fmtMs(mid.report.phases.discover)}; ${parsed} parsed${parsed ? ' ✗ not a no-op' : ''})`,
    );
  } else if (noopError) noopParts.push(`new process: ${noopError}`);
  if (q) noopParts.push(`same process **${fmtMs(median(q.warmNoopMs))}** (median of ${q.warmNoopMs.length}; ${q.warmNoopParsed} parsed${q.warmNoopParsed ? ' ✗ not a no-op' : ''})`);
  rows.push([label, 're-index, nothing changed', noopParts.join(' · ') || 'n/a', '']);
  if (!q) {
    rows.push([label, 'save → query, what_breaks', `not measured: ${qError ?? 'unknown error'}`, '']);
    return rows;
  }
  if (q.edit) {
    const e = q.edit;
    const p50 = median(e.totalMs);
    const p95 = percentile(e.totalMs, 95);
    const fail = e.failures.length ? ` ✗ ${e.failures.length} check(s) failed: ${e.failures[0]}` : '';
    rows.push([
      label,
      `save → query: append a function, updateFiles, find it (n=${e.totalMs.length})`,
      `p50 **${fmtMs(p50)}** · p95 **${fmtMs(p95)}** (updateFiles p50 ${fmtMs(median(e.updateMs))}, query p50 ${fmtMs(median(e.queryMs))}; \`${e.file}\`, ${fmtMB(e.bytes)})${fail}`,
      verdict(p95 < TARGETS.saveToQueryMs && !e.failures.length, `< ${TARGETS.saveToQueryMs} ms`),
    ]);
  } else {
    rows.push([label, 'save → query', `not measured: ${q.editError ?? 'unknown error'}`, '']);
  }
  const wb = q.wb;
  if (!wb.sample) {
    rows.push([label, 'what_breaks', 'not measured: no method or function with a caller', '']);
    return rows;
  }
  const errs = wb.errors.length ? ` ✗ ${wb.errors.length} error(s): ${wb.errors[0]}` : '';
  const sampleNote = `n=${wb.sample} of ${fmtInt(wb.candidates)} called methods/functions`;
  rows.push([
    label,
    `what_breaks depth 1 (${sampleNote})`,
    `p50 **${fmtMs(median(wb.d1Ms))}** · p95 **${fmtMs(percentile(wb.d1Ms, 95))}** · max ${fmtMs(Math.max(...wb.d1Ms))} (dependents: median ${median(wb.d1Dependents)}, max ${Math.max(...wb.d1Dependents)})${errs}`,
    '',
  ]);
  const p95d5 = percentile(wb.d5Ms, 95);
  rows.push([
    label,
    `what_breaks depth 5 (same sample)`,
    `p50 **${fmtMs(median(wb.d5Ms))}** · p95 **${fmtMs(p95d5)}** · max ${fmtMs(Math.max(...wb.d5Ms))}${wb.slowest ? ` (\`${wb.slowest.qname}\`: ${fmtInt(wb.slowest.dependents)} dependent${wb.slowest.dependents === 1 ? '' : 's'}, ${fmtInt(wb.slowest.ambiguous)} ambiguous)` : ''}; ${wb.d5Ms.filter((m) => m >= TARGETS.whatBreaksP95Ms).length} of ${wb.d5Ms.length} took ≥ ${TARGETS.whatBreaksP95Ms} ms (dependents: median ${median(wb.d5Dependents)}, max ${fmtInt(Math.max(...wb.d5Dependents))})`,
    verdict(p95d5 < TARGETS.whatBreaksP95Ms && !wb.errors.length, `p95 < ${TARGETS.whatBreaksP95Ms} ms`),
  ]);
  return rows;
}

function benchCorpus(c: Corpus): Row[] {
  if (!c.root) return [[c.label, 'not run', c.error ?? 'not prepared', '']];
  const dbDir = path.join(c.root, '.tenure');
  const full: FullResult[] = [];
  let fullError: string | undefined;
  for (let i = 0; i < FULL_RUNS; i++) {
    fs.rmSync(dbDir, { recursive: true, force: true });
    log(`${c.label}: full index ${i + 1}/${FULL_RUNS}`);
    const r = runChild<FullResult>('full', c.root, 240_000);
    if (!r.ok) {
      fullError = r.error;
      break;
    }
    full.push(r.value);
  }
  if (!full.length || fullError) {
    return [[c.label, 'full index', `failed: ${fullError ?? 'no run completed'}`, ''], ...(full.length ? fullRows(c, full) : [])];
  }
  const rows = fullRows(c, full);
  fs.rmSync(dbDir, { recursive: true, force: true });
  log(`${c.label}: full index in a thread, as the extension runs it`);
  const threaded = runChild<ThreadResult>('thread', c.root, 240_000);
  const noop: FullResult[] = [];
  let noopError: string | undefined;
  for (let i = 0; i < NOOP_RUNS; i++) {
    log(`${c.label}: re-index with nothing changed ${i + 1}/${NOOP_RUNS}`);
    const r = runChild<FullResult>('noop', c.root, 120_000);
    if (!r.ok) {
      noopError = r.error;
      break;
    }
    noop.push(r.value);
  }
  log(`${c.label}: save → query and what_breaks`);
  const q = runChild<QueryResult>('query', c.root, 240_000);
  rows.push(...holdRows(c, full, noop, threaded.ok ? threaded.value : undefined, threaded.ok ? undefined : threaded.error));
  rows.push(...queryRows(c, noop, noopError, q.ok ? q.value : undefined, q.ok ? undefined : q.error));
  return rows;
}

/**
 * Copies the compiled code the children run (out/src, out/bench, grammars)
 * into the scratch folder, so a rebuild of the working tree during the run
 * cannot hand a child half-old, half-new modules. node_modules is linked.
 */
function snapshotBuild(): string {
  const snap = path.join(BENCH_DIR, 'build');
  fs.rmSync(snap, { recursive: true, force: true });
  fs.mkdirSync(path.join(snap, 'out'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'out', 'src'), path.join(snap, 'out', 'src'), { recursive: true });
  fs.cpSync(__dirname, path.join(snap, 'out', 'bench'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'grammars'), path.join(snap, 'grammars'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(snap, 'package.json'));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(snap, 'node_modules'), 'junction');
  return path.join(snap, 'out', 'bench', 'child.js');
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

async function main(): Promise<void> {
  const started = performance.now();
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  // A partial run's table would replace the full one: it prints, and leaves the file alone.
  const write = !args.includes('--no-write') && !only;
  const command = process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : `node ${path.relative(REPO_ROOT, process.argv[1] ?? 'out/bench/run.js')}${args.length ? ' ' + args.join(' ') : ''}`;
  const machine = describeMachine();
  const loadBefore = os.loadavg()[0]!;

  if (!fs.existsSync(CHILD)) throw new Error(`${CHILD} is missing: run \`npm run build\` first.`);
  claimBenchDir();
  try {
    CHILD = snapshotBuild();
  } catch (e) {
    log(`could not snapshot the build (${e instanceof Error ? e.message : String(e)}); running children from out/ directly`);
  }

  const preparers: { id: string; prepare: () => Corpus }[] = [
    { id: 'django', prepare: prepareDjango },
    { id: 'ts', prepare: prepareTsPackage },
    { id: 'settlement', prepare: () => prepareSettlement(REPO_ROOT) },
  ];
  const rows: Row[] = [];
  const sources: string[] = [];
  const scaleFiles = Number(args.find((a) => a.startsWith('--scale-files='))?.slice('--scale-files='.length) ?? 4000);
  for (const p of preparers) {
    if (only && !only.includes(p.id)) continue;
    log(`preparing ${p.id}`);
    let corpus: Corpus;
    try {
      corpus = p.prepare();
    } catch (e) {
      corpus = { id: p.id, label: p.id, source: '', error: `preparation failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (corpus.source) sources.push(`- **${corpus.label}**: ${corpus.source}${corpus.root ? `, indexed at \`${corpus.root}\`` : ''}.`);
    try {
      rows.push(...benchCorpus(corpus));
    } catch (e) {
      rows.push([corpus.label, 'not run', `benchmark failed: ${e instanceof Error ? e.message : String(e)}`, '']);
    }
  }


  // The other memories and sources, each in this process (their own files document the details).
  const sections: { id: string; label: string; rows: () => Row[] | Promise<Row[]> }[] = [
    { id: 'leiden', label: 'Leiden (docs/leiden.md)', rows: () => leidenBenchRows() },
    { id: 'knowledge', label: 'knowledge memory (docs/knowledge-bench.md)', rows: () => knowledgeBenchRows(REPO_ROOT) },
    { id: 'reasons', label: 'why_is_this finds the reason (docs/knowledge-bench.md)', rows: async () => reasonRows(await runReasonBench({ model: true, log })) },
    { id: 'episodic', label: 'episodic memory (docs/episodic.md)', rows: async () => [...runOverheadRows(REPO_ROOT), ...(await historyAtScaleRows(REPO_ROOT))] },
    { id: 'artifacts', label: 'bytecode, DI and traces (docs/artifacts.md)', rows: () => artifactRows() },
    { id: 'tokens', label: 'tokens per tool answer', rows: () => tokenRows(REPO_ROOT) },
    { id: 'team', label: 'team store on PostgreSQL (docs/team.md)', rows: () => teamBenchRows(REPO_ROOT) },
    {
      id: 'scale',
      label: 'scale: whole-process `tenure index` at ¼, ½ and full size, and Django',
      rows: async () => {
        const django = prepareDjango();
        const djangoRows = django.root ? djangoProcessRows(REPO_ROOT, django.root) : [['Django', 'not run', django.error ?? '', ''] as Row];
        if (django.root) {
          const q = runChild<QueryResult['wb']>('wb', django.root, 900_000);
          if (q.ok) {
            const p95 = percentile(q.value.d5Ms, 95);
            djangoRows.push(['Django', `what_breaks depth 5, in process (p95 of ${q.value.d5Ms.length})`, `**${fmtMs(p95)}** (median ${fmtMs(median(q.value.d5Ms))}, max ${fmtMs(Math.max(...q.value.d5Ms))}; slowest ${q.value.slowest?.qname ?? ''})`, verdict(p95 <= TARGETS.whatBreaksP95Ms, `≤ ${TARGETS.whatBreaksP95Ms} ms`)]);
          } else djangoRows.push(['Django', 'what_breaks depth 5', `failed: ${q.error}`, '']);
          djangoRows.push(...(await cliQueryRows(REPO_ROOT, django.root)));
        }
        const scale = scaleRows({ files: scaleFiles, repoRoot: REPO_ROOT, log });
        sources.push(...scale.notes.map((n) => n.replace(/^- /, '- ')));
        return [...djangoRows, ...scale.rows];
      },
    },
  ];
  for (const section of sections) {
    if (only && !only.includes(section.id)) continue;
    log(`${section.label}`);
    try {
      rows.push(...(await section.rows()));
    } catch (e) {
      rows.push([section.label, 'not run', `benchmark failed: ${e instanceof Error ? e.message : String(e)}`, '']);
    }
  }

  const totalS = (performance.now() - started) / 1000;
  const header = [
    '# Benchmarks',
    '',
    `- **Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.ramGB.toFixed(1)} GB RAM, ${machine.platform}`,
    `- **Node**: ${machine.node}`,
    `- **Date**: ${machine.date}`,
    `- **Command**: \`${command}\` (took ${totalS.toFixed(0)} s; parse workers: ${defaultPoolSize()}; 1-min load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after)`,
    ...(Math.max(loadBefore, os.loadavg()[0]!) > machine.cores / 2
      ? [`- **Warning**: other work was running (load average above half the cores); timings are inflated. Re-run on an idle machine.`]
      : []),
    '',
  ];
  const table = [
    '| Corpus | Measurement | Result | Target |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.map(escapeCell).join(' | ')} |`),
  ];
  const notes = [
    '',
    'Corpora (copied or unpacked under the OS temp folder, never into the repository):',
    ...sources,
    '',
    'How it is measured:',
    `- Full index: \`StructuralIndexer.indexAll()\` with the default parse workers, a fresh \`.tenure/\` each run, each run in its own Node process. Time is \`IndexReport.ms\` (discover → parse → resolve → write); "whole process" adds Node start-up, module loading and opening/closing SQLite. MB = 10^6 bytes of source. Peak RSS is \`process.resourceUsage().maxRSS\` of that process (parse workers are threads, so included).`,
    '- Re-index, nothing changed: `indexAll()` again, in a new process (loads the graph from SQLite, then stats every file) and in the process that already holds it.',
    '- Save → query: the median-size file of the main language gets a new function appended; the time runs from writing the file, through `updateFiles([file])`, to `resolveOneSymbol()` returning the new function (a watcher would add its debounce, 50 ms by default). Each run also checks that the previous run\'s function is gone. One warm-up run is not counted.',
    '- what_breaks: `whatBreaks(db, symbol, depth)` on up to 200 methods/functions that have at least one call edge from another symbol, picked by an even stride through symbol-id order (deterministic). Five warm-up queries are not counted.',
    '- Longest hold: while `indexAll()` runs, a 5 ms interval timer records how late it fires; the worst lateness plus its period is the longest stretch the thread did not give back (garbage-collection pauses included). Measured in the thread that runs the indexer (the CLI and MCP server work this way) and, with the indexer in its own thread (`IndexerThread`, as the extension runs it), in the thread that waits for it: the extension host\'s view.',
    '- Tokens per tool answer: every read-only tool, with its default limits, asked about 40 symbols per corpus (the 20 with the most incoming edges, then an even stride through the rest in id order); text and structured content counted with the o200k tokenizer (`gpt-tokenizer`). The budget is for the text, which is what an agent reads; the structured content carries the same items with their ids.',
    '- p95 is nearest-rank: a value that was actually measured. ✓/✗ compares with the target.',
    `- The measuring processes run a copy of the compiled code (\`out/\`, \`grammars/\`) taken when the run starts, under \`${path.join(BENCH_DIR, 'build')}\`.`,
  ];
  const markdown = [...header, ...table, ...notes, ''].join('\n');
  process.stdout.write(markdown);
  if (write) {
    const out = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, withKeptSections(markdown, fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''));
    log(`wrote ${path.relative(REPO_ROOT, out)}`);
  } else if (only) log('a partial run (--only) prints its table and does not rewrite docs/benchmarks.md');
  const failed = rows.filter((r) => r[1] === 'not run' || /^failed\b/.test(r[2] ?? '') || /\bfailed: /.test(r[2] ?? ''));
  if (failed.length) {
    log(`${failed.length} row(s) failed: ${failed.map((r) => `${r[0]} (${r[1]})`).join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
