import * as fs from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceText } from '../../repo/read.js';
import { walkWorkspace, type SkippedPath } from '../../repo/walk.js';
import { languageForPath, mayBeConfigByFolder, unreadLanguageForPath, type LanguageSpec } from './languages.js';
import { byCodeUnits } from '../../../shared/order.js';

/**
 * The source files of a workspace, each with the language the inventory
 * reads it as, the Go module paths its go.mod files declare, and the name of
 * the Python package its root is (when it is one). The walk itself
 * (.gitignore, symlinks, what was passed over and why) is the repository's:
 * repo/walk.ts.
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
  readonly skipped: SkippedPath[];
  /** Go module paths declared by go.mod files, by the folder that holds them. */
  readonly goModules: Map<string, string>;
  /** The Python package the workspace root is, by its own account; '' when the root is not a package or nothing names it. */
  readonly pythonRoot: string;
  /** Source files in languages the inventory has no grammar for, counted by language (most files first): what answers cannot see. */
  readonly unread: readonly UnreadLanguage[];
}

export interface UnreadLanguage {
  readonly language: string;
  readonly files: number;
  readonly extensions: readonly string[];
}

export interface DiscoverOptions {
  /** Extra ignore patterns (gitignore syntax), e.g. from settings. */
  readonly exclude?: readonly string[];
  /** Only the files under this folder (workspace-relative). */
  readonly under?: string;
}

/** A JSON, YAML or TOML file whose folder decides whether it is configuration. */
const BY_FOLDER = 'by-folder' as const;

export async function discover(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const goModules = new Map<string, string>();
  const walk = await walkWorkspace<LanguageSpec | typeof BY_FOLDER>(root, {
    pick: (name) => languageForPath(name) ?? (mayBeConfigByFolder(name) ? BY_FOLDER : undefined),
    // A source file in a language the inventory does not read is counted, never opened: by language and extension.
    tally: (name) => {
      const language = unreadLanguageForPath(name);
      return language && `${language}\u0000${path.extname(name).toLowerCase()}`;
    },
    exclude: options.exclude ?? [],
    ...(options.under ? { under: options.under } : {}),
    onFolder: (rel, abs, entries) => {
      if (!entries.some((e) => e.name === 'go.mod')) return;
      // A go.mod that cannot be read (a FIFO, a link out of the workspace) only costs import resolution for Go.
      const m = /^module\s+(\S+)/m.exec(readWorkspaceText(root, path.join(abs, 'go.mod')) ?? '');
      if (m) goModules.set(rel, m[1]!);
    },
  });
  const files: DiscoveredFile[] = [];
  for (const f of walk.files) {
    // A configuration file is judged by its whole path, not its name alone: `config.yml` is configuration, `.github/ISSUE_TEMPLATE/config.yml` is not.
    const language = f.tag === BY_FOLDER || f.tag.scheme === 'config' ? languageForPath(f.rel) : f.tag;
    if (language) files.push({ abs: f.abs, rel: f.rel, language, size: f.size, mtimeMs: f.mtimeMs });
  }
  return {
    files,
    skipped: walk.skipped,
    goModules,
    pythonRoot: options.under ? '' : pythonRootPackage(root, files),
    unread: unreadOf(walk.tallied),
  };
}

/** The walk's tally of unread files (keyed language NUL extension), by language, most files first. */
function unreadOf(tallied: ReadonlyMap<string, number>): UnreadLanguage[] {
  const by = new Map<string, { files: number; extensions: string[] }>();
  for (const [key, n] of tallied) {
    const [language, ext] = key.split('\u0000') as [string, string];
    const u = by.get(language) ?? { files: 0, extensions: [] };
    u.files += n;
    u.extensions.push(ext);
    by.set(language, u);
  }
  return [...by].map(([language, u]) => ({ language, files: u.files, extensions: u.extensions.sort() })).sort((a, b) => b.files - a.files || byCodeUnits(a.language, b.language));
}

/** How many of the package's modules are read to learn the name it imports itself by. */
const SELF_IMPORT_SAMPLE = 200;

/**
 * The name of the Python package a workspace root is, when the root holds an
 * `__init__.py`: what its own metadata says (`pyproject.toml`'s
 * `[project] name`, `setup.cfg`'s `[metadata] name`), else the name its own
 * modules import it by (`from django.db import models` in a tree whose root
 * holds `db/`: the root is `django`). The folder's name is not asked: a
 * checkout can sit in any folder.
 */
function pythonRootPackage(root: string, files: readonly DiscoveredFile[]): string {
  if (!files.some((f) => f.rel === '__init__.py')) return '';
  const fromMetadata = metadataName(root);
  if (fromMetadata) return fromMetadata;
  const topLevel = new Set<string>();
  for (const f of files) {
    if (f.language.id !== 'python') continue;
    const first = f.rel.split('/')[0]!;
    topLevel.add(f.rel.includes('/') ? first : first.replace(/\.pyi?$/, ''));
  }
  const votes = new Map<string, number>();
  let read = 0;
  for (const f of files) {
    if (f.language.id !== 'python' || read >= SELF_IMPORT_SAMPLE) continue;
    read++;
    let head: string;
    try {
      const fd = fs.openSync(f.abs, 'r');
      try {
        const buf = Buffer.alloc(Math.min(f.size, 16_384));
        fs.readSync(fd, buf, 0, buf.length, 0);
        head = buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue;
    }
    for (const m of head.matchAll(/^\s*(?:from|import)\s+([A-Za-z_]\w*)\.([A-Za-z_]\w*)/gm)) {
      if (topLevel.has(m[2]!) && !topLevel.has(m[1]!)) votes.set(m[1]!, (votes.get(m[1]!) ?? 0) + 1);
    }
  }
  const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0];
  return best && best[1] >= 2 ? best[0] : metadataName(root);
}

function metadataName(root: string): string {
  const read = (file: string): string | undefined => readWorkspaceText(root, path.join(root, file));
  const pyproject = read('pyproject.toml');
  const fromPyproject = pyproject && /^\[(?:project|tool\.poetry)\][^[]*?^name\s*=\s*["']([^"']+)["']/ms.exec(pyproject);
  const setupCfg = read('setup.cfg');
  const fromSetup = setupCfg && /^\[metadata\][^[]*?^name\s*=\s*(\S+)/ms.exec(setupCfg);
  const name = (fromPyproject || fromSetup || undefined)?.[1];
  // A distribution name (`my-package`) imports as its normalised form.
  return name && /^[A-Za-z_][\w.-]*$/.test(name) ? name.replace(/[-.]/g, '_').toLowerCase() : '';
}
