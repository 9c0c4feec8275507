import * as v8 from 'node:v8';

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
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
