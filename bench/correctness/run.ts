import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result';
import type { SymbolRef } from '../../src/core/model/symbolRef';
import { invalidateResolutions } from '../../src/core/structural/enrichment/store';
import { scipIndexerResolver } from '../../src/core/structural/sources/scip/indexers';
import { EnrichmentPass, type EnrichOptions, type EnrichReport } from '../../src/core/structural/enrichment/enrich';
import { headlessResolvers } from '../../src/core/structural/enrichment/headless';
import type { EdgeResolver } from '../../src/core/structural/enrichment/types';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { tsTruth, type TruthTarget } from './tsTruth';

/*
 * npm run bench:correctness — Tenure's callers and data dependents against
 * compiler ground truth, per tier, inventory-only vs after enrichment, and
 * what enrichment costs (in process, and as whole `tenure` processes).
 *
 * Corpora. Reported (held out: nothing was tuned on them): langium (DI and
 * interfaces), mongodb (class inheritance), django. Tuning (the corpora the
 * resolvers were developed against, kept apart): rxjs, mobx, asyncio. The TypeScript
 * corpora are fetched with `npm pack` into $TENURE_CORPORA (default
 * $TMPDIR/tenure-corpora), never committed; langium's and mongodb's runtime
 * dependencies are installed beside them (npm install --ignore-scripts) so
 * the compiler sees the types a user's checkout has. Django comes from
 * Debian's python3-django. Held out (never run while the resolvers were
 * changed, first measured after): msal-common (the `@azure/msal-common` npm
 * package, no runtime dependencies), oauthlib (Debian's python3-oauthlib).
 *
 * Options: --corpus langium,mongodb,django (or rxjs, mobx, asyncio; msal-common, oauthlib)  --sample N  --data-sample N
 *          --compare (also the language servers alone and a SCIP indexer, each from scratch)
 *          --processes (time `tenure index` and `tenure enrich` as whole processes; needs npm run build)
 *          --json FILE
 */

const REPO = path.resolve(__dirname, '..', '..', '..');
const WORK = process.env.TENURE_CORPORA ?? path.join(os.tmpdir(), 'tenure-corpora');
const TIERS = ['resolved', 'inferred', 'ambiguous'] as const;
const debug = !!process.env.TENURE_BENCH_DEBUG;

interface Corpus {
  readonly name: string;
  readonly language: 'typescript' | 'python';
  readonly role: 'reported' | 'tuning' | 'held-out';
  readonly prepare: () => string;
  readonly describe: string;
}

function npmCorpus(name: string, spec: string, role: Corpus['role'], withDependencies: boolean): Corpus {
  return {
    name,
    role,
    language: 'typescript',
    describe: `${spec} (src/ of the npm package${withDependencies ? ', its runtime dependencies installed beside it' : ''})`,
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
      if (withDependencies) {
        const pkg = JSON.parse(fs.readFileSync(path.join(out, 'package', 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
        fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `corpus-${name}`, private: true, dependencies: pkg.dependencies ?? {} }, null, 2));
        execFileSync('npm', ['install', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund', '--silent'], { cwd: dir, stdio: 'inherit' });
      }
      return dir;
    },
  };
}

/** A Python package as Debian installs it under dist-packages, copied without its bytecode. */
function debianPython(name: string, role: Corpus['role'], debianPackage: string): Corpus {
  const src = `/usr/lib/python3/dist-packages/${name}`;
  return {
    name,
    role,
    language: 'python',
    describe: `${name} (Debian's ${debianPackage}, ${src})`,
    prepare() {
      const dir = path.join(WORK, name);
      if (fs.existsSync(path.join(dir, name))) return dir;
      if (!fs.existsSync(src)) throw new Error(`${name} sources not found: apt-get install ${debianPackage}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.cpSync(src, path.join(dir, name), { recursive: true, filter: (s) => !s.includes('__pycache__') });
      return dir;
    },
  };
}

const CORPORA: Record<string, Corpus> = {
  langium: npmCorpus('langium', 'langium@3.3.1', 'reported', true),
  mongodb: npmCorpus('mongodb', 'mongodb@6.12.0', 'reported', true),
  rxjs: npmCorpus('rxjs', 'rxjs@7.8.2', 'tuning', false),
  mobx: npmCorpus('mobx', 'mobx@6.13.7', 'tuning', false),
  // The Python tuning corpus: the standard library's asyncio (Debian's python3.11), apart from Django.
  asyncio: {
    name: 'asyncio',
    role: 'tuning',
    language: 'python',
    describe: "asyncio from Debian's python3.11 standard library (/usr/lib/python3.11/asyncio)",
    prepare() {
      const dir = path.join(WORK, 'asyncio');
      if (fs.existsSync(path.join(dir, 'asyncio'))) return dir;
      fs.mkdirSync(dir, { recursive: true });
      fs.cpSync('/usr/lib/python3.11/asyncio', path.join(dir, 'asyncio'), { recursive: true, filter: (s) => !s.includes('__pycache__') });
      return dir;
    },
  },
  'msal-common': npmCorpus('msal-common', '@azure/msal-common@16.17.0', 'held-out', false),
  oauthlib: debianPython('oauthlib', 'held-out', 'python3-oauthlib'),
  django: {
    name: 'django',
    role: 'reported',
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

type Group = 'base' | 'implementation' | 'constructor' | 'other';

interface CallTarget {
  readonly key: string;
  readonly group: Group;
  readonly positions: readonly string[];
  readonly truth: ReadonlySet<string>;
  /** For implementations: calls through the members they implement, super calls and property bases left out (truth of dispatch). */
  readonly dispatchTruth?: ReadonlySet<string>;
}

interface DataTarget {
  readonly key: string;
  readonly dataKind: string;
  readonly positions: readonly string[];
  readonly reads: ReadonlySet<string>;
  readonly writes: ReadonlySet<string>;
  /** Reads through the members it implements (an interface property, a base field). */
  readonly dispatchReads: ReadonlySet<string>;
}

interface Score {
  truth: number;
  found: number;
  foundResolved: number;
  answered: number;
  correct: number;
}

const score = (): Score => ({ truth: 0, found: 0, foundResolved: 0, answered: 0, correct: 0 });
type TierCounts = Record<string, { answered: number; correct: number }>;
const tierCounts = (): TierCounts => Object.fromEntries(TIERS.map((t) => [t, { answered: 0, correct: 0 }]));

interface CallPhase {
  readonly all: Score;
  readonly byGroup: Record<Group, Score>;
  readonly byTier: TierCounts;
  readonly dispatch: Score;
  /** Super sites among the sampled targets' truth, found as direct callers; super sites answered as dispatch into an override (always wrong). */
  readonly superSites: { truth: number; found: number; asDispatch: number };
  withCallers: number;
  falseNone: number;
  silentNone: number;
}

interface DataPhase {
  readonly reads: Score;
  readonly writes: Score;
  readonly byTier: TierCounts;
  readonly dispatchReads: Score;
  withDependents: number;
  falseNone: number;
  silentNone: number;
  readonly byKind: Record<string, { targets: number; truth: number; found: number }>;
}

interface PhaseResult {
  readonly phase: string;
  readonly calls: CallPhase;
  readonly data?: DataPhase;
  readonly ms?: number;
  readonly resolvers?: string;
}

const siteKey = (r: { path: string; line: number; col: number }) => `${r.path}:${r.line}:${r.col}`;
const better = (a: string, b: string | undefined) => !b || TIERS.indexOf(a as (typeof TIERS)[number]) < TIERS.indexOf(b as (typeof TIERS)[number]);

async function symbolIds(ws: Workspace): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await ws.db.all<{ id: number; path: string; line: number; col: number }>('SELECT s.id, f.path, s.line, s.col FROM symbols s JOIN files f ON f.id = s.file_id')) out.set(siteKey(r), r.id);
  return out;
}

async function answerFor(ws: Workspace, id: number): Promise<WhatBreaksResult> {
  const ref = await ws.db.get<SymbolRef>('SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?', [id]);
  return whatBreaks(ws.db, ref!, 1);
}

/** The edges into the target's symbols of the given kinds, per site with the strongest tier (the rows what_breaks reads for distance 1). */
async function edgeSites(ws: Workspace, ids: readonly number[], kinds: readonly string[], own: readonly number[] = ids): Promise<Map<string, { tier: string; kind: string }>> {
  const rows = await ws.db.all<{ tier: string; kind: string; path: string; line: number; col: number }>(
    `SELECT e.tier, e.kind, f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id
       WHERE e.dst_id IN (SELECT value FROM json_each(?1)) AND e.kind IN (SELECT value FROM json_each(?2)) AND e.tier != 'dynamic' AND e.src_id NOT IN (SELECT value FROM json_each(?3))`,
    [JSON.stringify(ids), JSON.stringify(kinds), JSON.stringify(own)],
  );
  const sites = new Map<string, { tier: string; kind: string }>();
  for (const r of rows) {
    const k = siteKey(r);
    if (better(r.tier, sites.get(k)?.tier)) sites.set(k, { tier: r.tier, kind: r.kind });
  }
  return sites;
}

/** Functions declared inside callable targets (their calls of the target are recursion, left out of the truth too). */
async function declaredInsideCallables(ws: Workspace, ids: readonly number[]): Promise<number[]> {
  const rows = await ws.db.all<{ id: number }>(
    `WITH RECURSIVE inner(id) AS (SELECT id FROM symbols WHERE parent_id IN (SELECT id FROM symbols WHERE id IN (SELECT value FROM json_each(?1)) AND kind IN ('function','method','constructor'))
       UNION SELECT s.id FROM symbols s JOIN inner ON s.parent_id = inner.id) SELECT id FROM inner`,
    [JSON.stringify(ids)],
  );
  return rows.map((r) => r.id);
}

function tally(s: Score, answered: ReadonlyMap<string, { tier: string }>, truth: ReadonlySet<string>, byTier: TierCounts | undefined, unjudged: ReadonlySet<string> = new Set()): void {
  s.truth += truth.size;
  for (const [k, { tier }] of answered) {
    if (unjudged.has(k) && !truth.has(k)) continue;
    s.answered++;
    const ok = truth.has(k);
    if (ok) s.correct++;
    if (byTier) {
      const b = byTier[tier] ?? (byTier[tier] = { answered: 0, correct: 0 });
      b.answered++;
      if (ok) b.correct++;
    }
  }
  for (const k of truth) {
    const a = answered.get(k);
    if (a) {
      s.found++;
      if (a.tier === 'resolved') s.foundResolved++;
    }
  }
}

async function measureCalls(ws: Workspace, targets: readonly CallTarget[], phase: string, superSites: ReadonlySet<string>, unjudged: ReadonlySet<string>): Promise<CallPhase> {
  const symbols = await symbolIds(ws);
  const result: CallPhase = {
    all: score(), byGroup: { base: score(), implementation: score(), constructor: score(), other: score() }, byTier: tierCounts(), dispatch: score(),
    superSites: { truth: 0, found: 0, asDispatch: 0 }, withCallers: 0, falseNone: 0, silentNone: 0,
  };
  for (const t of targets) {
    const ids = t.positions.map((p) => symbols.get(p)).filter((x): x is number => x !== undefined);
    const sites = await edgeSites(ws, ids, ['call', 'instantiate'], [...ids, ...(await declaredInsideCallables(ws, ids))]);
    tally(result.all, sites, t.truth, result.byTier, unjudged);
    tally(result.byGroup[t.group], sites, t.truth, undefined, unjudged);
    for (const k of t.truth) {
      if (superSites.has(k)) {
        result.superSites.truth++;
        if (sites.has(k)) result.superSites.found++;
      }
      if (!sites.has(k) && debug) process.stderr.write(`[${phase}] missed call ${k} -> ${t.key}\n`);
    }
    if (debug) for (const [k, a] of sites) if (!t.truth.has(k) && !unjudged.has(k)) process.stderr.write(`[${phase}] wrong call (${a.tier}) ${k} -> ${t.key}\n`);
    const primary = ids[0];
    if (primary === undefined) continue;
    const answer = await answerFor(ws, primary);
    if (t.truth.size) {
      result.withCallers++;
      if (!answer.dependents.some((d) => d.kind === 'call' || d.kind === 'instantiate')) {
        result.falseNone++;
        if (!answer.dispatches.length && !answer.dynamicSites.length && !answer.wideSites && !answer.untypedSites) result.silentNone++;
        if (debug) process.stderr.write(`[${phase}] no callers for ${t.key} (truth: ${[...t.truth].slice(0, 5).join(', ')})\n`);
      }
    }
    if (t.dispatchTruth) {
      const got = new Map(answer.dispatches.map((d) => [siteKey(d.site), { tier: d.resolution === 'resolved' ? 'resolved' : 'inferred' }]));
      tally(result.dispatch, got, t.dispatchTruth, undefined);
      for (const k of got.keys()) if (superSites.has(k)) result.superSites.asDispatch++;
      if (debug) {
        for (const [k, a] of got) if (!t.dispatchTruth.has(k)) process.stderr.write(`[${phase}] wrong dispatch (${a.tier}) ${k} -> ${t.key}${superSites.has(k) ? ' (a super call)' : ''}\n`);
        for (const k of t.dispatchTruth) if (!got.has(k)) process.stderr.write(`[${phase}] missed dispatch ${k} -> ${t.key}\n`);
      }
    }
  }
  return result;
}

async function measureData(ws: Workspace, targets: readonly DataTarget[], phase: string): Promise<DataPhase> {
  const symbols = await symbolIds(ws);
  const result: DataPhase = { reads: score(), writes: score(), byTier: tierCounts(), dispatchReads: score(), withDependents: 0, falseNone: 0, silentNone: 0, byKind: {} };
  for (const t of targets) {
    const ids = t.positions.map((p) => symbols.get(p)).filter((x): x is number => x !== undefined);
    const sites = await edgeSites(ws, ids, ['read', 'write']);
    const reads = new Map([...sites].filter(([, a]) => a.kind === 'read'));
    const writes = new Map([...sites].filter(([, a]) => a.kind === 'write'));
    tally(result.reads, reads, t.reads, result.byTier);
    tally(result.writes, writes, t.writes, result.byTier);
    const k = (result.byKind[t.dataKind] ??= { targets: 0, truth: 0, found: 0 });
    k.targets++;
    k.truth += t.reads.size + t.writes.size;
    for (const s of t.reads) if (reads.has(s)) k.found++;
    for (const s of t.writes) if (writes.has(s)) k.found++;
    if (debug) {
      for (const s of t.reads) if (!reads.has(s)) process.stderr.write(`[${phase}] missed read ${s} -> ${t.key}${writes.has(s) ? ' (answered as a write)' : ''}\n`);
      for (const s of t.writes) if (!writes.has(s)) process.stderr.write(`[${phase}] missed write ${s} -> ${t.key}${reads.has(s) ? ' (answered as a read)' : ''}\n`);
      for (const [s, a] of reads) if (!t.reads.has(s)) process.stderr.write(`[${phase}] wrong read (${a.tier}) ${s} -> ${t.key}\n`);
      for (const [s, a] of writes) if (!t.writes.has(s)) process.stderr.write(`[${phase}] wrong write (${a.tier}) ${s} -> ${t.key}\n`);
    }
    const primary = ids[0];
    if (primary === undefined) continue;
    const answer = await answerFor(ws, primary);
    if (t.reads.size || t.writes.size) {
      result.withDependents++;
      if (!answer.dependents.length) {
        result.falseNone++;
        if (!answer.dispatches.length && !answer.dynamicSites.length && !answer.wideSites && !answer.untypedSites) result.silentNone++;
        if (debug) process.stderr.write(`[${phase}] no dependents for ${t.key} (${t.dataKind})\n`);
      }
    }
    if (t.dispatchReads.size) {
      // Reads through a base or interface member, as the answer shows them: dispatches, or readers of the base at distance 1.
      const got = new Map(answer.dispatches.map((d) => [siteKey(d.site), { tier: d.resolution === 'resolved' ? 'resolved' : 'inferred' }]));
      for (const d of answer.dependents) if (d.kind === 'read') for (const s of d.sites) if (t.dispatchReads.has(siteKey(s)) && !got.has(siteKey(s))) got.set(siteKey(s), { tier: d.tier });
      tally(result.dispatchReads, got, t.dispatchReads, undefined);
    }
  }
  return result;
}

async function enrich(ws: Workspace, resolvers: EdgeResolver[], log: (m: string) => void, options: Partial<EnrichOptions> = {}): Promise<EnrichReport> {
  try {
    return await new EnrichmentPass(ws.db, resolvers, { root: ws.root, log, ...options }).run();
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

interface Cost {
  readonly phase: string;
  readonly ms: number;
  readonly detail: string;
}

interface ProcessTiming {
  readonly indexMs: number;
  readonly indexCpuMs?: number;
  readonly enrichMs: number;
  readonly enrichCpuMs?: number;
  readonly enrichLine: string;
}

interface CorpusResult {
  readonly corpus: string;
  readonly role: Corpus['role'];
  readonly describe: string;
  readonly files: number;
  readonly callTargets: number;
  readonly groups: Record<Group, number>;
  readonly dataTargets: number;
  readonly dataKinds: Record<string, number>;
  readonly truthCalls: number;
  readonly truthData: number;
  readonly indexMs: number;
  readonly phases: PhaseResult[];
  readonly costs: Cost[];
  readonly processes?: ProcessTiming;
}

interface Samples {
  calls: CallTarget[];
  data: DataTarget[];
  unjudged: Set<string>;
  superSites: Set<string>;
}

function sampleTypescript(dir: string, symbols: ReadonlySet<string>, n: number, dataN: number, log: (m: string) => void): Samples {
  const truth = tsTruth(dir, tsFiles(dir));
  const count = (m: Map<string, Set<string>>) => [...m.values()].reduce((a, s) => a + s.size, 0);
  log(`ground truth: ${truth.targets.size} targets, ${count(truth.callSites)} call sites, ${count(truth.reads)} reads, ${count(truth.writes)} writes, ${truth.superSites.size} super sites (${Math.round(truth.ms)} ms)`);
  const rand = rng(20261129);
  const all = [...truth.targets.values()].filter((t) => t.positions.some((p) => symbols.has(p)));
  const propertyBase = (key: string) => truth.targets.get(key)?.kind === 'data';
  const callTarget = (t: TruthTarget, group: Group): CallTarget => {
    const dispatchTruth = new Set<string>();
    // A call through `super` is bound statically; a call through a property reads it: neither is dispatch.
    for (const b of t.bases) if (!propertyBase(b)) for (const s of truth.callSites.get(b) ?? []) if (!truth.superSites.has(s)) dispatchTruth.add(s);
    return { key: t.key, group, positions: t.positions, truth: truth.callSites.get(t.key) ?? new Set(), ...(t.bases.length ? { dispatchTruth } : {}) };
  };
  const callables = all.filter((t) => t.kind === 'function' || t.kind === 'method');
  const bases = pick(callables.filter((t) => t.isBase && t.implementations.length >= 2), 40, rand);
  const impls = pick(callables.filter((t) => t.bases.some((b) => !propertyBase(b)) && !bases.includes(t)), 30, rand);
  const ctors = all.filter((t) => t.kind === 'constructor');
  const chosenCtors = [...pick(ctors.filter((t) => truth.callSites.get(t.key)?.size), 15, rand), ...pick(ctors.filter((t) => !truth.callSites.get(t.key)?.size), 5, rand)];
  const rest = callables.filter((t) => !bases.includes(t) && !impls.includes(t));
  const m = Math.max(0, n - bases.length - impls.length - chosenCtors.length);
  const others = [...pick(rest.filter((t) => truth.callSites.get(t.key)?.size), Math.ceil(m * 0.75), rand), ...pick(rest.filter((t) => !truth.callSites.get(t.key)?.size), Math.floor(m * 0.25), rand)];
  const calls = [...bases.map((t) => callTarget(t, 'base')), ...impls.map((t) => callTarget(t, 'implementation')), ...chosenCtors.map((t) => callTarget(t, 'constructor')), ...others.map((t) => callTarget(t, 'other'))];

  // Data: the hard kinds first (a share each), three quarters with uses in the truth.
  const dataAll = all.filter((t) => t.kind === 'data');
  const used = (t: TruthTarget) => (truth.reads.get(t.key)?.size ?? 0) + (truth.writes.get(t.key)?.size ?? 0) > 0;
  const kinds = [...new Set(dataAll.map((t) => t.dataKind!))];
  const data: TruthTarget[] = [];
  const perKind = Math.ceil((dataN * 0.75) / Math.max(1, kinds.length));
  for (const k of kinds) data.push(...pick(dataAll.filter((t) => t.dataKind === k && used(t)), perKind, rand));
  const withDispatch = dataAll.filter((t) => t.bases.length && used(t) && !data.includes(t));
  data.push(...pick(withDispatch, Math.max(0, Math.ceil(dataN * 0.75) - data.length), rand));
  data.push(...pick(dataAll.filter((t) => !used(t) && !data.includes(t)), Math.floor(dataN * 0.25), rand));
  return {
    calls,
    superSites: truth.superSites,
    unjudged: new Set(),
    data: data.map((t) => {
      const dispatchReads = new Set<string>();
      for (const b of t.bases) for (const s of truth.reads.get(b) ?? []) dispatchReads.add(s);
      return { key: t.key, dataKind: t.dataKind!, positions: t.positions, reads: truth.reads.get(t.key) ?? new Set(), writes: truth.writes.get(t.key) ?? new Set(), dispatchReads };
    }),
  };
}

function samplePython(dir: string, packageName: string, symbols: ReadonlySet<string>, n: number, dataN: number, log: (m: string) => void): Samples {
  const out = execFileSync('python3', [path.join(REPO, 'bench', 'correctness', 'py_truth.py'), dir, packageName], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const truth = JSON.parse(out) as {
    targets: { key: string }[];
    callSites: Record<string, string[]>;
    unjudged: string[];
    variables: { key: string }[];
    reads: Record<string, string[]>;
    writes: Record<string, string[]>;
  };
  const rand = rng(20261129);
  const all = truth.targets.filter((t) => symbols.has(t.key));
  log(`ground truth: ${truth.targets.length} module-level functions (${all.length} in the index), ${Object.values(truth.callSites).reduce((a, s) => a + s.length, 0)} call sites; ${truth.variables.length} module-level variables, ${Object.values(truth.reads).reduce((a, s) => a + s.length, 0)} reads, ${Object.values(truth.writes).reduce((a, s) => a + s.length, 0)} writes`);
  const withCallers = all.filter((t) => truth.callSites[t.key]?.length);
  const without = all.filter((t) => !truth.callSites[t.key]?.length);
  const calls = [...pick(withCallers, Math.ceil(n * 0.75), rand), ...pick(without, Math.floor(n * 0.25), rand)].map((t): CallTarget => ({ key: t.key, group: 'other', positions: [t.key], truth: new Set(truth.callSites[t.key] ?? []) }));
  const vars = truth.variables.filter((t) => symbols.has(t.key));
  const usedVar = (k: string) => (truth.reads[k]?.length ?? 0) + (truth.writes[k]?.length ?? 0) > 0;
  const data = [...pick(vars.filter((t) => usedVar(t.key)), Math.ceil(dataN * 0.75), rand), ...pick(vars.filter((t) => !usedVar(t.key)), Math.floor(dataN * 0.25), rand)].map(
    (t): DataTarget => ({ key: t.key, dataKind: 'module variable', positions: [t.key], reads: new Set(truth.reads[t.key] ?? []), writes: new Set(truth.writes[t.key] ?? []), dispatchReads: new Set() }),
  );
  return { calls, data, unjudged: new Set(truth.unjudged), superSites: new Set() };
}

/** `tenure index` then `tenure enrich` on a fresh copy, as a user runs them: wall and CPU time of each whole process. */
function timeProcesses(dir: string, log: (m: string) => void): ProcessTiming {
  const cli = path.join(REPO, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: npm run build');
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tenure-timing-'));
  try {
    fs.cpSync(dir, copy, { recursive: true, filter: (s) => !s.includes(`${path.sep}.tenure`) });
    const run = (args: string[]) => {
      const time = fs.existsSync('/usr/bin/time');
      const t = performance.now();
      const r = time
        ? spawnSync('/usr/bin/time', ['-f', 'TENURE_CPU %U %S', process.execPath, cli, ...args, '--cwd', copy], { encoding: 'utf8' })
        : spawnSync(process.execPath, [cli, ...args, '--cwd', copy], { encoding: 'utf8' });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`tenure ${args.join(' ')} failed: ${r.stderr}`);
      const cpu = /TENURE_CPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
      return { ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined, stdout: r.stdout };
    };
    const index = run(['index']);
    const enrich = run(['enrich']);
    const line = enrich.stdout.split('\n').filter((l) => /^\s+\S+: (complete|partial|unavailable)/.test(l)).map((l) => l.trim().replace(/;.*\(/, ' (')).join('; ');
    log(`whole processes: tenure index ${(index.ms / 1000).toFixed(1)} s, tenure enrich ${(enrich.ms / 1000).toFixed(1)} s (${line})`);
    return { indexMs: index.ms, ...(index.cpuMs !== undefined ? { indexCpuMs: index.cpuMs } : {}), enrichMs: enrich.ms, ...(enrich.cpuMs !== undefined ? { enrichCpuMs: enrich.cpuMs } : {}), enrichLine: line };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

function reportLine(r: EnrichReport): string {
  return r.resolvers.map((x) => `${x.source} ${x.files} files ${(x.ms / 1000).toFixed(1)} s${x.state === 'complete' ? '' : ` (${x.state})`}`).join(', ');
}

async function runCorpus(c: Corpus, opts: { sample: number; dataSample: number; compare: boolean; processes: boolean }): Promise<CorpusResult> {
  const log = (m: string) => process.stderr.write(`[${c.name}] ${m}\n`);
  const dir = c.prepare();
  fs.rmSync(path.join(dir, '.tenure'), { recursive: true, force: true });
  const processes = opts.processes ? timeProcesses(dir, log) : undefined;
  const ws = await openWorkspace(dir);
  try {
    const indexer = await StructuralIndexer.create(ws);
    const t0 = performance.now();
    const report = await indexer.indexAll();
    const indexMs = performance.now() - t0;
    await indexer.dispose();
    log(`indexed ${report.files} files, ${report.edges} edges in ${Math.round(indexMs)} ms`);
    const symbols = new Set((await ws.db.all<{ k: string }>(`SELECT f.path || ':' || s.line || ':' || s.col AS k FROM symbols s JOIN files f ON f.id = s.file_id`)).map((r) => r.k));
    const samples = c.language === 'typescript' ? sampleTypescript(dir, symbols, opts.sample, opts.dataSample, log) : samplePython(dir, c.name, symbols, opts.sample, opts.dataSample, log);
    const groups: Record<Group, number> = { base: 0, implementation: 0, constructor: 0, other: 0 };
    for (const t of samples.calls) groups[t.group]++;
    const dataKinds: Record<string, number> = {};
    for (const t of samples.data) dataKinds[t.dataKind] = (dataKinds[t.dataKind] ?? 0) + 1;

    const measure = async (phase: string, extra: Partial<PhaseResult> = {}): Promise<PhaseResult> => ({
      phase,
      calls: await measureCalls(ws, samples.calls, phase, samples.superSites, samples.unjudged),
      data: await measureData(ws, samples.data, phase),
      ...extra,
    });
    const phases: PhaseResult[] = [await measure('inventory only')];
    const costs: Cost[] = [];
    const server = c.language === 'typescript' ? 'typescript' : 'python';
    const pass = async (label: string, resolvers: EdgeResolver[], options: Partial<EnrichOptions> = {}) => {
      const r = await enrich(ws, resolvers, log, options);
      log(`${label}: ${reportLine(r)}`);
      phases.push(await measure(`after enrichment (${label})`, { ms: r.ms, resolvers: reportLine(r) }));
      costs.push({ phase: label, ms: r.ms, detail: r.resolvers.map((x) => `${x.source}: ${x.confirmed} confirmed, ${x.refuted} refuted, ${x.added} added, ${x.implementations} implementations, ${x.unanswered} unanswered`).join('; ') });
    };
    // What `tenure enrich` does on a workspace without resolved edges: the first pass where it pays, then the servers for what it left.
    await pass('tenure enrich', await headlessResolvers(ws.db, { root: dir, only: [server], log }));
    if (opts.compare) {
      await resetResolution(ws);
      await pass(`lsp:${server} alone`, await headlessResolvers(ws.db, { root: dir, only: [server], log, firstPass: false }), { firstPass: 'never' });
      const indexer = c.language === 'typescript' ? 'scip-typescript' : 'scip-python';
      await resetResolution(ws);
      await pass(`${indexer} alone`, [scipIndexerResolver(indexer, dir)]);
    }
    const count = (f: (t: CallTarget) => number) => samples.calls.reduce((a, t) => a + f(t), 0);
    return {
      corpus: c.name, role: c.role, describe: c.describe, files: report.files, callTargets: samples.calls.length, groups, dataTargets: samples.data.length, dataKinds,
      truthCalls: count((t) => t.truth.size), truthData: samples.data.reduce((a, t) => a + t.reads.size + t.writes.size, 0), indexMs, phases, costs, ...(processes ? { processes } : {}),
    };
  } finally {
    await ws.close();
  }
}

const pct = (a: number, b: number) => (b ? (a / b).toFixed(3) : '—');
const prec = (s: Score) => pct(s.correct, s.answered);
const rec = (s: Score) => pct(s.found, s.truth);
const tier = (t: TierCounts, name: string) => `${pct(t[name]?.correct ?? 0, t[name]?.answered ?? 0)} (${t[name]?.answered ?? 0})`;

function tables(results: readonly CorpusResult[]): string {
  const lines: string[] = [];
  lines.push('Callers (direct call and `new` sites; dispatch through a base or interface member apart)', '');
  lines.push('| corpus | phase | recall | precision | resolved precision (n) | inferred precision (n) | ambiguous precision (n) | constructors: recall, precision | `super` sites: found as callers / shown as dispatch | dispatch recall (resolved), precision | false "no callers" (silent) |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const p of r.phases) {
      const c = p.calls;
      const ctor = c.byGroup.constructor;
      lines.push(
        `| ${r.corpus}${r.role === 'reported' ? '' : ` (${r.role})`} | ${p.phase} | ${rec(c.all)} | ${prec(c.all)} | ${tier(c.byTier, 'resolved')} | ${tier(c.byTier, 'inferred')} | ${tier(c.byTier, 'ambiguous')} | ${rec(ctor)}, ${prec(ctor)} | ${c.superSites.found} of ${c.superSites.truth} / ${c.superSites.asDispatch} | ${c.dispatch.truth ? `${rec(c.dispatch)} (${pct(c.dispatch.foundResolved, c.dispatch.truth)}), ${prec(c.dispatch)}` : '—'} | ${c.falseNone} of ${c.withCallers} (${c.silentNone}) |`,
      );
    }
  }
  lines.push('', 'Data dependents (reads and writes of fields, accessors, interface properties, parameter properties, statics, enum members, module variables)', '');
  lines.push('| corpus | phase | reader recall | reader precision | writer recall | writer precision | resolved precision (n) | inferred precision (n) | ambiguous precision (n) | reads through a base or interface member found | false "no dependents" (silent) |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const p of r.phases) {
      const d = p.data;
      if (!d) continue;
      lines.push(
        `| ${r.corpus}${r.role === 'reported' ? '' : ` (${r.role})`} | ${p.phase} | ${rec(d.reads)} | ${prec(d.reads)} | ${rec(d.writes)} | ${prec(d.writes)} | ${tier(d.byTier, 'resolved')} | ${tier(d.byTier, 'inferred')} | ${tier(d.byTier, 'ambiguous')} | ${d.dispatchReads.truth ? `${d.dispatchReads.found} of ${d.dispatchReads.truth}` : '—'} | ${d.falseNone} of ${d.withDependents} (${d.silentNone}) |`,
      );
    }
  }
  lines.push('', '| corpus | files | call targets (bases, implementations, constructors, other) | truth call sites | data targets (by kind) | truth data uses | index (in process) | enrichment (in process) | enrichment ÷ index |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const c of r.costs) {
      const g = r.groups;
      const kinds = Object.entries(r.dataKinds).map(([k, n]) => `${n} ${k}`).join(', ');
      lines.push(`| ${r.corpus} | ${r.files} | ${r.callTargets} (${g.base}, ${g.implementation}, ${g.constructor}, ${g.other}) | ${r.truthCalls} | ${r.dataTargets} (${kinds}) | ${r.truthData} | ${(r.indexMs / 1000).toFixed(1)} s | ${c.phase}: ${(c.ms / 1000).toFixed(1)} s | ${(c.ms / r.indexMs).toFixed(1)}× |`);
    }
  }
  if (results.some((r) => r.processes)) {
    lines.push('', '| corpus | `tenure index` (wall, CPU) | `tenure enrich` (wall, CPU) | index + enrich ÷ index (wall) | what enrich ran |');
    lines.push('|---|---|---|---|---|');
    const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
    for (const r of results) {
      const p = r.processes;
      if (!p) continue;
      lines.push(`| ${r.corpus} | ${s(p.indexMs)}, ${s(p.indexCpuMs)} | ${s(p.enrichMs)}, ${s(p.enrichCpuMs)} | ${((p.indexMs + p.enrichMs) / p.indexMs).toFixed(1)}× | ${p.enrichLine} |`);
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
  const names = (opt('--corpus') ?? 'langium,mongodb,django').split(',');
  const sample = Number(opt('--sample') ?? 150);
  const dataSample = Number(opt('--data-sample') ?? 60);
  const results: CorpusResult[] = [];
  for (const n of names) {
    const c = CORPORA[n];
    if (!c) throw new Error(`unknown corpus ${n} (known: ${Object.keys(CORPORA).join(', ')})`);
    results.push(await runCorpus(c, { sample, dataSample, compare: args.includes('--compare'), processes: args.includes('--processes') }));
  }
  process.stdout.write(`${tables(results)}\n`);
  const json = opt('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(results, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
