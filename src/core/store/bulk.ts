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
 * Rows per INSERT statement. Each `run` is a crossing into the native
 * driver that binds its parameters one call at a time; sixteen rows in one
 * statement write about 1.5–2× faster than one row per statement (400,000
 * rows shaped like `edges`: measured in docs/benchmarks.md), and 16 × the widest
 * table's columns stays far below SQLite's limit of host parameters.
 */
const ROWS_PER_STATEMENT = 16;

/**
 * Inserts many rows through prepared statements, a chunk at a time (a
 * chunk is one synchronous stretch of the thread). `upsert` names the key
 * column whose conflict updates the other columns instead of failing; a
 * conflict is decided row by row, in order, also within one statement.
 */
export async function insertRows(db: Db, table: string, columns: readonly string[], rows: readonly Cell[][], options: { upsert?: string } = {}): Promise<void> {
  if (rows.length === 0) return;
  const conflict = options.upsert
    ? ` ON CONFLICT(${options.upsert}) DO UPDATE SET ${columns.filter((c) => c !== options.upsert).map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const sql = (n: number) => `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}${conflict}`;
  const many = sql(ROWS_PER_STATEMENT);
  const one = sql(1);
  const width = columns.length;
  // The bound cells of `count` rows from `from`, in one flat list for one statement.
  const params = (from: number, count: number): Param[] => {
    const cells = new Array<Param>(width * count);
    for (let k = 0; k < count; k++) {
      const row = rows[from + k]!;
      for (let c = 0; c < width; c++) cells[k * width + c] = bound(row[c]);
    }
    return cells;
  };
  for (let start = 0; start < rows.length; start += CHUNK) {
    const end = Math.min(rows.length, start + CHUNK);
    const whole = start + Math.floor((end - start) / ROWS_PER_STATEMENT) * ROWS_PER_STATEMENT;
    const statements: Param[][] = [];
    for (let r = start; r < whole; r += ROWS_PER_STATEMENT) statements.push(params(r, ROWS_PER_STATEMENT));
    if (statements.length) await db.runMany(many, statements);
    if (whole < end) await db.runMany(one, Array.from({ length: end - whole }, (_, k) => params(whole + k, 1)));
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
