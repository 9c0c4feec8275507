import { insertRows } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';
import { CHUNK_SELECT, type ChunkRow } from './documents.js';
import { hasTable, inSlices, replaceRows } from './rows.js';

/*
 * The entity graph (kn_entities and their mentions, kn_relationships and
 * their sources, the FTS5 index over entities), rebuilt from the extractions
 * of the current chunks, and the cache of merged descriptions (kn_summaries).
 */

export interface EntityRow {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly describedBy: string;
  /** Comma-separated, sorted. */
  readonly extractedBy: string;
  readonly mentions: number;
  readonly docs: number;
  readonly degree: number;
  readonly docId: number | null;
}

export interface GraphTables {
  readonly entities: readonly EntityRow[];
  readonly mentions: readonly { readonly entityId: number; readonly chunkId: number; readonly description: string; readonly extractedBy: string }[];
  readonly relationships: readonly { readonly id: number; readonly sourceId: number; readonly targetId: number; readonly description: string; readonly weight: number; readonly describedBy: string }[];
  readonly sources: readonly { readonly relationshipId: number; readonly chunkId: number; readonly description: string }[];
}

/** Replaces the whole graph; communities and links refer to entity ids, so they go too. Call inside a write. */
export async function replaceGraph(w: Db, g: GraphTables): Promise<void> {
  for (const table of ['kn_community_entities', 'kn_communities', 'kn_links', 'kn_relationship_sources', 'kn_relationships', 'kn_mentions', 'kn_entities']) await w.run(`DELETE FROM ${table}`);
  await insertRows(
    w,
    'kn_entities',
    ['id', 'key', 'name', 'type', 'description', 'described_by', 'extracted_by', 'mentions', 'docs', 'degree', 'doc_id'],
    g.entities.map((e) => [e.id, e.key, e.name, e.type, e.description, e.describedBy, e.extractedBy, e.mentions, e.docs, e.degree, e.docId]),
  );
  await insertRows(w, 'kn_mentions', ['entity_id', 'chunk_id', 'description', 'extracted_by'], g.mentions.map((m) => [m.entityId, m.chunkId, m.description, m.extractedBy]));
  await insertRows(w, 'kn_relationships', ['id', 'source_id', 'target_id', 'description', 'weight', 'described_by'], g.relationships.map((r) => [r.id, r.sourceId, r.targetId, r.description, r.weight, r.describedBy]));
  await insertRows(w, 'kn_relationship_sources', ['relationship_id', 'chunk_id', 'description'], g.sources.map((s) => [s.relationshipId, s.chunkId, s.description]));
  await w.run("INSERT INTO kn_entities_fts(kn_entities_fts) VALUES ('rebuild')");
}

export async function entityCount(db: Db): Promise<number> {
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_entities'))?.n ?? 0;
}

export async function entitiesByExtractor(db: Db): Promise<{ extractedBy: string; n: number }[]> {
  return db.all('SELECT extracted_by AS extractedBy, count(*) AS n FROM kn_entities GROUP BY extracted_by');
}

/** Who extracted the entities there are: `offline` and model ids, each once, sorted. */
export async function extractors(db: Db): Promise<string[]> {
  if (!(await hasTable(db, 'kn_entities'))) return [];
  const set = new Set<string>();
  for (const r of await db.all<{ extracted_by: string }>('SELECT DISTINCT extracted_by FROM kn_entities')) for (const x of r.extracted_by.split(',')) if (x) set.add(x);
  return [...set].sort();
}

// ---------------------------------------------------------------- merged descriptions

/**
 * Stored merges for these description-set keys: this summariser's, and with
 * `acceptModels` any model's (an offline run uses a model's merge where there
 * is one). Model merges first.
 */
export async function storedSummaries(db: Db, keys: readonly string[], summarizer: string, acceptModels: boolean): Promise<Map<string, { summary: string; summarizer: string }>> {
  const out = new Map<string, { summary: string; summarizer: string }>();
  const rows = await inSlices(keys, (slice) =>
    db.all<{ key: string; summary: string; summarizer: string }>(
      `SELECT key, summary, summarizer FROM kn_summaries WHERE key IN (SELECT value FROM json_each(?)) AND (summarizer = ? ${acceptModels ? "OR summarizer NOT LIKE 'offline:%'" : ''}) ORDER BY CASE WHEN summarizer LIKE 'offline:%' THEN 1 ELSE 0 END`,
      [slice, summarizer],
    ),
  );
  for (const r of rows) if (!out.has(r.key)) out.set(r.key, r);
  return out;
}

export async function saveSummaries(w: Db, rows: readonly { key: string; summarizer: string; summary: string }[], now = Date.now()): Promise<void> {
  await replaceRows(w, 'kn_summaries', ['key', 'summarizer', 'summary', 'created_at'], rows.map((r) => [r.key, r.summarizer, r.summary, now]));
}

// ---------------------------------------------------------------- reads for linking, clustering, embedding

export async function entitiesToLink(db: Db): Promise<{ id: number; name: string; type: string }[]> {
  return db.all('SELECT id, name, type FROM kn_entities ORDER BY id');
}

/**
 * Per entity, the code identifiers it is related to (by the model, or named
 * in the same sentence): they tell apart symbols that share a name.
 */
export async function codeNeighbours(db: Db): Promise<Map<number, string[]>> {
  const rows = await db.all<{ entity_id: number; other: string }>(
    `SELECT r.source_id AS entity_id, e2.name AS other FROM kn_relationships r JOIN kn_entities e2 ON e2.id = r.target_id WHERE e2.key LIKE 'code:%'
     UNION SELECT r.target_id AS entity_id, e2.name AS other FROM kn_relationships r JOIN kn_entities e2 ON e2.id = r.source_id WHERE e2.key LIKE 'code:%'`,
  );
  const out = new Map<number, string[]>();
  for (const r of rows) out.set(r.entity_id, [...(out.get(r.entity_id) ?? []), r.other]);
  return out;
}

export interface GraphForClustering {
  /** Ordered by key. */
  readonly entities: readonly { id: number; key: string; description: string }[];
  readonly relationships: readonly { source_id: number; target_id: number; weight: number; description: string }[];
}

export async function graphForClustering(db: Db): Promise<GraphForClustering> {
  return {
    entities: await db.all('SELECT id, key, description FROM kn_entities ORDER BY key'),
    relationships: await db.all('SELECT source_id, target_id, weight, description FROM kn_relationships'),
  };
}

export async function entityDescriptions(db: Db): Promise<{ name: string; type: string; description: string }[]> {
  return db.all('SELECT name, type, description FROM kn_entities');
}

// ---------------------------------------------------------------- reads for questions

export interface EntityHit {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly degree: number;
  readonly extracted_by: string;
}

const ENTITY_HIT = 'SELECT id, key, name, type, description, degree, extracted_by FROM kn_entities';

/** Entities matching an FTS5 expression, best first (BM25, names weighing more than descriptions). */
export async function matchEntities(db: Db, fts: string, limit: number): Promise<EntityHit[]> {
  return db.all<EntityHit>(
    `SELECT e.id, e.key, e.name, e.type, e.description, e.degree, e.extracted_by FROM kn_entities_fts f JOIN kn_entities e ON e.id = f.rowid WHERE kn_entities_fts MATCH ? ORDER BY bm25(kn_entities_fts, 4.0, 1.0) LIMIT ?`,
    [fts, limit],
  );
}

export async function allEntities(db: Db): Promise<EntityHit[]> {
  return db.all<EntityHit>(ENTITY_HIT);
}

export async function entityByKey(db: Db, key: string): Promise<EntityHit | undefined> {
  return db.get<EntityHit>(`${ENTITY_HIT} WHERE key = ?`, [key]);
}

/** Entities that stand for a whole document (ADR-0007, PR #142). */
export async function documentEntityIds(db: Db): Promise<Set<number>> {
  return new Set((await db.all<{ id: number }>('SELECT id FROM kn_entities WHERE doc_id IS NOT NULL')).map((r) => r.id));
}

/** The entities standing for these documents. */
export async function entitiesOfDocuments(db: Db, docIds: readonly number[]): Promise<{ id: number; doc_id: number }[]> {
  if (!docIds.length) return [];
  return db.all('SELECT id, doc_id FROM kn_entities WHERE doc_id IN (SELECT value FROM json_each(?))', [JSON.stringify(docIds)]);
}

export type Mention = ChunkRow & { readonly entity_id: number; readonly description: string; readonly extracted_by: string | null };

/** The passages mentioning these entities, by document then chunk; at most `limit` when given. */
export async function mentionsOf(db: Db, entityIds: readonly number[], limit?: number): Promise<Mention[]> {
  if (!entityIds.length) return [];
  return db.all<Mention>(
    `SELECT m.entity_id, m.description, m.extracted_by, x.* FROM kn_mentions m JOIN (${CHUNK_SELECT}) x ON x.chunk_id = m.chunk_id WHERE m.entity_id IN (SELECT value FROM json_each(?)) ORDER BY x.doc_id, x.chunk_id${limit ? ' LIMIT ?' : ''}`,
    limit ? [JSON.stringify(entityIds), limit] : [JSON.stringify(entityIds)],
  );
}

/** Entities whose name holds `name` as a part (case kept): `MsgRecoverClient` for RecoverClient. The caller decides which are affixed forms. */
export async function entitiesNamedAround(db: Db, name: string, limit = 40): Promise<{ id: number; name: string }[]> {
  if (!/^[\w$]+$/.test(name)) return [];
  return db.all<{ id: number; name: string }>('SELECT id, name FROM kn_entities WHERE name GLOB ? AND name <> ? ORDER BY length(name), id LIMIT ?', [`*${name}*`, name, limit]);
}

/** Chunks mentioning these entities. */
export async function chunksMentioning(db: Db, entityIds: readonly number[]): Promise<number[]> {
  if (!entityIds.length) return [];
  return (await db.all<{ chunk_id: number }>('SELECT DISTINCT chunk_id FROM kn_mentions WHERE entity_id IN (SELECT value FROM json_each(?))', [JSON.stringify(entityIds)])).map((r) => r.chunk_id);
}

/** Chunks mentioning the entities with these keys. */
export async function chunksMentioningKeys(db: Db, keys: readonly string[]): Promise<number[]> {
  if (!keys.length) return [];
  return (await db.all<{ chunk_id: number }>('SELECT DISTINCT m.chunk_id FROM kn_mentions m JOIN kn_entities e ON e.id = m.entity_id WHERE e.key IN (SELECT value FROM json_each(?))', [JSON.stringify(keys)])).map((r) => r.chunk_id);
}

/** The strongest relationships touching these entities, by name. */
export async function relationshipsAround(db: Db, entityIds: readonly number[], limit: number): Promise<{ source: string; target: string; description: string; weight: number }[]> {
  if (!entityIds.length) return [];
  return db.all(
    `SELECT a.name AS source, b.name AS target, r.description, r.weight FROM kn_relationships r JOIN kn_entities a ON a.id = r.source_id JOIN kn_entities b ON b.id = r.target_id
     WHERE r.source_id IN (SELECT value FROM json_each(?1)) OR r.target_id IN (SELECT value FROM json_each(?1)) ORDER BY r.weight DESC LIMIT ?2`,
    [JSON.stringify(entityIds), limit],
  );
}

export type ReferringPassage = ChunkRow & { readonly from_doc: number; readonly from_ref: string | null; readonly from_title: string; readonly description: string };

/**
 * Passages in other documents related in the graph to these documents' own
 * entities (a commit naming ADR-0007, a post-mortem naming PR #142),
 * strongest relationship first.
 */
export async function passagesReferringTo(db: Db, docIds: readonly number[]): Promise<ReferringPassage[]> {
  if (!docIds.length) return [];
  return db.all<ReferringPassage>(
    `SELECT e1.doc_id AS from_doc, e1.name AS from_ref, d1.title AS from_title, s.description, x.*
     FROM kn_entities e1 JOIN kn_documents d1 ON d1.id = e1.doc_id
     JOIN kn_relationships r ON r.source_id = e1.id OR r.target_id = e1.id
     JOIN kn_entities e2 ON e2.id = CASE WHEN r.source_id = e1.id THEN r.target_id ELSE r.source_id END
     JOIN kn_relationship_sources s ON s.relationship_id = r.id
     JOIN (${CHUNK_SELECT}) x ON x.chunk_id = s.chunk_id
     WHERE e1.doc_id IN (SELECT value FROM json_each(?)) AND x.doc_id NOT IN (SELECT value FROM json_each(?)) AND (e2.doc_id = x.doc_id OR e2.doc_id IS NULL)
     ORDER BY r.weight DESC, x.doc_id`,
    [JSON.stringify(docIds), JSON.stringify(docIds)],
  );
}

export interface RelatedConcept {
  /** The entity of `hubIds` it is related to. */
  readonly hub: number;
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly extracted_by: string;
  readonly weight: number;
}

/** Constraints, decisions and incidents (not documents) related to any of these entities. */
export async function conceptsAround(db: Db, hubIds: readonly number[]): Promise<RelatedConcept[]> {
  if (!hubIds.length) return [];
  return db.all<RelatedConcept>(
    `SELECT CASE WHEN r.source_id IN (SELECT value FROM json_each(?1)) THEN r.source_id ELSE r.target_id END AS hub,
            e.id, e.name, e.type, e.description, e.extracted_by, r.weight
     FROM kn_relationships r JOIN kn_entities e ON e.id = CASE WHEN r.source_id IN (SELECT value FROM json_each(?1)) THEN r.target_id ELSE r.source_id END
     WHERE (r.source_id IN (SELECT value FROM json_each(?1)) OR r.target_id IN (SELECT value FROM json_each(?1)))
       AND e.doc_id IS NULL AND e.type IN ('constraint', 'decision', 'incident')`,
    [JSON.stringify(hubIds)],
  );
}

/** Entity and relationship totals, and entities by type, for the status view; zeros without the tables. */
export async function graphTotals(db: Db): Promise<{ entities: number; relationships: number; byType: { type: string; n: number }[] }> {
  if (!(await hasTable(db, 'kn_entities'))) return { entities: 0, relationships: 0, byType: [] };
  const byType = await db.all<{ type: string; n: number }>('SELECT type, count(*) AS n FROM kn_entities GROUP BY type ORDER BY n DESC');
  const rels = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_relationships');
  return { entities: byType.reduce((n, t) => n + t.n, 0), relationships: rels?.n ?? 0, byType };
}
