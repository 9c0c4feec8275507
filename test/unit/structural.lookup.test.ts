import * as assert from 'node:assert/strict';
import { loadSymbolIndex, resolveOneSymbol, symbolBySid, symbolIndexOf, symbolRows, symbolsNamedLike } from '../../src/core/structural/lookup.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { isIndexed } from '../../src/core/structural/lookup.js';
import { hasSourceSymbols } from '../../src/core/structural/status.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { copyExample, tempDir, write } from '../helpers/fixtures.js';

/* The symbol namespace, the seam the other memories use: symbols by id and by words, and the rows the linker indexes. */

describe('the symbol namespace (examples/settlement)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let indexer: StructuralIndexer;
  let cleanup: () => void;

  before(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    ws = await openWorkspace(ex.root);
    indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
  });
  after(async () => {
    await indexer.dispose();
    await ws.close();
    cleanup();
  });

  it('finds a symbol by its id, and none for an id it does not have', async () => {
    const retry = await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root });
    assert.deepEqual(await symbolBySid(ws.db, retry.sid), retry);
    assert.equal(await symbolBySid(ws.db, 'ts `nowhere.ts`/Nothing#'), undefined);
  });

  it('lists the symbols whose names hold a word, with the type they belong to', async () => {
    const hits = await symbolsNamedLike(ws.db, ['RETRY']);
    const retry = hits.find((h) => h.qname === 'SettlementService.retry');
    assert.equal(retry?.container, 'SettlementService');
    assert.ok(hits.every((h) => h.name.toLowerCase().includes('retry') && h.kind !== 'module' && h.kind !== 'constructor'));
    assert.deepEqual(await symbolsNamedLike(ws.db, []), []);
  });

  it('supplies the linker its rows, and keeps its index until the symbols change', async () => {
    const rows = await symbolRows(ws.db);
    const retry = rows.find((r) => r.qname === 'SettlementService.retry')!;
    assert.equal(retry.parent_name, 'SettlementService');
    assert.ok(retry.end_line >= retry.line);
    assert.equal((await loadSymbolIndex(ws.db)).byName.get('retry')?.some((s) => s.qname === 'SettlementService.retry'), true);
    const first = await symbolIndexOf(ws.db);
    assert.equal(await symbolIndexOf(ws.db), first, 'the same index while nothing changed');
    await indexer.updateFiles([write(ws.root, 'src/ops/Replay.ts', 'export function replayAll(): void {}\n')]);
    const after = await symbolIndexOf(ws.db);
    assert.notEqual(after, first);
    assert.ok(after.byName.has('replayAll'));
  });

  it('says whether anything is indexed, and whether the source declares symbols', async () => {
    assert.equal(await isIndexed(ws.db), true);
    assert.equal(await hasSourceSymbols(ws.db), true);
    const t = tempDir();
    try {
      const empty = await openWorkspace(t.root);
      try {
        assert.equal(await isIndexed(empty.db), false);
        assert.equal(await hasSourceSymbols(empty.db), false);
      } finally {
        await empty.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
