import * as assert from 'node:assert/strict';
import { resolveOneSymbol, resolveSymbols } from '../../src/core/structural/lookup';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { TenureError } from '../../src/shared/errors';
import { copyExample } from '../helpers/fixtures';

/** "Caller qname → tier" for the dependents at one distance, sorted, so assertions list every edge. */
function tiers(r: WhatBreaksResult, distance = 1): string[] {
  return r.dependents.filter((d) => d.distance === distance).map((d) => `${d.symbol.qname} ${d.kind} ${d.tier}`).sort();
}

describe('what_breaks on examples/settlement', function () {
  let ws: Workspace;
  let cleanup: () => void;

  before(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    ws = await openWorkspace(ex.root);
    const indexer = await StructuralIndexer.create(ws);
    const report = await indexer.indexAll();
    await indexer.dispose();
    assert.equal(report.skipped.length, 0, JSON.stringify(report.skipped));
  });
  after(async () => {
    await ws.close();
    cleanup();
  });

  const ask = async (symbol: string, depth = 1) => whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), depth);

  it('lists every direct caller of SettlementService.retry with its tier and a dynamic site', async () => {
    const r = await ask('SettlementService.retry');
    assert.deepEqual(tiers(r), [
      'AllocationService.redrive call inferred',
      'NightlyBatch.run call inferred',
      'SettlementService.settle call inferred',
      'postRetry call inferred',
    ]);
    const postRetry = r.dependents.find((d) => d.symbol.qname === 'postRetry')!;
    assert.match(postRetry.provenance.reason, /only `retry` in the workspace/);
    assert.equal(postRetry.provenance.source, 'tree-sitter');
    assert.deepEqual(postRetry.sites, [{ path: 'src/api/handlers.ts', line: 11, col: 17 }]);
    assert.deepEqual(
      r.dynamicSites.map((d) => `${d.owner.qname} ${d.reason}`),
      ['NightlyBatch.runStep computed member call obj[expr]()'],
    );
    assert.match(r.summary, /^At least 4 dependents: 4 callers \(4 inferred\); 1 dynamic call site that may reach it; not seen: .*DI wiring.*generated code/);
  });

  it('a constant is read, and its readers\' callers are its impact: RetryPolicy.MAX_ATTEMPTS → RetryPolicy.shouldRetry → SettlementService.retry', async () => {
    const r = await ask('RetryPolicy.MAX_ATTEMPTS', 2);
    assert.deepEqual(tiers(r), ['RetryPolicy.shouldRetry read inferred']);
    assert.deepEqual(tiers(r, 2), ['SettlementService.retry call inferred']);
    assert.match(r.summary, /^At least 2 dependents within 2 hops \(1 direct\): 1 reader \(1 inferred\), 1 caller \(1 inferred\)/);
    // A static constant is neither injected nor called from another service.
    assert.doesNotMatch(r.summary, /DI wiring|message topics/);
  });

  it('follows dependents transitively, keeping the weakest tier of each path', async () => {
    const r = await ask('SettlementService.retry', 2);
    // The route table (`routes = { retry: postRetry }`) holds postRetry as a value: a reference to it.
    assert.deepEqual(tiers(r, 2), ['AllocationService.allocate call inferred', 'postSettlement call inferred', 'routes reference inferred']);
    const allocate = r.dependents.find((d) => d.symbol.qname === 'AllocationService.allocate')!;
    assert.equal(allocate.via.name, 'settle');
  });

  it('counts calls through the interface as unresolved dispatches to the DI-wired implementation', async () => {
    const r = await ask('SandboxGateway.submit');
    assert.equal(r.dependents.length, 0);
    assert.deepEqual(r.dispatches.map((d) => `${d.caller.qname} via ${d.through.qname}`), ['SettlementService.retry via PaymentGateway.submit']);
    assert.match(r.summary, /^No dependents found in the index; 1 unresolved interface dispatch/);
    assert.match(r.summary, /DI wiring/);
  });

  it('lists the six implementations of PaymentGateway.submit and its one direct caller', async () => {
    const r = await ask('PaymentGateway.submit');
    assert.deepEqual(tiers(r), ['SettlementService.retry call inferred']);
    assert.deepEqual(r.implementers.map((i) => `${i.symbol.qname} ${i.kind} ${i.tier}`).sort(), [
      'ChapsGateway.submit overrides inferred',
      'FedwireGateway.submit overrides inferred',
      'SandboxGateway.submit overrides inferred',
      'SepaGateway.submit overrides inferred',
      'SwiftGateway.submit overrides inferred',
      'TargetTwoGateway.submit overrides inferred',
    ]);
  });

  it('reports implementers, constructions and type references of an interface', async () => {
    const r = await ask('PaymentGateway');
    assert.equal(r.implementers.length, 6);
    assert.ok(r.implementers.every((i) => i.kind === 'implements' && i.tier === 'inferred'));
    const refs = tiers(r).filter((t) => t.includes(' reference '));
    assert.ok(refs.includes('SettlementService.gateway reference inferred'), refs.join('\n'));
    assert.ok(refs.includes('createSettlementService reference inferred'), refs.join('\n'));
  });

  it('links Python callers through declared parameter types and keeps getattr as dynamic', async () => {
    const r = await ask('reconciliation.client.SettlementClient.retry');
    assert.deepEqual(tiers(r), ['reconciliation.jobs.reconcile call inferred']);
    assert.deepEqual(r.dynamicSites.map((d) => d.reason), ['getattr with a computed name']);
  });

  it('never picks one of several symbols silently', async () => {
    const all = await resolveSymbols(ws.db, 'retry', { root: ws.root });
    assert.equal(all.length, 3);
    await assert.rejects(resolveOneSymbol(ws.db, 'retry', { root: ws.root }), (e: unknown) => {
      assert.ok(TenureError.is(e, 'symbol-ambiguous'));
      assert.match((e as Error).message, /matches 3 symbols; Tenure will not pick one/);
      assert.match((e as Error).message, /py `reconciliation.client`\/SettlementClient#retry\(\)\./);
      return true;
    });
  });

  it('resolves path:line and full ids to the same symbol', async () => {
    const byLine = await resolveOneSymbol(ws.db, 'src/settlement/SettlementService.ts:22', { root: ws.root });
    assert.equal(byLine.sid, 'ts `src/settlement/SettlementService.ts`/SettlementService#retry().');
    const byId = await resolveOneSymbol(ws.db, byLine.sid, { root: ws.root });
    assert.equal(byId.id, byLine.id);
  });

  it('suggests near names when nothing matches', async () => {
    await assert.rejects(resolveOneSymbol(ws.db, 'SettlementServise', { root: ws.root }), /No symbol matches/);
    await assert.rejects(resolveOneSymbol(ws.db, 'settle', { root: ws.root }), (e: unknown) => TenureError.is(e, 'symbol-ambiguous'));
  });
});
