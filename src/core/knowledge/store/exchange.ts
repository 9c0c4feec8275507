import type { Cell } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';
import { extractors } from './graph.js';

/*
 * What a team store (src/core/team) needs to share the knowledge memory
 * between clones: the model-made parts, content-keyed — the model-call
 * cache, extractions (entities and relationships per chunk), merged
 * descriptions, community reports, vectors — which this clone made and has
 * not shared yet, a way to adopt the team's, and the record of model passes
 * the answers cite. Offline results are never shared: every clone makes
 * them for free, and the offline pass prefers a model's result wherever one
 * is stored, so adopting the team's answers and re-running the offline pass
 * rebuilds the team's graph here with no model call.
 */

/** Each shared table: its key columns, the column naming who made a row, and every column that travels. */
export const SHARED_TABLES = {
  llm_cache: { key: ['key'], by: 'model', columns: ['key', 'task', 'model', 'prompt_version', 'output', 'input_tokens', 'output_tokens', 'created_at'] },
  kn_extractions: { key: ['chunk_hash', 'extractor'], by: 'extractor', columns: ['chunk_hash', 'extractor', 'status', 'result', 'created_at'] },
  kn_summaries: { key: ['key', 'summarizer'], by: 'summarizer', columns: ['key', 'summarizer', 'summary', 'created_at'] },
  kn_reports: { key: ['content_hash', 'reporter'], by: 'reporter', columns: ['content_hash', 'reporter', 'title', 'summary', 'rating', 'rating_explanation', 'findings', 'created_at'] },
  kn_embeddings: { key: ['hash', 'embedder'], by: 'embedder', columns: ['hash', 'embedder', 'dims', 'vector'] },
} as const;
export type SharedTable = keyof typeof SHARED_TABLES;
export type SharedRow = Record<string, Cell>;

/** Rows made here by a model and not yet shared, a page at a time; `rowid` marks them shared after the push. */
export async function unsharedRows(db: Db, table: SharedTable, limit: number): Promise<{ rowid: number; row: SharedRow }[]> {
  const t = SHARED_TABLES[table];
  const rows = await db.all<SharedRow & { _rowid: number }>(
    `SELECT rowid AS _rowid, ${t.columns.join(', ')} FROM ${table} WHERE shared IS NULL AND origin IS NULL AND ${t.by} NOT LIKE 'offline:%' LIMIT ?`,
    [limit],
  );
  return rows.map(({ _rowid, ...row }) => ({ rowid: _rowid, row }));
}

/** Call after the team store committed them. */
export async function markShared(db: Db, table: SharedTable, rowids: readonly number[]): Promise<void> {
  for (let i = 0; i < rowids.length; i += 5000) {
    await db.run(`UPDATE ${table} SET shared = 1 WHERE rowid IN (SELECT value FROM json_each(?))`, [JSON.stringify(rowids.slice(i, i + 5000))]);
  }
}

/** Adopts the team's rows: the team's answer for a key replaces this clone's, so every clone converges on the first one stored. Call inside a write. */
export async function adoptRows(db: Db, table: SharedTable, rows: readonly SharedRow[]): Promise<void> {
  if (!rows.length) return;
  const t = SHARED_TABLES[table];
  const cols = [...t.columns, 'origin', 'shared'];
  const select = cols.map((_, i) => `value->>${i}`).join(', ');
  for (let i = 0; i < rows.length; i += 1000) {
    const slice = rows.slice(i, i + 1000).map((r) => [...t.columns.map((c) => r[c] ?? null), 'team', 1]);
    await db.run(`INSERT OR REPLACE INTO ${table} (${cols.join(', ')}) SELECT ${select} FROM json_each(?)`, [JSON.stringify(slice)]);
  }
}

/** How many model-made rows came from the team and how many were made here, per table. */
export async function sharedTotals(db: Db): Promise<Record<SharedTable, { team: number; local: number; unshared: number }>> {
  const out = {} as Record<SharedTable, { team: number; local: number; unshared: number }>;
  for (const [table, t] of Object.entries(SHARED_TABLES) as [SharedTable, (typeof SHARED_TABLES)[SharedTable]][]) {
    const r = await db.get<{ team: number | null; local: number | null; unshared: number | null }>(
      `SELECT sum(origin = 'team') AS team, sum(origin IS NULL) AS local, sum(origin IS NULL AND shared IS NULL) AS unshared FROM ${table} WHERE ${t.by} NOT LIKE 'offline:%'`,
    );
    out[table] = { team: r?.team ?? 0, local: r?.local ?? 0, unshared: r?.unshared ?? 0 };
  }
  return out;
}

export interface ModelRun {
  readonly id: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly model: string;
  readonly embedder: string;
  readonly spentTokens: number;
}

/** Finished model passes run here with an id above `afterId`. */
export async function modelRunsAfter(db: Db, afterId: number): Promise<ModelRun[]> {
  return db.all<ModelRun>(
    "SELECT id, started_at AS startedAt, finished_at AS finishedAt, model, embedder, spent_tokens AS spentTokens FROM kn_runs WHERE id > ? AND mode = 'model' AND status = 'done' AND finished_at IS NOT NULL ORDER BY id",
    [afterId],
  );
}

/** A model pass someone on the team ran, as the answers cite it. */
export interface TeamBuild {
  readonly uid: string;
  readonly finishedAt: number;
  /** `openai:gpt-4o-mini`. */
  readonly model: string;
  readonly recordedBy: string;
  readonly branch: string | null;
  readonly head: string | null;
  readonly ci: { readonly provider: string; readonly pipelineUrl: string | null } | null;
}

const TEAM_BUILDS = 'knowledge.teamBuilds';

/** Keeps the latest team model passes (a few) for provenance. Call inside a write. */
export async function rememberTeamBuilds(db: Db, builds: readonly TeamBuild[]): Promise<void> {
  if (!builds.length) return;
  const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [TEAM_BUILDS]);
  const known = row ? (JSON.parse(row.value) as TeamBuild[]) : [];
  const byUid = new Map([...known, ...builds].map((b) => [b.uid, b]));
  const latest = [...byUid.values()].sort((a, b) => b.finishedAt - a.finishedAt).slice(0, 10);
  await db.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [TEAM_BUILDS, JSON.stringify(latest)]);
}

/** Where the knowledge graph's model-made parts came from: the latest team pass whose model made some of the graph here, if any. */
export async function teamKnowledgeSource(db: Db): Promise<{ readonly build: TeamBuild; readonly adopted: number } | null> {
  const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [TEAM_BUILDS]);
  if (!row) return null;
  const builds = JSON.parse(row.value) as TeamBuild[];
  const used = new Set(await extractors(db));
  const build = builds.find((b) => used.has(b.model));
  if (!build) return null;
  const adopted = (await db.get<{ n: number }>("SELECT count(*) AS n FROM kn_extractions WHERE origin = 'team'"))?.n ?? 0;
  return { build, adopted };
}
