import * as path from 'node:path';
import { readWorkspaceText } from '../../repo/read.js';
import type { EdgeKind } from '../../model/structural.js';
import type { Loc } from './types.js';

/**
 * What a use at a location is, read from the source text, for use sites a
 * resolver found and the inventory did not record: `x(` and `` x`…` `` are
 * calls, `new X(` an instantiation, anything else a reference; and whether a
 * use of data reads or writes it, where the resolver does not say.
 */
export class SiteText {
  private readonly files = new Map<string, string[]>();

  constructor(private readonly root: string) {}

  line(at: Loc): string {
    let lines = this.files.get(at.path);
    if (!lines) {
      lines = readWorkspaceText(this.root, path.join(this.root, at.path))?.split(/\r?\n/) ?? [];
      this.files.set(at.path, lines);
    }
    return lines[at.line - 1] ?? '';
  }

  kindAt(at: Loc): EdgeKind {
    if (this.inImport(at)) return 'import';
    const line = this.line(at);
    const rest = line.slice(at.col).replace(/^[\w$]+/, '');
    if (/^\s*(<[^>]*>)?\s*\(/.test(rest) || /^\s*`/.test(rest)) return /\bnew\s+(?:[\w$]+\.)*$/.test(line.slice(0, at.col)) ? 'instantiate' : 'call';
    return 'reference';
  }

  /**
   * Whether a use reads or writes what it names, from the text around it: an
   * assignment (`=`, `+=`, …, not `==`), `++`/`--`, `del`/`delete` write; else it reads.
   */
  roleAt(at: Loc): 'read' | 'write' {
    const line = this.line(at);
    const rest = line.slice(at.col).replace(/^[\w$]+/, '');
    if (/^\s*(\+\+|--)/.test(rest) || /(\+\+|--)\s*(?:[\w$]+\s*\.\s*)*$/.test(line.slice(0, at.col))) return 'write';
    if (/^\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|\?\?|&&|\|\||\/\/|@)?=(?![=>])/.test(rest)) return 'write';
    // `del x` / `delete o.x` remove the name; `del x[k]` only reads x.
    if (/\b(?:del|delete)\s+(?:[\w$]+\s*\.\s*)*$/.test(line.slice(0, at.col)) && !/^\s*[[.]/.test(rest)) return 'write';
    return 'read';
  }

  /** `global x` / `nonlocal x`: a declaration of scope, neither a read nor a write. */
  declaresScope(at: Loc): boolean {
    return /^\s*(?:global|nonlocal)\s/.test(this.line(at));
  }

  /**
   * Whether the use is a name in an import or re-export statement
   * (`from m import (a,\n b)`, `import { a } from`, `export { a } from`),
   * looking back over a parenthesised or braced list.
   */
  inImport(at: Loc): boolean {
    const starts = /^\s*(?:from\s+\S+\s+import\b|import\b|export\s*(?:\{|\*|type\s*\{))/;
    for (let l = at.line, n = 0; l >= 1 && n < 60; l--, n++) {
      const text = this.line({ path: at.path, line: l, col: 0 });
      const upto = l === at.line ? text.slice(0, at.col) : text;
      if (starts.test(text)) {
        if (l === at.line) return true;
        // The statement a line above holds the use only if it goes on: an open list or a backslash.
        const open = upto.search(/[({]/);
        return open >= 0 ? !/[)}]/.test(upto.slice(open + 1)) : /\\\s*$/.test(text);
      }
      // A closed list or an ordinary statement above: not inside an import.
      if (l !== at.line && (/[)}]\s*(?:from\s.*)?;?\s*$/.test(text) || !/[,({\\]\s*$/.test(text.replace(/#.*$|\/\/.*$/, '')))) return false;
    }
    return false;
  }

  clear(): void {
    this.files.clear();
  }
}
