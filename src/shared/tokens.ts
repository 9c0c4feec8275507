import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildTokenTable, decodeTokenTable, type Ranks, type TokenTable } from './tokenTable.js';

/*
 * Text is paid for in tokens: answers have budgets, knowledge chunks sizes,
 * model calls costs. Counted as the o200k tokenizer (GPT-4o's; other models
 * count within a few percent of it) counts them: gpt-tokenizer's split of the
 * text into pieces, then byte-pair merges by its ranks. The ranks are read
 * from the table the build writes beside the bundles (tokenTable.ts says
 * why), on the first count, so a process that never counts (a structural
 * index, a status line) reads nothing.
 *
 * Text that spells a special token ("<|endoftext|>") is counted as the text it
 * is: an answer quoting a repository that mentions one must not fail.
 */

/** The file scripts/build.mjs writes into dist/, beside the bundles that read it. */
export const TOKEN_TABLE_FILE = 'o200k-ranks.bin';

let table: TokenTable | undefined;

function loadTable(): TokenTable {
  const file = path.join(__dirname, TOKEN_TABLE_FILE);
  if (fs.existsSync(file)) return decodeTokenTable(fs.readFileSync(file));
  // Compiled but not bundled (tests, benches): built from the library's ranks, once per process.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return buildTokenTable((require('gpt-tokenizer/bpeRanks/o200k_base') as { default: Ranks }).default);
}

/** Pieces already counted: answers repeat their words, tiers and paths. */
const counted = new Map<string, number>();
const COUNTED_MAX = 100_000;
const utf8 = new TextEncoder();
let scratch = new Uint8Array(1024);

/** Tokens of one piece of the split: one when the piece is a token, else what merging its bytes by rank leaves. */
function pieceTokens(t: TokenTable, b: Uint8Array): number {
  const n = b.length;
  if (t.rank(b, 0, n) !== Infinity) return 1;
  // tiktoken's merge: part boundaries, and the rank of each part joined with the next; join the lowest until none is a token.
  const starts: number[] = [];
  const ranks: number[] = [];
  for (let i = 0; i <= n; i++) {
    starts.push(i);
    ranks.push(i < n - 1 ? t.rank(b, i, i + 2) : Infinity);
  }
  const joined = (i: number) => (i + 2 < starts.length ? t.rank(b, starts[i]!, starts[i + 2]!) : Infinity);
  while (starts.length > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++) {
      if (ranks[i]! < lowest) {
        lowest = ranks[i]!;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = joined(at);
    if (at > 0) ranks[at - 1] = joined(at - 1);
  }
  return starts.length - 1;
}

/** gpt-tokenizer's o200k split, loaded with the table: its module compiles three Unicode patterns on load (about 4 ms), which a process that never counts does without. */
let split: RegExp | undefined;

export function countTokens(text: string): number {
  table ??= loadTable();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  split ??= (require('gpt-tokenizer/encodingParams/constants') as typeof import('gpt-tokenizer/encodingParams/constants')).O200K_TOKEN_SPLIT_REGEX;
  let count = 0;
  for (const [piece] of text.matchAll(split)) {
    let n = counted.get(piece);
    if (n === undefined) {
      if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
      const { written } = utf8.encodeInto(piece, scratch);
      n = pieceTokens(table, scratch.subarray(0, written));
      if (counted.size >= COUNTED_MAX) counted.clear();
      counted.set(piece, n);
    }
    count += n;
  }
  return count;
}

/**
 * Whether a text costs at most `budget` tokens. The o200k tokenizer encodes
 * bytes, and every token stands for at least one byte, so a text of at most
 * `budget` UTF-8 bytes fits without counting: a short answer, the common case
 * of a CLI query, never reads the table.
 */
export function withinTokens(text: string, budget: number): boolean {
  return Buffer.byteLength(text, 'utf8') <= budget || countTokens(text) <= budget;
}

/** Whether this process has read the o200k ranks (for the test that a short answer does not). */
export function tokenTableLoaded(): boolean {
  return table !== undefined;
}
