import * as assert from 'node:assert/strict';
import type { StoredEpisode } from '../../src/core/episodic/store';
import { failureSignature, matchesTrigger, mineFindings, triggerCandidates } from '../../src/core/procedural/mine';
import { BEGIN, END, currentSection, renderSection, withSection } from '../../src/core/procedural/promotion';
import { wilsonLowerBound } from '../../src/core/procedural/wilson';

const NO_PROJECT = { scripts: new Map<string, string>(), makeTargets: new Map<string, string>(), tasks: [] };
let nextId = 1;

/** An episode as the store returns it; touches are [path, sid?, fresh?]. */
function ep(command: string, status: 'success' | 'failure' | 'rejected', touches: [string, string?, boolean?][] = [], extra: Partial<StoredEpisode> = {}): StoredEpisode {
  const id = nextId++;
  const kind = /gen/.test(command) && !/&&/.test(command) ? 'generate' : /lint/.test(command) ? 'lint' : 'test';
  return {
    id,
    uid: `e${id}`,
    startedAt: id * 60_000,
    endedAt: id * 60_000 + 1000,
    source: 'run',
    actor: 'agent',
    intent: null,
    command,
    commandKey: command,
    commandKind: kind,
    cwd: '.',
    branch: 'main',
    head: null,
    commitMessage: null,
    diff: { files: touches.length, added: 1, removed: 0 },
    touchBasis: null,
    touches: touches.map(([path, sid, fresh]) => ({ path, sid: sid ?? null, qname: sid ?? null, kind: sid ? 'method' : null, lines: 1, change: 'modified' as const, fingerprint: null, fresh: fresh ?? true })),
    outcome: { kind, status, source: 'build-system', confidence: 'high', exitCode: status === 'success' ? 0 : 1, evidence: null },
    tests: null,
    archivedAt: null,
    archiveReason: null,
    ...extra,
  };
}

/** change → gen → test pass: the test is charged with the change too (not fresh for it). */
function followed(path: string): StoredEpisode[] {
  return [ep('npm run gen', 'success', [[path]]), ep('npm test', 'success', [[path, undefined, false]])];
}

describe('rule mining', () => {
  beforeEach(() => (nextId = 1));

  it('finds "run G before T when P changes", generalising the trigger only as far as the evidence allows', () => {
    const compile = (path: string) => ep('npm test', 'failure', [[path]], { outcome: { kind: 'test', status: 'failure', source: 'build-system', confidence: 'high', exitCode: 2, evidence: "src/mappers/M.ts(3,1): error TS2741: Property 'x' is missing" } });
    const eps = [
      ...followed('src/model/a.ts'),
      compile('src/model/b.ts'),
      ...followed('src/model/b.ts'),
      ...followed('src/model/c.ts'),
      ep('npm test', 'success', [['src/ui/view.ts']]), // no generator needed outside src/model
      ...followed('src/model/a.ts'),
    ];
    const [f, ...rest] = mineFindings(eps, NO_PROJECT);
    assert.equal(rest.length, 0);
    assert.equal(f!.kind, 'order');
    assert.equal(f!.text, 'When files under `src/model/` change, run `npm run gen` before `npm test`.');
    assert.deepEqual(f!.trigger.paths, ['src/model/**']);
    assert.deepEqual(f!.action, { before: 'npm run gen', then: 'npm test' });
    assert.deepEqual(f!.evidence.map((e) => e.role), ['success', 'success', 'success', 'success', 'success']);
    assert.match(f!.evidence[1]!.detail, /skipped `npm run gen`; `npm test` failed \(compile\)/);
  });

  it('counts a generator run before the last change as not run, and a skip that passed against the rule', () => {
    const eps = [
      ep('npm run gen', 'success'),
      ep('npm test', 'success', [['src/model/a.ts']]), // changed after the generator ran: skipped, passed
      ...followed('src/model/a.ts'),
      ...followed('src/model/a.ts'),
    ];
    const f = mineFindings(eps, NO_PROJECT).find((x) => x.kind === 'order')!;
    assert.deepEqual(f.evidence.map((e) => e.role), ['failure', 'success', 'success']);
    assert.match(f.evidence[0]!.detail, /skipped `npm run gen`; `npm test` passed anyway/);
  });

  it('does not charge a rule with a failure of another kind, and sees generation inside a compound command', () => {
    const compileFailure = ep('npm test', 'failure', [['src/model/a.ts']], { outcome: { kind: 'test', status: 'failure', source: 'build-system', confidence: 'high', exitCode: 2, evidence: 'error TS2304: Cannot find name' } });
    const gen = ep('npm run gen', 'success', [['src/model/a.ts']]);
    const allocation = ep('npm test', 'failure', [['src/model/a.ts', undefined, false]], {
      tests: { total: 5, failed: 1, errors: 0, skipped: 0, reports: [], failing: [{ suite: 'Allocation', name: 'redrive', status: 'failed', message: null, file: null }] },
    });
    const eps = [compileFailure, gen, allocation, ep('npm run gen && npm test', 'success', [['src/model/b.ts']]), ep('npm run gen && npm test', 'success', [['src/model/c.ts']])];
    assert.deepEqual(failureSignature(allocation), new Set(['test:Allocation']));
    assert.deepEqual(failureSignature(compileFailure), new Set(['compile']));
    const f = mineFindings(eps, NO_PROJECT).find((x) => x.kind === 'order')!;
    assert.deepEqual(f.evidence.map((e) => [e.episodeId, e.role]), [[1, 'success'], [4, 'success'], [5, 'success']], 'the allocation failure (#3) is not the kind the rule prevents');
  });

  it('finds "changes to X that skip Y fail" from repeated failures and the successes that did both', () => {
    const eps = [
      ep('npm test', 'rejected', [['src/a.ts', 'Settlement.retry']]),
      ep('npm test', 'success', [['src/a.ts', 'Settlement.retry'], ['src/v.ts', 'Validator.check']]),
      ep('npm test', 'failure', [['src/a.ts', 'Settlement.retry']]),
      ep('npm test', 'success', [['src/a.ts', 'Settlement.retry'], ['src/v.ts', 'Validator.check']]),
    ];
    const f = mineFindings(eps, NO_PROJECT).find((x) => x.kind === 'co-change')!;
    assert.ok(f, 'co-change rule found');
    assert.equal(f.text, 'When changing `Settlement.retry`, also change `Validator.check`: changes to it that did not failed or were rejected.');
    assert.deepEqual(f.trigger.sids, ['Settlement.retry']);
    assert.deepEqual(f.evidence.map((e) => e.role), ['success', 'success', 'success', 'success']);
    // One failure is an anecdote, not a pattern.
    assert.equal(mineFindings(eps.slice(0, 2), NO_PROJECT).filter((x) => x.kind === 'co-change').length, 0);
  });

  it('generalises triggers to folders and matches them', () => {
    assert.deepEqual([...triggerCandidates(['src/a/b.ts'])], ['src/a/b.ts', 'src/a/**', 'src/**']);
    assert.ok(matchesTrigger('src/a/**', 'src/a/x/y.ts'));
    assert.ok(!matchesTrigger('src/a/**', 'src/ab/y.ts'));
    assert.ok(matchesTrigger('*', 'anything'));
  });

  it('computes the Wilson lower bound', () => {
    assert.equal(wilsonLowerBound(0, 0), 0);
    assert.ok(Math.abs(wilsonLowerBound(5, 5) - 0.566) < 0.001);
    assert.ok(Math.abs(wilsonLowerBound(7, 8) - 0.529) < 0.001);
    assert.ok(wilsonLowerBound(50, 50) > 0.92);
    assert.ok(wilsonLowerBound(3, 3) < 0.5, '3 of 3 is not proof at 95%');
  });
});

describe('the managed section of AGENTS.md', () => {
  const rules = [{ id: 3, successes: 6, failures: 1, text: 'Run `make gen` before `make test`.' }];

  it('creates the file, appends to one without a section, and replaces only between the markers', () => {
    const created = withSection(null, renderSection(rules));
    assert.match(created, /^# AGENTS.md\n/);
    assert.ok(created.includes(`${BEGIN}\n## Rules learned in this repository`));
    assert.match(created, /- Run `make gen` before `make test`\. _\(rule 3: held in 6 of 7 recorded attempts; `tenure rules audit 3`\)_\n<!-- END TENURE RULES -->\n$/);
    const handWritten = '# Agents\n\nAlways run the linter.\n';
    const appended = withSection(handWritten, renderSection(rules));
    assert.ok(appended.startsWith(handWritten + '\n' + BEGIN));
    const replaced = withSection(appended + '\nMore notes after.\n', renderSection([]));
    assert.ok(replaced.startsWith(handWritten));
    assert.ok(replaced.endsWith('\nMore notes after.\n'));
    assert.equal(currentSection(replaced), `${BEGIN}\n<!-- no promoted rules -->\n${END}`);
  });

  it('refuses to guess when a marker is missing', () => {
    assert.throws(() => withSection(`${BEGIN}\n- a rule\n`, renderSection(rules)), /markers in the instruction file are incomplete/);
  });
});
