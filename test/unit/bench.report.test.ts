import * as assert from 'node:assert/strict';
import { GENERATED_END, withKeptSections } from '../../bench/stats';

// `npm run bench` rewrites docs/benchmarks.md: the dated sections written by hand below its table are measurements nobody can re-take, so a run must keep them.
describe('benchmarks.md: the generated part is replaced, the hand-written sections kept', () => {
  const table = '# Benchmarks\n\n| Corpus | Measurement | Result | Target |\n|---|---|---|---|\n| Django | full index | **3.1 s** | < 3 s ✗ |\n';
  const handWritten = '## Scale (issue 15), 2026-12-02\n\n| corpus | result |\n|---|---|\n| 16,000 files | 199.9 s |\n';

  it('keeps what follows the end marker and replaces what precedes it', () => {
    const before = `# Benchmarks\n\n| old | table | row | |\n\n${GENERATED_END}\n\n${handWritten}`;
    const after = withKeptSections(table, before);
    assert.ok(after.startsWith(table.trimEnd()), 'the new table comes first');
    assert.ok(!after.includes('| old | table |'), 'the old table is gone');
    assert.ok(after.endsWith(handWritten), 'the hand-written section is kept whole');
    assert.equal(after.split(GENERATED_END).length, 2, 'one marker');
    // A second run over its own output changes nothing but the table.
    assert.equal(withKeptSections(table, after), after);
  });

  it('keeps the second-level sections of a file written before the marker existed', () => {
    const after = withKeptSections(table, `# Benchmarks\n\n| old | table | row | |\n\n${handWritten}`);
    assert.ok(after.endsWith(handWritten));
    assert.ok(after.includes(GENERATED_END));
    assert.ok(!after.includes('| old | table |'));
  });

  it('writes the table and the marker when there was no file', () => {
    assert.equal(withKeptSections(table, ''), `${table.trimEnd()}\n\n${GENERATED_END}\n`);
  });
});
