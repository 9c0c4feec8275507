import { ResolutionStore, type ApplyResult } from './store.js';
import type { Db } from '../../store/db.js';
import { ResolverUnavailableError, type EdgeResolver, type ReadyHint, type ResolverContext, type ResolverUnit, type SymbolQuestion } from './types.js';

/*
 * The enrichment pass: runs resolvers in the background and writes what they
 * prove into the graph. Never on the query path (queries read SQLite only).
 *
 *  - prioritised: symbols just queried and files open in an editor first
 *    (prioritize() may be called while it runs), then every file not yet
 *    enriched at its current content, then methods that calls may dispatch
 *    through (implementation requests);
 *  - throttled: a pause between units and an `idle` gate the host uses to
 *    yield to the user (VS Code: wait while they type);
 *  - cancellable: an AbortSignal stops it between two requests;
 *  - resumable: progress is stored per file and content hash (and per
 *    symbol), so a pass stopped by a reload or a budget carries on;
 *  - safe against edits: each batch is applied only if the structural memory
 *    did not change while the resolver worked, else the unit is queued again.
 */

export interface EnrichOptions {
  readonly root: string;
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  readonly onProgress?: (p: EnrichProgress) => void;
  /** Pause between units, ms (default 0 headless; the editor passes more). */
  readonly pauseMs?: number;
  /** Resolves when the user is idle; awaited before each unit. */
  readonly idle?: () => Promise<void>;
  /** Stop after this many ms; the rest is done by the next pass. */
  readonly budgetMs?: number;
  /** Ask `implementation` for methods calls may dispatch through (default true). */
  readonly dispatch?: boolean;
  /** Limit the broad pass to these files (workspace-relative paths); default all. */
  readonly files?: readonly string[];
  /** Re-resolve files already enriched at their current content. */
  readonly force?: boolean;
  /** Search references for callables left without any caller after the file pass (default true). */
  readonly orphans?: boolean;
  /** At most this many such searches per pass, functions before methods (default 500); the next pass continues. */
  readonly orphanLimit?: number;
}

export interface EnrichProgress {
  readonly source: string;
  readonly done: number;
  readonly total: number;
  readonly current?: string;
}

export interface ResolverReport {
  readonly source: string;
  languages: readonly string[];
  state: 'complete' | 'partial' | 'unavailable' | 'cancelled';
  message?: string;
  files: number;
  symbols: number;
  confirmed: number;
  refuted: number;
  added: number;
  implementations: number;
  staleBatches: number;
  notes: string[];
  startMs: number;
  ms: number;
  pending: number;
}

export interface EnrichReport {
  readonly resolvers: readonly ResolverReport[];
  readonly ms: number;
}

/** One resolver's pass in a line: the CLI's report, the extension's log and `tenure watch` print the same. */
export function describeResolverReport(x: ResolverReport): string {
  return (
    `${x.source}: ${x.state}${x.message ? ` — ${x.message}` : ''}; ${x.files} files, ${x.symbols} symbols; ` +
    `${x.confirmed} edges confirmed, ${x.refuted} refuted, ${x.added} added, ${x.implementations} implementations proven` +
    `${x.staleBatches ? `; ${x.staleBatches} batches re-queued because files changed meanwhile` : ''}${x.pending ? `; ${x.pending} units left for the next pass` : ''} (${(x.ms / 1000).toFixed(1)} s)`
  );
}

type Unit = { kind: 'file'; id: number; path: string; language: string } | { kind: 'symbol'; sid: string; want: readonly SymbolQuestion[] };

const RESOLUTION_STATUS_KEY = 'resolution.status';

/** The structural generation each resolver last worked against, across passes: files changed since are announced to its server. */
const seenGeneration = new WeakMap<EdgeResolver, string>();

export class EnrichmentPass {
  private readonly store: ResolutionStore;
  private readonly high: Unit[] = [];
  private readonly highKeys = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly resolvers: readonly EdgeResolver[],
    private readonly options: EnrichOptions,
  ) {
    this.store = new ResolutionStore(db);
  }

  /** Puts symbols (ids) and files (paths) at the front of the queue; callable while the pass runs. */
  async prioritize(p: { symbols?: readonly string[]; files?: readonly string[] }): Promise<void> {
    for (const sid of p.symbols ?? []) this.pushHigh({ kind: 'symbol', sid, want: ['callers', 'implementations'] });
    if (p.files?.length) {
      const rows = await this.db.all<{ id: number; path: string; language: string }>(
        `SELECT id, path, language FROM files WHERE skip_reason IS NULL AND language IS NOT NULL AND path IN (SELECT value FROM json_each(?))`,
        [JSON.stringify(p.files)],
      );
      for (const r of rows) this.pushHigh({ kind: 'file', id: r.id, path: r.path, language: r.language });
    }
  }

  private pushHigh(u: Unit): void {
    const key = u.kind === 'file' ? `f:${u.path}` : `s:${u.sid}`;
    if (this.highKeys.has(key)) return;
    this.highKeys.add(key);
    this.high.push(u);
  }

  async run(): Promise<EnrichReport> {
    const t0 = performance.now();
    const reports: ResolverReport[] = [];
    for (const r of this.resolvers) {
      if (this.options.signal?.aborted) break;
      reports.push(await this.runOne(r, t0));
    }
    await this.saveStatus(reports);
    return { resolvers: reports, ms: performance.now() - t0 };
  }

  private log(m: string): void {
    this.options.log?.(m);
  }

  private async readyHint(languages: readonly string[]): Promise<ReadyHint> {
    const probes = await this.db.all<{ path: string; line: number; col: number }>(
      `SELECT f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols s ON s.id = e.dst_id
         WHERE e.kind = 'call' AND e.tier IN ('inferred', 'resolved') AND s.file_id != e.file_id AND f.language IN (SELECT value FROM json_each(?))
         ORDER BY e.id LIMIT 5`,
      [JSON.stringify(languages)],
    );
    return probes.length ? { file: probes[0]!.path, probes } : {};
  }

  private async runOne(resolver: EdgeResolver, t0: number): Promise<ResolverReport> {
    const start = performance.now();
    const report: ResolverReport = {
      source: resolver.source, languages: resolver.languages ?? [], state: 'complete', files: 0, symbols: 0, confirmed: 0, refuted: 0, added: 0, implementations: 0,
      staleBatches: 0, notes: [], startMs: start - t0, ms: 0, pending: 0,
    };
    const signal = this.options.signal ?? new AbortController().signal;
    const add = (res: ApplyResult) => {
      report.confirmed += res.confirmed;
      report.refuted += res.refuted;
      report.added += res.added;
      report.implementations += res.implementations;
    };
    try {
      const ctx: ResolverContext = { root: this.options.root, signal, log: (m) => this.log(`${resolver.source}: ${m}`), readyHint: await this.readyHint(resolver.languages ?? []) };
      await resolver.start(ctx);
      // Batch resolvers learn their languages from their artifact when they start.
      const languages = resolver.languages ?? [];
      report.languages = languages;

      if (resolver.units.includes('workspace')) {
        const gen = await this.store.generation();
        const batch = await resolver.resolve({ kind: 'workspace' }, ctx);
        const res = await this.store.apply(resolver.source, resolver.tier, batch, gen);
        if (res.stale) {
          report.staleBatches++;
          report.state = 'partial';
          report.message = 'the workspace changed while the index was read; run again';
        }
        add(res);
        report.files = batch.coveredFiles?.length ?? 0;
        report.implementations += await this.store.deriveOverrides();
        report.notes.push(...(batch.notes ?? []).slice(0, 20));
        return report;
      }

      // The queue: priority units, then files not enriched at their content, then dispatch roots.
      const lowFiles = (this.options.force ? await this.store.filesWithLanguage(languages) : await this.store.pendingFiles(resolver.source, languages))
        .filter((f) => !this.options.files || this.options.files.includes(f.path))
        .map((f): Unit => ({ kind: 'file', id: f.id, path: f.path, language: f.language }));
      const low: Unit[] = [...lowFiles];
      // Dispatch roots need implementation requests; a server without them (pyright) proves overrides from resolved inheritance instead.
      if (resolver.units.includes('symbol') && this.options.dispatch !== false && (resolver.questions ?? ['implementations']).includes('implementations')) {
        const roots = await this.store.dispatchRoots(languages, resolver.source);
        for (const r of roots) if (!this.options.files || this.options.files.includes(r.at.path)) low.push({ kind: 'symbol', sid: r.sid, want: ['implementations'] });
      }
      const requeued = new Set<string>();
      const total = () => done.size + this.high.length - hi + low.length;
      const deadline = this.options.budgetMs !== undefined ? performance.now() + this.options.budgetMs : Infinity;
      let lastGen = seenGeneration.get(resolver) ?? (await this.store.generation());
      const done = new Set<string>();
      let hi = 0;
      const nextHigh = (): Unit | undefined => {
        // Every resolver walks the whole priority list (entries added while it runs included).
        while (hi < this.high.length) {
          const u = this.high[hi++]!;
          if (u.kind === 'file' && !languages.includes(u.language)) continue;
          if (u.kind === 'symbol' && !resolver.units.includes('symbol')) continue;
          return u;
        }
        return undefined;
      };
      // Once the files are done: callables still without a caller get a references search, so a
      // call the inventory never recorded cannot make the answer "no callers".
      let orphansQueued = !(resolver.units.includes('symbol') && this.options.orphans !== false && (resolver.questions ?? ['callers']).includes('callers'));
      for (;;) {
        let unit = nextHigh() ?? low.shift();
        if (!unit && !orphansQueued && !signal.aborted) {
          orphansQueued = true;
          for (const o of await this.store.uncalledCallables(languages, resolver.source, this.options.orphanLimit ?? 500)) {
            if (!this.options.files || this.options.files.includes(o.path)) low.push({ kind: 'symbol', sid: o.sid, want: ['callers'] });
          }
          unit = low.shift();
        }
        if (!unit) break;
        if (signal.aborted) {
          report.state = 'cancelled';
          report.pending = this.high.length - hi + low.length + 1;
          break;
        }
        if (performance.now() > deadline) {
          report.state = 'partial';
          report.message = `stopped after its ${Math.round(this.options.budgetMs! / 1000)} s budget; the next pass resumes`;
          report.pending = this.high.length - hi + low.length + 1;
          break;
        }
        await this.options.idle?.();
        const gen = await this.store.generation();
        if (gen !== lastGen) {
          // Files changed: tell the server before asking it anything more.
          const changed = await this.store.filesChangedSince(Number(lastGen));
          await resolver.changed?.(changed);
          lastGen = gen;
        }
        seenGeneration.set(resolver, gen);
        const key = unit.kind === 'file' ? `f:${unit.path}` : `s:${unit.sid}`;
        if (done.has(key)) continue;
        const built = await this.buildUnit(unit);
        if (!built) continue;
        this.options.onProgress?.({ source: resolver.source, done: done.size, total: total(), current: unit.kind === 'file' ? unit.path : unit.sid });
        const batch = await resolver.resolve(built, { root: this.options.root, signal, log: (m) => this.log(`${resolver.source}: ${m}`) });
        const res = await this.store.apply(resolver.source, resolver.tier, batch, gen);
        if (res.stale) {
          report.staleBatches++;
          if (!requeued.has(key)) {
            requeued.add(key);
            low.push(unit);
          }
          continue;
        }
        add(res);
        for (const n of batch.notes ?? []) if (report.notes.length < 20) report.notes.push(n);
        if (unit.kind === 'file') report.files++;
        else {
          report.symbols++;
          await this.store.markSymbol(unit.sid, resolver.source, unit.want);
        }
        done.add(key);
        if (this.options.pauseMs) await new Promise((r) => setTimeout(r, this.options.pauseMs));
      }
      if (report.staleBatches && report.state === 'complete') report.state = 'partial';
      report.implementations += await this.store.deriveOverrides();
    } catch (e) {
      if (ResolverUnavailableError.is(e)) {
        report.state = 'unavailable';
        report.message = e.message;
        this.log(e.message);
      } else if (signal.aborted) {
        report.state = 'cancelled';
      } else {
        report.state = 'unavailable';
        report.message = `${resolver.source} failed: ${(e as Error).message}`;
        this.log(report.message);
      }
    } finally {
      report.ms = performance.now() - start;
    }
    return report;
  }

  private async buildUnit(unit: Unit): Promise<ResolverUnit | undefined> {
    if (unit.kind === 'file') {
      const u = await this.store.fileUnit(unit.id);
      return u ? { kind: 'file', path: unit.path, language: unit.language, sites: u.sites, symbols: u.symbols } : undefined;
    }
    const s = await this.store.symbolQuery(unit.sid);
    return s ? { kind: 'symbol', symbol: s, language: s.language, want: unit.want } : undefined;
  }

  private async saveStatus(reports: readonly ResolverReport[]): Promise<void> {
    const status: Record<string, unknown> = await resolutionStatus(this.db);
    for (const r of reports) {
      status[r.source] = { state: r.state, languages: r.languages, ...(r.message ? { message: r.message } : {}), at: Date.now(), files: r.files, pending: r.pending, ms: Math.round(r.ms) };
    }
    await this.db.write((db) =>
      db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [RESOLUTION_STATUS_KEY, JSON.stringify(status)]),
    );
  }
}

/** What the last passes said about each resolver, for answers and `tenure status`. */
export async function resolutionStatus(db: Db): Promise<Record<string, { state: string; languages?: string[]; message?: string; at: number; files: number; pending: number }>> {
  const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [RESOLUTION_STATUS_KEY]);
  return row ? JSON.parse(row.value) : {};
}
