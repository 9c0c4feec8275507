import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { TenureError, errorMessage, type TenureErrorReason } from '../../../shared/errors.js';
import type { IndexReport, IndexerOptions } from './indexer.js';
import type { Workspace } from '../../store/workspace.js';

/*
 * The structural indexer in a worker thread, for a host whose own thread must
 * stay free: the extension host runs every extension and the editor's
 * services, so the indexer's in-memory resolution, its row building and the
 * deserialising of the parse workers' results happen here instead (the
 * worker owns its own SQLite connection to the same file; WAL lets the host's
 * connection keep reading, SQLite's lock orders the writers). The CLI, which
 * has no one else to serve, uses StructuralIndexer directly.
 */

/** What a host needs from an indexer, in-process or in a thread. */
export interface StructuralIndex {
  indexAll(opts?: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void }): Promise<IndexReport>;
  updateFiles(absPaths: readonly string[], texts?: ReadonlyMap<string, string>): Promise<{ parsed: number; removed: number; ms: number }>;
  dispose(): Promise<void>;
}

export type ThreadOptions = Omit<IndexerOptions, 'log'>;

export type ToIndexer =
  | { readonly type: 'indexAll'; readonly id: number }
  | { readonly type: 'updateFiles'; readonly id: number; readonly paths: readonly string[]; readonly texts: readonly (readonly [string, string])[] }
  | { readonly type: 'abort'; readonly id: number }
  | { readonly type: 'dispose'; readonly id: number };

export type FromIndexer =
  | { readonly type: 'progress'; readonly id: number; readonly done: number; readonly total: number }
  | { readonly type: 'log'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly value: unknown }
  | { readonly type: 'error'; readonly id: number; readonly message: string; readonly reason?: TenureErrorReason };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (done: number, total: number) => void;
}

export class IndexerThread implements StructuralIndex {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private disposed = false;

  constructor(
    /** The host's open workspace: the thread opens its own connection to the same database, with the same schema. */
    private readonly workspace: Pick<Workspace, 'root' | 'schema'>,
    private readonly options: ThreadOptions = {},
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  indexAll(opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<IndexReport> {
    return this.call<IndexReport>((id) => ({ type: 'indexAll', id }), opts.signal, opts.onProgress);
  }

  updateFiles(absPaths: readonly string[], texts: ReadonlyMap<string, string> = new Map()): Promise<{ parsed: number; removed: number; ms: number }> {
    return this.call((id) => ({ type: 'updateFiles', id, paths: absPaths, texts: [...texts.entries()] }));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const worker = this.worker;
    if (!worker) return;
    // Let a running batch finish its transaction, then close the connection; a stuck worker is terminated.
    const id = this.nextId++;
    const closed = new Promise<void>((resolve) => {
      this.pending.set(id, { resolve: () => resolve(), reject: () => resolve() });
      worker.postMessage({ type: 'dispose', id } satisfies ToIndexer);
    });
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
    await Promise.race([closed, timer]);
    await worker.terminate();
  }

  private call<T>(message: (id: number) => ToIndexer, signal?: AbortSignal, onProgress?: (done: number, total: number) => void): Promise<T> {
    if (this.disposed) return Promise.reject(new TenureError('cancelled', 'The indexer was stopped.'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ type: 'abort', id } satisfies ToIndexer);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (v) => {
          settle();
          resolve(v as T);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
        ...(onProgress ? { onProgress } : {}),
      });
      worker.postMessage(message(id));
      if (signal?.aborted) onAbort();
    });
  }

  /** Starts the worker on first use and again after it died (the next call reloads the index from SQLite: nothing is lost). */
  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // The worker script sits beside this module, in the bundle (dist/) and in the compiled tree alike.
    const worker = new Worker(path.join(__dirname, 'indexerWorker.js'), { workerData: { root: this.workspace.root, schema: this.workspace.schema, options: this.options } });
    worker.on('message', (m: FromIndexer) => this.receive(m));
    const died = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const error = new TenureError('io', `The indexer thread stopped (${why}); the next index or save starts it again from what is stored.`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
      if (!this.disposed) this.log(error.message);
    };
    worker.on('error', (e) => died(errorMessage(e)));
    worker.on('exit', (code) => died(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private receive(m: FromIndexer): void {
    if (m.type === 'log') {
      this.log(m.message);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.done, m.total);
      return;
    }
    this.pending.delete(m.id);
    if (m.type === 'result') p.resolve(m.value);
    else p.reject(m.reason ? new TenureError(m.reason, m.message) : new Error(m.message));
  }
}
