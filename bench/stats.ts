/** Small statistics helpers for the benchmark; no dependencies. */

export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100): a value that was actually measured. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1]!;
}

/** The index of the run whose value is the (lower) median. */
export function medianIndex(values: readonly number[]): number {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  return order[Math.floor((order.length - 1) / 2)]![1];
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtMB(bytes: number): string {
  return bytes < 1e6 ? `${(bytes / 1e3).toFixed(0)} KB` : `${(bytes / 1e6).toFixed(2)} MB`;
}

/** One line of a benchmark table: every section of `npm run bench` produces these. */
export type Row = [corpus: string, measurement: string, result: string, target: string];

/** A target cell: the target, then ✓ or ✗. */
export function verdict(ok: boolean, text: string): string {
  return `${text} ${ok ? '✓' : '✗'}`;
}

/** Where the generated part of docs/benchmarks.md ends; what follows is written by hand and kept. */
export const GENERATED_END = '<!-- Everything above this line is written by `npm run bench`; the sections below are kept as they are. -->';

/**
 * The new generated part, then what the old file kept below its end marker.
 * A file written before the marker existed keeps everything from its first
 * second-level heading: the generated part has none.
 */
export function withKeptSections(generated: string, previous: string): string {
  const at = previous.indexOf(GENERATED_END);
  const heading = previous.search(/^## /m);
  const kept = (at >= 0 ? previous.slice(at + GENERATED_END.length) : heading >= 0 ? previous.slice(heading) : '').replace(/^\n+/, '');
  return `${generated.trimEnd()}\n\n${GENERATED_END}\n${kept ? `\n${kept}` : ''}`;
}
