import * as assert from 'node:assert/strict';
import { chooseFocus } from '../../src/core/compose/ask';
import type { ConceptLink } from '../../src/core/compose/link';

/* Which symbols ask answers about: what the question names as an identifier comes before what its phrases link to. */

function link(qname: string, tier: ConceptLink['tier'], path: string, identifier = false): ConceptLink {
  const name = qname.split('.').pop()!;
  return { symbol: { id: 1, sid: `ts \`${path}\`/${qname}`, name, qname, kind: qname.includes('.') ? 'method' : 'class', path, line: 1 }, tier, phrase: qname, why: 'test', score: 1, ...(identifier ? { identifier: true } : {}) };
}

describe('ask: the subject of a question', () => {
  it('an identifier the question writes (`GuStack.overrideLogicalId`) is the subject before its class, which the phrases linked exact too', () => {
    const cls = link('GuStack', 'exact', 'src/stack.ts');
    const method = link('GuStack.overrideLogicalId', 'exact', 'src/stack.ts', true);
    const focus = chooseFocus({ links: [cls, method], missing: [] });
    assert.equal(focus[0]!.symbol.qname, 'GuStack.overrideLogicalId');
    // The class is still answered about, after it (it was dropped before as covering its member).
    assert.deepEqual(focus.map((f) => f.symbol.qname), ['GuStack.overrideLogicalId', 'GuStack']);
  });

  it('an identifier naming several symbols (weak) still comes before a strong phrase link; without identifiers, tiers decide', () => {
    const phrase = link('GuStackProps.withoutTags', 'strong', 'src/props.ts');
    const a = link('TrackingTag', 'weak', 'src/constants/tracking-tag.ts', true);
    assert.equal(chooseFocus({ links: [phrase, a], missing: [] })[0]!.symbol.qname, 'TrackingTag');
    assert.equal(chooseFocus({ links: [link('A', 'weak', 'a.ts'), link('B', 'strong', 'b.ts')], missing: [] })[0]!.symbol.qname, 'B');
  });

  it('when the question names an identifier that is not in the index, no weak link becomes the subject', () => {
    assert.deepEqual(chooseFocus({ links: [link('Nearby', 'weak', 'n.ts')], missing: ['GuNothing'] }), []);
  });
});
