import type { Db } from '../../store/db.js';
import { EnrichmentPass, type EnrichOptions, type EnrichReport } from './enrich.js';
import type { EdgeResolver } from './types.js';

export interface BackgroundOptions extends Omit<EnrichOptions, 'signal'> {
  /** Quiet time after the last schedule() before a pass starts (default 500 ms). */
  readonly debounceMs?: number;
  readonly onReport?: (report: EnrichReport) => void;
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

  constructor(
    private readonly db: Db,
    private readonly resolvers: readonly EdgeResolver[],
    private readonly options: BackgroundOptions,
  ) {}

  /** Asks for a pass soon (debounced). */
  schedule(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, this.options.debounceMs ?? 500);
  }

  /** Symbols (ids) and files (paths) to resolve first: joins the running pass, else the next one. */
  prioritize(p: { symbols?: readonly string[]; files?: readonly string[] }): void {
    if (this.disposed) return;
    if (this.current) void this.current.prioritize(p).catch(() => undefined);
    else {
      for (const s of p.symbols ?? []) this.pending.symbols.add(s);
      for (const f of p.files ?? []) this.pending.files.add(f);
    }
    this.schedule();
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
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const pass = new EnrichmentPass(this.db, this.resolvers, { ...this.options, signal: this.abort.signal });
        const priority = this.pending;
        this.pending = { symbols: new Set(), files: new Set() };
        await pass.prioritize({ symbols: [...priority.symbols], files: [...priority.files] });
        this.current = pass;
        try {
          const report = await pass.run();
          this.options.onReport?.(report);
        } catch (e) {
          this.options.log?.(`enrichment failed: ${(e as Error).message}`);
        } finally {
          this.current = undefined;
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
