import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens as libraryCount } from 'gpt-tokenizer/encoding/o200k_base';
import { buildTokenTable, decodeTokenTable, type Ranks } from '../../src/shared/tokenTable';
import { TOKEN_TABLE_FILE, countTokens, withinTokens } from '../../src/shared/tokens';

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

  it('counts exactly as gpt-tokenizer does, over the documentation and source of this repository and text that defeats simple splits', () => {
    const repo = path.resolve(__dirname, '../../..');
    const files = execFileSync('git', ['-C', repo, 'ls-files', '*.md', 'src/**/*.ts', 'examples/**'], { encoding: 'utf8' }).trim().split('\n');
    const hard = [
      'emoji 👩‍👩‍👧‍👦 🚀🚀 flags 🇩🇪',
      'lone surrogate \ud83d then text',
      'Ünïcödé ñ ﬁ ß İstanbul ǅ',
      'a'.repeat(3000),
      '12345678901234567890',
      ' '.repeat(300) + '\n\n\r\n\t',
      "don't WON'T they'RE I'M",
      'مرحبا بالعالم שלום עולם Привет мир',
      '\u0000\u0001\u007f control',
    ];
    let compared = 0;
    for (const text of [...texts, ...hard, ...files.filter((f) => fs.statSync(path.join(repo, f)).size < 200_000).map((f) => fs.readFileSync(path.join(repo, f), 'utf8'))]) {
      assert.equal(countTokens(text), libraryCount(text, { disallowedSpecial: new Set() }), text.slice(0, 80));
      compared++;
    }
    assert.ok(compared > 300, `${compared} texts`);
  });

  it('counts text that spells a special token as text, where the library refuses it', () => {
    const text = 'A model card says to stop at <|endoftext|> and <|endofprompt|>.';
    assert.throws(() => libraryCount(text), /special token/);
    assert.equal(countTokens(text), libraryCount(text, { disallowedSpecial: new Set() }));
  });

  it('reads the table the build wrote as the table built from the ranks, and refuses a damaged one', () => {
    const written = path.resolve(__dirname, '../../../dist', TOKEN_TABLE_FILE);
    assert.ok(fs.existsSync(written), `${written}: npm run build writes it`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const built = buildTokenTable((require('gpt-tokenizer/bpeRanks/o200k_base') as { default: Ranks }).default);
    const data = fs.readFileSync(written);
    assert.ok(data.equals(built.encode()), 'dist holds the table of the installed gpt-tokenizer');
    const read = decodeTokenTable(data);
    const utf8 = new TextEncoder();
    for (const token of [' the', 'Settlement', ' 日本', '\n\n', '!']) {
      const b = utf8.encode(token);
      assert.equal(read.rank(b, 0, b.length), built.rank(b, 0, b.length), token);
      assert.notEqual(read.rank(b, 0, b.length), Infinity, token);
    }
    const none = utf8.encode('zzqxjvwkpq-not-a-token');
    assert.equal(read.rank(none, 0, none.length), Infinity);
    assert.throws(() => decodeTokenTable(data.subarray(0, data.length - 8)), /damaged.*npm run build/);
  });

  it('does not read the table for a text shorter in bytes than its budget, and reads it for one that is not', () => {
    const module = path.resolve(__dirname, '../../src/shared/tokens.js');
    const probe = (text: string, budget: number) =>
      execFileSync(
        process.execPath,
        ['-e', `const t = require(${JSON.stringify(module)}); const fits = t.withinTokens(${JSON.stringify(text)}, ${budget}); console.log(JSON.stringify({ fits, loaded: t.tokenTableLoaded() }))`],
        { encoding: 'utf8' },
      );
    assert.deepEqual(JSON.parse(probe('No dependents found.', 800)), { fits: true, loaded: false });
    assert.deepEqual(JSON.parse(probe('word '.repeat(300), 800)), { fits: true, loaded: true });
    assert.deepEqual(JSON.parse(probe('word '.repeat(300), 100)), { fits: false, loaded: true });
  });
});
