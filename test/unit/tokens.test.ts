import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { countTokens, withinTokens } from '../../src/shared/tokens';

describe('answer budgets in tokens', () => {
  const texts = [
    'At least 3 dependents within 2 hops (1 direct): 2 callers (2 inferred).',
    'def reverse(viewname, urlconf=None, args=None, kwargs=None, current_app=None):\n    resolver = get_resolver(urlconf)',
    '決済の再試行は三回まで。プロバイダの制限を超えないこと。',
    'retry ✓ ⚠ 🚀 — “quoted” … café naïve',
    '    \n\n\t   ',
    '',
  ];

  it('agrees with the tokenizer at every budget around a text’s count, for ASCII, CJK, symbols and whitespace', () => {
    for (const text of texts) {
      const n = countTokens(text);
      for (const budget of [0, n - 1, n, n + 1, Buffer.byteLength(text, 'utf8')]) {
        if (budget < 0) continue;
        assert.equal(withinTokens(text, budget), n <= budget, `${JSON.stringify(text)} at ${budget} (count ${n})`);
      }
    }
  });

  it('never counts more tokens than UTF-8 bytes, which is what lets a short text skip the count', () => {
    for (const text of texts) assert.ok(countTokens(text) <= Buffer.byteLength(text, 'utf8'), JSON.stringify(text));
  });

  it('does not load the tokenizer for a text shorter in bytes than its budget, and loads it for one that is not', () => {
    const module = path.resolve(__dirname, '../../src/shared/tokens.js');
    const probe = (text: string, budget: number) =>
      execFileSync(
        process.execPath,
        ['-e', `const t = require(${JSON.stringify(module)}); const fits = t.withinTokens(${JSON.stringify(text)}, ${budget}); console.log(JSON.stringify({ fits, loaded: Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer')) }))`],
        { encoding: 'utf8' },
      );
    assert.deepEqual(JSON.parse(probe('No dependents found.', 800)), { fits: true, loaded: false });
    assert.deepEqual(JSON.parse(probe('word '.repeat(300), 800)), { fits: true, loaded: true });
    assert.deepEqual(JSON.parse(probe('word '.repeat(300), 100)), { fits: false, loaded: true });
  });
});
