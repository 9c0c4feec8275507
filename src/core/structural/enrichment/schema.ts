import type { Migration } from '../../store/migrations.js';

/**
 * Resolution (issue 3): what resolvers (language servers, SCIP, later
 * bytecode, DI wiring, traces) proved about the inventory's edges. Derived:
 * can be rebuilt by running the enrichment pass again.
 *
 * Resolver results live in the `edges` table itself, so every query reads one
 * graph: a confirmed inventory edge is upgraded in place (its inventory tier,
 * source and reason are kept in base_* to fall back to), an edge the inventory
 * missed is inserted with `added = 1`, and a refuted edge is moved to
 * `refutations` (whole, so it can be put back). Freshness: the structural
 * store calls `invalidateResolutions` in the same transaction that rewrites a
 * file, which puts every resolver claim that could depend on that file back to
 * the inventory's answer (see src/core/structural/enrichment/store.ts).
 */
export const RESOLUTION_MIGRATIONS: readonly Migration[] = [
  {
    id: 'resolution-001-resolved-edges',
    sql: `
  ALTER TABLE edges ADD COLUMN base_tier TEXT;      -- the inventory's tier before a resolver upgraded the row; NULL: not upgraded
  ALTER TABLE edges ADD COLUMN base_source TEXT;
  ALTER TABLE edges ADD COLUMN base_reason TEXT;
  ALTER TABLE edges ADD COLUMN added INTEGER NOT NULL DEFAULT 0;   -- 1: a resolver found it, the inventory did not
  CREATE INDEX edges_upgraded ON edges(file_id) WHERE base_tier IS NOT NULL OR added = 1;

  -- Inventory edges a resolver proved wrong, kept whole so they come back when the proof goes stale.
  CREATE TABLE refutations (
    id INTEGER PRIMARY KEY,
    site_id INTEGER,
    src_id INTEGER NOT NULL,
    dst_id INTEGER REFERENCES symbols(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    tier TEXT NOT NULL,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    candidates INTEGER NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL, col INTEGER NOT NULL,
    refuted_by TEXT NOT NULL,           -- resolver source
    refuted_reason TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX refutations_file ON refutations(file_id);
  CREATE INDEX refutations_site ON refutations(site_id);

  -- impl implements or overrides base, proven by a type checker or artifact: resolved dispatch.
  CREATE TABLE implementations (
    impl_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
    base_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,   -- impl's file
    tier TEXT NOT NULL,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    wired_by TEXT,                      -- reached only through wiring the source does not show (DI, reflection)
    PRIMARY KEY (impl_id, base_id, source)
  );
  CREATE INDEX implementations_base ON implementations(base_id);
  CREATE INDEX implementations_file ON implementations(file_id);

  -- Progress of the enrichment pass, so it resumes: a file is done for a source at a content hash.
  CREATE TABLE resolution_files (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    hash TEXT,
    at INTEGER NOT NULL,
    sites INTEGER NOT NULL DEFAULT 0,
    confirmed INTEGER NOT NULL DEFAULT 0,
    refuted INTEGER NOT NULL DEFAULT 0,
    added INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, source)
  );
  CREATE TABLE resolution_symbols (
    symbol_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    questions TEXT NOT NULL,            -- comma-separated: implementations, callers
    at INTEGER NOT NULL,
    PRIMARY KEY (symbol_id, source)
  );
  CREATE INDEX resolution_symbols_file ON resolution_symbols(file_id);
  `,
  },
  {
    // Resolvers over one type checker share their coverage (a compiler first pass, then the
    // language server for what changes): a file covered by one at its content is done for all.
    id: 'resolution-002-shared-coverage',
    sql: `
  ALTER TABLE resolution_files ADD COLUMN checker TEXT;                    -- typescript, python: the type checker behind the source
  ALTER TABLE resolution_files ADD COLUMN all_uses INTEGER NOT NULL DEFAULT 0;   -- 1: every use of the file's symbols was read, not only the inventory's sites
  CREATE INDEX resolution_files_checker ON resolution_files(checker, file_id);
  -- A refuted edge keeps how its call was bound (edges.binding), so it comes back as it was.
  ALTER TABLE refutations ADD COLUMN binding TEXT;
  `,
  },
];
