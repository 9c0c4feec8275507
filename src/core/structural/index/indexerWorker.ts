import { parentPort, workerData } from 'node:worker_threads';
import { TenureError, errorMessage } from '../../../shared/errors.js';
import type { Migration } from '../../store/migrations.js';
import { Workspace } from '../../store/workspace.js';
import { StructuralIndexer } from './indexer.js';
import type { FromIndexer, ThreadOptions, ToIndexer } from './indexerThread.js';

/*
 * The worker side of IndexerThread: one StructuralIndexer over its own
 * connection to the workspace's database, driven by messages. Calls run in
 * the order they arrive (the indexer serialises its batches anyway).
 */

function post(m: FromIndexer): void {
  parentPort?.postMessage(m);
}

function main(): void {
  const { root, schema, options } = workerData as { root: string; schema: Migration[]; options: ThreadOptions };
  // Listening at once: calls that arrive while the database opens wait for it.
  const ready = (async () => {
    const workspace = await Workspace.open(root, { schema });
    const indexer = await StructuralIndexer.create(workspace, { ...options, log: (message) => post({ type: 'log', message }) });
    return { workspace, indexer };
  })();
  const aborts = new Map<number, AbortController>();

  const run = async (id: number, fn: (w: Awaited<typeof ready>) => Promise<unknown>) => {
    try {
      post({ type: 'result', id, value: await fn(await ready) });
    } catch (e) {
      post({ type: 'error', id, message: errorMessage(e), ...(TenureError.is(e) ? { reason: e.reason } : {}) });
    }
  };

  parentPort?.on('message', (m: ToIndexer) => {
    switch (m.type) {
      case 'indexAll': {
        const ac = new AbortController();
        aborts.set(m.id, ac);
        void run(m.id, ({ indexer }) => indexer.indexAll({ signal: ac.signal, onProgress: (done, total) => post({ type: 'progress', id: m.id, done, total }) })).finally(() => aborts.delete(m.id));
        break;
      }
      case 'updateFiles':
        void run(m.id, ({ indexer }) => indexer.updateFiles(m.paths, new Map(m.texts)));
        break;
      case 'abort':
        aborts.get(m.id)?.abort();
        break;
      case 'dispose':
        for (const ac of aborts.values()) ac.abort();
        void run(m.id, async ({ indexer, workspace }) => {
          await indexer.dispose();
          await workspace.close();
        });
        break;
    }
  });
}

if (parentPort) main();
