import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { TenureError, errorMessage } from '../shared/errors.js';
import type { IndexReport } from '../core/structural/index/indexer.js';
import { unreadLine } from '../core/structural/lookup.js';
import { type Workspace, TENURE_DIR } from '../core/store/workspace.js';
import { openWorkspace } from '../core/workspace.js';

/* What every CLI command shares: the workspace root, exit codes, argument parsers. */

export const VERSION = '0.1.0';

/** Exit codes, documented in README. */
export const EXIT = { ok: 0, failure: 1, usage: 2, notIndexed: 3 } as const;

export function exitCodeFor(e: unknown): number {
  if (TenureError.is(e, 'not-indexed') || TenureError.is(e, 'store-unavailable') || TenureError.is(e, 'store-corrupt')) return EXIT.notIndexed;
  if (TenureError.is(e, 'invalid-input')) return EXIT.usage;
  return EXIT.failure;
}

/**
 * The workspace root: --cwd (or a command's folder argument), else the
 * nearest folder above that has a .tenure folder, else the current folder.
 * A folder that was named must exist: a mistyped path is an error, not a new
 * empty folder with an empty index in it.
 */
export function findRoot(cwd: string | undefined): string {
  if (cwd) {
    const root = path.resolve(cwd);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(root);
    } catch {
      // Missing, or under a file (ENOTDIR), or unreadable: no folder to index either way.
    }
    if (!stat?.isDirectory()) {
      const what = stat ? 'is a file, not a folder' : 'does not exist';
      throw new TenureError('invalid-input', `${root} ${what}. Give the repository's folder (\`tenure index <folder>\`, \`--cwd <folder>\`) or run tenure inside it.`);
    }
    return root;
  }
  let dir = process.cwd();
  for (;;) {
    if (fs.existsSync(path.join(dir, TENURE_DIR))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return n;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function renderIndexReport(r: IndexReport): string {
  const mb = r.bytes / 1024 / 1024;
  const lines = [
    `Indexed ${r.files} files (${mb.toFixed(1)} MB) in ${(r.ms / 1000).toFixed(2)} s: ${r.parsed} parsed, ${r.unchanged} unchanged, ${r.removed} removed, ${r.skipped.length} skipped.`,
    `Structural memory: ${r.symbols} symbols, ${r.sites} use sites, ${r.edges} edges.`,
    `Where the time went: ${(Object.entries(r.phases) as [string, number][]).map(([phase, ms]) => `${phase} ${seconds(ms)}`).join(' · ')}.`,
  ];
  if (r.rebuilt) lines.push('Built again from scratch: the index was made by another version of Tenure, which reads files differently.');
  if (r.unread.length) lines.push(unreadLine(r.unread));
  if (r.skipped.length) {
    lines.push('Skipped (not in the index):');
    for (const s of r.skipped.slice(0, 10)) lines.push(`  ${s.path}: ${s.reason}`);
    if (r.skipped.length > 10) lines.push(`  … and ${r.skipped.length - 10} more (tenure status --json lists them all)`);
  }
  if (r.partial.length) {
    lines.push('Indexed in part (constructs left out, the rest of the file indexed):');
    for (const p of r.partial.slice(0, 10)) lines.push(`  ${p.path}:${p.line}: ${p.reason}${p.constructs > 1 ? ` (and ${p.constructs - 1} more)` : ''}`);
    if (r.partial.length > 10) lines.push(`  … and ${r.partial.length - 10} more files (tenure index --json lists them all)`);
  }
  return lines.join('\n');
}

export async function withWorkspace<T>(cwd: string | undefined, fn: (ws: Workspace) => Promise<T>, readonly = false): Promise<T> {
  const ws = await openWorkspace(findRoot(cwd), { readonly });
  try {
    return await fn(ws);
  } finally {
    await ws.close();
  }
}


/** The global --cwd option of the root program. */
export function cwdOf(cmd: Command): string | undefined {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return root.opts<{ cwd?: string }>().cwd;
}

/** Restricted mode for the CLI and MCP server, the same as VS Code's for an untrusted folder. */
export const RESTRICTED_ENV = 'TENURE_RESTRICTED';

/** Whether this run treats the workspace as untrusted: `--restricted`, or TENURE_RESTRICTED=1 in the environment (never a setting the repository holds). */
export function restrictedOf(cmd: Command): boolean {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return root.opts<{ restricted?: boolean }>().restricted === true || process.env[RESTRICTED_ENV] === '1';
}

/** Refuses, with what to do, a command restricted mode does not run. */
export function refuseInRestricted(cmd: Command, what: string): void {
  if (restrictedOf(cmd)) {
    throw new TenureError('invalid-input', `Restricted mode: ${what} is off for an untrusted workspace (--restricted or ${RESTRICTED_ENV}=1). Run without it once you trust this repository.`);
  }
}

/** A command group: each memory registers its commands on the program. */
export type CommandGroup = (program: Command) => void;

/**
 * The `tenure` program with its global options, before any command is added:
 * the full CLI and the slim query entry (queryMain.ts) start from it, so a
 * command behaves the same whichever bundle runs it.
 */
export function tenureProgram(): Command {
  return (
    new Command()
      .name('tenure')
      .description('The memory of a repository for AI coding agents and the people who work with them. Every answer carries its tier.')
      .version(VERSION)
      .option('-C, --cwd <dir>', 'workspace root (default: the nearest folder with .tenure, else the current folder)')
      .option('--restricted', `treat the workspace as untrusted, as VS Code's restricted mode does: start no language server, call no model, write no instruction file (also ${RESTRICTED_ENV}=1)`)
      .showHelpAfterError('(run `tenure --help` for usage)')
      // Set before subcommands are added: they inherit it, so usage errors exit 2 everywhere.
      .exitOverride()
  );
}

/** Parses and runs a program, mapping commander's exits and Tenure's errors to the documented exit codes. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    // A command that finished but did not succeed (a knowledge run that stopped early) says so through process.exitCode.
    return typeof process.exitCode === 'number' && process.exitCode !== 0 ? process.exitCode : EXIT.ok;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return EXIT.ok;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage;
    process.stderr.write(`tenure: ${errorMessage(e)}\n`);
    return exitCodeFor(e);
  }
}

/** A yes/no question on the terminal; false without one (an agent's shell, CI): nothing is approved by default. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  // Loaded here: the queries never ask, and node:readline is a part of every command's start otherwise.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createInterface } = require('node:readline/promises') as typeof import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
