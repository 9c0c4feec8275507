import * as path from 'node:path';
import type { EdgeBinding, EdgeKind, FileFacts, SymbolKind } from '../../model/structural.js';
import type { EdgeTier } from '../../model/tiers.js';
import type { Skip } from '../../model/skips.js';
import { languageById, type LanguageSpec } from '../inventory/languages.js';
import { moduleIdentity, moduleSid, nameDefinitions } from '../inventory/naming.js';
import type { SiteTuple } from '../schema.js';
import { PendingSites } from './pendingSites.js';
import { FileTexts } from './fileTexts.js';
import { fnv1a } from '../../../shared/hash.js';
import { CompactMultimap } from '../../../shared/compactMultimap.js';
import { push } from '../../../shared/maps.js';

export type { Site } from './pendingSites.js';

/**
 * The structural memory held in memory by whoever indexes (the extension,
 * `tenure index`, `tenure watch`), so that a changed file is re-resolved in
 * milliseconds. SQLite is the copy every query reads; this is the indexer's
 * working set, loaded from SQLite at start.
 */

export interface FileEntry {
  id: number;
  rel: string;
  language: LanguageSpec | undefined;
  hash: string | null;
  size: number;
  mtimeMs: number;
  /** Why the inventory did not read it, if it did not. */
  skip: Skip | null;
  errorNodes: number;
  /** Member accesses by a computed name (`obj[expr]`), which no edge names. */
  computedAccesses: number;
  parseMs: number | null;
  packageName: string | null;
  /** Dotted module name (Python), import path (Go), path (TypeScript), package (Java). */
  moduleName: string;
  moduleSymbolId: number | null;
}

export interface Sym {
  id: number;
  /** The sid's hash: which of a file's definitions a new parse of it had before (`addFacts`). */
  readonly sidKey: number;
  name: string;
  qname: string;
  kind: SymbolKind;
  fileId: number;
  /** Enclosing symbol; the module symbol for top-level definitions; null for the module itself. */
  parentId: number | null;
  exported: boolean;
}

/**
 * What only the store needs of a symbol, held as text from the file's intake
 * until its write (`unwrittenSymbols`): its id, its SCIP-style id (sid) and
 * its place. Nothing resolves by a sid or a place; as objects they were a
 * quarter of a large index's working set.
 */
export type SymbolRecord = readonly [id: number, sid: string, line: number, col: number, endLine: number, endCol: number];

export interface Import {
  id: number;
  fileId: number;
  ownerId: number;
  module: string;
  name: string | null;
  local: string | null;
  wildcard: boolean;
  line: number;
  col: number;
  /** Workspace files the module resolves to (several for a Java or Go package); empty when external. */
  targets: readonly number[];
}

export interface Edge {
  siteId: number | null;
  srcId: number;
  dstId: number | null;
  kind: EdgeKind;
  /** The name as written at the site. */
  name: string;
  tier: EdgeTier;
  source: string;
  reason: string;
  candidates: number;
  fileId: number;
  line: number;
  col: number;
  /** How a call is bound where it is not the ordinary way (`super.m()`, a call through a property). */
  binding: EdgeBinding | null;
}

function remove<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

export class StructuralState {
  readonly files = new Map<number, FileEntry>();
  readonly fileByRel = new Map<string, number>();
  readonly symbols = new Map<number, Sym>();
  /** Symbols by name: most names have one (a list for each was a twentieth of the working set). */
  private readonly symbolsByName = new CompactMultimap<string, Sym>();
  readonly symbolsByFile = new Map<number, Sym[]>();
  readonly children = new Map<number, Sym[]>();
  /**
   * Sites of the files being written now, as text until resolution reads them. Every other file's sites are in the
   * store (`file_sites`), read back when a change reaches them: a working set holding every site of a large
   * repository was most of its memory.
   */
  readonly pendingSites: PendingSites;
  /** The records (SymbolRecord) of the symbols of the files being written now, one JSON text per file. */
  readonly unwrittenSymbols: FileTexts;
  /**
   * Site name → the files with a site of that name: which stored files a definition that came or went reaches.
   * Past 16 files a name's are a set: a common name's file leaves it in constant time.
   */
  private readonly siteFilesByName = new CompactMultimap<string, number>(16);
  /** Files with reads of a key by its string (configuration keys, environment variables): a changed configuration file reaches them all. */
  readonly keyReadFiles = new Set<number>();
  /**
   * Per file: the distinct names its sites use, as one JSON text (read back only when the file leaves), and how
   * many sites it has. A set of strings per file held every file's own copy of every name.
   */
  private readonly sitesOfFile = new Map<number, { readonly names: string; readonly count: number }>();
  /** Sites of every indexed file. */
  siteCount = 0;
  readonly importsByFile = new Map<number, Import[]>();
  /** Resolved inheritance: type symbol → the types it extends or implements. */
  readonly supertypes = new Map<number, Set<number>>();
  /** Module name → files (Python modules, Java packages, Go import paths). */
  readonly modules = new Map<string, number[]>();
  goModules = new Map<string, string>();
  /** The name of the Python package the workspace root is, when it is one ('' when nothing names it). */
  pythonRoot = '';
  /** Moves whenever a configuration file's keys come or go: key reads resolve against them. */
  configVersion = 0;
  private next = { file: 1, symbol: 1, site: 1, import: 1 };

  constructor(spillBytes?: number) {
    this.pendingSites = new PendingSites(spillBytes);
    this.unwrittenSymbols = new FileTexts('symbols', spillBytes);
  }

  allocate(kind: keyof StructuralState['next']): number {
    return this.next[kind]++;
  }

  /** Keeps id allocation above ids loaded from the store. */
  reserve(kind: keyof StructuralState['next'], used: number): void {
    if (used >= this.next[kind]) this.next[kind] = used + 1;
  }

  /** Files a whole-workspace index found on disk, while it takes them in: see `expectFiles`. */
  private expected: ReadonlySet<string> | undefined;

  /**
   * Whether the workspace has a file: in the working set, or found by the walk of the index taking files in now.
   * A module's name depends on other files (a Python package is a folder holding `__init__.py`), and a first index
   * takes files in as their workers finish, in no set order: the name must not depend on which came first.
   */
  hasFile = (rel: string): boolean => this.fileByRel.has(rel) || (this.expected?.has(rel) ?? false);

  /** The files the walk found, until the index that found them is written (undefined then). */
  expectFiles(rels: Iterable<string> | undefined): void {
    this.expected = rels ? new Set(rels) : undefined;
  }

  addFileEntry(entry: FileEntry): void {
    this.files.set(entry.id, entry);
    this.fileByRel.set(entry.rel, entry.id);
    this.reserve('file', entry.id);
    if (entry.language && entry.moduleName) push(this.modules, moduleKey(entry.language, entry.moduleName), entry.id);
  }

  addSymbol(sym: Sym): void {
    this.symbols.set(sym.id, sym);
    this.symbolsByName.add(sym.name, sym);
    push(this.symbolsByFile, sym.fileId, sym);
    if (sym.parentId !== null) push(this.children, sym.parentId, sym);
    this.reserve('symbol', sym.id);
  }

  /** Every symbol of a name. */
  symbolsNamed(name: string): readonly Sym[] {
    return this.symbolsByName.list(name);
  }

  /** A file's stored sites, known by their ids, names and what a name is only. */
  indexSites(fileId: number, sites: readonly SiteTuple[]): void {
    this.unindexSites(fileId);
    const names = new Set<string>();
    for (const [id, , , name, , , , , , nameIs] of sites) {
      names.add(name);
      if (nameIs && nameIs !== 'receiver') this.keyReadFiles.add(fileId);
      this.reserve('site', id);
    }
    for (const name of names) this.siteFilesByName.add(name, fileId);
    if (sites.length) this.sitesOfFile.set(fileId, { names: JSON.stringify([...names]), count: sites.length });
    this.siteCount += sites.length;
  }

  /** The files with a site of this name. */
  filesWithSite(name: string): Iterable<number> {
    return this.siteFilesByName.values(name);
  }

  private unindexSites(fileId: number): void {
    const sites = this.sitesOfFile.get(fileId);
    if (!sites) return;
    for (const name of JSON.parse(sites.names) as string[]) this.siteFilesByName.delete(name, fileId);
    this.siteCount -= sites.count;
    this.sitesOfFile.delete(fileId);
    this.keyReadFiles.delete(fileId);
  }

  /** The written files' sites and symbol records are in the store now (or the working set is dropped): only the sites' names stay. */
  releasePending(): void {
    this.pendingSites.clear();
    this.unwrittenSymbols.clear();
  }

  addImport(imp: Import): void {
    push(this.importsByFile, imp.fileId, imp);
    this.reserve('import', imp.id);
  }

  /** Forgets everything a file contributed; returns the names it defined (their users need re-resolving). */
  removeFile(fileId: number, keepEntry = false): Set<string> {
    const names = new Set<string>();
    if (this.files.get(fileId)?.language?.scheme === 'config') this.configVersion++;
    for (const sym of this.symbolsByFile.get(fileId) ?? []) {
      names.add(sym.name);
      this.symbols.delete(sym.id);
      this.symbolsByName.delete(sym.name, sym);
      if (sym.parentId !== null) remove(this.children, sym.parentId, sym);
      this.children.delete(sym.id);
      this.supertypes.delete(sym.id);
    }
    this.symbolsByFile.delete(fileId);
    this.pendingSites.delete(fileId);
    this.unwrittenSymbols.delete(fileId);
    this.unindexSites(fileId);
    this.importsByFile.delete(fileId);
    const entry = this.files.get(fileId);
    if (entry && !keepEntry) {
      this.files.delete(fileId);
      this.fileByRel.delete(entry.rel);
      if (entry.language && entry.moduleName) remove(this.modules, moduleKey(entry.language, entry.moduleName), fileId);
    }
    return names;
  }

  /**
   * Adds a parsed file's facts: symbols (with ids), sites and imports. A
   * definition whose id (sid) the file had before keeps its integer id, so
   * edges from other files into it survive the edit; returns the ids kept.
   * `previous` holds the file's symbols before, by `sidKey`.
   */
  addFacts(entry: FileEntry, facts: FileFacts, previous: ReadonlyMap<number, Sym> = new Map()): Set<number> {
    const kept = new Set<number>();
    const idFor = (sidKey: number, name: string): number => {
      // The name too: two of a file's definitions whose sids share a hash share their name as well only when
      // they are overloads, one in a billion of them.
      const old = previous.get(sidKey);
      if (old && old.name === name && !kept.has(old.id)) {
        kept.add(old.id);
        return old.id;
      }
      return this.allocate('symbol');
    };
    const spec = entry.language!;
    if (spec.scheme === 'config') this.configVersion++;
    const identity = moduleIdentity(spec, entry.rel, facts.packageName, {
      hasFile: this.hasFile,
      goModules: this.goModules,
      pythonRoot: this.pythonRoot,
    });
    if (entry.language && entry.moduleName) remove(this.modules, moduleKey(entry.language, entry.moduleName), entry.id);
    entry.moduleName = spec.scheme === 'java' ? (facts.packageName ?? '') : identity.displayName;
    entry.packageName = facts.packageName ?? null;
    push(this.modules, moduleKey(spec, entry.moduleName), entry.id);

    const modSid = moduleSid(spec, identity);
    const modKey = sidKeyOf(modSid);
    const modName = spec.scheme === 'py' ? identity.displayName.split('.').pop()! : path.posix.basename(entry.rel);
    const moduleId = idFor(modKey, modName);
    entry.moduleSymbolId = moduleId;
    const lines = facts.definitions.reduce((m, d) => Math.max(m, d.range.end.line), 1);
    this.addSymbol({
      id: moduleId,
      sidKey: modKey,
      name: modName,
      qname: identity.displayName,
      kind: 'module',
      fileId: entry.id,
      parentId: null,
      exported: true,
    });
    const records: SymbolRecord[] = [[moduleId, modSid, 1, 0, lines, 0]];
    const ids: number[] = [];
    for (const { def, sid, qname } of nameDefinitions(spec, identity, facts.definitions)) {
      const sidKey = sidKeyOf(sid);
      const id = idFor(sidKey, def.name);
      ids.push(id);
      this.addSymbol({
        id,
        sidKey,
        name: def.name,
        qname,
        kind: def.kind,
        fileId: entry.id,
        parentId: def.parent >= 0 ? ids[def.parent]! : moduleId,
        exported: def.exported,
      });
      records.push([id, sid, def.nameRange.start.line, def.nameRange.start.col, def.range.end.line, def.range.end.col]);
    }
    this.unwrittenSymbols.put(entry.id, JSON.stringify(records));
    const owner = (i: number) => (i >= 0 ? ids[i]! : moduleId);
    const tuples: SiteTuple[] = [];
    for (const s of facts.sites) {
      const id = this.allocate('site');
      const tuple: SiteTuple = [id, owner(s.owner), s.kind, s.name, s.receiver ?? null, s.receiverType ?? null, s.at.line, s.at.col, s.dynamic ?? null];
      if (s.nameIs) tuple.push(s.nameIs);
      tuples.push(tuple);
    }
    this.indexSites(entry.id, tuples);
    this.pendingSites.put(entry.id, tuples);
    for (const im of facts.imports) {
      this.addImport({
        id: this.allocate('import'),
        fileId: entry.id,
        ownerId: owner(im.owner),
        module: im.module,
        name: im.name ?? null,
        local: im.local ?? null,
        wildcard: im.wildcard ?? false,
        line: im.at.line,
        col: im.at.col,
        targets: [],
      });
    }
    return kept;
  }
}

/** A sid's key in the working set: its hash, kept within a small integer (V8 stores it in the object itself). */
export function sidKeyOf(sid: string): number {
  return fnv1a(sid) & 0x3fffffff;
}

/** Modules are keyed per scheme: a Python module and a Go package may share a name. */
export function moduleKey(spec: LanguageSpec, name: string): string {
  return `${spec.scheme}:${name}`;
}

export function specOf(language: string | null): LanguageSpec | undefined {
  return language ? languageById(language) : undefined;
}
