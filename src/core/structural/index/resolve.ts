import { Yielder } from '../../../shared/yielder.js';
import { CALLABLE_KINDS, DATA_EDGE_KINDS, DATA_KINDS, TYPE_KINDS, type EdgeBinding, type EdgeKind, type SymbolKind } from '../../model/structural.js';
import type { EdgeTier } from '../../model/tiers.js';
import { absolutePython, ModuleTable, submodule } from './modules.js';
import { inherits } from './pendingSites.js';
import { moduleKey, type Edge, type FileEntry, type Import, type Site, type StructuralState, type Sym } from './state.js';
import { bareTargets, ConfigKeyIndex, CONTAINER, DATA_MEMBER_TARGETS, MAX_CANDIDATES, MAX_DATA_CANDIDATES, MAX_WORKSPACE_CANDIDATES, memberTargets, preferCallables } from './targets.js';
import { push } from '../../../shared/maps.js';

/**
 * Name resolution for the inventory: turns use sites into tiered edges
 * without a type checker. The rules, in order of trust:
 *
 *  - scope first: the enclosing definitions, the file, its imports, its
 *    package — a single candidate found this way is `inferred`;
 *  - a receiver whose declared type the file states is looked up in that type
 *    and its ancestors (`inferred`);
 *  - a receiver of unknown type falls back to every member of that name;
 *    candidates that are one override hierarchy collapse to its root (a
 *    dispatch, reported as such); otherwise all are kept as `ambiguous`;
 *  - a target computed at run time is `dynamic`, kept with its reason.
 *
 * Nothing is dropped except names that resolve outside the workspace.
 */

const SOURCE = 'tree-sitter';
/**
 * Edges handed to the writer at a time. Small: a batch that outlives the
 * young generation's collections is promoted and becomes old-generation
 * garbage, which is what lets the heap grow during a large first index
 * (8,000 files: peak RSS 1.46-1.50 GB at 20,000 edges a batch, 1.31-1.37 GB
 * at 2,000). A prepared statement costs nothing more per batch.
 */
const EDGE_BATCH = 2_000;
/**
 * Name tables (a large parent's children by name, a name's pool) a pass keeps: past this many they are dropped and
 * built again on use. Kept for a whole pass, they grew with the repository's names (30 MB of a 10,000-file index's
 * 256 MB working set); sites come file by file, package by package, so the tables in use are the recent ones.
 */
const TABLES_KEPT = 2_048;
/** How a reason says a receiver's type was not known (what_breaks counts these in "not seen"). */
export const UNKNOWN_RECEIVER = 'of unknown type';

/** The symbols of one name a receiver of unknown type may reach, with what per-site lookups need. */
interface NamePool {
  readonly all: readonly Sym[];
  readonly byFile: ReadonlyMap<number, readonly Sym[]>;
  readonly order: ReadonlyMap<number, number>;
  /** hierarchyRoot of all, once asked: null when there is none. */
  root?: Sym | null;
}

interface Found {
  readonly syms: readonly Sym[];
  readonly how: string;
  /** The name is bound to something outside the workspace: stop looking. */
  readonly external?: boolean;
}

export class Resolver {
  private readonly modules: ModuleTable;
  private readonly named = new Map<number, Map<string, Sym[]>>();
  private readonly pools = new Map<string, NamePool>();
  /** Top-level names of a set of files (an import's targets), by their ids. */
  private readonly spread = new Map<string, Map<string, Sym[]>>();
  /** The last file's visible files: its sites come one after another. */
  private visible?: { fileId: number; files: Set<number> };
  private readonly kindIds = new Map<ReadonlySet<SymbolKind>, number>();
  private readonly packages = new Map<string, Map<string, Sym[]>>();

  constructor(private readonly state: StructuralState) {
    this.modules = new ModuleTable(state);
  }

  /** Call after files were added or removed: module lookup tables are rebuilt lazily. */
  invalidateModules(): void {
    this.modules.invalidate();
  }

  // ---- imports -----------------------------------------------------------

  async resolveImports(fileIds: Iterable<number>): Promise<void> {
    this.dropNameTables();
    this.modules.startPass();
    const yielder = new Yielder(12, 4);
    for (const fileId of fileIds) {
      if (yielder.due()) await yielder.yield();
      const file = this.state.files.get(fileId);
      if (!file?.language) continue;
      for (const imp of this.state.importsByFile.get(fileId) ?? []) imp.targets = this.modules.targetsOf(file, imp);
    }
  }

  // ---- scope -------------------------------------------------------------

  private topLevel(fileId: number, name: string, allowed: ReadonlySet<SymbolKind>): Sym[] {
    const mod = this.state.files.get(fileId)?.moduleSymbolId;
    if (mod === null || mod === undefined) return [];
    return this.childrenNamed(mod, name).filter((s) => allowed.has(s.kind));
  }

  /**
   * The top-level definitions of a name across several files, in their order:
   * what an import of a package (`import java.util.*`, a Go package's files)
   * binds. Read through a table built on first use for a large set: a
   * package's files, scanned at each of its importers' sites, made resolution
   * grow with the package's size times its users.
   */
  private topLevelIn(files: readonly number[], name: string, allowed: ReadonlySet<SymbolKind>): Sym[] {
    if (files.length <= 4) return files.flatMap((f) => this.topLevel(f, name, allowed));
    const key = files.join(',');
    let table = this.spread.get(key);
    if (!table) this.spread.set(key, (table = this.namesIn(files)));
    return (table.get(name) ?? []).filter((s) => allowed.has(s.kind));
  }

  /** The top-level definitions of some files by name, in the files' order. */
  private namesIn(files: readonly number[]): Map<string, Sym[]> {
    const table = new Map<string, Sym[]>();
    for (const f of files) {
      const mod = this.state.files.get(f)?.moduleSymbolId;
      if (mod === null || mod === undefined) continue;
      for (const c of this.state.children.get(mod) ?? []) push(table, c.name, c);
    }
    return table;
  }

  /**
   * Children of a symbol by name. A module or class with many definitions is
   * indexed on first use (scanning its children at every lookup made a large
   * file's or package's resolution quadratic); the tables are dropped when a
   * batch starts, since the working set changes between batches.
   */
  private childrenNamed(parentId: number, name: string): readonly Sym[] {
    const all = this.state.children.get(parentId);
    if (!all) return [];
    if (all.length < 16) return all.filter((s) => s.name === name);
    let table = this.named.get(parentId);
    if (!table) {
      table = new Map();
      for (const c of all) push(table, c.name, c);
      if (this.named.size >= TABLES_KEPT) this.named.clear();
      this.named.set(parentId, table);
    }
    return table.get(name) ?? [];
  }

  /** The top-level definitions of a package's files (Go, Java) by name, built on first use in a batch. */
  private packageNamed(key: string, name: string): readonly Sym[] {
    let table = this.packages.get(key);
    if (!table) this.packages.set(key, (table = this.namesIn(this.state.modules.get(key) ?? [])));
    return table.get(name) ?? [];
  }

  /** The working set changed: the name tables are rebuilt on use. */
  private dropNameTables(): void {
    this.named.clear();
    this.packages.clear();
    this.pools.clear();
    this.spread.clear();
    this.visible = undefined;
  }

  /**
   * Every symbol of a name, of these kinds, in one language family (members
   * of a type only, if asked; callables first for a call): the candidates of
   * a receiver of unknown type or of a computed call. Worked out once per
   * name and pass: a common name (`get`, `toString`) has thousands, and
   * filtering them again at each of its sites made resolution quadratic in
   * the size of the repository. Name matching never crosses languages: a
   * TypeScript call cannot land in a Python method.
   */
  private poolOf(name: string, scheme: string, kinds: ReadonlySet<SymbolKind>, membersOnly: boolean, call: boolean): NamePool {
    let kindId = this.kindIds.get(kinds);
    if (kindId === undefined) this.kindIds.set(kinds, (kindId = this.kindIds.size));
    const key = `${kindId}|${scheme}|${membersOnly ? 1 : 0}|${call ? 1 : 0}|${name}`;
    let pool = this.pools.get(key);
    if (!pool) {
      const named = this.state.symbolsNamed(name).filter(
        (s) => kinds.has(s.kind) && (!membersOnly || this.isMember(s)) && this.state.files.get(s.fileId)?.language?.scheme === scheme,
      );
      const callables = call ? named.filter((s) => !DATA_KINDS.has(s.kind)) : [];
      const all = callables.length ? callables : named;
      const byFile = new Map<number, Sym[]>();
      all.forEach((sym) => push(byFile, sym.fileId, sym));
      pool = { all, byFile, order: new Map(all.map((sym, i) => [sym.id, i])) };
      if (this.pools.size >= TABLES_KEPT) this.pools.clear();
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** The pool's symbols in the given files, in the pool's order: from whichever side is smaller. */
  private poolIn(pool: NamePool, files: ReadonlySet<number>): Sym[] {
    if (files.size >= pool.byFile.size) return pool.all.filter((sym) => files.has(sym.fileId));
    const out: Sym[] = [];
    for (const f of files) out.push(...(pool.byFile.get(f) ?? []));
    return out.sort((a, b) => pool.order.get(a.id)! - pool.order.get(b.id)!);
  }

  /** hierarchyRoot of a whole pool, worked out once. */
  private poolRoot(pool: NamePool): Sym | undefined {
    if (pool.root === undefined) pool.root = this.hierarchyRoot(pool.all) ?? null;
    return pool.root ?? undefined;
  }

  private enclosingType(owner: Sym | undefined): Sym | undefined {
    let s = owner;
    while (s) {
      if (CONTAINER.has(s.kind)) return s;
      s = s.parentId !== null ? this.state.symbols.get(s.parentId) : undefined;
    }
    return undefined;
  }

  /** Ancestors of a type, nearest first (breadth-first over resolved extends/implements). */
  ancestors(type: Sym): Sym[] {
    const out: Sym[] = [];
    const seen = new Set<number>([type.id]);
    let frontier = [type.id];
    while (frontier.length) {
      const nextFrontier: number[] = [];
      for (const id of frontier) {
        for (const sup of this.state.supertypes.get(id) ?? []) {
          if (seen.has(sup)) continue;
          seen.add(sup);
          const s = this.state.symbols.get(sup);
          if (s) {
            out.push(s);
            nextFrontier.push(sup);
          }
        }
      }
      frontier = nextFrontier;
    }
    return out;
  }

  /** Members named `name` of a type, else of its nearest ancestors that have one. */
  findMember(type: Sym, name: string, allowed: ReadonlySet<SymbolKind>, skipOwn = false): { syms: Sym[]; from: Sym } | undefined {
    const levels = skipOwn ? this.ancestors(type) : [type, ...this.ancestors(type)];
    for (const t of levels) {
      const hit = this.childrenNamed(t.id, name).filter((s) => allowed.has(s.kind));
      if (hit.length) return { syms: hit, from: t };
    }
    return undefined;
  }

  /** What a bare name means at a site: enclosing scopes, the file, imports, the package. */
  lookupName(file: FileEntry, owner: Sym | undefined, name: string, allowed: ReadonlySet<SymbolKind>): Found | undefined {
    const spec = file.language!;
    // 1. Enclosing definitions, innermost first. Class members are in bare scope only in Java.
    for (let s = owner; s; s = s.parentId !== null ? this.state.symbols.get(s.parentId) : undefined) {
      if (s.kind === 'module') break;
      if (CONTAINER.has(s.kind)) {
        if (spec.scheme !== 'java') continue;
        const m = this.findMember(s, name, allowed);
        if (m) return { syms: m.syms, how: m.from.id === s.id ? `member of the enclosing \`${s.name}\`` : `inherited from \`${m.from.name}\`` };
        continue;
      }
      const local = this.childrenNamed(s.id, name).filter((c) => allowed.has(c.kind));
      if (local.length) return { syms: local, how: `defined in the enclosing \`${s.name}\`` };
    }
    // 2. The file's own top level.
    const own = this.topLevel(file.id, name, allowed);
    if (own.length) return { syms: own, how: 'defined in this file' };
    // 3. Imports that bind the name.
    for (const imp of this.state.importsByFile.get(file.id) ?? []) {
      if (imp.wildcard) continue;
      const binding = imp.local ?? imp.name ?? (spec.scheme === 'py' ? imp.module.split('.')[0] : imp.module.split(/[./]/).pop());
      if (binding !== name) continue;
      if (imp.targets.length === 0) return { syms: [], how: `imported from \`${imp.module}\` (outside the workspace)`, external: true };
      if (imp.name === null && imp.local !== null && spec.scheme !== 'java') {
        // `import * as ns from`, `import x as y`, default imports: the binding is the module (or its default export).
        const def = this.topLevelIn(imp.targets, name, allowed);
        if (def.length) return { syms: def, how: `imported from \`${imp.module}\`` };
        const mods = imp.targets.map((t) => this.state.symbols.get(this.state.files.get(t)?.moduleSymbolId ?? -1)).filter((s): s is Sym => !!s);
        return { syms: allowed.has('module') ? mods : [], how: `the module \`${imp.module}\``, external: !allowed.has('module') };
      }
      const wanted = spec.scheme === 'java' ? name : (imp.name ?? name);
      let hit = this.topLevelIn(imp.targets, wanted, allowed);
      if (spec.scheme === 'java' && !hit.length) {
        const full = imp.name ? `${imp.module}.${imp.name}` : imp.module;
        hit = this.state.symbolsNamed(wanted).filter((s) => s.qname === full && allowed.has(s.kind));
      }
      if (!hit.length) hit = this.reexported(imp.targets, wanted, allowed);
      if (!hit.length && spec.scheme === 'py' && allowed.has('module')) {
        hit = this.modules.pythonModule(submodule(file, imp.module, wanted)).map((f) => this.state.symbols.get(this.state.files.get(f)!.moduleSymbolId!)!);
      }
      if (hit.length) return { syms: hit, how: `imported from \`${imp.module}\`` };
      return { syms: [], how: `imported from \`${imp.module}\`, which defines no \`${wanted}\` the inventory can see`, external: true };
    }
    // 4. Wildcard imports and the package the file belongs to.
    const wild = (this.state.importsByFile.get(file.id) ?? []).filter((i) => i.wildcard);
    for (const imp of wild) {
      const hit = this.topLevelIn(imp.targets, name, allowed);
      if (hit.length) return { syms: hit, how: `imported by \`${imp.module}.*\`` };
    }
    if ((spec.scheme === 'java' || spec.scheme === 'go') && file.moduleName !== undefined) {
      const hit = this.packageNamed(moduleKey(spec, file.moduleName), name).filter((s) => s.fileId !== file.id && allowed.has(s.kind));
      if (hit.length) return { syms: hit, how: `defined in the same package \`${file.moduleName || '(default)'}\`` };
    }
    return undefined;
  }

  /**
   * What a module exports by a name it does not define itself, through its
   * re-exports, a few hops deep: `from .x import name [as alias]` and
   * `from .x import *` (Python: a star import binds no name starting with
   * `_`), `export { a as b } from './x'` (TypeScript: under its alias; a plain import is taken as
   * re-exported too, since the `export { b }` that may follow is not tied to it) and `export * from './x'` (any name). A plain `import a.b` binds `a`, no
   * name of `a.b`.
   */
  private reexported(targets: readonly number[], name: string, allowed: ReadonlySet<SymbolKind>, depth = 3, seen = new Set<number>()): Sym[] {
    const out = new Map<number, Sym>();
    for (const t of targets) {
      if (seen.has(t)) continue;
      seen.add(t);
      const scheme = this.state.files.get(t)?.language?.scheme;
      // Java and Go re-export nothing: what a package imports is not a name of the package. (Following
      // their imports found wrong targets, and walking whole packages three deep at every site made
      // resolution quadratic: a third of it on 8,000 files of Java and Go.)
      if (scheme !== 'ts' && scheme !== 'py') continue;
      const py = scheme === 'py';
      for (const imp of this.state.importsByFile.get(t) ?? []) {
        let wanted: string;
        if (imp.name !== null) {
          // An import or re-export names what the module exports under its local name. A default export is
          // looked for by the name it is re-exported as (`export { default as messages } from './i18n'`),
          // as a default import is: the inventory does not record which definition a module exports as default.
          if ((imp.local ?? imp.name) !== name) continue;
          wanted = imp.name === 'default' && !py ? name : imp.name;
        } else if (!py || (imp.wildcard && !name.startsWith('_'))) {
          // TypeScript's bare `export * from` names anything; Python's star import, any name not starting with `_`.
          wanted = name;
        } else {
          continue;
        }
        for (const tt of imp.targets) {
          const own = this.topLevel(tt, wanted, allowed);
          for (const s of own.length ? own : depth > 1 ? this.reexported([tt], wanted, allowed, depth - 1, seen) : []) out.set(s.id, s);
        }
      }
    }
    return [...out.values()];
  }

  /** Files whose definitions a file can see without a receiver type: itself, its imports, its package. */
  private visibleFiles(file: FileEntry): Set<number> {
    if (this.visible?.fileId === file.id) return this.visible.files;
    const out = new Set<number>([file.id]);
    for (const imp of this.state.importsByFile.get(file.id) ?? []) for (const t of imp.targets) out.add(t);
    if (file.language && (file.language.scheme === 'java' || file.language.scheme === 'go')) {
      for (const f of this.state.modules.get(moduleKey(file.language, file.moduleName)) ?? []) out.add(f);
    }
    this.visible = { fileId: file.id, files: out };
    return out;
  }

  /** If every candidate overrides one of them, that one is the dispatch root. */
  private hierarchyRoot(cands: readonly Sym[]): Sym | undefined {
    for (const root of cands) {
      const rootType = root.parentId !== null ? this.state.symbols.get(root.parentId) : undefined;
      if (!rootType || !CONTAINER.has(rootType.kind)) continue;
      const ok = cands.every((c) => {
        if (c === root) return true;
        const t = c.parentId !== null ? this.state.symbols.get(c.parentId) : undefined;
        return !!t && this.ancestors(t).some((a) => a.id === rootType.id);
      });
      if (ok) return root;
    }
    return undefined;
  }

  // ---- sites -------------------------------------------------------------

  /**
   * Resolves sites: the inheritance sites first (member lookup needs the
   * hierarchy), then the rest, a group at a time (a file's sites, read when
   * resolution comes to them; inheritance sites among them are passed over).
   * Yields to the event loop as it goes (a first index resolves every site
   * of the workspace). The edges go to `write` in batches as they are made,
   * each sent once the one before is written: a first index of a large
   * repository makes millions, and held all at once they were most of its
   * memory. Each group is consumed: its entries are set to undefined once
   * resolved, so a caller holds no site it has handed over.
   */
  async resolveSites(inheritance: readonly Site[], groups: Iterable<(Site | undefined)[]>, write: (edges: readonly Edge[]) => Promise<void>): Promise<number> {
    this.dropNameTables();
    // A site with a common name can take milliseconds (thousands of candidates): read the clock often.
    const yielder = new Yielder(12, 4);
    const inheritanceEdges: Edge[] = [];
    for (const s of inheritance) {
      inheritanceEdges.push(...this.resolveSite(s));
      if (yielder.due()) await yielder.yield();
    }
    this.rebuildSupertypes(inheritanceEdges);
    // The hierarchy just changed: a dispatch root worked out before it may be wrong now.
    this.pools.clear();
    let total = 0;
    let written = Promise.resolve();
    let batch: Edge[] = inheritanceEdges;
    const flush = async () => {
      await written;
      total += batch.length;
      written = write(batch);
      // Marked handled here, rethrown where it is awaited: a failed write must not go unheard meanwhile.
      written.catch(() => undefined);
      batch = [];
    };
    try {
      for (const sites of groups) {
        for (let i = 0; i < sites.length; i++) {
          const s = sites[i];
          if (!s) continue;
          // Let go as soon as resolved.
          sites[i] = undefined;
          if (inherits(s.kind)) continue;
          batch.push(...this.resolveSite(s));
          if (batch.length >= EDGE_BATCH) await flush();
          if (yielder.due()) await yielder.yield();
        }
      }
      await flush();
      await written;
    } finally {
      // A resolution that fails leaves no write running into the transaction's rollback.
      await written.catch(() => undefined);
    }
    return total;
  }

  /**
   * Inheritance edges are also kept as the type hierarchy. Owners of the
   * given inheritance edges get their supertypes replaced by what those edges say.
   */
  private rebuildSupertypes(edges: readonly Edge[]): void {
    const touched = new Set(edges.map((e) => e.srcId));
    for (const id of touched) this.state.supertypes.delete(id);
    for (const e of edges) {
      if (e.dstId === null || e.tier === 'ambiguous') continue;
      let set = this.state.supertypes.get(e.srcId);
      if (!set) this.state.supertypes.set(e.srcId, (set = new Set()));
      set.add(e.dstId);
    }
  }

  resolveSite(site: Site): Edge[] {
    const file = this.state.files.get(site.fileId);
    if (!file?.language) return [];
    const owner = this.state.symbols.get(site.ownerId);
    const edge = (dst: Sym | null, tier: EdgeTier, reason: string, candidates = 1, how: { kind?: EdgeKind; binding?: EdgeBinding } = {}): Edge => ({
      siteId: site.id, srcId: site.ownerId, dstId: dst?.id ?? null, kind: how.kind ?? site.kind, name: site.name, tier, source: SOURCE,
      reason, candidates, fileId: site.fileId, line: site.line, col: site.col, binding: how.binding ?? null,
    });
    const cap = DATA_EDGE_KINDS.has(site.kind) ? MAX_DATA_CANDIDATES : MAX_CANDIDATES;
    const many = (syms: readonly Sym[], tier: EdgeTier, reason: string, how: { kind?: EdgeKind; binding?: EdgeBinding } = {}, limit = cap): Edge[] =>
      syms.length > limit ? [edge(null, tier, `${reason} (${syms.length} candidates, counted by name)`, syms.length, how)] : syms.map((s) => edge(s, tier, reason, syms.length, how));

    if (site.dynamic) {
      if (!site.name) return [edge(null, 'dynamic', site.dynamic, 0)];
      const cands = this.poolOf(site.name, file.language.scheme, CALLABLE_KINDS, false, false).all;
      if (!cands.length) return [];
      return many(cands, 'dynamic', `${site.dynamic}: may reach any \`${site.name}\``);
    }
    if (site.nameIs && site.nameIs !== 'receiver') return this.resolveKeyRead(site, edge);

    const spec = file.language;
    // What a use means by its target: a data use of a type, function or module is a reference to it;
    // a call that lands on a field or variable is a call through a property, a read of it.
    const asUse = (dst: Sym): { kind: EdgeKind; binding?: EdgeBinding } | undefined => {
      if (site.kind === 'call' && DATA_KINDS.has(dst.kind)) return { kind: 'read', binding: 'property-call' };
      if (!DATA_EDGE_KINDS.has(site.kind) || DATA_KINDS.has(dst.kind)) return { kind: site.kind };
      return site.nameIs === 'receiver' ? undefined : { kind: 'reference' };
    };
    const single = (found: Found, what: string, binding?: EdgeBinding): Edge[] => {
      const syms = preferCallables(site, found.syms);
      const as = (dst: Sym) => {
        const use = asUse(dst);
        return use && binding ? { ...use, binding } : use;
      };
      const note = (dst: Sym, reason: string) => (as(dst)?.binding === 'property-call' && !binding ? `called through the property \`${this.label(dst)}\` (a read of it; what runs is the value it holds): ${reason}` : reason);
      if (syms.length === 1) {
        const use = as(syms[0]!);
        return use ? [edge(syms[0]!, 'inferred', note(syms[0]!, `${what}: ${found.how}`), 1, use)] : [];
      }
      const root = this.hierarchyRoot(syms);
      if (root) {
        const use = as(root);
        return use ? [edge(root, 'inferred', note(root, `${what}: dispatch through \`${this.label(root)}\` (${found.how})`), 1, use)] : [];
      }
      const usable = syms.filter((s) => as(s) !== undefined);
      if (!usable.length) return [];
      const use = as(usable[0]!)!;
      return many(usable, 'ambiguous', `${what}: ${usable.length} candidates ${found.how}`, use);
    };

    if (site.receiver === null) {
      const found = this.lookupName(file, owner, site.name, bareTargets(site, spec));
      if (!found || found.external || found.syms.length === 0) return [];
      return single(found, `\`${site.name}\``);
    }

    const receiver = site.receiver;
    const memberKinds = memberTargets(site);
    const isSuper = receiver === 'super' || receiver.startsWith('super(') || receiver === 'super()';
    const isSelf = spec.selfNames.includes(receiver) || isSuper;
    if (isSelf) {
      const cls = this.enclosingType(owner);
      if (cls) {
        if (site.kind === 'call' && site.name === 'constructor' && (receiver === 'super' || receiver === 'this')) return this.constructorCall(cls, receiver === 'super', edge);
        const m = this.findMember(cls, site.name, memberKinds, isSuper);
        if (m) return single({ syms: m.syms, how: m.from.id === cls.id ? `\`${receiver}\` is \`${cls.name}\`` : `\`${receiver}\` inherits it from \`${m.from.name}\`` }, `\`${site.name}\``, isSuper ? 'super' : undefined);
      }
    }
    if (site.receiverType) {
      const types = this.lookupName(file, owner, site.receiverType, TYPE_KINDS);
      if (types && types.syms.length === 1) {
        const m = this.findMember(types.syms[0]!, site.name, memberKinds);
        if (m) return single({ syms: m.syms, how: `receiver \`${receiver}\` is declared as \`${site.receiverType}\`` }, `\`${site.name}\``);
      }
    }
    if (/^[\w$.]+$/.test(receiver)) {
      // A module or a type named by the receiver: `ns.f()`, `os.path.join()`, `Config.load()`, `Foo.EMPTY`.
      const head = receiver.includes('.') ? undefined : receiver;
      const mod = this.receiverModule(file, receiver);
      if (mod) {
        if (mod.length === 0) return [];
        const allowed = bareTargets(site, spec);
        const own = this.topLevelIn(mod, site.name, allowed);
        if (own.length) return single({ syms: own, how: `\`${receiver}\` is a module` }, `\`${site.name}\``);
        // `capi.geos_intersection` where `capi`'s `__init__` star-imports the module that defines it.
        const again = this.reexported(mod, site.name, allowed);
        if (again.length) return single({ syms: again, how: `\`${receiver}\` is a module that re-exports it` }, `\`${site.name}\``);
        return [];
      }
      if (head) {
        const types = this.lookupName(file, owner, head, TYPE_KINDS);
        if (types?.external) return [];
        if (types && types.syms.length === 1) {
          const m = this.findMember(types.syms[0]!, site.name, memberKinds);
          if (m) return single({ syms: m.syms, how: `member of \`${head}\`` }, `\`${site.name}\``);
        }
      }
    }
    // A literal receiver (`[a, b]`, `'text'`, `42`) is a built-in value: no member of the workspace.
    if (/^[[\]'"`\d{]/.test(receiver)) return [];
    // Receiver of unknown type: every member of that name, in scope first.
    const unknownKinds = DATA_EDGE_KINDS.has(site.kind) ? DATA_MEMBER_TARGETS : memberKinds;
    const named = this.poolOf(site.name, spec.scheme, unknownKinds, true, site.kind === 'call');
    const all = named.all;
    if (!all.length) return [];
    const scoped = this.poolIn(named, this.visibleFiles(file));
    const pool = scoped.length ? scoped : all;
    const where = scoped.length ? 'in scope' : 'in the workspace';
    // Matched across the whole workspace, a name's candidates grow with the repository (a quarter of a large
    // corpus's edges were such lists, and they made its edges grow faster than its files): past a few it is
    // counted by name, as a data use is. Candidates in scope are bounded by what the file can see.
    const limit = scoped.length ? cap : Math.min(cap, MAX_WORKSPACE_CANDIDATES);
    // Data names repeat across types far more than method names (`value`, `name`, `definition`), and a receiver
    // of unknown type is often one from outside the workspace: a data use matched by its name alone is a
    // candidate, never a finding (measured on two npm packages: four in five such matches were wrong).
    const first = asUse(pool[0]!);
    if (first && DATA_EDGE_KINDS.has(first.kind)) {
      const word = pool.length === 1 ? `the only \`${site.name}\` ${where}, but` : `${pool.length} candidates ${where};`;
      return many(pool, 'ambiguous', `\`${site.name}\` on \`${receiver}\`: ${word} the receiver is ${UNKNOWN_RECEIVER}`, first, limit);
    }
    if (pool.length === 1) {
      const use = asUse(pool[0]!);
      return use ? [edge(pool[0]!, 'inferred', `\`${site.name}\`: the only \`${site.name}\` ${where} (receiver \`${receiver}\` ${UNKNOWN_RECEIVER})`, 1, use)] : [];
    }
    const root = pool === all ? this.poolRoot(named) : this.hierarchyRoot(pool);
    if (root) {
      const use = asUse(root);
      return use ? [edge(root, 'inferred', `\`${site.name}\`: dispatch through \`${this.label(root)}\`, the root of all ${pool.length} \`${site.name}\` ${where} (receiver ${UNKNOWN_RECEIVER})`, 1, use)] : [];
    }
    const use = asUse(pool[0]!);
    return use ? many(pool, 'ambiguous', `\`${site.name}\` on \`${receiver}\` ${UNKNOWN_RECEIVER}: ${pool.length} candidates ${where}`, use, limit) : [];
  }

  /**
   * `super(...)`: the constructor of the nearest ancestor that declares one
   * (an ancestor without one runs its implicit constructor: the edge goes to
   * the class); Java's `this(...)`: a constructor of the class itself.
   * Statically bound: never a dispatch.
   */
  private constructorCall(cls: Sym, viaSuper: boolean, edge: (dst: Sym | null, tier: EdgeTier, reason: string, candidates?: number, how?: { kind?: EdgeKind; binding?: EdgeBinding }) => Edge): Edge[] {
    const levels = viaSuper ? this.ancestors(cls).filter((a) => a.kind === 'class') : [cls];
    const word = viaSuper ? 'super(…)' : 'this(…)';
    for (const t of levels) {
      const ctors = (this.state.children.get(t.id) ?? []).filter((c) => c.kind === 'constructor');
      if (ctors.length === 1) return [edge(ctors[0]!, 'inferred', `\`${word}\` in \`${cls.name}\` runs the constructor of \`${t.name}\``, 1, { kind: 'call', binding: 'super' })];
      if (ctors.length > 1) return ctors.map((c) => edge(c, 'ambiguous', `\`${word}\` in \`${cls.name}\`: ${ctors.length} constructors of \`${t.name}\``, ctors.length, { kind: 'call', binding: 'super' }));
    }
    const base = levels[0];
    return base && viaSuper ? [edge(base, 'inferred', `\`super(…)\` in \`${cls.name}\` runs the implicit constructor of \`${base.name}\``, 1, { kind: 'call', binding: 'super' })] : [];
  }

  /**
   * A configuration key read by its string: the keys of that name in the
   * workspace's configuration files (every file that sets it: profiles and
   * environments are all read by it), else keys ending with it; an
   * environment variable: a `.env` key of that name, or a key it overrides by
   * relaxed binding (SETTLEMENT_RETRY_MAX → settlement.retry.max); a prefix
   * bound to a class: every leaf key under it. All `inferred`: a string match.
   */
  private resolveKeyRead(site: Site, edge: (dst: Sym | null, tier: EdgeTier, reason: string, candidates?: number) => Edge): Edge[] {
    const keys = this.configKeys();
    const where = (syms: readonly Sym[]) => [...new Set(syms.map((s) => this.state.files.get(s.fileId)?.rel ?? '?'))].join(', ');
    const name = site.name;
    const all = (syms: readonly Sym[], reason: string): Edge[] =>
      syms.length > MAX_CANDIDATES ? [edge(null, 'inferred', `${reason} (${syms.length} keys, counted by name)`, syms.length)] : syms.map((s) => edge(s, 'inferred', reason, syms.length));
    switch (site.nameIs) {
      case 'config-key': {
        const exact = keys.byQname.get(name) ?? [];
        if (exact.length) return all(exact, `key \`${name}\` of ${where(exact)}, matched by its string`);
        if (!name.includes('.')) return [];
        const tail = keys.bySuffix(name);
        if (tail.length === 1) return [edge(tail[0]!, 'inferred', `key \`${tail[0]!.qname}\` of ${where(tail)} ends with \`${name}\`, matched by its string`)];
        return tail.length > MAX_CANDIDATES ? [edge(null, 'ambiguous', `${tail.length} keys end with \`${name}\` (counted by name)`, tail.length)] : tail.map((s) => edge(s, 'ambiguous', `${tail.length} keys end with \`${name}\``, tail.length));
      }
      case 'env-var': {
        const exact = keys.byQname.get(name) ?? [];
        const relaxed = (keys.byEnvName.get(name) ?? []).filter((s) => !exact.includes(s));
        return [
          ...all(exact, `environment variable \`${name}\`, set in ${where(exact)}, matched by its name`),
          ...all(relaxed, `environment variable \`${name}\` overrides the key \`${relaxed[0]?.qname ?? ''}\` of ${where(relaxed)} (relaxed binding), matched by its name`),
        ];
      }
      case 'config-prefix': {
        const under = keys.under(name);
        return all(under, `bound to the prefix \`${name}\` (@ConfigurationProperties) in ${where(under)}`);
      }
      default:
        return [];
    }
  }

  private keyIndex?: { version: number; index: ConfigKeyIndex };

  private configKeys(): ConfigKeyIndex {
    if (this.keyIndex?.version !== this.state.configVersion) {
      this.keyIndex = { version: this.state.configVersion, index: new ConfigKeyIndex([...this.state.symbols.values()].filter((s) => s.kind === 'key')) };
    }
    return this.keyIndex.index;
  }

  /** Is the symbol a member of a type (not a free function)? */
  private isMember(s: Sym): boolean {
    const p = s.parentId !== null ? this.state.symbols.get(s.parentId) : undefined;
    return !!p && CONTAINER.has(p.kind);
  }

  /** Files of the module a receiver names through an import, [] if external, undefined if not a module. */
  private receiverModule(file: FileEntry, receiver: string): readonly number[] | undefined {
    const spec = file.language!;
    for (const imp of this.state.importsByFile.get(file.id) ?? []) {
      if (imp.wildcard) continue;
      const isModuleBinding =
        (imp.name === null && (imp.local ?? (spec.scheme === 'py' ? imp.module : imp.module.split('/').pop())) === receiver) ||
        (spec.scheme === 'go' && imp.local === null && imp.module.split('/').pop() === receiver);
      if (isModuleBinding) return imp.targets;
      if (spec.scheme === 'py' && imp.name !== null && (imp.local ?? imp.name) === receiver) {
        // `from . import parameters` then `parameters.prepare_headers()`: the submodule, named from this file's package.
        const sub = this.modules.pythonModule(submodule(file, imp.module, imp.name));
        if (sub.length) return sub;
      }
    }
    // A package's `__init__` is the package's namespace, where importing a submodule binds its name:
    // after `from .protocols import *` there, `protocols.__all__` is the submodule's.
    // A name the file defines itself shadows that.
    const defined = file.moduleSymbolId !== null && file.moduleSymbolId !== undefined && this.childrenNamed(file.moduleSymbolId, receiver).length > 0;
    if (spec.scheme === 'py' && file.rel.endsWith('__init__.py') && /^\w+$/.test(receiver) && !defined) {
      const wanted = `${file.moduleName}.${receiver}`;
      const imported = (imp: Import) => {
        const m = absolutePython(file, imp.module);
        return m === wanted || m.startsWith(`${wanted}.`);
      };
      if ((this.state.importsByFile.get(file.id) ?? []).some(imported)) {
        const sub = this.modules.pythonModule(wanted);
        if (sub.length) return sub;
      }
    }
    return undefined;
  }

  label(s: Sym): string {
    const p = s.parentId !== null ? this.state.symbols.get(s.parentId) : undefined;
    return p && p.kind !== 'module' ? `${p.name}.${s.name}` : s.name;
  }
}

