import * as assert from 'node:assert/strict';
import { DAY_MS, ManualClock, clockFromEnv, describeAge, parseInstant } from '../../src/core/episodic/clock';
import { similarity, sketch } from '../../src/core/episodic/fingerprint';
import { decayedConfidence } from '../../src/core/episodic/model';
import { DEFAULT_OPTIONS, MEMORY_SETTINGS, optionsFromSettings, parseJsonc } from '../../src/core/episodic/options';
import { OUTCOME_WEIGHT, episodeWeight, frequencyFactor, recencyFactor } from '../../src/core/episodic/weighting';
import { TenureError } from '../../src/shared/errors';

describe('episodic weighting, decay and fingerprints', () => {
  it('decays a conclusion by its half-life; an outcome has no such number', () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const c = { confidence: 0.3, halfLifeDays: 14, at: clock.now() };
    assert.equal(decayedConfidence(c, clock.now()), 0.3);
    clock.advanceDays(14);
    assert.equal(decayedConfidence(c, clock.now()), 0.15);
    clock.advanceDays(14);
    assert.equal(decayedConfidence(c, clock.now()), 0.075);
    assert.equal(decayedConfidence(c, clock.now() - 100 * DAY_MS), 0.3, 'never above its starting confidence');
  });

  it('fades rank with age down to a floor, and weighs failures above successes', () => {
    const o = DEFAULT_OPTIONS;
    assert.equal(recencyFactor(0, o), 1);
    assert.ok(Math.abs(recencyFactor(o.recencyHalfLifeDays * DAY_MS, o) - (o.recencyFloor + (1 - o.recencyFloor) / 2)) < 1e-9);
    assert.ok(recencyFactor(10_000 * DAY_MS, o) >= o.recencyFloor);
    assert.ok(OUTCOME_WEIGHT.rejected > OUTCOME_WEIGHT.failure && OUTCOME_WEIGHT.failure > OUTCOME_WEIGHT.success);
    assert.equal(frequencyFactor(0), 1);
    assert.ok(frequencyFactor(3) > frequencyFactor(1));
    assert.equal(frequencyFactor(1000), 2);
    // A failure three months old still outranks a success from this week.
    const oldFailure = episodeWeight({ outcome: OUTCOME_WEIGHT.failure, recency: recencyFactor(95 * DAY_MS, o), frequency: 1, relation: 1, archived: 1 });
    const newSuccess = episodeWeight({ outcome: OUTCOME_WEIGHT.success, recency: recencyFactor(2 * DAY_MS, o), frequency: 1, relation: 1, archived: 1 });
    assert.ok(oldFailure > newSuccess, `${oldFailure} > ${newSuccess}`);
  });

  it('estimates how much of a symbol is still what it was', () => {
    const base = Array.from({ length: 40 }, (_, i) => `l:line ${i}`);
    assert.equal(similarity(sketch(base), sketch(base)), 1);
    assert.equal(similarity(sketch(base), sketch(base.map((f) => `${f}!`))), 0);
    const half = [...base.slice(0, 20), ...Array.from({ length: 20 }, (_, i) => `l:new ${i}`)];
    const s = similarity(sketch(base), sketch(half));
    assert.ok(Math.abs(s - 20 / 60) < 0.1, String(s));
    const big = Array.from({ length: 2000 }, (_, i) => `f${i}`);
    const bigChanged = [...big.slice(0, 1800), ...Array.from({ length: 200 }, (_, i) => `g${i}`)];
    const est = similarity(sketch(big), sketch(bigChanged));
    assert.ok(Math.abs(est - 1800 / 2200) < 0.15, `bottom-k estimate ${est} vs ${1800 / 2200}`);
  });

  it('reads times as ISO dates or ages, and the clock from TENURE_NOW', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    assert.equal(parseInstant('-95d', now), now - 95 * DAY_MS);
    assert.equal(parseInstant('12h', now), now - 12 * 3_600_000);
    assert.equal(parseInstant('2026-05-01T00:00:00Z', now), Date.parse('2026-05-01T00:00:00Z'));
    assert.throws(() => parseInstant('yesterday', now), (e: unknown) => TenureError.is(e, 'invalid-input'));
    assert.equal(clockFromEnv({ TENURE_NOW: '2026-06-01T00:00:00Z' }).now(), now);
    assert.throws(() => clockFromEnv({ TENURE_NOW: 'soon' }), /TENURE_NOW/);
    assert.equal(describeAge(95 * DAY_MS), '3 months ago');
    assert.equal(describeAge(3 * DAY_MS), '3 days ago');
  });

  it('takes thresholds from settings, keeping the default for a bad value', () => {
    const warnings: string[] = [];
    const o = optionsFromSettings(
      (k) => ({ 'tenure.episodes.conclusionHalfLifeDays': 7, 'tenure.episodes.archiveSimilarity': 2, 'tenure.rules.minSuccesses': 5, 'tenure.episodes.commandPatterns': [{ pattern: '^x', kind: 'test' }] })[k],
      (w) => warnings.push(w),
    );
    assert.equal(o.conclusionHalfLifeDays, 7);
    assert.equal(o.ruleMinSuccesses, 5);
    assert.equal(o.archiveSimilarity, DEFAULT_OPTIONS.archiveSimilarity);
    assert.deepEqual(o.commandPatterns, [{ pattern: '^x', kind: 'test' }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /tenure.episodes.archiveSimilarity = 2 is not a valid fraction/);
    assert.equal(new Set(MEMORY_SETTINGS.map((s) => s.key)).size, MEMORY_SETTINGS.length);
    assert.deepEqual(parseJsonc('{ // c\n "a": "//not a comment", /* b */ "b": [1,], }'), { a: '//not a comment', b: [1] });
  });
});
