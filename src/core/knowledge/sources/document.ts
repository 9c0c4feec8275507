import type { RecordStatus } from './recordStatus.js';

/*
 * What every source yields: documents (a file, a thread, a commit) and the
 * commits they are made from. Shared by the file walk (documents.ts) and the
 * GitHub shapes (github.ts).
 */

export type DocKind = 'adr' | 'postmortem' | 'rfc' | 'design' | 'pr' | 'issue' | 'commit' | 'readme' | 'changelog' | 'doc';
export const DOC_KINDS: readonly DocKind[] = ['adr', 'postmortem', 'rfc', 'design', 'pr', 'issue', 'commit', 'readme', 'changelog', 'doc'];
/** The kinds that record a decision or an incident as a whole: a changelog or a guide is not one. */
export const RECORD_KINDS: ReadonlySet<DocKind> = new Set(['adr', 'rfc', 'design', 'postmortem']);

export interface Section {
  readonly start: number;
  readonly end: number;
  readonly url?: string;
  readonly author?: string;
}

export interface SourceDocument {
  /** Stable key: a workspace path, `path#pull/142`, `git:<sha>`. */
  readonly source: string;
  readonly kind: DocKind;
  readonly title: string;
  /** The handle people use: ADR-0007, INC-2041, PR #142, commit 1a2b3c4. */
  readonly ref?: string;
  readonly path?: string;
  readonly url?: string;
  readonly author?: string;
  readonly createdAt?: string;
  /** A decision record's own status (accepted, proposed, rejected, superseded, deprecated), when it gives one. */
  readonly status?: RecordStatus;
  readonly text: string;
  readonly sections?: readonly Section[];
}

export interface CommitLike {
  readonly sha: string;
  readonly message: string;
  readonly author?: string;
  readonly date?: string;
  readonly url?: string;
}
