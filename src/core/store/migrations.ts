/**
 * A named schema change, applied once and recorded in `schema_migrations`.
 * Each memory owns its list beside its code (structural/schema.ts,
 * knowledge/schema.ts, …); src/core/workspace.ts puts them in order. Never
 * edit a released migration: append a new one.
 */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/** The tables every memory may use: the key-value `meta` table. */
export const CORE_MIGRATIONS: readonly Migration[] = [
  { id: 'core-001-meta', sql: 'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);' },
];
