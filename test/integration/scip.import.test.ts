import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexerAvailable, runScipIndexer } from '../../src/core/structural/sources/scip/indexers';
import { readScipIndex } from '../../src/core/structural/sources/scip/reader';
import { ScipResolver } from '../../src/core/structural/sources/scip/resolver';
import { EnrichmentPass } from '../../src/core/structural/enrichment/enrich';
import { CLI } from '../helpers/fixtures';
import { ask, edgeTier, implementationsOf, indexedFixture, refutations } from './lsp.helpers';
import { skipUnless } from '../helpers/prereq';

type Fixture = Awaited<ReturnType<typeof indexedFixture>>;

describe('SCIP import (index made by scip-typescript)', function () {
  this.timeout(120_000);
  let fx: Fixture;
  let index: string;

  before(async function () {
    skipUnless(this, indexerAvailable('scip-typescript'), 'scip-typescript is not installed (a dev dependency: npm ci)');
    fx = await indexedFixture('ts');
    index = path.join(fx.root, 'index.scip');
    await runScipIndexer('scip-typescript', fx.root, index, { signal: new AbortController().signal, log: () => undefined });
  });
  after(async () => fx?.close());

  it('reads the index with the generated protobuf types', () => {
    const data = readScipIndex(index, fx.root);
    assert.equal(data.tool, 'scip-typescript');
    assert.ok(data.documents.has('src/app/Checkout.ts'));
    assert.ok([...data.definitions.values()].some((d) => d.path === 'src/gateways/PaymentGateway.ts' && d.line === 3));
  });

  it('turns references into resolved edges, implementation relationships into resolved dispatch, and refutes library calls', async () => {
    const r = await new EnrichmentPass(fx.ws.db, [new ScipResolver(index)], { root: fx.root }).run();
    assert.equal(r.resolvers[0]!.state, 'complete', r.resolvers[0]!.message);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['resolved']);
    const refuted = await refutations(fx.ws);
    assert.ok(refuted.includes('runImport -> JsonProcessor.process by scip'), refuted.join('\n'));
    assert.ok(refuted.includes('record -> Stack.push by scip'), refuted.join('\n'));
    assert.equal((await implementationsOf(fx.ws, 'PaymentGateway.submit')).length, 5);
    const sandbox = await ask(fx.ws, 'SandboxGateway.submit');
    assert.deepEqual(sandbox.dispatches.map((d) => d.resolution), ['resolved', 'resolved']);
  });

  it('does not read files changed after the index was made, and the edit drops their resolved edges', async () => {
    const file = path.join(fx.root, 'src/app/Checkout.ts');
    const later = new Date(Date.now() + 10_000);
    fs.appendFileSync(file, '\n// edited after indexing\n');
    fs.utimesSync(file, later, later);
    await fx.indexer.updateFiles([file]);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
    const r = await new EnrichmentPass(fx.ws.db, [new ScipResolver(index)], { root: fx.root }).run();
    assert.ok(r.resolvers[0]!.notes.some((n) => /changed after the SCIP index was made/.test(n)), JSON.stringify(r.resolvers[0]!.notes));
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
  });

  it('`tenure import scip` reads an index from the command line', () => {
    const out = execFileSync(process.execPath, [CLI, 'import', 'scip', index, '--cwd', fx.root, '--json'], { encoding: 'utf8' });
    const report = JSON.parse(out) as { resolvers: { source: string; state: string }[]; stats: { edges: { resolved: number } } };
    assert.equal(report.resolvers[0]!.source, 'scip');
    assert.ok(report.stats.edges.resolved > 5);
  });
});
