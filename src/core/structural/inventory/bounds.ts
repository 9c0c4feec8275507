import type { Node } from 'web-tree-sitter';
import type { SkippedConstruct } from '../../model/structural.js';
import { compact, pos } from './scopes.js';

/*
 * What bounds the cost of one file in the extractor (extract.ts): a nesting
 * depth past which definitions are not symbols of their own, and a deadline
 * its loops check. Without them a pathological file (20,000 nested
 * functions) grows names, ids and scope walks with the square of its size.
 */

/** The nodes the bound looks at: a definition and its name. */
interface Definition {
  readonly node: Node;
  readonly nameNode: Node;
}

/**
 * Definitions nested deeper than this are not symbols of their own: what
 * they hold counts as their ancestor's at this depth. Real code stays far
 * below it; without a bound, names, ids and scope walks grow with the square
 * of the nesting (a file of 20,000 nested functions exhausted a 4 GB heap).
 */
export const MAX_DEFINITION_DEPTH = 64;

/** The extraction ran past its time budget: the file is skipped with that reason, never half-read. */
export class ParseTimeout extends Error {}

/** A deadline checked in the extractor's loops; cheap enough to call per match. */
export class Deadline {
  private calls = 0;
  private readonly at: number;

  /** `budgetMs` from now. */
  constructor(private readonly budgetMs: number) {
    this.at = performance.now() + budgetMs;
  }

  static none(): Deadline {
    return new Deadline(Infinity);
  }

  check(): void {
    if ((++this.calls & 255) === 0 && this.passed) throw this.exceeded();
  }

  exceeded(): ParseTimeout {
    return new ParseTimeout(`extraction exceeded ${this.budgetMs} ms`);
  }

  get passed(): boolean {
    return performance.now() > this.at;
  }
}

/** A definition left out for its depth, with the ancestor at the bound that holds it. */
export interface Folded<T> {
  readonly def: T;
  /** Index in `ordered` of the deepest kept definition around it. */
  readonly into: number;
}

/**
 * Keeps definitions up to MAX_DEFINITION_DEPTH deep (by byte ranges, as
 * Containment nests them); deeper ones are folded into the ancestor at the
 * bound. Order is kept, so parent < index still holds.
 */
export function foldDeepDefinitions<T extends Definition>(sorted: readonly T[]): { ordered: T[]; folded: Folded<T>[] } {
  const byStart = sorted.map((d, i) => ({ d, i })).sort((a, b) => a.d.node.startIndex - b.d.node.startIndex || b.d.node.endIndex - a.d.node.endIndex);
  const depth = new Array<number>(sorted.length).fill(0);
  const keptAncestor = new Array<number>(sorted.length).fill(-1);
  const stack: number[] = [];
  for (const { d, i } of byStart) {
    while (stack.length && sorted[stack[stack.length - 1]!]!.node.endIndex < d.node.endIndex) stack.pop();
    const parent = stack.length ? stack[stack.length - 1]! : -1;
    depth[i] = parent >= 0 ? depth[parent]! + 1 : 0;
    keptAncestor[i] = depth[i]! < MAX_DEFINITION_DEPTH ? i : keptAncestor[parent]!;
    stack.push(i);
  }
  if (!depth.some((n) => n >= MAX_DEFINITION_DEPTH)) return { ordered: [...sorted], folded: [] };
  const ordered: T[] = [];
  const newIndex = new Array<number>(sorted.length).fill(-1);
  const deep: { def: T; keptAt: number }[] = [];
  sorted.forEach((d, i) => {
    if (depth[i]! < MAX_DEFINITION_DEPTH) {
      newIndex[i] = ordered.length;
      ordered.push(d);
    } else deep.push({ def: d, keptAt: keptAncestor[i]! });
  });
  return { ordered, folded: deep.map(({ def, keptAt }) => ({ def, into: newIndex[keptAt]! })) };
}

export function foldedReason<T extends Definition>(folded: readonly Folded<T>[], ordered: readonly T[]): SkippedConstruct {
  const first = folded[0]!;
  const into = ordered[first.into];
  const where = into ? ` \`${compact(into.nameNode.text)}\` (line ${pos(into.nameNode).line})` : ' the definitions around them';
  return {
    at: pos(first.def.nameNode),
    reason: `${folded.length} definition${folded.length === 1 ? '' : 's'} nested more than ${MAX_DEFINITION_DEPTH} deep not indexed as symbols of their own: their uses count as uses of${where}`,
  };
}

