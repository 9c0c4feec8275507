import type { Node, QueryMatch } from 'web-tree-sitter';
import { errorMessage } from '../../../shared/errors.js';
import type { DefinitionFact, Position, SkippedConstruct, SymbolKind } from '../../model/structural.js';
import type { LanguageSpec } from './languages.js';

/*
 * Where a name lives in one file, for the extractor (extract.ts): which
 * definition holds a node, what each scope binds locally, the type a
 * receiver has where the file says so, and whether a definition is exported.
 * Pure, like the extractor.
 */

export const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum']);

export function pos(node: Node, end = false): Position {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row + 1, col: p.column };
}

/** A construct's text on one line, cut to a length a message can quote. */
export function compact(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 120 ? t.slice(0, 117) + '...' : t;
}

/** Base type name from a written type: `Promise<PaymentGateway>` → Promise, `a.b.Gateway[]` → Gateway. */
export function baseTypeName(text: string): string | undefined {
  const m = /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)/.exec(text);
  if (!m) return undefined;
  const parts = m[1]!.split('.');
  return parts[parts.length - 1]!.trim();
}

/**
 * Which definition holds a node, by byte ranges: definitions nest, so the
 * innermost one holding a node is a range-ancestor of the last definition
 * starting at or before it. This avoids Node.parent, which tree-sitter
 * answers by descending from the root each time.
 */
export class Containment {
  private readonly indexByNode = new Map<number, number>();
  private readonly byStart: number[];
  private readonly starts: number[];
  private readonly rangeParent: number[];

  constructor(private readonly ordered: readonly { readonly node: Node }[]) {
    ordered.forEach((d, i) => this.indexByNode.set(d.node.id, i));
    this.byStart = ordered.map((_, i) => i).sort((a, b) => ordered[a]!.node.startIndex - ordered[b]!.node.startIndex || ordered[b]!.node.endIndex - ordered[a]!.node.endIndex);
    this.starts = this.byStart.map((i) => ordered[i]!.node.startIndex);
    this.rangeParent = new Array<number>(ordered.length).fill(-1);
    const stack: number[] = [];
    for (const i of this.byStart) {
      const d = ordered[i]!.node;
      while (stack.length && ordered[stack[stack.length - 1]!]!.node.endIndex < d.endIndex) stack.pop();
      this.rangeParent[i] = stack.length ? stack[stack.length - 1]! : -1;
      stack.push(i);
    }
  }

  /** Innermost definition containing `node` (itself too when includeSelf), or -1. */
  ownerOf(node: Node, includeSelf = false): number {
    const s0 = node.startIndex;
    const e0 = node.endIndex;
    let lo = 0;
    let hi = this.starts.length - 1;
    let j = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= s0) {
        j = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const self = this.indexByNode.get(node.id);
    let k = j >= 0 ? this.byStart[j]! : -1;
    // Several definitions may start at the same byte: step back to the deepest one containing the node.
    while (k >= 0) {
      const d = this.ordered[k]!.node;
      if (d.startIndex <= s0 && d.endIndex >= e0 && (includeSelf || k !== self)) return k;
      k = this.rangeParent[k]!;
    }
    return -1;
  }

  /** The definition whose range holds definition `k`, or -1. */
  enclosing(k: number): number {
    return this.rangeParent[k] ?? -1;
  }
}

/** Nearest enclosing class-like definition of a definition index, or -1. */
export function enclosingClass(definitions: readonly (DefinitionFact | undefined)[], index: number): number {
  let i = index;
  while (i >= 0) {
    const d = definitions[i];
    if (!d) return -1;
    if (CONTAINER_KINDS.has(d.kind)) return i;
    i = d.parent;
  }
  return -1;
}

/** Declared types of names, per scope (a definition index, -1 for the module): parameters, locals, fields. */
export type TypedScopes = Map<number, Map<string, string>>;

export function declaredTypes(matches: readonly QueryMatch[], containment: Containment, definitions: readonly (DefinitionFact | undefined)[], skipped: SkippedConstruct[]): TypedScopes {
  const typedScopes: TypedScopes = new Map();
  for (const m of matches) {
    // A declared type the extractor fails on leaves that one name untyped; the reason is kept.
    try {
      declaredType(m, containment, definitions, typedScopes);
    } catch (e) {
      const first = m.captures[0]?.node;
      skipped.push({ at: first ? pos(first) : { line: 1, col: 0 }, reason: `declared type skipped: ${errorMessage(e)}` });
    }
  }
  return typedScopes;
}

export function declaredType(m: QueryMatch, containment: Containment, definitions: readonly (DefinitionFact | undefined)[], typedScopes: TypedScopes): void {
  let marker: 'typed' | 'typed.member' | undefined;
  let anchor: Node | undefined;
  let tName: string | undefined;
  let tType: string | undefined;
  for (const c of m.captures) {
    if (c.name === 'typed' || c.name === 'typed.member') {
      marker = c.name;
      anchor = c.node;
    } else if (c.name === 'typed.name') tName = c.node.text;
    else if (c.name === 'typed.type') tType = baseTypeName(c.node.text);
  }
  if (!marker || !anchor || !tName || !tType) return;
  const owner = containment.ownerOf(anchor, true);
  const scope = marker === 'typed.member' ? enclosingClass(definitions, owner) : owner;
  let names = typedScopes.get(scope);
  if (!names) typedScopes.set(scope, (names = new Map()));
  if (!names.has(tName)) names.set(tName, tType);
}

/** The type a receiver expression has where it is written, when the file says: `new X()`, `this`, `this.field`, a typed name. */
export class ReceiverTypes {
  constructor(
    private readonly definitions: readonly (DefinitionFact | undefined)[],
    private readonly typedScopes: TypedScopes,
    private readonly spec: LanguageSpec,
  ) {}

  of(receiver: string, owner: number): string | undefined {
    const r = receiver.replace(/\s+/g, '');
    const newMatch = /^new([A-Z_$][\w$]*)/.exec(r) ?? /^\(new([A-Z_$][\w$]*)/.exec(r);
    if (newMatch) return newMatch[1];
    // `super` means "an ancestor of the enclosing class": the resolver walks ancestors itself.
    if (r.startsWith('super')) return undefined;
    for (const self of this.spec.selfNames) {
      if (r === self) {
        // A declared `this` (`m(this: MixedInParser)`) says more than the enclosing class.
        const declared = this.inScope(self, owner);
        if (declared) return declared;
        const cls = enclosingClass(this.definitions, owner);
        return cls >= 0 ? this.definitions[cls]!.name : undefined;
      }
      if (r.startsWith(self + '.')) {
        const field = r.slice(self.length + 1);
        if (!/^[\w$]+$/.test(field)) return undefined;
        return this.typedScopes.get(enclosingClass(this.definitions, owner))?.get(field);
      }
    }
    // `x.field` where x's type is a class of this file that declares the field's type.
    const member = /^([\w$]+)\.([\w$]+)$/.exec(r);
    if (member) {
      const base = this.of(member[1]!, owner);
      const cls = base === undefined ? -1 : this.definitions.findIndex((d) => d !== undefined && d.name === base && CONTAINER_KINDS.has(d.kind));
      return cls >= 0 ? this.typedScopes.get(cls)?.get(member[2]!) : undefined;
    }
    if (!/^[\w$]+$/.test(r)) return undefined;
    return this.inScope(r, owner);
  }

  /** The declared type of a name in the scopes around `owner`, innermost first. */
  private inScope(name: string, owner: number): string | undefined {
    for (let s = owner; ; s = this.definitions[s]?.parent ?? -1) {
      const t = this.typedScopes.get(s)?.get(name);
      if (t) return t;
      if (s < 0) return undefined;
    }
  }
}

/** Sorted, non-overlapping byte ranges: is a node inside any of them? */
export class Ranges {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(ranges: readonly (readonly [number, number])[]) {
    for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
      const last = this.ends.length - 1;
      if (last >= 0 && s <= this.ends[last]!) this.ends[last] = Math.max(this.ends[last]!, e);
      else {
        this.starts.push(s);
        this.ends.push(e);
      }
    }
  }

  holds(node: Node): boolean {
    let lo = 0;
    let hi = this.starts.length - 1;
    let j = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= node.startIndex) {
        j = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return j >= 0 && this.ends[j]! >= node.endIndex;
  }
}

/**
 * What the file binds locally, per definition (parameters, local variables,
 * loop and catch variables): a bare name bound there means the local, not a
 * definition elsewhere. Also where nothing is a read (import statements,
 * keyword-argument names), the names a Python function declares `global`,
 * and how many member accesses go by a computed name.
 */
export interface Bindings {
  readonly locals: Map<number, Set<string>>;
  readonly globals: Map<number, Set<string>>;
  readonly noRead: Ranges;
  readonly computedAccesses: number;
}

export function bindings(matches: readonly QueryMatch[], containment: Containment, defNameNodes: ReadonlySet<number>): Bindings {
  const locals = new Map<number, Set<string>>();
  const globals = new Map<number, Set<string>>();
  const noRead: [number, number][] = [];
  const computed = new Set<number>();
  // `const { a } = require('./x')` binds an import, not a local.
  const imported = new Set<number>();
  for (const m of matches) for (const c of m.captures) if (c.name === 'import.local' || c.name === 'import.name') imported.add(c.node.id);
  const add = (map: Map<number, Set<string>>, owner: number, name: string) => {
    let set = map.get(owner);
    if (!set) map.set(owner, (set = new Set()));
    set.add(name);
  };
  for (const m of matches) {
    for (const c of m.captures) {
      switch (c.name) {
        case 'local':
          // The binding itself is captured as a read of its name too, and dropped as shadowed.
          if (!defNameNodes.has(c.node.id) && !imported.has(c.node.id)) add(locals, containment.ownerOf(c.node), c.node.text);
          break;
        case 'global':
          add(globals, containment.ownerOf(c.node), c.node.text);
          break;
        case 'noread':
          noRead.push([c.node.startIndex, c.node.endIndex]);
          break;
        case 'computed.access':
          computed.add(c.node.id);
          break;
      }
    }
  }
  return { locals, globals, noRead: new Ranges(noRead), computedAccesses: computed.size };
}

/** Error and missing nodes the parser recovered from: the file is indexed, and says how much it could not read. */
export function countErrors(root: Node): number {
  let n = 0;
  const cursor = root.walk();
  let descend = true;
  for (;;) {
    if (descend) {
      const node = cursor.currentNode;
      if (node.isError || node.isMissing) n++;
      if (node.hasError && cursor.gotoFirstChild()) continue;
    }
    if (cursor.gotoNextSibling()) {
      descend = true;
      continue;
    }
    if (!cursor.gotoParent()) break;
    descend = false;
  }
  cursor.delete();
  return n;
}

/** Whether a definition is visible outside its file, by each language's rule. */
export function isExported(node: Node, name: string, spec: LanguageSpec): boolean {
  switch (spec.scheme) {
    case 'ts':
      if (node.parent?.type === 'export_statement' || node.parent?.parent?.type === 'export_statement') return true;
      // CommonJS: `exports.x = …`, `module.exports.x = …`, `module.exports = class X {…}`.
      if (node.type === 'assignment_expression') return /^(?:module\s*\.\s*)?exports\s*\./.test(node.text);
      return node.parent?.type === 'assignment_expression' && /^module\s*\.\s*exports\s*=/.test(node.parent.text);
    case 'py':
      return !name.startsWith('_') || (name.startsWith('__') && name.endsWith('__'));
    case 'go':
      return /^[A-Z]/.test(name);
    case 'java': {
      // A later declarator of `private int a, b;` carries no modifiers of its own.
      const decl = node.type === 'variable_declarator' && node.parent ? node.parent : node;
      return !/\bprivate\b/.test(decl.text.slice(0, 200).split('{')[0] ?? '');
    }
    case 'config':
      return true;
  }
}
