import { withoutHidden } from '../../shared/hiddenText.js';
/* Text helpers for documents: sentences with offsets, markdown clean-up for quoting, line numbers. */

export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Line starts of a text, for offset → line (1-based). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const ABBREV = /\b(?:e\.g|i\.e|etc|vs|cf|approx|no|fig|dr|mr|mrs|ms|inc|ltd|co)\.$/i;

/**
 * Sentences of a text with their offsets. Paragraph breaks, list items and
 * headings end a sentence; so do . ! ? followed by a space and a capital,
 * digit, quote or code span — not abbreviations (e.g., i.e.) or decimals, and
 * never inside a code span.
 */
export function sentences(text: string, base = 0): (Span & { text: string })[] {
  const out: (Span & { text: string })[] = [];
  let start = 0;
  let inCode = false;
  const push = (end: number) => {
    let s = start;
    let e = end;
    while (s < e && /\s/.test(text[s]!)) s++;
    while (e > s && /\s/.test(text[e - 1]!)) e--;
    if (e > s) out.push({ start: base + s, end: base + e, text: text.slice(s, e) });
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '`') inCode = !inCode;
    if (ch === '\n') {
      inCode = false;
      // A blank line, or a line that starts a list item, heading, quote or table row, ends the sentence.
      const rest = text.slice(i + 1, i + 8);
      if (/^\s*\n/.test(rest) || /^\s*([-*+>|#]|\d+[.)])\s/.test(rest) || /^#{1,6}\s/.test(rest)) {
        push(i + 1);
        continue;
      }
      // A heading line ends at its newline; so does a line that ends with a bare URL when the next begins a sentence:
      // a URL takes no full stop, and a doc comment's "See original file https://…" ran into its next line's reason.
      const lineStart = text.lastIndexOf('\n', i - 1) + 1;
      if (/^#{1,6}\s/.test(text.slice(lineStart, lineStart + 7)) || (/https?:\/\/\S+$/.test(text.slice(lineStart, i).trimEnd()) && /^\s*[A-Z]/.test(rest))) push(i + 1);
      continue;
    }
    if (inCode) continue;
    if (ch === '.' || ch === '!' || ch === '?') {
      const next = text[i + 1];
      if (next === undefined) continue;
      if (!/\s/.test(next) && !/["')\]]/.test(next)) continue;
      const after = text.slice(i + 1).match(/^["')\]]*\s+(\S)/);
      if (!after) continue;
      if (!/[A-Z0-9"'`(*_[]/.test(after[1]!)) continue;
      if (ch === '.' && ABBREV.test(text.slice(Math.max(0, i - 8), i + 1))) continue;
      if (ch === '.' && /\d$/.test(text.slice(0, i)) && /^\d/.test(text.slice(i + 1))) continue;
      push(i + 1);
    }
  }
  push(text.length);
  return out;
}

/** HTML elements that break a line or a block (a space where they stood) and that only mark up text (nothing). */
const HTML_BREAKS = 'br|p|div|li|ul|ol|dl|dt|dd|tr|td|th|table|thead|tbody|details|summary|hr|pre|blockquote|h[1-6]';
const HTML_INLINE = 'a|abbr|b|code|del|em|i|img|ins|kbd|s|small|span|strong|sub|sup|tt|u';
const HTML_TAG = new RegExp(`<\\/?(?:(${HTML_BREAKS})|${HTML_INLINE})\\b(?:\\s[^<>]*)?\\/?>`, 'g');

/**
 * Text without the HTML elements markdown and Javadoc write inline (`<br>`, `<p>`, `<code>x</code>`, `<details>`),
 * outside code spans: `<T>` or `<name>`, and any tag written as code, are kept. Lower-case element names only.
 */
export function withoutHtml(text: string): string {
  if (!text.includes('<')) return text;
  return text
    .split('`')
    .map((part, k) => (k % 2 ? part : part.replace(HTML_TAG, (_tag, block: string | undefined) => (block ? ' ' : ''))))
    .join('`');
}

/** Markdown reduced to plain text for quoting: no heading marks, emphasis, link targets, list bullets or inline HTML; code spans kept. */
export function plain(markdown: string): string {
  return withoutHtml(markdown)
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^*\w])\*(?!\s)([^*\n]+?)\*(?!\w)/g, '$1$2')
    .replace(/\|/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A short quotation: plain text, at most `max` characters, cut at a word with an ellipsis. */
export function quote(text: string, max = 280, names: readonly string[] = []): string {
  const p = plain(withoutHidden(text));
  if (p.length <= max) return p;
  const cut = p.slice(0, max);
  const at = cut.lastIndexOf(' ');
  const head = `${(at > max * 0.6 ? cut.slice(0, at) : cut).replace(/[,;:.\s]+$/, '')}…`;
  return aroundName(p, head, names, max) ?? head;
}

/**
 * A sentence quoted for the name it holds, cut where the name is: when the
 * first `max` characters miss it (a commit message of build output with the
 * name 700 characters in), a window around its first occurrence, a third of
 * the room before it, each end at a word's edge. Undefined when the head
 * already shows a name, or the text holds none.
 */
function aroundName(p: string, head: string, names: readonly string[], max: number): string | undefined {
  const wanted = names.map((n) => n.toLowerCase()).filter((n) => n && n.length < max - 20);
  const shown = head.toLowerCase();
  if (!wanted.length || wanted.some((n) => shown.includes(n))) return undefined;
  const low = p.toLowerCase();
  const hit = wanted.map((n) => ({ n, at: low.indexOf(n) })).filter((h) => h.at >= 0).sort((x, y) => x.at - y.at)[0];
  if (!hit) return undefined;
  let start = Math.max(0, hit.at - Math.floor((max - 2 - hit.n.length) / 3));
  const space = p.indexOf(' ', start);
  if (start > 0 && space >= 0 && space < hit.at) start = space + 1;
  let end = Math.min(p.length, start + max - 2);
  const back = p.lastIndexOf(' ', end);
  if (end < p.length && back >= hit.at + hit.n.length) end = back;
  return `${start > 0 ? '…' : ''}${p.slice(start, end).replace(/[,;:\s]+$/, '')}${end < p.length ? '…' : ''}`;
}

export function wordCount(text: string): number {
  return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu) ?? []).length;
}

/** The text an entity is embedded as. */
export function entityText(e: { name: string; type: string; description: string }): string {
  return `${e.name} (${e.type}): ${e.description}`;
}

/** The text a community report is embedded as. */
export function reportText(r: { title: string; summary: string; findings: readonly { summary: string; explanation: string }[] }): string {
  return `${r.title}\n${r.summary}\n${r.findings.map((f) => `${f.summary}: ${f.explanation}`).join('\n')}`;
}
