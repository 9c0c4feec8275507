import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readWorkspaceFile } from './read.js';

/*
 * .gitignore semantics over a workspace: the rules of every .gitignore from
 * the root down to a path, each relative to its own folder, with extra
 * patterns from settings applied at the root. One matcher for the walk of the
 * whole workspace and for single paths a watcher reports.
 */

/** A .gitignore larger than this is not a list of patterns anyone wrote. */
const MAX_GITIGNORE_BYTES = 4 << 20;

function isFolder(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

interface Rule {
  /** The folder the rules are relative to ('' for the root). */
  readonly base: string;
  readonly ig: Ignore;
}

/** The rules in force inside one folder: its own .gitignore's and every ancestor's. */
export class FolderRules {
  constructor(private readonly rules: readonly Rule[]) {}

  /** These rules and, below them, a folder's own. */
  extend(own: readonly Rule[]): FolderRules {
    return own.length ? new FolderRules([...this.rules, ...own]) : this;
  }

  /** Whether `rel` (workspace-relative, `/`), an entry of this folder, is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    for (const { base, ig } of this.rules) {
      const sub = base ? (rel.startsWith(base + '/') ? rel.slice(base.length + 1) : undefined) : rel;
      if (sub === undefined || sub === '') continue;
      if (ig.ignores(isDir ? sub + '/' : sub)) return true;
    }
    return false;
  }
}

export class IgnoreRules {
  private readonly folders = new Map<string, FolderRules>();
  private readonly exclude: readonly Rule[];

  /**
   * @param exclude extra patterns (gitignore syntax) applied at the root, e.g. from settings
   * @param onUnreadable told of a .gitignore that exists but cannot be read (its rules are not applied)
   */
  constructor(
    private readonly root: string,
    exclude: readonly string[] = [],
    private readonly onUnreadable: (rel: string) => void = () => undefined,
  ) {
    this.exclude = exclude.length ? [{ base: '', ig: ignore().add([...exclude]) }] : [];
  }

  /**
   * The rules in force inside a folder (workspace-relative, '' for the root),
   * reading each .gitignore once. A walk that has listed the folder says
   * whether it holds a .gitignore (`listed`), which spares a read that fails.
   */
  inFolder(dirRel: string, listed?: boolean): FolderRules {
    let rules = this.folders.get(dirRel);
    if (!rules) {
      rules = dirRel ? this.inFolder(parentOf(dirRel)).extend(this.ownRules(dirRel, listed)) : new FolderRules([...this.exclude, ...this.ownRules('', listed)]);
      this.folders.set(dirRel, rules);
    }
    return rules;
  }

  /**
   * Whether a path is ignored, its folders included: for a path not reached
   * by walking down to it (a watcher's event, an editor's save).
   */
  ignoresPath(rel: string): boolean {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (this.inFolder(parentOf(folder)).ignores(folder, true)) return true;
    }
    return this.inFolder(parentOf(rel)).ignores(rel, false);
  }

  /** The rules of the folder's own .gitignore, if it has one. */
  private ownRules(dirRel: string, listed: boolean | undefined): readonly Rule[] {
    if (listed === false) return [];
    const abs = path.join(this.root, dirRel, '.gitignore');
    // Through the workspace reader: a .gitignore that is a FIFO, a device or a link out of the workspace is never opened.
    const read = readWorkspaceFile(this.root, abs, MAX_GITIGNORE_BYTES);
    if (!read.ok) {
      // Not listed and not there (or a folder of that name): no rules of its own. Listed but unreadable: said so.
      if (listed || (!read.missing && !isFolder(abs))) this.onUnreadable(dirRel ? `${dirRel}/.gitignore` : '.gitignore');
      return [];
    }
    return [{ base: dirRel, ig: ignore().add(read.bytes.toString('utf8')) }];
  }
}

function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}
