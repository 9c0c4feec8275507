import type { Migration } from '../store/migrations.js';

/**
 * Episodic memory: attempts, their outcomes, failing tests, touched symbols,
 * conclusions. NOT derived: nothing here can be rebuilt from the sources, so
 * rows are archived, never deleted automatically, and a destructive change
 * to these tables must back the database up first (see episodic/backup.ts).
 * Touches refer to symbols by their stable id (sid), not by row id, and have
 * no foreign key into the structural tables: re-indexing or `index --rebuild`
 * never touches an episode.
 */
export const EPISODIC_MIGRATIONS: readonly Migration[] = [
  {
    id: 'episodic-001-episodes',
    sql: `
  CREATE TABLE episodes (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,            -- stable across export/import
    started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL,
    source TEXT NOT NULL,                -- run | terminal | task | junit | import | github | git
    actor TEXT,                          -- agent | person | ci, NULL when unknown
    intent TEXT,
    command TEXT,
    command_key TEXT,                    -- normalised command, to match repeats
    command_kind TEXT,                   -- build | test | lint | generate | other
    cwd TEXT,
    branch TEXT,
    head TEXT,
    commit_message TEXT,
    diff_files INTEGER NOT NULL DEFAULT 0,
    diff_added INTEGER NOT NULL DEFAULT 0,
    diff_removed INTEGER NOT NULL DEFAULT 0,
    touch_basis TEXT,
    outcome_kind TEXT NOT NULL,
    outcome_status TEXT NOT NULL,        -- success | failure | rejected | cancelled | recorded
    outcome_source TEXT NOT NULL,        -- build-system | test-report | ci | review | git
    exit_code INTEGER,
    evidence TEXT,
    tests_total INTEGER, tests_failed INTEGER, tests_skipped INTEGER,
    test_reports TEXT,                   -- JSON array of report paths
    archived_at INTEGER,
    archive_reason TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX episodes_started ON episodes(started_at);
  CREATE INDEX episodes_command_key ON episodes(command_key);

  CREATE TABLE episode_touches (
    episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    sid TEXT,                            -- NULL: outside any indexed symbol
    qname TEXT,
    kind TEXT,
    lines INTEGER NOT NULL DEFAULT 0,
    change TEXT NOT NULL,
    fingerprint TEXT,
    fresh INTEGER NOT NULL DEFAULT 1     -- changed since the previous outcome of any kind (not only since the previous run of this kind)
  );
  CREATE INDEX episode_touches_episode ON episode_touches(episode_id);
  CREATE INDEX episode_touches_sid ON episode_touches(sid) WHERE sid IS NOT NULL;
  CREATE INDEX episode_touches_path ON episode_touches(path);

  CREATE TABLE episode_tests (
    episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    suite TEXT,
    name TEXT NOT NULL,
    status TEXT NOT NULL,                -- failed | error
    message TEXT,
    file TEXT
  );
  CREATE INDEX episode_tests_episode ON episode_tests(episode_id);

  CREATE TABLE conclusions (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    episode_id INTEGER REFERENCES episodes(id),
    at INTEGER NOT NULL,
    author TEXT NOT NULL,
    author_kind TEXT NOT NULL,           -- agent | person
    text TEXT NOT NULL,
    confidence REAL NOT NULL,            -- when recorded; decays with half_life_days
    half_life_days REAL NOT NULL,
    archived_at INTEGER,
    archive_reason TEXT
  );
  CREATE INDEX conclusions_episode ON conclusions(episode_id);

  CREATE TABLE conclusion_symbols (
    conclusion_id INTEGER NOT NULL REFERENCES conclusions(id) ON DELETE CASCADE,
    sid TEXT,
    qname TEXT,
    path TEXT
  );
  CREATE INDEX conclusion_symbols_sid ON conclusion_symbols(sid);
  CREATE INDEX conclusion_symbols_conclusion ON conclusion_symbols(conclusion_id);

  -- The working tree as it was at the last recorded outcome of each kind
  -- (test, build, lint, generate, other; 'any' for the last outcome of any
  -- kind): content of the files that differed from HEAD then, so an
  -- attempt's touches are "changed since the last test run", not "changed
  -- since the last commit".
  CREATE TABLE episodic_worktree (
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    content BLOB,
    PRIMARY KEY (kind, path)
  );
  `,
  },
  {
    // Where an episode or conclusion came from, once clones share them through a team store (src/core/team).
    id: 'episodic-002-team',
    sql: `
  ALTER TABLE episodes ADD COLUMN origin TEXT;         -- NULL: recorded in this clone; 'team': pulled from the team store
  ALTER TABLE episodes ADD COLUMN recorded_by TEXT;    -- the team store's login that wrote it (stamped by the server)
  ALTER TABLE episodes ADD COLUMN author TEXT;         -- the git identity of the clone that pushed it: a label, not a proof
  ALTER TABLE episodes ADD COLUMN ci_provider TEXT;    -- github-actions | gitlab-ci | jenkins: recorded by CI
  ALTER TABLE episodes ADD COLUMN pipeline_url TEXT;
  ALTER TABLE episodes ADD COLUMN ci_job TEXT;
  ALTER TABLE conclusions ADD COLUMN origin TEXT;
  ALTER TABLE conclusions ADD COLUMN recorded_by TEXT;
  `,
  },
];
