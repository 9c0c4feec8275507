import * as fs from 'node:fs';
import * as path from 'node:path';
import { threadId } from 'node:worker_threads';
import { TenureError, errorMessage } from '../../shared/errors.js';
import type { Migration } from './migrations.js';

type Row = Record<string, unknown>;

/** A database not checked for a week is checked at its next open, unclean shutdown or not. */
const INTEGRITY_EVERY_MS = 7 * 86_400_000;
/** Open connections per session marker in this process. */
const SESSIONS = new Map<string, number>();

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
export type Param = string | number | bigint | null | Buffer;

/*
 * The native driver's surface we use (node:sqlite's API, from
 * @photostructure/sqlite: the upstream SQLite amalgamation behind Node-API,
 * so one build serves Node and VS Code's Electron). It is synchronous: a
 * query costs its SQLite work and nothing else. An asynchronous driver hands
 * every statement to a thread pool and back, about 0.1-0.3 ms a round trip,
 * which was most of a short what_breaks answer's time (30-odd statements).
 */
interface NativeStatement {
  run(...params: Param[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  all(...params: Param[]): unknown[][];
  columns(): { name: string }[];
  setReturnArrays(on: boolean): void;
}

/**
 * A prepared statement and its result's column names. Rows come from the
 * driver as arrays and are made into plain objects here: the driver's own
 * row objects (null-prototype, built property by property) cost about three
 * times as much on a large result.
 */
interface Prepared {
  readonly statement: NativeStatement;
  readonly columns: readonly string[];
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}
type NativeModule = { DatabaseSync: new (file: string, options: { readOnly?: boolean; timeout?: number; enableForeignKeyConstraints?: boolean }) => NativeDatabase };

/** The driver's error with `code` set to SQLite's name for its primary result code (SQLITE_BUSY, SQLITE_CORRUPT, …), which callers test. */
function sqliteError(e: unknown): unknown {
  const name = (e as { sqliteCodeName?: unknown } | null)?.sqliteCodeName;
  if (typeof name === 'string') (e as { code?: string }).code = name;
  return e;
}

/** Prepared statements kept per connection; the SQL strings the code uses are few, but some are built per call (IN lists), so the cache is bounded. */
const STATEMENT_CACHE = 256;

export interface OpenOptions {
  /** The schema, in order: every migration not yet applied is applied at open. */
  readonly migrations: readonly Migration[];
  readonly readonly?: boolean;
  /** How long to wait for another process's write lock before failing. */
  readonly busyTimeoutMs?: number;
}

/**
 * One SQLite database (WAL, busy timeout, versioned migrations) behind a
 * promise API. The driver runs each statement on the calling thread, so a
 * long query holds that thread: large reads go through `pages()`, and the
 * extension host asks only bounded questions (the indexer and the knowledge
 * pass have threads of their own). Writes are serialised in-process by `write()`, and across
 * processes by SQLite's own lock (BEGIN IMMEDIATE + busy_timeout), so the
 * extension, the CLI and the MCP server can share one file: readers never
 * block, one writer at a time.
 */
export class Db {
  private writeQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly native: NativeDatabase,
    readonly file: string,
    private readonly migrations: readonly Migration[],
    private readonly busyTimeoutMs = 10_000,
  ) {}

  static async open(file: string, options: OpenOptions): Promise<Db> {
    let sqlite: NativeModule;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      sqlite = require('@photostructure/sqlite');
    } catch (e) {
      throw new TenureError(
        'store-unavailable',
        `The native SQLite module (@photostructure/sqlite) could not be loaded: ${errorMessage(e)}. ` +
          'Reinstall dependencies with `npm ci`, or use a Tenure build made for this platform.',
        undefined,
        { cause: e },
      );
    }
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    let native: NativeDatabase;
    try {
      native = new sqlite.DatabaseSync(file, { readOnly: options.readonly ?? false, timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
    } catch (e) {
      throw new TenureError('store-unavailable', `Cannot open the Tenure database ${file}: ${errorMessage(e)}`, undefined, { cause: sqliteError(e) });
    }
    const db = new Db(native, file, options.migrations, busyTimeoutMs);
    try {
      await db.exec('PRAGMA foreign_keys = ON');
      if (!options.readonly) {
        // Temporary b-trees (sorts, index builds) live in their own page cache and go to a temporary file only past
        // it: in memory, the sort of a large index build was held whole (hundreds of megabytes on 32,000 files).
        await db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; PRAGMA temp_store = FILE;');
        await db.migrate();
        await db.checkIntegrityWhenDue();
      }
    } catch (e) {
      await db.close().catch(() => undefined);
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
        throw new TenureError(
          'store-corrupt',
          `${file} is damaged or is not a Tenure database (${code}). Tenure has not touched it: move it aside (it may hold episodes and rules you want to keep) and run \`tenure index\` to start a new one.`,
          undefined,
          { cause: e },
        );
      }
      throw e;
    }
    return db;
  }

  /** The prepared statement for `sql`, from this connection's cache. */
  private prepared(sql: string): Prepared {
    let p = this.statements.get(sql);
    if (p) {
      // Most recently used last: the first key is the one to evict.
      this.statements.delete(sql);
    } else {
      const statement = this.native.prepare(sql);
      statement.setReturnArrays(true);
      p = { statement, columns: statement.columns().map((c) => c.name) };
      if (this.statements.size >= STATEMENT_CACHE) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, p);
    return p;
  }

  private readonly statements = new Map<string, Prepared>();

  async exec(sql: string): Promise<void> {
    try {
      this.native.exec(sql);
    } catch (e) {
      throw sqliteError(e);
    }
  }

  async run(sql: string, params: Param[] = []): Promise<{ changes: number; lastID: number }> {
    try {
      const r = this.prepared(sql).statement.run(...params);
      return { changes: Number(r.changes), lastID: Number(r.lastInsertRowid) };
    } catch (e) {
      throw sqliteError(e);
    }
  }

  /**
   * Runs one statement once per parameter row, prepared once. With a
   * synchronous driver this is the fastest bulk insert: a bound parameter
   * costs nothing to encode, where a JSON array of rows is written by
   * JSON.stringify and parsed again by SQLite (and a row holding JSON text
   * is escaped twice).
   */
  async runMany(sql: string, rows: readonly (readonly Param[])[]): Promise<void> {
    try {
      const { statement } = this.prepared(sql);
      for (const row of rows) statement.run(...row);
    } catch (e) {
      throw sqliteError(e);
    }
  }

  async all<T = Row>(sql: string, params: Param[] = []): Promise<T[]> {
    try {
      const { statement, columns } = this.prepared(sql);
      const arrays = statement.all(...params);
      const rows = new Array<Row>(arrays.length);
      for (let i = 0; i < arrays.length; i++) {
        const values = arrays[i]!;
        const row: Row = {};
        for (let c = 0; c < columns.length; c++) row[columns[c]!] = values[c];
        rows[i] = row;
      }
      return rows as T[];
    } catch (e) {
      throw sqliteError(e);
    }
  }

  /**
   * Every row of a large table, a page at a time: the driver runs a query
   * and turns its whole result into JS objects in one go on this thread, so a
   * 100,000-row `all` would hold it for a long stretch. `select` names the columns, `where`
   * filters; paging is by the table's rowid, so rows come in rowid order.
   */
  async *pages<T = Row>(table: string, select: string, where = 'true', pageSize = 4000): AsyncGenerator<T[]> {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const rows = await this.all<T & { _rowid: number }>(`SELECT rowid AS _rowid, ${select} FROM ${table} WHERE (${where}) AND rowid > ? ORDER BY rowid LIMIT ?`, [after, pageSize]);
      if (!rows.length) return;
      yield rows;
      after = rows[rows.length - 1]!._rowid;
      if (rows.length < pageSize) return;
    }
  }

  async get<T = Row>(sql: string, params: Param[] = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  /**
   * Runs `fn` inside one write transaction. BEGIN IMMEDIATE takes SQLite's
   * write lock up front, so two processes never deadlock upgrading a read
   * lock; a crash mid-way leaves the previous committed state intact.
   */
  write<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(async () => {
      await this.beginImmediate();
      try {
        const result = await fn(this);
        await this.exec('COMMIT');
        return result;
      } catch (e) {
        await this.exec('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * Takes the write lock, waiting for another connection's write to end (the
   * extension's indexer thread, the CLI, the MCP server) in JavaScript rather
   * than in SQLite's busy handler: a connection waiting in the busy handler
   * runs nothing else, so every read queued behind it (a hover, a tool call)
   * would wait for the other writer's whole transaction.
   */
  private async beginImmediate(): Promise<void> {
    let deadline = Date.now() + this.busyTimeoutMs;
    // The other writers' commits when this one first found the lock taken: while they keep committing, the lock is busy, not stuck,
    // and this one waits its turn. Read only once it has to wait: an uncontended write costs no extra statement.
    let seen: number | undefined;
    await this.exec('PRAGMA busy_timeout = 0');
    try {
      for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
        try {
          await this.exec('BEGIN IMMEDIATE');
          return;
        } catch (e) {
          if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
          seen ??= await this.dataVersion();
          if (Date.now() + wait > deadline) {
            const now = await this.dataVersion();
            if (now === seen) throw lockedError(e, this.file, this.busyTimeoutMs);
            // Someone committed in the meantime: under contention (a loaded machine, several processes indexing) a writer may wait longer than one timeout for its turn; only a lock held with no commit for a whole timeout fails.
            seen = now;
            deadline = Date.now() + this.busyTimeoutMs;
          }
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    } finally {
      await this.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  /** SQLite's count of commits by other connections to this file: it changes when another process writes. */
  async dataVersion(): Promise<number> {
    return (await this.get<{ data_version: number }>('PRAGMA data_version'))?.data_version ?? 0;
  }

  /**
   * `compute`'s answer, kept until the file changes: a commit by another
   * connection (data_version) or a change made through this one
   * (total_changes). For reads that go through a whole table to answer a
   * small question every query asks (how many files of a language
   * enrichment has reached): their cost grows with the repository.
   */
  async cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const at = await this.generation();
    if (at !== this.cacheAt) {
      this.cache.clear();
      this.cacheAt = at;
    }
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = await compute();
    // Kept only if nothing changed while it was computed.
    if ((await this.generation()) === at) this.cache.set(key, value);
    return value;
  }

  private readonly cache = new Map<string, unknown>();
  private cacheAt = '';

  private async generation(): Promise<string> {
    const row = await this.get<{ v: number; c: number }>('SELECT (SELECT data_version FROM pragma_data_version()) AS v, total_changes() AS c');
    return `${row?.v}:${row?.c}`;
  }

  close(): Promise<void> {
    return this.writeQueue.then(() => {
      this.statements.clear();
      this.native.close();
      this.releaseSession();
    });
  }

  private async migrate(): Promise<void> {
    await this.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const known = new Set(this.migrations.map((m) => m.id));
    const applied = new Set((await this.all<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    const unknown = [...applied].filter((id) => !known.has(id));
    if (unknown.length) {
      throw new TenureError(
        'store-unavailable',
        `${this.file} was written by a newer Tenure (it has schema changes this build does not know: ${unknown.join(', ')}). Update Tenure to use it.`,
      );
    }
    for (const m of this.migrations) {
      if (applied.has(m.id)) continue;
      try {
        await this.write(async (db) => {
          // Re-check inside the lock: another process may have applied it meanwhile.
          if (await db.get('SELECT 1 FROM schema_migrations WHERE id = ?', [m.id])) return;
          await db.exec(m.sql);
          await db.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', [m.id, Date.now()]);
        });
      } catch (e) {
        // The migration rolled back: the file is as it was. Say what to do, touch nothing.
        throw new TenureError(
          'store-unavailable',
          `${this.file} could not be brought up to date (schema change ${m.id}: ${errorMessage(e)}). ` +
            'It may come from an early development build of Tenure. The file was left as it was: move its folder aside (keep it if it holds episodes or rules you want) and run `tenure index` to start a new one.',
          undefined,
          { cause: e },
        );
      }
    }
  }

  /**
   * `PRAGMA quick_check` reads the whole file: seconds on a large database,
   * paid by every command if run at every open. It runs when it can find
   * something — the last process that had the file open did not close it
   * (it was killed mid-write) — and otherwise once a week.
   */
  private async checkIntegrityWhenDue(): Promise<void> {
    const unclean = this.claimSession();
    // The store's own bookkeeping, beside schema_migrations: no memory's table holds it.
    await this.exec('CREATE TABLE IF NOT EXISTS store_checks (id INTEGER PRIMARY KEY CHECK (id = 1), checked_at INTEGER NOT NULL)');
    const last = (await this.get<{ checked_at: number }>('SELECT checked_at FROM store_checks'))?.checked_at ?? 0;
    if (!unclean && Date.now() - last < INTEGRITY_EVERY_MS) return;
    await this.checkIntegrity();
    await this.write((d) => d.run('INSERT INTO store_checks (id, checked_at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET checked_at = excluded.checked_at', [Date.now()]).then(() => undefined));
  }

  /** Marks this process as having the file open; true when a process that had it open before died without closing it. */
  private claimSession(): boolean {
    if (this.file === ':memory:') return false;
    const dir = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}.open-`;
    let unclean = false;
    for (const name of fs.readdirSync(dir)) {
      if (!name.startsWith(prefix)) continue;
      const pid = Number(name.slice(prefix.length).split('-')[0]);
      if (pid === process.pid) continue;
      if (!processAlive(pid)) {
        unclean = true;
        fs.rmSync(path.join(dir, name), { force: true });
      }
    }
    // One marker per thread (the indexer's worker has its own module state); connections in a thread share it, counted, removed with the last.
    this.sessionMarker = path.join(dir, `${prefix}${process.pid}-${threadId}`);
    SESSIONS.set(this.sessionMarker, (SESSIONS.get(this.sessionMarker) ?? 0) + 1);
    fs.writeFileSync(this.sessionMarker, '');
    return unclean;
  }

  private sessionMarker: string | undefined;

  private releaseSession(): void {
    const m = this.sessionMarker;
    if (!m) return;
    this.sessionMarker = undefined;
    const n = (SESSIONS.get(m) ?? 1) - 1;
    if (n > 0) return void SESSIONS.set(m, n);
    SESSIONS.delete(m);
    fs.rmSync(m, { force: true });
  }

  private async checkIntegrity(): Promise<void> {
    const row = await this.get<{ quick_check: string }>('PRAGMA quick_check');
    if (row && row.quick_check !== 'ok') {
      throw new TenureError(
        'store-corrupt',
        `The Tenure database ${this.file} failed its integrity check (${row.quick_check}). Run \`tenure index --rebuild\` to rebuild the structural memory.`,
      );
    }
  }
}

/** SQLite's "database is locked", said with what holds it and what to do; its code stays SQLITE_BUSY. */
function lockedError(cause: unknown, file: string, ms: number): Error {
  const e = new Error(`${file} is locked: another process (VS Code's indexer, \`tenure index\`, \`tenure watch\`, the MCP server) has held its write lock for ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} without committing. Wait for it to finish and try again; nothing was written.`, { cause });
  return Object.assign(e, { code: 'SQLITE_BUSY' });
}
