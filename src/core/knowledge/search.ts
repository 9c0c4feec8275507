import { STOP_WORDS } from '../../shared/stopWords.js';
import { HashingEmbedder, cosine } from '../llm/offline.js';
import { sha256 } from '../llm/runner.js';
import type { Embedder } from '../llm/types.js';
import type { Db } from '../store/db.js';
import { loadReports, matchReports, type ReportHit } from './store/communities.js';
import { matchChunks, type ChunkHit } from './store/documents.js';
import { storedEmbedders, vectorsOf } from './store/embeddings.js';
import { allEntities, matchEntities, type EntityHit } from './store/graph.js';
import { entityText, reportText } from './text.js';

/*
 * Entry points into the knowledge graph for a query: full-text ranking
 * (SQLite FTS5, BM25) fused with vector similarity (reciprocal rank fusion),
 * over entities, community reports and chunks. Vectors are compared only with
 * vectors of the same embedder; when the stored vectors came from an embedder
 * not available now (a model, without its key), ranking falls back to text.
 */

/** An FTS5 MATCH expression from free text: each content word quoted, OR-ed; undefined when nothing is left. */
export function ftsQuery(text: string): string | undefined {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
  const unique = [...new Set(words)].slice(0, 24);
  return unique.length ? unique.map((w) => `"${w}"`).join(' OR ') : undefined;
}

export interface Ranked<T> {
  readonly item: T;
  readonly score: number;
}

function fuse<T>(lists: readonly (readonly T[])[], key: (t: T) => string | number): Ranked<T>[] {
  const k = 60;
  const acc = new Map<string | number, { item: T; score: number }>();
  for (const list of lists) {
    list.forEach((item, rank) => {
      const id = key(item);
      const e = acc.get(id) ?? { item, score: 0 };
      e.score += 1 / (k + rank + 1);
      acc.set(id, e);
    });
  }
  return [...acc.values()].sort((a, b) => b.score - a.score);
}

/** The embedder whose vectors are stored, if this process can embed a query with it. */
export async function queryEmbedder(db: Db, available: readonly Embedder[]): Promise<Embedder | undefined> {
  const offline = new HashingEmbedder();
  const candidates = [...available, offline];
  for (const id of await storedEmbedders(db)) {
    const e = candidates.find((c) => c.id === id);
    if (e) return e;
  }
  return undefined;
}

async function vectorRank<T>(db: Db, embedder: Embedder | undefined, query: string, items: readonly T[], text: (t: T) => string, limit: number): Promise<T[]> {
  if (!embedder || !items.length) return [];
  const [q] = (await embedder.embed([query])).vectors;
  if (!q) return [];
  const hashes = items.map((i) => sha256(text(i)));
  const vectors = await vectorsOf(db, embedder.id, hashes);
  const scored: { item: T; s: number }[] = [];
  items.forEach((item, i) => {
    const v = vectors.get(hashes[i]!);
    if (v) scored.push({ item, s: cosine(q, v) });
  });
  return scored
    .filter((x) => x.s > 0.05)
    .sort((a, b) => b.s - a.s)
    .slice(0, limit)
    .map((x) => x.item);
}

export async function searchEntities(db: Db, embedder: Embedder | undefined, query: string, limit = 10): Promise<Ranked<EntityHit>[]> {
  const fts = ftsQuery(query);
  const byText = fts ? await matchEntities(db, fts, limit * 3) : [];
  const all = await allEntities(db);
  const byVector = await vectorRank(db, embedder, query, all, entityText, limit * 3);
  return fuse([byText, byVector], (e) => e.id).slice(0, limit);
}

export async function searchReports(db: Db, embedder: Embedder | undefined, query: string, limit = 12, level?: number): Promise<Ranked<ReportHit>[]> {
  const reports = await loadReports(db, level);
  const byId = new Map(reports.map((r) => [r.communityId, r]));
  const fts = ftsQuery(query);
  const byText = fts
    ? (await matchReports(db, fts, limit * 3))
        .map((id) => byId.get(id))
        .filter((r): r is ReportHit => !!r)
    : [];
  const byVector = await vectorRank(db, embedder, query, reports, reportText, limit * 3);
  return fuse([byText, byVector], (r) => r.communityId).slice(0, limit);
}

export async function searchChunks(db: Db, query: string, limit = 10, within?: readonly number[]): Promise<ChunkHit[]> {
  const fts = ftsQuery(query);
  return fts ? matchChunks(db, fts, limit, within) : [];
}
