import { nodeCrypto } from '../../shared/nodeCrypto.js';
import { insertRows } from '../store/bulk.js';
import type { Db } from '../store/db.js';
import type { Actor, AuthorKind, CaptureSource, CiRun, CommandKind, Conclusion, Episode, EpisodeProvenance, FailingTest, NewEpisode, OutcomeKind, OutcomeSource, OutcomeStatus, Touch } from './model.js';

/** Reads and writes the episodes, their touches and failing tests, and the conclusions: the only module that knows those tables' SQL shape (the working-tree snapshots are worktree.ts's). */

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
  origin: string | null;
  recorded_by: string | null;
  author: string | null;
  ci_provider: CiRun['provider'] | null;
  pipeline_url: string | null;
  ci_job: string | null;
}

export interface StoredEpisode extends Episode {
  readonly commandKey: string | null;
  /** Where it came from; absent reads as recorded here. */
  readonly provenance?: EpisodeProvenance;
}

const EPISODE_COLUMNS =
  'id, uid, started_at, ended_at, source, actor, intent, command, command_key, command_kind, cwd, branch, head, commit_message, diff_files, diff_added, diff_removed, touch_basis, outcome_kind, outcome_status, outcome_source, exit_code, evidence, tests_total, tests_failed, tests_skipped, test_reports, archived_at, archive_reason, origin, recorded_by, author, ci_provider, pipeline_url, ci_job';

export async function tableExists(db: Db, name: string): Promise<boolean> {
  return !!(await db.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]));
}

/** Whether an episode with this id (or uid: `commit:<sha>`, `seed:<id>`) is recorded. */
export async function hasEpisode(db: Db, q: { readonly id: number } | { readonly uid: string }): Promise<boolean> {
  return 'id' in q ? !!(await db.get('SELECT 1 FROM episodes WHERE id = ?', [q.id])) : !!(await db.get('SELECT 1 FROM episodes WHERE uid = ?', [q.uid]));
}

/**
 * Writes one episode with its touches and failing tests. Call inside
 * `db.write` so the episode and the working-tree snapshot commit together.
 */
export async function insertEpisode(db: Db, ep: NewEpisode, commandKey: string | null, now: number): Promise<{ id: number; uid: string }> {
  const uid = ep.uid ?? `ep-${nodeCrypto().randomUUID()}`;
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
    provenance: {
      origin: r.origin === 'team' ? 'team' : 'local',
      recordedBy: r.recorded_by,
      author: r.author,
      ci: r.ci_provider ? { provider: r.ci_provider, pipelineUrl: r.pipeline_url, job: r.ci_job } : null,
    },
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

/** The newest active episodes, newest first: what rule mining reads. */
export async function recentActiveEpisodeIds(db: Db, limit: number): Promise<number[]> {
  return (await db.all<{ id: number }>('SELECT id FROM episodes WHERE archived_at IS NULL ORDER BY started_at DESC, id DESC LIMIT ?', [limit])).map((r) => r.id);
}

/** A touch of an episode on one of the symbols asked about or in the file, with its episode's outcome. */
export interface TouchOn {
  readonly episodeId: number;
  readonly sid: string | null;
  readonly path: string;
  readonly qname: string | null;
  readonly status: OutcomeStatus;
  readonly startedAt: number;
  readonly archived: boolean;
}

/** Every touch, archived episodes included, on one of these symbols or anywhere in this file. */
export async function touchesOn(db: Db, sids: readonly string[], path: string): Promise<TouchOn[]> {
  const rows = await db.all<{ episode_id: number; sid: string | null; path: string; qname: string | null; status: OutcomeStatus; started_at: number; archived: number }>(
    `SELECT t.episode_id, t.sid, t.path, t.qname, e.outcome_status AS status, e.started_at, e.archived_at IS NOT NULL AS archived
     FROM episode_touches t JOIN episodes e ON e.id = t.episode_id
     WHERE t.sid IN (SELECT value FROM json_each(?1)) OR t.path = ?2`,
    [JSON.stringify(sids), path],
  );
  return rows.map((r) => ({ episodeId: r.episode_id, sid: r.sid, path: r.path, qname: r.qname, status: r.status, startedAt: r.started_at, archived: r.archived === 1 }));
}

/** What eviction compares with the code as it is now: the touches of active episodes, deletions left out. */
export async function activeTouches(db: Db): Promise<{ episode_id: number; sid: string | null; qname: string | null; fingerprint: string | null; change: string; path: string }[]> {
  return db.all(
    `SELECT t.episode_id, t.sid, t.qname, t.fingerprint, t.change, t.path FROM episode_touches t JOIN episodes e ON e.id = t.episode_id
     WHERE e.archived_at IS NULL AND t.change != 'deleted'`,
  );
}

/** Active episodes with their start and outcome, for the size cap. */
export async function activeEpisodes(db: Db): Promise<{ id: number; startedAt: number; status: OutcomeStatus }[]> {
  return db.all('SELECT id, started_at AS startedAt, outcome_status AS status FROM episodes WHERE archived_at IS NULL');
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

/** Conclusions about an archived attempt go with it. */
export async function archiveConclusionsOf(db: Db, episodeIds: readonly number[], at: number): Promise<void> {
  if (!episodeIds.length) return;
  await db.run(`UPDATE conclusions SET archived_at = ?, archive_reason = 'its episode was archived' WHERE archived_at IS NULL AND episode_id IN (SELECT value FROM json_each(?))`, [at, JSON.stringify(episodeIds)]);
}

/** A conclusion as it is written: its uid is made unless given (a seed keeps its own). */
export type NewConclusion = Omit<Conclusion, 'id' | 'uid' | 'archivedAt'> & { readonly uid?: string };

export async function hasConclusion(db: Db, uid: string): Promise<boolean> {
  return !!(await db.get('SELECT 1 FROM conclusions WHERE uid = ?', [uid]));
}

export async function insertConclusion(db: Db, c: NewConclusion): Promise<{ id: number; uid: string }> {
  const uid = c.uid ?? `cn-${nodeCrypto().randomUUID()}`;
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
  origin: string | null;
  recorded_by: string | null;
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
    ...(r.origin === 'team' ? { team: { recordedBy: r.recorded_by } } : {}),
  }));
}

const CONCLUSION_COLUMNS = 'id, uid, episode_id, at, author, author_kind, text, confidence, half_life_days, archived_at, origin, recorded_by';

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

/* The cheap reads behind the editor's timeline, CodeLens, hover and status view: a query or two each. */

export interface TimelineEpisode {
  readonly id: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly command: string | null;
  readonly kind: string | null;
  readonly intent: string | null;
  readonly source: string;
  readonly actor: string | null;
  readonly status: string;
  readonly outcomeKind: string;
  readonly exitCode: number | null;
  readonly testsTotal: number | null;
  readonly testsFailed: number | null;
  /** The first few symbols (or files) it touched. */
  readonly touched: readonly string[];
  readonly archived: boolean;
}

/** The latest episodes, newest first, with the symbols each touched (a handful). */
export async function recentEpisodes(db: Db, limit = 200, includeArchived = false): Promise<TimelineEpisode[]> {
  if (!(await tableExists(db, 'episodes'))) return [];
  const rows = await db.all<{
    id: number; started_at: number; ended_at: number; command: string | null; command_kind: string | null; intent: string | null; source: string; actor: string | null;
    outcome_status: string; outcome_kind: string; exit_code: number | null; tests_total: number | null; tests_failed: number | null; archived_at: number | null; touched: string | null;
  }>(
    `SELECT e.id, e.started_at, e.ended_at, e.command, e.command_kind, e.intent, e.source, e.actor, e.outcome_status, e.outcome_kind, e.exit_code, e.tests_total, e.tests_failed, e.archived_at,
            (SELECT group_concat(coalesce(t.qname, t.path), '\u001f') FROM (SELECT qname, path FROM episode_touches WHERE episode_id = e.id LIMIT 6) t) AS touched
     FROM episodes e ${includeArchived ? '' : 'WHERE e.archived_at IS NULL'} ORDER BY e.started_at DESC, e.id DESC LIMIT ?`,
    [limit],
  );
  return rows.map((r) => ({
    id: r.id,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    command: r.command,
    kind: r.command_kind,
    intent: r.intent,
    source: r.source,
    actor: r.actor,
    status: r.outcome_status,
    outcomeKind: r.outcome_kind,
    exitCode: r.exit_code,
    testsTotal: r.tests_total,
    testsFailed: r.tests_failed,
    touched: r.touched ? [...new Set(r.touched.split('\u001f'))] : [],
    archived: r.archived_at !== null,
  }));
}

/** The active episodes that touched one symbol, and those of them whose outcome was a failure or a rejection. */
export interface Attempts {
  readonly all: ReadonlySet<number>;
  readonly failed: ReadonlySet<number>;
}

/**
 * Attempts per symbol id, for the symbols asked about that any active
 * episode touched. Episode ids, not counts: a caller that adds up a type and
 * its members counts an episode that touched both once.
 */
export async function attemptsTouching(db: Db, sids: readonly string[]): Promise<Map<string, Attempts>> {
  const out = new Map<string, { all: Set<number>; failed: Set<number> }>();
  if (!sids.length || !(await tableExists(db, 'episode_touches'))) return out;
  const rows = await db.all<{ sid: string; id: number; status: OutcomeStatus }>(
    `SELECT DISTINCT t.sid, e.id, e.outcome_status AS status FROM episode_touches t JOIN episodes e ON e.id = t.episode_id
     WHERE t.sid IN (SELECT value FROM json_each(?)) AND e.archived_at IS NULL`,
    [JSON.stringify([...new Set(sids)])],
  );
  for (const r of rows) {
    let acc = out.get(r.sid);
    if (!acc) out.set(r.sid, (acc = { all: new Set(), failed: new Set() }));
    acc.all.add(r.id);
    if (r.status === 'failure' || r.status === 'rejected') acc.failed.add(r.id);
  }
  return out;
}

/** Active episodes, and those of them that failed or were rejected: the episodic line of the status view. */
export async function episodeTotals(db: Db): Promise<{ readonly episodes: number; readonly failedEpisodes: number }> {
  if (!(await tableExists(db, 'episodes'))) return { episodes: 0, failedEpisodes: 0 };
  const r = await db.get<{ episodes: number; failed: number | null }>(
    "SELECT count(*) AS episodes, sum(outcome_status IN ('failure','rejected')) AS failed FROM episodes WHERE archived_at IS NULL",
  );
  return { episodes: r?.episodes ?? 0, failedEpisodes: r?.failed ?? 0 };
}

/*
 * What a team store (src/core/team) needs to share episodes and conclusions
 * between clones: the ones recorded here, in the order they were written,
 * and a way to add the ones recorded elsewhere. Uids are global (`ep-<uuid>`,
 * `commit:<sha>`, `seed:<id>`), so the same attempt is never stored twice.
 */

/** An episode as it travels between clones: its uid and provenance with it. */
export type SharedEpisode = NewEpisode & { readonly uid: string; readonly commandKey: string | null; readonly provenance: EpisodeProvenance };

/** Episodes recorded in this clone with an id above `afterId`, oldest first; `lastId` is how far the scan went (pulled episodes in between are skipped). */
export async function localEpisodesAfter(db: Db, afterId: number, limit: number): Promise<{ episodes: StoredEpisode[]; lastId: number }> {
  const rows = await db.all<{ id: number; origin: string | null }>('SELECT id, origin FROM episodes WHERE id > ? ORDER BY id LIMIT ?', [afterId, limit]);
  const ids = rows.filter((r) => r.origin === null).map((r) => r.id);
  return { episodes: await loadEpisodes(db, ids), lastId: rows.length ? rows[rows.length - 1]!.id : afterId };
}

/** Adds episodes recorded elsewhere (pulled from the team store), a page in a few statements; a uid already here is skipped. Call inside `db.write`. */
export async function insertSharedEpisodes(db: Db, list: readonly SharedEpisode[], now: number): Promise<number> {
  if (!list.length) return 0;
  const known = await episodeIdsByUid(db, list.map((e) => e.uid));
  const fresh = [...new Map(list.filter((e) => !known.has(e.uid)).map((e) => [e.uid, e])).values()];
  if (!fresh.length) return 0;
  await insertRows(
    db,
    'episodes',
    ['uid', 'started_at', 'ended_at', 'source', 'actor', 'intent', 'command', 'command_key', 'command_kind', 'cwd', 'branch', 'head', 'commit_message', 'diff_files', 'diff_added', 'diff_removed',
      'touch_basis', 'outcome_kind', 'outcome_status', 'outcome_source', 'exit_code', 'evidence', 'tests_total', 'tests_failed', 'tests_skipped', 'test_reports', 'created_at',
      'origin', 'recorded_by', 'author', 'ci_provider', 'pipeline_url', 'ci_job'],
    fresh.map((ep) => {
      const t = ep.tests;
      const p = ep.provenance;
      return [
        ep.uid, ep.startedAt, ep.endedAt, ep.source, ep.actor, ep.intent, ep.command, ep.commandKey, ep.commandKind, ep.cwd, ep.branch, ep.head, ep.commitMessage, ep.diff.files, ep.diff.added, ep.diff.removed,
        ep.touchBasis, ep.outcome.kind, ep.outcome.status, ep.outcome.source, ep.outcome.exitCode, ep.outcome.evidence,
        t ? t.total : null, t ? t.failed + t.errors : null, t ? t.skipped : null, t ? JSON.stringify(t.reports) : null, now,
        p.origin === 'team' ? 'team' : null, p.recordedBy, p.author, p.ci?.provider ?? null, p.ci?.pipelineUrl ?? null, p.ci?.job ?? null,
      ];
    }),
  );
  const ids = await episodeIdsByUid(db, fresh.map((e) => e.uid));
  await insertRows(
    db,
    'episode_touches',
    ['episode_id', 'path', 'sid', 'qname', 'kind', 'lines', 'change', 'fingerprint', 'fresh'],
    fresh.flatMap((ep) => ep.touches.map((x) => [ids.get(ep.uid)!, x.path, x.sid, x.qname, x.kind, x.lines, x.change, x.fingerprint, x.fresh ? 1 : 0])),
  );
  await insertRows(
    db,
    'episode_tests',
    ['episode_id', 'suite', 'name', 'status', 'message', 'file'],
    fresh.flatMap((ep) => (ep.tests?.failing ?? []).slice(0, 500).map((f) => [ids.get(ep.uid)!, f.suite, f.name, f.status, f.message, f.file])),
  );
  return fresh.length;
}

/** Marks an episode as CI's record of a run (actor ci, the pipeline), adding touches its working tree could not show (a CI checkout is clean). */
export async function markCiEpisode(db: Db, id: number, ci: CiRun, extra: { readonly touches?: readonly Touch[]; readonly branch?: string | null } = {}): Promise<void> {
  await db.run("UPDATE episodes SET actor = 'ci', ci_provider = ?, pipeline_url = ?, ci_job = ?, branch = coalesce(branch, ?) WHERE id = ?", [ci.provider, ci.pipelineUrl, ci.job, extra.branch ?? null, id]);
  const touches = extra.touches ?? [];
  if (!touches.length) return;
  await insertRows(
    db,
    'episode_touches',
    ['episode_id', 'path', 'sid', 'qname', 'kind', 'lines', 'change', 'fingerprint', 'fresh'],
    touches.map((x) => [id, x.path, x.sid, x.qname, x.kind, x.lines, x.change, x.fingerprint, x.fresh ? 1 : 0]),
  );
}

export async function episodeIdsByUid(db: Db, uids: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < uids.length; i += 5000) {
    const rows = await db.all<{ id: number; uid: string }>('SELECT id, uid FROM episodes WHERE uid IN (SELECT value FROM json_each(?))', [JSON.stringify(uids.slice(i, i + 5000))]);
    for (const r of rows) out.set(r.uid, r.id);
  }
  return out;
}

export async function episodeUidsById(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db.all<{ id: number; uid: string }>('SELECT id, uid FROM episodes WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids.slice(i, i + 5000))]);
    for (const r of rows) out.set(r.id, r.uid);
  }
  return out;
}

/** A conclusion as it travels between clones: its episode named by uid. */
export type SharedConclusion = Omit<Conclusion, 'id' | 'episodeId' | 'archivedAt' | 'team'> & { readonly episodeUid: string | null; readonly recordedBy: string | null };

/** Conclusions recorded in this clone with an id above `afterId`, oldest first. */
export async function localConclusionsAfter(db: Db, afterId: number, limit: number): Promise<{ conclusions: SharedConclusion[]; lastId: number }> {
  const rows = await db.all<ConclusionRow>(`SELECT ${CONCLUSION_COLUMNS} FROM conclusions WHERE id > ? ORDER BY id LIMIT ?`, [afterId, limit]);
  const local = await withSymbols(db, rows.filter((r) => r.origin === null));
  const uids = await episodeUidsById(db, local.map((c) => c.episodeId).filter((id): id is number => id !== null));
  return {
    conclusions: local.map(({ id: _i, episodeId, archivedAt: _a, team: _t, ...c }) => ({ ...c, episodeUid: episodeId === null ? null : (uids.get(episodeId) ?? null), recordedBy: null })),
    lastId: rows.length ? rows[rows.length - 1]!.id : afterId,
  };
}

/** Adds conclusions recorded elsewhere; a uid already here is skipped. Call inside `db.write`, after their episodes. */
export async function insertSharedConclusions(db: Db, list: readonly SharedConclusion[]): Promise<number> {
  if (!list.length) return 0;
  const episodes = await episodeIdsByUid(db, list.map((c) => c.episodeUid).filter((u): u is string => u !== null));
  let added = 0;
  for (const c of list) {
    if (await hasConclusion(db, c.uid)) continue;
    const { id } = await insertConclusion(db, { ...c, episodeId: c.episodeUid ? (episodes.get(c.episodeUid) ?? null) : null });
    await db.run("UPDATE conclusions SET origin = 'team', recorded_by = ? WHERE id = ?", [c.recordedBy, id]);
    added++;
  }
  return added;
}

/** Episodes pulled from a team store, for status lines. */
export async function sharedEpisodeCounts(db: Db): Promise<{ readonly local: number; readonly team: number; readonly ci: number }> {
  const r = await db.get<{ local: number | null; team: number | null; ci: number | null }>(
    "SELECT sum(origin IS NULL) AS local, sum(origin = 'team') AS team, sum(ci_provider IS NOT NULL) AS ci FROM episodes",
  );
  return { local: r?.local ?? 0, team: r?.team ?? 0, ci: r?.ci ?? 0 };
}

/** Episodes and conclusions recorded here after these ids: what a push has still to send. */
export async function localCountsAfter(db: Db, episodeId: number, conclusionId: number): Promise<{ readonly episodes: number; readonly conclusions: number }> {
  const e = await db.get<{ n: number }>('SELECT count(*) AS n FROM episodes WHERE id > ? AND origin IS NULL', [episodeId]);
  const c = await db.get<{ n: number }>('SELECT count(*) AS n FROM conclusions WHERE id > ? AND origin IS NULL', [conclusionId]);
  return { episodes: e?.n ?? 0, conclusions: c?.n ?? 0 };
}
