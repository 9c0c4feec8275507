import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A source is quoted first by its likeliest sentence that ties itself to the
 * symbol, and that sentence must explain: a doc comment that opens with a
 * heading-like phrase ("Calculating estimated days to finish.") led the
 * answer with it, and its sentence that says why ("… because it is not over
 * yet") came second.
 */
describe('why_is_this: the first quoted sentence of a source explains', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/stats/finish.js': [
        '/**',
        ' * Calculating estimated days to finish (ETF). See the original page https://github.com/example/stats/blob/ed9c64d/app/pages/stats.jsx#L231',
        ' * Returns estimate number of days based on the daily counts excluding the current day because it is not over yet.',
        ' */',
        'export function calcDaysToFinish(counts, total) {',
        '  const done = counts.slice(0, -1);',
        '  const perDay = done.reduce((a, b) => a + b, 0) / Math.max(done.length, 1);',
        '  return perDay ? Math.ceil(total / perDay) : null;',
        '}',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('leads with the sentence that says why, not the phrase that names what it does', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'calcDaysToFinish' });
    const first = r.text.split('\n')[0]!;
    assert.match(first, /^Why: ".*Returns estimate number of days .* because it is not over yet\."/, r.text);
  });
});
