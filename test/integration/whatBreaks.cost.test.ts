import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { openWorkspace } from '../../src/core/workspace.js';
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

  it('lists every candidate for the first `candidatesFor` dependents and counts every dependent all the same', async () => {
    const files: Record<string, string> = {
      // Untyped receivers: each call may reach any of the three.
      'src/use.ts': 'export function first(x) {\n  return x.run();\n}\nexport function second(y) {\n  return y.run();\n}\n',
    };
    for (const c of ['A', 'B', 'C']) files[`src/${c}.ts`] = `export class ${c} {\n  run(): number {\n    return 1;\n  }\n}\n`;
    await withIndexed(files, async (ws, _indexer, root) => {
      const target = await resolveOneSymbol(ws.db, 'A.run', { root });
      const all = await whatBreaks(ws.db, target, 2);
      const one = await whatBreaks(ws.db, target, 2, { candidatesFor: 1 });
      const view = (r: typeof all) => r.dependents.map((d) => `${d.symbol.qname} ${d.tier} [${(d.candidates ?? []).map((c) => c.qname).join(', ')}]`);
      assert.deepEqual(view(all), ['first ambiguous [A.run, B.run, C.run]', 'second ambiguous [A.run, B.run, C.run]']);
      assert.deepEqual(view(one), ['first ambiguous [A.run, B.run, C.run]', 'second ambiguous []']);
      assert.deepEqual(one.counts, all.counts);
      assert.equal(one.summary, all.summary);
    });
  });
});
