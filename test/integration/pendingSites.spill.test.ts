import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { openWorkspace } from '../../src/core/workspace';
import { copyExample } from '../helpers/fixtures';
import { dumpDiff, dumpIndex, type IndexDump } from '../helpers/indexDump';

/** Indexes a copy of the example with sites and symbol records spilled past `spill` bytes, edits a file, and dumps the index after each. */
async function indexWith(spill: number | undefined): Promise<{ first: IndexDump; edited: IndexDump }> {
  const ex = copyExample();
  const ws = await openWorkspace(ex.root);
  const indexer = await StructuralIndexer.create(ws, { workers: 1, parseBudgetMs: 60_000, ...(spill !== undefined ? { spillBytes: spill } : {}) });
  try {
    await indexer.indexAll();
    const first = await dumpIndex(ws.db);
    const file = path.join(ex.root, 'src/settlement/AuditLog.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('record(event', 'write(event'));
    await indexer.updateFiles([file]);
    return { first, edited: await dumpIndex(ws.db) };
  } finally {
    await indexer.dispose();
    await ws.close();
    ex.cleanup();
  }
}

describe('a write whose sites and symbol records go to temporary files', () => {
  it('indexes exactly what an index held in memory does, first and after an edit, and leaves no temporary file', async () => {
    const temporary = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('tenure-sites-') || d.startsWith('tenure-symbols-'));
    const before = temporary();
    const inMemory = await indexWith(undefined);
    const spilled = await indexWith(1);
    assert.ok(inMemory.first.edges.length > 100, 'the example has edges to compare');
    assert.deepEqual(dumpDiff(spilled.first, inMemory.first), []);
    assert.deepEqual(dumpDiff(spilled.edited, inMemory.edited), []);
    assert.deepEqual(temporary(), before);
  });
});
