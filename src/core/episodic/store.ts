import { randomUUID } from 'node:crypto';
import { insertRows } from '../store/bulk.js';
import type { Db } from '../store/db.js';
import type { Actor, AuthorKind, CaptureSource, CommandKind, Conclusion, Episode, FailingTest, NewEpisode, OutcomeKind, OutcomeSource, OutcomeStatus, Touch } from './model.js';

/** Reads and writes the episodic tables; the only module that knows their SQL shape. */

interface EpisodeRow {
  id: number;
  uid: string;
  started_at: number;
  ended_at: number;
  source: CaptureSource;
  actor: Actor | null;
  intent: string | null;
  command: string | null;
  command_key: string | null;
  command_kind: CommandKind | null;
  cwd: string | null;
  branch: string | null;
  head: string | null;
  commit_message: string | null;
  diff_files: number;
  diff_added: number;
  diff_removed: number;
  touch_basis: string | null;
  outcome_kind: OutcomeKind;
  outcome_status: OutcomeStatus;
  outcome_source: OutcomeSource;
  exit_code: number | null;
  evidence: string | null;
  tests_total: number | null;
  tests_failed: number | null;
  tests_skipped: number | null;
  test_reports: string | null;
  archived_at: number | null;
  archive_reason: string | null;
}

export interface StoredEpisode extends Episode {
  readonly commandKey: string | null;
}

const EPISODE_COLUMNS =
  'id, uid, started_at, ended_at, source, actor, intent, command, command_key, command_kind, cwd, branch, head, commit_message, diff_files, diff_added, diff_removed, touch_basis, outcome_kind, outcome_status, outcome_source, exit_code, evidence, tests_total, tests_failed, tests_skipped, test_reports, archived_at, archive_reason';

export async function tableExists(db: Db, name: string): Promise<boolean> {
  return !!(await db.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]));
}

/**
 * Writes one episode with its touches and failing tests. Call inside
 * `db.write` so the episode and the working-tree snapshot commit together.
 */
export async function insertEpisode(db: Db, ep: NewEpisode, commandKey: string | null, now: number): Promise<{ id: number; uid: string }> {
  const uid = ep.uid ?? `ep-${randomUUID()}`;
  const t = ep.tests;
  const r = await db.run(
    `INSERT INTO episodes (uid, started_at, ended_at, source, actor, intent, command, command_key, command_kind, cwd, branch, head, commit_message,
       diff_files, diff_added, diff_removed, touch_basis, outcome_kind, outcome_status, outcome_source, exit_code, evidence,
       tests_total, tests_failed, tests_skipped, test_reports, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uid, ep.startedAt, ep.endedAt, ep.source, ep.actor, ep.intent, ep.command, commandKey, ep.commandKind, ep.cwd, ep.branch, ep.head, ep.commitMessage,
      ep.diff.files, ep.diff.added, ep.diff.removed, ep.touchBasis, ep.outcome.kind, ep.outcome.status, ep.outcome.source, ep.outcome.exitCode, ep.outcome.evidence,
      t ? t.total : null, t ? t.failed + t.errors : null, t ? t.skipped : null, t ? JSON.stringify(t.reports) : null, now,
    ],
  );
  const id = r.lastID;
  await insertRows(
    db,
    'episode_touches',
    ['episode_id', 'path', 'sid', 'qname', 'kind', 'lines', 'change', 'fingerprint', 'fresh'],
    ep.touches.map((x) => [id, x.path, x.sid, x.qname, x.kind, x.lines, x.change, x.fingerprint, x.fresh ? 1 : 0]),
  );
  if (t) {
    await insertRows(
      db,
      'episode_tests',
      ['episode_id', 'suite', 'name', 'status', 'message', 'file'],
      t.failing.slice(0, 500).map((f) => [id, f.suite, f.name, f.status, f.message, f.file]),
    );
  }
  return { id, uid };
}

function toEpisode(r: EpisodeRow, touches: Touch[], failing: FailingTest[]): StoredEpisode {
  return {
    id: r.id,
    uid: r.uid,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    source: r.source,
    actor: r.actor,
    intent: r.intent,
    command: r.command,
    commandKey: r.command_key,
    commandKind: r.command_kind,
    cwd: r.cwd,
    branch: r.branch,
    head: r.head,
    commitMessage: r.commit_message,
    diff: { files: r.diff_files, added: r.diff_added, removed: r.diff_removed },
    touchBasis: r.touch_basis,
    touches,
    outcome: { kind: r.outcome_kind, status: r.outcome_status, source: r.outcome_source, confidence: 'high', exitCode: r.exit_code, evidence: r.evidence },
    tests:
      r.tests_total === null
        ? null
        : {
            total: r.tests_total,
            failed: failing.filter((f) => f.status === 'failed').length,
            errors: failing.filter((f) => f.status === 'error').length,
            skipped: r.tests_skipped ?? 0,
            reports: r.test_reports ? (JSON.parse(r.test_reports) as string[]) : [],
            failing,
          },
    archivedAt: r.archived_at,
    archiveReason: r.archive_reason,
  };
}

/** Episodes by id, with touches and failing tests, in the order asked. */
export async function loadEpisodes(db: Db, ids: readonly number[]): Promise<StoredEpisode[]> {
  if (!ids.length) return [];
  const list = JSON.stringify([...new Set(ids)]);
  const rows = await db.all<EpisodeRow>(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE id IN (SELECT value FROM json_each(?))`, [list]);
  const touches = await db.all<{ episode_id: number; path: string; sid: string | null; qname: string | null; kind: string | null; lines: number; change: Touch['change']; fingerprint: string | null; fresh: number }>(
    'SELECT episode_id, path, sid, qname, kind, lines, change, fingerprint, fresh FROM episode_touches WHERE episode_id IN (SELECT value FROM json_each(?)) ORDER BY rowid',
    [list],
  );
  const tests = await db.all<{ episode_id: number; suite: string | null; name: string; status: 'failed' | 'error'; message: string | null; file: string | null }>(
    'SELECT episode_id, suite, name, status, message, file FROM episode_tests WHERE episode_id IN (SELECT value FROM json_each(?)) ORDER BY rowid',
    [list],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const group = <T extends { episode_id: number }>(list: readonly T[]) => {
    const m = new Map<number, T[]>();
    for (const x of list) {
      let l = m.get(x.episode_id);
      if (!l) m.set(x.episode_id, (l = []));
      l.push(x);
    }
    return m;
  };
  const touchesBy = group(touches);
  const testsBy = group(tests);
  return [...new Set(ids)]
    .filter((id) => byId.has(id))
    .map((id) =>
      toEpisode(
        byId.get(id)!,
        (touchesBy.get(id) ?? []).map(({ episode_id: _e, fresh, ...t }) => ({ ...t, fresh: fresh === 1 })),
        (testsBy.get(id) ?? []).map(({ episode_id: _e, ...t }) => t),
      ),
    );
}

export async function latestEpisode(db: Db): Promise<{ id: number; ended_at: number; command: string | null; outcome_status: OutcomeStatus } | undefined> {
  return db.get('SELECT id, ended_at, command, outcome_status FROM episodes ORDER BY ended_at DESC, id DESC LIMIT 1');
}

export async function archiveEpisodes(db: Db, rows: readonly { id: number; reason: string }[], at: number): Promise<void> {
  if (!rows.length) return;
  await db.run(
    `UPDATE episodes SET archived_at = ?1, archive_reason = (SELECT value->>1 FROM json_each(?2) WHERE value->>0 = episodes.id)
     WHERE archived_at IS NULL AND id IN (SELECT value->>0 FROM json_each(?2))`,
    [at, JSON.stringify(rows.map((r) => [r.id, r.reason]))],
  );
}

export interface NewConclusion {
  readonly uid?: string;
  readonly episodeId: number | null;
  readonly at: number;
  readonly author: string;
  readonly authorKind: AuthorKind;
  readonly text: string;
  readonly confidence: number;
  readonly halfLifeDays: number;
  readonly symbols: readonly { sid: string | null; qname: string | null; path: string | null }[];
}

export async function insertConclusion(db: Db, c: NewConclusion): Promise<{ id: number; uid: string }> {
  const uid = c.uid ?? `cn-${randomUUID()}`;
  const r = await db.run(
    'INSERT INTO conclusions (uid, episode_id, at, author, author_kind, text, confidence, half_life_days) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [uid, c.episodeId, c.at, c.author, c.authorKind, c.text, c.confidence, c.halfLifeDays],
  );
  await insertRows(db, 'conclusion_symbols', ['conclusion_id', 'sid', 'qname', 'path'], c.symbols.map((s) => [r.lastID, s.sid, s.qname, s.path]));
  return { id: r.lastID, uid };
}

interface ConclusionRow {
  id: number;
  uid: string;
  episode_id: number | null;
  at: number;
  author: string;
  author_kind: AuthorKind;
  text: string;
  confidence: number;
  half_life_days: number;
  archived_at: number | null;
}

async function withSymbols(db: Db, rows: readonly ConclusionRow[]): Promise<Conclusion[]> {
  if (!rows.length) return [];
  const syms = await db.all<{ conclusion_id: number; sid: string | null; qname: string | null; path: string | null }>(
    'SELECT conclusion_id, sid, qname, path FROM conclusion_symbols WHERE conclusion_id IN (SELECT value FROM json_each(?))',
    [JSON.stringify(rows.map((r) => r.id))],
  );
  return rows.map((r) => ({
    id: r.id,
    uid: r.uid,
    episodeId: r.episode_id,
    at: r.at,
    author: r.author,
    authorKind: r.author_kind,
    text: r.text,
    confidence: r.confidence,
    halfLifeDays: r.half_life_days,
    archivedAt: r.archived_at,
    symbols: syms.filter((s) => s.conclusion_id === r.id).map(({ conclusion_id: _c, ...s }) => s),
  }));
}

const CONCLUSION_COLUMNS = 'id, uid, episode_id, at, author, author_kind, text, confidence, half_life_days, archived_at';

/** Conclusions attached to these episodes, or about these symbols or files. */
export async function conclusionsFor(db: Db, q: { episodeIds?: readonly number[]; sids?: readonly string[]; paths?: readonly string[] }): Promise<Conclusion[]> {
  const rows = await db.all<ConclusionRow>(
    `SELECT ${CONCLUSION_COLUMNS} FROM conclusions WHERE episode_id IN (SELECT value FROM json_each(?1))
       OR id IN (SELECT conclusion_id FROM conclusion_symbols WHERE sid IN (SELECT value FROM json_each(?2)) OR (sid IS NULL AND path IN (SELECT value FROM json_each(?3))))
     ORDER BY at DESC`,
    [JSON.stringify(q.episodeIds ?? []), JSON.stringify(q.sids ?? []), JSON.stringify(q.paths ?? [])],
  );
  return withSymbols(db, rows);
}

export async function allConclusions(db: Db): Promise<Conclusion[]> {
  return withSymbols(db, await db.all<ConclusionRow>(`SELECT ${CONCLUSION_COLUMNS} FROM conclusions ORDER BY at`));
}

export async function allEpisodeIds(db: Db, opts: { includeArchived?: boolean } = {}): Promise<number[]> {
  const rows = await db.all<{ id: number }>(`SELECT id FROM episodes ${opts.includeArchived ? '' : 'WHERE archived_at IS NULL'} ORDER BY started_at, id`);
  return rows.map((r) => r.id);
}

export interface EpisodeCounts {
  readonly active: number;
  readonly archived: number;
  readonly byStatus: Record<string, number>;
  readonly conclusions: number;
  readonly first: number | null;
  readonly last: number | null;
}

export async function episodeCounts(db: Db): Promise<EpisodeCounts> {
  const rows = await db.all<{ archived: number; status: string; n: number; first: number; last: number }>(
    'SELECT archived_at IS NOT NULL AS archived, outcome_status AS status, count(*) AS n, min(started_at) AS first, max(ended_at) AS last FROM episodes GROUP BY 1, 2',
  );
  const c = await db.get<{ n: number }>('SELECT count(*) AS n FROM conclusions');
  const byStatus: Record<string, number> = {};
  for (const r of rows) if (!r.archived) byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
  return {
    active: rows.filter((r) => !r.archived).reduce((n, r) => n + r.n, 0),
    archived: rows.filter((r) => r.archived).reduce((n, r) => n + r.n, 0),
    byStatus,
    conclusions: c?.n ?? 0,
    first: rows.length ? Math.min(...rows.map((r) => r.first)) : null,
    last: rows.length ? Math.max(...rows.map((r) => r.last)) : null,
  };
}
