import * as assert from 'node:assert/strict';
import { candidates, onlyDescribes, rankSentences, tieMatcher } from '../../src/core/knowledge/reasons.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis.js';
import { indexedFiles, type FilledExample } from '../helpers/example.js';

/* A comment of the code that only says what the symbol is names it; it is not a reason for it, and the answer says "no recorded reason". */

describe('a code comment that only describes its symbol', () => {
  it('is a description when the name is its subject and no clause says why', () => {
    const names = ['types.MaxDenoms', 'MaxDenoms'];
    assert.equal(onlyDescribes('MaxDenoms corresponds to the maximum number of reward denoms a consumer chain can allowlist', names), true);
    assert.equal(onlyDescribes('`MaxDenoms` returns the denoms of a chain.', names), true);
    // A cause, a purpose, or a limit with its number is a reason, whatever the subject.
    assert.equal(onlyDescribes('MaxDenoms is three so that a chain cannot flood the reward pool.', names), false);
    assert.equal(onlyDescribes('MaxDenoms allows at most 3 denoms per chain.', names), false);
    assert.equal(onlyDescribes('MaxDenoms must stay below the limit, otherwise the end blocker runs out of gas.', names), false);
    // Another subject, or a longer name that merely starts with it, is not a description of this symbol.
    assert.equal(onlyDescribes('The reward pool holds at most the denoms a chain allowlists.', names), false);
    assert.equal(onlyDescribes('MaxDenomsPerBlock corresponds to the number of denoms per block.', names), false);
  });

  it('"…, false otherwise" at the end of a description is no consequence; "otherwise chunks will not …" is', () => {
    assert.equal(onlyDescribes('IsCaughtUp returns true if this node is caught up, false - otherwise.', ['IsCaughtUp']), true);
    const ex = (x: string) => rankSentences(candidates(x), () => ({ tie: 0 }))[0]!.explains;
    assert.ok(ex('The message must consist of single-byte characters, otherwise chunks will not be capped.') > ex('The pool returns true if this node is caught up, false otherwise.') + 0.3);
  });

  it("the symbol's own comment is about it: a causal sentence in its body that names nothing outscores the same sentence in a document about it", () => {
    const match = tieMatcher({ names: ['IsCaughtUp'], phrases: [], values: [], places: [], neighbours: [] });
    const body = candidates('Note we use maxPeerHeight - 1 because to sync block H requires block H+1 to verify the LastCommit.');
    const own = rankSentences(body, match, { focused: true, own: true })[0]!.score;
    const focused = rankSentences(body, match, { focused: true })[0]!.score;
    assert.ok(own > focused * 1.3, `${own} vs ${focused}`);
  });

  it('a decision record that reaches the symbol only weakly lends its Decision sentences a little of the tie, less than one that names it', () => {
    const doc = ['# Inflation', '', '## Context', '', 'CalculateBlockProvision returns the coins minted for one block of the chain.', '', '## Decision', '', 'We compute the schedule from block timestamps so that a change of the block interval keeps the yearly total.', ''].join('\n');
    const match = tieMatcher({ names: ['CalculateBlockProvision'], phrases: [], values: [], places: [], neighbours: [] });
    const score = (o: Parameters<typeof rankSentences>[2]) => rankSentences(candidates(doc), match, o).find((s) => s.section === 'decision')!.score;
    assert.ok(score({ weaklyAbout: true }) > score({}) * 1.5);
    assert.ok(score({ aboutIt: true }) > score({ weaklyAbout: true }) * 1.5);
  });

  describe('in an answer', function () {
    this.timeout(120_000);
    let fx: FilledExample;

    before(async () => {
      fx = await indexedFiles({
        'src/limits.ts': [
          '/** MAX_DENOMS corresponds to the maximum number of reward denoms a consumer chain can allowlist. */',
          'export const MAX_DENOMS = 3;',
          '',
          '/** RETRY_LIMIT is three so that a duplicate payment stays recallable within the gateway window. */',
          'export const RETRY_LIMIT = 3;',
          '',
        ].join('\n'),
      });
    });
    after(() => fx.close());

    it('says "no recorded reason" first for the described constant, and quotes the reason of the explained one', async () => {
      const described = await resolveOneSymbol(fx.ws.db, 'MAX_DENOMS', { root: fx.ws.root });
      const a = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: described.sid });
      assert.match(a.text.split('\n')[0]!, /^Why: no recorded reason/);
      assert.equal((a.data as { why: { found: boolean } }).why.found, false);
      const explained = await resolveOneSymbol(fx.ws.db, 'RETRY_LIMIT', { root: fx.ws.root });
      const b = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: explained.sid });
      assert.equal((b.data as { why: { found: boolean } }).why.found, true);
      assert.match(b.text.split('\n')[0]!, /so that a duplicate payment stays recallable/);
    });
  });
});
