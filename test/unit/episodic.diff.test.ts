import * as assert from 'node:assert/strict';
import { diffLines, diffStat, splitLines, unifiedDiff, type Hunk } from '../../src/core/episodic/diff';

/** Applies hunks to the old lines; a correct diff reproduces the new ones. */
function apply(a: string[], b: string[], hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  let i = 0;
  for (const h of hunks) {
    while (i < h.oldStart - 1) out.push(a[i++]!);
    i += h.oldLines;
    out.push(...b.slice(h.newStart - 1, h.newStart - 1 + h.newLines));
  }
  while (i < a.length) out.push(a[i++]!);
  return out;
}

function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) dp[i]![j] = a[i - 1] === b[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
  return dp[a.length]![b.length]!;
}

describe('episodic line diff', () => {
  it('finds the changed, added and removed regions', () => {
    assert.deepEqual(diffLines('a\nb\nc\n', 'a\nB\nc\n'), [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1 }]);
    assert.deepEqual(diffLines('a\nc\n', 'a\nb\nc\n'), [{ oldStart: 2, oldLines: 0, newStart: 2, newLines: 1 }]);
    assert.deepEqual(diffLines('a\nb\nc\n', 'a\nc\n'), [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 0 }]);
    assert.deepEqual(diffLines('', 'x\ny\n'), [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2 }]);
    assert.deepEqual(diffLines('same\n', 'same\n'), []);
    assert.deepEqual(diffLines('a\r\nb\r\n', 'a\nb\n'), [], 'line endings do not count as changes');
  });

  it('is a minimal edit script that reproduces the new text (random property check)', () => {
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: rnd(30) }, () => 'abcde'[rnd(5)]!);
      const b = a.filter(() => rnd(4) !== 0).flatMap((x) => (rnd(5) === 0 ? [x, 'fghij'[rnd(5)]!] : [x]));
      const hunks = diffLines(a, b);
      assert.deepEqual(apply(a, b, hunks), b);
      const { added, removed } = diffStat(hunks);
      const lcs = lcsLength(a, b);
      assert.equal(removed, a.length - lcs, 'no more removals than needed');
      assert.equal(added, b.length - lcs, 'no more additions than needed');
    }
  });

  it('renders a unified diff as git does', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';
    const after = 'one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\n';
    assert.equal(
      unifiedDiff('a/f', 'b/f', before, after),
      ['--- a/f', '+++ b/f', '@@ -1,8 +1,9 @@', ' one', ' two', '-three', '+THREE', ' four', ' five', ' six', ' seven', ' eight', '+nine', ''].join('\n'),
    );
    assert.equal(unifiedDiff('/dev/null', 'b/new', '', 'x\n'), '--- /dev/null\n+++ b/new\n@@ -0,0 +1,1 @@\n+x\n');
    assert.equal(unifiedDiff('a', 'b', 'same\n', 'same\n'), '');
    assert.deepEqual(splitLines('a\nb'), ['a', 'b']);
  });
});
