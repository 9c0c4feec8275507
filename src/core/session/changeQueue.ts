/**
 * Collects changed file paths and hands them over in batches: a batch goes
 * once no change has arrived for `quietMs` (a save, a branch switch or a
 * formatter touching fifty files is one batch, not fifty), or after `maxWaitMs`
 * under a steady stream. Batches run one at a time; changes that arrive while
 * one runs form the next. No `vscode` import, so it can be tested in node.
 */
export class ChangeQueue {
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private firstAt = 0;
  private running: Promise<void> | undefined;
  private disposed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly flushBatch: (paths: string[]) => Promise<void>,
    private quietMs: number,
    private readonly maxWaitMs = 1000,
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {}

  setQuietMs(ms: number): void {
    this.quietMs = ms;
  }

  add(paths: Iterable<string>): void {
    if (this.disposed) return;
    const before = this.pending.size;
    for (const p of paths) this.pending.add(p);
    if (this.pending.size === before) return;
    if (before === 0 && !this.running) this.firstAt = Date.now();
    if (this.running) return; // the running batch re-arms when it ends
    this.arm();
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves when nothing is pending and no batch is running. */
  whenIdle(): Promise<void> {
    if (!this.pending.size && !this.running && !this.timer) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const waited = Date.now() - this.firstAt;
    const delay = Math.max(0, Math.min(this.quietMs, this.maxWaitMs - waited));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
  }

  private async flush(): Promise<void> {
    if (this.running) return; // the running batch re-arms when it ends
    const batch = [...this.pending].sort();
    this.pending = new Set();
    if (!batch.length) return this.settle();
    this.running = this.flushBatch(batch).catch(this.onError);
    await this.running;
    this.running = undefined;
    if (this.pending.size && !this.disposed) {
      this.firstAt = Date.now();
      this.arm();
    } else {
      this.settle();
    }
  }

  private settle(): void {
    if (this.pending.size || this.running || this.timer) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Drops what is pending and waits for a running batch to end. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    await this.running;
    this.running = undefined;
    this.settle();
  }
}
