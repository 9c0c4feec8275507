import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { deferIndexes, insertRows } from '../../src/core/store/bulk';
import { Db } from '../../src/core/store/db';
import { SCHEMA } from '../../src/core/workspace';
import { TenureError } from '../../src/shared/errors';
import { REPO_ROOT, tempDir } from '../helpers/fixtures';

describe('SQLite store (real database files)', () => {
  let dir: { root: string; cleanup: () => void };
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  it('creates the schema with WAL journaling and records the migration version', async () => {
    const file = path.join(dir.root, 'm.db');
    const db = await Db.open(file, { migrations: SCHEMA });
    assert.equal((await db.get<{ journal_mode: string }>('PRAGMA journal_mode'))?.journal_mode, 'wal');
    const applied = (await db.all<{ id: string }>('SELECT id FROM schema_migrations ORDER BY rowid')).map((r) => r.id);
    assert.deepEqual(applied, SCHEMA.map((m) => m.id));
    const tables = (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).map((t) => t.name);
    for (const t of ['edges', 'files', 'imports', 'file_sites', 'meta', 'symbols']) assert.ok(tables.includes(t), t);
    await db.close();
    // Reopening does not re-run migrations.
    const again = await Db.open(file, { migrations: SCHEMA });
    assert.equal((await again.get<{ n: number }>('SELECT count(*) AS n FROM schema_migrations'))?.n, SCHEMA.length);
    await again.close();
  });

  it('bulk-inserts rows holding large texts in bounded statements and reads a table back page by page, in order, nothing lost', async () => {
    const db = await Db.open(path.join(dir.root, 'p.db'), { migrations: SCHEMA });
    const big = 'x'.repeat(300_000);
    // 9 rows of 300 KB: more than one statement of about 1 MB each.
    const rows = Array.from({ length: 9 }, (_, i) => [`k${i}`, i % 3 === 0 ? big : String(i)]);
    await db.write((d) => insertRows(d, 'meta', ['key', 'value'], rows));
    assert.equal((await db.get<{ n: number }>('SELECT count(*) AS n FROM meta WHERE key LIKE ?', ['k%']))?.n, 9);
    assert.equal((await db.get<{ len: number }>("SELECT length(value) AS len FROM meta WHERE key = 'k3'"))?.len, 300_000);
    const seen: string[] = [];
    let pages = 0;
    for await (const page of db.pages<{ key: string }>('meta', 'key', "key LIKE 'k%'", 4)) {
      pages++;
      seen.push(...page.map((r) => r.key));
    }
    assert.deepEqual(seen, rows.map((r) => r[0]));
    assert.equal(pages, 3);
    await db.close();
  });

  it('bulk-inserts cells as the store keeps them: booleans as 0/1, NaN as NULL, an upsert updating the row it meets', async () => {
    const db = await Db.open(path.join(dir.root, 'c.db'), { migrations: SCHEMA });
    await db.exec('CREATE TABLE cells (key TEXT PRIMARY KEY, value)');
    await db.write((d) => insertRows(d, 'cells', ['key', 'value'], [['yes', true], ['no', false], ['nan', Number.NaN], ['n', 7]]));
    await db.write((d) => insertRows(d, 'cells', ['key', 'value'], [['n', 'eight']], { upsert: 'key' }));
    const rows = await db.all<{ key: string; value: unknown; t: string }>('SELECT key, value, typeof(value) AS t FROM cells ORDER BY key');
    assert.deepEqual(rows.map((r) => [r.key, r.value, r.t]), [['n', 'eight', 'text'], ['nan', null, 'null'], ['no', 0, 'integer'], ['yes', 1, 'integer']]);
    await db.close();
  });

  it('bulk-inserts every row once whatever the count (several rows per statement, the rest one by one), an upsert deciding conflicts in row order', async () => {
    const db = await Db.open(path.join(dir.root, 'm.db'), { migrations: SCHEMA });
    await db.exec('CREATE TABLE many (id INTEGER PRIMARY KEY, label TEXT, flag INTEGER)');
    // 4,037 rows: past one chunk, and neither count a whole number of statements.
    const rows = Array.from({ length: 4037 }, (_, i) => [i + 1, `r${i + 1}`, i % 2 === 0]);
    await db.write((d) => insertRows(d, 'many', ['id', 'label', 'flag'], rows));
    const stored = await db.all<{ id: number; label: string; flag: number }>('SELECT id, label, flag FROM many ORDER BY id');
    assert.deepEqual(stored.map((r) => [r.id, r.label, r.flag]), rows.map(([id, label, flag]) => [id, label, flag ? 1 : 0]));
    // The same key twice among rows that share a statement: the later row is what stays.
    const again = Array.from({ length: 20 }, (_, i) => [(i % 10) + 1, `second${i}`, false]);
    await db.write((d) => insertRows(d, 'many', ['id', 'label', 'flag'], again, { upsert: 'id' }));
    const updated = await db.all<{ id: number; label: string }>('SELECT id, label FROM many WHERE id <= 11 ORDER BY id');
    assert.deepEqual(updated.map((r) => r.label), [...Array.from({ length: 10 }, (_, i) => `second${i + 10}`), 'r11']);
    assert.equal((await db.get<{ n: number }>('SELECT count(*) AS n FROM many'))?.n, 4037);
    await db.close();
  });

  it('builds a bulk load\'s indexes once at the end, the same indexes as before; a load that fails keeps them', async () => {
    const db = await Db.open(path.join(dir.root, 'i.db'), { migrations: SCHEMA });
    const indexes = () => db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'symbols' AND sql IS NOT NULL ORDER BY name");
    const before = await indexes();
    assert.ok(before.some((i) => i.name === 'symbols_name'), 'the schema indexes symbols by name');
    await db.write(async (d) => {
      await d.run("INSERT INTO files (id, path, size, mtime_ms, indexed_at) VALUES (1, 'a.py', 0, 0, 0)");
      const restore = await deferIndexes(d, ['symbols']);
      assert.deepEqual(await d.all("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'symbols' AND sql IS NOT NULL"), [], 'dropped for the load');
      const rows = Array.from({ length: 5000 }, (_, i) => [i + 1, `s${i}`, `n${i % 50}`, `q${i}`, 'function', 1, null, i, 0, i, 1, 0]);
      await insertRows(d, 'symbols', ['id', 'sid', 'name', 'qname', 'kind', 'file_id', 'parent_id', 'line', 'col', 'end_line', 'end_col', 'exported'], rows);
      await restore();
    });
    assert.deepEqual(await indexes(), before);
    const plan = await db.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT id FROM symbols WHERE name = 'n7'");
    assert.ok(plan.some((p) => p.detail.includes('symbols_name')), JSON.stringify(plan));
    assert.equal((await db.get<{ n: number }>("SELECT count(*) AS n FROM symbols WHERE name = 'n7'"))?.n, 100);
    // A load that fails rolls the drop back with it.
    await assert.rejects(
      db.write(async (d) => {
        await deferIndexes(d, ['symbols']);
        throw new Error('load failed');
      }),
      /load failed/,
    );
    assert.deepEqual(await indexes(), before);
    await db.close();
  });

  it('a write waiting for another connection\'s lock does not hold up reads on its own connection', async function () {
    this.timeout(30_000);
    const file = path.join(dir.root, 'w.db');
    const db = await Db.open(file, { migrations: SCHEMA });
    await db.run("INSERT INTO meta (key, value) VALUES ('a', '1')");
    // Another connection (a worker thread, as the extension's indexer) holds the write lock until told to stop.
    const other = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const { Db } = require(workerData.dbModule);
       const { SCHEMA } = require(workerData.schemaModule);
       (async () => {
         const db = await Db.open(workerData.file, { migrations: SCHEMA });
         await db.write(async () => {
           parentPort.postMessage('locked');
           await new Promise((r) => parentPort.once('message', r));
         });
         await db.close();
         parentPort.postMessage('released');
       })();`,
      { eval: true, workerData: { file, dbModule: path.join(__dirname, '..', '..', 'src', 'core', 'store', 'db.js'), schemaModule: path.join(__dirname, '..', '..', 'src', 'core', 'workspace.js') } },
    );
    await new Promise((r) => other.once('message', r));
    const order: string[] = [];
    const write = db.write((d) => d.run("INSERT INTO meta (key, value) VALUES ('b', '2')")).then(() => order.push('write'));
    await new Promise((r) => setTimeout(r, 50));
    const read = await db.all<{ key: string }>('SELECT key FROM meta ORDER BY key');
    order.push('read');
    assert.deepEqual(read.map((r) => r.key), ['a']);
    const released = new Promise((r) => other.once('message', r));
    other.postMessage('release');
    await released;
    await write;
    assert.deepEqual(order, ['read', 'write'], 'the read waited for the other connection');
    assert.deepEqual((await db.all<{ key: string }>('SELECT key FROM meta ORDER BY key')).map((r) => r.key), ['a', 'b']);
    await other.terminate();
    await db.close();
  });

  // A holder in another thread: `commits` transactions of `holdMs` each, back to back (or one, never committed until told), then it lets go.
  function holder(file: string, holdMs: number, commits: number, tag: string): Worker {
    return new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const { Db } = require(workerData.dbModule);
       const { SCHEMA } = require(workerData.schemaModule);
       (async () => {
         const db = await Db.open(workerData.file, { migrations: SCHEMA });
         let first = true;
         for (let i = 0; i < workerData.commits; i++) {
           await db.write(async (d) => {
             await d.run('INSERT INTO meta (key, value) VALUES (?, ?)', [workerData.tag + '-' + i, 'x']);
             if (first) parentPort.postMessage('locked');
             first = false;
             await new Promise((r) => setTimeout(r, workerData.holdMs));
           });
         }
         await db.close();
         parentPort.postMessage('released');
       })();`,
      { eval: true, workerData: { file, holdMs, commits, tag, dbModule: path.join(__dirname, '..', '..', 'src', 'core', 'store', 'db.js'), schemaModule: path.join(__dirname, '..', '..', 'src', 'core', 'workspace.js') } },
    );
  }

  it('a writer behind others that keep committing waits its turn past its timeout; one behind a lock held with no commit fails saying what to do', async function () {
    this.timeout(30_000);
    const file = path.join(dir.root, 'busy.db');
    // A short timeout stands for the default 10 s: on a loaded machine, four processes indexing one workspace kept a writer from its turn for longer than that.
    const db = await Db.open(file, { migrations: SCHEMA, busyTimeoutMs: 300 });
    const busy = holder(file, 150, 10, 'busy');
    await new Promise((r) => busy.once('message', r));
    const released = new Promise((r) => busy.once('message', r));
    const started = Date.now();
    await db.write((d) => d.run("INSERT INTO meta (key, value) VALUES ('mine', '1')"));
    const waited = Date.now() - started;
    assert.ok(waited > 300, `it waited past its timeout while the other committed (${waited} ms)`);
    await released;
    assert.equal((await db.get<{ n: number }>("SELECT count(*) AS n FROM meta WHERE key LIKE 'busy-%' OR key = 'mine'"))!.n, 11);
    await busy.terminate();

    const stuck = holder(file, 1_500, 1, 'stuck');
    await new Promise((r) => stuck.once('message', r));
    await assert.rejects(db.write((d) => d.run("INSERT INTO meta (key, value) VALUES ('late', '1')")), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'SQLITE_BUSY');
      assert.match(e.message, /has held its write lock for 300 ms without committing\. Wait for it to finish and try again; nothing was written\./);
      return true;
    });
    await new Promise((r) => stuck.once('message', r));
    await stuck.terminate();
    assert.equal(await db.get("SELECT key FROM meta WHERE key = 'late'"), undefined);
    await db.close();
  });

  it('keeps a cached answer until the file changes, through this connection or another', async () => {
    const file = path.join(dir.root, 'm.db');
    const db = await Db.open(file, { migrations: SCHEMA });
    const other = await Db.open(file, { migrations: SCHEMA });
    try {
      let computed = 0;
      const count = () =>
        db.cached('keys', async () => {
          computed++;
          return (await db.get<{ n: number }>('SELECT count(*) AS n FROM meta'))!.n;
        });
      const first = await count();
      assert.equal(await count(), first);
      assert.equal(computed, 1, 'asked twice with nothing changed: computed once');
      await db.run("INSERT INTO meta (key, value) VALUES ('cached-1', 'x')");
      assert.equal(await count(), first + 1, 'a change through this connection is seen');
      await other.run("INSERT INTO meta (key, value) VALUES ('cached-2', 'y')");
      assert.equal(await count(), first + 2, 'a commit by another connection is seen');
      assert.equal(computed, 3);
    } finally {
      await other.close();
      await db.close();
    }
  });

  it('rolls a failed write back and keeps what was committed before', async () => {
    const db = await Db.open(path.join(dir.root, 'r.db'), { migrations: SCHEMA });
    await db.write((d) => d.run("INSERT INTO meta (key, value) VALUES ('a', '1')").then(() => undefined));
    await assert.rejects(
      db.write(async (d) => {
        await d.run("INSERT INTO meta (key, value) VALUES ('b', '2')");
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(await db.all('SELECT key, value FROM meta ORDER BY key'), [{ key: 'a', value: '1' }]);
    await db.close();
  });

  it('refuses a database written by a newer schema with advice', async () => {
    const file = path.join(dir.root, 'n.db');
    const db = await Db.open(file, { migrations: SCHEMA });
    await db.run("INSERT INTO schema_migrations (id, applied_at) VALUES ('future-999-something', 0)");
    await db.close();
    await assert.rejects(Db.open(file, { migrations: SCHEMA }), (e: unknown) => TenureError.is(e, 'store-unavailable') && /newer Tenure/.test((e as Error).message));
  });

  it('refuses a database from an early build whose tables clash with the schema, says what to do, and leaves it as it was', async () => {
    const file = path.join(dir.root, 'old.db');
    // An early layout, written with the driver directly: a table name the schema uses, no record of schema changes.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseSync } = require('@photostructure/sqlite') as { DatabaseSync: new (f: string) => { exec(sql: string): void; prepare(sql: string): { all(): { name?: string; k?: string }[] }; close(): void } };
    const raw = new DatabaseSync(file);
    raw.exec("CREATE TABLE meta (k TEXT); CREATE TABLE sites (x INTEGER); CREATE TABLE schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL); INSERT INTO meta VALUES ('early')");
    raw.close();
    await assert.rejects(Db.open(file, { migrations: SCHEMA }), (e: unknown) => TenureError.is(e, 'store-unavailable') && /could not be brought up to date .* move its folder aside .* `tenure index`/s.test((e as Error).message));
    // What it held is still there, and no schema change was recorded.
    const again = new DatabaseSync(file);
    const all = (sql: string) => again.prepare(sql).all().map((r) => ({ ...r }));
    assert.deepEqual(all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => r.name), ['meta', 'schema_migrations', 'sites']);
    assert.deepEqual(all('SELECT k FROM meta').map((r) => r.k), ['early']);
    assert.deepEqual(all('SELECT * FROM schema_migrations'), []);
    again.close();
  });

  it('reports a corrupt file instead of crashing', async () => {
    const file = path.join(dir.root, 'c.db');
    fs.writeFileSync(file, Buffer.alloc(8192, 7));
    await assert.rejects(Db.open(file, { migrations: SCHEMA }), (e: unknown) => TenureError.is(e) && /database/.test((e as Error).message));
  });

  it('checks integrity at the first open and after an unclean shutdown, not at every open', async function () {
    this.timeout(60_000);
    const file = path.join(dir.root, 'q.db');
    const checkedAt = async (db: Db) => (await db.get<{ checked_at: number }>('SELECT checked_at FROM store_checks'))?.checked_at;
    const first = await Db.open(file, { migrations: SCHEMA });
    const t1 = await checkedAt(first);
    assert.ok(t1, 'the first open checks the file');
    await first.close();
    await new Promise((r) => setTimeout(r, 5));
    const clean = await Db.open(file, { migrations: SCHEMA });
    assert.equal(await checkedAt(clean), t1, 'a clean reopen does not read the whole file again');
    await clean.close();
    assert.deepEqual(fs.readdirSync(dir.root).filter((n) => n.includes('.open-')), [], 'a closed database leaves no session marker');
    // A process that has the file open is killed: its marker stays behind, its pid dead.
    const script = `
      const { Db } = require(${JSON.stringify(path.join(REPO_ROOT, 'out/src/core/store/db.js'))});
      const { SCHEMA } = require(${JSON.stringify(path.join(REPO_ROOT, 'out/src/core/workspace.js'))});
      Db.open(${JSON.stringify(file)}, { migrations: SCHEMA }).then(() => process.kill(process.pid, 'SIGKILL'));`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL');
    assert.equal(fs.readdirSync(dir.root).filter((n) => n.includes('.open-')).length, 1);
    const after = await Db.open(file, { migrations: SCHEMA });
    const t2 = await checkedAt(after);
    assert.ok(Number(t2) > Number(t1), 'the open after a killed writer checks the file');
    assert.deepEqual(fs.readdirSync(dir.root).filter((n) => n.includes('.open-')), [`q.db.open-${process.pid}-0`], "the dead process's marker is gone, ours is there");
    await after.close();
  });

  it('lets a second process read while the first writes, and both write in turn', async function () {
    this.timeout(60_000);
    const file = path.join(dir.root, 'shared.db');
    const db = await Db.open(file, { migrations: SCHEMA });
    // The child writes 200 rows, one transaction each, while we read and write concurrently.
    const script = `
      const { Db } = require(${JSON.stringify(path.join(REPO_ROOT, 'out/src/core/store/db.js'))});
      const { SCHEMA } = require(${JSON.stringify(path.join(REPO_ROOT, 'out/src/core/workspace.js'))});
      (async () => {
        const db = await Db.open(${JSON.stringify(file)}, { migrations: SCHEMA });
        for (let i = 0; i < 200; i++) await db.write((d) => d.run("INSERT INTO meta (key, value) VALUES (?, 'child')", ['c' + i]));
        await db.close();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    let reads = 0;
    for (let i = 0; i < 200; i++) {
      await db.write((d) => d.run("INSERT INTO meta (key, value) VALUES (?, 'parent')", ['p' + i]));
      await db.get('SELECT count(*) AS n FROM meta');
      reads++;
    }
    assert.equal(await exited, 0);
    const rows = await db.all<{ value: string; n: number }>('SELECT value, count(*) AS n FROM meta GROUP BY value ORDER BY value');
    assert.deepEqual(rows, [
      { value: 'child', n: 200 },
      { value: 'parent', n: 200 },
    ]);
    assert.equal(reads, 200);
    await db.close();
  });
});
