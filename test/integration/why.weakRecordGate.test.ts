import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A decision record reached only weakly (its name is shared by two classes)
 * is quoted when one of its best sentences explains, not only when the very
 * best does: the sentence that ties it to the code ("… [Timestamp] lists
 * snapshot only in a meta dictionary") explains nothing, and the record was
 * shown as merely naming the symbol, its reasons unquoted (python-tuf's
 * ADR-0009, whose needed sentences were the fitted ranker's first three).
 */

describe('why_is_this: a weakly reached record whose best-tied sentence explains nothing', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'tuf/api/payload.py': ['class Timestamp:', '    """The timestamp role\'s metadata."""', '', '    def __init__(self, snapshot_meta):', '        self.snapshot_meta = snapshot_meta', ''].join('\n'),
      'tuf/legacy/roles.py': ['class Timestamp:', '    def __init__(self, meta):', '        self.meta = meta', ''].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': decisionRecord(1, 'Record architecture decisions', { Decision: 'We record the architecture decisions of this project in these files, one decision a file.' }),
      'docs/adr/0002-what-is-a-reference-implementation.md': [
        '# Primary purpose of the reference implementation',
        '',
        '* Status: accepted',
        '',
        '## Context and Problem Statement',
        '',
        'The first goal of the rewrite was an implementation that helps readers understand the specification and that other implementations can copy.',
        '',
        'While reworking the metadata library, several points of friction came up where a safe object API maps less directly to the file formats.',
        '',
        'The typical friction point is that [Timestamp] lists the snapshot only in a `meta` dictionary of paths to attributes.',
        'That dictionary only ever holds one value and adds a level of indirection for implementations that follow the file format.',
        '',
        'Other entries of the specification show the same pattern.',
        '',
        'So far the code has leaned towards a simple and safe API, but this is unsatisfying because:',
        '* the API holds traps for unsuspecting users',
        '* two code paths for one goal tend to behave inconsistently',
        '',
        'Therefore, we would like to define our primary purpose so that we can make consistent decisions.',
        '',
        '## Decision Outcome',
        '',
        'Chosen option: the reference implementation is primarily an exemplary reference.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes the record, weak, with a sentence that explains', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'tuf/api/payload.py:1' });
    const data = r.data as { documents: { where?: string; tier: string; gives: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0002-what-is-a-reference-implementation.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.equal(adr.gives, 'reason', r.text);
    assert.ok(adr.quotes.some((q) => /only ever holds one value|so that we can make consistent decisions/.test(q.text)), r.text);
    assert.match(r.text.split('\n')[0]!, /^Why: no recorded reason names payload\.Timestamp itself; the closest, weak/);
  });
});
