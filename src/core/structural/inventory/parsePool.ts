import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../../shared/errors.js';
import { isCode, languageById } from './languages.js';
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
        this.release(slot);
      }
      p?.resolve(reply.responses);
    });
    worker.on('error', (e) => this.fail(slot, e));
    worker.on('exit', (code) => {
      if (!this.disposed) this.fail(slot, new Error(`parse worker exited with code ${code}`));
    });
    return slot;
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.waiting.shift()?.();
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

  private async runBatch(batch: ParseRequest[], given?: Slot): Promise<ParseResponse[]> {
    const slot = given ?? (await this.acquire());
    return new Promise<ParseResponse[]>((resolve, reject) => {
      slot.pending = { batch, resolve, reject };
      slot.worker.postMessage(batch);
    });
  }

  /**
   * Parses every job; results come back in job order. A crashed batch is
   * reported per file, never thrown. Batches hold one language each, and a
   * worker takes its home languages' batches first (`languageHomes`): each
   * worker compiles the tag query of every language it parses (a few hundred
   * milliseconds each), so a language with a few files is parsed by one.
   */
  async parseAll(jobs: readonly ParseJob[], onProgress?: (done: number) => void, signal?: AbortSignal): Promise<ParseResponse[]> {
    const results: ParseResponse[] = new Array(jobs.length);
    const batchSize = Math.max(1, Math.min(16, Math.ceil(jobs.length / (this.size * 8))));
    const homes = languageHomes(jobs, this.size);
    const byLanguage = new Map<string, ParseRequest[]>();
    jobs.forEach((j, id) => {
      let list = byLanguage.get(j.language);
      if (!list) byLanguage.set(j.language, (list = []));
      list.push({ ...j, id });
    });
    // The fewest files first: a rare language is done by its home worker while the others start on the common one.
    const queue: ParseRequest[][] = [];
    for (const requests of [...byLanguage.values()].sort((a, b) => a.length - b.length)) {
      for (let i = 0; i < requests.length; i += batchSize) queue.push(requests.slice(i, i + batchSize));
    }
    let done = 0;
    const serve = async (): Promise<void> => {
      while (queue.length) {
        if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
        const slot = await this.acquire();
        const at = this.slots.indexOf(slot);
        const home = queue.findIndex((b) => homes.get(b[0]!.language)?.has(at) ?? true);
        const batch = queue.splice(Math.max(0, home), 1)[0];
        if (!batch) {
          this.release(slot);
          return;
        }
        const out = await this.runAlone(batch, slot);
        for (const r of out) results[r.id] = r;
        done += batch.length;
        onProgress?.(done);
      }
    };
    await Promise.all(Array.from({ length: this.size }, serve));
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
    return results;
  }

  /**
   * A batch whose worker crashed is run again one file at a time: the others
   * of the batch lose nothing. A worker that retired part-way (it gave up on
   * a file) answered only the files before; the rest go to a fresh worker.
   */
  private async runAlone(batch: ParseRequest[], slot?: Slot): Promise<ParseResponse[]> {
    try {
      const out = await this.runBatch(batch, slot);
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

/**
 * Which workers parse which language first: each tree-sitter language gets
 * workers in proportion to its share of the files (at least one), those with
 * the least work so far. Configuration files compile no query: any worker.
 */
export function languageHomes(jobs: readonly ParseJob[], workers: number): Map<string, Set<number>> {
  const counts = new Map<string, number>();
  for (const j of jobs) {
    const spec = languageById(j.language);
    if (spec && isCode(spec)) counts.set(j.language, (counts.get(j.language) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const load = new Array<number>(workers).fill(0);
  const homes = new Map<string, Set<number>>();
  for (const [language, n] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    const share = n / total;
    const k = Math.min(workers, Math.max(1, Math.ceil(share * workers - 1e-9)));
    const chosen = load.map((l, i) => [l, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, k).map(([, i]) => i);
    for (const i of chosen) load[i]! += share / k;
    homes.set(language, new Set(chosen));
  }
  return homes;
}

export function defaultPoolSize(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(4, cores));
}
