/**
 * Gives the event loop back during long synchronous loops. The core runs in
 * host processes it does not own (the VS Code extension host, an MCP server
 * answering while it indexes), where holding the thread for more than a few
 * tens of milliseconds delays everything else. Use:
 *
 *   const y = new Yielder();
 *   for (const x of many) {
 *     work(x);
 *     if (y.due()) await y.yield();
 *   }
 *
 * `due()` reads the clock only every `stride` calls, so a hot loop pays
 * almost nothing for it.
 */
export class Yielder {
  private last = performance.now();
  private calls = 0;

  constructor(
    /** Synchronous work allowed between two yields. */
    private readonly budgetMs = 12,
    private readonly stride = 64,
  ) {}

  /** True when the budget since the last yield is spent. */
  due(): boolean {
    if (++this.calls % this.stride !== 0) return false;
    return performance.now() - this.last >= this.budgetMs;
  }

  /** Lets timers and I/O run (a macrotask turn), then starts a new budget. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}
