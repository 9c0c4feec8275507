import * as assert from 'node:assert/strict';
import { lensCounts, structuralTotals, symbolAt } from '../../src/core/structural/editorReads.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { copyExample, tempDir, write } from '../helpers/fixtures.js';

/* The structural reads behind CodeLens, hover, "symbol at cursor" and the status bar, on the settlement example and on a two-function file. */

async function indexed(root: string): Promise<Workspace> {
  const ws = await openWorkspace(root);
  const indexer = await StructuralIndexer.create(ws);
  await indexer.indexAll();
  await indexer.dispose();
  return ws;
}

describe('structural reads for the editor (examples/settlement)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let cleanup: () => void;

  before(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    ws = await indexed(ex.root);
  });
  after(async () => {
    await ws.close();
    cleanup();
  });

  it('counts the distinct direct dependents and callers of every lens-worthy symbol of a file; a type counts its members', async () => {
    const counts = await lensCounts(ws.db, 'src/settlement/SettlementService.ts');
    assert.deepEqual(
      counts.map((c) => [c.qname, c.kind, c.line, c.dependents, c.resolved, c.callers]),
      [
        ['SettlementService', 'class', 6, 8, 0, 5],
        ['SettlementService.settle', 'method', 13, 3, 0, 3],
        ['SettlementService.retry', 'method', 19, 4, 0, 4],
        ['sleep', 'function', 31, 1, 0, 1],
      ],
    );
    const cls = counts.find((c) => c.qname === 'SettlementService')!;
    const retry = counts.find((c) => c.qname === 'SettlementService.retry')!;
    assert.equal(cls.groupSids[0], cls.sid, 'a symbol stands for itself first');
    assert.ok(cls.groupSids.includes(retry.sid), 'a type stands for its members');
    assert.deepEqual(retry.groupSids, [retry.sid]);
    assert.equal(retry.typeSid, cls.sid);
    assert.equal(cls.typeSid, null);
  });

  it('lists nothing for a file it does not know', async () => {
    assert.deepEqual(await lensCounts(ws.db, 'no/such/file.ts'), []);
  });

  it('finds the symbol a use site names, the declared one, else the one around the cursor', async () => {
    const call = await symbolAt(ws.db, 'src/allocation/AllocationService.ts', 18, 26, 'retry');
    assert.equal(call?.qname, 'SettlementService.retry');
    const decl = await symbolAt(ws.db, 'src/settlement/SettlementService.ts', 19, 8, 'retry');
    assert.equal(decl?.qname, 'SettlementService.retry');
    const inside = await symbolAt(ws.db, 'src/settlement/SettlementService.ts', 21, 10, 'await');
    assert.equal(inside?.qname, 'SettlementService.retry');
    assert.equal(await symbolAt(ws.db, 'no/such/file.ts', 1, 0, 'x'), undefined);
  });

  it('totals files, symbols and edges by tier', async () => {
    const t = await structuralTotals(ws.db);
    assert.ok(t.files > 10 && t.symbols > t.files, JSON.stringify(t));
    assert.equal(Object.values(t.edgesByTier).reduce((a, b) => a + b, 0), t.edges);
    assert.ok((t.edgesByTier.inferred ?? 0) > 0);
    // The same edges again, by the language of the file each site is in (the example has TypeScript, Python and Java).
    const byLanguage = Object.values(t.edgesByLanguage).flatMap((tiers) => Object.values(tiers));
    assert.equal(byLanguage.reduce((a, b) => a + b, 0), t.edges);
    assert.ok(['typescript', 'python', 'java'].every((l) => l in t.edgesByLanguage), JSON.stringify(t.edgesByLanguage));
  });
});

describe('structural reads for the editor (a file of two functions)', function () {
  this.timeout(60_000);
  it('counts one caller for the called function and none for the caller', async () => {
    const t = tempDir();
    try {
      write(t.root, 'src/a.ts', 'export function a(): number {\n  return b();\n}\nexport function b(): number {\n  return 1;\n}\n');
      const ws = await indexed(t.root);
      try {
        const counts = await lensCounts(ws.db, 'src/a.ts');
        assert.deepEqual(
          counts.map((c) => [c.name, c.dependents, c.callers, c.typeSid]),
          [
            ['a', 0, 0, null],
            ['b', 1, 1, null],
          ],
        );
        assert.deepEqual(await structuralTotals(ws.db), { files: 1, symbols: 2, edges: 1, edgesByTier: { inferred: 1 }, edgesByLanguage: { typescript: { inferred: 1 } } });
      } finally {
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
