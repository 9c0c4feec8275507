import * as assert from 'node:assert/strict';
import { fitLogistic } from '../../bench/fitReasons';
import { candidates, proseForms, rankSentences, tieMatcher, type RankedSentence } from '../../src/core/knowledge/reasons';
import { SENTENCE_MODEL } from '../../src/core/knowledge/sentenceModel';
import { FEATURES, currentModel, fits, rerank, sentenceFeatures, type SentenceModel, type SourceContext } from '../../src/core/knowledge/sentenceRanker';
import { handReasons } from '../../src/core/knowledge/why';

/*
 * The fitted sentence ranker: a logistic model over what the hand-set score
 * is made of and over the source, whose weights are data fitted by the
 * knowledge bench (bench/fitReasons.ts).
 */

const CTX: SourceContext = { kind: 'adr', own: false, tier: 'exact', relation: 'self', hops: 1, focused: true, aboutIt: true, weaklyAbout: false, threaded: false, atLine: false, nameWords: ['retri', 'polici'], placeWords: ['retri'] };

const DOC = [
  '# 7. Retry policy',
  '',
  '## Context',
  '',
  'The gateway rejects a duplicate submission within 15 minutes because it keys them by instruction id.',
  '',
  '## Decision',
  '',
  'The `RetryPolicy` allows three attempts.',
  '',
  'The policy is configured in the settlement module.',
  '',
].join('\n');

function ranked(): RankedSentence[] {
  return rankSentences(candidates(DOC), tieMatcher({ names: ['RetryPolicy'], phrases: proseForms('RetryPolicy'), values: [], places: [], neighbours: [] }), { aboutIt: true, names: ['RetryPolicy'] });
}

/** A model that weighs one feature only. */
function weighing(feature: string, weight: number): SentenceModel {
  return { features: [...FEATURES], weights: FEATURES.map((f) => (f === feature ? weight : 0)), bias: -2, tail: 0.1 };
}

describe('knowledge: the fitted sentence ranker', () => {
  it('gives every sentence one value per feature', () => {
    const list = ranked();
    for (const s of list) assert.equal(sentenceFeatures(s, list, CTX).length, FEATURES.length);
  });

  it('orders a source by the model: a model that weighs the Context section puts its sentence first', () => {
    const hand = ranked();
    assert.match(hand[0]!.text, /`RetryPolicy` allows three attempts/, 'by hand, the sentence that names it leads');
    const fitted = rerank(hand, CTX, weighing('section:context', 5));
    assert.match(fitted[0]!.text, /^The gateway rejects a duplicate submission/);
    assert.ok(fitted.every((s, k) => k === 0 || s.score <= fitted[k - 1]!.score));
  });

  it('refuses a model fitted on other features, and the committed model fits the features it is read with', () => {
    assert.equal(fits({ features: ['hand'], weights: [1], bias: 0, tail: 0.1 }), false);
    assert.equal(fits({ ...weighing('hand', 1), features: [...FEATURES.slice(1), 'other'] }), false);
    // Features added or reordered without fitting again would weigh each value with another's weight.
    assert.ok(fits(SENTENCE_MODEL), 'src/core/knowledge/sentenceModel.ts was fitted on other features: run bench/fitReasons.ts --write');
    assert.equal(currentModel(), SENTENCE_MODEL);
  });

  it('fits a weight that separates what a feature predicts (bench/fitReasons.ts)', () => {
    const at = FEATURES.indexOf('numbers');
    const rows = Array.from({ length: 400 }, (_, i) => {
      const f = FEATURES.map((_, k) => ((i * 7 + k * 13) % 10) / 10);
      const y = i % 4 === 0 ? 1 : 0;
      f[at] = y ? 0.8 + (i % 3) / 10 : (i % 5) / 10;
      return { corpus: 'c', f, y: y as 0 | 1, weight: 1 };
    });
    const { weights, bias } = fitLogistic(rows, 1);
    assert.ok(weights[at]! > 1, `weight ${weights[at]}`);
    const p = (f: readonly number[]) => 1 / (1 + Math.exp(-(bias + f.reduce((s, v, k) => s + v * weights[k]!, 0))));
    const hit = rows.filter((r) => p(r.f) > 0.5 === (r.y === 1)).length;
    assert.ok(hit / rows.length > 0.95, `${hit} of ${rows.length} right`);
  });
});

describe('knowledge: a source whose first sentence is no reason gives none', () => {
  const s = (score: number, explains: number): RankedSentence => ({ ...ranked()[0]!, score, explains });

  it('keeps later sentences at the lower bar only after a first reason', () => {
    assert.deepEqual(handReasons([s(0.5, 1), s(0.5, 1)]), []);
    assert.equal(handReasons([s(0.7, 1), s(0.5, 1)]).length, 2);
    assert.equal(handReasons([s(0.7, 1), s(0.3, 1)]).length, 1);
  });
});
