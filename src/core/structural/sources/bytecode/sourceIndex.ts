import * as path from 'node:path';
import { TYPE_KINDS } from '../../../model/structural.js';
import type { SymbolRef } from '../../../model/symbolRef.js';
import { push } from '../../../../shared/maps.js';

/**
 * The inventory's view of a workspace's Java (or any) source symbols, as
 * artifact readers need it: types by qualified name, members in source
 * order, and "which definition encloses this line" — which is how a class
 * file's call sites (line numbers only) are placed back in the source.
 */

/**
 * A source symbol: its qname dotted (`com.acme.clearing.SepaRail.submit`; a
 * module's is its path), its path workspace-relative, its line and column
 * those of its name.
 */
export interface SourceSymbol extends Omit<SymbolRef, 'id'> {
  readonly col: number;
  /** Last line of the definition. */
  readonly endLine: number;
  readonly parentSid: string | null;
  /** Language id of the file (`java`, `typescript`, `python`, …). */
  readonly language: string;
  /** The file's declared package (Java), if any. */
  readonly filePackage?: string | null;
}

export class SourceIndex {
  readonly bySid = new Map<string, SourceSymbol>();
  private readonly typesByQname = new Map<string, SourceSymbol[]>();
  private readonly children = new Map<string, SourceSymbol[]>();
  private readonly byFile = new Map<string, SourceSymbol[]>();
  private readonly byQname = new Map<string, SourceSymbol[]>();
  private readonly javaFiles = new Map<string, string[]>();
  private readonly byName = new Map<string, SourceSymbol[]>();

  constructor(symbols: Iterable<SourceSymbol>) {
    for (const s of symbols) {
      this.bySid.set(s.sid, s);
      push(this.byFile, s.path, s);
      push(this.byQname, s.qname, s);
      push(this.byName, s.name, s);
      if (TYPE_KINDS.has(s.kind)) push(this.typesByQname, s.qname, s);
      if (s.parentSid) push(this.children, s.parentSid, s);
      if (s.kind === 'module' && s.language === 'java') {
        push(this.javaFiles, `${s.filePackage ?? ''}/${path.posix.basename(s.path)}`, s.path);
      }
    }
    for (const list of this.children.values()) list.sort((a, b) => a.line - b.line || a.col - b.col);
  }

  type(qname: string): SourceSymbol | undefined {
    const list = this.typesByQname.get(qname);
    return list?.length === 1 ? list[0] : list?.find((s) => s.language === 'java') ?? list?.[0];
  }

  /** Members of a type in source order (what SCIP disambiguators `+1`, `+2` count). */
  members(typeSid: string): readonly SourceSymbol[] {
    return this.children.get(typeSid) ?? [];
  }

  withQname(qname: string): readonly SourceSymbol[] {
    return this.byQname.get(qname) ?? [];
  }

  named(name: string): readonly SourceSymbol[] {
    return this.byName.get(name) ?? [];
  }

  inFile(p: string): readonly SourceSymbol[] {
    return this.byFile.get(p) ?? [];
  }

  /** Java source files declaring package `pkg` with file name `file`. */
  javaFile(pkg: string, file: string): readonly string[] {
    return this.javaFiles.get(`${pkg}/${file}`) ?? [];
  }

  /** Paths of every file with symbols. */
  files(): IterableIterator<string> {
    return this.byFile.keys();
  }

  all(): IterableIterator<SourceSymbol> {
    return this.bySid.values();
  }

  module(p: string): SourceSymbol | undefined {
    return this.inFile(p).find((s) => s.kind === 'module');
  }

  /** The innermost definition (not the module) whose lines include `line`, else the file's module symbol. */
  enclosing(p: string, line: number): SourceSymbol | undefined {
    let best: SourceSymbol | undefined;
    for (const s of this.inFile(p)) {
      if (s.kind === 'module' || s.line > line || s.endLine < line) continue;
      if (!best || s.endLine - s.line < best.endLine - best.line || (s.endLine - s.line === best.endLine - best.line && s.line > best.line)) best = s;
    }
    return best ?? this.module(p);
  }

  get size(): number {
    return this.bySid.size;
  }
}

