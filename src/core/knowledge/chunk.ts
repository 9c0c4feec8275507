import { countTokens } from '../../shared/tokens.js';
import { lineAt, lineStarts, sentences } from './text.js';

/*
 * Deterministic text units: token-sized, overlapping, cut at paragraph, then
 * sentence, then word boundaries, each with its character offsets and lines
 * in the document and the heading it sits under. The same text always gives
 * the same chunks, so a chunk's hash is a stable cache key for extraction.
 */

export interface ChunkOptions {
  /** Upper bound per chunk. Default 600 (GraphRAG uses 300–1200; smaller chunks give models better recall). */
  readonly maxTokens?: number;
  /** Tokens repeated from the end of one chunk at the start of the next. Default 80. */
  readonly overlapTokens?: number;
}

export interface Chunk {
  readonly ord: number;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly tokens: number;
  /** Markdown heading path the chunk starts under: "Decision › Consequences". */
  readonly heading?: string;
}

interface Unit {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
}

function isHeading(text: string, at: number): boolean {
  return /^#{1,6}\s/.test(text.slice(at, at + 7));
}

function tokens(text: string): number {
  return countTokens(text);
}

/** Sentences of each paragraph; a sentence longer than a chunk is split into word runs. */
function units(text: string, max: number): Unit[] {
  const out: Unit[] = [];
  const paragraph = /[^\n]+(?:\n(?!\s*\n)[^\n]*)*/g;
  for (const m of text.matchAll(paragraph)) {
    const start = m.index;
    const body = m[0].trimEnd();
    if (!body.trim()) continue;
    // Sentences are the units: chunks then overlap by whole sentences.
    for (const s of sentences(body, start)) {
      const st = tokens(s.text);
      if (st <= max) {
        out.push({ start: s.start, end: s.end, tokens: st });
        continue;
      }
      // A sentence longer than a chunk (a table, a log line): runs of words.
      const words = [...s.text.matchAll(/\S+\s*/g)];
      let runStart = s.start;
      let runText = '';
      for (const w of words) {
        if (runText && tokens(runText + w[0]) > max) {
          out.push({ start: runStart, end: runStart + runText.trimEnd().length, tokens: tokens(runText) });
          runStart = s.start + w.index;
          runText = '';
        }
        runText += w[0];
      }
      if (runText.trim()) out.push({ start: runStart, end: runStart + runText.trimEnd().length, tokens: tokens(runText) });
    }
  }
  return out;
}

/** Heading path in force at each heading line: [offset, "A › B"] pairs in order. */
function headings(text: string): { at: number; path: string }[] {
  const out: { at: number; path: string }[] = [];
  const stack: string[] = [];
  let inFence = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = !inFence ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (m) {
      const level = m[1]!.length;
      stack.length = level - 1;
      stack[level - 1] = m[2]!.replace(/[*_`]/g, '');
      out.push({ at: offset, path: stack.filter(Boolean).join(' › ') });
    }
    offset += line.length + 1;
  }
  return out;
}

export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const max = Math.max(32, options.maxTokens ?? 600);
  const overlap = Math.max(0, Math.min(options.overlapTokens ?? 80, Math.floor(max / 2)));
  const us = units(text, max);
  const starts = lineStarts(text);
  const heads = headings(text);
  const headingAt = (offset: number) => {
    let h: string | undefined;
    for (const x of heads) {
      if (x.at > offset) break;
      h = x.path;
    }
    return h;
  };
  const chunks: Chunk[] = [];
  let i = 0;
  while (i < us.length) {
    let j = i;
    let total = 0;
    // Tokens are counted per unit; the joins between units cost about one token each.
    while (j < us.length && (j === i || total + us[j]!.tokens + 1 <= max)) {
      // A heading starts a new chunk once this one is half full: chunks follow the document's sections.
      if (j > i && total >= max / 2 && isHeading(text, us[j]!.start)) break;
      total += us[j]!.tokens + (j > i ? 1 : 0);
      j++;
    }
    const start = us[i]!.start;
    const end = us[j - 1]!.end;
    const body = text.slice(start, end);
    const heading = headingAt(start);
    chunks.push({
      ord: chunks.length,
      text: body,
      start,
      end,
      lineStart: lineAt(starts, start),
      lineEnd: lineAt(starts, Math.max(start, end - 1)),
      // The sentences' counts and one per join: within a few tokens of counting the chunk again, at half the cost.
      tokens: total,
      ...(heading ? { heading } : {}),
    });
    if (j >= us.length) break;
    // A new section starts clean; elsewhere, step back over trailing sentences worth at most `overlap` tokens, always moving forward.
    if (isHeading(text, us[j]!.start)) {
      i = j;
      continue;
    }
    let k = j;
    let back = 0;
    while (k - 1 > i && back + us[k - 1]!.tokens <= overlap) {
      back += us[k - 1]!.tokens;
      k--;
    }
    i = k;
  }
  return chunks;
}
