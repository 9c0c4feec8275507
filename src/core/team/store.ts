import type { SharedConclusion, SharedEpisode } from '../episodic/store.js';
import type { SharedRow, SharedTable } from '../knowledge/store/exchange.js';
import type { SharedDecision, SharedRule } from '../procedural/store.js';
import { TeamError } from './errors.js';
import type { TeamDb } from './pg.js';
import { TEAM_MIGRATIONS, type Feed } from './schema.js';

/*
 * The team store's reads and writes on PostgreSQL: the only module that
 * knows the shape of its tables. Writes are batches, one transaction each,
 * that insert what is new and skip what is known (the same push twice
 * changes nothing); reads are feeds, a page of rows after a cursor.
 */

export type Access = 'read' | 'write' | 'admin';
const LEVELS: Record<number, Access | null> = { 0: null, 1: 'read', 2: 'write', 3: 'admin' };

export interface RepositoryAccess {
  readonly id: number;
  readonly name: string;
  readonly access: Access | null;
  /** This login writes as CI for the repository. */
  readonly ci: boolean;
}

/** Where a pull stands in one feed: the writing transaction and sequence of the last row taken. */
export interface FeedCursor {
  readonly txid: string;
  readonly seq: string;
}
export const FEED_START: FeedCursor = { txid: '0', seq: '0' };

export interface FeedPage<T> {
  readonly rows: readonly T[];
  readonly cursor: FeedCursor;
}

type Row = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'string' ? Number(v) : (v as number));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export class TeamStore {
  constructor(readonly db: TeamDb) {}

  /** Fails with `schema` unless the server has exactly the migrations this build knows (an admin runs `tenure team setup`). */
  async checkSchema(): Promise<void> {
    let applied: string[];
    try {
      applied = (await this.db.query<{ id: string }>('SELECT id FROM tenure.schema_migrations ORDER BY id', [], 'reading the schema version')).map((r) => r.id);
    } catch (e) {
      if (TeamError.is(e, 'denied')) {
        throw new TeamError('denied', 'This login may not use the team store yet: no repository has been shared with it. Ask a repository admin to run `tenure team grant <your role> read|write`.', { cause: e });
      }
      if (TeamError.is(e, 'schema')) {
        throw new TeamError('schema', 'The team store has no Tenure tables here (or this login may not read them). A database admin runs `tenure team setup <postgresql-url>` once, then grants access with `tenure team grant`.', { cause: e });
      }
      throw e;
    }
    const known = new Set(TEAM_MIGRATIONS.map((m) => m.id));
    const unknown = applied.filter((id) => !known.has(id));
    if (unknown.length) throw new TeamError('schema', `The team store was set up by a newer Tenure (${unknown.join(', ')}). Update Tenure to sync with it.`);
    const missing = [...known].filter((id) => !applied.includes(id));
    if (missing.length) throw new TeamError('schema', `The team store needs an update this Tenure brings (${missing.join(', ')}): a database admin runs \`tenure team setup <postgresql-url>\`.`);
  }

  async whoami(): Promise<string> {
    return (await this.db.query<{ u: string }>('SELECT current_user AS u'))[0]!.u;
  }

  /** pgvector on the server: installed, available to install, or absent (vectors then live in a plain table). */
  async vectorSupport(): Promise<'installed' | 'available' | 'absent'> {
    const r = await this.db.query<{ installed: string | null }>("SELECT installed_version AS installed FROM pg_available_extensions WHERE name = 'vector'");
    return !r.length ? 'absent' : r[0]!.installed ? 'installed' : 'available';
  }

  async findRepository(rootCommit: string): Promise<RepositoryAccess | undefined> {
    const r = await this.db.query<{ id: string; name: string; level: number; ci: boolean }>('SELECT * FROM tenure.find_repository($1)', [rootCommit], 'looking up the repository');
    const row = r[0];
    return row ? { id: num(row.id), name: row.name, access: LEVELS[row.level] ?? null, ci: row.ci } : undefined;
  }

  async registerRepository(rootCommit: string, remote: string | null): Promise<number> {
    const r = await this.db.query<{ id: string }>('SELECT tenure.register_repository($1, $2) AS id', [rootCommit, remote], 'registering the repository');
    return num(r[0]!.id);
  }

  async grant(repo: number, role: string, access: Access, ci: boolean): Promise<void> {
    await this.db.query('SELECT tenure.grant_access($1, $2, $3, $4)', [repo, role, access, ci], `granting ${access} to ${role}`);
  }

  async revoke(repo: number, role: string): Promise<void> {
    await this.db.query('SELECT tenure.revoke_access($1, $2)', [repo, role], `revoking ${role}`);
  }

  async accessOf(repo: number): Promise<{ role: string; access: Access; ci: boolean; grantedBy: string; grantedAt: string }[]> {
    const rows = await this.db.query<{ role_name: string; level: Access; ci: boolean; granted_by: string; granted_at: Date }>('SELECT * FROM tenure.access_of($1)', [repo], 'listing access');
    return rows.map((r) => ({ role: r.role_name, access: r.level, ci: r.ci, grantedBy: r.granted_by, grantedAt: r.granted_at.toISOString() }));
  }

  // ------------------------------------------------------------------ writes

  /** Episodes, once each by uid. CI's record (`ci` set, or actor ci) is refused by the server unless this login writes as CI. */
  async pushEpisodes(repo: number, clone: string, list: readonly SharedEpisode[], author: string | null): Promise<number> {
    if (!list.length) return 0;
    const rows = list.map((e) => ({
      uid: e.uid,
      started_at: e.startedAt,
      ended_at: e.endedAt,
      source: e.source,
      actor: e.actor,
      intent: e.intent,
      command: e.command,
      command_key: e.commandKey,
      command_kind: e.commandKind,
      cwd: e.cwd,
      branch: e.branch,
      head: e.head,
      commit_message: e.commitMessage,
      diff_files: e.diff.files,
      diff_added: e.diff.added,
      diff_removed: e.diff.removed,
      touch_basis: e.touchBasis,
      outcome_kind: e.outcome.kind,
      outcome_status: e.outcome.status,
      outcome_source: e.outcome.source,
      exit_code: e.outcome.exitCode,
      evidence: e.outcome.evidence,
      tests: e.tests,
      touches: e.touches,
      touched_sids: [...new Set(e.touches.map((t) => t.sid).filter((s): s is string => !!s))],
      author: e.provenance.author ?? author,
      ci: e.provenance.ci,
    }));
    const r = await this.db.tx(
      (q) =>
        q<{ n: string }>(
          `WITH ins AS (
             INSERT INTO tenure.episodes (repo_id, clone, uid, started_at, ended_at, source, actor, intent, command, command_key, command_kind, cwd, branch, head, commit_message,
               diff_files, diff_added, diff_removed, touch_basis, outcome_kind, outcome_status, outcome_source, exit_code, evidence, tests, touches, touched_sids, author, ci)
             SELECT $1, $2, x.uid, x.started_at, x.ended_at, x.source, x.actor, x.intent, x.command, x.command_key, x.command_kind, x.cwd, x.branch, x.head, x.commit_message,
               x.diff_files, x.diff_added, x.diff_removed, x.touch_basis, x.outcome_kind, x.outcome_status, x.outcome_source, x.exit_code, x.evidence, x.tests, x.touches, x.touched_sids, x.author, x.ci
             FROM jsonb_to_recordset($3::jsonb) AS x(uid text, started_at bigint, ended_at bigint, source text, actor text, intent text, command text, command_key text, command_kind text,
               cwd text, branch text, head text, commit_message text, diff_files int, diff_added int, diff_removed int, touch_basis text, outcome_kind text, outcome_status text,
               outcome_source text, exit_code int, evidence text, tests jsonb, touches jsonb, touched_sids text[], author text, ci jsonb)
             ON CONFLICT (repo_id, uid) DO NOTHING RETURNING 1)
           SELECT count(*) AS n FROM ins`,
          [repo, clone, JSON.stringify(rows)],
        ),
      'pushing episodes',
    );
    return num(r[0]!.n);
  }

  async pushConclusions(repo: number, clone: string, list: readonly SharedConclusion[]): Promise<number> {
    if (!list.length) return 0;
    const rows = list.map((c) => ({ uid: c.uid, episode_uid: c.episodeUid, at: c.at, author: c.author, author_kind: c.authorKind, text: c.text, confidence: c.confidence, half_life_days: c.halfLifeDays, symbols: c.symbols }));
    const r = await this.db.tx(
      (q) =>
        q<{ n: string }>(
          `WITH ins AS (
             INSERT INTO tenure.conclusions (repo_id, clone, uid, episode_uid, at, author, author_kind, text, confidence, half_life_days, symbols)
             SELECT $1, $2, x.uid, x.episode_uid, x.at, x.author, x.author_kind, x.text, x.confidence, x.half_life_days, x.symbols
             FROM jsonb_to_recordset($3::jsonb) AS x(uid text, episode_uid text, at bigint, author text, author_kind text, text text, confidence real, half_life_days real, symbols jsonb)
             ON CONFLICT (repo_id, uid) DO NOTHING RETURNING 1)
           SELECT count(*) AS n FROM ins`,
          [repo, clone, JSON.stringify(rows)],
        ),
      'pushing conclusions',
    );
    return num(r[0]!.n);
  }

  /** Rules as mined here and their evidence: a later mining replaces an earlier one (both are derived from the same episodes). */
  async pushRules(repo: number, clone: string, list: readonly SharedRule[]): Promise<void> {
    if (!list.length) return;
    const rules = list.map((r) => ({ key: r.key, kind: r.kind, text: r.text, trigger: r.trigger, action: r.action, first_seen_at: r.firstSeenAt, mined_at: r.minedAt }));
    const evidence = list.flatMap((r) => r.evidence.map((e) => ({ rule_key: r.key, episode_uid: e.episodeUid, role: e.role, detail: e.detail, at: e.at, mined_at: r.minedAt })));
    await this.db.tx(async (q) => {
      await q(
        `INSERT INTO tenure.rules AS r (repo_id, clone, key, kind, text, trigger, action, first_seen_at, mined_at)
         SELECT $1, $2, x.key, x.kind, x.text, x.trigger, x.action, x.first_seen_at, x.mined_at
         FROM jsonb_to_recordset($3::jsonb) AS x(key text, kind text, text text, trigger jsonb, action jsonb, first_seen_at bigint, mined_at bigint)
         ON CONFLICT (repo_id, key) DO UPDATE SET text = excluded.text, trigger = excluded.trigger, action = excluded.action, mined_at = excluded.mined_at,
           first_seen_at = least(r.first_seen_at, excluded.first_seen_at), clone = excluded.clone, recorded_by = current_user, recorded_at = now(),
           txid = pg_current_xact_id(), seq = nextval('tenure.feed_seq')
         WHERE r.mined_at < excluded.mined_at AND (r.text, r.trigger, r.action) IS DISTINCT FROM (excluded.text, excluded.trigger, excluded.action)`,
        [repo, clone, JSON.stringify(rules)],
      );
      await q(
        `INSERT INTO tenure.rule_evidence AS e (repo_id, clone, rule_key, episode_uid, role, detail, at)
         SELECT $1, $2, x.rule_key, x.episode_uid, x.role, x.detail, x.at
         FROM jsonb_to_recordset($3::jsonb) AS x(rule_key text, episode_uid text, role text, detail text, at bigint)
         ON CONFLICT (repo_id, rule_key, episode_uid) DO UPDATE SET role = excluded.role, detail = excluded.detail, clone = excluded.clone, recorded_by = current_user,
           recorded_at = now(), txid = pg_current_xact_id(), seq = nextval('tenure.feed_seq')
         WHERE (e.role, e.detail) IS DISTINCT FROM (excluded.role, excluded.detail)`,
        [repo, clone, JSON.stringify(evidence)],
      );
    }, 'pushing rules');
  }

  /** A person's decisions on rules. The server refuses them from a CI login: promotion stays a person's act. */
  async pushDecisions(repo: number, clone: string, list: readonly SharedDecision[]): Promise<number> {
    if (!list.length) return 0;
    const rows = list.map((d) => ({ uid: d.uid, rule_key: d.ruleKey, at: d.at, event: d.event, actor: d.actor, detail: d.detail }));
    const r = await this.db.tx(
      (q) =>
        q<{ n: string }>(
          `WITH ins AS (
             INSERT INTO tenure.rule_events (repo_id, clone, uid, rule_key, at, event, actor, detail)
             SELECT $1, $2, x.uid, x.rule_key, x.at, x.event, x.actor, x.detail
             FROM jsonb_to_recordset($3::jsonb) AS x(uid text, rule_key text, at bigint, event text, actor text, detail jsonb)
             ON CONFLICT (repo_id, uid) DO NOTHING RETURNING 1)
           SELECT count(*) AS n FROM ins`,
          [repo, clone, JSON.stringify(rows)],
        ),
      'pushing rule decisions',
    );
    return num(r[0]!.n);
  }

  /** Model answers, content-keyed: the first stored for a key stays the team's. */
  async pushShared(repo: number, clone: string, table: SharedTable, rows: readonly SharedRow[]): Promise<number> {
    if (!rows.length) return 0;
    const spec = PG_SHARED[table];
    const payload = table === 'kn_embeddings' ? rows.map((r) => ({ ...r, vector: Buffer.from(String(r['vector']), 'base64').toString('hex') })) : rows;
    const select = spec.columns.map(([c, t]) => (table === 'kn_embeddings' && c === 'vector' ? `decode(x.vector, 'hex')` : `x.${c}`) + (t === 'bytea' ? '' : '')).join(', ');
    const defs = spec.columns.map(([c, t]) => `${c} ${t === 'bytea' ? 'text' : t}`).join(', ');
    const r = await this.db.tx(
      (q) =>
        q<{ n: string }>(
          `WITH ins AS (
             INSERT INTO tenure.${table} (repo_id, clone, ${spec.columns.map(([c]) => c).join(', ')})
             SELECT $1, $2, ${select} FROM jsonb_to_recordset($3::jsonb) AS x(${defs})
             ON CONFLICT (repo_id, ${spec.key.join(', ')}) DO NOTHING RETURNING 1)
           SELECT count(*) AS n FROM ins`,
          [repo, clone, JSON.stringify(payload)],
        ),
      `pushing ${table}`,
    );
    return num(r[0]!.n);
  }

  async pushBuilds(repo: number, clone: string, builds: readonly { uid: string; startedAt: number; finishedAt: number; mode: string; model: string; embedder: string; spentTokens: number; head: string | null; branch: string | null; ci: unknown }[]): Promise<void> {
    if (!builds.length) return;
    const rows = builds.map((b) => ({ uid: b.uid, started_at: b.startedAt, finished_at: b.finishedAt, mode: b.mode, model: b.model, embedder: b.embedder, spent_tokens: b.spentTokens, head: b.head, branch: b.branch, ci: b.ci }));
    await this.db.tx(
      (q) =>
        q(
          `INSERT INTO tenure.kn_builds (repo_id, clone, uid, started_at, finished_at, mode, model, embedder, spent_tokens, head, branch, ci)
           SELECT $1, $2, x.uid, x.started_at, x.finished_at, x.mode, x.model, x.embedder, x.spent_tokens, x.head, x.branch, x.ci
           FROM jsonb_to_recordset($3::jsonb) AS x(uid text, started_at bigint, finished_at bigint, mode text, model text, embedder text, spent_tokens bigint, head text, branch text, ci jsonb)
           ON CONFLICT (repo_id, uid) DO NOTHING`,
          [repo, clone, JSON.stringify(rows)],
        ),
      'pushing knowledge builds',
    );
  }

  /** Export files (pull requests, issues) shared as they are; a newer content for a path replaces the older. */
  async pushSources(repo: number, clone: string, files: readonly { path: string; hash: string; content: string }[]): Promise<void> {
    if (!files.length) return;
    await this.db.tx(
      (q) =>
        q(
          `INSERT INTO tenure.kn_sources AS s (repo_id, clone, path, hash, content)
           SELECT $1, $2, x.path, x.hash, x.content FROM jsonb_to_recordset($3::jsonb) AS x(path text, hash text, content text)
           ON CONFLICT (repo_id, path) DO UPDATE SET hash = excluded.hash, content = excluded.content, clone = excluded.clone, recorded_by = current_user, recorded_at = now(),
             txid = pg_current_xact_id(), seq = nextval('tenure.feed_seq')
           WHERE s.hash <> excluded.hash`,
          [repo, clone, JSON.stringify(files)],
        ),
      'pushing knowledge sources',
    );
  }

  // ------------------------------------------------------------------ reads

  /**
   * A page of a feed after the cursor, other clones' rows only. Rows of
   * transactions still running when the page is read are left for the next
   * pull (txid below the snapshot's xmin), so a row that commits after a
   * later one is never skipped.
   */
  async feed(table: Feed, repo: number, clone: string, cursor: FeedCursor, limit: number): Promise<FeedPage<Row>> {
    const rows = await this.db.query<Row & { _txid: string; _seq: string }>(
      `SELECT t.*, t.txid::text AS _txid, t.seq::text AS _seq FROM tenure.${table} t
       WHERE t.repo_id = $1 AND (t.txid, t.seq) > ($2::xid8, $3::bigint) AND t.txid < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY t.txid, t.seq LIMIT $4`,
      [repo, cursor.txid, cursor.seq, limit],
      `pulling ${table}`,
    );
    const last = rows[rows.length - 1];
    return { rows: rows.filter((r) => r['clone'] !== clone), cursor: last ? { txid: last._txid, seq: last._seq } : cursor };
  }

  /** Episodes of the repository that touched any of these symbols, newest first, read on the server (the benchmark compares it with the local read). */
  async episodesTouching(repo: number, sids: readonly string[], limit: number): Promise<{ uid: string; startedAt: number; status: string }[]> {
    const rows = await this.db.query<{ uid: string; started_at: string; outcome_status: string }>(
      'SELECT uid, started_at, outcome_status FROM tenure.episodes WHERE repo_id = $1 AND touched_sids && $2::text[] ORDER BY started_at DESC LIMIT $3',
      [repo, sids, limit],
      'reading episodes',
    );
    return rows.map((r) => ({ uid: r.uid, startedAt: num(r.started_at), status: r.outcome_status }));
  }

  /** What the team store holds for a repository. */
  async totals(repo: number): Promise<Record<string, number>> {
    const tables = ['episodes', 'conclusions', 'rules', 'rule_events', 'llm_cache', 'kn_extractions', 'kn_summaries', 'kn_reports', 'kn_embeddings', 'kn_sources', 'kn_builds', 'llm_calls'];
    const r = await this.db.query<Record<string, string>>(`SELECT ${tables.map((t) => `(SELECT count(*) FROM tenure.${t} WHERE repo_id = $1) AS ${t}`).join(', ')}`, [repo], 'counting');
    return Object.fromEntries(Object.entries(r[0] ?? {}).map(([k, v]) => [k, num(v)]));
  }

  /** The team's rule counters, counted from the evidence every clone pushed. */
  async ruleCounters(repo: number): Promise<{ key: string; text: string; successes: number; failures: number }[]> {
    const rows = await this.db.query<{ key: string; text: string; successes: string; failures: string }>(
      'SELECT r.key, r.text, coalesce(c.successes, 0) AS successes, coalesce(c.failures, 0) AS failures FROM tenure.rules r LEFT JOIN tenure.rule_counters c ON c.repo_id = r.repo_id AND c.rule_key = r.key WHERE r.repo_id = $1 ORDER BY r.key',
      [repo],
      'reading rules',
    );
    return rows.map((r) => ({ key: r.key, text: r.text, successes: num(r.successes), failures: num(r.failures) }));
  }

  /** The newest model pass recorded for the repository. */
  async latestBuild(repo: number): Promise<Row | undefined> {
    return (await this.db.query('SELECT uid, finished_at, model, recorded_by, branch, ci FROM tenure.kn_builds WHERE repo_id = $1 ORDER BY finished_at DESC LIMIT 1', [repo]))[0];
  }
}

/** The PostgreSQL column types of the shared knowledge tables, in the local store's column order. */
const PG_SHARED: Record<SharedTable, { key: readonly string[]; columns: readonly (readonly [string, string])[] }> = {
  llm_cache: { key: ['key'], columns: [['key', 'text'], ['task', 'text'], ['model', 'text'], ['prompt_version', 'text'], ['output', 'text'], ['input_tokens', 'int'], ['output_tokens', 'int'], ['created_at', 'bigint']] },
  kn_extractions: { key: ['chunk_hash', 'extractor'], columns: [['chunk_hash', 'text'], ['extractor', 'text'], ['status', 'text'], ['result', 'text'], ['created_at', 'bigint']] },
  kn_summaries: { key: ['key', 'summarizer'], columns: [['key', 'text'], ['summarizer', 'text'], ['summary', 'text'], ['created_at', 'bigint']] },
  kn_reports: {
    key: ['content_hash', 'reporter'],
    columns: [['content_hash', 'text'], ['reporter', 'text'], ['title', 'text'], ['summary', 'text'], ['rating', 'real'], ['rating_explanation', 'text'], ['findings', 'text'], ['created_at', 'bigint']],
  },
  kn_embeddings: { key: ['hash', 'embedder'], columns: [['hash', 'text'], ['embedder', 'text'], ['dims', 'int'], ['vector', 'bytea']] },
};

/** A pulled row of a shared knowledge table, as the local store writes it (vectors back to base64). */
export function sharedRowFromFeed(table: SharedTable, r: Row): SharedRow {
  const out: SharedRow = {};
  for (const [c] of PG_SHARED[table].columns) {
    const v = r[c];
    out[c] = v instanceof Buffer ? v.toString('base64') : typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null ? v : v === undefined ? null : String(v);
  }
  // bigint columns arrive as strings; the local store wants numbers.
  for (const [c, t] of PG_SHARED[table].columns) if (t === 'bigint' && typeof out[c] === 'string') out[c] = Number(out[c]);
  return out;
}

/** A pulled episode row as the episodic store adds it. */
export function episodeFromFeed(r: Row): SharedEpisode {
  const ci = r['ci'] as { provider: 'github-actions' | 'gitlab-ci' | 'jenkins'; pipelineUrl: string | null; job: string | null } | null;
  return {
    uid: String(r['uid']),
    startedAt: num(r['started_at']),
    endedAt: num(r['ended_at']),
    source: r['source'] as SharedEpisode['source'],
    actor: (r['actor'] as SharedEpisode['actor']) ?? null,
    intent: str(r['intent']),
    command: str(r['command']),
    commandKey: str(r['command_key']),
    commandKind: (r['command_kind'] as SharedEpisode['commandKind']) ?? null,
    cwd: str(r['cwd']),
    branch: str(r['branch']),
    head: str(r['head']),
    commitMessage: str(r['commit_message']),
    diff: { files: num(r['diff_files']), added: num(r['diff_added']), removed: num(r['diff_removed']) },
    touchBasis: str(r['touch_basis']),
    touches: (r['touches'] as SharedEpisode['touches']) ?? [],
    outcome: {
      kind: r['outcome_kind'] as SharedEpisode['outcome']['kind'],
      status: r['outcome_status'] as SharedEpisode['outcome']['status'],
      source: r['outcome_source'] as SharedEpisode['outcome']['source'],
      confidence: 'high',
      exitCode: r['exit_code'] === null ? null : num(r['exit_code']),
      evidence: str(r['evidence']),
    },
    tests: (r['tests'] as SharedEpisode['tests']) ?? null,
    provenance: { origin: 'team', recordedBy: str(r['recorded_by']), author: str(r['author']), ci: ci ? { provider: ci.provider, pipelineUrl: ci.pipelineUrl ?? null, job: ci.job ?? null } : null },
  };
}

export function conclusionFromFeed(r: Row): SharedConclusion {
  return {
    uid: String(r['uid']),
    episodeUid: str(r['episode_uid']),
    at: num(r['at']),
    author: String(r['author']),
    authorKind: r['author_kind'] as SharedConclusion['authorKind'],
    text: String(r['text']),
    confidence: num(r['confidence']),
    halfLifeDays: num(r['half_life_days']),
    symbols: (r['symbols'] as SharedConclusion['symbols']) ?? [],
    recordedBy: str(r['recorded_by']),
  };
}

export function ruleFromFeed(r: Row): SharedRule {
  return {
    key: String(r['key']),
    kind: r['kind'] as SharedRule['kind'],
    text: String(r['text']),
    trigger: r['trigger'] as SharedRule['trigger'],
    action: r['action'] as SharedRule['action'],
    firstSeenAt: num(r['first_seen_at']),
    minedAt: num(r['mined_at']),
    evidence: [],
  };
}

export function decisionFromFeed(r: Row): SharedDecision {
  return { uid: String(r['uid']), ruleKey: String(r['rule_key']), at: num(r['at']), event: r['event'] as SharedDecision['event'], actor: String(r['actor']), detail: r['detail'] ?? null, recordedBy: str(r['recorded_by']) };
}
