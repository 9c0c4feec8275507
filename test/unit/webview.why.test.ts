import * as assert from 'node:assert/strict';
import { answerAbout } from '../../src/core/compose/ask.js';
import { systemClock } from '../../src/core/episodic/clock.js';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { answerOf, conclusionWords, rationaleOf, sharedRationales } from '../../src/webview/whyModel.js';
import { filledExample, type FilledExample } from '../helpers/example.js';

/* What the "Why is this?" panel says first and what it folds, on the settlement example with its four memories filled. */

describe('"Why is this?" panel model (examples/settlement, four memories)', function () {
  this.timeout(180_000);
  let ex: FilledExample;

  before(async () => {
    ex = await filledExample({ episodes: true, knowledge: true });
  });
  after(async () => {
    await ex.close();
  });

  it('answers first with the recorded reason, quoted from its source, with its link tier', async () => {
    const target = await resolveOneSymbol(ex.ws.db, 'SettlementService.retry', { root: ex.ws.root });
    const v = await answerAbout(ex.ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
    const a = answerOf(v.knowledge.data);
    assert.ok(a, 'an answer');
    // The lead reason the knowledge memory chose, not a summary of Tenure's own words.
    assert.equal(a.quote.quote, v.knowledge.data!.lead!.quote.quote);
    assert.ok(a.quote.document.path || a.quote.url, 'the quote has a source to open');
    assert.ok(['exact', 'strong', 'weak', 'unresolved'].includes(a.tier));
  });

  it('each link rationale is said once, naming every document it ties', async () => {
    const target = await resolveOneSymbol(ex.ws.db, 'SettlementService.retry', { root: ex.ws.root });
    const v = await answerAbout(ex.ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
    const items = v.knowledge.data!.items;
    const shared = sharedRationales(items);
    assert.equal(new Set(shared.map((s) => s.text)).size, shared.length, 'no rationale twice');
    const withRationale = items.filter((i) => rationaleOf(i));
    assert.equal(
      shared.reduce((n, s) => n + s.documents.length, 0),
      withRationale.length,
      'every document with a rationale is named under exactly one',
    );
    assert.ok(shared.length < withRationale.length || withRationale.length <= 1, `the example's documents share rationales: ${shared.length} for ${withRationale.length}`);
  });

  it('a conclusion says its age once, in the panel’s one style, and its confidence then and now', async () => {
    const target = await resolveOneSymbol(ex.ws.db, 'SettlementService.retry', { root: ex.ws.root });
    const v = await answerAbout(ex.ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
    const conclusions = [...v.episodic.data!.entries.flatMap((e) => e.conclusions), ...v.episodic.data!.conclusions];
    assert.ok(conclusions.length, 'the example records conclusions');
    for (const c of conclusions) {
      const w = conclusionWords(c);
      assert.ok(!/after .* ago/.test(w), w);
      assert.ok(w.includes(c.age) && /ago$|just now$/.test(c.age), w);
      assert.match(w, /NOT an outcome/);
      assert.match(w, /confidence \d\.\d\d( when written, \d\.\d\d now)?$/);
    }
  });
});
