import type { Db } from '../store/db.js';

/**
 * Drops the derived structural tables (files, and through them symbols,
 * sites and edges) so the next index starts from scratch. Nothing else in the
 * database is touched: episodes, rules, notes and knowledge stay.
 */
export async function clearStructuralIndex(db: Db): Promise<void> {
  await db.write((d) => d.run('DELETE FROM files').then(() => undefined));
}
