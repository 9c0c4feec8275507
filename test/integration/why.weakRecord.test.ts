import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A design reached only weakly (by the words of the symbol's name) often
 * gives its reason in sentences that do not name the symbol, and names it
 * only in a list ("Special override macros were changed"). The hand-set
 * score, which weighs the tie to the name, finds no reason there; the
 * fitted ranker's two most likely sentences are quoted, weak — never as a
 * reason of the symbol itself. Two, not one: a record's context and its
 * decision are rarely the same sentence.
 */

describe('why_is_this: the reason in a design reached only weakly', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'core/parser/partial.py': ['special_override_macros = [', '    "ref",', '    "source",', '    "config",', ']', ''].join('\n'),
      'docs/design/partial-parsing.md': [
        '# Partial parsing',
        '',
        '## Context',
        '',
        'Parsing a large project takes minutes, and most runs change only a few files.',
        'Certain macros have global effects that make incremental updates unsafe.',
        'If a macro file containing any of these is changed or deleted, the parser abandons partial parsing and parses everything again.',
        '',
        '## When partial parsing is skipped',
        '',
        '- Special override macros were changed',
        '- The project configuration changed',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes the design\'s most likely reason, at weak, and does not lead with it as the symbol\'s own', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'special_override_macros' });
    const data = r.data as { documents: { where?: string; tier: string; quotes: { text: string }[] }[] };
    const design = data.documents.find((d) => d.where === 'docs/design/partial-parsing.md');
    assert.ok(design, r.text);
    assert.equal(design.tier, 'weak');
    assert.ok(design.quotes.length >= 1, r.text);
    assert.ok(!/gives no reason/.test(r.text.split('\n').find((l) => l.includes('docs/design/partial-parsing.md')) ?? ''), r.text);
    assert.match(r.text.split('\n')[0]!, /^Why: no recorded reason names .*special_override_macros itself; the closest, weak/, r.text.split('\n')[0]);
  });
});

describe('why_is_this: a record reached weakly, whose sentences do not name the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/projections/cache.ts': ['export class ReadModelCache {', '  private readonly rows = new Map<string, string>();', '  size(): number {', '    return this.rows.size;', '  }', '}', ''].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': decisionRecord(1, 'Record architecture decisions', { Decision: 'We record the architecture decisions of this project in these files, one decision a file.' }),
      'docs/adr/0002-rebuild-read-models.md': decisionRecord(2, 'Rebuild read models at start-up', {
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
