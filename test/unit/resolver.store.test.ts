import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResolutionStore } from '../../src/core/structural/enrichment/store';
import type { Loc } from '../../src/core/structural/enrichment/types';
import { edgeTier, indexedFixture, refutations } from '../integration/lsp.helpers';

type Fixture = Awaited<ReturnType<typeof indexedFixture>>;

/*
 * The resolution store without a server: synthetic resolver batches applied
 * to the inventory of the TypeScript fixture. What a resolver says is
 * written as confirm / refute / add, and every edit puts it back.
 */
describe('resolution store (confirm, refute, add, fall back)', function () {
  this.timeout(30_000);
  let fx: Fixture;
  let store: ResolutionStore;

  const symbolAt = async (qname: string): Promise<Loc> => {
    const r = await fx.ws.db.get<{ path: string; line: number; col: number }>('SELECT f.path, s.line, s.col FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.qname = ?', [qname]);
    return r!;
  };
  const siteOf = async (src: string, dst: string): Promise<Loc> => {
    const r = await fx.ws.db.get<{ path: string; line: number; col: number }>(
      `SELECT f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id WHERE a.qname = ? AND b.qname = ?`,
      [src, dst],
    );
    return r!;
  };

  beforeEach(async () => {
    fx = await indexedFixture('ts');
    store = new ResolutionStore(fx.ws.db);
  });
  afterEach(async () => fx.close());

  it('confirms in place, keeps the inventory tier to fall back to, and is idempotent', async () => {
    const site = await siteOf('Checkout.pay', 'PaymentGateway.submit');
    const target = await symbolAt('PaymentGateway.submit');
    const batch = { sites: [{ site, targets: [{ at: target }], complete: true, reason: 'test' }], implementations: [], coveredFiles: [site.path] };
    const r1 = await store.apply('test:lsp', 'resolved', batch);
    assert.equal(r1.confirmed, 1);
    const r2 = await store.apply('test:lsp', 'resolved', batch);
    assert.equal(r2.confirmed, 0, 'already resolved by this source');
    const rows = await fx.ws.db.all<{ tier: string; base_tier: string; source: string }>(`SELECT tier, base_tier, source FROM edges WHERE line = ? AND col = ?`, [site.line, site.col]);
    assert.deepEqual(rows, [{ tier: 'resolved', base_tier: 'inferred', source: 'test:lsp' }]);
    assert.deepEqual(await store.pendingFiles('test:lsp', ['typescript']).then((f) => f.some((x) => x.path === site.path)), false);
  });

  it('refutes the other candidates of an ambiguous site and puts them back when a dependency changes', async () => {
    const site = await siteOf('runImport', 'CsvProcessor.process');
    await store.apply('test:lsp', 'resolved', { sites: [{ site, targets: [{ at: await symbolAt('CsvProcessor.process') }], complete: true, reason: 'test' }], implementations: [] });
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['resolved']);
    assert.deepEqual(await refutations(fx.ws), ['runImport -> JsonProcessor.process by test:lsp']);
    const factory = path.join(fx.root, 'src/app/factory.ts');
    fs.appendFileSync(factory, '\n// changed\n');
    await fx.indexer.updateFiles([factory]);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['ambiguous']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'JsonProcessor.process'), ['ambiguous']);
    assert.deepEqual(await refutations(fx.ws), []);
  });

  it('a target outside the workspace refutes every candidate; an empty or incomplete answer refutes nothing', async () => {
    const site = await siteOf('record', 'Stack.push');
    await store.apply('test:lsp', 'resolved', { sites: [{ site, targets: [], complete: false, reason: 'nothing' }], implementations: [] });
    assert.deepEqual(await edgeTier(fx.ws, 'record', 'Stack.push'), ['inferred']);
    await store.apply('test:lsp', 'resolved', { sites: [{ site, targets: [{ external: 'lib.es5.d.ts' }], complete: true, reason: 'Array.push' }], implementations: [] });
    assert.deepEqual(await edgeTier(fx.ws, 'record', 'Stack.push'), []);
  });

  it('adds an edge the inventory missed, owned by the enclosing definition; an edit of the caller removes it', async () => {
    // `resolveGateway` in Checkout.ts line 13 is an inventory site already; use the `submit` name of a site the inventory never recorded.
    const pay = await symbolAt('Checkout.pay');
    const missed: Loc = { path: pay.path, line: pay.line + 1, col: 4 };
    const r = await store.apply('test:lsp', 'resolved', { sites: [{ site: missed, targets: [{ at: await symbolAt('Stack.push') }], complete: true, kind: 'call', reason: 'test' }], implementations: [] });
    assert.equal(r.added, 1);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'Stack.push'), ['resolved']);
    const file = path.join(fx.root, pay.path);
    fs.appendFileSync(file, '\n// edited\n');
    await fx.indexer.updateFiles([file]);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'Stack.push'), []);
  });

  it('drops a batch computed before the graph changed', async () => {
    const gen = await store.generation();
    const file = path.join(fx.root, 'src/app/run.ts');
    fs.appendFileSync(file, '\n// edited while the server worked\n');
    await fx.indexer.updateFiles([file]);
    const site = await siteOf('runImport', 'record');
    const r = await store.apply('test:lsp', 'resolved', { sites: [{ site, targets: [{ at: await symbolAt('record') }], complete: true, reason: 'test' }], implementations: [] }, gen);
    assert.equal(r.stale, true);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'record'), ['inferred']);
  });

  it('records proven implementations and derives overrides from resolved inheritance; an edit of the implementation drops them', async () => {
    const site = await fx.ws.db.get<{ path: string; line: number; col: number }>(
      `SELECT f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols a ON a.id = e.src_id WHERE a.qname = 'SwiftGateway' AND e.kind = 'implements'`,
    );
    await store.apply('test:lsp', 'resolved', { sites: [{ site: site!, targets: [{ at: await symbolAt('PaymentGateway') }], complete: true, reason: 'test' }], implementations: [] });
    assert.equal(await store.deriveOverrides(), 1);
    const n = async () => (await fx.ws.db.get<{ n: number }>('SELECT count(*) AS n FROM implementations'))!.n;
    assert.equal(await n(), 1);
    const file = path.join(fx.root, 'src/gateways/SwiftGateway.ts');
    fs.appendFileSync(file, '\n// edited\n');
    await fx.indexer.updateFiles([file]);
    assert.equal(await n(), 0);
  });
});
