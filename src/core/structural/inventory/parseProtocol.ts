import type { Skip } from '../../model/skips.js';
import type { FileFacts } from '../../model/structural.js';

/** Messages between the parse pool (main thread) and its workers. */
export interface ParseRequest {
  readonly id: number;
  /** The workspace root: a file is read only if it lies inside it. */
  readonly root: string;
  readonly abs: string;
  readonly language: string;
  /** Hash already stored for this file: an unchanged file is not parsed again. */
  readonly knownHash?: string;
  readonly maxBytes: number;
  readonly budgetMs: number;
  /** Text to parse instead of reading the file (unsaved editor buffers). */
  readonly text?: string;
}

/**
 * A worker's answer to one batch. `retire` asks the pool to replace the
 * worker: tree-sitter's WebAssembly state is unsafe after a parse or a query
 * was cancelled (later queries in the same thread can read out of bounds and
 * fail every file after it), so a worker that gave up on a file is not used
 * again.
 */
export interface ParseReply {
  readonly responses: ParseResponse[];
  readonly retire: boolean;
}

/** A parsed file's facts, read from the text its worker sent. */
export function factsOf(response: { readonly factsJson: string }): FileFacts {
  return JSON.parse(response.factsJson) as FileFacts;
}

export type ParseResponse =
  /**
   * The facts cross to the main thread as JSON text: one string per file, about a third of the memory of the
   * object graph, while the files of a whole index wait to be taken in (`factsOf`, one file at a time).
   */
  | { readonly id: number; readonly status: 'parsed'; readonly hash: string; readonly size: number; readonly factsJson: string }
  | { readonly id: number; readonly status: 'unchanged'; readonly hash: string; readonly size: number }
  | { readonly id: number; readonly status: 'skipped'; readonly skip: Skip; readonly hash?: string; readonly size: number }
  | { readonly id: number; readonly status: 'missing' };
