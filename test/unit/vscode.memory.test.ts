import * as assert from 'node:assert/strict';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { type Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { recentEpisodes } from '../../src/core/episodic/store.js';
import { knowledgeOverview } from '../../src/core/knowledge/status.js';
import { dayLabel, fileMemory, groupByDay, memoryLine, memoryTotals, resolvedShare, symbolAt } from '../../src/vscode/memoryQueries.js';
import { Responsiveness } from '../../src/vscode/responsiveness.js';
import { answerAbout } from '../../src/core/compose/ask.js';
import { systemClock } from '../../src/core/episodic/clock.js';
import { FromWebview } from '../../src/webview/protocol.js';
import { filledExample, type FilledExample } from '../helpers/example.js';
import { tempDir, write } from '../helpers/fixtures.js';

/* The vscode-free reads behind CodeLens, hover, the sidebar and "Why is this?", on the settlement example with all four memories filled. */

describe('VS Code memory reads (examples/settlement, four memories)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let ex: FilledExample;

  before(async () => {
    ex = await filledExample({ episodes: true, knowledge: true });
    ws = ex.ws;
  });
  after(async () => {
    await ex.close();
  });

  it('counts callers, incidents, decisions and failed attempts per symbol of a file', async () => {
    const mems = await fileMemory(ws.db, 'src/settlement/SettlementService.ts');
    const retry = mems.find((m) => m.qname === 'SettlementService.retry');
    assert.ok(retry, JSON.stringify(mems.map((m) => m.qname)));
    assert.equal(retry.line, 19);
    assert.ok(retry.callers >= 3, `callers ${retry.callers}`);
    assert.ok(retry.incidents >= 1, `incidents ${retry.incidents}`);
    assert.ok(retry.decisions >= 1, `decisions ${retry.decisions}`);
    assert.ok(retry.failedAttempts >= 1, `failed attempts ${retry.failedAttempts}`);
    assert.match(memoryLine(retry), /^≥ \d+ callers? · \d+ incidents? · \d+ decisions? · \d+ failed attempts?$/);
    const cls = mems.find((m) => m.qname === 'SettlementService');
    assert.ok(cls && cls.dependents >= retry.callers, 'a class counts the dependents of its members');
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

  it('lists episodes newest first and groups them by day; totals per memory', async () => {
    const eps = await recentEpisodes(ws.db, 50);
    assert.ok(eps.length >= 10);
    for (let i = 1; i < eps.length; i++) assert.ok(eps[i - 1]!.startedAt >= eps[i]!.startedAt);
    const groups = groupByDay(eps, Date.now());
    assert.equal(groups.reduce((n, g) => n + g.items.length, 0), eps.length);
    const t = await memoryTotals(ws.db);
    assert.ok(t.files > 10 && t.documents > 3 && t.episodes >= 10 && Object.keys(t.rules).length > 0, JSON.stringify(t));
    const k = await knowledgeOverview(ws.db);
    assert.ok(k.documents.some((d) => d.ref === 'ADR-0007'));
    assert.ok(k.communities.length > 0);
  });

  it('composes "Why is this?" from all four memories (one composer for the panel and ask)', async () => {
    const target = await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root });
    const v = await answerAbout(ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
    assert.equal(v.structural.status, 'answered');
    assert.equal(v.knowledge.status, 'answered');
    assert.equal(v.episodic.status, 'answered');
    assert.equal(v.procedural.status, 'answered');
    assert.ok(v.knowledge.data!.items.some((i) => i.document.ref === 'ADR-0007'));
    assert.ok(v.episodic.data!.entries.some((e) => e.outcome.status === 'failure'));
  });
});

describe('VS Code memory reads (a repository with empty memories)', function () {
  this.timeout(60_000);
  it('says plainly which memory is empty and how to fill it', async () => {
    const t = tempDir();
    try {
      write(t.root, 'src/a.ts', 'export function a(): number {\n  return b();\n}\nexport function b(): number {\n  return 1;\n}\n');
      const ws = await openWorkspace(t.root);
      try {
        const indexer = await StructuralIndexer.create(ws);
        await indexer.indexAll();
        await indexer.dispose();
        const target = await resolveOneSymbol(ws.db, 'b', { root: ws.root });
        const v = await answerAbout(ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
        assert.equal(v.structural.status, 'answered');
        assert.equal(v.knowledge.status, 'empty');
        assert.match(v.knowledge.hint!, /Index Knowledge/);
        assert.equal(v.episodic.status, 'empty');
        assert.match(v.episodic.hint!, /integrated terminal|tenure run/);
        assert.equal(v.procedural.status, 'empty');
        const mems = await fileMemory(ws.db, 'src/a.ts');
        assert.equal(memoryLine(mems.find((m) => m.name === 'b')!), '≥ 1 caller');
        assert.equal(memoryLine(mems.find((m) => m.name === 'a')!), 'no dependents found');
      } finally {
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

describe('VS Code helpers', () => {
  it('labels days and computes tier coverage', () => {
    const now = new Date(2026, 10, 30, 12).getTime();
    assert.equal(dayLabel(now - 3_600_000, now), 'Today');
    assert.equal(dayLabel(now - 86_400_000, now), 'Yesterday');
    assert.match(dayLabel(now - 40 * 86_400_000, now), /^2026-10-21$/);
    assert.equal(resolvedShare({ resolved: 1, observed: 1, inferred: 2 }), 0.5);
    assert.equal(resolvedShare({}), 0);
  });

  it('validates webview messages: no paths outside the workspace, no script URLs', () => {
    assert.ok(FromWebview.safeParse({ type: 'open', path: 'src/a.ts', line: 3 }).success);
    assert.ok(!FromWebview.safeParse({ type: 'open', path: '../etc/passwd', line: 1 }).success);
    assert.ok(!FromWebview.safeParse({ type: 'open', path: '/etc/passwd', line: 1 }).success);
    assert.ok(!FromWebview.safeParse({ type: 'openUrl', url: 'javascript:alert(1)' }).success);
    assert.ok(!FromWebview.safeParse({ type: 'runCommand', command: 'workbench.action.terminal.sendSequence' }).success);
    assert.ok(!FromWebview.safeParse({ type: 'nope' }).success);
  });

  it('measures stalls of the event loop while Tenure work is in flight', async () => {
    const r = new Responsiveness();
    try {
      await r.time('block test', async () => {
        await new Promise((res) => setTimeout(res, 30));
        const until = Date.now() + 120;
        while (Date.now() < until) {
          // a deliberate stall
        }
        await new Promise((res) => setTimeout(res, 30));
      });
      const rep = r.report();
      assert.ok(rep.whileTenure.maxStallMs >= 80, JSON.stringify(rep.whileTenure));
      const stall = rep.whileTenure.stalls.find((s) => s.during.includes('block test'));
      assert.ok(stall, JSON.stringify(rep.whileTenure.stalls));
      // A busy loop is work, not waiting: the thread's CPU time over the stall is recorded (Linux /proc), and cannot exceed it by more than the clock's resolution.
      if (process.platform === 'linux') assert.ok(stall.cpuMs !== undefined && stall.cpuMs > 0 && stall.cpuMs <= stall.ms + 20, JSON.stringify(stall));
      assert.equal(rep.operations['block']?.n, 1);
    } finally {
      r.dispose();
    }
  });
});
