import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BENCH_DIR } from './corpora.js';
import { fmtInt, fmtMs, verdict, type Row } from './stats.js';

/*
 * The scale benchmark: `tenure index` as a user runs it — a whole process
 * (`node dist/cli.js index <dir>`, the offline knowledge pass included), timed
 * by /usr/bin/time — on a corpus built from the sources Debian packages put
 * on this machine (the JDK's src.zip, the Go standard library of
 * golang-*-src, the Python standard library and dist-packages, JavaScript
 * under /usr/share), at ¼, ½ and the whole of it,
 * so the growth curve shows. Files are taken in the order of a hash of their
 * path, so every size has the same mix. When Debian's sources fall short of
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

/** The corpus: its files in hash order, and where they came from. */
function corpus(opts: ScaleOptions): { files: { abs: string; rel: string }[]; sources: string[] } {
  const sources = debianSources();
  const debian = sources.flatMap((s) => s.files);
  const notes = sources.map((s) => `${s.label}: ${fmtInt(s.files.length)} files`);
  let files = [...debian].sort((a, b) => (order(a.rel) < order(b.rel) ? -1 : 1));
  if (files.length < opts.files) {
    const extra: { abs: string; rel: string }[] = [];
    walk(path.join(opts.repoRoot, 'node_modules'), 'node_modules-src', extra, (n) => n === 'test' || n === 'tests' || n === '.bin');
    extra.sort((a, b) => (order(a.rel) < order(b.rel) ? -1 : 1));
    const take = extra.slice(0, opts.files - files.length);
    if (take.length) notes.push(`not from Debian: ${fmtInt(take.length)} JavaScript/TypeScript files of the project's own node_modules, to reach the size`);
    files = [...files, ...take].sort((a, b) => (order(a.rel) < order(b.rel) ? -1 : 1));
  }
  return { files: files.slice(0, opts.files), sources: notes };
}

/** A tree of the first n files, hard-linked (a copy where linking fails). */
function tree(files: readonly { abs: string; rel: string }[], n: number): string {
  const root = path.join(BENCH_DIR, `scale-${n}`);
  fs.rmSync(root, { recursive: true, force: true });
  for (const f of files.slice(0, n)) {
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

/** `node dist/cli.js index <root> --json` under /usr/bin/time -v, on a fresh database. */
export function timeIndex(repoRoot: string, root: string, timeoutMs: number): ProcessRun {
  fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, cli, 'index', root, '--json'], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const field = (name: string) => new RegExp(`${name}: (.*)`).exec(r.stderr ?? '')?.[1]?.trim() ?? '';
  const wall = field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)').split(':').map(Number).reduce((acc, x) => acc * 60 + x, 0);
  const cpu = Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)'));
  const peakMB = Number(field('Maximum resident set size \\(kbytes\\)')) / 1024;
  let report: ProcessRun['report'];
  try {
    report = JSON.parse(r.stdout) as ProcessRun['report'];
  } catch {
    report = undefined;
  }
  const exit = r.status ?? -1;
  return { wallS: wall, cpuS: cpu, peakMB, exit, ...(report ? { report } : {}), ...(exit !== 0 ? { error: (r.stderr ?? '').split('\n').filter((l) => /error/i.test(l)).slice(0, 2).join(' ').slice(0, 200) || `exit ${exit}${r.signal ? ` (${r.signal})` : ''}` } : {}) };
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
  const label = `scale corpus (${fmtInt(full)} files${full < opts.files ? `, fewer than the ${fmtInt(opts.files)} asked for` : ''})`;
  const rows: Row[] = [];
  const perFile: number[] = [];
  const cpuPerFile: number[] = [];
  let peak = 0;
  for (const n of sizes) {
    const root = tree(files, n);
    opts.log(`scale: indexing ${n} files as a whole process`);
    const run = timeIndex(opts.repoRoot, root, 3_600_000);
    fs.rmSync(root, { recursive: true, force: true });
    if (run.exit !== 0 && !run.report) {
      rows.push([label, `${fmtInt(n)} files: tenure index`, `failed: ${run.error}`, '']);
      continue;
    }
    perFile.push((run.wallS * 1000) / n);
    cpuPerFile.push((run.cpuS * 1000) / n);
    peak = Math.max(peak, run.peakMB);
    rows.push([
      label,
      `${fmtInt(n)} files: \`tenure index\`, whole process`,
      `**${run.wallS.toFixed(1)} s** wall, ${run.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(run.peakMB)} MB; ${((run.wallS * 1000) / n).toFixed(2)} ms/file; ${fmtInt(run.report?.symbols ?? 0)} symbols, ${fmtInt(run.report?.edges ?? 0)} edges${phases(run)}${run.exit ? `; exit ${run.exit}` : ''}`,
      n === full ? verdict(run.peakMB <= 2048, '≤ 2 GB') : '',
    ]);
  }
  if (perFile.length === 3) {
    const growth = perFile[2]! / perFile[0]!;
    rows.push([label, 'time per file, full ÷ ¼', `${growth.toFixed(2)}× (${perFile.map((x) => `${x.toFixed(2)} ms`).join(' → ')})`, verdict(growth <= 1.2 && growth >= 0.8, 'within ±20%')]);
    // On a shared machine wall time also measures the neighbours; CPU time per file is the work's own growth.
    const cpuGrowth = cpuPerFile[2]! / cpuPerFile[0]!;
    rows.push([label, 'CPU time per file, full ÷ ¼', `${cpuGrowth.toFixed(2)}× (${cpuPerFile.map((x) => `${x.toFixed(2)} ms`).join(' → ')})`, verdict(cpuGrowth <= 1.2 && cpuGrowth >= 0.8, 'within ±20%')]);
  }
  return { rows, notes: [`- **Scale corpus**: ${sources.join('; ')}; files taken in the order of the SHA-1 of their path (every size the same mix), hard-linked under \`${path.join(BENCH_DIR, 'scale-<n>')}\`.`] };
}

/** Django as a user indexes it: whole process, fresh database, three runs. */
export function djangoProcessRows(repoRoot: string, root: string, runs = 3): Row[] {
  const results = Array.from({ length: runs }, () => timeIndex(repoRoot, root, 600_000));
  const ok = results.filter((r) => r.report);
  if (!ok.length) return [['Django', '`tenure index`, whole process', `failed: ${results[0]?.error}`, '']];
  const walls = ok.map((r) => r.wallS).sort((a, b) => a - b);
  const mid = ok.find((r) => r.wallS === walls[Math.floor((walls.length - 1) / 2)])!;
  return [[
    'Django',
    `\`tenure index\`, whole process, fresh DB (median of ${ok.length})`,
    `**${mid.wallS.toFixed(2)} s** wall, ${mid.cpuS.toFixed(1)} CPU s, peak RSS ${Math.round(mid.peakMB)} MB (runs: ${walls.map((w) => `${w.toFixed(2)} s`).join(', ')})${phases(mid)}`,
    verdict(mid.wallS <= 2, '≤ 2 s'),
  ]];
}
