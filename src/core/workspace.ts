import { KNOWLEDGE_MIGRATIONS } from './knowledge/schema.js';
import { EPISODIC_MIGRATIONS } from './episodic/schema.js';
import { PROCEDURAL_MIGRATIONS } from './procedural/schema.js';
import { CORE_MIGRATIONS, type Migration } from './store/migrations.js';
import { Workspace } from './store/workspace.js';
import { RESOLUTION_MIGRATIONS } from './structural/enrichment/schema.js';
import { STRUCTURAL_MIGRATIONS } from './structural/schema.js';
import { ARTIFACT_MIGRATIONS } from './structural/sources/artifacts/schema.js';

/*
 * The one place that knows every memory: their tables in the order they
 * were introduced (applied once each, recorded in schema_migrations), and the
 * way front doors, sessions and workers open a workspace with all of them.
 */

export const SCHEMA: readonly Migration[] = [
  ...CORE_MIGRATIONS,
  ...STRUCTURAL_MIGRATIONS,
  ...RESOLUTION_MIGRATIONS,
  ...ARTIFACT_MIGRATIONS,
  ...EPISODIC_MIGRATIONS,
  ...PROCEDURAL_MIGRATIONS,
  ...KNOWLEDGE_MIGRATIONS,
];

export function openWorkspace(root: string, options: { readonly?: boolean } = {}): Promise<Workspace> {
  return Workspace.open(root, { ...options, schema: SCHEMA });
}
