import { EDGE_TIERS, type EdgeTier } from '../../model/tiers.js';
import type { EdgeKind } from '../../model/structural.js';
import type { SymbolRef } from '../../model/symbolRef.js';

/*
 * The shape of a what_breaks answer, shared by the traversal (whatBreaks.ts)
 * and what artifacts add to it (artifacts.ts), and how its dependents are
 * ordered and counted.
 */

export type DependencyKind = EdgeKind | 'overrides' | 'member';

export interface Site {
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

export interface Dependent {
  readonly symbol: SymbolRef;
  /** How it depends on the symbol it reaches: calls it, references it, implements it, overrides it… */
  readonly kind: DependencyKind;
  /** Weakest tier along the path from the target. */
  readonly tier: EdgeTier;
  /** 1 for direct dependents. */
  readonly distance: number;
  /** The symbol this one depends on directly (the target, one of its members, or a dependent one hop closer). */
  readonly via: { readonly sid: string; readonly name: string };
  readonly sites: readonly Site[];
  readonly provenance: { readonly source: string; readonly reason: string };
  /** For ambiguous edges: every candidate the site could mean. */
  readonly candidates?: readonly { readonly sid: string; readonly qname: string; readonly path: string; readonly line: number }[];
}

/** A dependent while the answer is being put together: its tier, hop and provenance may still change. */
export type MutableDependent = { -readonly [K in keyof Dependent]: Dependent[K] } & { sites: Site[] };

export interface Dispatch {
  /** The caller, which calls a base or interface method the target overrides (or reads or writes a base or interface property it implements). */
  readonly caller: SymbolRef;
  /** How the caller uses the base member: calls it, or reads or writes it. */
  readonly kind: 'call' | 'read' | 'write';
  readonly through: { readonly sid: string; readonly qname: string };
  readonly site: Site;
  /** Tier of the call edge to the base method. */
  readonly tier: EdgeTier;
  /**
   * `resolved`: the call is resolved to the base method and a type checker
   * proved the target implements it, so the call can land here (which
   * implementation runs is still the receiver's runtime type).
   * `unresolved`: the call or the override is only inferred by name.
   */
  readonly resolution: 'resolved' | 'unresolved';
  readonly provenance: { readonly source: string; readonly reason: string };
}

export interface DynamicSite {
  readonly owner: SymbolRef;
  readonly site: Site;
  readonly reason: string;
  /** Whether the site names the target (getattr with a literal) or could reach anything in a file that imports it. */
  readonly match: 'name' | 'file';
}

export interface DependentCounts {
  readonly direct: number;
  readonly transitive: number;
  readonly byTier: Record<EdgeTier, number>;
  readonly byKind: Partial<Record<DependencyKind, number>>;
}

export interface WhatBreaksResult {
  readonly target: SymbolRef;
  readonly depth: number;
  readonly dependents: readonly Dependent[];
  readonly implementers: readonly Dependent[];
  readonly dispatches: readonly Dispatch[];
  readonly dynamicSites: readonly DynamicSite[];
  /** Sites that name the target among too many candidates to list one by one. */
  readonly wideSites: number;
  /**
   * Reads and writes by the target's name through receivers the type checker
   * types `any`: no member is attributed there (the value is decided at run
   * time), so they are counted for every data member of that name.
   */
  readonly untypedSites: number;
  /** Ambiguous dependents whose own dependents were not followed (the answer says so). */
  readonly notFollowed: number;
  /** Sites where the target calls or uses itself (recursion): not dependents, and said so. */
  readonly recursion: readonly Site[];
  readonly counts: DependentCounts;
  /** The answer in one sentence, stated as a lower bound. */
  readonly summary: string;
  /** What the graph could not see. */
  readonly notSeen: readonly string[];
  /** Which sources produced the edges used. */
  readonly sources: readonly string[];
  /** What class files, DI wiring and traces added (artifacts.ts); absent when none was imported. */
  readonly artifacts?: ArtifactsSummary;
}

export interface ObservedEvidence {
  readonly lastSeen: string;
  readonly firstSeen: string;
  readonly count: number;
  readonly traceIds: readonly string[];
  readonly via: string;
  readonly stale: boolean;
}

export interface ArtifactsSummary {
  /** Dependents whose only evidence is traces, by kind. */
  readonly tracesOnly: Partial<Record<DependencyKind, number>>;
  /** Dependents reached through DI wiring, by kind and tier. */
  readonly wired: Partial<Record<DependencyKind, { observed: number; resolved: number }>>;
  /** Generated methods among the dependents and implementations (compiler, annotation processors, Lombok, AOT). */
  readonly generated: number;
  /** Service endpoints without a symbol among the dependents (seen in traces). */
  readonly endpoints: number;
  /** Observed paths not seen for `staleAfterDays`. */
  readonly stale: number;
  readonly staleAfterDays: number;
  /** The wiring artifacts used, in words: "actuator beans of 2026-11-28 (profile prod)". */
  readonly wiring: readonly string[];
  /** Trace evidence per dependent symbol id. */
  readonly evidence: Readonly<Record<string, ObservedEvidence>>;
}

export const tierRank = (t: EdgeTier): number => EDGE_TIERS.indexOf(t);

/** Nearest first, then strongest tier, then by name: the order the answer lists dependents in. */
export function byDistanceTierName(a: Dependent, b: Dependent): number {
  return a.distance - b.distance || tierRank(a.tier) - tierRank(b.tier) || a.symbol.qname.localeCompare(b.symbol.qname);
}

export function countDependents(list: readonly Dependent[]): DependentCounts {
  const byTier = Object.fromEntries(EDGE_TIERS.map((t) => [t, 0])) as Record<EdgeTier, number>;
  const byKind: Partial<Record<DependencyKind, number>> = {};
  for (const d of list) {
    byTier[d.tier]++;
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
  }
  const direct = list.filter((d) => d.distance === 1).length;
  return { direct, transitive: list.length - direct, byTier, byKind };
}
