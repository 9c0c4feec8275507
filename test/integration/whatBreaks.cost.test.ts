import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { whatBreaksTool } from '../../src/core/tools/whatBreaks.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { tempDir, write } from '../helpers/fixtures.js';

/** A workspace of these files, indexed, with its indexer for later edits; everything is closed after `fn`. */
async function withIndexed(files: Record<string, string>, fn: (ws: Workspace, indexer: StructuralIndexer, root: string) => Promise<void>): Promise<void> {
  const t = tempDir();
  const ws = await openWorkspace(t.root);
  const indexer = await StructuralIndexer.create(ws);
  try {
    for (const [rel, text] of Object.entries(files)) write(t.root, rel, text);
    await indexer.indexAll();
    await fn(ws, indexer, t.root);
  } finally {
    await indexer.dispose();
    await ws.close();
    t.cleanup();
  }
}

/*
 * What the whole workspace says about hidden dependents (does a container
 * inject implementations, could calls arrive through a broker) is read once
 * per generation of the structural memory, not per answer: the answer must
 * still change the moment an edit brings in a DI library or a broker, and
 * must drop the gap when the edit is undone — in the same process, on the
 * same connection, as the extension and `tenure mcp --watch` hold it.
 */
describe('what_breaks: workspace gaps follow the index as it changes', function () {
  this.timeout(60_000);

  it('names DI wiring and message topics after an edit imports a container and a broker, and stops when it is removed', async () => {
    const files = {
      'src/pay.ts': 'export function pay(): number {\n  return 1;\n}\n',
      'src/use.ts': "import { pay } from './pay';\nexport function use(): number {\n  return pay();\n}\n",
    };
    await withIndexed(files, async (ws, indexer, root) => {
      const gaps = async () => (await whatBreaks(ws.db, await resolveOneSymbol(ws.db, 'pay', { root }), 2)).notSeen.join('; ');

      assert.doesNotMatch(await gaps(), /DI wiring|message topics/);
      const wiring = path.join(root, 'src', 'wiring.ts');
      write(root, 'src/wiring.ts', "import { Container } from 'inversify';\nimport { Kafka } from 'kafkajs';\nexport const container = new Container();\nexport const kafka = new Kafka({ brokers: [] });\n");
      await indexer.updateFiles([wiring]);
      const after = await gaps();
      assert.match(after, /DI wiring \(which implementation a container supplies is decided at run time\)/);
      assert.match(after, /callers in other services and through message topics \(no traces imported\)/);

      write(root, 'src/wiring.ts', 'export const container = {};\n');
      await indexer.updateFiles([wiring]);
      assert.doesNotMatch(await gaps(), /DI wiring|message topics/);
    });
  });
});

describe('what_breaks: candidates of ambiguous sites are read for the dependents an answer lists', function () {
  this.timeout(60_000);

  it('lists the first `list` dependents with their candidates, counts the ambiguous rest, and says so', async () => {
    const files: Record<string, string> = {
      // Untyped receivers: each call may reach any of the three.
      'src/use.ts': 'export function first(x) {\n  return x.run();\n}\nexport function second(y) {\n  return y.run();\n}\n',
    };
    for (const c of ['A', 'B', 'C']) files[`src/${c}.ts`] = `export class ${c} {\n  run(): number {\n    return 1;\n  }\n}\n`;
    await withIndexed(files, async (ws, _indexer, root) => {
      const target = await resolveOneSymbol(ws.db, 'A.run', { root });
      const all = await whatBreaks(ws.db, target, 2);
      const one = await whatBreaks(ws.db, target, 2, { list: 1 });
      const capped = await whatBreaks(ws.db, target, 2, { candidates: 2 });
      const view = (r: typeof all) => r.dependents.map((d) => `${d.symbol.qname} ${d.tier} [${(d.candidates ?? []).map((c) => c.qname).join(', ')}]`);
      assert.deepEqual(view(all), ['first ambiguous [A.run, B.run, C.run]', 'second ambiguous [A.run, B.run, C.run]']);
      assert.equal(all.unlisted, undefined);
      // The second is counted (direct, ambiguous, a call), not read.
      assert.deepEqual(view(one), ['first ambiguous [A.run, B.run, C.run]']);
      assert.deepEqual(one.unlisted, { bound: 1, count: 1, direct: 1, byKind: { call: { ambiguous: 1 } }, directByName: { call: 1 }, propertyCalls: 0 });
      assert.deepEqual(one.counts, all.counts);
      // "Not seen" counts the unlisted one among those matched by name on a receiver of unknown type.
      assert.deepEqual(one.notSeen, all.notSeen);
      assert.match(one.notSeen.join('; '), /2 dependents of this answer matched by name only/);
      assert.equal(
        one.summary.replace('; 1 dependent counted above is not listed (all ambiguous candidates, past the first 1 in answer order: the impact panel lists it)', ''),
        all.summary,
      );
      assert.match(one.summary, /^At least 2 dependents within 2 hops \(2 direct\): 2 callers \(2 ambiguous candidates\); 1 dependent counted above is not listed \(all ambiguous candidates, past the first 1 in answer order/);
      // Candidates capped per site: the first two, by edge, of the same three.
      assert.deepEqual(view(capped), ['first ambiguous [A.run, B.run]', 'second ambiguous [A.run, B.run]']);
      assert.deepEqual(capped.counts, all.counts);
    });
  });
});

describe('what_breaks: dependents past the bound are counted, not read, with the totals of the whole walk', function () {
  this.timeout(60_000);

  /*
   * target ← A.run (direct, inferred) ← viaA (typed receiver: inferred) ← useViaA ← useUse
   *                                   ← caller01…caller12 (untyped receivers: each may mean A.run, B.run or C.run)
   */
  const files: Record<string, string> = {
    'src/target.ts': 'export function target(): number {\n  return 1;\n}\n',
    'src/A.ts': "import { target } from './target';\nexport class A {\n  run(): number {\n    return target();\n  }\n}\n",
    'src/B.ts': 'export class B {\n  run(): number {\n    return 2;\n  }\n}\n',
    'src/C.ts': 'export class C {\n  run(): number {\n    return 3;\n  }\n}\n',
    'src/via.ts': "import { A } from './A';\nexport function viaA(a: A): number {\n  return a.run();\n}\nexport function useViaA(): number {\n  return viaA(new A());\n}\nexport function useUse(): number {\n  return useViaA();\n}\n",
  };
  const callers = Array.from({ length: 12 }, (_, i) => `caller${String(i + 1).padStart(2, '0')}`);
  files['src/callers.ts'] = callers.map((c) => `export function ${c}(x) {\n  return x.run();\n}\n`).join('');

  it('gives the same counts as the unbounded walk, lists its first dependents exactly, and the sentence says how many are unlisted', async () => {
    await withIndexed(files, async (ws, _indexer, root) => {
      const target = await resolveOneSymbol(ws.db, 'target', { root });
      const all = await whatBreaks(ws.db, target, 5);
      const bounded = await whatBreaks(ws.db, target, 5, { list: 3 });
      const view = (r: typeof all) => r.dependents.map((d) => `${d.symbol.qname} ${d.kind} ${d.tier} d${d.distance} via ${d.via.name}`);

      // The whole walk, every edge's tier: the typed path is inferred, the untyped calls ambiguous and not followed.
      assert.deepEqual(view(all), [
        'A.run call inferred d1 via target',
        'viaA call inferred d2 via run',
        ...callers.map((c) => `${c} call ambiguous d2 via run`),
        'useViaA call inferred d3 via viaA',
        'useUse call inferred d4 via useViaA',
      ]);
      assert.equal(all.unlisted, undefined);

      // Bounded at 3: the first three of the same order, read in full; the other 13 counted by kind and tier.
      assert.deepEqual(view(bounded), view(all).slice(0, 3));
      assert.deepEqual(bounded.dependents.map((d) => d.provenance), all.dependents.slice(0, 3).map((d) => d.provenance));
      assert.deepEqual(bounded.dependents.map((d) => d.sites), all.dependents.slice(0, 3).map((d) => d.sites));
      assert.deepEqual(bounded.unlisted, { bound: 3, count: 13, direct: 0, byKind: { call: { ambiguous: 11, inferred: 2 } }, directByName: {}, propertyCalls: 0 });
      assert.equal(bounded.unlisted!.count, all.dependents.length - bounded.dependents.length);
      assert.deepEqual(bounded.counts, all.counts);
      assert.deepEqual(bounded.counts, { direct: 1, transitive: 15, byTier: { resolved: 0, observed: 0, inferred: 4, ambiguous: 12, dynamic: 0 }, byKind: { call: 16 } });
      assert.equal(bounded.notFollowed, all.notFollowed);
      assert.deepEqual(bounded.notSeen, all.notSeen);
      assert.deepEqual(bounded.sources, all.sources);

      const clause = '; 13 dependents counted above are not listed (2 inferred, 11 ambiguous candidates, past the first 3 in answer order: the impact panel lists every one)';
      assert.ok(bounded.summary.includes(clause), bounded.summary);
      assert.equal(bounded.summary.replace(clause, ''), all.summary);
      assert.match(bounded.summary, /^At least 16 dependents within 5 hops \(1 direct\): 16 callers \(4 inferred, 12 ambiguous candidates\);/);
    });
  });

  it('the tool, its JSON and the panel agree: totals of the whole walk, the list bounded by the limit', async () => {
    await withIndexed(files, async (ws) => {
      const answer = await whatBreaksTool.invoke({ workspace: ws }, { symbol: 'target', depth: 5, limit: 3 });
      const data = answer.data as { summary: string; counts: { dependents: number; direct: number; unlisted?: number; byTier: Record<string, number> }; dependents: { symbol: { qname: string }; tier: string; distance: number }[]; omitted: Record<string, number> };
      assert.equal(data.counts.dependents, 16);
      assert.equal(data.counts.unlisted, 13);
      assert.deepEqual(data.counts.byTier, { inferred: 4, ambiguous: 12 });
      assert.deepEqual(
        data.dependents.map((d) => `${d.symbol.qname} ${d.tier} d${d.distance}`),
        ['A.run inferred d1', 'viaA inferred d2', 'caller01 ambiguous d2'],
      );
      assert.equal(data.omitted['dependents'], 13);
      assert.match(answer.text, /13 dependents counted above are not listed \(2 inferred, 11 ambiguous candidates, past the first 3/);
      assert.match(answer.text, /… 13 more dependents — ask again with limit 16/);
      // The JSON is the answer as shown: as many dependents as the text lists, whatever the graph holds.
      assert.ok(JSON.stringify(data).length < 8000, `${JSON.stringify(data).length} characters`);

      // The panel asks for everything: the same totals, every dependent listed, no unlisted clause.
      const panel = await whatBreaks(ws.db, await resolveOneSymbol(ws.db, 'target', { root: ws.root }), 5);
      assert.equal(panel.dependents.length, data.counts.dependents);
      assert.deepEqual(panel.counts.byTier, { resolved: 0, observed: 0, inferred: 4, ambiguous: 12, dynamic: 0 });
      assert.doesNotMatch(panel.summary, /not listed/);
      assert.equal(data.summary.split(';')[0], panel.summary.split(';')[0]);
    });
  });
});

describe('what_breaks: calls through a base method past the bound are counted, not read', function () {
  this.timeout(60_000);

  it('lists the first dispatches in edge order, counts the rest by resolution, and says the same total as the whole list', async () => {
    const files: Record<string, string> = {
      'src/base.ts': 'export class Base {\n  run(): number {\n    return 0;\n  }\n}\n',
      'src/sub.ts': "import { Base } from './base';\nexport class Sub extends Base {\n  run(): number {\n    return 1;\n  }\n}\n",
      // Each caller holds a Base: the call may land on Sub.run at run time.
      'src/callers.ts':
        "import { Base } from './base';\n" + ['a', 'b', 'c', 'd'].map((n) => `export function ${n}(x: Base): number {\n  return x.run();\n}\n`).join(''),
    };
    await withIndexed(files, async (ws, _indexer, root) => {
      const target = await resolveOneSymbol(ws.db, 'Sub.run', { root });
      const all = await whatBreaks(ws.db, target, 1);
      const two = await whatBreaks(ws.db, target, 1, { list: 2 });
      const view = (r: typeof all) => r.dispatches.map((d) => `${d.caller.qname} via ${d.through.qname} ${d.tier} ${d.resolution}`);
      assert.deepEqual(view(all), ['a via Base.run inferred unresolved', 'b via Base.run inferred unresolved', 'c via Base.run inferred unresolved', 'd via Base.run inferred unresolved']);
      assert.equal(all.unlistedDispatches, undefined, 'with no bound every dispatch is listed');
      assert.deepEqual(view(two), view(all).slice(0, 2), 'the first two of the whole list, with their tiers');
      assert.deepEqual(two.unlistedDispatches, { resolved: 0, unresolved: 2 });
      assert.match(all.summary, /4 unresolved interface dispatches/);
      assert.equal(two.summary, all.summary, 'the sentence counts the unlisted ones');
      const answer = await whatBreaksTool.invoke({ workspace: ws }, { symbol: 'Sub.run', depth: 1, limit: 2 });
      const tool = answer.data as { counts: { dispatches: number }; dispatches: unknown[]; omitted: Record<string, number> };
      assert.equal(tool.counts.dispatches, 4);
      assert.equal(tool.dispatches.length, 2);
      assert.equal(tool.omitted['dispatches'], 2);
    });
  });
});
