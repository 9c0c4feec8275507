import * as fs from 'node:fs';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

/*
 * How long the extension host's event loop is held up while Tenure works.
 * Two measures: a native event-loop-delay histogram over the whole session
 * (cheap, no JS timer), and, only while some Tenure operation is in flight, a
 * 10 ms sampler that records every stall longer than 50 ms with the names of
 * the operations running at that moment — the stalls Tenure can be blamed
 * for. No `vscode` import: unit-tested in node.
 */

export const BLOCK_THRESHOLD_MS = 50;
const SAMPLE_MS = 10;

export interface Stall {
  readonly ms: number;
  readonly at: number;
  readonly during: readonly string[];
  /**
   * CPU time the host's thread used over the stall (Linux, 10 ms resolution).
   * Close to `ms`: the thread was working. Far below: it was waiting for a
   * core (a busy machine), which a wall-clock profile cannot tell apart.
   */
  readonly cpuMs?: number;
}

/** CPU time of this process's main thread (the extension host's), from /proc; undefined where there is none. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of stat(5)) in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export interface ResponsivenessReport {
  /** Whole session, any cause: the host's event-loop delay. */
  readonly loop: { readonly maxMs: number; readonly p99Ms: number; readonly p50Ms: number; readonly meanMs: number };
  /** While Tenure work was in flight: time sampled, the longest stall, stalls over the threshold. */
  readonly whileTenure: { readonly sampledMs: number; readonly maxStallMs: number; readonly stalls: readonly Stall[] };
  /** Tenure's operations by kind: count, total and slowest wall time (asynchronous work, not blocking). */
  readonly operations: Readonly<Record<string, { readonly n: number; readonly totalMs: number; readonly maxMs: number }>>;
}

export class Responsiveness {
  private readonly histogram: IntervalHistogram | undefined;
  private readonly inFlight = new Map<number, string>();
  private nextId = 0;
  private sampler: NodeJS.Timeout | undefined;
  private expected = 0;
  private sampledMs = 0;
  private maxStall = 0;
  private readonly stalls: Stall[] = [];
  private readonly ops = new Map<string, { n: number; totalMs: number; maxMs: number }>();

  constructor() {
    try {
      this.histogram = monitorEventLoopDelay({ resolution: 10 });
      this.histogram.enable();
    } catch {
      this.histogram = undefined;
    }
  }

  /** Runs `fn`, sampling the event loop while it (or any other timed operation) is in flight. */
  async time<T>(what: string, fn: () => Promise<T>, done?: (ms: number) => void): Promise<T> {
    const end = this.begin(what);
    try {
      return await fn();
    } finally {
      // Not `done?.(end())`: an optional call skips evaluating its argument.
      const ms = end();
      done?.(ms);
    }
  }

  /** Marks an operation in flight until the returned function is called (it returns the wall time in ms). */
  begin(what: string): () => number {
    const id = this.nextId++;
    const kind = what.split(' ')[0] ?? what;
    this.inFlight.set(id, what);
    this.startSampling();
    const t0 = performance.now();
    let ended: number | undefined;
    return () => {
      if (ended !== undefined) return ended;
      const ms = (ended = Math.round(performance.now() - t0));
      this.inFlight.delete(id);
      const o = this.ops.get(kind) ?? { n: 0, totalMs: 0, maxMs: 0 };
      o.n++;
      o.totalMs += ms;
      o.maxMs = Math.max(o.maxMs, ms);
      this.ops.set(kind, o);
      if (!this.inFlight.size) this.stopSampling();
      return ms;
    };
  }

  private startSampling(): void {
    if (this.sampler) return;
    this.expected = performance.now() + SAMPLE_MS;
    let cpu = mainThreadCpuMs();
    this.sampler = setInterval(() => {
      const now = performance.now();
      const late = now - this.expected;
      this.sampledMs += SAMPLE_MS + Math.max(0, late);
      if (late > this.maxStall) this.maxStall = late;
      const cpuNow = mainThreadCpuMs();
      if (late > BLOCK_THRESHOLD_MS && this.stalls.length < 200) {
        this.stalls.push({ ms: Math.round(late), at: Date.now(), during: [...new Set(this.inFlight.values())], ...(cpu !== undefined && cpuNow !== undefined ? { cpuMs: cpuNow - cpu } : {}) });
      }
      cpu = cpuNow;
      this.expected = now + SAMPLE_MS;
    }, SAMPLE_MS);
    this.sampler.unref?.();
  }

  private stopSampling(): void {
    if (!this.sampler) return;
    clearInterval(this.sampler);
    this.sampler = undefined;
  }

  report(): ResponsivenessReport {
    const h = this.histogram;
    const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;
    return {
      loop: h ? { maxMs: ms(h.max), p99Ms: ms(h.percentile(99)), p50Ms: ms(h.percentile(50)), meanMs: ms(h.mean) } : { maxMs: 0, p99Ms: 0, p50Ms: 0, meanMs: 0 },
      whileTenure: { sampledMs: Math.round(this.sampledMs), maxStallMs: Math.round(this.maxStall), stalls: [...this.stalls] },
      operations: Object.fromEntries(this.ops),
    };
  }

  dispose(): void {
    this.stopSampling();
    this.histogram?.disable();
  }
}
