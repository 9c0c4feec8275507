import Graph from 'graphology';
import { sha256 } from '../../llm/runner.js';
import { pairKey } from '../graph.js';
import { csrFromGraphology, hierarchicalLeiden, type HierarchicalCommunity } from '../leiden.js';
import { clearCommunities, communityCount, lastPartition, replaceCommunities } from '../store/communities.js';
import { graphForClustering, type GraphForClustering } from '../store/graph.js';
import type { ClusteringOptions, GraphFreshness, RunContext, WorkflowOutput } from './types.js';

/*
 * cluster_graph: hierarchical Leiden over the entity graph (no model) →
 * kn_communities. Warm-started from the last partition, so an edit in one
 * corner leaves the other communities (and their reports) alone. Each
 * community gets a content hash — its members, their descriptions, its
 * internal relationships or its children's hashes — the key its report is
 * cached under.
 */

export interface ClusterInput extends GraphFreshness {
  readonly clustering: ClusteringOptions;
}

/** Entity keys to a Leiden start: each key's last community, new keys in communities of their own. */
function initialMembership(keys: readonly string[], previous: Record<string, number> | undefined): Int32Array | undefined {
  if (!previous) return undefined;
  let next = Math.max(0, ...Object.values(previous)) + 1;
  const out = new Int32Array(keys.length);
  keys.forEach((k, i) => (out[i] = previous[k] ?? next++));
  return out;
}

/** Each community's content hash, children before parents. Pure. */
export function communityHashes(communities: readonly HierarchicalCommunity[], keys: readonly string[], g: GraphForClustering): Map<number, string> {
  const keyOf = new Map(g.entities.map((e) => [e.id, e.key]));
  const descriptions = new Map(g.entities.map((e) => [e.key, e.description]));
  // Each entity's relationships, so a community's internal ones are found from its members (not by scanning them all).
  const relsOf = new Map<string, { other: string; text: string }[]>();
  for (const r of g.relationships) {
    const a = keyOf.get(r.source_id)!;
    const b = keyOf.get(r.target_id)!;
    const text = `${pairKey(a, b)}=${r.weight}:${r.description}`;
    relsOf.set(a, [...(relsOf.get(a) ?? []), { other: b, text }]);
    relsOf.set(b, [...(relsOf.get(b) ?? []), { other: a, text }]);
  }
  const hash = new Map<number, string>();
  const children = new Map<number, number[]>();
  for (const c of communities) if (c.parent >= 0) children.set(c.parent, [...(children.get(c.parent) ?? []), c.id]);
  for (const c of [...communities].sort((a, b) => b.level - a.level)) {
    const members = c.nodes.map((n) => keys[n]!).sort();
    const kids = children.get(c.id);
    const memberSet = new Set(members);
    const internal: string[] = [];
    if (!kids) {
      for (const m of members) for (const r of relsOf.get(m) ?? []) if (m < r.other && memberSet.has(r.other)) internal.push(r.text);
      internal.sort();
    }
    hash.set(c.id, sha256(JSON.stringify(kids ? ['parent', kids.map((k) => hash.get(k)!).sort(), members] : ['leaf', members.map((m) => [m, descriptions.get(m)]), internal])));
  }
  return hash;
}

/** The entity graph as graphology sees it: relationships between the same two entities add up. */
function toGraphology(g: GraphForClustering): Graph {
  const graph = new Graph({ type: 'undirected', multi: false });
  const keyOf = new Map(g.entities.map((e) => [e.id, e.key]));
  for (const e of g.entities) graph.addNode(e.key);
  for (const r of g.relationships) {
    const a = keyOf.get(r.source_id)!;
    const b = keyOf.get(r.target_id)!;
    if (a === b) continue;
    if (graph.hasEdge(a, b)) graph.updateEdgeAttribute(a, b, 'weight', (w: number | undefined) => (w ?? 0) + r.weight);
    else graph.addEdge(a, b, { weight: r.weight });
  }
  return graph;
}

export async function clusterGraph(ctx: RunContext, input: ClusterInput): Promise<WorkflowOutput<Record<string, never>>> {
  const { db } = ctx;
  if (input.graphUnchanged && (await communityCount(db))) return { stats: { unchanged: 1 }, output: {} };
  const g = await graphForClustering(db);
  if (!g.entities.length) {
    await db.write((w) => clearCommunities(w));
    return { stats: { communities: 0 }, output: {} };
  }
  const { csr, keys } = csrFromGraphology(toGraphology(g));
  const start = initialMembership(keys, await lastPartition(db));
  const seed = input.clustering.seed ?? 0xdeadbeef;
  const communities = hierarchicalLeiden(csr, {
    maxClusterSize: input.clustering.maxClusterSize ?? 10,
    resolution: input.clustering.resolution ?? 1,
    seed,
    ...(start ? { initialMembership: start } : {}),
    subSeed: (nodes) => Number.parseInt(sha256(`${seed}:${nodes.map((n) => keys[n]).join('\u0000')}`).slice(0, 8), 16),
  });
  const hash = communityHashes(communities, keys, g);
  const idByKey = new Map(g.entities.map((e) => [e.key, e.id]));
  const level0: Record<string, number> = {};
  for (const c of communities) if (c.level === 0) for (const n of c.nodes) level0[keys[n]!] = c.id;
  const members: { communityId: number; entityId: number }[] = [];
  for (const c of communities) for (const n of c.nodes) members.push({ communityId: c.id + 1, entityId: idByKey.get(keys[n]!)! });
  await db.write((w) =>
    replaceCommunities(w, communities.map((c) => ({ id: c.id + 1, level: c.level, parentId: c.parent >= 0 ? c.parent + 1 : null, contentHash: hash.get(c.id)!, size: c.nodes.length })), members, level0),
  );
  const levels = new Set(communities.map((c) => c.level)).size;
  return { stats: { communities: communities.length, levels, topLevel: communities.filter((c) => c.level === 0).length, largest: Math.max(...communities.map((c) => c.nodes.length)) }, output: {} };
}
