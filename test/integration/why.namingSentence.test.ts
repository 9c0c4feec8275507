import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A decision record about the symbol ties itself to the code in the
 * sentence that writes the symbol's name; its reasons are often in other
 * sentences, which do not. The fitted ranker weighs how much a sentence
 * explains, and had put the naming sentence ("We introduce a new API:
 * `AttachmentReferenceSource` …") last of the record's sentences: an agent
 * read ten sentences on garbage collection and none that says which code
 * they concern. It is quoted second at the latest.
 */

describe('why_is_this: the sentence of a record that names the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/blobs/AttachmentReferenceSource.java': [
        'package blobs;',
        '',
        'public interface AttachmentReferenceSource {',
        '    Iterable<String> referencedBlobIds();',
        '}',
        '',
      ].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': decisionRecord(1, 'Record architecture decisions', { Decision: 'We record the architecture decisions of this project in these files, one decision a file.' }),
      'docs/adr/0002-collect-unreferenced-blobs.md': decisionRecord(2, 'Collect unreferenced blobs with a probabilistic filter', {
        Context: [
          'Attachments are stored once per content, because identical files are sent to many recipients and storage costs grew every month.',
          'Since one stored blob can be shared, deleting it is only safe when no message refers to it any more, which the store cannot tell by itself.',
          'A reference count was tried first, but it drifted after every crash during delivery and left blobs that could never be removed.',
        ].join(' '),
        Decision: [
          'We introduce a new API: `AttachmentReferenceSource` listing the blob identifiers an entity still refers to.',
          'A collection run builds a probabilistic filter from every listed identifier, because the full set does not fit in memory on large deployments.',
          'Blobs absent from the filter are deleted, since the filter never misses an identifier that was added to it.',
          'A false positive only delays a deletion, so a fresh salt is chosen on every run to make sure each unreferenced blob is eventually removed.',
          'Blobs written during a run are kept until the next one, to avoid deleting content whose reference is not yet stored.',
        ].join(' '),
        Consequences: [
          'Storage shrinks after each run instead of growing without bound, because unreferenced content no longer accumulates.',
          'Every kind of entity that keeps attachments must list its references, or its blobs would be collected while still in use.',
        ].join(' '),
      }),
    });
  });
  after(() => fx.close());

  it('quotes the sentence that names it among the record\'s first two', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'AttachmentReferenceSource' });
    const data = r.data as { documents: { where?: string; tier: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0002-collect-unreferenced-blobs.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'exact');
    const firstTwo = adr.quotes.slice(0, 2).map((q) => q.text);
    assert.ok(firstTwo.some((q) => q.includes('We introduce a new API: `AttachmentReferenceSource`')), `${firstTwo.join('\n')}\n---\n${r.text}`);
    // The record's reasons are still quoted beside it.
    assert.ok(adr.quotes.length >= 3, r.text);
  });
});
