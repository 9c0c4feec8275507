import * as assert from 'node:assert/strict';
import { subjectWords } from '../../src/core/knowledge/why';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { designDoc as design, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A design is often filed under the name of what it designs: rook's
 * design/ceph/ceph-exporter.md is the reason for createOrUpdateCephExporter,
 * though it never writes the function's name. A document whose file name is
 * the words of what the symbol is about (less a leading action, less a
 * record's number) is about it, strong; a file named for one word is named
 * for many things and reaches nothing by its name.
 */

/** The tool's answer, as far as these tests read it. */
type Data = { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };

describe('why_is_this: a document named for the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/exporter.ts': [
        'export function createOrUpdateMetricsExporter(node: string): string {',
        '  return node;',
        '}',
        '',
        'export function getCache(key: string): string {',
        '  return key;',
        '}',
        '',
      ].join('\n'),
      'docs/design/metrics-exporter.md': design(
        'A daemon per node for metrics',
        'Collecting metrics from the manager alone was too slow on large clusters, because every daemon answered through one process; a daemon on each node reads them locally instead.',
      ),
      'docs/design/0007-cache.md': design('Caching', 'Entries are kept for a minute, since the upstream rate-limits us.'),
    });
  });
  after(() => fx.close());

  it('reaches the document filed under its subject, strong, and quotes its reason', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'createOrUpdateMetricsExporter' });
    const doc = (r.data as Data).documents.find((d) => d.where === 'docs/design/metrics-exporter.md');
    assert.ok(doc, r.text);
    assert.equal(doc.tier, 'strong');
    assert.equal(doc.how, 'its file is named for it: metrics-exporter.md is metrics exporter');
    assert.ok(doc.quotes.some((q) => q.text.includes('because every daemon answered through one process')), r.text);
  });

  it('reaches nothing by a file named for one word', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'getCache' });
    assert.ok(!(r.data as Data).documents.some((d) => d.where === 'docs/design/0007-cache.md' && d.tier === 'strong'), r.text);
  });

  it('takes the subject of a name as its words less the actions it begins with', () => {
    assert.deepEqual(subjectWords('createOrUpdateCephExporter'), ['ceph', 'exporter']);
    assert.deepEqual(subjectWords('ADWriterFactory'), ['ad', 'writer', 'factory']);
    assert.deepEqual(subjectWords('getIdempotencyKey'), ['idempotency', 'key']);
    assert.deepEqual(subjectWords('update'), ['update']);
  });
});
