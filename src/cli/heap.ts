/**
 * How far V8 lets the heap grow past what the last full collection kept. Left
 * to itself it allows up to four times that when the program allocates fast,
 * as resolving a large index does: short-lived objects promoted before they
 * die pile up, and a 32,000-file index peaked at three to four times its live
 * working set. Read at every collection, so it can be set once the process
 * runs; the CLI's process is ours (the extension host's is not, and is left
 * alone).
 */
const HEAP_GROWING_PERCENT = 50;

export function limitHeapGrowth(): void {
  // Loaded here, not at the top: the launcher holds this function for the full CLI alone, and node:v8 (with the
  // streams it loads) took about 5 ms of every query's start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('node:v8') as typeof import('node:v8')).setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
