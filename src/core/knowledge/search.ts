import { HashingEmbedder, cosine } from '../llm/offline.js';
import { sha256 } from '../llm/runner.js';
import type { Embedder } from '../llm/types.js';
import type { Db } from '../store/db.js';
import { decodeVector, entityText, reportText, type StoredFinding } from './pipeline.js';

/*
 * Entry points into the knowledge graph for a query: full-text ranking
 * (SQLite FTS5, BM25) fused with vector similarity (reciprocal rank fusion),
 * over entities, community reports and chunks. Vectors are compared only with
 * vectors of the same embedder; when the stored vectors came from an embedder
 * not available now (a model, without its key), ranking falls back to text.
 */

const STOP = new Set('a an and are as at be by can could did do does for from had has have how i in into is it its me my of on or our so than that the their them then there these they this those to us was we were what when where which while who why will with would you your about does did tell show explain'.split(' '));

/** An FTS5 MATCH expression from free text: each content word quoted, OR-ed; undefined when nothing is left. */
export function ftsQuery(text: string): string | undefined {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
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
  const rows = await db.all<{ embedder: string; n: number }>('SELECT embedder, count(*) AS n FROM kn_embeddings GROUP BY embedder ORDER BY n DESC');
  const offline = new HashingEmbedder();
  const candidates = [...available, offline];
  for (const r of rows) {
    const e = candidates.find((c) => c.id === r.embedder);
    if (e) return e;
  }
  return undefined;
}

async function vectorRank<T>(db: Db, embedder: Embedder | undefined, query: string, items: readonly T[], text: (t: T) => string, limit: number): Promise<T[]> {
  if (!embedder || !items.length) return [];
  const [q] = (await embedder.embed([query])).vectors;
  if (!q) return [];
  const hashes = items.map((i) => sha256(text(i)));
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < hashes.length; i += 5000) {
    const rows = await db.all<{ hash: string; vector: string }>('SELECT hash, vector FROM kn_embeddings WHERE embedder = ? AND hash IN (SELECT value FROM json_each(?))', [embedder.id, JSON.stringify(hashes.slice(i, i + 5000))]);
    for (const r of rows) vectors.set(r.hash, decodeVector(r.vector));
  }
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

export interface EntityHit {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly degree: number;
  readonly extracted_by: string;
}

export async function searchEntities(db: Db, embedder: Embedder | undefined, query: string, limit = 10): Promise<Ranked<EntityHit>[]> {
  const fts = ftsQuery(query);
  const byText = fts
    ? await db.all<EntityHit>(
        `SELECT e.id, e.key, e.name, e.type, e.description, e.degree, e.extracted_by FROM kn_entities_fts f JOIN kn_entities e ON e.id = f.rowid WHERE kn_entities_fts MATCH ? ORDER BY bm25(kn_entities_fts, 4.0, 1.0) LIMIT ?`,
        [fts, limit * 3],
      )
    : [];
  const all = await db.all<EntityHit>('SELECT id, key, name, type, description, degree, extracted_by FROM kn_entities');
  const byVector = await vectorRank(db, embedder, query, all, entityText, limit * 3);
  return fuse([byText, byVector], (e) => e.id).slice(0, limit);
}

export interface ReportHit {
  readonly communityId: number;
  readonly level: number;
  readonly size: number;
  readonly title: string;
  readonly summary: string;
  readonly rating: number;
  readonly findings: StoredFinding[];
  readonly reporter: string;
}

export async function loadReports(db: Db, level?: number): Promise<ReportHit[]> {
  const rows = await db.all<{ id: number; level: number; size: number; title: string; summary: string; rating: number; findings: string; reporter: string }>(
    `SELECT c.id, c.level, c.size, r.title, r.summary, r.rating, r.findings, r.reporter FROM kn_communities c
     JOIN kn_reports r ON r.content_hash = c.content_hash ${level !== undefined ? 'WHERE c.level = ?' : ''}
     ORDER BY c.id, CASE WHEN r.reporter LIKE 'offline:%' THEN 1 ELSE 0 END, r.created_at DESC`,
    level !== undefined ? [level] : [],
  );
  const out = new Map<number, ReportHit>();
  for (const r of rows) {
    if (out.has(r.id)) continue;
    out.set(r.id, { communityId: r.id, level: r.level, size: r.size, title: r.title, summary: r.summary, rating: r.rating, findings: JSON.parse(r.findings) as StoredFinding[], reporter: r.reporter });
  }
  return [...out.values()];
}

export async function searchReports(db: Db, embedder: Embedder | undefined, query: string, limit = 12, level?: number): Promise<Ranked<ReportHit>[]> {
  const reports = await loadReports(db, level);
  const byId = new Map(reports.map((r) => [r.communityId, r]));
  const fts = ftsQuery(query);
  const byText = fts
    ? (await db.all<{ rowid: number }>('SELECT rowid FROM kn_reports_fts WHERE kn_reports_fts MATCH ? ORDER BY bm25(kn_reports_fts, 3.0, 2.0, 1.0) LIMIT ?', [fts, limit * 3]))
        .map((r) => byId.get(r.rowid))
        .filter((r): r is ReportHit => !!r)
    : [];
  const byVector = await vectorRank(db, embedder, query, reports, reportText, limit * 3);
  return fuse([byText, byVector], (r) => r.communityId).slice(0, limit);
}

export interface ChunkHit {
  readonly chunk_id: number;
  readonly doc_id: number;
  readonly text: string;
}

export async function searchChunks(db: Db, query: string, limit = 10, within?: readonly number[]): Promise<ChunkHit[]> {
  const fts = ftsQuery(query);
  if (!fts) return [];
  const filter = within ? 'AND c.id IN (SELECT value FROM json_each(?))' : '';
  return db.all<ChunkHit>(
    `SELECT c.id AS chunk_id, c.doc_id, c.text FROM kn_chunks_fts f JOIN kn_chunks c ON c.id = f.rowid WHERE kn_chunks_fts MATCH ? ${filter} ORDER BY bm25(kn_chunks_fts) LIMIT ?`,
    within ? [fts, JSON.stringify(within), limit] : [fts, limit],
  );
}
