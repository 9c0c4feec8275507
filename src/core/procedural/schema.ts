import type { Migration } from '../store/migrations.js';

/**
 * Procedural memory: rules mined from episodes, their evidence and every
 * decision a person took on them. Approved rules and their events cannot be
 * rebuilt: never deleted automatically; back up before a destructive change.
 */
export const PROCEDURAL_MIGRATIONS: readonly Migration[] = [
  {
    id: 'procedural-001-rules',
    sql: `
  CREATE TABLE rules (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,            -- what the rule says, normalised: the same finding maps to the same rule
    kind TEXT NOT NULL,                  -- order | co-change
    text TEXT NOT NULL,
    trigger TEXT NOT NULL,               -- JSON {paths: [...globs], sids: [...]}; empty = always
    action TEXT NOT NULL,                -- JSON, kind-specific
    status TEXT NOT NULL,                -- candidate | proposed | promoted | demotion-proposed | demoted | rejected
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    lower_bound REAL NOT NULL DEFAULT 0,
    last_success_at INTEGER,
    last_failure_at INTEGER,
    failures_since_promotion INTEGER NOT NULL DEFAULT 0,
    first_seen_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    promoted_at INTEGER,
    promoted_text TEXT,                  -- the text a person approved, frozen while promoted
    reviewed_at INTEGER,                 -- a person kept it after a demotion proposal: failures count from here
    demoted_at INTEGER,
    reason TEXT                          -- why it is proposed / not yet, in words
  );

  CREATE TABLE rule_evidence (
    rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
    episode_id INTEGER NOT NULL,
    role TEXT NOT NULL,                  -- success | failure
    detail TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (rule_id, episode_id)
  );

  -- Every decision: proposed, promoted (with the exact diff approved), demoted, rejected.
  CREATE TABLE rule_events (
    id INTEGER PRIMARY KEY,
    rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    event TEXT NOT NULL,
    actor TEXT NOT NULL,
    detail TEXT
  );
  CREATE INDEX rule_events_rule ON rule_events(rule_id);
  `,
  },
  {
    // A person's decisions travel between clones through a team store (src/core/team): a global id, and where it came from.
    id: 'procedural-002-team',
    sql: `
  ALTER TABLE rule_events ADD COLUMN uid TEXT;          -- global id of a shared decision; NULL until this clone shares it
  ALTER TABLE rule_events ADD COLUMN origin TEXT;       -- NULL: decided here; 'team': pulled from the team store
  ALTER TABLE rule_events ADD COLUMN recorded_by TEXT;  -- the team store's login that wrote it
  CREATE UNIQUE INDEX rule_events_uid ON rule_events(uid) WHERE uid IS NOT NULL;
  `,
  },
];
