/**
 * Why a file or folder of the repository was passed over, so that nothing
 * disappears silently: a closed set of kinds, each with the words a person
 * reads (which say what to do about it where something can be done).
 */
export type SkipKind =
  /** A folder that could not be listed (permissions, gone while walking). */
  | 'unreadable-folder'
  /** A symlink to a folder already walked: a loop or a duplicate. */
  | 'symlink-loop'
  | 'broken-symlink'
  /** A symlink whose target lies outside the workspace: the workspace is a boundary. */
  | 'outside-workspace'
  /** A FIFO, socket or device with a source file's name: never opened (it could block or never end). */
  | 'not-a-regular-file'
  /** A .gitignore that could not be read: its rules were not applied. */
  | 'unreadable-gitignore'
  /** A file that could not be read or stat'ed. */
  | 'unreadable'
  /** Over the size limit, which is a setting. */
  | 'too-large'
  | 'binary'
  | 'not-utf8'
  /** Minified or generated: very long lines. */
  | 'minified'
  | 'no-grammar'
  /** Parsing took longer than its budget. */
  | 'parse-timeout'
  | 'parser-failed'
  | 'worker-crashed';

export interface Skip {
  readonly kind: SkipKind;
  /** The human text: "too large (1500 KiB, limit 1024 KiB; raise tenure.maxFileSizeKb to include it)". */
  readonly reason: string;
}

/**
 * Skips that say nothing about the file's bytes (a budget, a crashed worker,
 * a read that failed, a size limit that is a setting): the file is tried
 * again on the next index. The others wait until its bytes change.
 */
const TRANSIENT_SKIPS: ReadonlySet<SkipKind> = new Set(['parse-timeout', 'parser-failed', 'worker-crashed', 'unreadable', 'too-large', 'outside-workspace', 'not-a-regular-file']);

export function worthRetrying(skip: Skip | null): boolean {
  return skip !== null && TRANSIENT_SKIPS.has(skip.kind);
}
