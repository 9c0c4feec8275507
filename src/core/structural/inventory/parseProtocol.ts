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

export type ParseResponse =
  | { readonly id: number; readonly status: 'parsed'; readonly hash: string; readonly size: number; readonly facts: FileFacts }
  | { readonly id: number; readonly status: 'unchanged'; readonly hash: string; readonly size: number }
  | { readonly id: number; readonly status: 'skipped'; readonly skip: Skip; readonly hash?: string; readonly size: number }
  | { readonly id: number; readonly status: 'missing' };
