import type { Node, Query, QueryMatch, Tree } from 'web-tree-sitter';
import { TYPE_KINDS, type DefinitionFact, type EdgeKind, type FileFacts, type ImportFact, type Position, type SiteFact, type SymbolKind } from '../../model/structural.js';
import type { LanguageSpec } from './languages.js';

/*
 * Turns a syntax tree and a tag query into FileFacts. Pure: no I/O, no
 * global state, so it runs in a worker and in tests alike. The capture
 * names are the contract with grammars/*.scm (documented in grammars/README.md).
 */

const DEF_KINDS: Record<string, SymbolKind> = {
  'def.class': 'class',
  'def.interface': 'interface',
  'def.enum': 'enum',
  'def.type': 'type',
  'def.function': 'function',
  'def.method': 'method',
  'def.constructor': 'constructor',
  'def.field': 'field',
  'def.constant': 'constant',
  'def.namespace': 'namespace',
};

/** When one node matches several definition patterns, the more specific kind wins. */
const DEF_PRIORITY: Record<SymbolKind, number> = {
  constructor: 9, method: 8, function: 7, class: 6, interface: 6, enum: 6, type: 5, namespace: 5, field: 4, constant: 3, module: 0,
};

const REF_KINDS: Record<string, EdgeKind> = {
  'ref.call': 'call',
  'ref.instantiate': 'instantiate',
  'ref.reference': 'reference',
  'ref.extends': 'extends',
  'ref.implements': 'implements',
};

/** One name node can be captured by several patterns: keep the most telling use. */
const REF_PRIORITY: Record<EdgeKind, number> = { extends: 5, implements: 5, instantiate: 4, call: 3, write: 3, import: 2, read: 2, reference: 1 };

const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum']);

interface PendingDef {
  node: Node;
  nameNode: Node;
  kind: SymbolKind;
  /** Type named by the receiver of a method declared outside its type (Go). */
  receiver?: string;
}

function pos(node: Node, end = false): Position {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row + 1, col: p.column };
}

/** Base type name from a written type: `Promise<PaymentGateway>` → Promise, `a.b.Gateway[]` → Gateway. */
function baseTypeName(text: string): string | undefined {
  const m = /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)/.exec(text);
  if (!m) return undefined;
  const parts = m[1]!.split('.');
  return parts[parts.length - 1]!.trim();
}

export function extractFacts(tree: Tree, query: Query, spec: LanguageSpec, parseMs: number): FileFacts {
  const root = tree.rootNode;
  const matches = query.matches(root);
  const ordered = pendingDefinitions(matches);
  const containment = new Containment(ordered);
  const definitions = definitionFacts(ordered, containment, spec);
  const receivers = new ReceiverTypes(definitions, declaredTypes(matches, containment, definitions), spec);
  const uses = useSites(matches, containment, new Set(ordered.map((d) => d.nameNode.id)), receivers);
  return {
    language: spec.id,
    ...(uses.packageName !== undefined ? { packageName: uses.packageName } : {}),
    definitions,
    sites: uses.sites,
    imports: uses.imports,
    errorNodes: root.hasError ? countErrors(root) : 0,
    parseMs,
  };
}

/**
 * Definitions, deduplicated by node (the most specific kind wins), in the
 * order their indexes follow: by position, with methods declared outside
 * their type (Go) last, so the type they attach to precedes them
 * (parent < index).
 */
function pendingDefinitions(matches: readonly QueryMatch[]): PendingDef[] {
  const pending = new Map<number, PendingDef>();
  for (const m of matches) {
    let defNode: Node | undefined;
    let kind: SymbolKind | undefined;
    let nameNode: Node | undefined;
    let receiver: string | undefined;
    for (const c of m.captures) {
      const k = DEF_KINDS[c.name];
      if (k) {
        defNode = c.node;
        kind = k;
      } else if (c.name === 'name') nameNode = c.node;
      else if (c.name === 'method.receiver') receiver = c.node.text;
    }
    if (!defNode || !kind || !nameNode) continue;
    const prev = pending.get(defNode.id);
    if (!prev || DEF_PRIORITY[kind] > DEF_PRIORITY[prev.kind]) pending.set(defNode.id, { node: defNode, nameNode, kind, ...(receiver !== undefined ? { receiver } : {}) });
  }
  const detached = (d: PendingDef) => (d.receiver !== undefined ? 1 : 0);
  return [...pending.values()].sort((a, b) => detached(a) - detached(b) || a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
}

/**
 * Which definition holds a node, by byte ranges: definitions nest, so the
 * innermost one holding a node is a range-ancestor of the last definition
 * starting at or before it. This avoids Node.parent, which tree-sitter
 * answers by descending from the root each time.
 */
class Containment {
  private readonly indexByNode = new Map<number, number>();
  private readonly byStart: number[];
  private readonly starts: number[];
  private readonly rangeParent: number[];

  constructor(private readonly ordered: readonly PendingDef[]) {
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
}

/** Each definition with its parent and its final kind (a function in a class is a method, and so on). */
function definitionFacts(ordered: readonly PendingDef[], containment: Containment, spec: LanguageSpec): DefinitionFact[] {
  const definitions: DefinitionFact[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const d = ordered[i]!;
    let parent = containment.ownerOf(d.node);
    let kind = d.kind;
    // Go declares a method outside its type: the receiver names the type. One declared in
    // another file of the package is not found here and the method stays at the top.
    if (d.receiver !== undefined && parent < 0) {
      parent = definitions.findIndex((p) => p.parent < 0 && TYPE_KINDS.has(p.kind) && p.name === d.receiver);
    }
    // `int a, b;` / `a, b int`: a later name sits inside the first one's declaration node; it is a sibling.
    if (parent >= 0 && definitions[parent]!.kind === kind && d.node.parent?.id === ordered[parent]!.node.id) {
      parent = definitions[parent]!.parent;
    }
    // A field declared inside a callable (TypeScript parameter properties) belongs to the class.
    if (kind === 'field' && parent >= 0 && (definitions[parent]!.kind === 'constructor' || definitions[parent]!.kind === 'method')) {
      parent = definitions[parent]!.parent;
    }
    const parentKind = parent >= 0 ? definitions[parent]?.kind : undefined;
    if (kind === 'function' && parentKind && CONTAINER_KINDS.has(parentKind)) kind = 'method';
    if (kind === 'method' && (d.nameNode.text === 'constructor' || d.nameNode.text === '__init__')) kind = 'constructor';
    if (kind === 'constant' && parentKind && CONTAINER_KINDS.has(parentKind)) kind = 'field';
    definitions.push({
      index: i,
      name: d.nameNode.text,
      kind,
      parent,
      range: { start: pos(d.node), end: pos(d.node, true) },
      nameRange: { start: pos(d.nameNode), end: pos(d.nameNode, true) },
      exported: isExported(d.node, d.nameNode.text, spec),
    });
  }
  return definitions;
}

/** Nearest enclosing class-like definition of a definition index, or -1. */
function enclosingClass(definitions: readonly DefinitionFact[], index: number): number {
  let i = index;
  while (i >= 0) {
    const d = definitions[i]!;
    if (CONTAINER_KINDS.has(d.kind)) return i;
    i = d.parent;
  }
  return -1;
}

/** Declared types of names, per scope (a definition index, -1 for the module): parameters, locals, fields. */
type TypedScopes = Map<number, Map<string, string>>;

function declaredTypes(matches: readonly QueryMatch[], containment: Containment, definitions: readonly DefinitionFact[]): TypedScopes {
  const typedScopes: TypedScopes = new Map();
  for (const m of matches) {
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
    if (!marker || !anchor || !tName || !tType) continue;
    const owner = containment.ownerOf(anchor, true);
    const scope = marker === 'typed.member' ? enclosingClass(definitions, owner) : owner;
    let names = typedScopes.get(scope);
    if (!names) typedScopes.set(scope, (names = new Map()));
    if (!names.has(tName)) names.set(tName, tType);
  }
  return typedScopes;
}

/** The type a receiver expression has where it is written, when the file says: `new X()`, `this`, `this.field`, a typed name. */
class ReceiverTypes {
  constructor(
    private readonly definitions: readonly DefinitionFact[],
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
      const cls = base === undefined ? -1 : this.definitions.findIndex((d) => d.name === base && CONTAINER_KINDS.has(d.kind));
      return cls >= 0 ? this.typedScopes.get(cls)?.get(member[2]!) : undefined;
    }
    if (!/^[\w$]+$/.test(r)) return undefined;
    for (let s = owner; ; s = this.definitions[s]!.parent) {
      const t = this.typedScopes.get(s)?.get(r);
      if (t) return t;
      if (s < 0) return undefined;
    }
  }
}

/** What one match captured of a use: a reference, an import, a dynamic site or the package declaration. */
interface UseCaptures {
  refKind?: EdgeKind;
  refNode?: Node;
  nameNode?: Node;
  receiverNode?: Node;
  importNode?: Node;
  importModule?: string;
  importName?: string;
  importLocal?: string;
  wildcard: boolean;
  dynamicNode?: Node;
  isPackage: boolean;
}

function useCaptures(m: QueryMatch): UseCaptures {
  const u: UseCaptures = { wildcard: false, isPackage: false };
  for (const c of m.captures) {
    const rk = REF_KINDS[c.name];
    if (rk) {
      u.refKind = rk;
      u.refNode = c.node;
      continue;
    }
    switch (c.name) {
      case 'name':
        u.nameNode = c.node;
        break;
      case 'receiver':
        u.receiverNode = c.node;
        break;
      case 'import':
        u.importNode = c.node;
        break;
      case 'import.module':
        u.importModule = c.node.text;
        break;
      case 'import.name':
        u.importName = c.node.text;
        break;
      case 'import.local':
        u.importLocal = c.node.text;
        break;
      case 'import.wildcard':
        u.wildcard = true;
        break;
      case 'dynamic':
        u.dynamicNode = c.node;
        break;
      case 'package':
        u.isPackage = true;
        break;
    }
  }
  return u;
}

/** Use sites (deduplicated by the name node, most telling kind kept), dynamic sites, imports and the package. */
function useSites(
  matches: readonly QueryMatch[],
  containment: Containment,
  defNameNodes: ReadonlySet<number>,
  receivers: ReceiverTypes,
): { packageName: string | undefined; sites: SiteFact[]; imports: ImportFact[] } {
  const sitesByNode = new Map<number, { kind: EdgeKind; site: SiteFact }>();
  const dynamicSites = new Map<number, { pattern: number; site: SiteFact }>();
  const importStatements = new Map<number, ImportFact[]>();
  let packageName: string | undefined;
  for (const m of matches) {
    const u = useCaptures(m);
    if (u.isPackage && u.nameNode) {
      packageName ??= u.nameNode.text;
    } else if (u.dynamicNode) {
      const site = dynamicSite(m, u, u.dynamicNode, containment);
      // Patterns are listed most specific first: the earliest pattern's reason for a node is kept
      // (matches do not arrive in pattern order).
      const prev = dynamicSites.get(u.dynamicNode.id);
      if (!prev || m.patternIndex < prev.pattern) dynamicSites.set(u.dynamicNode.id, { pattern: m.patternIndex, site });
    } else if (u.importNode && u.importModule !== undefined) {
      let list = importStatements.get(u.importNode.id);
      if (!list) importStatements.set(u.importNode.id, (list = []));
      list.push(importFact(u, u.importNode, u.importModule, containment));
    } else if (u.refKind && u.nameNode && u.refNode) {
      if (defNameNodes.has(u.nameNode.id)) continue; // the declaration's own name is not a use
      const site = referenceSite(u.refKind, u.refNode, u.nameNode, u.receiverNode, containment, receivers);
      const prev = sitesByNode.get(u.nameNode.id);
      if (!prev || REF_PRIORITY[u.refKind] > REF_PRIORITY[prev.kind]) sitesByNode.set(u.nameNode.id, { kind: u.refKind, site });
    }
  }
  const sites = [...[...sitesByNode.values()].map((s) => s.site), ...[...dynamicSites.values()].map((d) => d.site)].sort(
    (a, b) => a.at.line - b.at.line || a.at.col - b.at.col,
  );
  return { packageName, sites, imports: mergeImports(importStatements) };
}

function dynamicSite(m: QueryMatch, u: UseCaptures, dynamicNode: Node, containment: Containment): SiteFact {
  const reason = m.setProperties?.['reason'] ?? 'target computed at run time';
  // A literal name (getattr(x, "retry")) still says which name is meant.
  const literal = u.nameNode ? u.nameNode.text : '';
  const site: SiteFact = { kind: 'call', name: literal, owner: containment.ownerOf(dynamicNode), at: pos(dynamicNode), dynamic: reason };
  if (u.receiverNode) Object.assign(site, { receiver: compact(u.receiverNode.text) });
  return site;
}

function importFact(u: UseCaptures, importNode: Node, module: string, containment: Containment): ImportFact {
  return {
    module,
    owner: containment.ownerOf(importNode),
    at: pos(importNode),
    ...(u.importName !== undefined ? { name: u.importName } : {}),
    ...(u.importLocal !== undefined ? { local: u.importLocal } : {}),
    ...(u.wildcard ? { wildcard: true } : {}),
  };
}

function referenceSite(kind: EdgeKind, refNode: Node, nameNode: Node, receiverNode: Node | undefined, containment: Containment, receivers: ReceiverTypes): SiteFact {
  // Inheritance clauses can hang off the class node itself: their owner is that class.
  const owner = containment.ownerOf(refNode, kind === 'extends' || kind === 'implements');
  const receiver = receiverNode?.text;
  const site: SiteFact = {
    kind,
    name: nameNode.text,
    owner,
    at: pos(nameNode),
    ...(receiver !== undefined ? { receiver: compact(receiver) } : {}),
  };
  const rType = receiver !== undefined ? receivers.of(receiver, owner) : undefined;
  if (rType) Object.assign(site, { receiverType: rType });
  return site;
}

/** A statement that imports names also matched the bare "import module" pattern: keep the specific facts, each once. */
function mergeImports(importStatements: ReadonlyMap<number, readonly ImportFact[]>): ImportFact[] {
  const imports: ImportFact[] = [];
  for (const list of importStatements.values()) {
    const specific = list.filter((f) => f.name !== undefined || f.local !== undefined || f.wildcard);
    const keep = specific.length > 0 ? specific : list.slice(0, 1);
    const seen = new Set<string>();
    for (const f of keep) {
      const key = `${f.module}\0${f.name ?? ''}\0${f.local ?? ''}\0${f.wildcard ? 1 : 0}`;
      if (!seen.has(key)) {
        seen.add(key);
        imports.push(f);
      }
    }
  }
  return imports;
}

function compact(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 120 ? t.slice(0, 117) + '...' : t;
}

function countErrors(root: Node): number {
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

function isExported(node: Node, name: string, spec: LanguageSpec): boolean {
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
  }
}
