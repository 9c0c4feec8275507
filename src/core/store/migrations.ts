import { KNOWLEDGE_MIGRATIONS } from './schema/knowledge.js';
import { STRUCTURAL_MIGRATIONS } from './schema/structural.js';
import { RESOLUTION_MIGRATIONS } from './schema/resolution.js';
import { EPISODIC_MIGRATIONS } from './schema/episodic.js';
import { PROCEDURAL_MIGRATIONS } from './schema/procedural.js';
import { ARTIFACT_MIGRATIONS } from './schema/artifacts.js';

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
