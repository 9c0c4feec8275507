import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EnrichmentPass, type EnrichOptions, type EnrichReport } from '../../src/core/structural/enrichment/enrich';
import { headlessResolvers } from '../../src/core/structural/enrichment/headless';
import type { CodeIntelResolver } from '../../src/core/structural/enrichment/codeIntelResolver';
import type { EdgeResolver } from '../../src/core/structural/enrichment/types';
import type { LspCodeIntel } from '../../src/core/structural/sources/lsp/codeIntel';
import { ask, edgeTier, implementationsOf, indexedFixture, refutations } from './lsp.helpers';

type Fixture = Awaited<ReturnType<typeof indexedFixture>>;

/*
 * The TypeScript compiler as the first pass (a child process over the whole
 * program), then typescript-language-server for what changes: the same
 * questions as the language server's suite, answered by the checker directly,
 * and the hand-over between the two.
 */

async function enrich(fx: Fixture, resolvers: readonly EdgeResolver[], extra: Partial<EnrichOptions> = {}): Promise<EnrichReport> {
  return new EnrichmentPass(fx.ws.db, resolvers, { root: fx.root, ...extra }).run();
}

async function edgesOf(fx: Fixture, dst: string, kinds: readonly string[]): Promise<string[]> {
  const rows = await fx.ws.db.all<{ src: string; kind: string; tier: string; source: string }>(
    `SELECT a.qname AS src, e.kind, e.tier, e.source FROM edges e JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id
       WHERE b.qname = ? AND e.kind IN (SELECT value FROM json_each(?))`,
    [dst, JSON.stringify(kinds)],
  );
  return rows.map((r) => `${r.src} ${r.kind} ${r.tier} ${r.source}`).sort();
}

describe('first pass with the TypeScript compiler, then the language server (real compiler and server)', function () {
  this.timeout(120_000);
  let fx: Fixture;
  let resolvers: EdgeResolver[];
  let first: EnrichReport;

  before(async () => {
    fx = await indexedFixture('ts');
    resolvers = await headlessResolvers(fx.ws.db, { root: fx.root, only: ['typescript'] });
    assert.deepEqual(resolvers.map((r) => r.source), ['tsc', 'lsp:typescript']);
    // The fixture is small: a first pass is forced; `auto` leaves 12 files to the server.
    first = await enrich(fx, resolvers, { firstPass: 'always' });
  });
  after(async () => {
    for (const r of resolvers ?? []) await r.dispose();
    await fx?.close();
  });

  it('covers every file with the compiler and never starts the server', () => {
    const [tsc, lsp] = first.resolvers;
    assert.equal(tsc!.source, 'tsc');
    assert.equal(tsc!.state, 'complete', tsc!.message);
    assert.equal(tsc!.files, 12);
    assert.equal(lsp!.source, 'lsp:typescript');
    assert.equal(lsp!.files, 0);
    assert.equal(lsp!.symbols, 0, 'no references or implementation search: the compiler read every use');
    assert.equal(((resolvers[1] as CodeIntelResolver).intel as LspCodeIntel).client.pid, undefined);
  });

  it('resolves an ambiguous call and refutes the name match the checker sends outside the workspace', async () => {
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'CsvProcessor.process'), ['resolved']);
    assert.deepEqual(await edgeTier(fx.ws, 'runImport', 'JsonProcessor.process'), []);
    assert.deepEqual(await edgeTier(fx.ws, 'record', 'Stack.push'), []);
    const refuted = await refutations(fx.ws);
    assert.ok(refuted.includes('runImport -> JsonProcessor.process by tsc'), refuted.join('\n'));
    assert.ok(refuted.includes('record -> Stack.push by tsc'), refuted.join('\n'));
    const r = await ask(fx.ws, 'resolveGateway');
    assert.match(r.dependents.find((d) => d.symbol.qname === 'checkoutFromContainer')!.provenance.reason, /^declaration \(tsc\) at src\/di\/container\.ts:7/);
  });

  it('proves the five implementations, so calls through the interface are resolved dispatch', async () => {
    assert.deepEqual(await implementationsOf(fx.ws, 'PaymentGateway.submit'), [
      'ChapsGateway.submit tsc',
      'FedwireGateway.submit tsc',
      'SandboxGateway.submit tsc',
      'SepaGateway.submit tsc',
      'SwiftGateway.submit tsc',
    ]);
    const sandbox = await ask(fx.ws, 'SandboxGateway.submit');
    assert.deepEqual(sandbox.dispatches.map((d) => `${d.caller.qname} ${d.resolution}`).sort(), ['Checkout.pay resolved', 'checkoutFromContainer resolved']);
    assert.doesNotMatch(sandbox.summary, /type-checked resolution/);
  });

  it('after an edit the language server answers for the changed file; the compiler is not run again', async () => {
    const file = path.join(fx.root, 'src/app/Checkout.ts');
    fs.appendFileSync(file, '\n// edited\n');
    await fx.indexer.updateFiles([file]);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
    const r = await enrich(fx, resolvers);
    assert.deepEqual(r.resolvers.map((x) => `${x.source} ${x.files}`), ['lsp:typescript 1']);
    assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['resolved']);
    const again = await enrich(fx, resolvers);
    assert.deepEqual(again.resolvers.map((x) => `${x.source} ${x.files}`), ['lsp:typescript 0']);
  });
});

describe('the compiler on data, super calls, property calls and untyped receivers', function () {
  this.timeout(120_000);
  let fx: Fixture;
  let resolvers: EdgeResolver[];
  let first: EnrichReport;

  before(async () => {
    fx = await indexedFixture('ts-data');
    resolvers = await headlessResolvers(fx.ws.db, { root: fx.root, only: ['typescript'] });
    first = await enrich(fx, resolvers, { firstPass: 'always' });
  });
  after(async () => {
    for (const r of resolvers ?? []) await r.dispose();
    await fx?.close();
  });

  it('finds every reader of a constant, a `super(…)` argument included; `typeof X` in a type is a reference, not a read', async () => {
    assert.equal(first.resolvers[0]!.state, 'complete', first.resolvers[0]!.message);
    assert.deepEqual(await edgesOf(fx, 'MAX_ATTEMPTS', ['read', 'write', 'reference']), [
      'AttemptCount reference resolved tsc',
      'BackoffPolicy.constructor read resolved tsc',
      'RetryPolicy.shouldRetry read resolved tsc',
      'run read resolved tsc',
    ]);
  });

  it('tells a write from a read: `+=`, an assignment, a destructuring read', async () => {
    assert.deepEqual(await edgesOf(fx, 'RetryPolicy.attempts', ['read', 'write']), [
      'RetryPolicy.shouldRetry read resolved tsc',
      'RetryPolicy.shouldRetry write resolved tsc',
      'run read resolved tsc',
      'run write resolved tsc',
    ]);
    assert.deepEqual(await edgesOf(fx, 'Mode.Safe', ['read']), ['run read resolved tsc']);
  });

  it('`super(…)` and `new X()` call the constructors that run', async () => {
    assert.deepEqual(await edgesOf(fx, 'RetryPolicy.constructor', ['call', 'instantiate']), ['BackoffPolicy.constructor call resolved tsc', 'RetryPolicy.EMPTY instantiate resolved tsc']);
    assert.deepEqual(await edgesOf(fx, 'BackoffPolicy.constructor', ['call', 'instantiate']), ['run instantiate resolved tsc']);
  });

  it('`super.m()` and `super(…)` are bound statically, a call through a property is a property call (edges.binding)', async () => {
    const rows = await fx.ws.db.all<{ src: string; dst: string; binding: string | null }>(
      `SELECT a.qname AS src, b.qname AS dst, e.binding FROM edges e JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id WHERE e.binding IS NOT NULL`,
    );
    assert.deepEqual(rows.map((r) => `${r.src} -> ${r.dst} ${r.binding}`).sort(), [
      'BackoffPolicy.constructor -> RetryPolicy.constructor super',
      'BackoffPolicy.describe -> RetryPolicy.describe super',
      'RetryPolicy.shouldRetry -> RetryPolicy.onExceeded property-call',
    ]);
  });

  it('a call through a function-typed property reads it, and no method is reached from it by dispatch', async () => {
    assert.deepEqual(await edgesOf(fx, 'RetryPolicy.onExceeded', ['read', 'call']), ['RetryPolicy.shouldRetry read resolved tsc']);
    assert.deepEqual(await implementationsOf(fx.ws, 'Limits.ceiling'), ['RetryPolicy.ceiling tsc']);
  });

  it('an inferred edge the checker could not answer (a receiver typed `any`) says so', async () => {
    const r = await ask(fx.ws, 'RetryPolicy.shouldRetry');
    const untyped = r.dependents.find((d) => d.symbol.qname === 'untyped')!;
    assert.equal(untyped.tier, 'inferred');
    assert.match(untyped.provenance.reason, /no answer from the type checker \(tsc\) for this site/);
    assert.equal(first.resolvers[0]!.unanswered, 1);
  });

  it('a read or write through a receiver typed `any` is attributed to no field: the name matches are set aside, the site is counted once by name (dynamic) and named in the answer', async () => {
    // The inventory matched `thing.attempts` to both fields named `attempts` (ambiguous); the checker types `thing` as `any`.
    const refuted = await refutations(fx.ws);
    for (const dst of ['Counter.attempts', 'RetryPolicy.attempts']) assert.equal(refuted.filter((r) => r === `untypedData -> ${dst} by tsc`).length, 2, refuted.join('\n'));
    const kept = await fx.ws.db.all<{ src: string; kind: string; tier: string; source: string; candidates: number; reason: string }>(
      `SELECT a.qname AS src, e.kind, e.tier, e.source, e.candidates, e.reason FROM edges e JOIN symbols a ON a.id = e.src_id WHERE e.dst_id IS NULL AND e.binding = 'untyped' ORDER BY e.kind`,
    );
    assert.deepEqual(kept.map((k) => `${k.src} ${k.kind} ${k.tier} ${k.source} ${k.candidates}`), ['untypedData read dynamic tsc 2', 'untypedData write dynamic tsc 2']);
    assert.match(kept[0]!.reason, /types `any`.*not attributed to any of the 2 `attempts`s/);
    assert.equal(first.resolvers[0]!.untyped, 2);

    // A field whose only uses are through `any` has no dependents, and the answer says two sites could still be it.
    const counter = await ask(fx.ws, 'Counter.attempts');
    assert.deepEqual(counter.dependents, []);
    assert.equal(counter.untypedSites, 2);
    assert.match(counter.summary, /^No dependents found in the index; not seen: .*reads and writes through receivers typed `any`: 2 sites using the name `attempts` that the type checker attributes to no member/);
    // The field the checker does see read keeps its resolved readers, and the same two sites are named.
    const policy = await ask(fx.ws, 'RetryPolicy.attempts');
    assert.deepEqual(policy.dependents.map((d) => `${d.symbol.qname} ${d.kind} ${d.tier}`).sort(), [
      'RetryPolicy.shouldRetry read resolved',
      'RetryPolicy.shouldRetry write resolved',
      'run read resolved',
      'run write resolved',
    ]);
    assert.match(policy.notSeen.join('; '), /2 sites using the name `attempts`/);
    // A method of that name is never meant by a data use: nothing is counted for it.
    assert.equal((await ask(fx.ws, 'RetryPolicy.shouldRetry')).untypedSites, 0);
  });

  it('a member inherited from a base whose package is not installed is outside the workspace: the name match is refuted, with the reason', async () => {
    assert.deepEqual(await edgesOf(fx, 'RetryPolicy.shouldRetry', ['call']), ['run call resolved tsc', 'untyped call inferred tree-sitter']);
    const refuted = await refutations(fx.ws);
    assert.ok(refuted.includes('Relay.forward -> RetryPolicy.shouldRetry by tsc'), refuted.join('\n'));
    const r = await ask(fx.ws, 'RetryPolicy.shouldRetry');
    assert.ok(!r.dependents.some((d) => d.symbol.qname === 'Relay.forward'));
  });
});
