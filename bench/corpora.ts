import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/*
 * The corpora, each copied or unpacked into a scratch folder under the OS
 * temp dir (never into the repository: indexing writes `.tenure/` into the
 * corpus root). A corpus that cannot be prepared comes back with the reason,
 * so the table gets a row saying why instead of the run crashing.
 */

export const BENCH_DIR = path.join(os.tmpdir(), 'tenure-bench');

/**
 * Two runs in one scratch folder rebuild each other's corpora and snapshot
 * mid-measurement: the first run holds the folder (a lock file with its pid)
 * and a second one stops at once, saying which process holds it.
 */
export function claimBenchDir(): () => void {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const lock = path.join(BENCH_DIR, 'run.lock');
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      const release = () => {
        if (fs.readFileSync(lock, 'utf8') === String(process.pid)) fs.rmSync(lock, { force: true });
      };
      process.once('exit', release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(fs.readFileSync(lock, 'utf8'));
    if (holder && isAlive(holder)) {
      throw new Error(`another benchmark (pid ${holder}) is running in ${BENCH_DIR}; wait for it to finish, or give this run its own folder with TMPDIR=<another folder>`);
    }
    fs.rmSync(lock, { force: true }); // left by a run that was killed
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Corpus {
  readonly id: string;
  readonly label: string;
  /** Where it came from, for the notes under the table. */
  readonly source: string;
  readonly root?: string;
  /** Set when the corpus could not be prepared. */
  readonly error?: string;
}

const DJANGO_SYSTEM_DIR = '/usr/lib/python3/dist-packages/django';
/** A large TypeScript package that ships its sources (`src/**\/*.ts`), pinned so runs compare. */
export const TS_PACKAGE = { name: 'effect', version: '4.1.0' };

function errorText(e: unknown): string {
  const err = e as { stderr?: Buffer | string; message?: string };
  const stderr = err.stderr ? String(err.stderr).trim().split('\n').filter(Boolean).slice(-2).join(' ') : '';
  return (stderr || err.message || String(e)).replace(/\s+/g, ' ').slice(0, 300);
}

/** Copies a folder, leaving out caches and any previous Tenure database. Symlinks are copied as they are (like `cp -r`). */
function copyTree(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const base = path.basename(src);
      return base !== '__pycache__' && base !== '.tenure' && base !== 'node_modules' && !base.endsWith('.pyc');
    },
  });
}

export function prepareDjango(): Corpus {
  const base = { id: 'django', label: 'Django', source: `Debian python3-django, ${DJANGO_SYSTEM_DIR}` };
  if (!fs.existsSync(path.join(DJANGO_SYSTEM_DIR, '__init__.py'))) {
    return { ...base, error: `${DJANGO_SYSTEM_DIR} not found: apt-get install python3-django` };
  }
  try {
    let version = '';
    try {
      version = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'python3-django'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      const m = /VERSION\s*=\s*\((\d+),\s*(\d+),\s*(\d+)/.exec(fs.readFileSync(path.join(DJANGO_SYSTEM_DIR, '__init__.py'), 'utf8'));
      if (m) version = `${m[1]}.${m[2]}.${m[3]}`;
    }
    const upstream = /(?:\d+:)?(\d+\.\d+(?:\.\d+)?)/.exec(version)?.[1];
    const root = path.join(BENCH_DIR, 'django');
    copyTree(DJANGO_SYSTEM_DIR, root);
    return { ...base, label: upstream ? `Django ${upstream}` : 'Django', source: `${base.source}${version ? ` (package ${version})` : ''}`, root };
  } catch (e) {
    return { ...base, error: `could not copy ${DJANGO_SYSTEM_DIR}: ${errorText(e)}` };
  }
}

export function prepareTsPackage(): Corpus {
  const spec = `${TS_PACKAGE.name}@${TS_PACKAGE.version}`;
  const base = { id: 'ts', label: `${spec} (TypeScript)`, source: `\`npm pack ${spec}\`, its \`src/\` folder only (the package also ships compiled dist/)` };
  try {
    const dl = path.join(BENCH_DIR, 'npm');
    fs.mkdirSync(dl, { recursive: true });
    const tgz = path.join(dl, `${TS_PACKAGE.name.replace(/^@/, '').replace('/', '-')}-${TS_PACKAGE.version}.tgz`);
    if (!fs.existsSync(tgz)) {
      execFileSync('npm', ['pack', spec, '--pack-destination', dl, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
      if (!fs.existsSync(tgz)) return { ...base, error: `npm pack ${spec} produced no ${path.basename(tgz)}` };
    }
    const unpacked = path.join(dl, `${path.basename(tgz, '.tgz')}`);
    fs.rmSync(unpacked, { recursive: true, force: true });
    fs.mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['xzf', tgz, '-C', unpacked], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    const src = path.join(unpacked, 'package', 'src');
    if (!fs.existsSync(src)) return { ...base, error: `${spec} ships no src/ folder` };
    const root = path.join(BENCH_DIR, 'ts-package');
    copyTree(src, root);
    fs.rmSync(unpacked, { recursive: true, force: true });
    return { ...base, root };
  } catch (e) {
    return { ...base, error: `could not fetch ${spec} (npm pack + tar): ${errorText(e)}` };
  }
}

export function prepareSettlement(repoRoot: string): Corpus {
  const from = path.join(repoRoot, 'examples', 'settlement');
  const base = { id: 'settlement', label: 'examples/settlement', source: 'this repository, copied' };
  if (!fs.existsSync(from)) return { ...base, error: `${from} not found` };
  try {
    const root = path.join(BENCH_DIR, 'settlement');
    copyTree(from, root);
    return { ...base, root };
  } catch (e) {
    return { ...base, error: `could not copy ${from}: ${errorText(e)}` };
  }
}
