import { timeLeft } from '../../../shared/duration.js';
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
  /** One resolver's share of the pass ended (the pass goes on with the next): a host can show its languages' tiers at once. */
  readonly onResolverEnd?: (report: ResolverReport) => void;
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
  /**
   * First-pass resolvers (a compiler or SCIP indexer over the whole workspace):
   * `auto` (default) runs them while most files of their languages lack
   * type-checked resolution, `always` whenever files are pending, `never` not at all.
   */
  readonly firstPass?: 'auto' | 'always' | 'never';
}

export interface EnrichProgress {
  readonly source: string;
  readonly done: number;
  readonly total: number;
  readonly current?: string;
  /** Time left at the pace so far, once there is a pace to go by. */
  readonly etaMs?: number;
  /** The files among those units (done this pass, and done plus queued), apart from symbol questions: what a host may call "files". */
  readonly files?: { readonly done: number; readonly total: number };
}

/** "lsp:typescript: 120/400 files, about 40 s left — src/a.ts": the progress line the CLI and the logs print. */
export function describeProgress(p: EnrichProgress): string {
  const eta = p.etaMs === undefined ? '' : `, ${timeLeft(p.etaMs)}`;
  return `${p.source}: ${p.done}/${p.total}${eta}${p.current ? ` — ${p.current}` : ''}`;
}

/** A first pass runs while at least this share of its languages' files (and this many) lack type-checked resolution. */
const FIRST_PASS_SHARE = 0.3;
const FIRST_PASS_MIN_FILES = 20;

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
  /** Inventory edges in covered files the resolver had no answer for (kept, and marked so). */
  unanswered: number;
  /** Data uses through receivers the checker types `any`: kept once by name, not attributed to any member of that name. */
  untyped: number;
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
    `${x.unanswered ? `, ${x.unanswered} left unanswered` : ''}` +
    `${x.untyped ? `, ${x.untyped} reads and writes through receivers typed \`any\` counted by name, not attributed` : ''}` +
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
    const key = keyOf(u);
    if (this.highKeys.has(key)) return;
    this.highKeys.add(key);
    this.high.push(u);
  }

  async run(): Promise<EnrichReport> {
    const t0 = performance.now();
    const reports: ResolverReport[] = [];
    for (const r of this.resolvers) {
      if (this.options.signal?.aborted) break;
      const report = await this.runOne(r, t0);
      if (report) {
        reports.push(report);
        this.options.onResolverEnd?.(report);
      }
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

  /** One resolver's run; undefined for a first-pass resolver the workspace does not need now. */
  private async runOne(resolver: EdgeResolver, t0: number): Promise<ResolverReport | undefined> {
    if (resolver.firstPass && !(await this.wantsFirstPass(resolver))) return undefined;
    return new ResolverRun(
      { store: this.store, options: this.options, high: this.high, readyHint: (l) => this.readyHint(l), buildUnit: (u) => this.buildUnit(u), log: (m) => this.log(m) },
      resolver,
      t0,
    ).run();
  }

  /** Whether enough of a first-pass resolver's files lack type-checked resolution that a whole-workspace pass beats asking file by file. */
  private async wantsFirstPass(resolver: EdgeResolver): Promise<boolean> {
    const mode = this.options.firstPass ?? 'auto';
    if (mode === 'never') return false;
    const languages = resolver.languages ?? [];
    const cov = await this.store.coverage(languages, resolver.checker ?? resolver.source);
    // Forced, every file is asked again: as many as a first pass over nothing resolved.
    const { total, pending } = this.options.force ? { total: cov.total, pending: cov.total } : cov;
    if (mode === 'always') return pending > 0;
    return pending >= (resolver.firstPassMinFiles ?? FIRST_PASS_MIN_FILES) && pending >= total * FIRST_PASS_SHARE;
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

/** What a resolver's run needs of the pass it is part of. */
interface PassView {
  readonly store: ResolutionStore;
  readonly options: EnrichOptions;
  /** The priority queue, shared by every resolver of the pass and added to while it runs. */
  readonly high: readonly Unit[];
  readyHint(languages: readonly string[]): Promise<ReadyHint>;
  buildUnit(unit: Unit): Promise<ResolverUnit | undefined>;
  log(message: string): void;
}

const keyOf = (u: Unit) => (u.kind === 'file' ? `f:${u.path}` : `s:${u.sid}`);

/**
 * One resolver's share of a pass: started, then either asked once for the
 * whole workspace (artifact resolvers) or fed unit by unit from its queue
 * (priority units, then files not enriched at their content, then dispatch
 * roots, then callables left without a caller), until the queue is empty,
 * the pass is cancelled or its budget is spent.
 */
class ResolverRun {
  private readonly report: ResolverReport;
  private readonly start = performance.now();
  private readonly signal: AbortSignal;
  private languages: readonly string[] = [];
  private readonly low: Unit[] = [];
  private readonly done = new Set<string>();
  private readonly requeued = new Set<string>();
  /** How far this resolver is through the shared priority queue. */
  private hi = 0;
  private orphansQueued = false;
  private deadline = Infinity;
  private lastGen = '';
  /** When the pace is measured from (after the first unit, which carries a server's warm-up). */
  private paceFrom: { at: number; done: number } | undefined;

  constructor(
    private readonly pass: PassView,
    private readonly resolver: EdgeResolver,
    t0: number,
  ) {
    this.signal = pass.options.signal ?? new AbortController().signal;
    this.report = {
      source: resolver.source, languages: resolver.languages ?? [], state: 'complete', files: 0, symbols: 0, confirmed: 0, refuted: 0, added: 0, implementations: 0,
      unanswered: 0, untyped: 0, staleBatches: 0, notes: [], startMs: this.start - t0, ms: 0, pending: 0,
    };
  }

  async run(): Promise<ResolverReport> {
    try {
      const ctx: ResolverContext = {
        root: this.pass.options.root,
        signal: this.signal,
        log: (m) => this.log(m),
        readyHint: await this.pass.readyHint(this.resolver.languages ?? []),
        files: (languages) => this.pass.store.filePaths(languages),
      };
      // A resolver that knows its languages is started only if there is work for it: a server
      // that every file's first pass already answered for is never started.
      const known = this.resolver.languages !== undefined && !this.resolver.units.includes('workspace');
      if (known) {
        this.languages = this.resolver.languages!;
        await this.fillQueue();
        if (!(await this.hasWork())) return this.report;
      }
      await this.resolver.start(ctx);
      // Batch resolvers learn their languages from their artifact when they start.
      this.languages = this.resolver.languages ?? [];
      this.report.languages = this.languages;
      if (this.resolver.units.includes('workspace')) {
        await this.wholeWorkspace(ctx);
        return this.report;
      }
      if (!known) await this.fillQueue();
      await this.drainQueue();
      if (this.report.staleBatches && this.report.state === 'complete') this.report.state = 'partial';
      this.report.implementations += await this.pass.store.deriveOverrides();
    } catch (e) {
      this.failed(e);
    } finally {
      this.report.ms = performance.now() - this.start;
    }
    return this.report;
  }

  private log(m: string): void {
    this.pass.log(`${this.resolver.source}: ${m}`);
  }

  private add(res: ApplyResult): void {
    this.report.confirmed += res.confirmed;
    this.report.refuted += res.refuted;
    this.report.added += res.added;
    this.report.implementations += res.implementations;
    this.report.unanswered += res.unanswered;
    this.report.untyped += res.untyped;
  }

  private coverage(): { checker?: string; allUses?: boolean } {
    return { ...(this.resolver.checker ? { checker: this.resolver.checker } : {}), ...(this.resolver.findsAllUses ? { allUses: true } : {}) };
  }

  /** Whether the queue, the priority list or the search for callables without callers has anything for this resolver. */
  private async hasWork(): Promise<boolean> {
    if (this.low.length) return true;
    for (let i = this.hi; i < this.pass.high.length; i++) if (await this.wants(this.pass.high[i]!)) return true;
    if (this.orphansQueued) return false;
    return (await this.pass.store.uncalledCallables(this.languages, this.resolver.source, 1, this.resolver.checker)).some((o) => !this.pass.options.files || this.pass.options.files.includes(o.path));
  }

  /** An artifact resolver answers for the whole workspace at once. */
  private async wholeWorkspace(ctx: ResolverContext): Promise<void> {
    const gen = await this.pass.store.generation();
    const batch = await this.resolver.resolve({ kind: 'workspace' }, ctx);
    const res = await this.pass.store.apply(this.resolver.source, this.resolver.tier, batch, gen, this.coverage());
    if (res.stale) {
      this.report.staleBatches++;
      this.report.state = 'partial';
      this.report.message = 'the workspace changed while the index was read; run again';
    }
    this.add(res);
    this.report.files = batch.coveredFiles?.length ?? 0;
    this.report.implementations += await this.pass.store.deriveOverrides();
    this.report.notes.push(...(batch.notes ?? []).slice(0, 20));
  }

  /** Files not enriched at their content (or every file, forced), then the methods calls may dispatch through. */
  private async fillQueue(): Promise<void> {
    const { store, options } = this.pass;
    const inScope = (path: string) => !options.files || options.files.includes(path);
    const checker = this.resolver.checker;
    const files = options.force ? await store.filesWithLanguage(this.languages) : await store.pendingFiles(this.resolver.source, this.languages, checker);
    for (const f of files) if (inScope(f.path)) this.low.push({ kind: 'file', id: f.id, path: f.path, language: f.language });
    // Dispatch roots need implementation requests; a server without them (pyright) proves overrides from resolved inheritance instead.
    if (this.resolver.units.includes('symbol') && options.dispatch !== false && (this.resolver.questions ?? ['implementations']).includes('implementations')) {
      for (const r of await store.dispatchRoots(this.languages, this.resolver.source, checker)) if (inScope(r.at.path)) this.low.push({ kind: 'symbol', sid: r.sid, want: ['implementations'] });
    }
    this.deadline = options.budgetMs !== undefined ? performance.now() + options.budgetMs : Infinity;
    this.lastGen = seenGeneration.get(this.resolver) ?? (await store.generation());
    // Once the files are done: callables still without a caller get a references search, so a
    // call the inventory never recorded cannot make the answer "no callers".
    this.orphansQueued = !(this.resolver.units.includes('symbol') && options.orphans !== false && (this.resolver.questions ?? ['callers']).includes('callers'));
  }

  private async drainQueue(): Promise<void> {
    for (;;) {
      const unit = await this.next();
      if (!unit || this.stopsBefore()) break;
      await this.pass.options.idle?.();
      const gen = await this.announceChanges();
      const key = keyOf(unit);
      if (this.done.has(key)) continue;
      await this.resolveUnit(unit, key, gen);
    }
  }

  /** The next unit: a priority one, else the queue's, else (once) the callables left without a caller. */
  private async next(): Promise<Unit | undefined> {
    const unit = (await this.nextHigh()) ?? this.low.shift();
    if (unit || this.orphansQueued || this.signal.aborted) return unit;
    this.orphansQueued = true;
    const { store, options } = this.pass;
    for (const o of await store.uncalledCallables(this.languages, this.resolver.source, options.orphanLimit ?? 500, this.resolver.checker)) {
      if (!options.files || options.files.includes(o.path)) this.low.push({ kind: 'symbol', sid: o.sid, want: ['callers'] });
    }
    return this.low.shift();
  }

  /** Every resolver walks the whole priority list (entries added while it runs included). */
  private async nextHigh(): Promise<Unit | undefined> {
    const high = this.pass.high;
    while (this.hi < high.length) {
      const u = high[this.hi++]!;
      if (await this.wants(u)) return u;
    }
    return undefined;
  }

  /** A priority unit this resolver answers and no resolver over its checker has answered already. */
  private async wants(u: Unit): Promise<boolean> {
    if (u.kind === 'file') return this.languages.includes(u.language);
    if (!this.resolver.units.includes('symbol')) return false;
    return !(await this.pass.store.allUsesRead(u.sid, this.resolver.checker));
  }

  /** Whether the pass was cancelled or the budget spent before the unit at hand; the report says so and counts what is left. */
  private stopsBefore(): boolean {
    if (this.signal.aborted) {
      this.report.state = 'cancelled';
    } else if (performance.now() > this.deadline) {
      this.report.state = 'partial';
      this.report.message = `stopped after its ${Math.round(this.pass.options.budgetMs! / 1000)} s budget; the next pass resumes`;
    } else return false;
    this.report.pending = this.pass.high.length - this.hi + this.low.length + 1;
    return true;
  }

  /** Files changed since the resolver last worked: tell its server before asking it anything more. Returns the current generation. */
  private async announceChanges(): Promise<string> {
    const gen = await this.pass.store.generation();
    if (gen !== this.lastGen) {
      const changed = await this.pass.store.filesChangedSince(Number(this.lastGen));
      await this.resolver.changed?.(changed);
      this.lastGen = gen;
    }
    seenGeneration.set(this.resolver, gen);
    return gen;
  }

  /** Asks the resolver about one unit and applies the answer; a batch made stale by an edit puts the unit back once. */
  private async resolveUnit(unit: Unit, key: string, gen: string): Promise<void> {
    const built = await this.pass.buildUnit(unit);
    if (!built) return;
    const { store, options } = this.pass;
    options.onProgress?.(this.progress(unit));
    const batch = await this.resolver.resolve(built, { root: options.root, signal: this.signal, log: (m) => this.log(m) });
    const res = await store.apply(this.resolver.source, this.resolver.tier, batch, gen, this.coverage());
    if (res.stale) {
      this.report.staleBatches++;
      if (!this.requeued.has(key)) {
        this.requeued.add(key);
        this.low.push(unit);
      }
      return;
    }
    this.add(res);
    for (const n of batch.notes ?? []) if (this.report.notes.length < 20) this.report.notes.push(n);
    if (unit.kind === 'file') this.report.files++;
    else {
      this.report.symbols++;
      await store.markSymbol(unit.sid, this.resolver.source, unit.want);
    }
    this.done.add(key);
    if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
  }

  /** Where the run is, and how long the rest should take at the pace of the units done so far. */
  private progress(unit: Unit): EnrichProgress {
    const done = this.done.size;
    const left = this.pass.high.length - this.hi + this.low.length + 1;
    if (!this.paceFrom && done) this.paceFrom = { at: performance.now(), done };
    const pace = this.paceFrom && done - this.paceFrom.done >= 3 ? (performance.now() - this.paceFrom.at) / (done - this.paceFrom.done) : undefined;
    return {
      source: this.resolver.source,
      done,
      total: done + left,
      current: unit.kind === 'file' ? unit.path : unit.sid,
      ...(pace !== undefined ? { etaMs: pace * left } : {}),
      files: { done: this.report.files, total: this.report.files + this.filesQueued(unit) },
    };
  }

  /** File units of this resolver's languages still queued (the one at hand included): the file count a progress line shows. */
  private filesQueued(atHand: Unit): number {
    let n = atHand.kind === 'file' ? 1 : 0;
    const high = this.pass.high;
    for (let i = this.hi; i < high.length; i++) {
      const u = high[i];
      if (u?.kind === 'file' && this.languages.includes(u.language)) n++;
    }
    for (const u of this.low) if (u.kind === 'file') n++;
    return n;
  }

  private failed(e: unknown): void {
    if (ResolverUnavailableError.is(e)) {
      this.report.state = 'unavailable';
      this.report.message = e.message;
      this.pass.log(e.message);
    } else if (this.signal.aborted) {
      this.report.state = 'cancelled';
    } else {
      this.report.state = 'unavailable';
      this.report.message = `${this.resolver.source} failed: ${(e as Error).message}`;
      this.pass.log(this.report.message);
    }
  }
}

/** What the last passes said about each resolver, for answers and `tenure status`. */
export async function resolutionStatus(db: Db): Promise<Record<string, { state: string; languages?: string[]; message?: string; at: number; files: number; pending: number }>> {
  const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [RESOLUTION_STATUS_KEY]);
  return row ? JSON.parse(row.value) : {};
}
