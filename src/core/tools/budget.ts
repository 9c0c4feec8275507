import { countTokens, withinTokens } from '../../shared/tokens.js';
import type { ToolResult } from './types.js';

/*
 * Answers are paid for in tokens. Every tool states a budget for its text
 * answer; a list longer than fits is cut and says how many more there are and
 * how to ask for them, instead of a wall (counted as shared/tokens.ts says).
 */

export function tokens(text: string): number {
  return countTokens(text);
}

export { withinTokens };

/** "and 12 more — ask again with limit 40" */
export function moreLine(omitted: number, what: string, nextLimit: number): string {
  return `… ${omitted} more ${what} — ask again with limit ${nextLimit}`;
}

/**
 * Renders at the asked limit, then at smaller limits until the text fits the
 * budget: the answer keeps its first lines (the answer and the reason) and
 * gives up list items, each group saying what it left out.
 */
export function fitToBudget<O>(present: (limit: number) => O, render: (answer: O) => string, limit: number, budgetTokens: number): ToolResult<O> {
  let n = limit;
  for (;;) {
    const data = present(n);
    const text = render(data);
    if (n <= 1 || withinTokens(text, budgetTokens)) return { data, text };
    n = Math.max(1, Math.floor(n * 0.7));
  }
}

/** Cuts a quotation to whole words within `max` characters. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[,;:.\s]+$/, '')}…`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Cuts a multi-line text to whole lines within `max` characters, saying it was cut. */
export function clipLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > max) {
      if (!out.length) out.push(clip(line, max));
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return `${out.join('\n')}\n…`;
}
