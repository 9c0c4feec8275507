/*
 * Text is paid for in tokens: answers have budgets, knowledge chunks sizes,
 * model calls costs. Counted with the o200k tokenizer (GPT-4o's; other
 * models count within a few percent of it), loaded on the first count: its
 * ranks take about 70 MB and a few hundred milliseconds to load, which a
 * process that never counts (a structural index, a status line) should not pay.
 */

type Tokenizer = typeof import('gpt-tokenizer');

let tokenizer: Tokenizer | undefined;

export function countTokens(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  tokenizer ??= require('gpt-tokenizer') as Tokenizer;
  return tokenizer.countTokens(text);
}
