import type { SourceSymbol } from './sourceIndex.js';
import type { Anchor, ClassStatus, LoadedClass } from './analysis.js';

/** One class while it is being linked: what it is, and where its methods land. */
export interface ClassEntry {
  readonly loaded: LoadedClass;
  readonly internal: string;
  status: ClassStatus;
  sourcePath?: string;
  sourceType?: SourceSymbol;
  sid?: string;
  qname: string;
  generator?: string;
  derivedFrom?: string | null;
  /** Method (name+descriptor) → anchor, for source and generated classes. */
  readonly methods: Map<string, Anchor>;
  /** Generated method names already used, for disambiguators. */
  readonly usedNames: Map<string, number>;
}

/** The simple name of a class: `com/acme/Outer$Inner` → `Inner`. */
export function lastSegment(internal: string): string {
  const simple = internal.slice(internal.lastIndexOf('/') + 1);
  return simple.slice(simple.lastIndexOf('$') + 1);
}

export const isSourceMethod = (s: SourceSymbol): boolean => s.kind === 'method' || s.kind === 'function';
