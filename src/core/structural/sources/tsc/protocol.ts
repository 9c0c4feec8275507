import type { EdgeKind } from '../../../model/structural.js';

/*
 * Messages between the TypeScript compiler resolver (resolver.ts, in the
 * host) and its child process (tscWorker.ts), which holds the programs.
 * Positions are the inventory's: 1-based lines, 0-based UTF-16 columns.
 */

/** A declaration in the workspace `[path, line, col]` (of its name), or one outside it `[file]`. */
export type TscTarget = readonly [path: string, line: number, col: number] | readonly [file: string];

/** One use of a name the checker resolved. */
export interface TscUse {
  readonly line: number;
  readonly col: number;
  /** What the syntax makes of it: a call, `new`, a read or a write of data, a heritage clause, else a reference. */
  readonly kind: EdgeKind;
  readonly targets: readonly TscTarget[];
  /**
   * `super`: `super.m()` / `super(…)`, bound to the base member statically, never a dispatch;
   * `property-call`: a call through a function-typed property or variable, a read of it.
   */
  readonly binding?: 'super' | 'property-call';
}

/** A member of a class or interface in the file that implements or overrides `base`. */
export interface TscImplementation {
  readonly impl: readonly [path: string, line: number, col: number];
  readonly base: readonly [path: string, line: number, col: number];
  readonly name: string;
}

export type ToTscWorker =
  | { readonly type: 'init'; readonly root: string; readonly files: readonly string[] }
  | { readonly type: 'file'; readonly id: number; readonly path: string }
  | { readonly type: 'dispose' };

export type FromTscWorker =
  | { readonly type: 'ready'; readonly programs: number; readonly files: readonly string[]; readonly ms: number; readonly notes: readonly string[] }
  | {
      readonly type: 'file';
      readonly id: number;
      /** False when no program holds the file: nothing was asked. */
      readonly inProgram: boolean;
      readonly uses: readonly TscUse[];
      /** Uses of a local or parameter (file '') or of a declaration outside the workspace: `[line, col, file]`. */
      readonly elsewhere: readonly (readonly [number, number, string])[];
      readonly implementations: readonly TscImplementation[];
      /** Names the checker has no symbol for (a receiver typed `any`, a missing dependency). */
      readonly unanswered: readonly (readonly [number, number])[];
    }
  | { readonly type: 'error'; readonly id?: number; readonly message: string };
