import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedRepo, whyOf, type FilledExample } from '../helpers/example';
import { write } from '../helpers/fixtures';

/*
 * Sources are ranked by how likely their best sentence is a reason, by the
 * fitted sentence ranker, not by the hand-set score of a sentence's tie to
 * the name: a decision record reached weakly (its class's name is shared
 * with another) ties little and explains most, and it stood behind every
 * commit that last changed the class and says why in one line, and was cut
 * from the answer for its budget (edx-toggles' ADR on toggle state reports,
 * fifth of ten sources). Real git, a real repository.
 */
describe('why_is_this: a weakly reached record that explains, beside the commits that last changed the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async function () {
    fx = await knowledgeIndexedRepo(this, 'tenure-why-likelihood-', (git, root) => {
      write(
        root,
        'docs/decisions/0002-environment-visibility.md',
        [
          '# 2. Reports of toggle states',
          '',
          '## Status',
          '',
          'Accepted',
          '',
          '## Context',
          '',
          'Operators could not tell which toggles were on in each environment without reading the database of every service.',
          '',
          'A toggle that stays on for months after its rollout is dead code that nobody dares to remove.',
          '',
          '## Decision',
          '',
          'The `ToggleStateReport` lists every toggle with its state and the date it was last changed.',
          '',
          'Reports are generated from the code annotations rather than from the database, so that a toggle defined but never set still appears.',
          '',
          '## Consequences',
          '',
          'Stale toggles become visible in review, which lets teams remove them before they rot.',
          '',
        ].join('\n'),
      );
      write(root, 'legacy/report.py', ['class ToggleStateReport:', '    def rows(self):', '        return []', ''].join('\n'));
      write(root, 'toggles/report.py', ['class ToggleStateReport:', '    def rows(self):', '        return []', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Add the toggle state report and its decision record');
      // Each commit adds a method, so that each keeps lines of the class (git blame), and says why in its message.
      const methods: [string, string][] = [
        ['    def header(self):\n        return "name,state"', 'ToggleStateReport: add a header row, because spreadsheets read the first row as column names'],
        ['    def width(self):\n        return 2', 'ToggleStateReport: add the number of columns, so that the CSV writer can pad short rows'],
        ['    def title(self):\n        return "Toggles"', 'ToggleStateReport: add a title, because the admin page shows several reports'],
        ['    def empty(self):\n        return not self.rows()', 'ToggleStateReport: say when it is empty, so that the page can show a hint instead of a blank table'],
      ];
      const body = ['class ToggleStateReport:', '    def rows(self):', '        return []'];
      for (const [method, message] of methods) {
        body.push('', method);
        write(root, 'toggles/report.py', [...body, ''].join('\n'));
        git('add', '-A');
        git('commit', '-qm', message);
      }
    });
  });
  after(() => fx?.close());

  it('ranks the record before all but the first commit, and quotes its reason in the answer', async () => {
    const r = await whyOf(fx, 'toggles/report.py:1');
    const order = r.items.map((i) => `${i.document.path ?? i.document.ref ?? i.document.title} (${i.category}, ${i.tier}${i.reasons.length ? ', gives a reason' : ''})`);
    const record = r.items.findIndex((i) => i.document.path === 'docs/decisions/0002-environment-visibility.md');
    assert.ok(record >= 0, `reached: ${order.join(', ')}`);
    assert.equal(r.items[record]!.tier, 'weak', 'a name two classes share links weakly');
    assert.ok(r.items[record]!.reasons.length > 0, 'the record gives a reason');
    const commits = r.items.map((i, k) => ({ i, k })).filter(({ i }) => i.category === 'commit' && i.reasons.length);
    assert.ok(commits.length >= 2, `commits with reasons: ${order.join(', ')}`);
    assert.ok(record < commits[1]!.k, `the record before the second commit: ${order.join(', ')}`);
    // The answer an agent reads, cut to its budget, quotes the record's reason.
    const answer = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'toggles/report.py:1' });
    assert.match(answer.text, /docs\/decisions\/0002-environment-visibility\.md \[weak/, answer.text);
    assert.match(answer.text, /generated from the code annotations rather than from the database, so that a toggle defined but never set still appears/, answer.text);
  });
});
