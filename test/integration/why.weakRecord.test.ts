import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A record reached only weakly (its title holds words of the name) gives its
 * reason in sentences that never name the symbol, so no sentence ties to it:
 * its two likeliest reasons by the fitted ranker are quoted, not one, since
 * its context and its decision are rarely the same sentence.
 */

const record = (n: number, title: string, sections: Record<string, string>) =>
  [`# ${n}. ${title}`, '', '## Status', '', 'Accepted', '', ...Object.entries(sections).flatMap(([h, body]) => [`## ${h}`, '', body, '']), ''].join('\n');

describe('why_is_this: a record reached weakly, whose sentences do not name the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/projections/cache.ts': ['export class ReadModelCache {', '  private readonly rows = new Map<string, string>();', '  size(): number {', '    return this.rows.size;', '  }', '}', ''].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': record(1, 'Record architecture decisions', { Decision: 'We record the architecture decisions of this project in these files, one decision a file.' }),
      'docs/adr/0002-rebuild-read-models.md': record(2, 'Rebuild read models at start-up', {
        Context: 'Projections stored in the database drifted from the events after every failed migration, and nobody could tell which rows were wrong.',
        Decision: 'Projections are rebuilt from the event log whenever the service starts, because the log is the only record we trust.',
        Consequences: 'Start-up takes a few seconds longer.',
      }),
    });
  });
  after(() => fx.close());

  it('quotes two of its sentences, the context and the decision, weak', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'ReadModelCache' });
    const data = r.data as { documents: { where?: string; tier: string; gives: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0002-rebuild-read-models.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.equal(adr.gives, 'reason');
    const said = [r.text, ...adr.quotes.map((q) => q.text)].join('\n');
    assert.ok(said.includes('Projections are rebuilt from the event log whenever the service starts, because'), r.text);
    assert.ok(said.includes('Projections stored in the database drifted from the events after every failed migration'), r.text);
  });
});
