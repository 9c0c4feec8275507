import { createHash } from 'node:crypto';
import type { Skip } from '../../model/skips.js';

/**
 * Decides whether a file's bytes are source the inventory should read, and
 * decodes them. Every refusal has a reason a person can act on.
 */
export type SourceCheck = { ok: true; text: string; hash: string } | { ok: false; skip: Skip; hash: string };

export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex');
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function checkSource(bytes: Uint8Array, file: string, maxBytes: number): SourceCheck {
  const hash = hashBytes(bytes);
  if (bytes.length > maxBytes) {
    return { ok: false, hash, skip: { kind: 'too-large', reason: `too large (${Math.round(bytes.length / 1024)} KiB, limit ${Math.round(maxBytes / 1024)} KiB; raise tenure.maxFileSizeKb to include it)` } };
  }
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return { ok: false, hash, skip: { kind: 'binary', reason: 'binary (contains NUL bytes)' } };
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, hash, skip: { kind: 'not-utf8', reason: 'not UTF-8 text (re-save it as UTF-8 to include it)' } };
  }
  if (/\.min\.[cm]?js$/.test(file) || looksMinified(text)) return { ok: false, hash, skip: { kind: 'minified', reason: 'minified or generated (very long lines)' } };
  return { ok: true, text, hash };
}

function looksMinified(text: string): boolean {
  if (text.length < 4096) return false;
  let lines = 1;
  let longest = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      lines++;
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  longest = Math.max(longest, text.length - start);
  return text.length / lines > 300 || longest > 20_000;
}
