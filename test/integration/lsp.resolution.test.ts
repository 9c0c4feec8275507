import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EnrichmentPass, type EnrichReport } from '../../src/core/structural/enrichment/enrich';
import { headlessResolvers } from '../../src/core/structural/enrichment/headless';
import type { CodeIntelResolver } from '../../src/core/structural/enrichment/codeIntelResolver';
import type { EdgeResolver } from '../../src/core/structural/enrichment/types';
import type { LspCodeIntel } from '../../src/core/structural/sources/lsp/codeIntel';
import { ask, callEdges, edgeTier, implementationsOf, importersOf, indexedFixture, refutations, resolvedTouching } from './lsp.helpers';

type Fixture = Awaited<ReturnType<typeof indexedFixture>>;

/*
 * Real language servers (typescript-language-server with typescript 5.9,
 * pyright) on fixture projects: an interface with five implementations
 * called only through the interface, one of them reached only by injection.
 */

async function enrich(fx: Fixture, resolvers: readonly EdgeResolver[], extra: Partial<ConstructorParameters<typeof EnrichmentPass>[2]> = {}): Promise<EnrichReport> {
  return new EnrichmentPass(fx.ws.db, resolvers, { root: fx.root, ...extra }).run();
}

describe('resolution with typescript-language-server (real server)', function () {
  this.timeout(120_000);
  let fx: Fixture;
  let resolvers: EdgeResolver[];
  let first: EnrichReport;

  before(async () => {
    fx = await indexedFixture('ts');
    resolvers = await headlessResolvers(fx.ws.db, { root: fx.root, only: ['typescript'], firstPass: false });
    assert.equal(resolvers.length, 1);
    first = await enrich(fx, resolvers);
  });
  after(async () => {
    for (const r of resolvers ?? []) await r.dispose();
    await fx?.close();
  });

  it('starts, loads the project and enriches every file', () => {
    const r = first.resolvers[0]!;
    assert.equal(r.source, 'lsp:typescript');
    assert.equal(r.state, 'complete', r.message);
    assert.equal(r.files, 12);
    assert.ok(r.confirmed >= 7, JSON.stringify(r));
  });

  it('upgrades inferred calls to resolved, with the server in their provenance', async () => {
    assert.deepEqual(await edgeTier(fx.ws, 'checkoutFromContainer', 'resolveGateway'), ['resolved']);
    const r = await ask(fx.ws, 'resolveGateway');
    const d = r.dependents.find((x) => x.symbol.qname === 'checkoutFromContainer')!;
    assert.equal(d.tier, 'resolved');
    assert.equal(d.provenance.source, 'lsp:typescript');
    assert.match(d.provenance.reason, /^definition \(lsp:typescript\) at src\/di\/container\.ts:7/);
  });

  it('resolves an ambiguous call to the right candidate and records the refuted one', async () => {
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'JsonProcessor.process'), []);
    assert.ok((await refutations(fx.ws)).includes('runImport -> JsonProcessor.process by lsp:typescript'));
  });

  it('refutes a name match that the type checker sends outside the workspace (Array.push, not Stack.push)', async () => {
    assert.deepEqual(await edgeTier(fx.ws, 'record', 'Stack.push'), []);
    assert.ok((await refutations(fx.ws)).includes('record -> Stack.push by lsp:typescript'));
    const r = await ask(fx.ws, 'Stack.push');
    assert.equal(r.dependents.length, 0);
  });

  it('polymorphism: five implementations proven, two resolved callers through the interface, the injected one included', async () => {
    const r = await ask(fx.ws, 'PaymentGateway.submit');
    assert.deepEqual(r.dependents.map((d) => `${d.symbol.qname} ${d.tier}`).sort(), ['Checkout.pay resolved', 'checkoutFromContainer resolved']);
    assert.deepEqual(r.implementers.map((i) => `${i.symbol.qname} ${i.tier} ${i.provenance.source}`).sort(), [
      'ChapsGateway.submit resolved lsp:typescript',
      'FedwireGateway.submit resolved lsp:typescript',
      'SandboxGateway.submit resolved lsp:typescript',
      'SepaGateway.submit resolved lsp:typescript',
      'SwiftGateway.submit resolved lsp:typescript',
    ]);
    assert.match(r.summary, /^At least 2 dependents: 2 callers \(2 resolved\); 5 overriding implementations \(5 proven by a type checker\)/);

    const sandbox = await ask(fx.ws, 'SandboxGateway.submit');
    assert.equal(sandbox.dependents.length, 0, 'nothing calls it directly');
    assert.deepEqual(sandbox.dispatches.map((d) => `${d.caller.qname} via ${d.through.qname} ${d.resolution}`).sort(), [
      'Checkout.pay via PaymentGateway.submit resolved',
      'checkoutFromContainer via PaymentGateway.submit resolved',
    ]);
    assert.match(sandbox.summary, /2 calls reaching it by resolved dispatch/);
    assert.doesNotMatch(sandbox.summary, /unresolved interface dispatch/);
    assert.match(sandbox.summary, /DI wiring/, 'the injection itself is still named as unseen');
    // The class is reached only through the container: its one use is a reference there.
    const cls = await ask(fx.ws, 'SandboxGateway');
    assert.ok(cls.dependents.some((d) => d.symbol.path === 'src/di/container.ts'), JSON.stringify(cls.dependents.map((d) => d.symbol.qname)));
  });

  it('resolved → inferred when the caller file changes, and back after the next pass', async () => {
    const file = path.join(fx.root, 'src/app/Checkout.ts');
    fs.appendFileSync(file, '\n// edited\n');
    await fx.indexer.updateFiles([file]);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
    assert.deepEqual(await resolvedTouching(fx.ws, ['src/app/Checkout.ts'], []), []);
    const r = await enrich(fx, resolvers);
    assert.equal(r.resolvers[0]!.files, 1, 'only the changed file is enriched again');
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['resolved']);
  });

  it('a change to a file the caller only imports transitively cannot leave a stale resolved edge', async () => {
    // runImport → CsvProcessor.process is resolved because makeProcessor() returns a CsvProcessor.
    // Changing factory.ts (neither the caller's nor the callee's file) changes the answer.
    const factory = path.join(fx.root, 'src/app/factory.ts');
    fs.writeFileSync(factory, `import { JsonProcessor } from './processors';\n\nexport function makeProcessor(): JsonProcessor {\n  return new JsonProcessor();\n}\n`);
    await fx.indexer.updateFiles([factory]);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['ambiguous'], 'back to the inventory tier');
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'JsonProcessor.process'), ['ambiguous'], 'the refuted candidate is back');
    await enrich(fx, resolvers);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'JsonProcessor.process'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), []);
  });

  it('editing any file drops every resolved edge that could depend on it (checked against an independent import oracle)', async () => {
    for (const rel of ['src/gateways/PaymentGateway.ts', 'src/gateways/SwiftGateway.ts', 'src/di/container.ts', 'src/app/processors.ts', 'src/app/run.ts']) {
      const abs = path.join(fx.root, rel);
      fs.appendFileSync(abs, `\n// edit of ${rel}\n`);
      await fx.indexer.updateFiles([abs]);
      const stale = await resolvedTouching(fx.ws, importersOf(fx.root, rel), [rel]);
      assert.deepEqual(stale, [], `after editing ${rel}`);
      const impl = await fx.ws.db.all<{ n: number }>(`SELECT count(*) AS n FROM implementations i JOIN files f ON f.id = i.file_id WHERE f.path IN (SELECT value FROM json_each(?))`, [JSON.stringify(importersOf(fx.root, rel))]);
      assert.equal(impl[0]!.n, 0, `implementations depending on ${rel}`);
      await enrich(fx, resolvers);
    }
    const all = await callEdges(fx.ws);
    assert.ok(all.includes('Checkout.pay -> PaymentGateway.submit resolved lsp:typescript'), all.join('\n'));
  });

  it('is resumable: a budget stops it, the next pass carries on and skips what is done', async () => {
    const abs = ['src/app/run.ts', 'src/app/Checkout.ts', 'src/di/container.ts'].map((p) => path.join(fx.root, p));
    for (const a of abs) fs.appendFileSync(a, '\n// again\n');
    await fx.indexer.updateFiles(abs);
    const partial = await enrich(fx, resolvers, { budgetMs: 0 });
    assert.equal(partial.resolvers[0]!.state, 'partial');
    assert.ok(partial.resolvers[0]!.pending >= 3);
    const rest = await enrich(fx, resolvers);
    assert.equal(rest.resolvers[0]!.state, 'complete');
    assert.equal(rest.resolvers[0]!.files, 3);
    const again = await enrich(fx, resolvers);
    assert.equal(again.resolvers[0]!.files, 0, 'nothing left to do');
  });

  it('is cancellable between two requests', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await enrich(fx, resolvers, { signal: ac.signal, force: true });
    assert.ok(r.resolvers.length === 0 || r.resolvers[0]!.state === 'cancelled');
  });

  it('puts queried symbols and open files first', async () => {
    const abs = ['src/app/run.ts', 'src/app/Checkout.ts'].map((p) => path.join(fx.root, p));
    for (const a of abs) fs.appendFileSync(a, '\n// once more\n');
    await fx.indexer.updateFiles(abs);
    const order: string[] = [];
    const pass = new EnrichmentPass(fx.ws.db, resolvers, { root: fx.root, onProgress: (p) => order.push(p.current ?? '') });
    const sid = (await ask(fx.ws, 'record')).target.sid;
    await pass.prioritize({ symbols: [sid], files: ['src/app/Checkout.ts'] });
    const r = await pass.run();
    assert.equal(r.resolvers[0]!.state, 'complete');
    assert.deepEqual(order.slice(0, 3), [sid, 'src/app/Checkout.ts', 'src/app/run.ts']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'record'), ['resolved']);
  });

  it('survives a crash of the real server: it restarts and answers again', async () => {
    const intel = (resolvers[0] as CodeIntelResolver).intel as LspCodeIntel;
    const pid = intel.client.pid!;
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(intel.client.status.state, 'crashed');
    const defs = await intel.definition({ path: 'src/app/run.ts', line: 6, col: 2 }, new AbortController().signal);
    assert.deepEqual(defs.map((d) => `${d.path}:${d.line}`), ['src/app/run.ts:10']);
    assert.equal(intel.client.status.restarts, 1);
    assert.notEqual(intel.client.pid, pid);
  });
});

describe('resolution with pyright (real server)', function () {
  this.timeout(120_000);
  let fx: Fixture;
  let resolvers: EdgeResolver[];
  let first: EnrichReport;

  before(async () => {
    fx = await indexedFixture('py');
    resolvers = await headlessResolvers(fx.ws.db, { root: fx.root, only: ['python'], firstPass: false });
    first = await enrich(fx, resolvers);
  });
  after(async () => {
    for (const r of resolvers ?? []) await r.dispose();
    await fx?.close();
  });

  it('confirms the inventory with pyright and resolves the ambiguous call', async () => {
    assert.equal(first.resolvers[0]!.state, 'complete', first.resolvers[0]!.message);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.checkout_from_container', 'app.container.resolve_gateway'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.run_import', 'app.processors.CsvProcessor.process'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.run_import', 'app.processors.JsonProcessor.process'), []);
  });

  it('proves the five overrides from resolved inheritance (pyright has no implementation request)', async () => {
    assert.deepEqual(await implementationsOf(fx.ws, 'gateways.base.PaymentGateway.submit'), [
      'gateways.impls.ChapsGateway.submit lsp:python',
      'gateways.impls.FedwireGateway.submit lsp:python',
      'gateways.impls.SandboxGateway.submit lsp:python',
      'gateways.impls.SepaGateway.submit lsp:python',
      'gateways.impls.SwiftGateway.submit lsp:python',
    ]);
    const r = await ask(fx.ws, 'gateways.impls.SandboxGateway.submit');
    assert.deepEqual(r.dispatches.map((d) => `${d.caller.qname} ${d.resolution}`).sort(), ['app.checkout.Checkout.pay resolved', 'app.checkout.checkout_from_container resolved']);
  });

  it('falls back to the inventory when an imported module changes, until the next pass', async () => {
    const factory = path.join(fx.root, 'app/factory.py');
    fs.writeFileSync(factory, 'from .processors import JsonProcessor\n\n\ndef make_processor() -> JsonProcessor:\n    return JsonProcessor()\n');
    await fx.indexer.updateFiles([factory]);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.run_import', 'app.processors.CsvProcessor.process'), ['ambiguous']);
    await enrich(fx, resolvers);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.run_import', 'app.processors.JsonProcessor.process'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'app.checkout.run_import', 'app.processors.CsvProcessor.process'), []);
  });
});
