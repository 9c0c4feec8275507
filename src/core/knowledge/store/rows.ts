import type { Cell } from '../../store/bulk.js';
import type { Db } from '../../store/db.js';

/*
 * Helpers the knowledge store modules share: writing rows that may already
 * be there, and reading by id lists longer than SQLite's parameter limit.
 */

/** Rows per statement; an id list travels as one JSON parameter. */
export const SLICE = 5000;

/** Inserts rows, replacing those with the same key: caches one run writes and another run already filled. */
export async function replaceRows(db: Db, table: string, columns: readonly string[], rows: readonly Cell[][]): Promise<void> {
  if (!rows.length) return;
  const select = columns.map((_, i) => `value->>${i}`).join(', ');
  for (let i = 0; i < rows.length; i += 2000) {
    await db.run(`INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) SELECT ${select} FROM json_each(?)`, [JSON.stringify(rows.slice(i, i + 2000))]);
  }
}

/** Runs `query` over slices of `keys` and concatenates the rows. */
export async function inSlices<K, T>(keys: readonly K[], query: (slice: string) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < keys.length; i += SLICE) out.push(...(await query(JSON.stringify(keys.slice(i, i + SLICE)))));
  return out;
}

export async function hasTable(db: Db, name: string): Promise<boolean> {
  return !!(await db.get("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [name]));
}
