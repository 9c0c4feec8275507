import * as assert from 'node:assert/strict';
import { isDistinctiveValue } from '../../src/core/knowledge/why';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A design often speaks of a constant by its value, not its name: xarray's
 * Zarr encoding spec explains `_ARRAY_DIMENSIONS`, the attribute on disk,
 * and the code holds it in DIMENSION_KEY. A document that names a
 * distinctive string value is reached, weakly; a common value (a content
 * type many documents name) or a plain word reaches nothing.
 */

const design = (title: string, body: string) => [`# ${title}`, '', '## Context', '', body, ''].join('\n');

describe('why_is_this: a document that names the constant\'s value, not its name', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/trace.ts': [
        "export const TRACE_HEADER = 'x-settlement-trace';",
        "export const JSON_TYPE = 'application/json';",
        "export const STATE = 'reconciling';",
        '',
      ].join('\n'),
      'docs/design/tracing.md': design(
        'Tracing settlements across the gateway',
        'Every request carries the `x-settlement-trace` header, because the gateway drops its own request ids and a failed batch could not be followed from the bank back to us.',
      ),
      ...Object.fromEntries(
        [1, 2, 3, 4].map((n) => [`docs/design/api-${n}.md`, design(`API note ${n}`, `Responses of endpoint ${n} are sent as application/json, since every client reads it.`)]),
      ),
      'docs/design/states.md': design('Batch states', 'A batch is reconciling while the bank has not confirmed it, since confirmations arrive late.'),
    });
  });
  after(() => fx.close());

  type Data = { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };

  it('reaches the design that names the value, weakly, says so, and quotes its reason', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'TRACE_HEADER' });
    const doc = (r.data as Data).documents.find((d) => d.where === 'docs/design/tracing.md');
    assert.ok(doc, r.text);
    assert.equal(doc.tier, 'weak');
    assert.equal(doc.how, 'names its value `x-settlement-trace` — verify');
    assert.ok(doc.quotes.some((q) => q.text.includes('because the gateway drops its own request ids')), r.text);
  });

  it('reaches nothing by a value many documents name, or by a plain word', async () => {
    for (const symbol of ['JSON_TYPE', 'STATE']) {
      const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol });
      assert.ok(!(r.data as Data).documents.some((d) => d.where?.startsWith('docs/design/')), r.text);
    }
  });

  it('counts as distinctive a value that reads as an identifier, not a word', () => {
    for (const v of ['_ARRAY_DIMENSIONS', 'karpenter.sh/do-not-disrupt', 'x-request-id', 'nodepoolHash']) assert.equal(isDistinctiveValue(v), true, v);
    for (const v of ['default', 'reconciling', 'a b c d e f', 'x-y', '--------', '_private']) assert.equal(isDistinctiveValue(v), false, v);
  });
});
