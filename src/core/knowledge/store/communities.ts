import { insertRows } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';
import { hasTable, inSlices, replaceRows } from './rows.js';

/*
 * The hierarchical communities (kn_communities, kn_community_entities, the
 * last level-0 partition in meta) and their reports (kn_reports by community
 * content, so a community whose content did not change keeps its report;
 * kn_reports_fts over the current communities' reports).
 */

export interface StoredFinding {
  readonly summary: string;
  readonly explanation: string;
  /** Entity keys: stable across rebuilds of the graph. */
  readonly entityKeys: readonly string[];
  /** Relationship ends as "a\u0000b" keys. */
  readonly relationshipKeys: readonly string[];
}

export interface StoredReport {
  readonly title: string;
  readonly summary: string;
  readonly rating: number;
  readonly findings: StoredFinding[];
}

export interface CommunityRow {
  readonly id: number;
  readonly level: number;
  readonly parent_id: number | null;
  readonly content_hash: string;
  readonly size: number;
}

const PARTITION = 'knowledge.partition';

export async function communityCount(db: Db): Promise<number> {
  if (!(await hasTable(db, 'kn_communities'))) return 0;
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_communities'))?.n ?? 0;
}

/** Communities deepest level first, for bottom-up reports. */
export async function communitiesBottomUp(db: Db): Promise<CommunityRow[]> {
  return db.all<CommunityRow>('SELECT id, level, parent_id, content_hash, size FROM kn_communities ORDER BY level DESC, id');
}

/** The last run's level-0 community of each entity key: where Leiden starts next time. */
export async function lastPartition(db: Db): Promise<Record<string, number> | undefined> {
  const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [PARTITION]);
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as Record<string, number>;
  } catch {
    return undefined;
  }
}

/** Leiden starts from scratch next time. Call inside a write. */
export async function forgetPartition(w: Db): Promise<void> {
  await w.run('DELETE FROM meta WHERE key = ?', [PARTITION]);
}

export async function clearCommunities(w: Db): Promise<void> {
  await w.run('DELETE FROM kn_communities');
}

/** Replaces the communities and their members, and records the level-0 partition. Call inside a write. */
export async function replaceCommunities(
  w: Db,
  communities: readonly { id: number; level: number; parentId: number | null; contentHash: string; size: number }[],
  members: readonly { communityId: number; entityId: number }[],
  partition: Record<string, number>,
): Promise<void> {
  await w.run('DELETE FROM kn_community_entities');
  await w.run('DELETE FROM kn_communities');
  await insertRows(w, 'kn_communities', ['id', 'level', 'parent_id', 'content_hash', 'size'], communities.map((c) => [c.id, c.level, c.parentId, c.contentHash, c.size]));
  await insertRows(w, 'kn_community_entities', ['community_id', 'entity_id'], members.map((m) => [m.communityId, m.entityId]));
  await w.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [PARTITION, JSON.stringify(partition)]);
}

export interface ReportContext {
  /** By degree, highest first. */
  readonly entities: readonly { id: number; key: string; name: string; type: string; description: string; degree: number; docs: number }[];
  /** Relationships inside the community, heaviest first. */
  readonly relationships: readonly { a: string; b: string; an: string; bn: string; description: string; weight: number }[];
}

/** What a community's report is written from. */
export async function reportContext(db: Db, communityId: number): Promise<ReportContext> {
  const entities = await db.all<ReportContext['entities'][number]>(
    `SELECT e.id, e.key, e.name, e.type, e.description, e.degree, e.docs FROM kn_community_entities ce JOIN kn_entities e ON e.id = ce.entity_id WHERE ce.community_id = ? ORDER BY e.degree DESC, e.key`,
    [communityId],
  );
  const relationships = await db.all<ReportContext['relationships'][number]>(
    `SELECT ea.key AS a, eb.key AS b, ea.name AS an, eb.name AS bn, r.description, r.weight FROM kn_relationships r
     JOIN kn_community_entities ca ON ca.entity_id = r.source_id AND ca.community_id = ?
     JOIN kn_community_entities cb ON cb.entity_id = r.target_id AND cb.community_id = ?
     JOIN kn_entities ea ON ea.id = r.source_id JOIN kn_entities eb ON eb.id = r.target_id
     ORDER BY r.weight DESC, ea.key, eb.key`,
    [communityId, communityId],
  );
  return { entities, relationships };
}

/**
 * Stored reports for these community contents: this reporter's, and with
 * `acceptModels` any model's (an offline run keeps a model's report). Model
 * reports first, newest first.
 */
export async function storedReports(db: Db, contentHashes: readonly string[], reporter: string, acceptModels: boolean): Promise<Map<string, StoredReport>> {
  const out = new Map<string, StoredReport>();
  const rows = await inSlices(contentHashes, (slice) =>
    db.all<{ content_hash: string; title: string; summary: string; rating: number; findings: string }>(
      `SELECT content_hash, title, summary, rating, findings FROM kn_reports WHERE content_hash IN (SELECT value FROM json_each(?)) AND (reporter = ? ${acceptModels ? "OR reporter NOT LIKE 'offline:%'" : ''})
       ORDER BY CASE WHEN reporter LIKE 'offline:%' THEN 1 ELSE 0 END, created_at DESC`,
      [slice, reporter],
    ),
  );
  for (const r of rows) if (!out.has(r.content_hash)) out.set(r.content_hash, { title: r.title, summary: r.summary, rating: r.rating, findings: JSON.parse(r.findings) as StoredFinding[] });
  return out;
}

export async function saveReports(
  w: Db,
  rows: readonly { contentHash: string; reporter: string; report: StoredReport; ratingExplanation: string }[],
  now = Date.now(),
): Promise<void> {
  await replaceRows(
    w,
    'kn_reports',
    ['content_hash', 'reporter', 'title', 'summary', 'rating', 'rating_explanation', 'findings', 'created_at'],
    rows.map((r) => [r.contentHash, r.reporter, r.report.title, r.report.summary, r.report.rating, r.ratingExplanation, JSON.stringify(r.report.findings), now]),
  );
}

export async function reportIndexSize(db: Db): Promise<number> {
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_reports_fts'))?.n ?? 0;
}

/** Rebuilds the full-text index over the reports of the current communities. Call inside a write. */
export async function replaceReportIndex(w: Db, reports: readonly { communityId: number; report: StoredReport }[]): Promise<void> {
  await w.run('DELETE FROM kn_reports_fts');
  await insertRows(
    w,
    'kn_reports_fts',
    ['rowid', 'title', 'summary', 'findings'],
    reports.map(({ communityId, report: r }) => [communityId, r.title, r.summary, r.findings.map((f) => `${f.summary} ${f.explanation}`).join('\n')]),
  );
}

/** The reports of the current communities, one per community (any reporter). */
export async function currentReports(db: Db): Promise<Pick<StoredReport, 'title' | 'summary' | 'findings'>[]> {
  const rows = await db.all<{ title: string; summary: string; findings: string }>('SELECT r.title, r.summary, r.findings FROM kn_communities c JOIN kn_reports r ON r.content_hash = c.content_hash GROUP BY c.id');
  return rows.map((r) => ({ title: r.title, summary: r.summary, findings: JSON.parse(r.findings) as StoredFinding[] }));
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

/** Every community with a report (a model's before the offline one, the newest first), optionally of one level. */
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

/** Community ids whose report matches an FTS5 expression, best first. */
export async function matchReports(db: Db, fts: string, limit: number): Promise<number[]> {
  return (await db.all<{ rowid: number }>('SELECT rowid FROM kn_reports_fts WHERE kn_reports_fts MATCH ? ORDER BY bm25(kn_reports_fts, 3.0, 2.0, 1.0) LIMIT ?', [fts, limit])).map((r) => r.rowid);
}

/** The reports of the communities these entities belong to, most specific level first. */
export async function reportsAround(db: Db, entityIds: readonly number[], limit: number): Promise<{ id: number; level: number; title: string; summary: string; rating: number }[]> {
  if (!entityIds.length) return [];
  return db.all(
    `SELECT DISTINCT c.id, c.level, r.title, r.summary, r.rating FROM kn_community_entities ce JOIN kn_communities c ON c.id = ce.community_id JOIN kn_reports r ON r.content_hash = c.content_hash
     WHERE ce.entity_id IN (SELECT value FROM json_each(?)) ORDER BY c.level DESC, r.rating DESC LIMIT ?`,
    [JSON.stringify(entityIds), limit],
  );
}

/** Communities per level, how many have a report, and the reporters of those reports. */
export async function communityTotals(db: Db): Promise<{ byLevel: { level: number; n: number }[]; levels: number; total: number; reported: number; byReporter: { reporter: string; n: number }[] }> {
  const byLevel = await db.all<{ level: number; n: number }>('SELECT level, count(*) AS n FROM kn_communities GROUP BY level ORDER BY level');
  const reported = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_communities c WHERE EXISTS (SELECT 1 FROM kn_reports r WHERE r.content_hash = c.content_hash)');
  const byReporter = await db.all<{ reporter: string; n: number }>('SELECT r.reporter, count(DISTINCT c.id) AS n FROM kn_communities c JOIN kn_reports r ON r.content_hash = c.content_hash GROUP BY r.reporter');
  return { byLevel, levels: byLevel.length, total: byLevel.reduce((n, l) => n + l.n, 0), reported: reported?.n ?? 0, byReporter };
}

export interface CommunityOverview {
  readonly id: number;
  readonly level: number;
  readonly size: number;
  readonly title: string | null;
  readonly summary: string | null;
  readonly rating: number | null;
}

/** Every community with its newest report, broadest level first, most important first. */
export async function communityOverview(db: Db): Promise<CommunityOverview[]> {
  return db.all<CommunityOverview>(
    `SELECT c.id, c.level, c.size, r.title, r.summary, r.rating FROM kn_communities c
       LEFT JOIN (SELECT content_hash, max(created_at) AS at FROM kn_reports GROUP BY content_hash) latest ON latest.content_hash = c.content_hash
       LEFT JOIN kn_reports r ON r.content_hash = latest.content_hash AND r.created_at = latest.at
     GROUP BY c.id ORDER BY c.level, r.rating DESC, c.size DESC`,
  );
}
