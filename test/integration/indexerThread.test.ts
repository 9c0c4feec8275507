import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import { IndexerThread } from '../../src/core/structural/index/indexerThread';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { TenureError } from '../../src/shared/errors';
import { copyExample } from '../helpers/fixtures';

/**
 * The indexer as the extension runs it: in a worker thread with its own
 * connection, while the host's connection answers queries from the same file.
 */
describe('the indexer in its own thread (as the extension host runs it)', function () {
  this.timeout(60_000);
  let ex: { root: string; cleanup: () => void };
  let ws: Workspace;
  let thread: IndexerThread;
  const logs: string[] = [];

  const callers = async (symbol: string) => {
    const r = await whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), 1);
    return r.dependents.map((d) => `${d.symbol.qname} ${d.tier}`).sort();
  };

  beforeEach(async () => {
    ex = copyExample();
    ws = await openWorkspace(ex.root);
    thread = new IndexerThread(ws, {}, (m) => logs.push(m));
  });
  afterEach(async () => {
    await thread.dispose();
    await ws.close();
    ex.cleanup();
  });

  it('indexes with progress, and the host connection reads what the thread wrote', async () => {
    const progress: number[] = [];
    const report = await thread.indexAll({ onProgress: (done) => progress.push(done) });
    assert.equal(report.files, 51);
    assert.ok(progress.length > 0 && progress.at(-1) === report.files, JSON.stringify(progress));
    assert.deepEqual(await callers('SettlementService.retry'), [
      'AllocationService.redrive inferred',
      'NightlyBatch.run inferred',
      'SettlementService.settle inferred',
      'postRetry inferred',
    ]);
  });

  it('re-indexes unsaved editor text and deleted files', async () => {
    await thread.indexAll();
    const handlers = path.join(ex.root, 'src', 'api', 'handlers.ts');
    const text = fs.readFileSync(handlers, 'utf8').replace('service.retry(body, body.attempt)', 'service.settle(body)');
    const r = await thread.updateFiles([handlers], new Map([[handlers, text]]));
    assert.equal(r.parsed, 1);
    assert.ok(!(await callers('SettlementService.retry')).includes('postRetry inferred'), 'the unsaved edit removed the call');
    fs.rmSync(path.join(ex.root, 'src', 'batch', 'NightlyBatch.ts'));
    await thread.updateFiles([path.join(ex.root, 'src', 'batch', 'NightlyBatch.ts')]);
    assert.deepEqual(await callers('SettlementService.retry'), ['AllocationService.redrive inferred', 'SettlementService.settle inferred']);
  });

  it('cancels a full index when asked', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(thread.indexAll({ signal: ac.signal }));
    // The thread keeps working after a cancelled run.
    assert.equal((await thread.indexAll()).files, 51);
  });

  it('a thread that dies fails its calls with advice, and the next call starts a new one from what is stored', async () => {
    // Killed in the middle of a first index (parsing 51 files takes far longer than the kill).
    const running = thread.indexAll();
    await new Promise((r) => setTimeout(r, 20));
    await (thread as unknown as { worker: Worker }).worker.terminate();
    await assert.rejects(running, (e: unknown) => TenureError.is(e, 'io') && /indexer thread stopped .* starts it again/.test((e as Error).message));
    assert.ok(logs.some((l) => /indexer thread stopped/.test(l)), logs.join('\n'));
    // A new thread indexes from whatever was committed: nothing half-written is left.
    assert.equal((await thread.indexAll()).files, 51);
    assert.equal((await callers('SettlementService.retry')).length, 4);
    // Killed while idle: the next thread loads the stored index and parses nothing.
    await (thread as unknown as { worker: Worker }).worker.terminate();
    const again = await thread.indexAll();
    assert.deepEqual([again.parsed, again.unchanged], [0, 51]);
  });
});
