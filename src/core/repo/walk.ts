import * as fs from 'node:fs';
import * as path from 'node:path';
import { Yielder } from '../../shared/yielder.js';
import type { Skip } from '../model/skips.js';
import { IgnoreRules } from './gitignore.js';
import { insideWorkspace } from './read.js';

/*
 * The repository under index is untrusted input. Every walk of its files
 * starts from what is here: it respects .gitignore files at every level,
 * never follows a symlinked directory twice (no loops), and reports what it
 * passed over and why, so nothing disappears silently. The walk uses the
 * synchronous calls (a stat costs microseconds; a promise per file made the
 * walk three times slower) and yields to the event loop every few
 * milliseconds, so it never holds the host's thread for long.
 */

/** Folders that are never source, whatever .gitignore says. */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.tenure', 'node_modules', '.vscode-test', '__pycache__']);

export interface WalkedFile<T> {
  readonly abs: string;
  /** Workspace-relative, forward slashes. */
  readonly rel: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** What `pick` said of the file. */
  readonly tag: T;
}

/** A path passed over, with why. */
export type SkippedPath = Skip & { readonly rel: string };

export interface WalkOptions<T> {
  /** Which files to keep, by name, and what to keep with each (its language); undefined passes the file over without a word. */
  readonly pick: (name: string) => T | undefined;
  /** Extra ignore patterns (gitignore syntax), e.g. from settings. */
  readonly exclude?: readonly string[];
  /** Walk only this folder (workspace-relative), under the rules of the folders above it. */
  readonly under?: string;
  /** Told of each folder walked, with its entries, before they are. */
  readonly onFolder?: (rel: string, abs: string, entries: readonly fs.Dirent[]) => void;
  /** Files `pick` passes over that are still worth counting, by the key this gives (never opened or even stat'ed). */
  readonly tally?: (name: string) => string | undefined;
}

export interface Walk<T> {
  /** Sorted by `rel`. */
  readonly files: WalkedFile<T>[];
  /** Paths passed over with the reason (unreadable folders, symlink loops). */
  readonly skipped: SkippedPath[];
  /** How many files `tally` counted, by its key. */
  readonly tallied: ReadonlyMap<string, number>;
}

const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? 'error';

export async function walkWorkspace<T>(root: string, options: WalkOptions<T>): Promise<Walk<T>> {
  const files: WalkedFile<T>[] = [];
  const skipped: SkippedPath[] = [];
  const tallied = new Map<string, number>();
  const rules = new IgnoreRules(root, options.exclude ?? [], (rel) => skipped.push({ rel, kind: 'unreadable-gitignore', reason: 'unreadable .gitignore (its rules were not applied)' }));
  const seenDirs = new Set<string>();
  const start = options.under ?? '';
  // A folder's real path is known without a system call unless it was reached through a symlink: a plain
  // folder's is its parent's joined with its name. Only the start and linked folders are resolved.
  const stack: { dir: string; rel: string; real?: string }[] = [{ dir: start ? path.join(root, start) : root, rel: start }];
  const yielder = new Yielder(12, 8);

  while (stack.length > 0) {
    const frame = stack.pop()!;
    let real: string;
    try {
      real = frame.real ?? fs.realpathSync(frame.dir);
    } catch (e) {
      skipped.push({ rel: frame.rel || '.', kind: 'unreadable-folder', reason: `unreadable folder (${errCode(e)})` });
      continue;
    }
    if (seenDirs.has(real)) {
      skipped.push({ rel: frame.rel, kind: 'symlink-loop', reason: 'symlink to a folder already indexed (loop or duplicate)' });
      continue;
    }
    seenDirs.add(real);

    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(frame.dir, { withFileTypes: true });
    } catch (e) {
      skipped.push({ rel: frame.rel || '.', kind: 'unreadable-folder', reason: `unreadable folder (${errCode(e)})` });
      continue;
    }
    const here = rules.inFolder(frame.rel, entries.some((e) => e.name === '.gitignore' && !e.isDirectory()));
    options.onFolder?.(frame.rel, frame.dir, entries);
    for (const entry of entries) {
      if (yielder.due()) await yielder.yield();
      const abs = path.join(frame.dir, entry.name);
      const rel = frame.rel ? `${frame.rel}/${entry.name}` : entry.name;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let target: string | undefined;
      if (entry.isSymbolicLink()) {
        try {
          target = fs.realpathSync(abs);
          const st = fs.statSync(target);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          skipped.push({ rel, kind: 'broken-symlink', reason: 'broken symlink' });
          continue;
        }
        // The workspace is a boundary: a link out of it (to /etc, a home folder, /dev) is never followed.
        if (!insideWorkspace(root, target)) {
          if (isDir ? !(ALWAYS_SKIPPED_DIRS.has(entry.name) || here.ignores(rel, true)) : options.pick(entry.name) !== undefined && !here.ignores(rel, false)) {
            skipped.push({ rel, kind: 'outside-workspace', reason: `a symlink to ${target}, outside the workspace: not followed` });
          }
          continue;
        }
      }
      if (!isDir && !isFile) {
        // FIFOs, sockets and devices never end or block when read: a source file's name does not make them one.
        if (options.pick(entry.name) !== undefined && !here.ignores(rel, false)) skipped.push({ rel, kind: 'not-a-regular-file', reason: 'not a regular file (a FIFO, socket or device): never opened' });
        continue;
      }
      if (isDir) {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || here.ignores(rel, true)) continue;
        stack.push({ dir: abs, rel, real: target ?? path.join(real, entry.name) });
      } else if (isFile) {
        const tag = options.pick(entry.name);
        if (tag === undefined) {
          const key = options.tally?.(entry.name);
          if (key !== undefined && !here.ignores(rel, false)) tallied.set(key, (tallied.get(key) ?? 0) + 1);
          continue;
        }
        if (here.ignores(rel, false)) continue;
        let st: fs.Stats;
        try {
          st = fs.statSync(abs);
        } catch (e) {
          skipped.push({ rel, kind: 'unreadable', reason: `unreadable (${errCode(e)})` });
          continue;
        }
        files.push({ abs, rel, size: st.size, mtimeMs: Math.floor(st.mtimeMs), tag });
      }
    }
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files, skipped, tallied };
}
