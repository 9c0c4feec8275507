import * as fs from 'node:fs';
import * as path from 'node:path';
import { SiteText } from '../../enrichment/siteText.js';
import {
  ResolverUnavailableError,
  type EdgeResolver,
  type ImplementationFact,
  type ResolutionBatch,
  type ResolverContext,
  type ResolverUnit,
  type SiteVerdict,
  type SymbolAnchor,
} from '../../enrichment/types.js';
import { readScipIndex, type ScipIndexData } from './reader.js';

/*
 * A SCIP index as a resolver: same trust as a language server (a compiler
 * produced it). It answers file units from the loaded index, so the pass's
 * resume, priorities and freshness apply to it as to any other resolver.
 *
 * Each reference occurrence is a use site whose target the indexer proved: a
 * symbol defined in the workspace confirms or adds that edge and refutes the
 * inventory's other candidates; a symbol defined outside (a library) refutes
 * them all. Implementation relationships become resolved dispatch.
 *
 * Freshness: an index describes files as they were when it was made. A file
 * modified after the index file was written is not read from it.
 */
export interface ScipResolverOptions {
  /** Produces the index before it is read (a batch indexer run). */
  readonly produce?: (ctx: ResolverContext) => Promise<void>;
  /** The languages it will cover, when known before the index is read (an indexer run). */
  readonly languages?: readonly string[];
  /** The type checker behind the indexer (scip-python runs pyright's): coverage shared with the language server. */
  readonly checker?: string;
  /** Run only as a first pass (see EdgeResolver.firstPass). */
  readonly firstPass?: boolean;
  /** Pending files below which the first pass is not worth its start-up (EdgeResolver.firstPassMinFiles). */
  readonly firstPassMinFiles?: number;
}

export class ScipResolver implements EdgeResolver {
  readonly tier = 'resolved' as const;
  readonly units = ['file'] as const;
  languages: readonly string[] | undefined;
  readonly checker: string | undefined;
  readonly firstPass: boolean;
  readonly firstPassMinFiles: number | undefined;
  /** An index lists every occurrence in its documents, not only the inventory's sites. */
  readonly findsAllUses = true;
  private data: ScipIndexData | undefined;
  private indexMtime = 0;
  private text: SiteText | undefined;
  private readonly produce: ((ctx: ResolverContext) => Promise<void>) | undefined;

  constructor(
    readonly indexFile: string,
    readonly source = 'scip',
    options: ScipResolverOptions = {},
  ) {
    this.produce = options.produce;
    this.languages = options.languages;
    this.checker = options.checker;
    this.firstPass = options.firstPass ?? false;
    this.firstPassMinFiles = options.firstPassMinFiles;
  }

  get index(): ScipIndexData | undefined {
    return this.data;
  }

  async start(ctx: ResolverContext): Promise<void> {
    if (this.produce) await this.produce(ctx);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.indexFile);
    } catch (e) {
      throw new ResolverUnavailableError(this.source, `No SCIP index at ${this.indexFile}: ${(e as Error).message}`, { cause: e });
    }
    // index.scip at the workspace root is the repository's: a FIFO or a link to a device there would never end.
    if (!stat.isFile()) throw new ResolverUnavailableError(this.source, `${this.indexFile} is not a regular file (a FIFO, socket or device): not read`);
    try {
      this.data = readScipIndex(this.indexFile, ctx.root);
    } catch (e) {
      throw new ResolverUnavailableError(this.source, `${this.indexFile} is not a readable SCIP index: ${(e as Error).message}`, { cause: e });
    }
    this.indexMtime = stat.mtimeMs;
    this.text = new SiteText(ctx.root);
    this.languages ??= [...new Set([...this.data.documents.values()].map((d) => d.language))];
    ctx.log(`read ${this.data.documents.size} documents from ${path.basename(this.indexFile)} (${this.data.tool})`);
  }

  async resolve(unit: ResolverUnit, ctx: ResolverContext): Promise<ResolutionBatch> {
    const data = this.data;
    if (!data || unit.kind !== 'file') return { sites: [], implementations: [] };
    const doc = data.documents.get(unit.path);
    if (!doc) return { sites: [], implementations: [], notes: [`${unit.path} is not in the SCIP index`] };
    try {
      if (fs.statSync(path.join(ctx.root, unit.path)).mtimeMs > this.indexMtime + 1) {
        return { sites: [], implementations: [], notes: [`${unit.path} changed after the SCIP index was made; not read from it`] };
      }
    } catch {
      return { sites: [], implementations: [] };
    }
    const anchor = (symbol: string): SymbolAnchor => {
      const def = data.definitions.get(symbol);
      return def ? { at: def } : { external: symbol };
    };
    // Occurrences at one position (a shorthand property names two symbols) form one verdict.
    const byPos = new Map<string, { at: (typeof doc.references)[number]['at']; symbols: Set<string>; role?: 'read' | 'write' }>();
    for (const r of doc.references) {
      const key = `${r.at.line}:${r.at.col}`;
      const e = byPos.get(key) ?? { at: r.at, symbols: new Set<string>() };
      e.symbols.add(r.symbol);
      if (r.role) e.role = r.role;
      byPos.set(key, e);
    }
    const sites: SiteVerdict[] = [];
    const inventoryAt = new Map(unit.sites.map((s) => [`${s.at.line}:${s.at.col}`, s.name]));
    for (const [key, { at, symbols, role }] of byPos) {
      const meant = [...symbols].map((s) => memberOfModule(data, s, inventoryAt.get(key)));
      const targets = meant.map(anchor);
      // A use the inventory did not record becomes an edge only if it reaches the workspace.
      if (!inventoryAt.has(key) && targets.every((t) => 'external' in t)) continue;
      const text = this.text!;
      // A name in an import statement or a `global` declaration is no read: an import, a reference.
      const use = text.inImport(at) ? ('import' as const) : text.declaresScope(at) ? ('reference' as const) : undefined;
      sites.push({
        site: at,
        targets,
        complete: true,
        ...(inventoryAt.has(key) ? {} : { kind: use ?? text.kindAt(at) }),
        ...(use ? { use } : { role: role === 'write' ? 'write' : text.roleAt(at) }),
        // WriteAccess where the indexer records it; else the text decides. A ReadAccess alone says
        // little: scip-python marks every reference so, assignments included.
        reason: `SCIP (${data.tool}): \`${shortName(meant[0]!)}\``,
      });
    }
    const implementations: ImplementationFact[] = [];
    for (const [impl, base] of doc.implementations) {
      const i = data.definitions.get(impl);
      const b = data.definitions.get(base);
      if (i && b) implementations.push({ impl: { at: i }, base: { at: b }, reason: `SCIP (${data.tool}): implements \`${shortName(base)}\`` });
    }
    return { sites, implementations, coveredFiles: [unit.path] };
  }

  async dispose(): Promise<void> {
    this.data = undefined;
  }
}

/**
 * scip-python names the module for an attribute it reached through a star
 * re-export (`capi.geos_intersection`, where `capi`'s `__init__` does
 * `from .topology import *`: the occurrence is `topology/__init__:`, the
 * module that defines it). The use means that module's member of the site's
 * name, when the index defines one; a module named at a site of its own name
 * (`os.path`, `from pkg import mod`) stays the module.
 */
function memberOfModule(data: ScipIndexData, symbol: string, name: string | undefined): string {
  const MODULE = '/__init__:';
  if (!name || !symbol.endsWith(MODULE)) return symbol;
  const prefix = symbol.slice(0, -MODULE.length);
  if (prefix.replace(/`/g, '').split(/[ ./]/).pop() === name) return symbol;
  for (const suffix of ['.', '().', '#']) {
    const member = `${prefix}/${name}${suffix}`;
    if (data.definitions.has(member)) return member;
  }
  return symbol;
}

/** `scip-typescript npm pkg 1.0 src/`a.ts`/A#m().` → `A#m().` */
function shortName(symbol: string): string {
  const parts = symbol.split(' ');
  const desc = parts.slice(4).join(' ') || symbol;
  return desc.replace(/^.*\//, '');
}
