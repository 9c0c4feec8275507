/*
 * The o200k vocabulary as one flat table a process maps in milliseconds.
 *
 * gpt-tokenizer keeps its 200,000 ranks as a JavaScript array literal and
 * builds a Map of them on load: about 350 ms and 70 MB before the first count
 * (tiktoken's WASM build measured the same, js-tiktoken three times that).
 * A CLI query pays that in every process whose answer is longer in bytes than
 * its budget, which is nearly every real answer. So the build derives this
 * table from the library's ranks once (scripts/build.mjs writes it beside the
 * bundles) and a process reads it as typed arrays: the token bytes end to end,
 * each rank's offset into them, and an open-addressing hash index from bytes
 * to rank. The ranks stay the library's; only their layout is ours.
 */

/** Rank data as gpt-tokenizer ships it: a token's text, or its bytes when they are not UTF-8. */
export type Ranks = readonly (string | readonly number[] | undefined)[];

export interface TokenTable {
  /** The rank of the bytes `b[start, end)`, or Infinity when they are no token. */
  rank(b: Uint8Array, start: number, end: number): number;
}

const HEADER_WORDS = 3;
const EMPTY = -1;

function fnv1a(b: Uint8Array, start: number, end: number): number {
  let h = 2166136261;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 16777619);
  return h >>> 0;
}

class FlatTable implements TokenTable {
  private readonly mask: number;

  constructor(
    /** Every token's bytes, in rank order. */
    private readonly bytes: Uint8Array,
    /** Rank r's bytes are bytes[offsets[r], offsets[r + 1]). */
    private readonly offsets: Uint32Array,
    /** Slot → rank (EMPTY where free); the slot count is a power of two. */
    private readonly slots: Int32Array,
  ) {
    this.mask = slots.length - 1;
  }

  rank(b: Uint8Array, start: number, end: number): number {
    const length = end - start;
    for (let slot = fnv1a(b, start, end) & this.mask; ; slot = (slot + 1) & this.mask) {
      const r = this.slots[slot]!;
      if (r === EMPTY) return Infinity;
      const at = this.offsets[r]!;
      if (this.offsets[r + 1]! - at !== length) continue;
      let k = 0;
      while (k < length && this.bytes[at + k] === b[start + k]) k++;
      if (k === length) return r;
    }
  }

  /** Header (rank count, byte count, slot count), offsets, slots, bytes: 4-byte words first so each view is aligned. */
  encode(): Buffer {
    const header = new Uint32Array([this.offsets.length - 1, this.bytes.length, this.slots.length]);
    return Buffer.concat([header, this.offsets, this.slots, this.bytes].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
  }
}

export function buildTokenTable(ranks: Ranks): TokenTable & { encode(): Buffer } {
  const utf8 = new TextEncoder();
  const tokens = ranks.map((v) => (v === undefined ? new Uint8Array(0) : typeof v === 'string' ? utf8.encode(v) : Uint8Array.from(v)));
  const offsets = new Uint32Array(tokens.length + 1);
  for (let r = 0; r < tokens.length; r++) offsets[r + 1] = offsets[r]! + tokens[r]!.length;
  const bytes = new Uint8Array(offsets[tokens.length]!);
  tokens.forEach((t, r) => bytes.set(t, offsets[r]));
  // At most 40% full, so a probe rarely walks past a few slots.
  let size = 1;
  while (size < tokens.length * 2.5) size <<= 1;
  const slots = new Int32Array(size).fill(EMPTY);
  for (let r = 0; r < tokens.length; r++) {
    if (!tokens[r]!.length) continue; // a hole in the ranks
    let slot = fnv1a(bytes, offsets[r]!, offsets[r + 1]!) & (size - 1);
    while (slots[slot] !== EMPTY) slot = (slot + 1) & (size - 1);
    slots[slot] = r;
  }
  return new FlatTable(bytes, offsets, slots);
}

/** The table `encode` wrote, viewed in place (the buffer is copied once if it is not 4-byte aligned). */
export function decodeTokenTable(data: Uint8Array): TokenTable {
  const buf = data.byteOffset % 4 === 0 ? data : Uint8Array.from(data);
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [count, byteCount, slotCount] = [header[0]!, header[1]!, header[2]!];
  let at = buf.byteOffset + HEADER_WORDS * 4;
  const offsets = new Uint32Array(buf.buffer, at, count + 1);
  at += offsets.byteLength;
  const slots = new Int32Array(buf.buffer, at, slotCount);
  at += slots.byteLength;
  if (at + byteCount !== buf.byteOffset + buf.byteLength || (slotCount & (slotCount - 1)) !== 0) {
    throw new Error('The token table is damaged (its sizes do not add up): rebuild Tenure with `npm run build`.');
  }
  return new FlatTable(new Uint8Array(buf.buffer, at, byteCount), offsets, slots);
}
