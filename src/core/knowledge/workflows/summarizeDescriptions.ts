import { createHash } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { buildGraph, descriptionsKey, type ChunkExtraction, type KnowledgeGraph } from '../graph.js';
import type { Vocabulary } from '../offline.js';
import { PROMPT_VERSIONS, summarizeMessages } from '../prompts.js';
import { Summary, type Extraction } from '../schemas.js';
import { bestExtractions, documentHandles } from '../store/documents.js';
import { entityCount, saveSummaries, storedSummaries } from '../store/graph.js';
import { lastGraphHash } from '../store/runs.js';
import { runBatches } from './batches.js';
import { extractorId, offlineExtractorId } from './extractGraph.js';
import type { GraphFreshness, RunContext, WorkflowOutput } from './types.js';

/*
 * summarize_descriptions: the graph, built from the best extraction of every
 * current chunk, with the many descriptions of one entity (or relationship)
 * merged into one (a model, or the offline extractive merge) → kn_summaries,
 * a batch at a time, keyed by the set of descriptions merged. Hands the graph
 * on, with its fingerprint and whether it equals the last completed run's.
 */

export interface SummarizeInput {
  readonly vocabulary: Vocabulary;
  /** Merge relationship descriptions too (GraphRAG does). */
  readonly summarizeRelationships: boolean;
}

export interface SummarizedGraph extends GraphFreshness {
  readonly graph: KnowledgeGraph;
  readonly graphHash: string;
}

/** The graph of the current chunks, each read by the best extractor there is for it. */
export async function loadGraph(db: Db, extractor: string, offlineExtractor: string): Promise<KnowledgeGraph> {
  const items: ChunkExtraction[] = [];
  let last = -1;
  for (const r of await bestExtractions(db, extractor, offlineExtractor)) {
    if (r.chunk_id === last) continue;
    last = r.chunk_id;
    // Validated with zod before it was stored; here only a shape check, so a damaged row is skipped, not trusted.
    const extraction = JSON.parse(r.result) as Extraction;
    if (!Array.isArray(extraction?.entities) || !Array.isArray(extraction.relationships)) continue;
    items.push({ chunkId: r.chunk_id, docId: r.doc_id, extraction, extractedBy: r.extractor.startsWith('offline:') ? 'offline' : r.extractor.replace(/\/[^/]*$/, '') });
  }
  const docs = await documentHandles(db);
  return buildGraph(items, docs.map((d) => ({ id: d.id, title: d.title, kind: d.kind, ...(d.ref ? { ref: d.ref } : {}) })));
}

interface Merge {
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly descriptions: string[];
  readonly apply: (text: string, by: string) => void;
}

/** The merges the graph needs: every entity (and, when asked, relationship) described more than once. */
function mergesOf(graph: KnowledgeGraph, relationships: boolean): Merge[] {
  const out: Merge[] = [];
  for (const e of graph.entities.values()) {
    if (e.descriptions.length > 1) out.push({ key: descriptionsKey(e.name, e.descriptions), name: e.name, type: e.type, descriptions: e.descriptions, apply: (t, by) => ((e.description = t), (e.describedBy = by)) });
  }
  if (relationships) {
    for (const r of graph.relationships.values()) {
      if (r.descriptions.length < 2) continue;
      const name = `${graph.entities.get(r.a)!.name} — ${graph.entities.get(r.b)!.name}`;
      out.push({ key: descriptionsKey(name, r.descriptions), name, type: 'relationship', descriptions: r.descriptions, apply: (t, by) => ((r.description = t), (r.describedBy = by)) });
    }
  }
  return out;
}

/** Who merged a stored summary, as the graph records it: offline, or the model id. */
function mergedBy(summarizer: string): string {
  return summarizer.startsWith('offline:') ? 'offline' : summarizer.replace(/\/[^/]*$/, '');
}

export async function summarizeDescriptions(ctx: RunContext, input: SummarizeInput): Promise<WorkflowOutput<SummarizedGraph>> {
  const { db, runner } = ctx;
  const graph = await loadGraph(db, extractorId(runner, input.vocabulary), offlineExtractorId(input.vocabulary));
  const summarizer = `${runner.model.id}/${PROMPT_VERSIONS.summarize}`;
  const merges = mergesOf(graph, input.summarizeRelationships);
  // Stored merges: this summariser's, or (offline) a model's.
  const stored = await storedSummaries(db, [...new Set(merges.map((j) => j.key))], summarizer, runner.offline);
  const todo: Merge[] = [];
  const queued = new Set<string>();
  const byKey = new Map<string, Merge[]>();
  for (const j of merges) {
    byKey.set(j.key, [...(byKey.get(j.key) ?? []), j]);
    const s = stored.get(j.key);
    if (s) j.apply(s.summary, mergedBy(s.summarizer));
    else if (!queued.has(j.key)) {
      todo.push(j);
      queued.add(j.key);
    }
  }
  let dropped = 0;
  const describedBy = runner.offline ? 'offline' : runner.model.id;
  await runBatches(
    ctx,
    'summarize_descriptions',
    todo,
    (j) => {
      const call = { name: j.name, type: j.type, descriptions: j.descriptions };
      return runner.run({ task: 'summarize-descriptions', promptVersion: PROMPT_VERSIONS.summarize, messages: runner.offline ? [] : summarizeMessages(call), input: call, schema: Summary, maxOutputTokens: 500 });
    },
    async (done) => {
      const rows: { key: string; summarizer: string; summary: string }[] = [];
      for (const { item, result } of done) {
        if (!result.ok) {
          dropped++;
          continue;
        }
        for (const j of byKey.get(item.key) ?? []) j.apply(result.value.description, describedBy);
        rows.push({ key: item.key, summarizer, summary: result.value.description });
      }
      if (rows.length) await db.write((w) => saveSummaries(w, rows));
    },
  );
  const graphHash = graphFingerprint(graph);
  const graphUnchanged = (await lastGraphHash(db)) === graphHash && (await entityCount(db)) > 0;
  return {
    stats: { entities: graph.entities.size, relationships: graph.relationships.size, merges: merges.length, merged: todo.length - dropped, reused: merges.length - todo.length, dropped, unchanged: graphUnchanged ? 1 : 0 },
    output: { graph, graphHash, graphUnchanged },
  };
}

/** Everything the graph tables hold, hashed: equal fingerprints mean the tables need not be rewritten. Pure. */
export function graphFingerprint(graph: KnowledgeGraph): string {
  const h = createHash('sha256');
  for (const k of [...graph.entities.keys()].sort()) {
    const e = graph.entities.get(k)!;
    h.update(JSON.stringify([k, e.name, e.type, e.description, e.describedBy, [...e.extractedBy].sort(), e.docId ?? null, e.degree, e.docs.size, e.mentions.map((m) => [m.chunkId, m.description, m.extractedBy])]));
  }
  for (const k of [...graph.relationships.keys()].sort()) {
    const r = graph.relationships.get(k)!;
    h.update(JSON.stringify([k, r.description, r.describedBy, r.weight, r.sources.map((x) => [x.chunkId, x.description])]));
  }
  return h.digest('hex');
}
