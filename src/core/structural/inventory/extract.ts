import type { Node, Query, QueryMatch, Tree } from 'web-tree-sitter';
import {
  CALLABLE_KINDS,
  COMPUTED_CONFIG_READ,
  TYPE_KINDS,
  type DefinitionFact,
  type EdgeKind,
  type FileFacts,
  type ImportFact,
  type Position,
  type SiteFact,
  type SiteNameIs,
  type SkippedConstruct,
  type SymbolKind,
} from '../../model/structural.js';
import { errorMessage } from '../../../shared/errors.js';
import type { LanguageSpec } from './languages.js';
import { Deadline, foldDeepDefinitions, foldedReason, type Folded } from './bounds.js';
import { CONTAINER_KINDS, Containment, ReceiverTypes, bindings, compact, countErrors, declaredTypes, isExported, pos, type Bindings } from './scopes.js';

/*
 * Turns a syntax tree and a tag query into FileFacts. Pure: no I/O, no
 * global state, so it runs in a worker and in tests alike. The capture
 * names are the contract with grammars/*.scm (documented in grammars/README.md).
 *
 * A construct the extractor fails on is skipped with its reason and the rest
 * of the file is kept: one odd line never costs a file its facts.
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
  // `get x()`, `set x(v)`, `@property`: a property to its users, whatever its body.
  'def.accessor': 'field',
};

/** When one node matches several definition patterns, the more specific capture wins. */
const DEF_PRIORITY: Record<string, number> = {
  'def.accessor': 10, 'def.constructor': 9, 'def.method': 8, 'def.function': 7, 'def.class': 6, 'def.interface': 6, 'def.enum': 6,
  'def.type': 5, 'def.namespace': 5, 'def.field': 4, 'def.constant': 3,
};

const REF_KINDS: Record<string, EdgeKind> = {
  'ref.call': 'call',
  'ref.instantiate': 'instantiate',
  'ref.reference': 'reference',
  'ref.extends': 'extends',
  'ref.implements': 'implements',
  'ref.read': 'read',
  'ref.write': 'write',
};

/** One name node can be captured by several patterns: keep the most telling use. */
const REF_PRIORITY: Record<EdgeKind, number> = { extends: 5, implements: 5, instantiate: 4, call: 3, write: 3, import: 2, read: 2, reference: 1 };

/** Kinds of bare-name site a local binding of the same name shadows. */
const SHADOWED: ReadonlySet<EdgeKind> = new Set(['call', 'instantiate', 'reference', 'read', 'write']);
const NAME_IS: ReadonlySet<string> = new Set<SiteNameIs>(['config-key', 'env-var', 'config-prefix', 'receiver']);


interface PendingDef {
  node: Node;
  nameNode: Node;
  kind: SymbolKind;
  capture: string;
  /** Type named by the receiver of a method declared outside its type (Go). */
  receiver?: string;
}




export function extractFacts(tree: Tree, query: Query, spec: LanguageSpec, parseMs: number, deadline = Deadline.none()): FileFacts {
  const root = tree.rootNode;
  let overBudget = false;
  const matches = query.matches(root, {
    progressCallback: () => {
      overBudget ||= deadline.passed;
      return overBudget;
    },
  } as Parameters<Query['matches']>[1]);
  // A cancelled query returns what it found so far: a file is read whole or skipped, never half-read.
  if (overBudget) throw deadline.exceeded();
  const skipped: SkippedConstruct[] = [];
  const { ordered, folded } = pendingDefinitions(matches);
  if (folded.length) skipped.push(foldedReason(folded, ordered));
  const containment = new Containment(ordered);
  const defs = definitionFacts(ordered, containment, spec, skipped, deadline);
  const receivers = new ReceiverTypes(defs, declaredTypes(matches, containment, defs, skipped), spec);
  // A folded definition's name is no use of anything either.
  const defNameNodes = new Set([...ordered, ...folded.map((f) => f.def)].map((d) => d.nameNode.id));
  const scopes = bindings(matches, containment, defNameNodes);
  if (deadline.passed) throw deadline.exceeded();
  const uses = useSites(matches, containment, defNameNodes, receivers, scopes, defs, skipped, spec, deadline);
  const merged = mergeDeclarations(spec, ordered, defs, containment, receivers, uses, skipped);
  return {
    language: spec.id,
    ...(uses.packageName !== undefined ? { packageName: uses.packageName } : {}),
    definitions: merged.definitions,
    sites: merged.sites,
    imports: merged.imports,
    errorNodes: root.hasError ? countErrors(root) : 0,
    ...(scopes.computedAccesses ? { computedAccesses: scopes.computedAccesses } : {}),
    ...(skipped.length ? { skipped } : {}),
    parseMs,
  };
}

/**
 * Definitions, deduplicated by node (the most specific capture wins), in the
 * order their indexes follow: by position, with methods declared outside
 * their type (Go) last together with everything declared inside them, so
 * the type they attach to precedes them (parent < index).
 */
function pendingDefinitions(matches: readonly QueryMatch[]): { ordered: PendingDef[]; folded: Folded<PendingDef>[] } {
  const pending = new Map<number, PendingDef>();
  for (const m of matches) {
    let defNode: Node | undefined;
    let capture: string | undefined;
    let nameNode: Node | undefined;
    let receiver: string | undefined;
    for (const c of m.captures) {
      if (DEF_KINDS[c.name]) {
        defNode = c.node;
        capture = c.name;
      } else if (c.name === 'name') nameNode = c.node;
      else if (c.name === 'method.receiver') receiver = c.node.text;
    }
    if (!defNode || !capture || !nameNode) continue;
    const prev = pending.get(defNode.id);
    if (!prev || DEF_PRIORITY[capture]! > DEF_PRIORITY[prev.capture]!) {
      pending.set(defNode.id, { node: defNode, nameNode, kind: DEF_KINDS[capture]!, capture, ...(receiver !== undefined ? { receiver } : {}) });
    }
  }
  const all = [...pending.values()];
  // A definition inside a detached method (a local of anonymous struct type in a Go method) must follow that method.
  const detachedRanges = all.filter((d) => d.receiver !== undefined).map((d) => [d.node.startIndex, d.node.endIndex] as const).sort((a, b) => a[0] - b[0]);
  const inDetached = (d: PendingDef): number => {
    if (d.receiver !== undefined) return 1;
    let lo = 0;
    let hi = detachedRanges.length - 1;
    let j = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (detachedRanges[mid]![0] <= d.node.startIndex) {
        j = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return j >= 0 && detachedRanges[j]![1] >= d.node.endIndex ? 1 : 0;
  };
  const late = new Map(all.map((d) => [d, inDetached(d)]));
  const sorted = all.sort((a, b) => late.get(a)! - late.get(b)! || a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  return foldDeepDefinitions(sorted);
}


/** A definition's name as written; a computed name keeps its brackets (`[Symbol.iterator]`) unless it is a literal (`['key']` is `key`). */
function definitionName(nameNode: Node): string {
  if (nameNode.type !== 'computed_property_name') return nameNode.text;
  const inner = nameNode.namedChildren[0];
  if (inner && (inner.type === 'string' || inner.type === 'number')) return inner.type === 'string' ? (inner.namedChildren[0]?.text ?? '') : inner.text;
  return `[${compact(inner?.text ?? nameNode.text.slice(1, -1))}]`;
}

/**
 * Each definition with its parent and its final kind (a function in a class
 * is a method, and so on), aligned with `ordered`; a definition the
 * extractor fails on is left out (undefined) with its reason, and what it
 * held is given to the definition around it.
 */
function definitionFacts(
  ordered: readonly PendingDef[],
  containment: Containment,
  spec: LanguageSpec,
  skipped: SkippedConstruct[],
  deadline: Deadline,
): (DefinitionFact | undefined)[] {
  const definitions: (DefinitionFact | undefined)[] = [];
  const present = (k: number): number => {
    let p = k;
    while (p >= 0 && !definitions[p]) p = containment.enclosing(p);
    return p;
  };
  for (let i = 0; i < ordered.length; i++) {
    const d = ordered[i]!;
    deadline.check();
    try {
      let parent = containment.ownerOf(d.node);
      let kind = d.kind;
      // Go declares a method outside its type: the receiver names the type. One declared in
      // another file of the package is not found here and the method stays at the top.
      if (d.receiver !== undefined && parent < 0) {
        parent = definitions.findIndex((p) => p !== undefined && p.parent < 0 && TYPE_KINDS.has(p.kind) && p.name === d.receiver);
      }
      if (parent >= i) throw new Error(`its enclosing definition (line ${pos(ordered[parent]!.node).line}) comes after it`);
      parent = present(parent);
      // `int a, b;` / `a, b int`: a later name sits inside the first one's declaration node; it is a sibling.
      if (parent >= 0 && definitions[parent]!.kind === kind && d.node.parent?.id === ordered[parent]!.node.id) {
        parent = definitions[parent]!.parent;
      }
      // A field declared inside a callable (TypeScript parameter properties, `self.x = …` in a method or a property) belongs to the class.
      if (kind === 'field' && d.capture !== 'def.accessor') {
        while (parent >= 0 && (CALLABLE_KINDS.has(definitions[parent]!.kind) || ordered[parent]!.capture === 'def.accessor')) {
          if (definitions[parent]!.kind === 'function') break;
          parent = definitions[parent]!.parent;
        }
        // `self.x = …` outside a method is an assignment to some object, not a field of anything.
        if (spec.scheme === 'py' && d.node.type === 'attribute' && (parent < 0 || !CONTAINER_KINDS.has(definitions[parent]!.kind))) {
          definitions[i] = undefined;
          continue;
        }
      }
      const parentKind = parent >= 0 ? definitions[parent]!.kind : undefined;
      if (kind === 'function' && parentKind && CONTAINER_KINDS.has(parentKind)) kind = 'method';
      if (kind === 'method' && (d.nameNode.text === 'constructor' || d.nameNode.text === '__init__')) kind = 'constructor';
      if (kind === 'constant' && parentKind && CONTAINER_KINDS.has(parentKind)) kind = 'field';
      definitions[i] = {
        index: i,
        name: definitionName(d.nameNode),
        kind,
        parent,
        range: { start: pos(d.node), end: pos(d.node, true) },
        nameRange: { start: pos(d.nameNode), end: pos(d.nameNode, true) },
        exported: isExported(d.node, d.nameNode.text, spec),
      };
    } catch (e) {
      definitions[i] = undefined;
      skipped.push({ at: pos(d.nameNode), reason: `definition \`${compact(d.nameNode.text)}\` skipped: ${errorMessage(e)}` });
    }
  }
  return definitions;
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
  // A catch-all such as `((identifier) @ref.read)` captures the name node once, as the use itself.
  if (u.refNode && !u.nameNode) u.nameNode = u.refNode;
  return u;
}

/** A use the whole name node makes by itself: no receiver, nothing `#set!` (a bare name read, a catch-all type reference). */
function isBare(m: QueryMatch, u: UseCaptures): boolean {
  return u.refNode !== undefined && u.refNode.id === u.nameNode?.id && !u.receiverNode && m.setProperties === undefined;
}

/** Properties a pattern sets with `#set!`: a name or receiver that the captured text does not spell, what the name is. */
interface SiteProperties {
  readonly name?: string;
  readonly receiver?: string;
  readonly nameIs?: SiteNameIs;
  readonly computed: boolean;
  readonly kind?: EdgeKind;
  readonly reason?: string;
}

function siteProperties(m: QueryMatch): SiteProperties {
  const p = m.setProperties ?? {};
  const nameIs = p['nameIs'];
  const kind = p['kind'];
  return {
    ...(p['name'] ? { name: p['name'] } : {}),
    ...(p['receiver'] ? { receiver: p['receiver'] } : {}),
    ...(nameIs && NAME_IS.has(nameIs) ? { nameIs: nameIs as SiteNameIs } : {}),
    computed: p['computed'] === 'true',
    ...(kind && kind in REF_PRIORITY ? { kind: kind as EdgeKind } : {}),
    ...(p['reason'] ? { reason: p['reason'] } : {}),
  };
}

interface UseResult {
  packageName: string | undefined;
  sites: SiteFact[];
  imports: ImportFact[];
}

/** Use sites (deduplicated by the name node, most telling kind kept), dynamic sites, imports and the package. */
function useSites(
  matches: readonly QueryMatch[],
  containment: Containment,
  defNameNodes: ReadonlySet<number>,
  receivers: ReceiverTypes,
  scopes: Bindings,
  definitions: readonly (DefinitionFact | undefined)[],
  skipped: SkippedConstruct[],
  spec: LanguageSpec,
  deadline: Deadline,
): UseResult {
  const sitesByNode = new Map<number, { kind: EdgeKind; site: SiteFact }[]>();
  const dynamicSites = new Map<number, { pattern: number; site: SiteFact }>();
  const importStatements = new Map<number, ImportFact[]>();
  // `#set!` properties belong to a pattern, not a match: read once per pattern.
  const propsByPattern: SiteProperties[] = [];
  const propsOf = (m: QueryMatch): SiteProperties => (propsByPattern[m.patternIndex] ??= siteProperties(m));
  let packageName: string | undefined;
  // Bare uses come last: most of their nodes already hold a more telling site (the name of a
  // member use, a call, a write), which a bare use never displaces, so they are dropped at once.
  const telling: { m: QueryMatch; u: UseCaptures; bare: boolean }[] = [];
  const bare: { m: QueryMatch; u: UseCaptures; bare: boolean }[] = [];
  // A match the extractor fails on is skipped with its reason; the rest of the file is kept.
  const skipUse = (m: QueryMatch, e: unknown): void => {
    const first = m.captures[0]?.node;
    skipped.push({ at: first ? pos(first) : { line: 1, col: 0 }, reason: `use site skipped: ${errorMessage(e)}` });
  };
  for (const m of matches) {
    try {
      const u = useCaptures(m);
      if (isBare(m, u)) bare.push({ m, u, bare: true });
      else telling.push({ m, u, bare: false });
    } catch (e) {
      skipUse(m, e);
    }
  }
  for (const { m, u, bare: isBareUse } of [...telling, ...bare]) {
    deadline.check();
    try {
      if (isBareUse && u.refKind && u.nameNode) {
        const held = sitesByNode.get(u.nameNode.id)?.[0];
        if (held && rank(held) >= rank({ kind: u.refKind, site: {} })) continue;
      }
      if (u.isPackage && u.nameNode) {
        packageName ??= u.nameNode.text;
      } else if (u.dynamicNode) {
        const site = dynamicSite(propsOf(m), u, u.dynamicNode, containment);
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
        const props = propsOf(m);
        const kind = props.kind ?? u.refKind;
        const isData = kind === 'read' || kind === 'write';
        // `self` in `self.x` is the instance, not a variable anything could depend on.
        if (isData && !u.receiverNode && spec.selfNames.includes(u.nameNode.text)) continue;
        if (isData && !u.receiverNode && props.receiver === undefined && (props.nameIs === undefined || props.nameIs === 'receiver') && scopes.noRead.holds(u.nameNode)) continue;
        for (const site of referenceSites(kind, u.refNode, u.nameNode, u.receiverNode, props, containment, receivers)) {
          if (shadowed(site, scopes, definitions)) continue;
          const list = sitesByNode.get(u.nameNode.id) ?? [];
          sitesByNode.set(u.nameNode.id, keepMostTelling(list, { kind, site }));
        }
      }
    } catch (e) {
      skipUse(m, e);
    }
  }
  const sites = [...[...sitesByNode.values()].flatMap((l) => l.map((s) => s.site)), ...[...dynamicSites.values()].map((d) => d.site)].sort(
    (a, b) => a.at.line - b.at.line || a.at.col - b.at.col,
  );
  return { packageName, sites, imports: mergeImports(importStatements) };
}

/** How telling a site of a name node is: a receiver, then the kind, then knowing what the name is. */
function rank(s: { kind: EdgeKind; site: Pick<SiteFact, 'receiver' | 'nameIs'> }): number {
  return (s.site.receiver !== undefined ? 100 : 0) + REF_PRIORITY[s.kind] * 2 + (s.site.nameIs !== undefined ? 1 : 0);
}

/**
 * One name node, several patterns: a site that knows its receiver (a member
 * use, `this::handle`) wins over the bare name; then the most telling kind;
 * then the one that knows what its name is (a configuration key, a receiver). Sites
 * of one node that name different things (the placeholders of one
 * annotation) are all kept.
 */
function keepMostTelling(list: readonly { kind: EdgeKind; site: SiteFact }[], next: { kind: EdgeKind; site: SiteFact }): { kind: EdgeKind; site: SiteFact }[] {
  const isKey = (s: { site: SiteFact }) => s.site.nameIs === 'config-key' || s.site.nameIs === 'config-prefix';
  const same = list.findIndex((s) => s.site.name === next.site.name || !(isKey(s) && isKey(next)));
  if (same < 0) return [...list, next];
  if (rank(next) <= rank(list[same]!)) return [...list];
  return list.map((s, i) => (i === same ? next : s));
}

/** A bare name bound locally where it is used (a parameter, a local variable) is not a use of a definition elsewhere. */
function shadowed(site: SiteFact, scopes: Bindings, definitions: readonly (DefinitionFact | undefined)[]): boolean {
  if (site.receiver !== undefined || site.dynamic !== undefined || !SHADOWED.has(site.kind)) return false;
  if (site.nameIs !== undefined && site.nameIs !== 'receiver') return false;
  for (let s = site.owner; ; s = definitions[s]?.parent ?? -1) {
    const d = s >= 0 ? definitions[s] : undefined;
    // Class bodies are no scope for the methods inside them, but are for what is written in them directly: the
    // locals of an initializer block (`static { for (int[] row : …) use(row.length); }`).
    if (!d || !CONTAINER_KINDS.has(d.kind) || s === site.owner) {
      if (scopes.globals.get(s)?.has(site.name)) return false;
      if (scopes.locals.get(s)?.has(site.name)) return true;
    }
    if (s < 0) return false;
  }
}

function dynamicSite(props: SiteProperties, u: UseCaptures, dynamicNode: Node, containment: Containment): SiteFact {
  const byKey = props.nameIs === 'config-key' || props.nameIs === 'env-var';
  const reason = props.reason ?? (byKey ? COMPUTED_CONFIG_READ : 'target computed at run time');
  // A literal name (getattr(x, "retry")) still says which name is meant.
  const literal = u.nameNode ? u.nameNode.text : '';
  const site: SiteFact = {
    kind: props.kind ?? (byKey ? 'read' : 'call'),
    name: literal,
    owner: containment.ownerOf(dynamicNode),
    at: pos(dynamicNode),
    dynamic: reason,
    ...(props.nameIs ? { nameIs: props.nameIs } : {}),
  };
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

/** The keys a configuration string names: each `${a.b}` placeholder of `@Value("${a.b:3}")`, else the whole string. */
function keysIn(text: string): string[] {
  const placeholders = [...text.matchAll(/\$\{([^}:]+)(?::[^}]*)?\}/g)].map((m) => m[1]!.trim());
  return placeholders.length ? placeholders : [text.trim()];
}

function referenceSites(
  kind: EdgeKind,
  refNode: Node,
  nameNode: Node,
  receiverNode: Node | undefined,
  props: SiteProperties,
  containment: Containment,
  receivers: ReceiverTypes,
): SiteFact[] {
  // Inheritance clauses can hang off the class node itself: their owner is that class.
  const owner = containment.ownerOf(refNode, kind === 'extends' || kind === 'implements');
  const receiver = props.receiver ?? (receiverNode ? compact(receiverNode.text) : undefined);
  const written = props.computed ? `[${compact(nameNode.text)}]` : nameNode.text;
  const names = props.name !== undefined ? [props.name] : props.nameIs === 'config-key' || props.nameIs === 'config-prefix' ? keysIn(written) : [written];
  const rType = receiver !== undefined && props.nameIs === undefined ? receivers.of(receiverNode?.text ?? receiver, owner) : undefined;
  return names
    .filter((n) => n.length > 0)
    .map((name) => ({
      kind,
      name,
      owner,
      at: pos(nameNode),
      ...(receiver !== undefined ? { receiver } : {}),
      ...(rType ? { receiverType: rType } : {}),
      ...(props.nameIs ? { nameIs: props.nameIs } : {}),
    }));
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

/** Node types whose definitions are assignments: a second one to the same name is a write, not a second symbol. */
const ASSIGNMENT_NODES: ReadonlySet<string> = new Set(['assignment', 'assignment_expression', 'augmented_assignment']);
/** Assignment targets that are definitions themselves (`self.x` in `self.x = …`). */
const TARGET_NODES: ReadonlySet<string> = new Set(['attribute', 'member_expression']);

/**
 * One symbol per declared thing. In TypeScript and JavaScript the overload
 * signatures of a function and the getter and setter of a property are
 * facets of one symbol; in Python a name defined twice in one scope (an
 * `@property` and its `@x.setter`, `self.x = …` in two methods, a module
 * variable assigned twice) is one binding. Java overloads are distinct
 * methods and stay apart. A later assignment merged into the first becomes
 * a `write` of it. Indexes are renumbered and every owner follows.
 */
function mergeDeclarations(
  spec: LanguageSpec,
  ordered: readonly PendingDef[],
  defs: readonly (DefinitionFact | undefined)[],
  containment: Containment,
  receivers: ReceiverTypes,
  uses: UseResult,
  skipped: SkippedConstruct[],
): { definitions: DefinitionFact[]; sites: SiteFact[]; imports: ImportFact[] } {
  const mergeable = spec.scheme === 'ts' || spec.scheme === 'py';
  const canonical = new Array<number>(defs.length).fill(-1);
  const firstByKey = new Map<string, number>();
  const facets = new Map<number, Position[]>();
  const ends = new Map<number, Position>();
  const writes: SiteFact[] = [];
  const resolveIndex = (i: number): number => {
    let k = i;
    while (k >= 0 && canonical[k]! >= 0 && canonical[k] !== k) k = canonical[k]!;
    return k;
  };
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i];
    if (!d) continue;
    canonical[i] = i;
    if (!mergeable) continue;
    const parent = d.parent >= 0 ? resolveIndex(d.parent) : -1;
    const key = `${parent}\0${d.name}\0${CALLABLE_KINDS.has(d.kind) ? 'callable' : d.kind}`;
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, i);
      continue;
    }
    canonical[i] = first;
    const node = ordered[i]!.node;
    if (ASSIGNMENT_NODES.has(node.type) || TARGET_NODES.has(node.type)) {
      try {
        const left = TARGET_NODES.has(node.type) ? node : node.childForFieldName('left');
        const object = left?.childForFieldName('object');
        const owner = containment.ownerOf(node);
        const receiver = object ? compact(object.text) : undefined;
        const rType = receiver !== undefined ? receivers.of(receiver, owner) : undefined;
        writes.push({ kind: 'write', name: d.name, owner, at: d.nameRange.start, ...(receiver !== undefined ? { receiver } : {}), ...(rType ? { receiverType: rType } : {}) });
      } catch (e) {
        skipped.push({ at: d.nameRange.start, reason: `assignment to \`${d.name}\` skipped: ${errorMessage(e)}` });
      }
      continue;
    }
    const list = facets.get(first) ?? [];
    list.push(d.nameRange.start);
    facets.set(first, list);
    const end = ends.get(first) ?? defs[first]!.range.end;
    if (d.range.end.line > end.line || (d.range.end.line === end.line && d.range.end.col > end.col)) ends.set(first, d.range.end);
  }
  // Old index → new index, through the definition each was merged into.
  const renumbered = new Array<number>(defs.length).fill(-1);
  const definitions: DefinitionFact[] = [];
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i];
    if (!d || canonical[i] !== i) continue;
    renumbered[i] = definitions.length;
    const parent = d.parent >= 0 ? renumbered[resolveIndex(d.parent)]! : -1;
    const end = ends.get(i);
    const f = facets.get(i);
    definitions.push({
      ...d,
      index: definitions.length,
      parent,
      ...(end ? { range: { start: d.range.start, end } } : {}),
      ...(f ? { facets: f } : {}),
    });
  }
  const owner = (i: number): number => {
    let k = i;
    // An owner left out (skipped) hands its sites to the definition around it.
    while (k >= 0 && !defs[k]) k = containment.enclosing(k);
    return k >= 0 ? renumbered[resolveIndex(k)]! : -1;
  };
  const sites = [...uses.sites, ...writes]
    .map((s) => ({ ...s, owner: owner(s.owner) }))
    .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col);
  return { definitions, sites, imports: uses.imports.map((im) => ({ ...im, owner: owner(im.owner) })) };
}
