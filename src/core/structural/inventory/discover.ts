import * as fs from 'node:fs';
import * as path from 'node:path';
import { walkWorkspace, type SkippedPath } from '../../repo/walk.js';
import { languageForPath, type LanguageSpec } from './languages.js';

/**
 * The source files of a workspace, each with the language the inventory
 * reads it as, and the Go module paths its go.mod files declare. The walk
 * itself (.gitignore, symlinks, what was passed over and why) is the
 * repository's: repo/walk.ts.
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
}

export interface DiscoverOptions {
  /** Extra ignore patterns (gitignore syntax), e.g. from settings. */
  readonly exclude?: readonly string[];
  /** Only the files under this folder (workspace-relative). */
  readonly under?: string;
}

export async function discover(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const goModules = new Map<string, string>();
  const walk = await walkWorkspace(root, {
    pick: languageForPath,
    exclude: options.exclude ?? [],
    ...(options.under ? { under: options.under } : {}),
    onFolder: (rel, abs, entries) => {
      if (!entries.some((e) => e.name === 'go.mod')) return;
      try {
        const m = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(abs, 'go.mod'), 'utf8'));
        if (m) goModules.set(rel, m[1]!);
      } catch {
        // a broken go.mod only costs import resolution for Go
      }
    },
  });
  return { files: walk.files.map((f) => ({ abs: f.abs, rel: f.rel, language: f.tag, size: f.size, mtimeMs: f.mtimeMs })), skipped: walk.skipped, goModules };
}
