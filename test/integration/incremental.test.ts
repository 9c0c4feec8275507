import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { copyExample, tempDir, write } from '../helpers/fixtures';

describe('incremental re-index', () => {
  let ws: Workspace;
  let indexer: StructuralIndexer;
  let cleanup: () => void;

  beforeEach(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    ws = await openWorkspace(ex.root);
    indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
  });
  afterEach(async () => {
    await indexer.dispose();
    await ws.close();
    cleanup();
  });

  const callers = async (symbol: string) => {
    const r = await whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), 1);
    return r.dependents.map((d) => `${d.symbol.qname} ${d.tier}`).sort();
  };

  async function danglingEdges(): Promise<number> {
    const row = await ws.db.get<{ n: number }>(
      `SELECT count(*) AS n FROM edges e WHERE (e.dst_id IS NOT NULL AND e.dst_id NOT IN (SELECT id FROM symbols))
         OR e.src_id NOT IN (SELECT id FROM symbols) OR e.file_id NOT IN (SELECT id FROM files)`,
    );
    return row!.n;
  }

  it('shows a new caller after its file is saved', async () => {
    const file = write(ws.root, 'src/ops/Replay.ts', `import { SettlementService } from '../settlement/SettlementService';\nexport function replay(s: SettlementService) {\n  return s.retry({} as any, 1);\n}\n`);
    const r = await indexer.updateFiles([file]);
    assert.equal(r.parsed, 1);
    assert.ok((await callers('SettlementService.retry')).includes('replay inferred'));
  });

  it('an ambiguous call becomes inferred when a rival definition is deleted, and nothing dangles', async () => {
    write(ws.root, 'src/legacy/OldSettlement.ts', `export class OldSettlement {\n  retry(id: string) { return id; }\n}\n`);
    await indexer.updateFiles([path.join(ws.root, 'src/legacy/OldSettlement.ts')]);
    const before = await whatBreaks(ws.db, await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root }), 1);
    const post = before.dependents.find((d) => d.symbol.qname === 'postRetry')!;
    assert.equal(post.tier, 'ambiguous');
    assert.deepEqual(post.candidates!.map((c) => c.qname).sort(), ['OldSettlement.retry', 'SettlementService.retry']);

    fs.rmSync(path.join(ws.root, 'src/legacy/OldSettlement.ts'));
    const r = await indexer.updateFiles([path.join(ws.root, 'src/legacy/OldSettlement.ts')]);
    assert.equal(r.removed, 1);
    assert.ok((await callers('SettlementService.retry')).includes('postRetry inferred'));
    assert.equal(await danglingEdges(), 0);
    const files = await ws.db.get<{ n: number }>("SELECT count(*) AS n FROM files WHERE path = 'src/legacy/OldSettlement.ts'");
    assert.equal(files!.n, 0);
  });

  it('deleting a callee removes its incoming edges; recreating it restores them', async () => {
    const auditFile = path.join(ws.root, 'src/settlement/AuditLog.ts');
    const text = fs.readFileSync(auditFile, 'utf8');
    fs.rmSync(auditFile);
    await indexer.updateFiles([auditFile]);
    assert.equal(await danglingEdges(), 0);
    await assert.rejects(resolveOneSymbol(ws.db, 'AuditLog.record', { root: ws.root }), /No symbol matches/);
    fs.writeFileSync(auditFile, text);
    await indexer.updateFiles([auditFile]);
    assert.deepEqual(await callers('AuditLog.record'), ['SettlementService.retry inferred', 'SettlementService.settle inferred']);
  });

  it('a function imported under another name (and re-exported under a third) gets its callers back when its definition returns', async () => {
    const helpers = write(ws.root, 'src/ops/helpers.ts', `export function members(x: object) {\n  return Object.keys(x);\n}\n`);
    write(ws.root, 'src/ops/barrel.ts', `export { members as listMembers } from './helpers';\n`);
    const direct = write(ws.root, 'src/ops/direct.ts', `import { members as installMembers } from './helpers';\nexport function install() {\n  return installMembers({});\n}\n`);
    const viaBarrel = write(ws.root, 'src/ops/viaBarrel.ts', `import { listMembers as names } from './barrel';\nexport function list() {\n  return names({});\n}\n`);
    await indexer.updateFiles([helpers, path.join(ws.root, 'src/ops/barrel.ts'), direct, viaBarrel]);
    const expected = ['install inferred', 'list inferred'];
    assert.deepEqual(await callers('members'), expected);
    const text = fs.readFileSync(helpers, 'utf8');
    fs.writeFileSync(helpers, '// members moved out for a while\n');
    await indexer.updateFiles([helpers]);
    assert.equal(await danglingEdges(), 0);
    fs.writeFileSync(helpers, text);
    await indexer.updateFiles([helpers]);
    // Only helpers.ts changed: the callers' sites name `installMembers` and `names`, not `members`.
    assert.deepEqual(await callers('members'), expected);
  });

  it('editing a callee keeps the edges into its unchanged symbols, and renaming one moves its callers', async () => {
    const file = path.join(ws.root, 'src/settlement/AuditLog.ts');
    const edgeIds = async () =>
      (await ws.db.all<{ id: number }>(`SELECT e.id FROM edges e JOIN symbols s ON s.id = e.dst_id WHERE s.qname = 'AuditLog.record' ORDER BY e.id`)).map((r) => r.id);
    const before = await edgeIds();
    assert.equal(before.length, 2);
    fs.appendFileSync(file, '\n// a comment added by an edit\n');
    await indexer.updateFiles([file]);
    assert.deepEqual(await edgeIds(), before, 'edges from other files were not rewritten');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('record(event', 'write(event'));
    await indexer.updateFiles([file]);
    await assert.rejects(resolveOneSymbol(ws.db, 'AuditLog.record', { root: ws.root }), /No symbol matches/);
    // The callers still name `record`: with no definition left they are external, not dangling.
    assert.deepEqual(await callers('AuditLog.write'), []);
    assert.equal(await danglingEdges(), 0);
  });

  it("an edited file's definitions keep their ids and stored sids, in the indexer that wrote them and in one that loaded them; neither holds their sids or places", async () => {
    const file = path.join(ws.root, 'src/settlement/AuditLog.ts');
    const rows = async () => ws.db.all<{ id: number; sid: string; qname: string; line: number; col: number; end_line: number }>(
      `SELECT s.id, s.sid, s.qname, s.line, s.col, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = 'src/settlement/AuditLog.ts' ORDER BY s.id`,
    );
    const before = await rows();
    assert.ok(before.length >= 3 && before.every((r) => r.sid.length > 0), 'stored with their sids');
    const inMemory = (ix: StructuralIndexer) => [...ix.debugState.symbols.values()];
    assert.equal(indexer.debugState.unwrittenSymbols.size, 0, 'the working set keeps no sid or place once written');
    assert.ok(inMemory(indexer).every((s) => !('sid' in s)), 'nor does any symbol');
    fs.appendFileSync(file, '\n// an edit that moves no definition\n');
    await indexer.updateFiles([file]);
    assert.deepEqual(await rows(), before, 'same ids, sids and places after an edit');
    const second = await StructuralIndexer.create(ws);
    try {
      await second.indexAll();
      assert.equal(second.debugState.unwrittenSymbols.size, 0, 'nor does one loaded from the store');
      assert.ok(inMemory(second).every((s) => !('sid' in s)));
      fs.appendFileSync(file, '\n// another edit\n');
      await second.updateFiles([file]);
      assert.deepEqual(await rows(), before, 'and the same after an edit through it');
    } finally {
      await second.dispose();
    }
  });

  it('a created folder indexes the files under it; a deleted folder drops them', async () => {
    write(ws.root, 'src/ops/a/One.ts', `import { SettlementService } from '../../settlement/SettlementService';\nexport const one = (s: SettlementService) => s.retry({} as any, 1);\n`);
    write(ws.root, 'src/ops/a/b/Two.ts', `export function two() { return 2; }\n`);
    const created = await indexer.updateFiles([path.join(ws.root, 'src/ops')]);
    assert.equal(created.parsed, 2);
    assert.ok((await callers('SettlementService.retry')).includes('one inferred'));
    const before = await indexer.counts();
    fs.rmSync(path.join(ws.root, 'src/ops'), { recursive: true });
    const removed = await indexer.updateFiles([path.join(ws.root, 'src/ops')]);
    assert.equal(removed.removed, 2);
    const after = await indexer.counts();
    assert.equal(after.files, before.files - 2);
    assert.ok(!(await callers('SettlementService.retry')).includes('one inferred'));
    assert.equal(await danglingEdges(), 0);
  });

  it('indexes unsaved editor text instead of the file on disk', async () => {
    const file = path.join(ws.root, 'src/settlement/AuditLog.ts');
    const text = fs.readFileSync(file, 'utf8') + '\nexport function unsavedHelper() { return 1; }\n';
    await indexer.updateFiles([file], new Map([[file, text]]));
    const found = await resolveOneSymbol(ws.db, 'unsavedHelper', { root: ws.root });
    assert.equal(found.path, 'src/settlement/AuditLog.ts');
  });

  it('a re-index with nothing changed parses nothing; a touched file with the same bytes is not re-parsed', async () => {
    const again = await indexer.indexAll();
    assert.equal(again.parsed, 0);
    const f = path.join(ws.root, 'src/settlement/RetryPolicy.ts');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(f, later, later);
    const touched = await indexer.indexAll();
    assert.equal(touched.parsed, 0);
    assert.equal(touched.unchanged, touched.files);
  });

  it('a file skipped for its bytes waits until they change; one skipped for a setting (its size) is tried again, by a new indexer too', async () => {
    write(ws.root, 'src/blob.ts', Buffer.from([0x65, 0x78, 0x00, 0x70]));
    write(ws.root, 'src/big.ts', Array.from({ length: 200 }, (_, i) => `export const big${i} = ${i};\n`).join(''));
    const small = await StructuralIndexer.create(ws, { maxFileBytes: 1024 });
    try {
      const first = await small.indexAll();
      const kinds = Object.fromEntries(first.skipped.map((s) => [s.path, s.kind]));
      assert.deepEqual([kinds['src/blob.ts'], kinds['src/big.ts']], ['binary', 'too-large']);
      const again = await small.indexAll();
      assert.equal(again.unchanged, again.files - 1, 'only the file over the size limit is read again');
    } finally {
      await small.dispose();
    }
    const large = await StructuralIndexer.create(ws);
    try {
      const r = await large.indexAll();
      assert.equal(r.parsed, 1, 'the size limit was raised: the large file is read now');
      assert.deepEqual(r.skipped.map((s) => [s.path, s.kind]), [['src/blob.ts', 'binary']]);
    } finally {
      await large.dispose();
    }
  });

  it('re-indexes a store that holds only skipped files (every file minified): the changed file replaces its row, the first real file indexes', async () => {
    const t = tempDir();
    const only = await openWorkspace(t.root);
    const fresh = await StructuralIndexer.create(only);
    try {
      write(t.root, 'min.js', 'var a=1;'.repeat(5000));
      assert.deepEqual((await fresh.indexAll()).skipped.map((s) => [s.path, s.kind]), [['min.js', 'minified']]);
      // New bytes, still minified: its rows are written again over the old ones (this failed with
      // "UNIQUE constraint failed: file_sites.file_id" when a store without symbols counted as empty).
      write(t.root, 'min.js', 'var b=2;'.repeat(5000));
      write(t.root, 'a.ts', 'export function a(): number {\n  return 1;\n}\n');
      const again = await fresh.indexAll();
      assert.equal(again.parsed, 1);
      assert.deepEqual(again.skipped.map((s) => [s.path, s.kind]), [['min.js', 'minified']]);
      assert.equal((await only.db.get<{ n: number }>('SELECT count(*) AS n FROM file_sites'))?.n, 2);
      assert.ok(await resolveOneSymbol(only.db, 'a', { root: t.root }));
    } finally {
      await fresh.dispose();
      await only.close();
      t.cleanup();
    }
  });

  it('a second indexer (another process) sees the same graph from the database alone', async () => {
    write(ws.root, 'src/ops/Replay.ts', `import { SettlementService } from '../settlement/SettlementService';\nexport const replay = (s: SettlementService) => s.retry({} as any, 1);\n`);
    await indexer.updateFiles([path.join(ws.root, 'src/ops/Replay.ts')]);
    const other = await StructuralIndexer.create(ws);
    const r = await other.indexAll();
    assert.equal(r.parsed, 0, 'state loaded from SQLite, nothing re-parsed');
    await other.dispose();
    assert.ok((await callers('SettlementService.retry')).includes('replay inferred'));
  });

  it('holds no site in memory once written (only their names), here and in a new indexer, and still finds the callers a save reaches', async () => {
    const stored = async () => (await ws.db.all<{ sites: string }>('SELECT sites FROM file_sites')).reduce((n, r) => n + (JSON.parse(r.sites) as unknown[]).length, 0);
    const report = await indexer.indexAll();
    assert.equal(indexer.debugState.pendingSites.size, 0, 'no site objects kept after the write');
    assert.equal(report.sites, await stored(), 'the report counts the stored sites');
    const second = await StructuralIndexer.create(ws);
    try {
      const again = await second.indexAll();
      assert.equal(again.parsed, 0);
      assert.equal(again.sites, report.sites, 'a new indexer counts the same sites from the store');
      assert.equal(second.debugState.pendingSites.size, 0, 'and loads none of them as objects');
      assert.ok([...second.debugState.filesWithSite('record')].length >= 1, 'it knows which files name `record`');
      // A definition renamed back: the callers in files nobody touched are read from the store and resolved again.
      const file = path.join(ws.root, 'src/settlement/AuditLog.ts');
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.replace('record(event', 'write(event'));
      await second.updateFiles([file]);
      fs.writeFileSync(file, text);
      await second.updateFiles([file]);
      assert.deepEqual(await callers('AuditLog.record'), ['SettlementService.retry inferred', 'SettlementService.settle inferred']);
      assert.equal(second.debugState.pendingSites.size, 0);
    } finally {
      await second.dispose();
    }
  });

  it('lets its parse workers go after a bulk index (their memory never shrinks) and starts one for the next save', async () => {
    for (let i = 0; i < 240; i++) write(ws.root, `src/generated/g${i}.ts`, `export function gen${i}(n: number) {\n  return n + ${i};\n}\n`);
    const bulk = await indexer.indexAll();
    assert.ok(bulk.parsed >= 240, `bulk parse of ${bulk.parsed} files`);
    assert.equal(indexer.parseWorkers, 0, 'workers released after the bulk parse');
    const file = write(ws.root, 'src/ops/Replay.ts', `import { SettlementService } from '../settlement/SettlementService';\nexport function replay(s: SettlementService) {\n  return s.retry({} as any, 1);\n}\n`);
    await indexer.updateFiles([file]);
    assert.equal(indexer.parseWorkers, 1, 'a save starts one worker');
    assert.ok((await callers('SettlementService.retry')).includes('replay inferred'));
  });
});
