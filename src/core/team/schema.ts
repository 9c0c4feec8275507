/*
 * The team store's tables on PostgreSQL, in schema `tenure`, as named
 * migrations applied once each by `tenure team setup` (a role that may
 * create roles and schemas). Everything is owned by the NOLOGIN role
 * tenure_owner; people and CI log in as their own roles, members of
 * tenure_member, and row-level security lets each see and write only the
 * repositories `tenure.access` grants them (read < write < admin; a grant
 * marked `ci` makes its holder a CI writer). Who wrote a row is stamped by
 * the server (`recorded_by = current_user`), so no client can write as
 * someone else — in particular, only a CI role can write a CI outcome, and
 * a CI role cannot approve a rule.
 *
 * Every shared table is a feed: `txid` (the writing transaction) and `seq`
 * order its rows, and a reader takes only rows of transactions that have
 * ended (txid below its snapshot's xmin), so a cursor (txid, seq) never
 * skips a row that commits late. Episodes, conclusions and rule events only
 * append; rules and evidence are re-mined from episodes and upserted (last
 * mining wins, nothing to merge); model answers are content-keyed (the first
 * answer stored for a key is the team's).
 */

export interface PgMigration {
  readonly id: string;
  readonly sql: string;
}

/** Episodes are the big table: spread over hash partitions by repository. */
export const EPISODE_PARTITIONS = 8;

const FEED = `
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq bigint NOT NULL DEFAULT nextval('tenure.feed_seq'),
  clone text,
  recorded_by name NOT NULL DEFAULT current_user,
  recorded_at timestamptz NOT NULL DEFAULT now()`;

/** Row-level security for a repository-scoped table: read, write (stamped with the writer), and optionally update. */
function policies(table: string, opts: { insertCheck?: string; update?: boolean } = {}): string {
  const read = `repo_id = ANY ((SELECT tenure.repos_at(current_user, 1))::bigint[])`;
  const write = `repo_id = ANY ((SELECT tenure.repos_at(current_user, 2))::bigint[]) AND recorded_by = current_user`;
  return `
  ALTER TABLE tenure.${table} ENABLE ROW LEVEL SECURITY;
  CREATE POLICY ${table}_read ON tenure.${table} FOR SELECT USING (${read});
  CREATE POLICY ${table}_write ON tenure.${table} FOR INSERT WITH CHECK (${write}${opts.insertCheck ? ` AND (${opts.insertCheck})` : ''});
  ${opts.update ? `CREATE POLICY ${table}_update ON tenure.${table} FOR UPDATE USING (repo_id = ANY ((SELECT tenure.repos_at(current_user, 2))::bigint[])) WITH CHECK (${write});` : ''}
  CREATE INDEX ${table}_feed ON tenure.${table} (repo_id, txid, seq);`;
}

const partitions = (table: string) =>
  Array.from({ length: EPISODE_PARTITIONS }, (_, i) => `CREATE TABLE tenure.${table}_p${i} PARTITION OF tenure.${table} FOR VALUES WITH (MODULUS ${EPISODE_PARTITIONS}, REMAINDER ${i});`).join('\n  ');

export const TEAM_MIGRATIONS: readonly PgMigration[] = [
  {
    id: 'team-001-repositories-access',
    sql: `
  CREATE SEQUENCE tenure.feed_seq;

  CREATE TABLE tenure.repositories (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    root_commit text NOT NULL UNIQUE,
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by name NOT NULL DEFAULT current_user
  );
  CREATE TABLE tenure.remotes (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id) ON DELETE CASCADE,
    url text NOT NULL,
    added_at timestamptz NOT NULL DEFAULT now(),
    added_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (repo_id, url)
  );
  CREATE TABLE tenure.access (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id) ON DELETE CASCADE,
    role_name name NOT NULL,
    level text NOT NULL CHECK (level IN ('read', 'write', 'admin')),
    ci boolean NOT NULL DEFAULT false,
    granted_at timestamptz NOT NULL DEFAULT now(),
    granted_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (repo_id, role_name)
  );
  -- Every grant and revocation, for audit: append-only.
  CREATE TABLE tenure.access_log (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo_id bigint NOT NULL,
    role_name name NOT NULL,
    level text NOT NULL,
    ci boolean NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    by name NOT NULL DEFAULT session_user
  );

  -- The repositories a role reaches at a level (1 read, 2 write, 3 admin) through its memberships.
  -- SECURITY DEFINER reads the grants without exposing them; "who" must be the caller's own role.
  CREATE FUNCTION tenure.repos_at(who name, min_level int) RETURNS bigint[]
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
    SELECT coalesce(array_agg(DISTINCT a.repo_id), '{}')
    FROM tenure.access a JOIN pg_roles r ON r.rolname = a.role_name
    WHERE pg_has_role(session_user, who, 'MEMBER') AND pg_has_role(who, r.oid, 'MEMBER')
      AND CASE a.level WHEN 'read' THEN 1 WHEN 'write' THEN 2 ELSE 3 END >= min_level
  $$;
  CREATE FUNCTION tenure.ci_repos(who name) RETURNS bigint[]
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
    SELECT coalesce(array_agg(DISTINCT a.repo_id), '{}')
    FROM tenure.access a JOIN pg_roles r ON r.rolname = a.role_name
    WHERE a.ci AND a.level IN ('write', 'admin') AND pg_has_role(session_user, who, 'MEMBER') AND pg_has_role(who, r.oid, 'MEMBER')
  $$;

  -- A repository by its root commit, with the login's access (0 none, 1 read, 2 write, 3 admin) and whether it writes as CI.
  CREATE FUNCTION tenure.find_repository(root text) RETURNS TABLE (id bigint, name text, level int, ci boolean)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
    SELECT r.id, r.name,
      CASE WHEN r.id = ANY (tenure.repos_at(session_user, 3)) THEN 3 WHEN r.id = ANY (tenure.repos_at(session_user, 2)) THEN 2 WHEN r.id = ANY (tenure.repos_at(session_user, 1)) THEN 1 ELSE 0 END,
      r.id = ANY (tenure.ci_repos(session_user))
    FROM tenure.repositories r WHERE r.root_commit = root
  $$;

  -- Registers a repository (members of tenure_admin only), its first admin being the caller; a known one gets the remote as an alias.
  CREATE FUNCTION tenure.register_repository(root text, remote text) RETURNS bigint
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
  DECLARE rid bigint;
  BEGIN
    SELECT r.id INTO rid FROM tenure.repositories r WHERE r.root_commit = root;
    IF rid IS NULL THEN
      IF NOT pg_has_role(session_user, 'tenure_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only a member of tenure_admin may register a repository' USING ERRCODE = '42501';
      END IF;
      INSERT INTO tenure.repositories (root_commit, name, created_by) VALUES (root, coalesce(remote, root), session_user) RETURNING id INTO rid;
      INSERT INTO tenure.access (repo_id, role_name, level, ci, granted_by) VALUES (rid, session_user, 'admin', false, session_user);
      INSERT INTO tenure.access_log (repo_id, role_name, level, ci) VALUES (rid, session_user, 'admin', false);
    ELSIF NOT rid = ANY (tenure.repos_at(session_user, 2)) THEN
      RAISE EXCEPTION 'no write access to this repository' USING ERRCODE = '42501';
    END IF;
    IF remote IS NOT NULL THEN
      INSERT INTO tenure.remotes (repo_id, url, added_by) VALUES (rid, remote, session_user) ON CONFLICT DO NOTHING;
    END IF;
    RETURN rid;
  END $$;

  -- Grants a role read, write or admin on a repository (admins of it only); the role becomes a member of tenure_member.
  CREATE FUNCTION tenure.grant_access(repo bigint, role name, lvl text, as_ci boolean) RETURNS void
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
  BEGIN
    IF NOT repo = ANY (tenure.repos_at(session_user, 3)) THEN
      RAISE EXCEPTION 'only an admin of this repository may grant access' USING ERRCODE = '42501';
    END IF;
    IF lvl NOT IN ('read', 'write', 'admin') THEN RAISE EXCEPTION 'access is read, write or admin, not %', lvl USING ERRCODE = '22023'; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role) THEN RAISE EXCEPTION 'there is no role %', role USING ERRCODE = '42704'; END IF;
    INSERT INTO tenure.access (repo_id, role_name, level, ci, granted_by) VALUES (repo, role, lvl, as_ci, session_user)
      ON CONFLICT (repo_id, role_name) DO UPDATE SET level = excluded.level, ci = excluded.ci, granted_by = excluded.granted_by, granted_at = now();
    INSERT INTO tenure.access_log (repo_id, role_name, level, ci) VALUES (repo, role, lvl, as_ci);
    IF NOT pg_has_role(role, 'tenure_member', 'MEMBER') THEN EXECUTE format('GRANT tenure_member TO %I', role); END IF;
  END $$;

  CREATE FUNCTION tenure.revoke_access(repo bigint, role name) RETURNS void
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
  BEGIN
    IF NOT repo = ANY (tenure.repos_at(session_user, 3)) THEN
      RAISE EXCEPTION 'only an admin of this repository may revoke access' USING ERRCODE = '42501';
    END IF;
    DELETE FROM tenure.access WHERE repo_id = repo AND role_name = role;
    INSERT INTO tenure.access_log (repo_id, role_name, level, ci) VALUES (repo, role, 'revoked', false);
  END $$;

  -- Who has access to a repository (its admins only).
  CREATE FUNCTION tenure.access_of(repo bigint) RETURNS TABLE (role_name name, level text, ci boolean, granted_by name, granted_at timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, tenure AS $$
  BEGIN
    IF NOT repo = ANY (tenure.repos_at(session_user, 3)) THEN
      RAISE EXCEPTION 'only an admin of this repository may list its access' USING ERRCODE = '42501';
    END IF;
    RETURN QUERY SELECT a.role_name, a.level, a.ci, a.granted_by, a.granted_at FROM tenure.access a WHERE a.repo_id = repo ORDER BY a.role_name;
  END $$;

  ALTER TABLE tenure.repositories ENABLE ROW LEVEL SECURITY;
  CREATE POLICY repositories_read ON tenure.repositories FOR SELECT USING (id = ANY ((SELECT tenure.repos_at(current_user, 1))::bigint[]));
  ALTER TABLE tenure.remotes ENABLE ROW LEVEL SECURITY;
  CREATE POLICY remotes_read ON tenure.remotes FOR SELECT USING (repo_id = ANY ((SELECT tenure.repos_at(current_user, 1))::bigint[]));
  `,
  },
  {
    id: 'team-002-episodes-rules',
    sql: `
  CREATE TABLE tenure.episodes (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    uid text NOT NULL,
    started_at bigint NOT NULL,
    ended_at bigint NOT NULL,
    source text NOT NULL,
    actor text,
    intent text,
    command text,
    command_key text,
    command_kind text,
    cwd text,
    branch text,
    head text,
    commit_message text,
    diff_files int NOT NULL DEFAULT 0,
    diff_added int NOT NULL DEFAULT 0,
    diff_removed int NOT NULL DEFAULT 0,
    touch_basis text,
    outcome_kind text NOT NULL,
    outcome_status text NOT NULL,
    outcome_source text NOT NULL,
    exit_code int,
    evidence text,
    tests jsonb,                         -- {total, skipped, reports, failing: [...]}
    touches jsonb NOT NULL DEFAULT '[]', -- [{path, sid, qname, kind, lines, change, fingerprint, fresh}]
    touched_sids text[] NOT NULL DEFAULT '{}',
    author text,                         -- the git identity of the clone that pushed it: a label, not a proof
    ci jsonb,                            -- {provider, pipelineUrl, job}: only a CI role may write it
    ${FEED},
    PRIMARY KEY (repo_id, uid)
  ) PARTITION BY HASH (repo_id);
  ${partitions('episodes')}
  CREATE INDEX episodes_sids ON tenure.episodes USING gin (touched_sids);
  ${policies('episodes', { insertCheck: `(ci IS NULL AND actor IS DISTINCT FROM 'ci') OR repo_id = ANY ((SELECT tenure.ci_repos(current_user))::bigint[])` })}

  CREATE TABLE tenure.conclusions (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    uid text NOT NULL,
    episode_uid text,
    at bigint NOT NULL,
    author text NOT NULL,
    author_kind text NOT NULL,
    text text NOT NULL,
    confidence real NOT NULL,
    half_life_days real NOT NULL,
    symbols jsonb NOT NULL DEFAULT '[]',
    ${FEED},
    PRIMARY KEY (repo_id, uid)
  );
  ${policies('conclusions')}

  -- Rules as last mined (text, trigger, action): derived from the episodes, so the latest mining wins.
  CREATE TABLE tenure.rules (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    key text NOT NULL,
    kind text NOT NULL,
    text text NOT NULL,
    trigger jsonb NOT NULL,
    action jsonb NOT NULL,
    first_seen_at bigint NOT NULL,
    mined_at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, key)
  );
  ${policies('rules', { update: true })}

  -- The episodes that proved or broke each rule, by episode uid: counters are counted from these, never stored.
  CREATE TABLE tenure.rule_evidence (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    rule_key text NOT NULL,
    episode_uid text NOT NULL,
    role text NOT NULL CHECK (role IN ('success', 'failure')),
    detail text NOT NULL,
    at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, rule_key, episode_uid)
  );
  ${policies('rule_evidence', { update: true })}

  CREATE VIEW tenure.rule_counters WITH (security_invoker = true) AS
    SELECT repo_id, rule_key, count(*) FILTER (WHERE role = 'success') AS successes, count(*) FILTER (WHERE role = 'failure') AS failures,
           max(at) FILTER (WHERE role = 'success') AS last_success_at, max(at) FILTER (WHERE role = 'failure') AS last_failure_at
    FROM tenure.rule_evidence GROUP BY repo_id, rule_key;

  -- Decisions on rules, as events: a person's promotion, demotion, rejection or keep (never a CI role's).
  CREATE TABLE tenure.rule_events (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    uid text NOT NULL,
    rule_key text NOT NULL,
    at bigint NOT NULL,
    event text NOT NULL CHECK (event IN ('promoted', 'demoted', 'rejected', 'kept')),
    actor text NOT NULL,
    detail jsonb,
    ${FEED},
    PRIMARY KEY (repo_id, uid)
  );
  ${policies('rule_events', { insertCheck: `NOT repo_id = ANY ((SELECT tenure.ci_repos(current_user))::bigint[])` })}
  `,
  },
  {
    id: 'team-003-knowledge',
    sql: `
  -- The model-call cache: one answer per content key, the first stored is the team's.
  CREATE TABLE tenure.llm_cache (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    key text NOT NULL,
    task text NOT NULL,
    model text NOT NULL,
    prompt_version text NOT NULL,
    output text NOT NULL,
    input_tokens int NOT NULL,
    output_tokens int NOT NULL,
    created_at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, key)
  );
  ${policies('llm_cache')}

  -- The ledger of model calls made by anyone on the team: what a pass cost, once.
  CREATE TABLE tenure.llm_calls (
    id bigint GENERATED ALWAYS AS IDENTITY,
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    run text,
    task text NOT NULL,
    model text NOT NULL,
    status text NOT NULL,
    attempts int NOT NULL,
    input_tokens int NOT NULL,
    output_tokens int NOT NULL,
    ms int NOT NULL,
    error text,
    at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, id)
  );
  ${policies('llm_calls')}
  CREATE POLICY llm_calls_amend ON tenure.llm_calls FOR UPDATE USING (recorded_by = current_user) WITH CHECK (recorded_by = current_user);

  CREATE TABLE tenure.llm_rejects (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    key text NOT NULL,
    task text NOT NULL,
    model text NOT NULL,
    error text NOT NULL,
    output text NOT NULL,
    at bigint NOT NULL,
    ${FEED}
  );
  ${policies('llm_rejects')}

  -- The knowledge graph's model-made parts, content-keyed as the local store keys them:
  -- entities and relationships per chunk, merged descriptions, community reports, vectors.
  CREATE TABLE tenure.kn_extractions (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    chunk_hash text NOT NULL,
    extractor text NOT NULL,
    status text NOT NULL,
    result text NOT NULL,
    created_at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, chunk_hash, extractor)
  );
  ${policies('kn_extractions')}
  CREATE TABLE tenure.kn_summaries (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    key text NOT NULL,
    summarizer text NOT NULL,
    summary text NOT NULL,
    created_at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, key, summarizer)
  );
  ${policies('kn_summaries')}
  CREATE TABLE tenure.kn_reports (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    content_hash text NOT NULL,
    reporter text NOT NULL,
    title text NOT NULL,
    summary text NOT NULL,
    rating real NOT NULL,
    rating_explanation text NOT NULL,
    findings text NOT NULL,
    created_at bigint NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, content_hash, reporter)
  );
  ${policies('kn_reports')}
  -- Vectors as float32 bytes: the plain-table fallback where pgvector is not installed (team status says which).
  CREATE TABLE tenure.kn_embeddings (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    hash text NOT NULL,
    embedder text NOT NULL,
    dims int NOT NULL,
    vector bytea NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, hash, embedder)
  );
  ${policies('kn_embeddings')}

  -- Documents that are not files of the repository (pull requests and issues fetched from GitHub): shared as the export files they are.
  CREATE TABLE tenure.kn_sources (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    path text NOT NULL,
    hash text NOT NULL,
    content text NOT NULL,
    ${FEED},
    PRIMARY KEY (repo_id, path)
  );
  ${policies('kn_sources', { update: true })}

  -- Model passes over the knowledge memory: who ran one, when, with what model, on which commit — the provenance answers cite.
  CREATE TABLE tenure.kn_builds (
    repo_id bigint NOT NULL REFERENCES tenure.repositories(id),
    uid text NOT NULL,
    started_at bigint NOT NULL,
    finished_at bigint NOT NULL,
    mode text NOT NULL,
    model text NOT NULL,
    embedder text NOT NULL,
    spent_tokens bigint NOT NULL,
    head text,
    branch text,
    stats jsonb,
    ci jsonb,
    ${FEED},
    PRIMARY KEY (repo_id, uid)
  );
  ${policies('kn_builds', { insertCheck: `ci IS NULL OR repo_id = ANY ((SELECT tenure.ci_repos(current_user))::bigint[])` })}
  `,
  },
];

/** The roles the schema relies on, made once per cluster (roles are cluster-wide; the grants are per database). */
export const ROLES_SQL = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenure_owner') THEN CREATE ROLE tenure_owner NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenure_member') THEN CREATE ROLE tenure_member NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenure_admin') THEN CREATE ROLE tenure_admin NOLOGIN; END IF;
END $$;
`;

/** What members may do on the tables (row-level security narrows it to their repositories). */
export const GRANTS_SQL = `
GRANT USAGE ON SCHEMA tenure TO tenure_member;
GRANT SELECT ON ALL TABLES IN SCHEMA tenure TO tenure_member;
REVOKE SELECT ON tenure.access, tenure.access_log FROM tenure_member;
GRANT INSERT ON tenure.episodes, tenure.conclusions, tenure.rules, tenure.rule_evidence, tenure.rule_events,
  tenure.llm_cache, tenure.llm_calls, tenure.llm_rejects, tenure.kn_extractions, tenure.kn_summaries, tenure.kn_reports,
  tenure.kn_embeddings, tenure.kn_sources, tenure.kn_builds TO tenure_member;
GRANT UPDATE ON tenure.rules, tenure.rule_evidence, tenure.kn_sources TO tenure_member;
GRANT UPDATE (status) ON tenure.llm_calls TO tenure_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA tenure TO tenure_member;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA tenure FROM PUBLIC;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tenure TO tenure_member;
`;

/** The tables a pull reads, in the order they are applied (episodes before the conclusions and evidence naming them). */
export const FEEDS = ['episodes', 'conclusions', 'rules', 'rule_evidence', 'rule_events', 'llm_cache', 'kn_extractions', 'kn_summaries', 'kn_reports', 'kn_embeddings', 'kn_sources', 'kn_builds'] as const;
export type Feed = (typeof FEEDS)[number];
