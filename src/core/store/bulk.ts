import type { Db, Param } from './db.js';

export type Cell = string | number | boolean | null;

const CHUNK = 4000;

/** A cell as SQLite takes it: booleans as 0/1, and what JSON could not carry (NaN, ±Infinity) as NULL, as the store has always kept them. */
function bound(cell: Cell | undefined): Param {
  if (typeof cell === 'boolean') return cell ? 1 : 0;
  if (typeof cell === 'number' && !Number.isFinite(cell)) return null;
  return cell ?? null;
}

/**
 * Inserts many rows through one prepared statement, a chunk at a time (a
 * chunk is one synchronous stretch of the thread). `upsert` names the key
 * column whose conflict updates the other columns instead of failing.
 */
export async function insertRows(db: Db, table: string, columns: readonly string[], rows: readonly Cell[][], options: { upsert?: string } = {}): Promise<void> {
  if (rows.length === 0) return;
  const conflict = options.upsert
    ? ` ON CONFLICT(${options.upsert}) DO UPDATE SET ${columns.filter((c) => c !== options.upsert).map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})${conflict}`;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK).map((row) => columns.map((_, i) => bound(row[i])));
    await db.runMany(sql, chunk);
  }
}

/** Deletes rows whose column is in a (possibly large) id list. */
export async function deleteWhereIn(db: Db, table: string, column: string, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    await db.run(`DELETE FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids.slice(i, i + CHUNK))]);
  }
}

/**
 * Drops the secondary indexes of `tables` for a bulk load into empty tables
 * and returns what puts them back: building an index once over sorted keys
 * is several times cheaper than keeping it up to date row by row. Call
 * inside `db.write`: the drop and the rebuild are one transaction, so no
 * other connection ever sees the tables without their indexes, and a load
 * that fails rolls both back.
 */
export async function deferIndexes(db: Db, tables: readonly string[]): Promise<() => Promise<void>> {
  const indexes = await db.all<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (SELECT value FROM json_each(?)) ORDER BY name`,
    [JSON.stringify(tables)],
  );
  for (const i of indexes) await db.exec(`DROP INDEX ${i.name}`);
  return async () => {
    for (const i of indexes) await db.exec(i.sql);
  };
}
