import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import type { SymbolRef } from '../../src/core/model/symbolRef';
import { invalidateResolutions } from '../../src/core/structural/enrichment/store';
import { scipIndexerResolver } from '../../src/core/structural/sources/scip/indexers';
import { EnrichmentPass, type EnrichReport } from '../../src/core/structural/enrichment/enrich';
import { headlessResolvers } from '../../src/core/structural/enrichment/headless';
import type { EdgeResolver } from '../../src/core/structural/enrichment/types';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { tsTruth } from './tsTruth';

/*
 * npm run bench:correctness — precision and recall of Tenure's callers
 * against compiler ground truth, per tier, inventory-only vs after
 * enrichment, and what enrichment costs. Corpora: rxjs and mobx (TypeScript
 * sources shipped in their npm packages, fetched with `npm pack` into a temp
 * folder, never committed), Django (Debian's python3-django).
 *
 * Options: --corpus rxjs,mobx,django  --sample N  --no-scip  --json FILE
 *          --no-lsp (SCIP indexers only)  --measure-only (measure the enriched databases the last run left, then inventory-only)
 */

const REPO = path.resolve(__dirname, '..', '..', '..');
const WORK = path.join(os.tmpdir(), 'tenure-corpora');
const TIERS = ['resolved', 'inferred', 'ambiguous'] as const;

interface Corpus {
  readonly name: string;
  readonly language: 'typescript' | 'python';
  readonly prepare: () => string;
  readonly describe: string;
}

function npmCorpus(name: string, spec: string): Corpus {
  return {
    name,
    language: 'typescript',
    describe: `${spec} (src/ of the npm package)`,
    prepare() {
      const dir = path.join(WORK, name);
      if (fs.existsSync(path.join(dir, 'src'))) return dir;
      const pack = path.join(WORK, 'pack');
      fs.mkdirSync(pack, { recursive: true });
      const tgz = execFileSync('npm', ['pack', spec, '--silent'], { cwd: pack, encoding: 'utf8' }).trim().split('\n').pop()!;
      const out = path.join(pack, name);
      fs.rmSync(out, { recursive: true, force: true });
      fs.mkdirSync(out, { recursive: true });
      execFileSync('tar', ['xzf', path.join(pack, tgz), '-C', out]);
      fs.mkdirSync(dir, { recursive: true });
      fs.cpSync(path.join(out, 'package', 'src'), path.join(dir, 'src'), { recursive: true, filter: (s) => !/\.d\.ts$/.test(s) || s.includes('global') || s.includes('types') });
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', lib: ['ES2022', 'DOM'], strict: false, noEmit: true, skipLibCheck: true, experimentalDecorators: true }, include: ['src'] }, null, 2),
      );
      return dir;
    },
  };
}

const CORPORA: Record<string, Corpus> = {
  rxjs: npmCorpus('rxjs', 'rxjs@7.8.2'),
  mobx: npmCorpus('mobx', 'mobx@6.13.7'),
  django: {
    name: 'django',
    language: 'python',
    describe: "Django 3.2 (Debian's python3-django, /usr/lib/python3/dist-packages/django)",
    prepare() {
      const dir = path.join(WORK, 'django');
      if (fs.existsSync(path.join(dir, 'django'))) return dir;
      const src = '/usr/lib/python3/dist-packages/django';
      if (!fs.existsSync(src)) throw new Error('Django sources not found: apt-get install python3-django');
      fs.mkdirSync(dir, { recursive: true });
      fs.cpSync(src, path.join(dir, 'django'), { recursive: true, filter: (s) => !s.includes('__pycache__') });
      return dir;
    },
  },
};

/** Seeded PRNG (mulberry32), so the sample is the same on every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(list: readonly T[], n: number, rand: () => number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

interface Target {
  readonly key: string;
  readonly positions: readonly string[];
  readonly truth: ReadonlySet<string>;
  /** For implementations: call sites through the methods they implement (truth of dispatch). */
  readonly dispatchTruth?: ReadonlySet<string>;
  readonly isBase?: boolean;
}

interface PhaseResult {
  readonly phase: string;
  readonly byTier: Record<string, { answered: number; correct: number }>;
  readonly truth: number;
  readonly found: number;
  readonly foundResolved: number;
  readonly answered: number;
  readonly correct: number;
  readonly falseNoCallers: number;
  readonly silentNoCallers: number;
  readonly withCallers: number;
  readonly dispatch?: { truth: number; found: number; foundResolved: number; answered: number; correct: number };
  readonly ms?: number;
  readonly detail?: string;
}

async function measure(ws: Workspace, targets: readonly Target[], phase: string, unjudged: ReadonlySet<string> = new Set()): Promise<PhaseResult> {
  const symbols = new Map<string, number>();
  for (const r of await ws.db.all<{ id: number; path: string; line: number; col: number }>('SELECT s.id, f.path, s.line, s.col FROM symbols s JOIN files f ON f.id = s.file_id')) {
    symbols.set(`${r.path}:${r.line}:${r.col}`, r.id);
  }
  const byTier: Record<string, { answered: number; correct: number }> = Object.fromEntries(TIERS.map((t) => [t, { answered: 0, correct: 0 }]));
  let truth = 0, found = 0, foundResolved = 0, answered = 0, correct = 0, falseNoCallers = 0, silentNoCallers = 0, withCallers = 0;
  const dispatch = { truth: 0, found: 0, foundResolved: 0, answered: 0, correct: 0 };
  for (const t of targets) {
    const ids = t.positions.map((p) => symbols.get(p)).filter((x): x is number => x !== undefined);
    // The answer's direct callers, per site and tier (the rows what_breaks reads for distance 1).
    const rows = await ws.db.all<{ tier: string; path: string; line: number; col: number }>(
      `SELECT e.tier, f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id
         WHERE e.dst_id IN (SELECT value FROM json_each(?1)) AND e.kind IN ('call', 'instantiate') AND e.tier != 'dynamic' AND e.src_id NOT IN (SELECT value FROM json_each(?1))`,
      [JSON.stringify(ids)],
    );
    const sites = new Map<string, string>();
    for (const r of rows) {
      const k = `${r.path}:${r.line}:${r.col}`;
      const prev = sites.get(k);
      if (!prev || TIERS.indexOf(r.tier as (typeof TIERS)[number]) < TIERS.indexOf(prev as (typeof TIERS)[number])) sites.set(k, r.tier);
    }
    truth += t.truth.size;
    for (const [k, tier] of sites) {
      // A site the oracle cannot decide (a name bound twice) is neither right nor wrong.
      if (unjudged.has(k) && !t.truth.has(k)) continue;
      answered++;
      const ok = t.truth.has(k);
      if (ok) correct++;
      const bucket = byTier[tier] ?? (byTier[tier] = { answered: 0, correct: 0 });
      bucket.answered++;
      if (ok) bucket.correct++;
    }
    for (const k of t.truth) {
      if (!sites.has(k) && process.env.TENURE_BENCH_DEBUG) process.stderr.write(`[${phase}] missed ${k} -> ${t.key}\n`);
      if (sites.has(k)) {
        found++;
        if (sites.get(k) === 'resolved') foundResolved++;
      }
    }
    const primary = ids[0];
    if (primary === undefined) continue;
    const ref = await ws.db.get<SymbolRef>('SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?', [primary]);
    const answer = await whatBreaks(ws.db, ref!, 1);
    if (t.truth.size) {
      withCallers++;
      const callers = answer.dependents.filter((d) => d.kind === 'call' || d.kind === 'instantiate');
      if (!callers.length) {
        if (process.env.TENURE_BENCH_DEBUG) process.stderr.write(`[${phase}] no callers for ${t.key} (truth: ${[...t.truth].join(', ')}; ids ${ids.join(',')})\n`);
        falseNoCallers++;
        if (!answer.dispatches.length && !answer.dynamicSites.length && !answer.wideSites) silentNoCallers++;
      }
    }
    if (t.dispatchTruth) {
      const got = new Map(answer.dispatches.map((d) => [`${d.site.path}:${d.site.line}:${d.site.col}`, d.resolution]));
      dispatch.truth += t.dispatchTruth.size;
      dispatch.answered += got.size;
      for (const k of got.keys()) if (t.dispatchTruth.has(k)) dispatch.correct++;
      for (const k of t.dispatchTruth) {
        if (got.has(k)) {
          dispatch.found++;
          if (got.get(k) === 'resolved') dispatch.foundResolved++;
        }
      }
    }
  }
  return { phase, byTier, truth, found, foundResolved, answered, correct, falseNoCallers, silentNoCallers, withCallers, ...(dispatch.truth ? { dispatch } : {}) };
}

async function enrich(ws: Workspace, resolvers: EdgeResolver[], log: (m: string) => void): Promise<EnrichReport> {
  try {
    return await new EnrichmentPass(ws.db, resolvers, { root: ws.root, log }).run();
  } finally {
    for (const r of resolvers) await r.dispose();
  }
}

async function resetResolution(ws: Workspace): Promise<void> {
  const ids = (await ws.db.all<{ id: number }>('SELECT id FROM files')).map((r) => r.id);
  await ws.db.write((db) => invalidateResolutions(db, { changed: ids, rewritten: [], sites: [] }));
  await ws.db.write((db) => db.run("DELETE FROM meta WHERE key = 'resolution.status'"));
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== '.tenure') walk(p);
      else if (/\.tsx?$/.test(e.name)) out.push(p);
    }
  };
  walk(path.join(dir, 'src'));
  return out;
}

interface CorpusResult {
  readonly corpus: string;
  readonly describe: string;
  readonly files: number;
  readonly sample: number;
  readonly interfaceMethods: number;
  readonly indexMs: number;
  readonly truthMs: number;
  readonly phases: PhaseResult[];
  readonly costs: { phase: string; ms: number; files: number; detail: string }[];
}

async function runCorpus(c: Corpus, opts: { sample: number; scip: boolean; lsp: boolean; measureOnly: boolean }): Promise<CorpusResult> {
  const log = (m: string) => process.stderr.write(`[${c.name}] ${m}\n`);
  const dir = c.prepare();
  // --measure-only: keep the enriched database of the last run and measure it again (after a change to the oracle).
  const reuse = opts.measureOnly && fs.existsSync(path.join(dir, '.tenure', 'memory.db'));
  if (!reuse) fs.rmSync(path.join(dir, '.tenure'), { recursive: true, force: true });
  const ws = await openWorkspace(dir);
  try {
    const indexer = await StructuralIndexer.create(ws);
    const t0 = performance.now();
    const report = await indexer.indexAll();
    const indexMs = performance.now() - t0;
    await indexer.dispose();
    log(`indexed ${report.files} files, ${report.edges} edges in ${Math.round(indexMs)} ms`);

    const symbols = new Set((await ws.db.all<{ k: string }>(`SELECT f.path || ':' || s.line || ':' || s.col AS k FROM symbols s JOIN files f ON f.id = s.file_id`)).map((r) => r.k));
    const rand = rng(20261129);
    let targets: Target[];
    let unjudged = new Set<string>();
    let interfaceMethods = 0;
    const t1 = performance.now();
    if (c.language === 'typescript') {
      const truth = tsTruth(dir, tsFiles(dir));
      log(`ground truth: ${truth.targets.size} callables, ${[...truth.callSites.values()].reduce((n, s) => n + s.size, 0)} call sites (${Math.round(truth.ms)} ms)`);
      const all = [...truth.targets.values()].filter((t) => t.kind !== 'class' && t.positions.some((p) => symbols.has(p)));
      const asTarget = (t: (typeof all)[number]): Target => {
        const dispatchTruth = new Set<string>();
        for (const b of t.bases) for (const s of truth.callSites.get(b) ?? []) dispatchTruth.add(s);
        return { key: t.key, positions: t.positions, truth: truth.callSites.get(t.key) ?? new Set(), isBase: t.isBase, ...(t.bases.length ? { dispatchTruth } : {}) };
      };
      const bases = all.filter((t) => t.isBase && t.implementations.length >= 2);
      const chosenBases = pick(bases, Math.min(40, bases.length), rand);
      interfaceMethods = chosenBases.length;
      const impls = pick(all.filter((t) => t.bases.length && !chosenBases.includes(t)), 30, rand);
      const rest = all.filter((t) => !chosenBases.includes(t) && !impls.includes(t));
      const withCallers = rest.filter((t) => truth.callSites.get(t.key)?.size);
      const n = Math.max(0, opts.sample - chosenBases.length - impls.length);
      const others = [...pick(withCallers, Math.ceil(n * 0.75), rand), ...pick(rest.filter((t) => !truth.callSites.get(t.key)?.size), Math.floor(n * 0.25), rand)];
      targets = [...chosenBases, ...impls, ...others].map(asTarget);
    } else {
      const out = execFileSync('python3', [path.join(REPO, 'bench', 'correctness', 'py_truth.py'), dir, 'django'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      const truth = JSON.parse(out) as { targets: { key: string }[]; callSites: Record<string, string[]>; unjudged: string[] };
      unjudged = new Set(truth.unjudged);
      const all = truth.targets.filter((t) => symbols.has(t.key));
      log(`ground truth: ${truth.targets.length} module-level functions (${all.length} in the index), ${Object.values(truth.callSites).reduce((n, s) => n + s.length, 0)} call sites`);
      const withCallers = all.filter((t) => truth.callSites[t.key]?.length);
      const without = all.filter((t) => !truth.callSites[t.key]?.length);
      const n = opts.sample;
      targets = [...pick(withCallers, Math.ceil(n * 0.75), rand), ...pick(without, Math.floor(n * 0.25), rand)].map((t) => ({ key: t.key, positions: [t.key], truth: new Set(truth.callSites[t.key] ?? []) }));
    }
    const truthMs = performance.now() - t1;

    const phases: PhaseResult[] = [];
    const costs: CorpusResult['costs'] = [];
    if (reuse) {
      const enriched = await measure(ws, targets, 'after enrichment (stored from the last run)', unjudged);
      await resetResolution(ws);
      phases.push(await measure(ws, targets, 'inventory only', unjudged), enriched);
      return { corpus: c.name, describe: c.describe, files: report.files, sample: targets.length, interfaceMethods, indexMs, truthMs: performance.now() - t1, phases, costs };
    }
    phases.push(await measure(ws, targets, 'inventory only', unjudged));

    const server = c.language === 'typescript' ? 'typescript' : 'python';
    if (opts.lsp) {
      const lsp = await enrich(ws, await headlessResolvers(ws.db, { root: dir, only: [server], log }), log);
      const r = lsp.resolvers[0];
      log(`enrichment: ${JSON.stringify(r && { state: r.state, files: r.files, symbols: r.symbols, confirmed: r.confirmed, refuted: r.refuted, added: r.added, implementations: r.implementations, ms: Math.round(r.ms), message: r.message })}`);
      phases.push({ ...(await measure(ws, targets, `after enrichment (${r?.source ?? server})`, unjudged)), ms: lsp.ms });
      costs.push({ phase: r?.source ?? server, ms: lsp.ms, files: r?.files ?? 0, detail: `${r?.confirmed ?? 0} confirmed, ${r?.refuted ?? 0} refuted, ${r?.added ?? 0} added, ${r?.implementations ?? 0} implementations` });
    }

    if (opts.scip) {
      const indexer = c.language === 'typescript' ? 'scip-typescript' : 'scip-python';
      await resetResolution(ws);
      const scip = await enrich(ws, [scipIndexerResolver(indexer, dir)], log);
      const s = scip.resolvers[0];
      log(`${indexer}: ${JSON.stringify(s && { state: s.state, files: s.files, confirmed: s.confirmed, refuted: s.refuted, added: s.added, implementations: s.implementations, ms: Math.round(s.ms), message: s.message })}`);
      phases.push({ ...(await measure(ws, targets, `after enrichment (${indexer}${opts.lsp ? ', instead' : ''})`, unjudged)), ms: scip.ms });
      costs.push({ phase: indexer, ms: scip.ms, files: s?.files ?? 0, detail: `${s?.confirmed ?? 0} confirmed, ${s?.refuted ?? 0} refuted, ${s?.added ?? 0} added, ${s?.implementations ?? 0} implementations` });
    }
    return { corpus: c.name, describe: c.describe, files: report.files, sample: targets.length, interfaceMethods, indexMs, truthMs, phases, costs };
  } finally {
    await ws.close();
  }
}

const pct = (a: number, b: number) => (b ? (a / b).toFixed(3) : '—');

function table(results: readonly CorpusResult[]): string {
  const lines: string[] = [];
  lines.push('| corpus | phase | recall | recall (resolved only) | precision | resolved precision (n) | inferred precision (n) | ambiguous precision (n) | false "no callers" (silent) | dispatch recall (resolved) |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const p of r.phases) {
      const t = (tier: string) => `${pct(p.byTier[tier]?.correct ?? 0, p.byTier[tier]?.answered ?? 0)} (${p.byTier[tier]?.answered ?? 0})`;
      const d = p.dispatch ? `${pct(p.dispatch.found, p.dispatch.truth)} (${pct(p.dispatch.foundResolved, p.dispatch.truth)})` : '—';
      lines.push(`| ${r.corpus} | ${p.phase} | ${pct(p.found, p.truth)} | ${pct(p.foundResolved, p.truth)} | ${pct(p.correct, p.answered)} | ${t('resolved')} | ${t('inferred')} | ${t('ambiguous')} | ${p.falseNoCallers} of ${p.withCallers} (${p.silentNoCallers}) | ${d} |`);
    }
  }
  lines.push('');
  lines.push('| corpus | files | sampled symbols (interface/base methods with 2+ implementations) | truth call sites | index (inventory) | enrichment | cost |');
  lines.push('|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const c of r.costs) {
      lines.push(`| ${r.corpus} | ${r.files} | ${r.sample} (${r.interfaceMethods}) | ${r.phases[0]!.truth} | ${(r.indexMs / 1000).toFixed(1)} s | ${c.phase}: ${(c.ms / 1000).toFixed(1)} s, ${c.files} files | ${c.detail} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const names = (opt('--corpus') ?? 'rxjs,mobx,django').split(',');
  const sample = Number(opt('--sample') ?? 150);
  const scip = !args.includes('--no-scip');
  const results: CorpusResult[] = [];
  for (const n of names) {
    const c = CORPORA[n];
    if (!c) throw new Error(`unknown corpus ${n} (known: ${Object.keys(CORPORA).join(', ')})`);
    results.push(await runCorpus(c, { sample, scip, lsp: !args.includes('--no-lsp'), measureOnly: args.includes('--measure-only') }));
  }
  const md = table(results);
  process.stdout.write(`${md}\n`);
  const json = opt('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(results, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
