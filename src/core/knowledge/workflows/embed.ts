import { sha256 } from '../../llm/runner.js';
import { currentReports } from '../store/communities.js';
import { chunkTexts } from '../store/documents.js';
import { embeddedHashes, saveEmbeddings } from '../store/embeddings.js';
import { entityDescriptions } from '../store/graph.js';
import { entityText, reportText } from '../text.js';
import { runBatches } from './batches.js';
import type { RunContext, WorkflowOutput } from './types.js';

/*
 * embed: vectors for the entities, the current reports and (when asked) the
 * chunks → kn_embeddings, by text hash and embedder, so a text embedded once
 * is never embedded again by the same embedder.
 */

export interface EmbedInput {
  /** Chunks too; by default search ranks chunks with FTS5 alone. */
  readonly embedChunks: boolean;
}

export async function embed(ctx: RunContext, input: EmbedInput): Promise<WorkflowOutput<Record<string, never>>> {
  const { db, runner } = ctx;
  const texts = (await entityDescriptions(db)).map(entityText);
  for (const r of await currentReports(db)) texts.push(reportText(r));
  if (input.embedChunks) texts.push(...(await chunkTexts(db)));
  const embedder = runner.embedder.id;
  const byHash = new Map<string, string>();
  for (const t of texts) byHash.set(sha256(t), t);
  const hashes = [...byHash.keys()];
  const have = await embeddedHashes(db, embedder, hashes);
  const todo = hashes.filter((h) => !have.has(h));
  const size = runner.embedder.batchSize;
  const groups: string[][] = [];
  for (let i = 0; i < todo.length; i += size) groups.push(todo.slice(i, i + size));
  await runBatches(
    ctx,
    'embed',
    groups,
    (group) => runner.embed(group.map((h) => byHash.get(h)!)),
    async (done) => {
      const vectors: { hash: string; vector: Float32Array }[] = [];
      for (const { item, result } of done) item.forEach((hash, k) => vectors.push({ hash, vector: result[k]! }));
      await db.write((w) => saveEmbeddings(w, embedder, vectors));
    },
    runner.offline ? 8 : ctx.concurrency,
  );
  return { stats: { embedder, texts: hashes.length, embedded: todo.length, reused: hashes.length - todo.length }, output: {} };
}
