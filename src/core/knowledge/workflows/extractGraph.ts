import { OFFLINE_MODEL_ID } from '../../llm/offline.js';
import type { LlmRunner } from '../../llm/runner.js';
import { type Vocabulary, offlineExtract, type OfflineExtractInput } from '../offline.js';
import { PROMPT_VERSIONS, extractMessages } from '../prompts.js';
import { Extraction } from '../schemas.js';
import { chunksToExtract, dropStaleOfflineExtractions, saveExtractions, type ExtractionToWrite } from '../store/documents.js';
import { runBatches } from './batches.js';
import type { RunContext, WorkflowOutput } from './types.js';

/*
 * extract_graph: each chunk not yet read by this extractor → entities and
 * relationships (a model, or the offline extractor) → kn_extractions, a batch
 * at a time. A model reply dropped as invalid is recorded as dropped, and the
 * chunk is read offline instead (labelled so), so it still counts.
 */

export interface ExtractGraphInput {
  /** The symbols' names as phrases: what the offline extractor recognises. */
  readonly vocabulary: Vocabulary;
  readonly retryDropped: boolean;
}

/** The offline extractor's id: its output depends on the vocabulary, so the vocabulary's fingerprint is part of it. */
export function offlineExtractorId(vocabulary: Vocabulary): string {
  return `${OFFLINE_MODEL_ID}/${PROMPT_VERSIONS.extract}#${vocabulary.fingerprint()}`;
}

export function extractorId(runner: LlmRunner, vocabulary: Vocabulary): string {
  return runner.offline ? offlineExtractorId(vocabulary) : `${runner.model.id}/${PROMPT_VERSIONS.extract}`;
}

export async function extractGraph(ctx: RunContext, input: ExtractGraphInput): Promise<WorkflowOutput<Record<string, never>>> {
  const { db, runner } = ctx;
  const { vocabulary } = input;
  const extractor = extractorId(runner, vocabulary);
  const pending = await chunksToExtract(db, extractor, { offlineDefersToModels: runner.offline, retryDropped: input.retryDropped });
  let dropped = 0;
  const before = runner.spend.cachedCalls;
  await runBatches(
    ctx,
    'extract_graph',
    pending,
    async (c) => {
      const doc = { kind: c.kind, title: c.title, ...(c.ref ? { ref: c.ref } : {}) };
      const call: OfflineExtractInput = { text: c.text, doc, ...(c.heading ? { heading: c.heading } : {}), vocabulary };
      return runner.run({ task: 'extract-graph', promptVersion: PROMPT_VERSIONS.extract, messages: runner.offline ? [] : extractMessages(call), input: call, schema: Extraction, maxOutputTokens: 4000 });
    },
    async (done) => {
      const rows: ExtractionToWrite[] = [];
      for (const { item, result } of done) {
        rows.push({ chunkHash: item.hash, extractor, status: result.ok ? 'ok' : 'dropped', result: result.ok ? JSON.stringify(result.value) : JSON.stringify({ error: result.error }) });
        if (result.ok) continue;
        dropped++;
        const offline = offlineExtract({ text: item.text, doc: { kind: item.kind, title: item.title, ...(item.ref ? { ref: item.ref } : {}) }, vocabulary });
        rows.push({ chunkHash: item.hash, extractor: offlineExtractorId(vocabulary), status: 'ok', result: JSON.stringify(offline) });
      }
      await db.write((w) => saveExtractions(w, rows));
    },
  );
  const cached = runner.spend.cachedCalls - before;
  if (runner.offline) await db.write((w) => dropStaleOfflineExtractions(w, extractor));
  return { stats: { extractor, chunksExtracted: pending.length, fromCache: cached, dropped }, output: {} };
}
