import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../../shared/errors.js';
import type { ParseReply, ParseRequest, ParseResponse } from './parseProtocol.js';

export type ParseJob = Omit<ParseRequest, 'id'>;

interface Slot {
  worker: Worker;
  busy: boolean;
  pending?: { batch: ParseRequest[]; resolve: (r: ParseResponse[]) => void; reject: (e: Error) => void };
}

/**
 * Heap of one parse worker. A worker that needs more is stopped by V8 with
 * ERR_WORKER_OUT_OF_MEMORY instead of taking the whole process (the MCP
 * server, the extension host) down; a 1 MB source file needs about 300 MB.
 */
export const WORKER_HEAP_MB = 1536;

/**
 * A fixed set of parse workers. Jobs go out in small batches (fewer messages,
 * still balanced across workers). A worker that dies is replaced; its batch
 * is tried again a file at a time, so only the file that killed it is
 * skipped, with the reason, rather than hanging or failing the index.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<() => void> = [];
  private disposed = false;

  constructor(
    private size = defaultPoolSize(),
    private readonly heapMb = WORKER_HEAP_MB,
  ) {
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
    const worker = new Worker(path.join(__dirname, 'parseWorker.js'), { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    const slot: Slot = { worker, busy: false };
    worker.on('message', (reply: ParseReply) => {
      const p = slot.pending;
      slot.pending = undefined;
      if (reply.retire) {
        this.replace(slot);
      } else {
        slot.busy = false;
        this.waiting.shift()?.();
      }
      p?.resolve(reply.responses);
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
    this.replace(slot);
    p?.reject(e);
  }

  /** A fresh worker in the slot's place; the old one is stopped (its exit then finds no slot to fail). */
  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0 && !this.disposed) {
      void slot.worker.terminate();
      this.slots[i] = this.spawn();
      this.waiting.shift()?.();
    }
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
    await this.parseEach(jobs, (r) => (results[r.id] = r), onProgress, signal);
    return results;
  }

  /**
   * Parses every job and hands each response over as its batch comes back
   * (in no set order; `id` is the job's index), keeping none: a caller that
   * takes a file's facts in at once never holds every file's at the same time.
   */
  async parseEach(jobs: readonly ParseJob[], onResponse: (response: ParseResponse) => void, onProgress?: (done: number) => void, signal?: AbortSignal): Promise<void> {
    const batchSize = Math.max(1, Math.min(16, Math.ceil(jobs.length / (this.size * 8))));
    let done = 0;
    const batches: ParseRequest[][] = [];
    for (let i = 0; i < jobs.length; i += batchSize) {
      batches.push(jobs.slice(i, i + batchSize).map((j, k) => ({ ...j, id: i + k })));
    }
    await Promise.all(
      batches.map(async (batch) => {
        if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
        const out = await this.runAlone(batch);
        for (const r of out) onResponse(r);
        done += batch.length;
        onProgress?.(done);
      }),
    );
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
  }

  /**
   * A batch whose worker crashed is run again one file at a time: the others
   * of the batch lose nothing. A worker that retired part-way (it gave up on
   * a file) answered only the files before; the rest go to a fresh worker.
   */
  private async runAlone(batch: ParseRequest[]): Promise<ParseResponse[]> {
    try {
      const out = await this.runBatch(batch);
      if (out.length >= batch.length) return out;
      return [...out, ...(await this.runAlone(batch.slice(out.length)))];
    } catch (e) {
      if (batch.length === 1) {
        const r = batch[0]!;
        return [{ id: r.id, status: 'skipped', skip: { kind: 'worker-crashed', reason: `parse worker crashed on this file (${errorMessage(e)})` }, size: 0 }];
      }
      const out: ParseResponse[] = [];
      for (const r of batch) out.push(...(await this.runAlone([r])));
      return out;
    }
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
