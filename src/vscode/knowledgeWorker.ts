import { parentPort, workerData } from 'node:worker_threads';
import { indexKnowledge, type KnowledgeIndexReport } from '../core/knowledge/pipeline.js';
import type { WorkflowName } from '../core/knowledge/workflows/types.js';
import { createChatModel, createEmbedder, modelSettings, type ModelSettings } from '../core/llm/config.js';
import { type Workspace } from '../core/store/workspace.js';
import { openWorkspace } from '../core/workspace.js';
import { errorMessage } from '../shared/errors.js';

/*
 * Knowledge indexing off the extension host's event loop. The pipeline's
 * chunking, token counting, offline extraction and clustering are
 * synchronous JavaScript (hundreds of milliseconds on a small repository), so
 * the extension runs it here, in a worker thread with its own SQLite
 * connection (WAL: the host's connection keeps reading and writing). Offline
 * and OpenAI-compatible passes run here; a pass over VS Code's own models
 * needs the vscode API and stays in the host. No `vscode` import.
 */

export interface KnowledgeJob {
  readonly root: string;
  /** Serialisable model settings (no fetch override). */
  readonly settings: Omit<ModelSettings, 'fetch'>;
  readonly embedWithModel: boolean;
}

export type KnowledgeWorkerMessage =
  | { readonly type: 'progress'; readonly workflow: WorkflowName; readonly done: number; readonly total: number }
  | { readonly type: 'log'; readonly message: string }
  | { readonly type: 'done'; readonly report: KnowledgeIndexReport }
  | { readonly type: 'error'; readonly message: string };

function post(m: KnowledgeWorkerMessage): void {
  parentPort?.postMessage(m);
}

async function main(): Promise<void> {
  const job = workerData as KnowledgeJob;
  const ac = new AbortController();
  parentPort?.on('message', (m: unknown) => {
    if ((m as { type?: string } | null)?.type === 'abort') ac.abort();
  });
  let ws: Workspace | undefined;
  // The database is closed before the last message: the host may end this thread once it has the answer,
  // and a thread ended inside the native SQLite module's close takes the whole extension host down (SIGABRT).
  let last: KnowledgeWorkerMessage;
  try {
    ws = await openWorkspace(job.root);
    const settings = modelSettings(job.settings, {});
    const chat = createChatModel(settings);
    const report = await indexKnowledge(ws, {
      ...(chat ? { chat } : {}),
      embedder: job.embedWithModel ? createEmbedder(settings) : createEmbedder({}),
      signal: ac.signal,
      log: (message) => post({ type: 'log', message }),
      onProgress: (p) => post({ type: 'progress', ...p }),
    });
    last = { type: 'done', report };
  } catch (e) {
    last = { type: 'error', message: errorMessage(e) };
  }
  await ws?.close().catch(() => undefined);
  post(last);
}

if (parentPort) void main();
