import * as assert from 'node:assert/strict';
import { isDistinctiveValue } from '../../src/core/knowledge/why';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { designDoc as design, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A design often speaks of a constant by its value, not its name: xarray's
 * Zarr encoding spec explains `_ARRAY_DIMENSIONS`, the attribute on disk,
 * and the code holds it in DIMENSION_KEY. A document that names a
 * distinctive string value is reached, weakly; a common value (a content
 * type many documents name) or a plain word reaches nothing.
 */

/** The tool's answer, as far as these tests read it. */
type Data = { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };

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

/*
 * A helper that reads a setting by the name its caller gives it
 * (`_get_mode_value_from_envvar("SAM_BUILD_MODE", choices=["debug"])` in
 * aws-sam-cli) is about that setting, and the design speaks of the setting:
 * the literals its callers pass reach the documents that name them, weakly,
 * saying where the caller passes it. A utility called from many places
 * reaches nothing by its arguments.
 */
describe('why_is_this: a document that names what its callers pass the function', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'app/__init__.py': '',
      'app/settings.py': [
        'import os',
        '',
        '',
        'def mode_from_env(name, choices):',
        '    value = os.environ.get(name)',
        '    return value if value in choices else None',
        '',
        '',
        'def lookup(key):',
        '    return os.environ.get(key)',
        '',
      ].join('\n'),
      'app/build.py': [
        'from app.settings import lookup, mode_from_env',
        '',
        '',
        'def build():',
        '    mode = mode_from_env(',
        '        "APP_BUILD_MODE", choices=["debug"]',
        '    )',
        '    return mode',
        '',
        '',
        ...Array.from({ length: 13 }, (_, k) => `def read_${k}():\n    return lookup("APP_KEY_${k}")\n\n`),
      ].join('\n'),
      'docs/design/debug-builds.md': design(
        'Debuggable builds',
        'The IDE sets `APP_BUILD_MODE` when it builds for debugging, because a flag on the command line would be rarely used and easily forgotten.',
      ),
      'docs/design/keys.md': design('Keys', 'The `APP_KEY_3` key is read at start, because the gateway needs it before the first request.'),
    });
  });
  after(() => fx.close());

  it('reaches the design that names the literal its caller passes, weakly, and says where it is passed', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'mode_from_env' });
    const doc = (r.data as Data).documents.find((d) => d.where === 'docs/design/debug-builds.md');
    assert.ok(doc, r.text);
    assert.equal(doc.tier, 'weak');
    assert.equal(doc.how, 'names `APP_BUILD_MODE`, which its caller passes it at app/build.py:5 — verify');
    assert.ok(doc.quotes.some((q) => q.text.includes('because a flag on the command line would be rarely used')), r.text);
  });

  it('reaches nothing by the arguments of a utility called from many places', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'lookup' });
    assert.ok(!(r.data as Data).documents.some((d) => d.where === 'docs/design/keys.md'), r.text);
  });
});
