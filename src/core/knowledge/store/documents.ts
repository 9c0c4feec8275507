import { insertRows } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';
import type { Chunk } from '../chunk.js';
import type { DocKind, SourceDocument } from '../sources/document.js';
import type { RecordState, RecordStatus } from '../sources/recordStatus.js';
import { folderOf } from '../../../shared/paths.js';
import { hasTable, replaceRows } from './rows.js';

/*
 * The documents and their text units (kn_documents, kn_chunks and the FTS5
 * index over chunks), and the per-chunk extraction cache (kn_extractions),
 * keyed by chunk hash so an unchanged chunk is never read twice by the same
 * extractor.
 */

/** A stored document, as answers name it. */
export interface DocumentRow {
  readonly doc_id: number;
  readonly source: string;
  readonly kind: DocKind;
  readonly title: string;
  readonly ref: string | null;
  readonly path: string | null;
  readonly url: string | null;
}

/** A chunk with its document, as quoting needs it. */
export interface ChunkRow extends DocumentRow {
  readonly chunk_id: number;
  readonly text: string;
  readonly start: number;
  readonly line_start: number;
  readonly sections: string | null;
  /** The record's own status, when it gives one (sources/recordStatus.ts). */
  readonly status?: RecordState | null;
  readonly status_said?: string | null;
}

/** A chunk's columns with its document's, as ChunkRow names them (`c` the chunk, `d` its document). */
const CHUNK_COLUMNS = 'c.id AS chunk_id, c.text, c.start, c.line_start, d.id AS doc_id, d.source, d.kind, d.title, d.ref, d.path, d.url, d.sections, d.status, d.status_said';

/** The chunk-with-document select the passage reads below build on. */
export const CHUNK_SELECT = `SELECT ${CHUNK_COLUMNS}
  FROM kn_chunks c JOIN kn_documents d ON d.id = c.doc_id`;

export interface StoredDocument {
  readonly id: number;
  readonly source: string;
  readonly hash: string;
}

/** Every stored document by source, with the hash of the text it was chunked from. */
export async function storedDocuments(db: Db): Promise<Map<string, StoredDocument>> {
  return new Map((await db.all<StoredDocument>('SELECT id, source, hash FROM kn_documents')).map((r) => [r.source, r]));
}

export interface DocumentToWrite {
  readonly document: SourceDocument;
  /** What storedDocuments compares next time. */
  readonly hash: string;
  readonly words: number;
  readonly chunks: readonly (Chunk & { readonly hash: string })[];
  /** The stored version it replaces (its chunks go with it). */
  readonly replaces?: number;
}

/** Writes documents with their chunks, replacing earlier versions. Call inside a write. */
export async function writeDocuments(w: Db, documents: readonly DocumentToWrite[], now = Date.now()): Promise<void> {
  for (const { document: d, hash, words, chunks, replaces } of documents) {
    if (replaces !== undefined) await w.run('DELETE FROM kn_documents WHERE id = ?', [replaces]);
    const { lastID } = await w.run(
      'INSERT INTO kn_documents (source, kind, title, ref, path, url, author, created_at, hash, words, tokens, sections, indexed_at, status, status_said) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [d.source, d.kind, d.title, d.ref ?? null, d.path ?? null, d.url ?? null, d.author ?? null, d.createdAt ?? null, hash, words, chunks.reduce((n, c) => n + c.tokens, 0), d.sections ? JSON.stringify(d.sections) : null, now, d.status?.state ?? null, d.status?.said ?? null],
    );
    await insertRows(
      w,
      'kn_chunks',
      ['doc_id', 'ord', 'hash', 'text', 'start', 'end', 'line_start', 'line_end', 'tokens', 'heading'],
      chunks.map((c) => [lastID, c.ord, c.hash, c.text, c.start, c.end, c.lineStart, c.lineEnd, c.tokens, c.heading ?? null]),
    );
  }
}

/** Removes documents (their chunks, mentions and citations go with them). Call inside a write. */
export async function removeDocuments(w: Db, ids: readonly number[]): Promise<void> {
  for (const id of ids) await w.run('DELETE FROM kn_documents WHERE id = ?', [id]);
}

/** The status each of these decision records gives itself (records that give none are absent). */
export async function recordStatuses(db: Db, ids: readonly number[]): Promise<Map<number, RecordStatus>> {
  const rows = await db.all<{ id: number; status: RecordState; status_said: string }>(
    'SELECT id, status, status_said FROM kn_documents WHERE status IS NOT NULL AND id IN (SELECT value FROM json_each(?))',
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, { state: r.status, said: r.status_said }]));
}

/** The decision records (ADRs, RFCs, designs), as documents to quote: where a superseded record's successor is looked for. */
export async function decisionRecords(db: Db): Promise<DocumentRow[]> {
  return db.all("SELECT id AS doc_id, source, kind, title, ref, path, url FROM kn_documents WHERE kind IN ('adr', 'rfc', 'design')");
}

export interface DocumentHandle {
  readonly id: number;
  readonly ref: string | null;
  readonly title: string;
  readonly kind: DocKind;
}

export async function documentHandles(db: Db): Promise<DocumentHandle[]> {
  return db.all<DocumentHandle>('SELECT id, ref, title, kind FROM kn_documents');
}

/** Documents code may cite by path or handle (commits are not cited). */
export async function citableDocuments(db: Db): Promise<{ id: number; path: string | null; ref: string | null; kind: DocKind }[]> {
  return db.all("SELECT id, path, ref, kind FROM kn_documents WHERE kind NOT IN ('commit')");
}

export async function chunkIds(db: Db): Promise<Set<number>> {
  return new Set((await db.all<{ id: number }>('SELECT id FROM kn_chunks')).map((r) => r.id));
}

export async function chunkTexts(db: Db): Promise<string[]> {
  return (await db.all<{ text: string }>('SELECT text FROM kn_chunks')).map((r) => r.text);
}

export async function chunkRow(db: Db, chunkId: number): Promise<ChunkRow | undefined> {
  return db.get<ChunkRow>(`${CHUNK_SELECT} WHERE c.id = ?`, [chunkId]);
}

export async function firstChunkOf(db: Db, docId: number): Promise<ChunkRow | undefined> {
  return db.get<ChunkRow>(`${CHUNK_SELECT} WHERE c.doc_id = ? ORDER BY c.ord LIMIT 1`, [docId]);
}

/** The first chunk of each README stored with a path in one of these folders (`src/experimental` → src/experimental/README.md). */
export async function readmesIn(db: Db, folders: readonly string[]): Promise<ChunkRow[]> {
  if (!folders.length || !(await hasTable(db, 'kn_documents'))) return [];
  const rows = await db.all<ChunkRow>(`${CHUNK_SELECT} WHERE d.kind = 'readme' AND d.path IS NOT NULL AND c.ord = 0`, []);
  const wanted = new Set(folders);
  return rows.filter((r) => wanted.has(folderOf(r.path!)));
}

/** The first chunk of each document (not a commit) whose path holds `fragment`, in any letter case. */
export async function documentsWithPathLike(db: Db, fragment: string): Promise<ChunkRow[]> {
  if (!/^[\p{L}\p{N}]+$/u.test(fragment) || !(await hasTable(db, 'kn_documents'))) return [];
  return db.all<ChunkRow>(`${CHUNK_SELECT} WHERE d.kind != 'commit' AND d.path LIKE ? AND c.ord = 0`, [`%${fragment}%`]);
}

export interface ChunkHit {
  readonly chunk_id: number;
  readonly doc_id: number;
  readonly text: string;
  /** How well it matches (BM25, higher is better). */
  readonly score: number;
}

/** Chunks matching an FTS5 expression, best first (BM25), optionally among some chunks only. */
export async function matchChunks(db: Db, fts: string, limit: number, within?: readonly number[]): Promise<ChunkHit[]> {
  const filter = within ? 'AND c.id IN (SELECT value FROM json_each(?))' : '';
  return db.all<ChunkHit>(
    `SELECT c.id AS chunk_id, c.doc_id, c.text, -bm25(kn_chunks_fts) AS score FROM kn_chunks_fts f JOIN kn_chunks c ON c.id = f.rowid WHERE kn_chunks_fts MATCH ? ${filter} ORDER BY bm25(kn_chunks_fts) LIMIT ?`,
    within ? [fts, JSON.stringify(within), limit] : [fts, limit],
  );
}

/** Whether this database has the knowledge memory's tables (an older Tenure's, opened read-only, may not). */
export function knowledgeTablesExist(db: Db): Promise<boolean> {
  return hasTable(db, 'kn_documents');
}

/** How many documents there are; 0 on a database without the knowledge tables (an older Tenure's, opened read-only). */
export async function documentCount(db: Db): Promise<number> {
  if (!(await hasTable(db, 'kn_documents'))) return 0;
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_documents'))?.n ?? 0;
}

/** Documents by kind (most first) and chunks; zeros without the tables. */
export async function documentTotals(db: Db): Promise<{ documents: number; chunks: number; byKind: { kind: DocKind; n: number }[] }> {
  if (!(await hasTable(db, 'kn_documents'))) return { documents: 0, chunks: 0, byKind: [] };
  const byKind = await db.all<{ kind: DocKind; n: number }>('SELECT kind, count(*) AS n FROM kn_documents GROUP BY kind ORDER BY n DESC');
  const chunks = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_chunks');
  return { documents: byKind.reduce((n, k) => n + k.n, 0), chunks: chunks?.n ?? 0, byKind };
}

export interface DocumentListing {
  readonly id: number;
  readonly kind: string;
  readonly title: string;
  readonly ref: string | null;
  readonly path: string | null;
  readonly url: string | null;
}

/** Every document, by kind, then handle or title. */
export async function documentListing(db: Db): Promise<DocumentListing[]> {
  return db.all<DocumentListing>('SELECT id, kind, title, ref, path, url FROM kn_documents ORDER BY kind, coalesce(ref, title)');
}

// ---------------------------------------------------------------- the extraction cache

export interface ChunkToExtract {
  readonly hash: string;
  readonly text: string;
  readonly heading: string | null;
  readonly kind: string;
  readonly title: string;
  readonly ref: string | null;
}

/**
 * Distinct chunk texts this extractor has not read yet. `offlineDefersToModels`:
 * an offline pass leaves alone chunks a model has read (a model's extraction
 * is better than ours); `retryDropped`: a chunk whose reply was dropped as
 * invalid counts as unread.
 */
export async function chunksToExtract(db: Db, extractor: string, options: { readonly offlineDefersToModels: boolean; readonly retryDropped: boolean }): Promise<ChunkToExtract[]> {
  const modelDone = options.offlineDefersToModels ? "OR EXISTS (SELECT 1 FROM kn_extractions y WHERE y.chunk_hash = c.hash AND y.status = 'ok' AND y.extractor NOT LIKE 'offline:%')" : '';
  const retry = options.retryDropped ? " AND x.status = 'ok'" : '';
  return db.all<ChunkToExtract>(
    `SELECT c.hash, min(c.text) AS text, min(c.heading) AS heading, min(d.kind) AS kind, min(d.title) AS title, min(d.ref) AS ref
     FROM kn_chunks c JOIN kn_documents d ON d.id = c.doc_id
     WHERE NOT (EXISTS (SELECT 1 FROM kn_extractions x WHERE x.chunk_hash = c.hash AND x.extractor = ?${retry}) ${modelDone})
     GROUP BY c.hash ORDER BY min(c.id)`,
    [extractor],
  );
}

export interface ExtractionToWrite {
  readonly chunkHash: string;
  readonly extractor: string;
  readonly status: 'ok' | 'dropped';
  /** JSON: the extraction, or `{ error }` for a dropped reply. */
  readonly result: string;
}

export async function saveExtractions(w: Db, rows: readonly ExtractionToWrite[], now = Date.now()): Promise<void> {
  await replaceRows(w, 'kn_extractions', ['chunk_hash', 'extractor', 'status', 'result', 'created_at'], rows.map((r) => [r.chunkHash, r.extractor, r.status, r.result, now]));
}

/** Offline extractions made with another vocabulary are stale; model extractions are kept as a cache. */
export async function dropStaleOfflineExtractions(w: Db, current: string): Promise<void> {
  await w.run("DELETE FROM kn_extractions WHERE extractor LIKE 'offline:%' AND extractor != ?", [current]);
}

export interface StoredExtraction {
  readonly chunk_id: number;
  readonly doc_id: number;
  readonly extractor: string;
  /** JSON, validated before it was stored. */
  readonly result: string;
}

/**
 * Per current chunk, the best extraction there is: this run's model; else
 * another model's (an offline run never overwrites a model's work); else the
 * offline one. Rows come ordered by chunk, best first: take the first of each.
 */
export async function bestExtractions(db: Db, extractor: string, offlineExtractor: string): Promise<StoredExtraction[]> {
  return db.all<StoredExtraction>(
    `SELECT c.id AS chunk_id, c.doc_id, x.extractor, x.result FROM kn_chunks c
     JOIN kn_extractions x ON x.chunk_hash = c.hash AND x.status = 'ok'
     WHERE x.extractor = ?1 OR x.extractor = ?2 OR x.extractor NOT LIKE 'offline:%'
     ORDER BY c.id, CASE WHEN x.extractor = ?1 AND x.extractor NOT LIKE 'offline:%' THEN 0 WHEN x.extractor NOT LIKE 'offline:%' THEN 1 ELSE 2 END, x.created_at DESC`,
    [extractor, offlineExtractor],
  );
}

/** Every chunk of these documents, by document then order: enough to put each document's text back together. */
export async function chunksOfDocuments(db: Db, docIds: readonly number[]): Promise<ChunkRow[]> {
  if (!docIds.length) return [];
  return db.all<ChunkRow>(`${CHUNK_SELECT} WHERE c.doc_id IN (SELECT value FROM json_each(?)) ORDER BY c.doc_id, c.ord`, [JSON.stringify(docIds)]);
}

/** The commit documents for these shas (from git or an export), by sha. */
export async function commitDocumentsBySha(db: Db, shas: readonly string[]): Promise<Map<string, ChunkRow>> {
  const out = new Map<string, ChunkRow>();
  if (!shas.length || !(await hasTable(db, 'kn_documents'))) return out;
  const rows = await db.all<ChunkRow & { sha: string }>(
    `SELECT s.value AS sha, x.* FROM json_each(?) s JOIN (${CHUNK_SELECT} WHERE d.kind = 'commit' AND c.ord = 0) x ON x.source = 'git:' || s.value OR x.source LIKE '%#commit:' || s.value`,
    [JSON.stringify(shas)],
  );
  for (const r of rows) if (!out.has(r.sha)) out.set(r.sha, r);
  return out;
}

/**
 * The documents of these kinds that say a word (as the full-text index stems it), at most `limit`: how rare a word
 * is among a repository's records.
 */
export async function documentsSaying(db: Db, word: string, kinds: readonly DocKind[], limit: number): Promise<number[]> {
  if (!(await hasTable(db, 'kn_chunks_fts'))) return [];
  const rows = await db.all<{ doc_id: number }>(
    `SELECT DISTINCT c.doc_id FROM kn_chunks_fts f JOIN kn_chunks c ON c.id = f.rowid JOIN kn_documents d ON d.id = c.doc_id
      WHERE kn_chunks_fts MATCH ? AND d.kind IN (SELECT value FROM json_each(?)) LIMIT ?`,
    [`"${word.replace(/"/g, '""')}"`, JSON.stringify(kinds), limit],
  );
  return rows.map((r) => r.doc_id);
}

/** Chunks of documents of these kinds matching an FTS5 expression, best first (BM25), with their documents: a search by a symbol's names. */
export async function searchDocumentChunks(db: Db, fts: string, kinds: readonly DocKind[], limit: number): Promise<ChunkRow[]> {
  if (!(await hasTable(db, 'kn_chunks_fts'))) return [];
  return db.all<ChunkRow>(
    `SELECT ${CHUNK_COLUMNS}
       FROM kn_chunks_fts f JOIN kn_chunks c ON c.id = f.rowid JOIN kn_documents d ON d.id = c.doc_id
      WHERE kn_chunks_fts MATCH ? AND d.kind IN (SELECT value FROM json_each(?)) ORDER BY bm25(kn_chunks_fts) LIMIT ?`,
    [fts, JSON.stringify(kinds), limit],
  );
}
