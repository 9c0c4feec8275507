import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { limitHeapGrowth } from './heap.js';

/*
 * The `tenure` command. What an agent runs on every attempt goes to a slim
 * bundle: `tenure run` to dist/tenure-run.js (the episodic and procedural
 * commands, about a fifth of the code to load), the catalog's queries
 * (`what-breaks`, `why`, `ask`, …) to dist/tenure-query.js (about two thirds:
 * no indexing, enrichment, model clients, MCP server or team store).
 * Everything else goes to the full CLI (dist/tenure-main.js). All are loaded
 * by path, so this launcher stays a few lines of JavaScript to start, and
 * with V8's code cache (loadBundle): compiling a bundle of megabytes was a
 * third of a short query's whole process.
 */

/** The subcommand named on the command line, skipping global options (`-C <dir>`, `--cwd <dir>`). */
export function commandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (a === '-C' || a === '--cwd') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return undefined;
}

type Entry = { file: string; start: 'runMain' | 'queryMain' | 'main' };

/** Which bundle runs a command: the slim ones for `run` and the catalog's queries, the full CLI for the rest. */
export function entryFor(command: string | undefined, queryCommands: readonly string[]): Entry {
  if (command === 'run') return { file: 'tenure-run.js', start: 'runMain' };
  if (command !== undefined && queryCommands.includes(command)) return { file: 'tenure-query.js', start: 'queryMain' };
  return { file: 'tenure-main.js', start: 'main' };
}

/** The catalog's command names, written by the build beside this file; none (the full CLI for all) when absent. */
function queryCommands(): string[] {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'query-commands.json'), 'utf8')) as string[];
  } catch {
    return [];
  }
}

/**
 * Where a bundle's code cache is kept: beside it, one file per V8 version and build of the bundle. V8 refuses a cache
 * of another V8, but checks a cache against the source only by its length: a bundle rebuilt to the same length (a
 * digit changed) would run the code cached from the old one. The bundle's size, modification time and inode name its
 * build, for the price of one stat.
 */
export function codeCachePath(file: string): string {
  const st = fs.statSync(file);
  return path.join(path.dirname(file), '.cache', `${path.basename(file)}.${process.versions.v8}.${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}.v8cache`);
}

/**
 * A CommonJS bundle loaded as `require` would, compiled with the code V8
 * cached the last time it ran. V8 checks the cache against the source and
 * its own version and flags, and compiles anew when it does not fit; the
 * cache is then written again when the command ends, with the functions it
 * ran. The cache sits beside the bundle: whoever can write it can write the
 * bundle, so it trusts no one new. An install that cannot be written runs
 * without one.
 */
export function loadBundle(file: string): Record<string, unknown> {
  const cacheFile = codeCachePath(file);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const source = readSource(file).replace(/^#!.*/, '');
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}), importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const bundleModule = { exports: {} as Record<string, unknown>, filename: file, id: file, loaded: false };
  (script.runInThisContext() as (...args: unknown[]) => void)(bundleModule.exports, createRequire(file), bundleModule, file, path.dirname(file));
  bundleModule.loaded = true;
  if (!cachedData || script.cachedDataRejected) process.once('exit', () => writeCodeCache(file, script));
  return bundleModule.exports;
}

/**
 * A bundle's text. The build writes its bundles in ASCII alone (scripts/build.mjs says how), and
 * ASCII read as Latin-1 is the same text as read as UTF-8, without decoding a megabyte of UTF-8 into
 * a two-byte string at every start; being the same string, it fits the code cache either way. A
 * bundle that is not ASCII (one built before, or by hand) is read as UTF-8, as it always was.
 */
export function readSource(file: string): string {
  const bytes = fs.readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

function writeCodeCache(file: string, script: vm.Script): void {
  const cacheFile = codeCachePath(file);
  // Written whole then renamed: two commands ending at once never leave half a cache.
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    const dir = path.dirname(cacheFile);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
    // The caches of the V8 versions this bundle ran under before.
    const stale = (f: string) => f.startsWith(`${path.basename(file)}.`) && f.endsWith('.v8cache') && f !== path.basename(cacheFile);
    for (const f of fs.readdirSync(dir).filter(stale)) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    // A read-only install or a full disk: the next start compiles again, as without a cache.
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // no folder to leave it in
    }
  }
}

function launch(): void {
  let entry = entryFor(commandOf(process.argv.slice(2)), queryCommands());
  if (!fs.existsSync(path.join(__dirname, entry.file))) entry = { file: 'tenure-main.js', start: 'main' };
  // V8 checks a code cache against its flags as well. The full CLI sets one as it starts (main.ts): set before the
  // bundle is compiled, the cache written when the command ends fits the next start; set after, it never did, and
  // every `tenure index` compiled its 5 MB bundle again (a quarter of a second) and wrote the cache anew.
  if (entry.start === 'main') limitHeapGrowth();
  const bundle = loadBundle(path.join(__dirname, entry.file)) as Record<Entry['start'], ((argv: string[]) => Promise<number>) | undefined>;
  void bundle[entry.start]!(process.argv).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) launch();
