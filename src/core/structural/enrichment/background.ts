import type { Db } from '../../store/db.js';
import { EnrichmentPass, type EnrichOptions, type EnrichProgress, type EnrichReport, type ResolverReport } from './enrich.js';
import type { EdgeResolver } from './types.js';

export interface BackgroundOptions extends Omit<EnrichOptions, 'signal'> {
  /** Quiet time after the last schedule() before a pass starts (default 500 ms). */
  readonly debounceMs?: number;
  /** The longest a pass waits for quiet once asked for (default 10 s). */
  readonly maxWaitMs?: number;
  readonly onReport?: (report: EnrichReport) => void;
  /**
   * Called as each pass starts (numbered from 1) with a way to cancel that
   * pass alone (a progress notification's Cancel button); what it returns
   * follows the pass's progress and end.
   */
  readonly onPass?: (pass: { readonly number: number; cancel(): void }) => PassObserver | undefined;
}

export interface PassObserver {
  progress?(p: EnrichProgress): void;
  /** One resolver's share of the pass ended; the pass goes on with the next. */
  resolverEnd?(report: ResolverReport): void;
  /** The pass ended: with its report, or without one when it failed. */
  end?(report: EnrichReport | undefined): void;
}

/**
 * Keeps the graph enriched in the background for a long-lived host (the
 * extension, `tenure mcp`, `tenure watch`): call schedule() after each index
 * update and prioritize() when a symbol is queried or a file opened. One pass
 * runs at a time; schedules while it runs coalesce into one more pass;
 * dispose() cancels between two requests and shuts the servers down.
 *
 *   const bg = new BackgroundEnricher(ws.db, await headlessResolvers(ws.db, { root }), { root, log });
 *   indexer.indexAll().then(() => bg.schedule());      // and after every updateFiles()
 *   …
 *   await bg.dispose();
 */
export class BackgroundEnricher {
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private current: EnrichmentPass | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private pending: { symbols: Set<string>; files: Set<string> } = { symbols: new Set(), files: new Set() };
  private disposed = false;
  private passes = 0;
  /** When the oldest schedule() not yet answered by a pass was made. */
  private firstAsked: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly resolvers: readonly EdgeResolver[],
    private readonly options: BackgroundOptions,
  ) {}

  /**
   * Asks for a pass after `delayMs` of quiet (default: the debounce option).
   * A later call moves the start, but never past 10 s after the first
   * unanswered call: a stream of edits or queries cannot starve enrichment.
   */
  schedule(delayMs = this.options.debounceMs ?? 500): void {
    if (this.disposed) return;
    const now = Date.now();
    this.firstAsked ??= now;
    const start = Math.min(now + delayMs, this.firstAsked + Math.max(delayMs, this.options.maxWaitMs ?? 10_000));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, start - now);
  }

  /** Symbols (ids) and files (paths) to resolve first: joins the running pass, else the next one. */
  prioritize(p: { symbols?: readonly string[]; files?: readonly string[] }): void {
    if (this.disposed) return;
    if (this.current) {
      void this.current.prioritize(p).catch(() => undefined);
      return;
    }
    for (const s of p.symbols ?? []) this.pending.symbols.add(s);
    for (const f of p.files ?? []) this.pending.files.add(f);
    // A pass already due keeps its time; asking again must not push it back.
    if (!this.timer && !this.running) this.schedule();
  }

  /** Resolves when no pass is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running || this.timer) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.start();
      }
      await this.running;
    }
  }

  private start(): void {
    if (this.disposed) return;
    this.firstAsked = undefined;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        // Each pass has its own signal (cancel one pass), joined to dispose()'s.
        const passAbort = new AbortController();
        const stop = () => passAbort.abort();
        this.abort.signal.addEventListener('abort', stop, { once: true });
        const observer = this.options.onPass?.({ number: ++this.passes, cancel: stop });
        const { onProgress, onResolverEnd } = this.options;
        const pass = new EnrichmentPass(this.db, this.resolvers, {
          ...this.options,
          signal: passAbort.signal,
          onProgress: (p) => {
            onProgress?.(p);
            observer?.progress?.(p);
          },
          onResolverEnd: (r) => {
            onResolverEnd?.(r);
            observer?.resolverEnd?.(r);
          },
        });
        const priority = this.pending;
        this.pending = { symbols: new Set(), files: new Set() };
        let report: EnrichReport | undefined;
        try {
          await pass.prioritize({ symbols: [...priority.symbols], files: [...priority.files] });
          this.current = pass;
          report = await pass.run();
          this.options.onReport?.(report);
        } catch (e) {
          this.options.log?.(`enrichment failed: ${(e as Error).message}`);
        } finally {
          this.current = undefined;
          this.abort.signal.removeEventListener('abort', stop);
          observer?.end?.(report);
        }
      } while (this.again && !this.disposed);
    })().finally(() => {
      this.running = undefined;
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
    for (const r of this.resolvers) await r.dispose().catch(() => undefined);
  }
}
