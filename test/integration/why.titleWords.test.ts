import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A decision record is about what its title says: a record titled "Write
 * model vs read models" bears on DependentFeaturesReadModel even where its
 * text never names the class. Weak, to verify. (unleash's record, capitalised,
 * is not linked to the class by the offline graph either.)
 */

describe('why_is_this: a decision record whose title holds words of the name', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/features/dependent-features-read-model.ts': 'export class DependentFeaturesReadModel {\n  async getParents(child: string): Promise<string[]> {\n    return [child];\n  }\n}\n',
      'docs/adr/write-model-vs-read-models.md': [
        '# 3. Write model vs read models',
        '',
        '## Context',
        '',
        'Stores that served both the UI and the writes grew into one class per table, so every screen asked several stores for its data.',
        '',
        '## Decision',
        '',
        'Expose a read model that returns all the data one screen needs in one query, so that the frontend does not ask several write models for it.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('links the record weakly by its title, says so, and quotes its decision', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'DependentFeaturesReadModel' });
    const data = r.data as { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/write-model-vs-read-models.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.equal(adr.how, 'its title "3. Write model vs read models" has words of its name ("read model") — verify');
    assert.ok(adr.quotes.some((q) => q.text.startsWith('Expose a read model that returns all the data')), r.text);
    // A weak link never leads the answer as the symbol's reason.
    assert.ok(!/— decision, (exact|strong)$/.test(r.text.split('\n')[0]!), r.text.split('\n')[0]);
  });
});
