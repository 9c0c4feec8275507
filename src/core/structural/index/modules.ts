import * as path from 'node:path';
import { moduleKey, type FileEntry, type Import, type StructuralState } from './state.js';

/*
 * Modules: which files an import statement names, per language — a relative
 * path with its extensions (TypeScript), a dotted name read from the
 * importing file's package (Python), a package folder (Go), a class or
 * package (Java). A name written relative to another root (a vendored
 * package, a Go module path's tail) is matched by its trailing parts.
 */

/** A Python import's module as an absolute name: `.x` and `..` are read from the importing file's package. */
export function absolutePython(file: FileEntry, mod: string): string {
  if (!mod.startsWith('.')) return mod;
  const dots = /^\.+/.exec(mod)![0].length;
  const pkg = file.moduleName.split('.');
  // A module's package is its parent; a package's __init__ is its own package.
  if (!file.rel.endsWith('__init__.py')) pkg.pop();
  const up = pkg.slice(0, Math.max(0, pkg.length - (dots - 1)));
  return [...up, mod.slice(dots)].filter(Boolean).join('.');
}

/** The submodule `name` of an imported module (`from . import name`, `from pkg import name`), absolute. */
export function submodule(file: FileEntry, mod: string, name: string): string {
  const base = absolutePython(file, mod);
  return base ? `${base}.${name}` : name;
}

const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

export class ModuleTable {
  private pySuffixes?: Map<string, number[]>;
  private goSuffixes?: Map<string, number[]>;
  /**
   * A package's files as the imports of one pass share them: every import of a large Go or Java package held its
   * own copy of the package's file list.
   */
  private readonly lists = new Map<readonly number[], readonly number[]>();

  constructor(private readonly state: StructuralState) {}

  /** Files were added or removed: the suffix tables are rebuilt on next use. */
  invalidate(): void {
    this.pySuffixes = undefined;
    this.goSuffixes = undefined;
  }

  /** A pass over imports starts: the lists it shares are made again from the working set as it is now. */
  startPass(): void {
    this.lists.clear();
  }

  /** A copy of a working-set list (which changes as files come and go) that the imports of this pass share. */
  private shared(files: readonly number[] | undefined): readonly number[] {
    if (!files?.length) return [];
    let copy = this.lists.get(files);
    if (!copy) this.lists.set(files, (copy = [...files]));
    return copy;
  }

  /** The files an import names (a re-export, a Go or Java package: several). */
  targetsOf(file: FileEntry, imp: Import): readonly number[] {
    const spec = file.language!;
    switch (spec.scheme) {
      case 'ts': {
        if (!imp.module.startsWith('.')) return [];
        const base = path.posix.normalize(path.posix.join(path.posix.dirname(file.rel), imp.module));
        const stem = base.replace(/\.(m|c)?js$/, '');
        for (const cand of [base, ...TS_EXTENSIONS.map((e) => stem + e), ...TS_EXTENSIONS.map((e) => `${base}/index${e}`)]) {
          const id = this.state.fileByRel.get(cand);
          if (id !== undefined) return [id];
        }
        return [];
      }
      case 'py':
        return this.pythonModule(absolutePython(file, imp.module));
      case 'java': {
        if (imp.wildcard) return this.shared(this.state.modules.get(moduleKey(spec, imp.module)));
        const full = imp.name ? `${imp.module}.${imp.name}` : imp.module;
        const last = full.split('.').pop()!;
        const hit = this.state.symbolsNamed(last).filter((s) => s.qname === full);
        if (hit.length) return [...new Set(hit.map((s) => s.fileId))];
        // A static import names a member: its class is one segment up.
        const owner = full.split('.').slice(0, -1).join('.');
        const ownerLast = owner.split('.').pop()!;
        return [...new Set(this.state.symbolsNamed(ownerLast).filter((s) => s.qname === owner).map((s) => s.fileId))];
      }
      case 'go': {
        const exact = this.state.modules.get(moduleKey(spec, imp.module));
        if (exact) return this.shared(exact);
        this.goSuffixes ??= this.suffixTable('go', '/');
        return this.shared(this.goSuffixes.get(imp.module));
      }
      case 'config':
        return [];
    }
  }

  /** The files of a Python module by its absolute name; a name written from another root matches by its trailing parts. */
  pythonModule(mod: string): readonly number[] {
    const exact = this.state.modules.get(`py:${mod}`);
    if (exact) return this.shared(exact);
    this.pySuffixes ??= this.suffixTable('py', '.');
    return this.shared(this.pySuffixes.get(mod));
  }

  /** Every trailing part of every module name → files, for imports written relative to another root. */
  private suffixTable(scheme: string, sep: string): Map<string, number[]> {
    const table = new Map<string, number[]>();
    for (const [key, ids] of this.state.modules) {
      if (!key.startsWith(scheme + ':')) continue;
      const parts = key.slice(scheme.length + 1).split(sep);
      for (let i = 1; i < parts.length; i++) {
        const suffix = parts.slice(i).join(sep);
        const list = table.get(suffix) ?? [];
        list.push(...ids);
        table.set(suffix, list);
      }
    }
    return table;
  }
}
