import { LINK_TIERS, type LinkTier } from '../../model/tiers.js';
import { insertRows } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';
import type { DocKind } from '../sources/document.js';
import { hasTable } from './rows.js';

/*
 * Where the knowledge memory meets the code: entity → symbol links with
 * their tier (kn_links, by symbol id so they survive a structural re-index;
 * an unresolved entity has one row without a symbol), and code comments that
 * cite a document (kn_citations).
 */

export interface LinkToWrite {
  readonly entityId: number;
  readonly tier: LinkTier;
  readonly sid: string | null;
  readonly score: number;
  readonly reason: string;
}

export interface CitationToWrite {
  readonly docId: number;
  readonly path: string;
  readonly line: number;
  readonly sid: string | null;
  readonly text: string;
}

/** Replaces every link and citation. Call inside a write. */
export async function replaceLinks(w: Db, links: readonly LinkToWrite[], citations: readonly CitationToWrite[]): Promise<void> {
  await w.run('DELETE FROM kn_links');
  await insertRows(w, 'kn_links', ['entity_id', 'tier', 'symbol_sid', 'score', 'reason'], links.map((l) => [l.entityId, l.tier, l.sid, l.score, l.reason]));
  await w.run('DELETE FROM kn_citations');
  await insertRows(w, 'kn_citations', ['doc_id', 'path', 'line', 'symbol_sid', 'text'], citations.map((c) => [c.docId, c.path, c.line, c.sid, c.text]));
}

/** Entities per link tier (every tier present, 0 where none). */
export async function linkTiers(db: Db): Promise<Record<LinkTier, number>> {
  const out = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  if (!(await hasTable(db, 'kn_links'))) return out;
  for (const r of await db.all<{ tier: LinkTier; n: number }>('SELECT tier, count(DISTINCT entity_id) AS n FROM kn_links GROUP BY tier')) out[r.tier] = r.n;
  return out;
}

export interface LinkedEntity {
  readonly entity_id: number;
  readonly name: string;
  readonly type: string;
  readonly extracted_by: string;
  readonly tier: LinkTier;
  readonly symbol_sid: string;
  readonly reason: string;
}

/** The entities linked (not unresolved) to any of these symbols. */
export async function entitiesLinkedTo(db: Db, sids: readonly string[]): Promise<LinkedEntity[]> {
  return db.all<LinkedEntity>(
    `SELECT l.entity_id, e.name, e.type, e.extracted_by, l.tier, l.symbol_sid, l.reason FROM kn_links l JOIN kn_entities e ON e.id = l.entity_id
     WHERE l.symbol_sid IN (SELECT value FROM json_each(?)) AND l.tier != 'unresolved'`,
    [JSON.stringify(sids)],
  );
}

export interface Citation {
  readonly doc_id: number;
  readonly path: string;
  readonly line: number;
  readonly symbol_sid: string;
  readonly text: string;
  readonly source: string;
  readonly kind: DocKind;
  readonly title: string;
  readonly ref: string | null;
  /** The cited document's own path. */
  readonly dpath: string | null;
  readonly url: string | null;
}

/** Code comments next to any of these symbols that cite a document, with the document. */
export async function citationsOf(db: Db, sids: readonly string[]): Promise<Citation[]> {
  return db.all<Citation>(
    `SELECT c.doc_id, c.path, c.line, c.symbol_sid, c.text, d.source, d.kind, d.title, d.ref, d.path AS dpath, d.url FROM kn_citations c JOIN kn_documents d ON d.id = c.doc_id
     WHERE c.symbol_sid IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(sids)],
  );
}

/** An entity's links, in the order they were written (the strongest first). */
export async function linksOf(db: Db, entityId: number): Promise<{ tier: LinkTier; symbol_sid: string | null; reason: string }[]> {
  return db.all('SELECT tier, symbol_sid, reason FROM kn_links WHERE entity_id = ?', [entityId]);
}

export interface DocumentsNaming {
  /** Decision records (ADRs, RFCs, design docs). */
  readonly decisions: readonly number[];
  /** Post-mortems. */
  readonly incidents: readonly number[];
}

/**
 * Per symbol id, the decision records and post-mortems that reach it: through
 * an entity linked exact or strong, or a code comment citing the document.
 * Symbols no such document reaches are absent; so is everything on a
 * database without the knowledge tables.
 */
export async function documentsNaming(db: Db, sids: readonly string[]): Promise<Map<string, DocumentsNaming>> {
  const out = new Map<string, { decisions: Set<number>; incidents: Set<number> }>();
  if (!sids.length || !(await hasTable(db, 'kn_links'))) return new Map();
  const rows = await db.all<{ sid: string; doc_id: number; kind: DocKind }>(
    `SELECT DISTINCT l.symbol_sid AS sid, d.id AS doc_id, d.kind FROM kn_links l
       JOIN kn_mentions m ON m.entity_id = l.entity_id JOIN kn_chunks c ON c.id = m.chunk_id JOIN kn_documents d ON d.id = c.doc_id
     WHERE l.symbol_sid IN (SELECT value FROM json_each(?)) AND l.tier IN ('exact','strong')
     UNION
     SELECT DISTINCT k.symbol_sid AS sid, d.id AS doc_id, d.kind FROM kn_citations k JOIN kn_documents d ON d.id = k.doc_id
     WHERE k.symbol_sid IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(sids), JSON.stringify(sids)],
  );
  for (const r of rows) {
    const incident = r.kind === 'postmortem';
    if (!incident && r.kind !== 'adr' && r.kind !== 'rfc' && r.kind !== 'design') continue;
    const acc = out.get(r.sid) ?? { decisions: new Set<number>(), incidents: new Set<number>() };
    (incident ? acc.incidents : acc.decisions).add(r.doc_id);
    out.set(r.sid, acc);
  }
  return new Map([...out].map(([sid, a]) => [sid, { decisions: [...a.decisions].sort((x, y) => x - y), incidents: [...a.incidents].sort((x, y) => x - y) }]));
}
