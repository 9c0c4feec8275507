import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { Yielder } from '../../../shared/yielder.js';
import { ALWAYS_SKIPPED_DIRS } from '../../repo/walk.js';
import { languageForPath, type LanguageSpec } from './languages.js';

/**
 * Finds the source files of a workspace: respects .gitignore files at every
 * level, never follows a symlinked directory twice (no loops), and reports
 * what it passed over and why, so nothing disappears silently. The walk uses
 * the synchronous calls (a stat costs microseconds; a promise per file made
 * the walk three times slower) and yields to the event loop every few
 * milliseconds, so it never holds the host's thread for long.
 */


export interface DiscoveredFile {
  readonly abs: string;
  /** Workspace-relative, forward slashes. */
  readonly rel: string;
  readonly language: LanguageSpec;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface Discovery {
  readonly files: DiscoveredFile[];
  /** Paths passed over with the reason (unreadable folders, symlink loops). */
  readonly skipped: { rel: string; reason: string }[];
  /** Go module paths declared by go.mod files, by the folder that holds them. */
  readonly goModules: Map<string, string>;
}

export interface DiscoverOptions {
  /** Extra ignore patterns (gitignore syntax), e.g. from settings. */
  readonly exclude?: readonly string[];
}

interface Frame {
  readonly dir: string;
  readonly rel: string;
  /** Ignore rules that apply here, each with the folder they are relative to. */
  readonly rules: readonly { base: string; ig: Ignore }[];
}

function isIgnored(rules: Frame['rules'], rel: string, isDir: boolean): boolean {
  for (const { base, ig } of rules) {
    const sub = base ? (rel.startsWith(base + '/') ? rel.slice(base.length + 1) : undefined) : rel;
    if (sub === undefined || sub === '') continue;
    if (ig.ignores(isDir ? sub + '/' : sub)) return true;
  }
  return false;
}

export async function discover(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const files: DiscoveredFile[] = [];
  const skipped: { rel: string; reason: string }[] = [];
  const goModules = new Map<string, string>();
  const seenDirs = new Set<string>();
  const rootRules = options.exclude?.length ? [{ base: '', ig: ignore().add([...options.exclude]) }] : [];
  const stack: Frame[] = [{ dir: root, rel: '', rules: rootRules }];
  const yielder = new Yielder(12, 8);

  while (stack.length > 0) {
    const frame = stack.pop()!;
    let real: string;
    try {
      real = fs.realpathSync(frame.dir);
    } catch (e) {
      skipped.push({ rel: frame.rel || '.', reason: `unreadable folder (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
      continue;
    }
    if (seenDirs.has(real)) {
      skipped.push({ rel: frame.rel, reason: 'symlink to a folder already indexed (loop or duplicate)' });
      continue;
    }
    seenDirs.add(real);

    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(frame.dir, { withFileTypes: true });
    } catch (e) {
      skipped.push({ rel: frame.rel || '.', reason: `unreadable folder (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
      continue;
    }
    let rules = frame.rules;
    if (entries.some((e) => e.name === '.gitignore' && !e.isDirectory())) {
      try {
        const ig = ignore().add(fs.readFileSync(path.join(frame.dir, '.gitignore'), 'utf8'));
        rules = [...rules, { base: frame.rel, ig }];
      } catch {
        skipped.push({ rel: join(frame.rel, '.gitignore'), reason: 'unreadable .gitignore (its rules were not applied)' });
      }
    }
    if (entries.some((e) => e.name === 'go.mod')) {
      try {
        const m = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(frame.dir, 'go.mod'), 'utf8'));
        if (m) goModules.set(frame.rel, m[1]!);
      } catch {
        // a broken go.mod only costs import resolution for Go
      }
    }
    for (const entry of entries) {
      if (yielder.due()) await yielder.yield();
      const abs = path.join(frame.dir, entry.name);
      const rel = join(frame.rel, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = fs.statSync(abs);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          skipped.push({ rel, reason: 'broken symlink' });
          continue;
        }
      }
      if (isDir) {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || isIgnored(rules, rel, true)) continue;
        stack.push({ dir: abs, rel, rules });
      } else if (isFile) {
        const language = languageForPath(entry.name);
        if (!language || isIgnored(rules, rel, false)) continue;
        let st: fs.Stats;
        try {
          st = fs.statSync(abs);
        } catch (e) {
          skipped.push({ rel, reason: `unreadable (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
          continue;
        }
        files.push({ abs, rel, language, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
      }
    }
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files, skipped, goModules };
}

function join(a: string, b: string): string {
  return a ? `${a}/${b}` : b;
}
