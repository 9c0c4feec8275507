import { execFile } from 'node:child_process';
import { devNull } from 'node:os';

/*
 * The one way Tenure runs git: the user's git on the repository under index,
 * which is untrusted input (a clone from anywhere, VS Code's restricted
 * mode). Repository config can name programs git would run on a read — an
 * fsmonitor hook, clean/smudge/process filters (git status and diff run them
 * to compare the work tree), textconv and external diff drivers, a gpg program
 * (log.showSignature), a pager, hooks — so every call switches all of them
 * off on the command line, where it outranks the repository's config.
 */

export interface GitResult {
  /** The exit code; 127 when git could not be started. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitOptions {
  /** Default 64 MiB. */
  readonly maxBuffer?: number;
  /** Default: none. */
  readonly timeoutMs?: number;
}

/** Overrides that name no driver: the same on every call. */
const NEVER_RUN: readonly string[] = [
  '--no-pager',
  '-c', 'core.fsmonitor=false',
  '-c', `core.hooksPath=${devNull}`,
  // git treats the pager `cat` as no pager at all.
  '-c', 'core.pager=cat',
  // Empty: a diff that would need an external program fails rather than run one (diffing commands also pass --no-ext-diff).
  '-c', 'diff.external=',
  '-c', 'log.showSignature=false',
  '-c', 'gpg.program=',
  '-c', 'gpg.openpgp.program=',
  '-c', 'gpg.x509.program=',
  '-c', 'gpg.ssh.program=',
  // A bare repository planted inside a work tree is not picked up by walking into it.
  '-c', 'safe.bareRepository=explicit',
];

const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };

/** Plumbing that never reads a file's content, so never reaches a filter or diff driver: no driver overrides needed. */
const NO_CONTENT: ReadonlySet<string> = new Set(['rev-parse', 'symbolic-ref', 'config', 'merge-base', 'remote', 'for-each-ref', 'show-ref', 'rev-list']);

/** Filter and diff driver settings that name a program: `.gitattributes` picks a driver by name, config says what it runs. */
const DRIVER_PROGRAMS = String.raw`^(filter|diff)\..+\.(clean|smudge|process|textconv|command)$`;

function run(cwd: string, args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd, maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024, ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}), encoding: 'utf8', windowsHide: true, env: ENV },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 127) : 0;
        resolve({ code, stdout: String(stdout ?? ''), stderr: String(stderr ?? '') });
      },
    );
  });
}

/**
 * Every filter and diff driver the repository's config defines, emptied:
 * drivers are named, so they are listed first (reading config runs nothing).
 * An emptied filter passes content through; an emptied textconv or diff
 * command makes that diff fail instead of running it.
 */
async function driverOverrides(cwd: string): Promise<string[]> {
  const r = await run(cwd, [...NEVER_RUN, 'config', '--null', '--name-only', '--get-regexp', DRIVER_PROGRAMS], {});
  if (r.code !== 0) return [];
  const out: string[] = [];
  const filters = new Set<string>();
  for (const key of r.stdout.split('\0')) {
    const m = /^(filter|diff)\.(.+)\.([a-z]+)$/.exec(key.trim());
    if (!m) continue;
    out.push('-c', `${m[1]}.${m[2]}.${m[3]}=`);
    if (m[1] === 'filter') filters.add(m[2]!);
  }
  // A required filter that does not run is an error; not running it is the point.
  for (const f of filters) out.push('-c', `filter.${f}.required=false`);
  return out;
}

/** Runs `git args` in `cwd` with nothing of the repository's own run. Never throws: look at `code`. */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const drivers = NO_CONTENT.has(args[0] ?? '') ? [] : await driverOverrides(cwd);
  return run(cwd, [...NEVER_RUN, ...drivers, ...args], options);
}
