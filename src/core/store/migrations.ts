import { STRUCTURAL_MIGRATIONS } from './schema/structural.js';

/**
 * Named schema migrations, applied once each, in this order, and recorded in
 * `schema_migrations`. Each memory owns its own list (src/core/store/schema/),
 * so memories evolve their tables independently. Never edit a released
 * migration: append a new one.
 */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}

const CORE_MIGRATIONS: readonly Migration[] = [
  { id: 'core-001-meta', sql: 'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);' },
];

export const MIGRATIONS: readonly Migration[] = [...CORE_MIGRATIONS, ...STRUCTURAL_MIGRATIONS];
