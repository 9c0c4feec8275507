import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A default's name is its parameter's with "Default" in front (Go's
 * DefaultBlocksPerEpoch for the BlocksPerEpoch param): a decision record that
 * names the parameter holds the default's reason. Found by search, weak: the
 * record may be about the parameter and not its default. (The record's
 * `BlocksPerEpoch` denotes the getter exactly, so only the search reaches the
 * default.)
 */

describe('why_is_this: a document that names the symbol without its prefix', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'types/params.go': 'package types\n\nconst DefaultBlocksPerEpoch = int64(600)\n\ntype Params struct{ epoch int64 }\n\nfunc (p Params) BlocksPerEpoch() int64 { return p.epoch }\n',
      'docs/adr/adr-014-epochs.md': [
        '# ADR 014: Epochs',
        '',
        '## Decision',
        '',
        'We introduce the `BlocksPerEpoch` param that sets the number of blocks in an epoch.',
        'By default, `BlocksPerEpoch` is set to be 600 which corresponds to 1 hour, assuming 6 seconds per block.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('links the record weakly, says by which name, and quotes the sentence with the default', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'DefaultBlocksPerEpoch' });
    const data = r.data as { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/adr-014-epochs.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.equal(adr.how, 'names `BlocksPerEpoch`, its name without "Default" — verify');
    assert.ok(adr.quotes.some((q) => q.text.startsWith('By default, `BlocksPerEpoch` is set to be 600')), r.text);
  });
});
