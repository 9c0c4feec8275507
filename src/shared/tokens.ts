/*
 * Text is paid for in tokens: answers have budgets, knowledge chunks sizes,
 * model calls costs. Counted with the o200k tokenizer (GPT-4o's; other
 * models count within a few percent of it), loaded on the first count: its
 * ranks take about 70 MB and a few hundred milliseconds to load, which a
 * process that never counts (a structural index, a status line) should not pay.
 */

type Tokenizer = typeof import('gpt-tokenizer/encoding/o200k_base');

let tokenizer: Tokenizer | undefined;

export function countTokens(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  tokenizer ??= require('gpt-tokenizer/encoding/o200k_base') as Tokenizer;
  return tokenizer.countTokens(text);
}

/**
 * Whether a text costs at most `budget` tokens. The o200k tokenizer encodes
 * bytes, and every token stands for at least one byte, so a text of at most
 * `budget` UTF-8 bytes fits without counting: a short answer, the common case
 * of a CLI query, never loads the tokenizer.
 */
export function withinTokens(text: string, budget: number): boolean {
  return Buffer.byteLength(text, 'utf8') <= budget || countTokens(text) <= budget;
}
