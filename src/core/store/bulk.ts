import type { Db } from './db.js';

export type Cell = string | number | boolean | null;

const CHUNK = 4000;
/** About this many characters of JSON per statement: serialising one chunk must not hold the thread for long. */
const CHUNK_CHARS = 1 << 20;

/**
 * Inserts many rows with one statement per chunk: the rows travel as one JSON
 * array and SQLite unpacks them with json_each. With an async driver this is
 * an order of magnitude faster than a statement per row.
 */
export async function insertRows(db: Db, table: string, columns: readonly string[], rows: readonly Cell[][], options: { upsert?: string } = {}): Promise<void> {
  if (rows.length === 0) return;
  const select = columns.map((_, i) => `value->>${i}`).join(', ');
  // `WHERE true` lets SQLite tell the upsert clause from a join in INSERT … SELECT.
  const conflict = options.upsert
    ? ` WHERE true ON CONFLICT(${options.upsert}) DO UPDATE SET ${columns.filter((c) => c !== options.upsert).map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${select} FROM json_each(?)${conflict}`;
  // Chunks of at most CHUNK rows and about CHUNK_CHARS characters (rows holding large JSON texts, such as a file's sites, are few per chunk).
  let start = 0;
  while (start < rows.length) {
    let end = start;
    let chars = 0;
    while (end < rows.length && end - start < CHUNK && (end === start || chars < CHUNK_CHARS)) {
      for (const cell of rows[end]!) chars += typeof cell === 'string' ? cell.length + 4 : 8;
      end++;
    }
    await db.run(sql, [JSON.stringify(rows.slice(start, end))]);
    start = end;
  }
}

/** Deletes rows whose column is in a (possibly large) id list. */
export async function deleteWhereIn(db: Db, table: string, column: string, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    await db.run(`DELETE FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids.slice(i, i + CHUNK))]);
  }
}
