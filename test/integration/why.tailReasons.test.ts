import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * Once a decision record has a reason that names the symbol, its other
 * sentences that explain (a Context sentence saying what went wrong before)
 * need less of a tie to be quoted: the record is about the symbol already.
 */

describe('why_is_this: a decision record quoted past its first reason', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/slug.ts': 'export function recordSlug(title: string): string {\n  return title.toLowerCase();\n}\n',
      'docs/adr/0002-slugs.md': [
        '# 2. Record slugs',
        '',
        '## Context',
        '',
        'Records were named with a number prefix. It causes an issue during a `git merge` when two developers have created a new record on their branches at the same time.',
        '',
        '## Decision',
        '',
        'Each record is named by `recordSlug` from its title only.',
        '',
        'The number is kept in the front matter instead.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes the Context sentence that says what went wrong, with the decision that names the symbol', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'recordSlug' });
    // The sentence that says what went wrong is the reason: it leads, from the record the decision ties to the symbol.
    assert.match(r.text.split('\n')[0]!, /^Why: "It causes an issue during a `git merge` when two developers/);
    const data = r.data as { documents: { where?: string; tier: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0002-slugs.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'exact');
    assert.ok(adr.quotes.some((q) => q.text.startsWith('Each record is named by `recordSlug`')), r.text);
    // A sentence that explains nothing comes after those that do (what went wrong, the decision that names the symbol), if the budget has room for it at all.
    const quoted = adr.quotes.map((q) => q.text);
    const idle = quoted.indexOf('The number is kept in the front matter instead.');
    const explaining = [quoted.findIndex((q) => q.startsWith('It causes an issue during a `git merge`')), quoted.findIndex((q) => q.startsWith('Each record is named by `recordSlug`'))];
    assert.ok(idle === -1 || explaining.every((k) => k < idle), r.text);
  });
});
