import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findTool } from '../src/core/tools/catalog.js';
import { openWorkspace } from '../src/core/workspace.js';
import { BENCH_DIR } from './corpora.js';
import { fmtInt, fmtMs, median, medianIndex, verdict, type Row } from './stats.js';

/*
 * The scale benchmark: `tenure index` as a user runs it — a whole process
 * (`node dist/cli.js index <dir>`, the offline knowledge pass included), timed
 * by /usr/bin/time — on a corpus built from the sources Debian packages put
 * on this machine (the JDK's src.zip, the Go standard library of
 * golang-*-src, the Python standard library and dist-packages, JavaScript
 * under /usr/share), at ¼, ½ and the whole of it,
 * so the growth curve shows. Each size takes its share of every source as
 * whole packages (packageOf, sized). When Debian's sources fall short of
 * the size asked for, JavaScript and TypeScript from the project's
 * node_modules make up the rest (the table says how many).
 *
 * The default size is small (4,000 files) to keep `npm run bench` fast;
 * `--scale-files=40000` asks for the large one.
 */

export interface ScaleOptions {
  readonly files: number;
  readonly repoRoot: string;
  readonly log: (m: string) => void;
}

interface Source {
  readonly label: string;
  readonly files: { abs: string; rel: string }[];
}

const EXT = /\.(java|py|js|mjs|cjs|ts|go)$/;

function walk(dir: string, relBase: string, out: { abs: string; rel: string }[], skip: (name: string) => boolean = () => false): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (skip(e.name)) continue;
    const abs = path.join(dir, e.name);
    const rel = `${relBase}/${e.name}`;
    if (e.isDirectory()) walk(abs, rel, out, skip);
    else if (e.isFile() && EXT.test(e.name) && !e.name.endsWith('.d.ts')) out.push({ abs, rel });
  }
}

function debianSources(): Source[] {
  const out: Source[] = [];
  const jdkZips = fs.existsSync('/usr/lib/jvm') ? fs.readdirSync('/usr/lib/jvm').map((d) => path.join('/usr/lib/jvm', d, 'lib', 'src.zip')).filter((z) => fs.existsSync(z)) : [];
  const zip = jdkZips.map((z) => fs.realpathSync(z)).sort().pop();
  if (zip) {
    const dest = path.join(BENCH_DIR, 'scale-src', 'jdk');
    if (!fs.existsSync(path.join(dest, '.unpacked'))) {
      fs.rmSync(dest, { recursive: true, force: true });
      fs.mkdirSync(dest, { recursive: true });
      execFileSync('unzip', ['-q', '-o', zip, '*.java', '-d', dest], { stdio: 'ignore' });
      fs.writeFileSync(path.join(dest, '.unpacked'), zip);
    }
    const files: { abs: string; rel: string }[] = [];
    walk(dest, 'jdk', files);
    out.push({ label: `JDK sources (${zip})`, files });
  }
  // Debian's golang-<version>-src puts the standard library under /usr/share/go-<version>/src; the newest is taken.
  const goRoot = fs.existsSync('/usr/share') ? fs.readdirSync('/usr/share').filter((d) => /^go-\d+\.\d+$/.test(d)).sort().pop() : undefined;
  if (goRoot) {
    const files: { abs: string; rel: string }[] = [];
    walk(path.join('/usr/share', goRoot, 'src'), goRoot, files);
    out.push({ label: `Go standard library (/usr/share/${goRoot}/src, from golang-${goRoot.slice(3)}-src)`, files });
  }
  for (const dir of fs.readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d))) {
    const files: { abs: string; rel: string }[] = [];
    walk(path.join('/usr/lib', dir), dir, files, (n) => n === '__pycache__' || n === 'site-packages' || n === 'dist-packages');
    out.push({ label: `Python standard library (/usr/lib/${dir})`, files });
  }
  const dist: { abs: string; rel: string }[] = [];
  walk('/usr/lib/python3/dist-packages', 'dist-packages', dist, (n) => n === '__pycache__');
  out.push({ label: 'Python dist-packages (/usr/lib/python3/dist-packages)', files: dist });
  const js: { abs: string; rel: string }[] = [];
  for (const d of ['/usr/share/nodejs', '/usr/share/javascript']) walk(d, `share-${path.basename(d)}`, js);
  out.push({ label: 'JavaScript from Debian packages (/usr/share/nodejs, /usr/share/javascript)', files: js });
  return out.filter((s) => s.files.length);
}

const order = (rel: string) => createHash('sha1').update(rel).digest('hex');

/**
 * The package a corpus file belongs to: its folder (a Java or Go package, a
 * Python package, a JavaScript folder). Each size is made of whole packages:
 * a quarter of every package is not a smaller repository (its files find a
 * quarter of their package's definitions, so the work per file grows with
 * the sample and a linear indexer looks quadratic), and packages are small
 * enough that every size keeps the same mix of code.
 */
function packageOf(rel: string): string {
  return path.posix.dirname(rel);
}

/** The files of whole packages taken in the order of a hash of their names, up to n files (the last one cut to fit). */
function wholePackages(files: readonly { abs: string; rel: string }[], n: number): { abs: string; rel: string }[] {
  const byProject = new Map<string, { abs: string; rel: string }[]>();
  for (const f of files) {
    const p = packageOf(f.rel);
    const list = byProject.get(p);
    if (list) list.push(f);
    else byProject.set(p, [f]);
  }
  const out: { abs: string; rel: string }[] = [];
  for (const p of [...byProject.keys()].sort((a, b) => (order(a) < order(b) ? -1 : 1))) {
    if (out.length >= n) break;
    out.push(...byProject.get(p)!.sort((a, b) => (a.rel < b.rel ? -1 : 1)).slice(0, n - out.length));
  }
  return out;
}

/**
 * n files of the corpus: from each source (the JDK, the Go standard library,
 * …) its share of n, as whole packages, so every size has the same mix of
 * languages and kinds of code.
 */
function sized(files: readonly { abs: string; rel: string }[], n: number): { abs: string; rel: string }[] {
  if (n >= files.length) return [...files];
  const bySource = new Map<string, { abs: string; rel: string }[]>();
  for (const f of files) {
    const src = f.rel.split('/')[0]!;
    const list = bySource.get(src);
    if (list) list.push(f);
    else bySource.set(src, [f]);
  }
  const out: { abs: string; rel: string }[] = [];
  let taken = 0;
  let seen = 0;
  for (const list of bySource.values()) {
    seen += list.length;
    // Cumulative rounding: the shares add up to n exactly.
    const share = Math.round((seen * n) / files.length) - taken;
    out.push(...wholePackages(list, share));
    taken += share;
  }
  return out;
}

/** The corpus (every size is cut from it by `sized`), and where it came from. */
function corpus(opts: ScaleOptions): { files: { abs: string; rel: string }[]; sources: string[] } {
  const sources = debianSources();
  const debian = sources.flatMap((s) => s.files);
  const notes = sources.map((s) => `${s.label}: ${fmtInt(s.files.length)} files`);
  let files = [...debian];
  if (files.length < opts.files) {
    const extra: { abs: string; rel: string }[] = [];
    walk(path.join(opts.repoRoot, 'node_modules'), 'node_modules-src', extra, (n) => n === 'test' || n === 'tests' || n === '.bin');
    const take = wholePackages(extra, opts.files - files.length);
    if (take.length) notes.push(`not from Debian: ${fmtInt(take.length)} JavaScript/TypeScript files of the project's own node_modules, to reach the size`);
    files = [...files, ...take];
  }
  return { files: files.slice(0, opts.files), sources: notes };
}

/** The scale corpus's first `n` files as a tree under the bench folder, for timing a change by hand; returns its root. */
export function scaleTree(opts: ScaleOptions, n: number): string {
  return tree(corpus(opts).files, n);
}

/** A tree of n files of the corpus (`sized`), hard-linked (a copy where linking fails). */
function tree(files: readonly { abs: string; rel: string }[], n: number): string {
  const root = path.join(BENCH_DIR, `scale-${n}`);
  fs.rmSync(root, { recursive: true, force: true });
  for (const f of sized(files, n)) {
    const dest = path.join(root, f.rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    try {
      fs.linkSync(f.abs, dest);
    } catch {
      fs.copyFileSync(f.abs, dest);
    }
  }
  return root;
}

export interface ProcessRun {
  readonly wallS: number;
  readonly cpuS: number;
  readonly peakMB: number;
  readonly exit: number;
  readonly report?: { files: number; parsed: number; symbols: number; edges: number; phases: Record<string, number>; ms: number };
  readonly error?: string;
}

/** One command under /usr/bin/time -v: wall (a monotonic clock around it: time's own is in hundredths), CPU (user + system) and peak RSS of the whole process. */
function timed(argv: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): { run: Omit<ProcessRun, 'report'>; stdout: string } {
  const start = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', ...argv], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, env });
  const wall = (performance.now() - start) / 1000;
  const field = (name: string) => new RegExp(`${name}: (.*)`).exec(r.stderr ?? '')?.[1]?.trim() ?? '';
  const cpu = Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)'));
  const peakMB = Number(field('Maximum resident set size \\(kbytes\\)')) / 1024;
  const exit = r.status ?? -1;
  const error = exit !== 0 ? (r.stderr ?? '').split('\n').filter((l) => /error/i.test(l)).slice(0, 2).join(' ').slice(0, 200) || `exit ${exit}${r.signal ? ` (${r.signal})` : ''}` : undefined;
  return { run: { wallS: wall, cpuS: cpu, peakMB, exit, ...(error ? { error } : {}) }, stdout: r.stdout ?? '' };
}

/** `node dist/cli.js index <root> --json` under /usr/bin/time -v, on a fresh database; `structuralOnly` adds --no-knowledge. */
export function timeIndex(repoRoot: string, root: string, timeoutMs: number, structuralOnly = false): ProcessRun {
  fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const { run, stdout } = timed([process.execPath, cli, 'index', root, '--json', ...(structuralOnly ? ['--no-knowledge'] : [])], timeoutMs);
  let report: ProcessRun['report'];
  try {
    report = JSON.parse(stdout) as ProcessRun['report'];
  } catch {
    report = undefined;
  }
  return { ...run, ...(report ? { report } : {}) };
}

/**
 * A peer to compare with, when one is installed: codegraph (npm
 * `@colbymchenry/codegraph`), found as TENURE_BENCH_CODEGRAPH (the program or
 * its folder) or on PATH.
 * Never a dependency of Tenure; the bench only times it.
 */
export function peerCodegraph(): string | undefined {
  const given = process.env['TENURE_BENCH_CODEGRAPH'];
  // The program, or the folder that holds it (a node_modules/.bin): a folder run as a program exits 126.
  if (given) {
    const bin = fs.existsSync(given) && fs.statSync(given).isDirectory() ? path.join(given, 'codegraph') : given;
    return fs.existsSync(bin) ? bin : undefined;
  }
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const bin = path.join(dir, 'codegraph');
    if (dir && fs.existsSync(bin)) return bin;
  }
  return undefined;
}

/** `codegraph init -y <root>` on a fresh index, telemetry off. */
export function timePeer(bin: string, root: string, timeoutMs: number): Omit<ProcessRun, 'report'> {
  fs.rmSync(path.join(root, '.codegraph'), { recursive: true, force: true });
  const { run } = timed([bin, 'init', '-y', root], timeoutMs, { ...process.env, CODEGRAPH_TELEMETRY: '0', NO_COLOR: '1' });
  fs.rmSync(path.join(root, '.codegraph'), { recursive: true, force: true });
  return run;
}

function phases(run: ProcessRun): string {
  const p = run.report?.phases;
  if (!p) return '';
  return ` (structural ${fmtMs(run.report!.ms)}: ${Object.entries(p).map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ')})`;
}

export function scaleRows(opts: ScaleOptions): { rows: Row[]; notes: string[] } {
  if (!fs.existsSync('/usr/bin/time')) return { rows: [['scale', 'not run', '/usr/bin/time is missing (apt-get install time)', '']], notes: [] };
  const { files, sources } = corpus(opts);
  const full = files.length;
  const sizes = [Math.round(full / 4), Math.round(full / 2), full];
  const peer = peerCodegraph();
  const label = `scale corpus (${fmtInt(full)} files${full < opts.files ? `, fewer than the ${fmtInt(opts.files)} asked for` : ''})`;
  const rows: Row[] = [];
  const perFile: number[] = [];
  const cpuPerFile: number[] = [];
  const cpuPerEdge: number[] = [];
  const edgesPerFile: number[] = [];
  let peak = 0;
  for (const n of sizes) {
    const root = tree(files, n);
    opts.log(`scale: indexing ${n} files as a whole process`);
    const run = timeIndex(opts.repoRoot, root, 3_600_000);
    // The peer indexes the full size too, right after, on the same tree.
    const peerRun = n === full && peer ? timePeer(peer, root, 3_600_000) : undefined;
    fs.rmSync(root, { recursive: true, force: true });
    const peerRows: Row[] = [];
    if (peerRun) {
      peerRows.push([label, `${fmtInt(n)} files: peer \`codegraph init -y\`, whole process`, peerRun.exit === 0 ? `${peerRun.wallS.toFixed(1)} s wall, ${peerRun.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(peerRun.peakMB)} MB` : `failed: ${peerRun.error}`, '']);
      if (peerRun.exit === 0 && run.report) peerRows.push([label, `${fmtInt(n)} files: Tenure ÷ peer`, `wall ${(run.wallS / peerRun.wallS).toFixed(2)}×, CPU ${(run.cpuS / peerRun.cpuS).toFixed(2)}×`, '']);
    }
    if (run.exit !== 0 && !run.report) {
      rows.push([label, `${fmtInt(n)} files: tenure index`, `failed: ${run.error}`, ''], ...peerRows);
      continue;
    }
    perFile.push((run.wallS * 1000) / n);
    cpuPerFile.push((run.cpuS * 1000) / n);
    cpuPerEdge.push((run.cpuS * 1e6) / Math.max(1, run.report?.edges ?? 0));
    edgesPerFile.push((run.report?.edges ?? 0) / n);
    peak = Math.max(peak, run.peakMB);
    rows.push([
      label,
      `${fmtInt(n)} files: \`tenure index\`, whole process`,
      `**${run.wallS.toFixed(1)} s** wall, ${run.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(run.peakMB)} MB; ${((run.wallS * 1000) / n).toFixed(2)} ms/file; ${fmtInt(run.report?.symbols ?? 0)} symbols, ${fmtInt(run.report?.edges ?? 0)} edges${phases(run)}${run.exit ? `; exit ${run.exit}` : ''}`,
      n === full ? verdict(run.peakMB <= 2048, '≤ 2 GB') : '',
    ], ...peerRows);
  }
  if (perFile.length === 3) {
    const growthRow = (what: string, ms: readonly number[]): Row => {
      const growth = ms[2]! / ms[0]!;
      return [label, `${what} per file, full ÷ ¼`, `${growth.toFixed(2)}× (${ms.map((x) => `${x.toFixed(2)} ms`).join(' → ')})`, verdict(growth <= 1.2 && growth >= 0.8, 'within ±20%')];
    };
    // On a shared machine wall time also measures the neighbours; CPU time per file is the work's own growth.
    rows.push(growthRow('time', perFile), growthRow('CPU time', cpuPerFile));
    // What the work itself did: edges a file has grow when a larger repository resolves more of its names inside
    // the workspace; the CPU time per edge tells the indexer's own growth from the corpus's.
    rows.push([label, 'edges per file; CPU time per edge, full ÷ ¼', `${edgesPerFile.map((x) => x.toFixed(0)).join(' → ')} edges per file; ${(cpuPerEdge[2]! / cpuPerEdge[0]!).toFixed(2)}× (${cpuPerEdge.map((x) => `${x.toFixed(1)} µs`).join(' → ')})`, '']);
  }
  return { rows, notes: [`- **Scale corpus**: ${sources.join('; ')}; each size takes from every source its share of the files, as whole packages (folders: a Java or Go package, a Python package, a JavaScript folder) in the order of the SHA-1 of their names, the last one cut to fit: every size has the same mix, and a smaller size is a smaller repository rather than a sample of every package; hard-linked under \`${path.join(BENCH_DIR, 'scale-<n>')}\`.`] };
}

/** The run with the median wall time, and every wall time in order. */
function medianRun<T extends { wallS: number }>(runs: readonly T[]): { mid: T; walls: number[] } {
  const walls = runs.map((r) => r.wallS);
  return { mid: runs[medianIndex(walls)]!, walls: walls.sort((a, b) => a - b) };
}

const seconds = (walls: readonly number[]) => walls.map((w) => `${w.toFixed(2)} s`).join(', ');

/**
 * Django as a user indexes it: whole processes on a fresh database,
 * interleaved (structural only, then the default with the knowledge pass,
 * then the peer when installed) so a shared machine's load falls on all alike.
 */
export function djangoProcessRows(repoRoot: string, root: string, runs = 3): Row[] {
  const peer = peerCodegraph();
  const structural: ProcessRun[] = [];
  const full: ProcessRun[] = [];
  const peers: Omit<ProcessRun, 'report'>[] = [];
  for (let i = 0; i < runs; i++) {
    structural.push(timeIndex(repoRoot, root, 600_000, true));
    full.push(timeIndex(repoRoot, root, 600_000));
    if (peer) peers.push(timePeer(peer, root, 600_000));
  }
  const rows: Row[] = [];
  const s = structural.filter((r) => r.report);
  const f = full.filter((r) => r.report);
  if (!s.length) return [['Django', '`tenure index --no-knowledge`, whole process', `failed: ${structural[0]?.error}`, '']];
  const sm = medianRun(s);
  rows.push(['Django', `\`tenure index --no-knowledge\`, whole process, fresh DB (median of ${s.length})`, `**${sm.mid.wallS.toFixed(2)} s** wall, ${sm.mid.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(sm.mid.peakMB)} MB (runs: ${seconds(sm.walls)})${phases(sm.mid)}`, `${verdict(sm.mid.wallS <= 2, '≤ 2 s')}, ${verdict(sm.mid.peakMB <= 300, '≤ 300 MB')}`]);
  if (f.length) {
    const fm = medianRun(f);
    const cpuShare = median(f.map((r) => r.cpuS)) / median(s.map((r) => r.cpuS)) - 1;
    rows.push(['Django', `\`tenure index\` (knowledge pass and build-output scan included), whole process, fresh DB (median of ${f.length})`, `**${fm.mid.wallS.toFixed(2)} s** wall, ${fm.mid.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(fm.mid.peakMB)} MB (runs: ${seconds(fm.walls)})`, '']);
    rows.push(['Django', 'what the knowledge pass and build-output scan add, median CPU', `${(cpuShare * 100).toFixed(0)}%`, verdict(cpuShare <= 0.15, '≤ 15%')]);
  }
  const p = peers.filter((r) => r.exit === 0);
  if (peer && p.length) {
    const pm = medianRun(p);
    const wallRatio = sm.mid.wallS / pm.mid.wallS;
    const cpuRatio = median(s.map((r) => r.cpuS)) / median(p.map((r) => r.cpuS));
    rows.push(['Django', `peer: \`codegraph init -y\` (${peer}), whole process, fresh index (median of ${p.length}, interleaved)`, `${pm.mid.wallS.toFixed(2)} s wall, ${pm.mid.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(pm.mid.peakMB)} MB (runs: ${seconds(pm.walls)})`, '']);
    rows.push(['Django', 'Tenure structural ÷ peer (medians)', `wall ${wallRatio.toFixed(2)}×, CPU ${cpuRatio.toFixed(2)}×`, verdict(wallRatio <= 0.5, '≤ 0.5×')]);
  } else if (peer) rows.push(['Django', 'peer: codegraph', `failed: ${peers[0]?.error ?? 'not run'}`, '']);
  else rows.push(['Django', 'peer', 'not run: no codegraph on PATH (npm `@colbymchenry/codegraph`, or TENURE_BENCH_CODEGRAPH=<its bin>)', '']);
  return rows;
}

/** Questions a user asks from a shell on Django: one whose answer fills its budget (its tokens are counted) and one that is short. */
const CLI_QUESTIONS = [
  { symbol: 'django.db.models.query.QuerySet.filter', depth: 5, what: 'an answer that fills its budget' },
  { symbol: 'django.conf.urls.i18n.is_language_prefix_patterns_used', depth: 1, what: 'a short answer' },
] as const;

/**
 * A query as a user runs it from a shell: `tenure what-breaks` as a whole process on the index Django's rows
 * left, against `node -e 0` in the same minutes (runs interleaved) and the same question asked in process, warm:
 * the target is the query within 2× a bare Node start plus what the query itself costs.
 */
export async function cliQueryRows(repoRoot: string, root: string, runs = 7): Promise<Row[]> {
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const rows: Row[] = [];
  const ws = await openWorkspace(root);
  const inProcess = new Map<string, number>();
  try {
    const tool = findTool('what_breaks')!;
    for (const q of CLI_QUESTIONS) {
      const ms: number[] = [];
      for (let i = 0; i <= runs; i++) {
        const t = performance.now();
        await tool.invoke({ workspace: ws }, { symbol: q.symbol, depth: q.depth });
        if (i) ms.push(performance.now() - t); // the first warms the caches and reads the token table
      }
      inProcess.set(q.symbol, median(ms));
    }
  } finally {
    await ws.close();
  }
  for (const q of CLI_QUESTIONS) {
    const cliRuns: Omit<ProcessRun, 'report'>[] = [];
    const bare: Omit<ProcessRun, 'report'>[] = [];
    for (let i = 0; i < runs; i++) {
      cliRuns.push(timed([process.execPath, cli, 'what-breaks', q.symbol, '--depth', String(q.depth), '--cwd', root], 60_000).run);
      bare.push(timed([process.execPath, '-e', '0'], 60_000).run);
    }
    const failed = cliRuns.find((r) => r.exit !== 0);
    if (failed) {
      rows.push(['Django', `\`tenure what-breaks\` as a whole process (${q.what})`, `failed: ${failed.error}`, '']);
      continue;
    }
    const wall = median(cliRuns.map((r) => r.wallS));
    const node = median(bare.map((r) => r.wallS));
    const queryMs = inProcess.get(q.symbol)!;
    const bound = 2 * node + queryMs / 1000;
    rows.push([
      'Django',
      `\`tenure what-breaks ${q.symbol.split('.').slice(-2).join('.')} --depth ${q.depth}\` as a whole process, ${q.what} (median of ${runs}, interleaved with \`node -e 0\`)`,
      `**${wall.toFixed(3)} s**, peak RSS ${Math.round(median(cliRuns.map((r) => r.peakMB)))} MB; \`node -e 0\` ${node.toFixed(3)} s; the same question in process ${fmtMs(queryMs)}`,
      verdict(wall <= bound, `≤ 2× node -e 0 + query (${bound.toFixed(3)} s)`),
    ]);
  }
  return rows;
}
