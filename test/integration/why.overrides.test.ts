import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A method that overrides one of its base class is bound by what is written
 * about that contract: the decision record that names the base method and
 * the base method's doc comment are shown for the override, as about what it
 * overrides (weak for it, never as its own reason). A method of the same name
 * in a class that does not inherit from the base is not an override.
 */

describe('why_is_this: what is written about the method it overrides', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'detectors/__init__.py': '',
      'detectors/logic.py': [
        'class TriggerLogic:',
        '    def default_trigger_info(self):',
        '        """The trigger info used when prepare() was not called since the last stage().',
        '',
        '        Each logic reads the frame count back from its driver, because resetting it to one',
        '        would discard what a preceding fly scan had set."""',
        '        raise NotImplementedError',
        '',
      ].join('\n'),
      'detectors/aravis.py': [
        'from detectors.logic import TriggerLogic',
        '',
        '',
        'class AravisLogic(TriggerLogic):',
        '    def default_trigger_info(self):',
        '        return self.driver.read_frames()',
        '',
      ].join('\n'),
      'detectors/simulated.py': [
        'class SimulatedLogic:',
        '    def default_trigger_info(self):',
        '        return 1',
        '',
      ].join('\n'),
      'docs/adr/0013-preserve-hardware-state.md': [
        '# 13. Preserve hardware state in the implicit trigger',
        '',
        '## Context',
        '',
        'Before every step-scan point the frame count was reset to one on the driver.',
        '',
        '## Decision',
        '',
        '`TriggerLogic.default_trigger_info` reads the current frame count back from the driver instead of resetting it,',
        'because a reset discards what a preceding fly scan left there and surprises users who set it by hand.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  type Doc = { where?: string; title: string; tier: string; relation: string; about?: string; quotes: { text: string }[] };

  it('shows the record about the base method for the override, as about what it overrides, weak', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'AravisLogic.default_trigger_info' });
    const docs = (r.data as { documents: Doc[] }).documents;
    const adr = docs.find((d) => d.where === 'docs/adr/0013-preserve-hardware-state.md');
    assert.ok(adr, r.text);
    assert.equal(adr.relation, 'overrides');
    assert.equal(adr.tier, 'weak');
    assert.match(adr.about ?? '', /^what it overrides, detectors\.logic\.TriggerLogic\.default_trigger_info \(exact\)$/);
    assert.ok(adr.quotes.some((q) => /because a reset discards what a preceding fly scan left there/.test(q.text)), r.text);
    // Not the override's own reason: the first line says none names it, and that the contract it implements has one.
    assert.match(r.text.split('\n')[0]!, /^Why: no recorded reason names detectors\.aravis\.AravisLogic\.default_trigger_info itself; what it overrides, detectors\.logic\.TriggerLogic\.default_trigger_info, has one, weak — verify it holds here: "/, r.text.split('\n')[0]);
  });

  it("quotes the base method's doc comment, titled as the comment of what it overrides", async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'AravisLogic.default_trigger_info' });
    const docs = (r.data as { documents: Doc[] }).documents;
    const comment = docs.find((d) => d.where === 'detectors/logic.py');
    assert.ok(comment, r.text);
    assert.equal(comment.relation, 'overrides');
    assert.equal(comment.tier, 'weak');
    assert.equal(comment.title, 'doc comment of what it overrides, detectors.logic.TriggerLogic.default_trigger_info');
    assert.ok(comment.quotes.some((q) => /resetting it to one would discard what a preceding fly scan had set/.test(q.text)), r.text);
  });

  it('does not take a method of the same name in an unrelated class for an override', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'SimulatedLogic.default_trigger_info' });
    const docs = (r.data as { documents: Doc[] }).documents;
    assert.ok(!docs.some((d) => d.relation === 'overrides'), r.text);
    assert.ok(!docs.some((d) => d.where === 'detectors/logic.py'), r.text);
  });
});
