import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A source's heading says each thing once: a record's number is its handle
 * (ADR-0003), and a title its file's name already says is left out. The
 * reStructuredText record's title is its first section's, whatever
 * character underlines it.
 */

describe('why_is_this: source headings say each thing once', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'filters/pipeline.py': 'def run_pipeline(steps):\n    return [s() for s in steps]\n',
      'docs/decisions/0003-filter-pipeline.rst': [
        '3. Filter pipeline',
        '##################',
        '',
        'Decision',
        '========',
        '',
        'We use ``run_pipeline`` for every filter, because each step must see the output of the step before it.',
        '',
      ].join('\n'),
      'docs/decisions/0004-order.rst': [
        '4. Keep the order of the steps',
        '******************************',
        '',
        'Decision',
        '========',
        '',
        '``run_pipeline`` runs the steps in the order they are configured, since a later step may undo an earlier one.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('leaves out a numbered title its file name says, and keeps one that says more, without its number', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'run_pipeline' });
    const headings = r.text.split('\n').filter((l) => l.startsWith('decision — '));
    assert.ok(headings.some((h) => h.startsWith('decision — ADR-0003 docs/decisions/0003-filter-pipeline.rst [exact')), r.text);
    assert.ok(headings.some((h) => h.startsWith('decision — ADR-0004 "Keep the order of the steps" docs/decisions/0004-order.rst [exact')), r.text);
    // The structured answer keeps each record's title as written.
    const data = r.data as { documents: { where?: string; title: string }[] };
    assert.equal(data.documents.find((d) => d.where === 'docs/decisions/0003-filter-pipeline.rst')?.title, '3. Filter pipeline');
  });
});
