import { KNOWLEDGE_MIGRATIONS } from '../knowledge/schema.js';
import { STRUCTURAL_MIGRATIONS } from '../structural/schema.js';
import { RESOLUTION_MIGRATIONS } from '../structural/enrichment/schema.js';
import { EPISODIC_MIGRATIONS } from '../episodic/schema.js';
import { PROCEDURAL_MIGRATIONS } from '../procedural/schema.js';
import { ARTIFACT_MIGRATIONS } from '../structural/sources/artifacts/schema.js';

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

export const MIGRATIONS: readonly Migration[] = [...CORE_MIGRATIONS, ...STRUCTURAL_MIGRATIONS, ...RESOLUTION_MIGRATIONS, ...ARTIFACT_MIGRATIONS, ...EPISODIC_MIGRATIONS, ...PROCEDURAL_MIGRATIONS, ...KNOWLEDGE_MIGRATIONS];
