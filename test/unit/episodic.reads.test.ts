import * as assert from 'node:assert/strict';
import { attemptsTouching, episodeCounts, episodeTotals, loadEpisodes, recentEpisodes } from '../../src/core/episodic/store.js';
import { listRules, ruleCountsByStatus } from '../../src/core/procedural/store.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { filledExample, type FilledExample } from '../helpers/example.js';
import { tempDir } from '../helpers/fixtures.js';

/* The episodic and procedural reads behind the editor's timeline, CodeLens, hover and status view, on the settlement example's seeded history. */

describe('episodic and procedural reads for the editor (examples/settlement)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let ex: FilledExample;

  before(async () => {
    ex = await filledExample({ episodes: true });
    ws = ex.ws;
  });
  after(async () => {
    await ex.close();
  });

  it('lists the latest episodes newest first, each with the symbols it touched, archived ones only when asked', async () => {
    const eps = await recentEpisodes(ws.db, 50);
    assert.ok(eps.length >= 10, `${eps.length} episodes`);
    for (let i = 1; i < eps.length; i++) assert.ok(eps[i - 1]!.startedAt >= eps[i]!.startedAt);
    assert.ok(eps.every((e) => !e.archived));
    assert.ok(eps.some((e) => e.touched.includes('SettlementService.retry')), JSON.stringify(eps.map((e) => e.touched)));
    const stored = new Map((await loadEpisodes(ws.db, eps.map((e) => e.id))).map((e) => [e.id, e]));
    for (const e of eps) {
      const s = stored.get(e.id)!;
      assert.equal(e.status, s.outcome.status);
      assert.equal(e.command, s.command);
      assert.ok(e.touched.length <= 6);
    }
    assert.equal((await recentEpisodes(ws.db, 3)).length, 3);
    const all = await recentEpisodes(ws.db, 500, true);
    assert.equal(all.filter((e) => !e.archived).length, (await episodeCounts(ws.db)).active);
    assert.equal(all.filter((e) => e.archived).length, (await episodeCounts(ws.db)).archived);
  });

  it('counts the attempts and failed attempts that touched each symbol, as episode ids', async () => {
    const retry = await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root });
    const byId = await attemptsTouching(ws.db, [retry.sid, 'ts no/such/symbol#x().']);
    assert.deepEqual([...byId.keys()], [retry.sid], 'symbols no episode touched are left out');
    const a = byId.get(retry.sid)!;
    assert.ok(a.failed.size >= 1, `failed ${a.failed.size}`);
    for (const id of a.failed) assert.ok(a.all.has(id));
    for (const e of await loadEpisodes(ws.db, [...a.all])) {
      assert.equal(e.archivedAt, null, 'active episodes only');
      assert.ok(e.touches.some((t) => t.sid === retry.sid));
      assert.equal(a.failed.has(e.id), e.outcome.status === 'failure' || e.outcome.status === 'rejected');
    }
    assert.equal((await attemptsTouching(ws.db, [])).size, 0);
  });

  it('totals the episodic and procedural memories for the status view', async () => {
    const c = await episodeCounts(ws.db);
    const t = await episodeTotals(ws.db);
    assert.equal(t.episodes, c.active);
    assert.equal(t.failedEpisodes, (c.byStatus['failure'] ?? 0) + (c.byStatus['rejected'] ?? 0));
    assert.ok(t.failedEpisodes >= 1);
    const rules = await ruleCountsByStatus(ws.db);
    assert.ok(Object.keys(rules).length > 0);
    assert.equal(Object.values(rules).reduce((n, x) => n + x, 0), (await listRules(ws.db)).length);
  });
});

describe('episodic and procedural reads for the editor (nothing recorded yet)', () => {
  it('answers empty, not with an error', async () => {
    const t = tempDir();
    const ws = await openWorkspace(t.root);
    try {
      assert.deepEqual(await recentEpisodes(ws.db), []);
      assert.equal((await attemptsTouching(ws.db, ['ts a#'])).size, 0);
      assert.deepEqual(await episodeTotals(ws.db), { episodes: 0, failedEpisodes: 0 });
      assert.deepEqual(await ruleCountsByStatus(ws.db), {});
    } finally {
      await ws.close();
      t.cleanup();
    }
  });
});
