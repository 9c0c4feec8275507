import type { BytecodeAnalysis, CallFact, ImplFact } from './analysis.js';
import { SourceText } from './sourceText.js';
import type { SourceIndex } from './sourceIndex.js';
import {
  ResolverUnavailableError,
  type EdgeResolver,
  type ImplementationFact,
  type ResolutionBatch,
  type ResolverContext,
  type ResolverUnit,
  type SiteQuery,
  type SiteVerdict,
  type SymbolAnchor,
} from '../../enrichment/types.js';

/**
 * Call edges read from class files. Each `invoke*` names the method the
 * compiler chose, so a verdict at a source site is `resolved` and complete:
 * the inventory's other guesses for that site are refuted. Dispatch below the
 * static type is stated as implementation facts (class files record every
 * `implements` and override). Code that exists only in bytecode (generated
 * classes, bridges) has its sites in the class file itself, attributed to the
 * generated symbols the importer added.
 */

export interface BytecodeInput {
  readonly analysis: BytecodeAnalysis;
  readonly index: SourceIndex;
  /** Source files whose class files are older than the source: their sites are not answered (the lines may have moved). */
  readonly staleSources: ReadonlySet<string>;
}

const BYTECODE_SOURCE = 'bytecode';

export class BytecodeResolver implements EdgeResolver {
  readonly source = BYTECODE_SOURCE;
  readonly tier = 'resolved' as const;
  readonly units: readonly ResolverUnit['kind'][] = ['file', 'workspace'];
  readonly languages = ['java'];
  private input: BytecodeInput | undefined;
  private text: SourceText | undefined;

  /** `load` reads the class files and links them (the importer passes what it already has). */
  constructor(private readonly load: (ctx: ResolverContext) => Promise<BytecodeInput | undefined>) {}

  async start(ctx: ResolverContext): Promise<void> {
    this.input = await this.load(ctx);
    this.text = new SourceText(ctx.root);
    if (!this.input || this.input.analysis.types.size === 0) {
      throw new ResolverUnavailableError(this.source, 'No compiled classes found (target/classes, build/classes, jars): build the project (mvn compile, gradle classes) and index again to get bytecode-resolved edges.');
    }
  }

  async resolve(unit: ResolverUnit, ctx: ResolverContext): Promise<ResolutionBatch> {
    const input = this.input;
    if (!input || !this.text) throw new ResolverUnavailableError(this.source, 'bytecode resolver used before start()');
    if (unit.kind === 'symbol') return { sites: [], implementations: [] };
    const { analysis, index, staleSources } = input;
    const notes: string[] = [];
    let calls: readonly CallFact[];
    let impls: readonly ImplFact[];
    let covered: string[];
    if (unit.kind === 'file') {
      if (staleSources.has(unit.path)) {
        return { sites: [], implementations: [], notes: [`${unit.path}: its class files are older than the source; rebuild for bytecode edges`] };
      }
      calls = analysis.calls.filter((c) => c.inSource && c.site.path === unit.path);
      impls = analysis.implementations.filter((i) => index.bySid.get(i.impl)?.path === unit.path);
      covered = calls.length || impls.length || analysis.types.size ? [unit.path] : [];
    } else {
      calls = analysis.calls.filter((c) => !c.inSource || !staleSources.has(c.site.path));
      impls = analysis.implementations;
      const compiled = new Set<string>();
      for (const t of analysis.types.values()) if (t.sourcePath && (t.status === 'source' || t.status === 'anonymous')) compiled.add(t.sourcePath);
      covered = [...compiled].filter((p) => !staleSources.has(p));
      if (staleSources.size) notes.push(`${staleSources.size} source file(s) changed after their classes were compiled; rebuild for bytecode edges there: ${[...staleSources].slice(0, 5).join(', ')}${staleSources.size > 5 ? ', …' : ''}`);
    }
    // A fact about a method whose source changed after it was compiled is not answered either: the compiled signature may be gone.
    const fresh = (sid: string) => !staleSources.has(index.bySid.get(sid)?.path ?? '');
    calls = calls.filter((c) => c.targets.every((t) => !('sid' in t) || fresh(t.sid)));
    impls = impls.filter((i) => fresh(i.base) && fresh(i.impl));
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('cancelled');
    const sites = placeSites(calls, unit.kind === 'file' ? unit.sites : undefined, this.text);
    const implementations: ImplementationFact[] = impls.map((i) => ({ base: { sid: i.base }, impl: { sid: i.impl }, reason: i.reason }));
    return { sites, implementations, coveredFiles: covered, notes: [...notes, ...analysis.notes.slice(0, 20)] };
  }

  async dispose(): Promise<void> {
    this.input = undefined;
    this.text = undefined;
  }
}

const KIND_MATCH: Record<string, readonly string[]> = {
  call: ['call'],
  instantiate: ['instantiate', 'reference'],
  reference: ['reference', 'call'],
};

/**
 * Puts line-only call facts on the column of the name as written. Facts on one
 * line with the same name are matched to its occurrences in order; when they
 * disagree on the target and there are several, every occurrence gets every
 * target and refutes nothing (the class file cannot say which is which).
 */
export function placeSites(calls: readonly CallFact[], sites: readonly SiteQuery[] | undefined, text: SourceText): SiteVerdict[] {
  const out: SiteVerdict[] = [];
  const groups = new Map<string, CallFact[]>();
  for (const c of calls) {
    const key = `${c.site.path}\0${c.site.line}\0${c.name}\0${c.inSource ? 1 : 0}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  const siteCols = new Map<string, SiteQuery[]>();
  for (const s of sites ?? []) {
    const key = `${s.at.path}\0${s.at.line}\0${s.name}`;
    const list = siteCols.get(key) ?? [];
    list.push(s);
    siteCols.set(key, list);
  }
  // Generated code has no source to point into: its sites are in the class file, numbered along each line so none shares a place.
  const generatedCol = new Map<string, number>();
  for (const group of groups.values()) {
    const first = group[0]!;
    const from: SymbolAnchor = { sid: first.from };
    if (!first.inSource) {
      for (const c of group) {
        const key = `${c.site.path}\0${c.site.line}`;
        const col = generatedCol.get(key) ?? 0;
        generatedCol.set(key, col + 1);
        out.push({ site: { path: c.site.path, line: c.site.line, col }, targets: c.targets, complete: false, kind: c.kind, from: { sid: c.from }, reason: c.reason });
      }
      continue;
    }
    const { path: p, line } = first.site;
    let cols = columnsFor(p, line, first.name, first.kind, siteCols, text);
    let at = line;
    let implicit = false;
    if (!cols.length) {
      // Constructor chaining is written `super(…)` / `this(…)`; a call split over lines may be written below the line javac records.
      const word = /^(this|super)\(/.exec(first.reason)?.[1];
      if (word) cols = text.occurrences(p, line, word);
      for (let d = 1; !cols.length && d <= 3; d++) {
        const below = columnsFor(p, line + d, first.name, first.kind, siteCols, text);
        if (below.length) {
          cols = below;
          at = line + d;
        }
      }
    }
    if (!cols.length) {
      // A call the compiler inserted (enhanced for, try-with-resources, autoboxing, string switch): no name is written.
      const lineText = text.lines(p)?.[line - 1] ?? '';
      cols = [Math.max(0, lineText.search(/\S/))];
      implicit = true;
    }
    const distinct = new Set(group.map((c) => JSON.stringify(c.targets)));
    if (distinct.size === 1 || cols.length === 1) {
      const targets = distinct.size === 1 ? first.targets : uniqueTargets(group);
      const complete = distinct.size === 1 && !implicit && !first.partial;
      for (let i = 0; i < Math.max(1, Math.min(cols.length, group.length)); i++) {
        const c = group[Math.min(i, group.length - 1)]!;
        out.push({ site: { path: p, line: at, col: cols[i] ?? cols[0]! }, targets, complete, kind: c.kind, from, reason: implicit ? `implicit call: ${c.reason}` : c.reason });
      }
    } else if (cols.length === group.length) {
      // Same name, different targets, one occurrence each: evaluation order (the class file's) is not always text order.
      const targets = uniqueTargets(group);
      for (const col of cols) out.push({ site: { path: p, line: at, col }, targets, complete: false, kind: first.kind, from, reason: `${group.length} calls named \`${first.name}\` on this line reach ${targets.length} methods; the class file does not say which is at which column: ${group.map((g) => g.reason).join('; ')}` });
    } else {
      const targets = uniqueTargets(group);
      for (const col of cols) out.push({ site: { path: p, line: at, col }, targets, complete: false, kind: first.kind, from, reason: `calls named \`${first.name}\` on this line (bytecode): ${group.map((g) => g.reason).join('; ')}` });
    }
  }
  return out;
}

function columnsFor(p: string, line: number, name: string, kind: string, siteCols: Map<string, SiteQuery[]>, text: SourceText): number[] {
  const fromSites = (siteCols.get(`${p}\0${line}\0${name}`) ?? []).filter((s) => (KIND_MATCH[kind] ?? [kind]).includes(s.kind)).map((s) => s.at.col);
  if (fromSites.length) return [...new Set(fromSites)].sort((a, b) => a - b);
  const all = text.occurrences(p, line, name);
  if (all.length < 2) return all;
  // Prefer occurrences written the way this kind of use is written: `name(`, `::name`, `new Name`.
  const lineText = text.lines(p)?.[line - 1] ?? '';
  const fits = all.filter((col) => {
    const before = lineText.slice(0, col).trimEnd();
    const after = lineText.slice(col + name.length).trimStart();
    if (kind === 'instantiate') return /\bnew(\s+[\w.]+\.)?$/.test(before) || before.endsWith('new') || after.startsWith('::new');
    if (before.endsWith('::')) return true;
    return kind === 'call' && (after.startsWith('(') || after.startsWith('<'));
  });
  return fits.length ? fits : all;
}

function uniqueTargets(group: readonly CallFact[]): SymbolAnchor[] {
  const seen = new Set<string>();
  const out: SymbolAnchor[] = [];
  for (const c of group) {
    for (const t of c.targets) {
      const k = JSON.stringify(t);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(t);
      }
    }
  }
  return out;
}
