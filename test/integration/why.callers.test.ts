import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * Why the code calls a function, and not its neighbour, is often written
 * only where it calls it: contour's Gateway API processor says "Use
 * LookupTLSSecretInsecure instead of LookupTLSSecret since Gateway API uses
 * its own mechanism …" over the one call, and the method's own doc comment
 * only says what it does. A comment on a call's line or just above it that
 * names the function is a source about it, strong; a comment there that names
 * nothing, a comment in a test, and a name too plain to be named are not.
 */

/** The tool's answer, as far as these tests read it. */
type Data = { documents: { title: string; where?: string; tier: string; how: string; quotes: { text: string }[] }[] };

describe('why_is_this: the comment its caller writes at a call of it', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/secrets.ts': [
        'export class SecretCache {',
        '  /** Returns the secret, if its namespace delegates it. */',
        '  lookupDelegated(name: string): string | undefined {',
        '    return name;',
        '  }',
        '  /** Returns the secret, whatever delegates it. */',
        '  lookupInsecure(name: string): string {',
        '    return name;',
        '  }',
        '  run(): void {}',
        '}',
        '',
      ].join('\n'),
      'src/gateway.ts': [
        "import { SecretCache } from './secrets';",
        '',
        'export function listenerSecret(cache: SecretCache, name: string): string {',
        '  // Use lookupInsecure instead of lookupDelegated since the gateway grants access to secrets',
        '  // across namespaces by its own mechanism, not by delegation.',
        '  const secret = cache.lookupInsecure(name);',
        '  // run it now, since the first request must not wait for the refresh.',
        '  cache.run();',
        '  return secret;',
        '}',
        '',
        'export function retryLookup(cache: SecretCache, name: string, left: number): string {',
        '  // retryLookup again while attempts are left, because the cache may still be warming up.',
        '  return left > 0 ? retryLookup(cache, name, left - 1) : name;',
        '}',
        '',
        'export function routeSecret(cache: SecretCache, name: string): string | undefined {',
        '  // Routes keep the delegation check, since their owners are tenants.',
        '  return cache.lookupDelegated(name);',
        '}',
        '',
        '/** lookupInsecure for the admin routes, which must see every secret because admins manage all namespaces. */',
        'export function lookupInsecure(cache: SecretCache, name: string): string { return cache.lookupInsecure(name); }',
        '',
      ].join('\n'),
      'src/gateway.test.ts': [
        "import { SecretCache } from './secrets';",
        '',
        'export function testLookupDelegated(): void {',
        '  // lookupDelegated returns nothing for a secret no namespace delegates, because the test has none.',
        "  new SecretCache().lookupDelegated('absent');",
        '}',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes the reason a caller gives over its call, strong, saying where the call is', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'SecretCache.lookupInsecure' });
    // The wrapper's doc comment names it too, but it is the wrapper's own: above its declaration, not at the call.
    const atCalls = (r.data as Data).documents.filter((d) => d.title.startsWith('comment at its call'));
    assert.equal(atCalls.length, 1, r.text);
    const doc = atCalls[0]!;
    assert.equal(doc.title, 'comment at its call in listenerSecret');
    assert.equal(doc.tier, 'strong');
    assert.match(doc.how, /a comment at its call in listenerSecret \(src\/gateway\.ts:6\) names it/);
    assert.ok(doc.quotes.some((q) => q.text.includes('since the gateway grants access to secrets across namespaces by its own mechanism')), r.text);
    assert.match(r.text.split('\n')[0]!, /since the gateway grants access to secrets/);
  });

  it('takes no comment that does not name it, none in a test, and none for a plain name', async () => {
    const delegated = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'SecretCache.lookupDelegated' });
    // The route's comment explains its own call but does not name the method; the test's comment names it.
    assert.ok(!(delegated.data as Data).documents.some((d) => d.title.startsWith('comment at its call')), delegated.text);
    const run = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'SecretCache.run' });
    assert.ok(!(run.data as Data).documents.some((d) => d.title.startsWith('comment at its call')), run.text);
  });

  it('reads a comment at a call of itself once, as a comment in its own body', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'retryLookup' });
    const titles = (r.data as Data).documents.map((d) => d.title);
    assert.ok(!titles.some((t) => t.startsWith('comment at its call')), r.text);
    assert.equal((r.data as Data).documents.filter((d) => d.quotes.some((q) => q.text.includes('may still be warming up'))).length, 1, r.text);
  });
});
