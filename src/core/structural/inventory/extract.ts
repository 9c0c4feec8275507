import type { Node, Query, Tree } from 'web-tree-sitter';
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
const REF_PRIORITY: Record<EdgeKind, number> = { extends: 5, implements: 5, instantiate: 4, call: 3, import: 2, reference: 1 };

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
export function baseTypeName(text: string): string | undefined {
  const m = /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)/.exec(text);
  if (!m) return undefined;
  const parts = m[1]!.split('.');
  return parts[parts.length - 1]!.trim();
}

export function extractFacts(tree: Tree, query: Query, spec: LanguageSpec, parseMs: number): FileFacts {
  const root = tree.rootNode;
  const matches = query.matches(root);

  // 1. Definitions, deduplicated by node, with containment from the tree.
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
  // Methods declared outside their type (Go) go last, so the type they attach to precedes them (parent < index).
  const detached = (d: PendingDef) => (d.receiver !== undefined ? 1 : 0);
  const ordered = [...pending.values()].sort(
    (a, b) => detached(a) - detached(b) || a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex,
  );
  const indexByNode = new Map<number, number>();
  ordered.forEach((d, i) => indexByNode.set(d.node.id, i));
  const defNameNodes = new Set<number>(ordered.map((d) => d.nameNode.id));

  // Containment by byte ranges: definitions nest, so the innermost one holding a node is
  // a range-ancestor of the last definition starting at or before it. This avoids
  // Node.parent, which tree-sitter answers by descending from the root each time.
  const byStart = ordered.map((_, i) => i).sort((a, b) => ordered[a]!.node.startIndex - ordered[b]!.node.startIndex || ordered[b]!.node.endIndex - ordered[a]!.node.endIndex);
  const starts = byStart.map((i) => ordered[i]!.node.startIndex);
  const rangeParent = new Array<number>(ordered.length).fill(-1);
  {
    const stack: number[] = [];
    for (const i of byStart) {
      const d = ordered[i]!.node;
      while (stack.length && ordered[stack[stack.length - 1]!]!.node.endIndex < d.endIndex) stack.pop();
      rangeParent[i] = stack.length ? stack[stack.length - 1]! : -1;
      stack.push(i);
    }
  }
  /** Innermost definition containing `node` (itself too when includeSelf), or -1. */
  const ownerOf = (node: Node, includeSelf = false): number => {
    const s0 = node.startIndex;
    const e0 = node.endIndex;
    let lo = 0;
    let hi = starts.length - 1;
    let j = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= s0) {
        j = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const self = indexByNode.get(node.id);
    let k = j >= 0 ? byStart[j]! : -1;
    // Several definitions may start at the same byte: step back to the deepest one containing the node.
    while (k >= 0) {
      const d = ordered[k]!.node;
      if (d.startIndex <= s0 && d.endIndex >= e0 && (includeSelf || k !== self)) return k;
      k = rangeParent[k]!;
    }
    return -1;
  };

  const definitions: DefinitionFact[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const d = ordered[i]!;
    let parent = ownerOf(d.node);
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

  /** Nearest enclosing class-like definition of a definition index, or -1. */
  const enclosingClass = (index: number): number => {
    let i = index;
    while (i >= 0) {
      const d = definitions[i]!;
      if (CONTAINER_KINDS.has(d.kind)) return i;
      i = d.parent;
    }
    return -1;
  };

  // 2. Declared types of names, per scope, for receiver typing.
  const typedScopes = new Map<number, Map<string, string>>();
  const addTyped = (scope: number, name: string, type: string | undefined) => {
    if (!type) return;
    let m = typedScopes.get(scope);
    if (!m) typedScopes.set(scope, (m = new Map()));
    if (!m.has(name)) m.set(name, type);
  };
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
    if (!marker || !anchor || !tName) continue;
    const owner = ownerOf(anchor, true);
    const scope = marker === 'typed.member' ? enclosingClass(owner) : owner;
    addTyped(scope, tName, tType);
  }

  const typeOfReceiver = (receiver: string, owner: number): string | undefined => {
    const r = receiver.replace(/\s+/g, '');
    const newMatch = /^new([A-Z_$][\w$]*)/.exec(r) ?? /^\(new([A-Z_$][\w$]*)/.exec(r);
    if (newMatch) return newMatch[1];
    // `super` means "an ancestor of the enclosing class": the resolver walks ancestors itself.
    if (r.startsWith('super')) return undefined;
    for (const self of spec.selfNames) {
      if (r === self) {
        const cls = enclosingClass(owner);
        return cls >= 0 ? definitions[cls]!.name : undefined;
      }
      if (r.startsWith(self + '.')) {
        const field = r.slice(self.length + 1);
        if (!/^[\w$]+$/.test(field)) return undefined;
        return typedScopes.get(enclosingClass(owner))?.get(field);
      }
    }
    // `x.field` where x's type is a class of this file that declares the field's type.
    const member = /^([\w$]+)\.([\w$]+)$/.exec(r);
    if (member) {
      const base = typeOfReceiver(member[1]!, owner);
      const cls = base === undefined ? -1 : definitions.findIndex((d) => d.name === base && CONTAINER_KINDS.has(d.kind));
      return cls >= 0 ? typedScopes.get(cls)?.get(member[2]!) : undefined;
    }
    if (!/^[\w$]+$/.test(r)) return undefined;
    for (let s = owner; ; s = definitions[s]!.parent) {
      const t = typedScopes.get(s)?.get(r);
      if (t) return t;
      if (s < 0) return undefined;
    }
  };

  // 3. Use sites, deduplicated by the name node, most telling kind kept.
  const sitesByNode = new Map<number, { kind: EdgeKind; site: SiteFact }>();
  const dynamicSites = new Map<number, { pattern: number; site: SiteFact }>();
  let packageName: string | undefined;
  const imports: ImportFact[] = [];
  const importStatements = new Map<number, ImportFact[]>();

  for (const m of matches) {
    let refKind: EdgeKind | undefined;
    let refNode: Node | undefined;
    let nameNode: Node | undefined;
    let receiverNode: Node | undefined;
    let importNode: Node | undefined;
    let importModule: string | undefined;
    let importName: string | undefined;
    let importLocal: string | undefined;
    let wildcard = false;
    let dynamicNode: Node | undefined;
    let isPackage = false;
    for (const c of m.captures) {
      const rk = REF_KINDS[c.name];
      if (rk) {
        refKind = rk;
        refNode = c.node;
        continue;
      }
      switch (c.name) {
        case 'name':
          nameNode = c.node;
          break;
        case 'receiver':
          receiverNode = c.node;
          break;
        case 'import':
          importNode = c.node;
          break;
        case 'import.module':
          importModule = c.node.text;
          break;
        case 'import.name':
          importName = c.node.text;
          break;
        case 'import.local':
          importLocal = c.node.text;
          break;
        case 'import.wildcard':
          wildcard = true;
          break;
        case 'dynamic':
          dynamicNode = c.node;
          break;
        case 'package':
          isPackage = true;
          break;
      }
    }
    if (isPackage && nameNode) {
      packageName ??= nameNode.text;
      continue;
    }
    if (dynamicNode) {
      const reason = m.setProperties?.['reason'] ?? 'target computed at run time';
      const owner = ownerOf(dynamicNode);
      // A literal name (getattr(x, "retry")) still says which name is meant.
      const literal = nameNode ? nameNode.text : '';
      const site: SiteFact = { kind: 'call', name: literal, owner, at: pos(dynamicNode), dynamic: reason };
      if (receiverNode) Object.assign(site, { receiver: compact(receiverNode.text) });
      // Patterns are listed most specific first: the earliest pattern's reason for a node is kept
      // (matches do not arrive in pattern order).
      const prevDynamic = dynamicSites.get(dynamicNode.id);
      if (!prevDynamic || m.patternIndex < prevDynamic.pattern) dynamicSites.set(dynamicNode.id, { pattern: m.patternIndex, site });
      continue;
    }
    if (importNode && importModule !== undefined) {
      const fact: ImportFact = {
        module: importModule,
        owner: ownerOf(importNode),
        at: pos(importNode),
        ...(importName !== undefined ? { name: importName } : {}),
        ...(importLocal !== undefined ? { local: importLocal } : {}),
        ...(wildcard ? { wildcard: true } : {}),
      };
      let list = importStatements.get(importNode.id);
      if (!list) importStatements.set(importNode.id, (list = []));
      list.push(fact);
      continue;
    }
    if (refKind && nameNode && refNode) {
      if (defNameNodes.has(nameNode.id)) continue; // the declaration's own name is not a use
      // Inheritance clauses can hang off the class node itself: their owner is that class.
      const owner = ownerOf(refNode, refKind === 'extends' || refKind === 'implements');
      const receiver = receiverNode?.text;
      const site: SiteFact = {
        kind: refKind,
        name: nameNode.text,
        owner,
        at: pos(nameNode),
        ...(receiver !== undefined ? { receiver: compact(receiver) } : {}),
      };
      const rType = receiver !== undefined ? typeOfReceiver(receiver, owner) : undefined;
      if (rType) Object.assign(site, { receiverType: rType });
      const prev = sitesByNode.get(nameNode.id);
      if (!prev || REF_PRIORITY[refKind] > REF_PRIORITY[prev.kind]) sitesByNode.set(nameNode.id, { kind: refKind, site });
    }
  }

  // A statement that imports names also matched the bare "import module" pattern: keep the specific facts.
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

  const sites = [...[...sitesByNode.values()].map((s) => s.site), ...[...dynamicSites.values()].map((d) => d.site)].sort(
    (a, b) => a.at.line - b.at.line || a.at.col - b.at.col,
  );
  let errorNodes = 0;
  if (root.hasError) errorNodes = countErrors(root);
  return {
    language: spec.id,
    ...(packageName !== undefined ? { packageName } : {}),
    definitions,
    sites,
    imports,
    errorNodes,
    parseMs,
  };
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
