import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ParseRequest, ParseResponse } from './parseProtocol.js';

export type ParseJob = Omit<ParseRequest, 'id'>;

interface Slot {
  worker: Worker;
  busy: boolean;
  pending?: { batch: ParseRequest[]; resolve: (r: ParseResponse[]) => void; reject: (e: Error) => void };
}

/**
 * A fixed set of parse workers. Jobs go out in small batches (fewer messages,
 * still balanced across workers). A worker that dies is replaced and its
 * batch fails with a clear error rather than hanging the index.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<() => void> = [];
  private disposed = false;

  constructor(private size = defaultPoolSize()) {
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
  }

  get workers(): number {
    return this.size;
  }

  /** Adds workers, up to `size` in all (a small first batch may have started with one). */
  grow(size: number): void {
    while (this.size < size) {
      this.slots.push(this.spawn());
      this.size++;
      this.waiting.shift()?.();
    }
  }

  private spawn(): Slot {
    // The worker sits next to this module both in tsc output and in the esbuild bundle.
    const worker = new Worker(path.join(__dirname, 'parseWorker.js'));
    const slot: Slot = { worker, busy: false };
    worker.on('message', (out: ParseResponse[]) => {
      const p = slot.pending;
      slot.pending = undefined;
      slot.busy = false;
      p?.resolve(out);
      this.waiting.shift()?.();
    });
    worker.on('error', (e) => this.fail(slot, e));
    worker.on('exit', (code) => {
      if (!this.disposed) this.fail(slot, new Error(`parse worker exited with code ${code}`));
    });
    return slot;
  }

  private fail(slot: Slot, e: Error): void {
    const p = slot.pending;
    slot.pending = undefined;
    const i = this.slots.indexOf(slot);
    if (i >= 0 && !this.disposed) {
      void slot.worker.terminate();
      this.slots[i] = this.spawn();
      this.waiting.shift()?.();
    }
    p?.reject(e);
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      const free = this.slots.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        return free;
      }
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }

  private async runBatch(batch: ParseRequest[]): Promise<ParseResponse[]> {
    const slot = await this.acquire();
    return new Promise<ParseResponse[]>((resolve, reject) => {
      slot.pending = { batch, resolve, reject };
      slot.worker.postMessage(batch);
    });
  }

  /** Parses every job; results come back in job order. A crashed batch is reported per file, never thrown. */
  async parseAll(jobs: readonly ParseJob[], onProgress?: (done: number) => void, signal?: AbortSignal): Promise<ParseResponse[]> {
    const results: ParseResponse[] = new Array(jobs.length);
    const batchSize = Math.max(1, Math.min(16, Math.ceil(jobs.length / (this.size * 8))));
    let done = 0;
    const batches: ParseRequest[][] = [];
    for (let i = 0; i < jobs.length; i += batchSize) {
      batches.push(jobs.slice(i, i + batchSize).map((j, k) => ({ ...j, id: i + k })));
    }
    await Promise.all(
      batches.map(async (batch) => {
        if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
        let out: ParseResponse[];
        try {
          out = await this.runBatch(batch);
        } catch (e) {
          out = batch.map((r) => ({ id: r.id, status: 'skipped', skip: { kind: 'worker-crashed', reason: `parse worker crashed (${String(e)})` }, size: 0 }));
        }
        for (const r of out) results[r.id] = r;
        done += batch.length;
        onProgress?.(done);
      }),
    );
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
    return results;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

export function defaultPoolSize(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(4, cores));
}
