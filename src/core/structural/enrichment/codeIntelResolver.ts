import * as path from 'node:path';
import type { EdgeKind } from '../../model/structural.js';
import { SiteText } from './siteText.js';
import {
  CodeIntelError,
  ResolverUnavailableError,
  type CodeIntel,
  type CodeLocation,
  type EdgeResolver,
  type ImplementationFact,
  type Loc,
  type ReadyHint,
  type ResolutionBatch,
  type ResolverContext,
  type ResolverUnit,
  type SiteVerdict,
  type SymbolAnchor,
  type SymbolQuestion,
} from './types.js';

export interface CodeIntelResolverOptions {
  /** Requests in flight at once (default 4): servers queue them; a few hide the round trips. */
  readonly concurrency?: number;
  /** How the pass learns what proves the server ready. */
  readonly readyHint?: ReadyHint;
}

/**
 * The language-server resolver, over any CodeIntel (a headless server Tenure
 * started, or VS Code's own). It never refutes on an empty answer:
 *
 *  - file unit: `definition` at every use site the inventory recorded. A
 *    non-empty answer is the site's complete target set: the inventory's
 *    matching candidate is confirmed, the others refuted, a target the
 *    inventory missed added; a target outside the workspace (a library, a
 *    local variable) refutes the inventory's name-matched guesses.
 *  - symbol unit: `implementation` on a method proves which methods
 *    implement or override it (resolved dispatch); `references` finds use
 *    sites the inventory missed, each then resolved by `definition` like any
 *    other site, so a reference list never stands in for a target.
 */
export class CodeIntelResolver implements EdgeResolver {
  readonly source: string;
  readonly tier = 'resolved' as const;
  readonly units = ['file', 'symbol'] as const;

  /** What the server can be asked about a symbol (pyright has no implementation request). */
  get questions(): readonly SymbolQuestion[] {
    const out: SymbolQuestion[] = [];
    if (this.intel.supports?.('implementation') ?? true) out.push('implementations');
    if (this.intel.supports?.('references') ?? true) out.push('callers');
    return out;
  }

  async changed(paths: readonly string[]): Promise<void> {
    await this.intel.changed?.(paths);
  }
  readonly languages: readonly string[];
  readonly checker: string | undefined;
  private readonly concurrency: number;
  private siteText: SiteText | undefined;

  constructor(
    readonly intel: CodeIntel,
    private readonly options: CodeIntelResolverOptions = {},
  ) {
    this.source = intel.name;
    this.languages = intel.languages;
    // The editor's server and a headless one run the same checker: what one covered, the other need not ask again.
    this.checker = intel.languages.some((l) => l === 'typescript' || l === 'javascript' || l === 'tsx') ? 'typescript' : intel.languages[0];
    this.concurrency = Math.max(1, options.concurrency ?? 4);
  }

  async start(ctx: ResolverContext): Promise<void> {
    await this.intel.ready(ctx.signal, this.options.readyHint ?? ctx.readyHint);
  }

  async resolve(unit: ResolverUnit, ctx: ResolverContext): Promise<ResolutionBatch> {
    this.siteText?.clear();
    if (unit.kind === 'file') return this.resolveFile(unit, ctx);
    if (unit.kind === 'symbol') return this.resolveSymbol(unit, ctx);
    return { sites: [], implementations: [] };
  }

  private async resolveFile(unit: Extract<ResolverUnit, { kind: 'file' }>, ctx: ResolverContext): Promise<ResolutionBatch> {
    const sites = unit.sites.filter((s) => !s.dynamic && s.name);
    const notes: string[] = [];
    let failed = 0;
    // The server holds no project for the file: every further request would fail the same way.
    let noProject: CodeIntelError | undefined;
    const verdicts = await this.pool(sites, async (s) => {
      if (noProject) return undefined;
      try {
        return await this.siteVerdict(s.at, ctx, undefined);
      } catch (e) {
        if (ResolverUnavailableError.is(e) || ctx.signal.aborted) throw e;
        failed++;
        if (CodeIntelError.is(e, 'no-project')) noProject ??= e;
        else if (notes.length < 5) notes.push(`${s.at.path}:${s.at.line}:${s.at.col} \`${s.name}\`: ${(e as Error).message}`);
        return undefined;
      }
    }, ctx.signal);
    const found = verdicts.filter((v): v is SiteVerdict => !!v);
    if (!noProject) await this.addRoles(unit, found, ctx).catch((e: unknown) => {
      if (ResolverUnavailableError.is(e) || ctx.signal.aborted) throw e;
    });
    await this.intel.release?.([unit.path]).catch(() => undefined);
    if (noProject) {
      // One line for the file, and the file is recorded as answered-without-answers: its edges say so, and the next pass does not ask again until it changes.
      notes.push(`${unit.path}: ${noProject.message}`);
      return { sites: found, implementations: [], coveredFiles: [unit.path], notes };
    }
    // A file whose requests mostly failed is not recorded as done: the next pass tries again.
    const covered = failed <= Math.max(2, sites.length / 10);
    return { sites: found, implementations: [], ...(covered ? { coveredFiles: [unit.path] } : {}), ...(notes.length ? { notes } : {}) };
  }

  /**
   * Read/write roles for the file's data uses, from the server's document
   * highlights: one request per target the file uses as data, not one per site.
   */
  private async addRoles(unit: Extract<ResolverUnit, { kind: 'file' }>, verdicts: SiteVerdict[], ctx: ResolverContext): Promise<void> {
    if (!this.intel.highlights) return;
    const dataAt = new Set(unit.sites.filter((s) => s.kind === 'read' || s.kind === 'write').map((s) => `${s.at.line}:${s.at.col}`));
    const byTarget = new Map<string, number[]>();
    verdicts.forEach((v, i) => {
      if (!dataAt.has(`${v.site.line}:${v.site.col}`)) return;
      const t = v.targets[0];
      const key = !t ? '' : 'at' in t ? `${t.at.path}:${t.at.line}:${t.at.col}` : 'sid' in t ? t.sid : t.external;
      const list = byTarget.get(key) ?? [];
      list.push(i);
      byTarget.set(key, list);
    });
    const groups = [...byTarget.values()];
    const answers = await this.pool(groups, (g) => this.intel.highlights!(verdicts[g[0]!]!.site, ctx.signal), ctx.signal);
    groups.forEach((g, gi) => {
      const roles = new Map((answers[gi] ?? []).map((h) => [`${h.at.line}:${h.at.col}`, h.role]));
      for (const i of g) {
        const role = roles.get(`${verdicts[i]!.site.line}:${verdicts[i]!.site.col}`);
        if (role === 'read' || role === 'write') verdicts[i] = { ...verdicts[i]!, role };
      }
    });
  }

  private async resolveSymbol(unit: Extract<ResolverUnit, { kind: 'symbol' }>, ctx: ResolverContext): Promise<ResolutionBatch> {
    const { symbol } = unit;
    const implementations: ImplementationFact[] = [];
    const sites: SiteVerdict[] = [];
    const notes: string[] = [];
    const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await fn();
      } catch (e) {
        if (ResolverUnavailableError.is(e) || ctx.signal.aborted) throw e;
        notes.push(`${what} ${symbol.sid}: ${(e as Error).message}`);
        return undefined;
      }
    };
    if (unit.want.includes('implementations') && (this.intel.supports?.('implementation') ?? true)) {
      const locs = (await guard('implementation', () => this.intel.implementation(symbol.at, ctx.signal))) ?? [];
      for (const l of locs) {
        if (l.external || (l.path === symbol.at.path && l.line === symbol.at.line && l.col === symbol.at.col)) continue;
        implementations.push({ base: { at: symbol.at }, impl: { at: strip(l) }, reason: `implementation (${this.source}) of \`${symbol.name}\`` });
      }
    }
    if (unit.want.includes('callers')) {
      const refs = ((await guard('references', () => this.intel.references(symbol.at, ctx.signal))) ?? []).filter((r) => !r.external);
      const text = this.text(ctx.root);
      const found = await this.pool(refs, (r) => guard('definition', () => this.siteVerdict(strip(r), ctx, text.kindAt(r))), ctx.signal);
      // A use found by a references search has only its text to tell a read from a write.
      for (const v of found) if (v) sites.push({ ...v, ...(text.declaresScope(v.site) ? { use: 'reference' as const } : { role: text.roleAt(v.site) }) });
    }
    return { sites, implementations, ...(notes.length ? { notes } : {}) };
  }

  private async siteVerdict(at: Loc, ctx: ResolverContext, kind: EdgeKind | undefined): Promise<SiteVerdict | undefined> {
    const defs = await this.intel.definition(at, ctx.signal);
    // Empty: the server does not know (or not yet). Never a refutation.
    if (!defs.length) return undefined;
    // The location is a declaration (its definition is itself), not a use.
    if (defs.some((d) => !d.external && d.path === at.path && d.line === at.line && d.col === at.col)) return undefined;
    const targets: SymbolAnchor[] = defs.map((d) => (d.external ? { external: d.path } : { at: strip(d) }));
    const where = defs.map((d) => (d.external ? path.basename(d.path) : `${d.path}:${d.line}`)).slice(0, 3).join(', ');
    return { site: at, targets, complete: true, ...(kind ? { kind } : {}), reason: `definition (${this.source}) at ${where}` };
  }

  /** Maps with at most `concurrency` requests in flight, in order; stops early when cancelled. */
  private async pool<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, signal: AbortSignal): Promise<R[]> {
    const out: R[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        if (signal.aborted) throw signal.reason ?? new Error('cancelled');
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, items.length) }, worker));
    return out;
  }

  private text(root: string): SiteText {
    this.siteText ??= new SiteText(root);
    return this.siteText;
  }

  dispose(): Promise<void> {
    return this.intel.dispose();
  }
}

function strip(l: CodeLocation): Loc {
  return { path: l.path, line: l.line, col: l.col };
}
