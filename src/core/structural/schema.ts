import type { EdgeKind, SiteNameIs } from '../model/structural.js';
import type { Migration } from '../store/migrations.js';

/**
 * One inventory site as `file_sites.sites` stores it: [id, owner_id, kind,
 * name, receiver, receiver_type, line, col, dynamic, name_is]; name_is (what
 * the name is when it is not a name of code: a configuration key, an
 * environment variable, a receiver) is left off when there is none.
 */
export type SiteTuple = [number, number, EdgeKind, string, string | null, string | null, number, number, string | null, SiteNameIs?];

/** Structural memory: files, symbols, use sites, imports and tiered edges. Derived: can be rebuilt. */
export const STRUCTURAL_MIGRATIONS: readonly Migration[] = [
  {
    id: 'structural-001-graph',
    sql: `
    CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,          -- workspace-relative, forward slashes
    language TEXT,
    hash TEXT,                          -- sha1 of the content, for incremental re-index
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    skip_reason TEXT,                   -- why the inventory did not read it, if it did not
    error_nodes INTEGER NOT NULL DEFAULT 0,
    parse_ms REAL,
    package TEXT,
    indexed_at INTEGER NOT NULL
  );

  CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    sid TEXT NOT NULL,                  -- SCIP-style symbol id, stable across re-index
    name TEXT NOT NULL,
    qname TEXT NOT NULL,                -- dotted display name, for matching what people type
    kind TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    parent_id INTEGER,
    line INTEGER NOT NULL, col INTEGER NOT NULL, end_line INTEGER NOT NULL, end_col INTEGER NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0,
    source TEXT NOT NULL DEFAULT 'tree-sitter'
  );
  CREATE INDEX symbols_name ON symbols(name);
  CREATE INDEX symbols_sid ON symbols(sid);
  CREATE INDEX symbols_file ON symbols(file_id);
  CREATE INDEX symbols_parent ON symbols(parent_id);

  -- Raw use sites from the inventory, one JSON array per file, kept so that
  -- resolution can be redone incrementally when the definitions they may
  -- point at change. Only the indexer reads them, always a whole file at a
  -- time, so one row per file is far cheaper to write than one per site.
  CREATE TABLE file_sites (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    sites TEXT NOT NULL                 -- [[id, owner_id, kind, name, receiver, receiver_type, line, col, dynamic], …]
  );

  CREATE TABLE imports (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    owner_id INTEGER NOT NULL,
    module TEXT NOT NULL,
    name TEXT,
    local TEXT,
    wildcard INTEGER NOT NULL DEFAULT 0,
    target_file_id INTEGER,             -- the workspace file the module resolved to, if any
    line INTEGER NOT NULL, col INTEGER NOT NULL
  );
  CREATE INDEX imports_file ON imports(file_id);
  CREATE INDEX imports_target ON imports(target_file_id);

  -- Resolved sites. One site with several candidates gives several rows,
  -- all tier 'ambiguous'; a dynamic site gives one row with dst_id NULL.
  CREATE TABLE edges (
    id INTEGER PRIMARY KEY,
    site_id INTEGER,                    -- the inventory site it resolves; NULL for edges a resolver added
    src_id INTEGER NOT NULL,
    dst_id INTEGER REFERENCES symbols(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,                 -- the name as written at the site
    tier TEXT NOT NULL,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    candidates INTEGER NOT NULL DEFAULT 1,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL, col INTEGER NOT NULL
  );
  CREATE INDEX edges_dst ON edges(dst_id);
  CREATE INDEX edges_src ON edges(src_id);
  CREATE INDEX edges_file ON edges(file_id);
  CREATE INDEX edges_site ON edges(site_id);

  CREATE INDEX edges_name_wide ON edges(name) WHERE dst_id IS NULL;
  `,
  },
  {
    // The kind of a skip (model/skips.ts) decides whether the file is tried again; rows
    // written before kinds were recorded get theirs from their text, once.
    id: 'structural-002-skip-kind',
    sql: `
    ALTER TABLE files ADD COLUMN skip_kind TEXT;
    UPDATE files SET skip_kind = CASE
        WHEN skip_reason LIKE 'too large%' THEN 'too-large'
        WHEN skip_reason LIKE 'binary%' THEN 'binary'
        WHEN skip_reason LIKE 'not UTF-8%' THEN 'not-utf8'
        WHEN skip_reason LIKE 'minified%' THEN 'minified'
        WHEN skip_reason LIKE 'no grammar%' THEN 'no-grammar'
        WHEN skip_reason LIKE 'parse took longer%' THEN 'parse-timeout'
        WHEN skip_reason LIKE 'parser failed%' THEN 'parser-failed'
        WHEN skip_reason LIKE 'parse worker crashed%' THEN 'worker-crashed'
        ELSE 'unreadable' END
      WHERE skip_reason IS NOT NULL;
  `,
  },
  {
    // Data dependents (issue 12): how a call is bound where it is not the ordinary way
    // (model/structural.ts EdgeBinding: `super`, `property-call`), and how many member
    // accesses of a file go by a computed name (counted in what_breaks' "not seen").
    id: 'structural-003-binding-and-computed-accesses',
    sql: `
    ALTER TABLE edges ADD COLUMN binding TEXT;
    ALTER TABLE files ADD COLUMN computed_accesses INTEGER NOT NULL DEFAULT 0;
  `,
  },
  {
    // what_breaks reads the computed dynamic calls of the target's file and its importers:
    // a few thousand edges in millions, found by file without reading every unresolved edge.
    id: 'structural-004-dynamic-calls-by-file',
    sql: `
    CREATE INDEX edges_dynamic_file ON edges(file_id) WHERE dst_id IS NULL AND tier = 'dynamic';
  `,
  },
  {
    // what_breaks asks whether the workspace imports a DI or messaging library: a lookup by
    // module, where it read every import (and, for injection decorators, every edge) in each process.
    id: 'structural-005-imports-by-module',
    sql: `
    CREATE INDEX imports_module ON imports(module);
  `,
  },
];
