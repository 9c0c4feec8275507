import * as assert from 'node:assert/strict';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result';
import { presentWhatBreaks, renderWhatBreaks } from '../../src/core/tools/whatBreaks';
import { jdkAvailable } from '../helpers/java';
import { answerPairs, ask, javaExample, precisionRecall, truthPairs, type JavaExample } from '../helpers/fifteen';
import { skipUnless } from '../helpers/prereq';

/** "Caller kind tier source" for the direct dependents, sorted, so every caller and its tier is asserted. */
function callers(r: WhatBreaksResult): string[] {
  return r.dependents.filter((d) => d.distance === 1).map((d) => `${d.symbol.qname.replace('com.acme.clearing.', '')} ${d.kind} ${d.tier} ${d.provenance.source}`).sort();
}

describe('the fifteen-minute check on examples/settlement (Java service, DI wiring, traces)', function () {
  this.timeout(180_000);
  const jdk = jdkAvailable();
  let full: JavaExample;

  before(async function () {
    skipUnless(this, jdk);
    full = await javaExample({ bytecode: true, aot: true, actuator: true, traces: true });
  });
  after(async () => full?.cleanup());

  it('who calls ClearingRail.submit: every caller of the interface, each resolved from the class files', async () => {
    const r = await ask(full.ws, 'ClearingRail.submit');
    assert.deepEqual(callers(r), [
      'RailRegistry.submitVia call resolved bytecode',
      'ReplayJob.replay reference resolved bytecode',
      'SettlementProcessor.process call resolved bytecode',
    ]);
    assert.match(r.dependents.find((d) => d.symbol.name === 'replay')!.provenance.reason, /method reference `::submit` \(invokedynamic → LambdaMetafactory, invokeInterface com\.acme\.clearing\.ClearingRail\.submit/);
    assert.deepEqual(r.implementers.map((i) => `${i.symbol.qname.replace('com.acme.clearing.', '')} ${i.tier}`).sort(), [
      'ChapsRail.submit resolved', 'FedwireRail.submit resolved', 'InstantRail.submit resolved', 'SepaRail.submit resolved', 'SwiftRail.submit resolved', 'TargetTwoRail.submit resolved',
    ]);
    const instant = r.implementers.find((i) => i.symbol.name === 'submit' && i.symbol.qname.includes('InstantRail'))!;
    assert.match(instant.provenance.reason, /the container wires it \(di:(aot|actuator)(, di:(aot|actuator))?\)/);
    assert.match(r.summary, /^At least 3 dependents: 2 callers \(2 resolved\), 1 reference \(1 resolved\); 6 overriding implementations \(6 proven by a type checker\); DI wiring from actuator beans of \d{4}-\d\d-\d\d \(profile prod\) and Spring AOT output of \d{4}-\d\d-\d\d; not seen: /);
    assert.doesNotMatch(r.summary, /not seen:.*generated code/, 'class files were read');
    const text = renderWhatBreaks(presentWhatBreaks(r, [], 30));
    assert.match(text, /InstantRail\.submit \(resolved, bytecode\) at java\/src\/main\/java\/com\/acme\/clearing\/InstantRail\.java:\d+ — wired by DI: /);
  });

  it('who calls the DI-wired InstantRail.submit: the injected callers, resolved by the AOT output and seen in traces', async () => {
    const r = await ask(full.ws, 'InstantRail.submit');
    assert.deepEqual(callers(r), ['ReplayJob.replay reference resolved di:aot', 'SettlementProcessor.process call resolved di:aot']);
    const process = r.dependents.find((d) => d.symbol.name === 'process')!;
    assert.match(process.provenance.reason, /calls com\.acme\.clearing\.ClearingRail\.submit on `rail`, which the container fills with bean `instantRail` \(com\.acme\.clearing\.InstantRail\): Spring AOT output of .*: constructor parameter `rail`/);
    assert.match(process.provenance.reason, /also: seen in 2 span hops \(clearing-service\) via span SettlementProcessor\.process → InstantRail\.submit, last 2026-11-28T16:00:00Z, trace 5b8aa5a2d2c872e8321cf37308d69df2/);
    assert.deepEqual(r.dispatches.map((d) => `${d.caller.name} ${d.resolution}`), ['submitVia resolved'], 'only the registry is left as a possible dispatch: the wiring says where process and replay land');
    assert.match(r.summary, /2 reached through DI wiring the build resolved; DI wiring from actuator beans/);
    assert.equal(r.artifacts?.evidence['java com/acme/clearing/SettlementProcessor#process().']?.count, 2);
  });

  it('who calls SepaRail.submit: a direct call from the class files, and a reflective one only a trace shows', async () => {
    const r = await ask(full.ws, 'SepaRail.submit');
    assert.deepEqual(callers(r), ['RailRegistry.submitSepaDirect call resolved bytecode', 'ReplayJob.replayByName call observed traces']);
    assert.match(r.summary, /2 callers \(1 resolved, 1 observed in traces only\)/);
    assert.equal(r.dynamicSites.length, 0, 'the reflective site is in another file than SepaRail');
  });

  it('crosses services and languages: a Python client and a console with no code attributes call the controller', async () => {
    const submit = await ask(full.ws, 'ClearingController.submit');
    assert.deepEqual(callers(submit), ['reconciliation.client.SettlementClient.settle call observed traces']);
    assert.match(submit.dependents[0]!.provenance.reason, /reconciliation → clearing-service via http POST \/clearing\/instructions\/\{id\}\/submit: caller code\.namespace `reconciliation\.client\.SettlementClient`, code\.function `settle`; callee http\.route `\/clearing\/instructions\/\{id\}\/submit` is declared by @PostMapping on com\.acme\.clearing\.ClearingController\.submit \(class file\)/);
    const route = await ask(full.ws, 'ClearingController.route');
    assert.deepEqual(callers(route), ['ops-console (service; its spans carry no code attributes) call observed traces']);
    assert.match(route.summary, /1 caller \(1 observed in traces only\); 1 service endpoint with no symbol \(seen in traces\)/);
  });

  it('follows a message topic from producer to consumer', async () => {
    const r = await ask(full.ws, 'ReconciliationListener.handle');
    assert.deepEqual(callers(r), ['ReconciliationListener.handle call resolved bytecode', 'SettlementProcessor.process call observed traces']);
    assert.match(r.dependents.find((d) => d.symbol.name === 'process')!.provenance.reason, /via topic settlement\.completed/);
    assert.match(r.dependents.find((d) => d.provenance.source === 'bytecode')!.provenance.reason, /^\[generated: compiler: bridge\]/);
    assert.match(r.summary, /1 generated method/);
  });

  it('counts what is generated from a symbol: a record component\'s accessor and its callers', async () => {
    const r = await ask(full.ws, 'java com/acme/clearing/Instruction#amountMinor.');
    const c = callers(r);
    assert.ok(c.includes('Instruction.amountMinor reference resolved bytecode'), c.join('\n'));
    assert.ok(c.includes('InstructionMapperImpl.toDto call resolved bytecode'), 'the MapStruct-style mapper, itself generated');
    assert.ok(c.includes('InstantRail.submit call resolved bytecode'));
    assert.match(r.summary, /2 generated methods/);
  });

  it('scores precision and recall against javap, the beans export and the trace', async () => {
    const truth = truthPairs(full.classes!);
    assert.deepEqual([...truth].sort(), [
      'com.acme.clearing.RailRegistry.submitSepaDirect → com.acme.clearing.SepaRail.submit',
      'com.acme.clearing.RailRegistry.submitVia → com.acme.clearing.ClearingRail.submit',
      'com.acme.clearing.ReplayJob.replay → com.acme.clearing.ClearingRail.submit',
      'com.acme.clearing.ReplayJob.replay → com.acme.clearing.InstantRail.submit',
      'com.acme.clearing.ReplayJob.replayByName → com.acme.clearing.SepaRail.submit',
      'com.acme.clearing.SettlementProcessor.process → com.acme.clearing.ClearingRail.submit',
      'com.acme.clearing.SettlementProcessor.process → com.acme.clearing.InstantRail.submit',
    ]);
    const score = precisionRecall(await answerPairs(full.ws), truth);
    assert.deepEqual(score, { precision: 1, recall: 1, missed: [], wrong: [] });
  });

  describe('with less to go on', () => {
    it('from source alone, the answer is a lower bound that names DI wiring, generated code and other services as unseen', async () => {
      const bare = await javaExample({});
      try {
        const r = await ask(bare.ws, 'ClearingRail.submit');
        assert.deepEqual(callers(r), ['RailRegistry.submitVia call inferred tree-sitter', 'SettlementProcessor.process call inferred tree-sitter']);
        assert.match(r.summary, /not seen: .*DI wiring \(no actuator beans export or Spring AOT output imported\).*generated code.*callers in other services and through message topics \(no traces imported\)/);
        const score = precisionRecall(await answerPairs(bare.ws), truthPairs(full.classes!));
        assert.equal(score.precision, 1);
        assert.equal(score.recall, 3 / 7, `missed: ${score.missed.join('; ')}`);
      } finally {
        await bare.cleanup();
      }
    });

    it('with the actuator export only, the wired callers are observed, not resolved', async () => {
      const running = await javaExample({ bytecode: true, actuator: true });
      try {
        const r = await ask(running.ws, 'InstantRail.submit');
        assert.deepEqual(callers(r), ['ReplayJob.replay reference observed di:actuator', 'SettlementProcessor.process call observed di:actuator']);
        assert.match(r.summary, /^At least 2 dependents: 1 reference \(1 observed through DI wiring\), 1 caller \(1 observed through DI wiring\); 1 call reaching it by resolved dispatch/);
        assert.match(r.summary, /DI wiring from actuator beans of \d{4}-\d\d-\d\d \(profile prod\)/);
        assert.doesNotMatch(r.summary, /Spring AOT/);
      } finally {
        await running.cleanup();
      }
    });

    it('paths not seen for longer than the configured time are shown as stale', async () => {
      const old = await javaExample({ bytecode: true, traces: true, staleAfterDays: 1, now: Date.parse('2026-11-30T00:00:00Z') });
      try {
        const r = await ask(old.ws, 'SepaRail.submit');
        const replay = r.dependents.find((d) => d.symbol.name === 'replayByName')!;
        assert.equal(replay.tier, 'observed');
        assert.match(replay.provenance.reason, /^STALE \(not seen since 2026-11-28, over 1 days\)/);
        assert.match(r.summary, /1 observed path stale \(not seen for 1 days\)/);
      } finally {
        await old.cleanup();
      }
    });
  });
});
