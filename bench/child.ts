import * as fs from 'node:fs';
import * as path from 'node:path';
import { TenureError } from '../src/shared/errors.js';
import { StructuralIndexer, type IndexReport } from '../src/core/structural/index/indexer.js';
import { IndexerThread } from '../src/core/structural/index/indexerThread.js';
import { type Workspace } from '../src/core/store/workspace.js';
import { SCHEMA, openWorkspace } from '../src/core/workspace.js';
import { resolveOneSymbol } from '../src/core/structural/lookup.js';
import type { SymbolRef } from '../src/core/model/symbolRef.js';
import { whatBreaks } from '../src/core/structural/impact/whatBreaks.js';
import { CANDIDATES_SHOWN, DEFAULT_LIMIT } from '../src/core/tools/whatBreaks.js';

/*
 * One measurement in its own process, so runs do not share caches or heap and
 * peak RSS belongs to that run alone. Usage: node child.js <mode> <root>.
 * Prints one JSON line on stdout.
 *   full   index from scratch (the caller removes .tenure first)
 *   noop   index again with nothing changed (a new process: load + discover)
 *   query  warm no-op re-index, save → query, what_breaks latency
 *   thread index from scratch as the extension does (IndexerThread), measuring
 *          how long this thread, the host's, is held meanwhile
 *   wb     what_breaks latency on the index already there
 *   wb-ab  the same, against another build's what_breaks (child.js wb-ab <root> <its out/> [rounds])
 */

export interface FullResult {
  readonly report: Omit<IndexReport, 'skipped'> & { skippedCount: number };
  /** Sum of tree-sitter parse time over files (CPU time across workers, excluding fact extraction). */
  readonly treeSitterMs: number;
  /** From Workspace.open to after close, in ms. */
  readonly sessionMs: number;
  /** Process start to exit, in ms. */
  readonly processMs: number;
  readonly maxRssKB: number;
  /**
   * The longest the indexing thread was held without a break (a 5 ms timer
   * running late): in the extension host, what the editor would feel.
   */
  readonly longestHoldMs: number;
}

export interface QueryResult {
  readonly coldNoop: { ms: number; parsed: number; load: number };
  readonly warmNoopMs: number[];
  readonly warmNoopParsed: number;
  readonly edit?: {
    readonly file: string;
    readonly bytes: number;
    readonly language: string;
    readonly totalMs: number[];
    readonly updateMs: number[];
    readonly queryMs: number[];
    readonly failures: string[];
  };
  readonly editError?: string;
  readonly wb: {
    readonly candidates: number;
    readonly sample: number;
    readonly d1Ms: number[];
    readonly d5Ms: number[];
    readonly d1Dependents: number[];
    readonly d5Dependents: number[];
    /** The slowest depth-5 query, to show what makes the tail. */
    readonly slowest?: { qname: string; ms: number; dependents: number; ambiguous: number; unlisted?: number };
    readonly errors: string[];
  };
  readonly maxRssKB: number;
}

const EDIT_RUNS = 20;
const WB_SAMPLE = 200;
const NOOP_WARM_RUNS = 5;

function strip(report: IndexReport): FullResult['report'] {
  const { skipped, ...rest } = report;
  return { ...rest, skippedCount: skipped.length };
}

async function full(root: string): Promise<FullResult> {
  const t0 = performance.now();
  const ws = await openWorkspace(root);
  let report: IndexReport;
  const indexer = await StructuralIndexer.create(ws);
  let treeSitterMs = 0;
  const hold = holdSampler();
  let longestHoldMs = 0;
  try {
    report = await indexer.indexAll();
    longestHoldMs = hold.stop();
    treeSitterMs = (await ws.db.get<{ ms: number | null }>('SELECT sum(parse_ms) AS ms FROM files'))?.ms ?? 0;
  } finally {
    await indexer.dispose();
    await ws.close();
  }
  const sessionMs = performance.now() - t0;
  return { report: strip(report), treeSitterMs, sessionMs, processMs: performance.now(), maxRssKB: process.resourceUsage().maxRSS, longestHoldMs };
}

/** Measures how late a 5 ms timer runs while work goes on: the longest time the thread was not given back. */
function holdSampler(): { stop(): number } {
  const PERIOD = 5;
  let expected = performance.now() + PERIOD;
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - expected + PERIOD);
    expected = now + PERIOD;
  }, PERIOD);
  return {
    stop() {
      clearInterval(timer);
      return Math.round(longest);
    },
  };
}

/** A function appended to a file (or, for Java, inserted before the class's closing brace). */
function withProbe(original: string, language: string, i: number): { text: string; name: string } | undefined {
  const nl = original.endsWith('\n') ? '' : '\n';
  switch (language) {
    case 'python': {
      const name = `tenure_bench_probe_${i}`;
      return { name, text: `${original}${nl}\n\ndef ${name}():\n    return ${i}\n` };
    }
    case 'typescript':
    case 'tsx': {
      const name = `tenureBenchProbe${i}`;
      return { name, text: `${original}${nl}\nexport function ${name}(): number {\n  return ${i};\n}\n` };
    }
    case 'javascript': {
      const name = `tenureBenchProbe${i}`;
      return { name, text: `${original}${nl}\nfunction ${name}() {\n  return ${i};\n}\n` };
    }
    case 'go': {
      const name = `TenureBenchProbe${i}`;
      return { name, text: `${original}${nl}\nfunc ${name}() int { return ${i} }\n` };
    }
    case 'java': {
      const name = `tenureBenchProbe${i}`;
      const at = original.lastIndexOf('}');
      if (at < 0) return undefined;
      return { name, text: `${original.slice(0, at)}  static int ${name}() { return ${i}; }\n${original.slice(at)}` };
    }
    default:
      return undefined;
  }
}

const PROBE_LANGUAGES = ['python', 'typescript', 'tsx', 'javascript', 'go', 'java'];

/** The median-size parsed file of the corpus's main language that defines something. */
async function pickEditFile(ws: Workspace): Promise<{ rel: string; size: number; language: string } | undefined> {
  const rows = await ws.db.all<{ path: string; size: number; language: string }>(
    `SELECT f.path, f.size, f.language FROM files f
     WHERE f.skip_reason IS NULL AND f.language IN (SELECT value FROM json_each(?))
       AND EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.kind != 'module')
     ORDER BY f.size, f.path`,
    [JSON.stringify(PROBE_LANGUAGES)],
  );
  if (!rows.length) return undefined;
  const byLanguage = new Map<string, number>();
  for (const r of rows) byLanguage.set(r.language, (byLanguage.get(r.language) ?? 0) + 1);
  const main = [...byLanguage.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
  const same = rows.filter((r) => r.language === main);
  const pick = same[Math.floor(same.length / 2)]!;
  return { rel: pick.path, size: pick.size, language: pick.language };
}

async function saveToQuery(ws: Workspace, indexer: StructuralIndexer): Promise<QueryResult['edit']> {
  const picked = await pickEditFile(ws);
  if (!picked) throw new Error('no parsed file in a language the probe supports');
  const abs = path.join(ws.root, ...picked.rel.split('/'));
  const original = fs.readFileSync(abs, 'utf8');
  const totalMs: number[] = [];
  const updateMs: number[] = [];
  const queryMs: number[] = [];
  const failures: string[] = [];
  try {
    // Run 0 warms the parse worker's grammar and SQLite's page cache; it is not counted.
    for (let i = 0; i <= EDIT_RUNS; i++) {
      const probe = withProbe(original, picked.language, i);
      if (!probe) throw new Error(`cannot add a function to ${picked.rel}`);
      const t0 = performance.now();
      fs.writeFileSync(abs, probe.text);
      const t1 = performance.now();
      const u = await indexer.updateFiles([abs]);
      const t2 = performance.now();
      let found: SymbolRef | undefined;
      try {
        found = await resolveOneSymbol(ws.db, probe.name, { root: ws.root });
      } catch (e) {
        failures.push(`run ${i}: ${probe.name} not found after updateFiles (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
      }
      const t3 = performance.now();
      if (found && found.path !== picked.rel) failures.push(`run ${i}: ${probe.name} found in ${found.path}, expected ${picked.rel}`);
      if (u.parsed !== 1) failures.push(`run ${i}: updateFiles parsed ${u.parsed} files, expected 1`);
      // The previous probe must be gone (outside the timing).
      if (i > 0) {
        const previous = withProbe(original, picked.language, i - 1)!.name;
        try {
          await resolveOneSymbol(ws.db, previous, { root: ws.root });
          failures.push(`run ${i}: ${previous} still in the index after it was removed`);
        } catch (e) {
          if (!TenureError.is(e, 'symbol-not-found')) failures.push(`run ${i}: looking up ${previous}: ${String(e)}`);
        }
      }
      if (i === 0) continue;
      totalMs.push(t3 - t0);
      updateMs.push(t2 - t1);
      queryMs.push(t3 - t2);
    }
  } finally {
    fs.writeFileSync(abs, original);
    await indexer.updateFiles([abs]);
  }
  return { file: picked.rel, bytes: picked.size, language: picked.language, totalMs, updateMs, queryMs, failures };
}

/** Methods and functions that something else calls, in symbol-id order; an even stride picks the sample. */
async function wbCandidates(ws: Workspace): Promise<SymbolRef[]> {
  return ws.db.all<SymbolRef>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE s.kind IN ('method', 'function')
       AND EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = s.id AND e.kind = 'call' AND e.src_id != s.id)
     ORDER BY s.sid, s.id`,
  );
}

function strideSample(all: readonly SymbolRef[]): SymbolRef[] {
  const n = Math.min(WB_SAMPLE, all.length);
  const sample: SymbolRef[] = [];
  for (let k = 0; k < n; k++) sample.push(all[Math.floor((k * all.length) / n)]!);
  return sample;
}

async function wbSample(ws: Workspace): Promise<SymbolRef[]> {
  return strideSample(await wbCandidates(ws));
}

async function whatBreaksLatency(ws: Workspace): Promise<QueryResult['wb']> {
  const all = await wbCandidates(ws);
  const sample = strideSample(all);
  const n = sample.length;
  const out: { -readonly [K in keyof QueryResult['wb']]: QueryResult['wb'][K] } = { candidates: all.length, sample: n, d1Ms: [], d5Ms: [], d1Dependents: [], d5Dependents: [], errors: [] };
  // As the what_breaks tool asks: the dependents its answer can list read in full, ambiguous ones past them counted.
  const asked = { list: DEFAULT_LIMIT, candidates: CANDIDATES_SHOWN };
  // Warm-up, not counted.
  for (const s of sample.slice(0, 5)) await whatBreaks(ws.db, s, 5, asked).catch(() => undefined);
  for (const s of sample) {
    try {
      let t = performance.now();
      const r1 = await whatBreaks(ws.db, s, 1, asked);
      out.d1Ms.push(performance.now() - t);
      t = performance.now();
      const r5 = await whatBreaks(ws.db, s, 5, asked);
      const ms = performance.now() - t;
      out.d5Ms.push(ms);
      out.d1Dependents.push(r1.counts.direct + r1.counts.transitive);
      out.d5Dependents.push(r5.counts.direct + r5.counts.transitive);
      if (!out.slowest || ms > out.slowest.ms) out.slowest = { qname: s.qname, ms, dependents: r5.counts.direct + r5.counts.transitive, ambiguous: r5.counts.byTier.ambiguous, unlisted: r5.unlisted?.count ?? 0 };
    } catch (e) {
      out.errors.push(`${s.qname}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

export interface AbResult {
  readonly sample: number;
  readonly rounds: number;
  /** Depth-5 latency per build, every target asked of both in turn (which goes first alternates). */
  readonly thisMs: number[];
  readonly otherMs: number[];
  /** Targets whose totals differ between the builds (counts by tier and kind, or the number of dependents). */
  readonly differ: string[];
}

/**
 * This build's what_breaks against another build's (the compiled `out/` of
 * an earlier commit), on one connection, target by target, alternating which
 * goes first: on a shared machine, load changes between whole runs more
 * than the code does, and only ratios within one run mean something.
 */
async function whatBreaksAgainst(root: string, otherOut: string, rounds: number): Promise<AbResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const other = require(path.resolve(otherOut, 'src/core/structural/impact/whatBreaks.js')) as { whatBreaks: (db: unknown, s: SymbolRef, depth: number, o: object) => Promise<{ counts: unknown }> };
  const ws = await openWorkspace(root);
  try {
    const sample = await wbSample(ws);
    // As the tool asks; `candidatesFor` is how builds before the bound asked for candidates of the listed dependents only.
    const asked = { list: DEFAULT_LIMIT, candidates: CANDIDATES_SHOWN, candidatesFor: DEFAULT_LIMIT };
    const runs = { this: (s: SymbolRef) => whatBreaks(ws.db, s, 5, asked), other: (s: SymbolRef) => other.whatBreaks(ws.db, s, 5, asked) };
    for (const s of sample.slice(0, 5)) for (const f of Object.values(runs)) await f(s);
    const out = { thisMs: [] as number[], otherMs: [] as number[], differ: [] as string[] };
    const norm = (c: unknown) => JSON.stringify(c, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));
    for (let round = 0; round < rounds; round++) {
      for (const [i, s] of sample.entries()) {
        const counts: Record<string, string> = {};
        for (const which of (i + round) % 2 ? (['other', 'this'] as const) : (['this', 'other'] as const)) {
          const t = performance.now();
          const r = await runs[which](s);
          (which === 'this' ? out.thisMs : out.otherMs).push(performance.now() - t);
          counts[which] = norm(r.counts);
        }
        if (round === 0 && counts['this'] !== counts['other']) out.differ.push(s.qname);
      }
    }
    return { sample: sample.length, rounds, ...out };
  } finally {
    await ws.close();
  }
}

/** what_breaks latency alone, on the index already in the workspace (the scale section indexes it as a whole process first). */
async function whatBreaksOnly(root: string): Promise<QueryResult['wb']> {
  const ws = await openWorkspace(root);
  try {
    return await whatBreaksLatency(ws);
  } finally {
    await ws.close();
  }
}

async function query(root: string): Promise<QueryResult> {
  const ws = await openWorkspace(root);
  const indexer = await StructuralIndexer.create(ws);
  try {
    const cold = await indexer.indexAll();
    const warm: number[] = [];
    let warmParsed = 0;
    for (let i = 0; i < NOOP_WARM_RUNS; i++) {
      const r = await indexer.indexAll();
      warm.push(r.ms);
      warmParsed += r.parsed;
    }
    let edit: QueryResult['edit'];
    let editError: string | undefined;
    try {
      edit = await saveToQuery(ws, indexer);
    } catch (e) {
      editError = e instanceof Error ? e.message : String(e);
    }
    const wb = await whatBreaksLatency(ws);
    return {
      coldNoop: { ms: cold.ms, parsed: cold.parsed, load: cold.phases.load },
      warmNoopMs: warm,
      warmNoopParsed: warmParsed,
      ...(edit ? { edit } : {}),
      ...(editError ? { editError } : {}),
      wb,
      maxRssKB: process.resourceUsage().maxRSS,
    };
  } finally {
    await indexer.dispose();
    await ws.close();
  }
}

export interface ThreadResult {
  readonly ms: number;
  readonly longestHoldMs: number;
}

/** The extension's way: the indexer in its own thread; this thread only waits for the answer, as the host does. */
async function thread(root: string): Promise<ThreadResult> {
  const indexer = new IndexerThread({ root, schema: SCHEMA });
  const hold = holdSampler();
  const t0 = performance.now();
  try {
    await indexer.indexAll();
    return { ms: performance.now() - t0, longestHoldMs: hold.stop() };
  } finally {
    await indexer.dispose();
  }
}

async function main(): Promise<void> {
  const [mode, root, otherOut, rounds] = process.argv.slice(2);
  if (!root) throw new Error('usage: child.js full|noop|query|thread|wb <root>, or child.js wb-ab <root> <out/ of another build> [rounds]');
  const result =
    mode === 'full' || mode === 'noop'
      ? await full(root)
      : mode === 'query'
        ? await query(root)
        : mode === 'thread'
          ? await thread(root)
          : mode === 'wb'
            ? await whatBreaksOnly(root)
            : mode === 'wb-ab' && otherOut
              ? await whatBreaksAgainst(root, otherOut, Number(rounds ?? 1))
              : undefined;
  if (!result) throw new Error(`unknown mode ${mode}`);
  process.stdout.write(JSON.stringify(result) + '\n');
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
