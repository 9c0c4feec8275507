import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A record that writes a symbol's name in other letter case: `GuEC2App` for
 * the class GuEc2App is the class (strong, not exact: a document may mean
 * something else spelled alike). `ShadowDOM` for the flag function shadowDOM
 * differs only in its first letter, which in most languages makes another
 * kind of thing — a type, a component, a concept (here the technology) — so
 * it stays weak, to verify.
 */
describe('why_is_this: the name in other letter case', function () {
  this.timeout(120_000);
  let fx: FilledExample;
  type Documents = { documents: { where?: string; tier: string; how: string }[] };

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/stack.ts': ['export class GuEc2App {', '  readonly port = 3000;', '}', '', 'export function shadowDOM(): boolean {', '  return false;', '}', ''].join('\n'),
      'docs/adr/0002-apps.md': ['# Apps', '', '## Decision', '', 'Every service is a GuEC2App, because the pattern sets up its load balancer and alarms.', ''].join('\n'),
      'docs/adr/0003-browser-support.md': ['# Browser support', '', '## Decision', '', 'Support for ShadowDOM stays experimental, because focus management across shadow roots is unfinished.', ''].join('\n'),
    });
  });
  after(() => fx.close());

  it('links a record writing the name in other letter case strong', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'GuEc2App' });
    const adr = (r.data as Documents).documents.find((d) => d.where === 'docs/adr/0002-apps.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'strong');
    assert.equal(adr.how, 'names `GuEC2App`, its name in other letter case; one symbol has the name GuEc2App');
  });

  it('links a record writing it with another first letter weak, and says why', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'shadowDOM' });
    const adr = (r.data as Documents).documents.find((d) => d.where === 'docs/adr/0003-browser-support.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    // Reached first through the knowledge graph (the entity "ShadowDOM"), weak; the name search no longer makes it strong.
    assert.match(adr.how, /ShadowDOM.* — verify$/);
    assert.doesNotMatch(adr.how, /other letter case/);
  });
});
