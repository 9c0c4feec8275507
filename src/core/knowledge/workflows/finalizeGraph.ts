import type { KnowledgeGraph } from '../graph.js';
import { chunkIds } from '../store/documents.js';
import { replaceGraph, type GraphTables } from '../store/graph.js';
import type { GraphFreshness, RunContext, WorkflowOutput } from './types.js';

/*
 * finalize_graph: the graph tables (entities, mentions, relationships and
 * their sources), rewritten from the summarised graph — unless it equals the
 * last completed run's. No model.
 */

export interface FinalizeInput extends GraphFreshness {
  readonly graph: KnowledgeGraph;
}

/** The graph as rows: entity ids by key order, relationships by their ends; mentions and sources of chunks that still exist. Pure. */
export function graphTables(graph: KnowledgeGraph, liveChunks: ReadonlySet<number>): GraphTables {
  const keys = [...graph.entities.keys()].sort();
  const idOf = new Map(keys.map((k, i) => [k, i + 1]));
  const rels = [...graph.relationships.values()].sort((x, y) => (x.a === y.a ? (x.b < y.b ? -1 : 1) : x.a < y.a ? -1 : 1));
  const entities = keys.map((k) => {
    const e = graph.entities.get(k)!;
    return { id: idOf.get(k)!, key: k, name: e.name, type: e.type, description: e.description || e.name, describedBy: e.describedBy, extractedBy: [...e.extractedBy].sort().join(','), mentions: e.mentions.length, docs: e.docs.size, degree: e.degree, docId: e.docId ?? null };
  });
  const mentions: GraphTables['mentions'][number][] = [];
  for (const k of keys) for (const m of graph.entities.get(k)!.mentions) if (liveChunks.has(m.chunkId)) mentions.push({ entityId: idOf.get(k)!, chunkId: m.chunkId, description: m.description, extractedBy: m.extractedBy });
  const relationships = rels.map((r, i) => ({ id: i + 1, sourceId: idOf.get(r.a)!, targetId: idOf.get(r.b)!, description: r.description || `${graph.entities.get(r.a)!.name} — ${graph.entities.get(r.b)!.name}`, weight: r.weight, describedBy: r.describedBy }));
  const sources: GraphTables['sources'][number][] = [];
  rels.forEach((r, i) => {
    for (const s of r.sources) if (liveChunks.has(s.chunkId)) sources.push({ relationshipId: i + 1, chunkId: s.chunkId, description: s.description });
  });
  return { entities, mentions, relationships, sources };
}

export async function finalizeGraph(ctx: RunContext, input: FinalizeInput): Promise<WorkflowOutput<Record<string, never>>> {
  const { graph } = input;
  if (input.graphUnchanged) return { stats: { entities: graph.entities.size, relationships: graph.relationships.size, unchanged: 1 }, output: {} };
  const tables = graphTables(graph, await chunkIds(ctx.db));
  await ctx.db.write((w) => replaceGraph(w, tables));
  return { stats: { entities: tables.entities.length, relationships: tables.relationships.length }, output: {} };
}
