import { EDGE_TIERS, type EdgeTier } from '../../model/tiers.js';
import type { EdgeKind } from '../../model/structural.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import { byCodeUnits } from '../../../shared/order.js';

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
  /** For ambiguous edges: the candidates the site could mean — every one, unless the asker capped them per site (the reason says how many there are). */
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

/**
 * Dependents the answer counts without reading them: ambiguous ones past
 * the first `bound` dependents in answer order (the asker's limit), and
 * every dependent of a hop that starts past it. Each is counted with its
 * kind and tier (the walk goes through them all); reading its site, reason
 * and candidates would only be to leave it out of the list.
 */
export interface UnlistedDependents {
  /** The answer lists its first this many dependents; past them, it counts. */
  readonly bound: number;
  readonly count: number;
  /** Of them, direct dependents (always ambiguous: every other direct dependent is listed). */
  readonly direct: number;
  /** By kind, then tier. */
  readonly byKind: Partial<Record<DependencyKind, Partial<Record<EdgeTier, number>>>>;
  /** Direct ones matched by name on a receiver of unknown type (said in "not seen" with the listed ones). */
  readonly directByName: Partial<Record<DependencyKind, number>>;
  /** Readers among them that call through a function-typed property (the sentence says so with the listed ones). */
  readonly propertyCalls: number;
}

/** Calls (or reads and writes) through a base method that may land on the target, listed or not; `resolution` keeps those of one. */
export function dispatchTotal(r: Pick<WhatBreaksResult, 'dispatches' | 'unlistedDispatches'>, resolution?: Dispatch['resolution']): number {
  const listed = resolution ? r.dispatches.filter((d) => d.resolution === resolution).length : r.dispatches.length;
  const u = r.unlistedDispatches;
  return listed + (u ? (resolution ? u[resolution] : u.resolved + u.unresolved) : 0);
}

/** How many of the unlisted dependents are of this tier (of this kind, if given). */
export function unlistedOf(u: UnlistedDependents | undefined, tier: EdgeTier, kind?: DependencyKind): number {
  if (!u) return 0;
  const kinds = kind ? [u.byKind[kind] ?? {}] : Object.values(u.byKind);
  return kinds.reduce((n, byTier) => n + (byTier?.[tier] ?? 0), 0);
}

export interface WhatBreaksResult {
  readonly target: SymbolRef;
  readonly depth: number;
  /** The dependents listed: every one unless `unlisted` counts ambiguous ones past the bound. */
  readonly dependents: readonly Dependent[];
  /** Ambiguous dependents counted, not listed; absent when every dependent is listed. */
  readonly unlisted?: UnlistedDependents;
  readonly implementers: readonly Dependent[];
  /** The dispatches listed: every one unless `unlistedDispatches` counts those past the bound. */
  readonly dispatches: readonly Dispatch[];
  /** Dispatches counted, not read, past the answer's bound, by resolution; absent when every one is listed. */
  readonly unlistedDispatches?: { readonly resolved: number; readonly unresolved: number };
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
  return a.distance - b.distance || tierRank(a.tier) - tierRank(b.tier) || byCodeUnits(a.symbol.qname, b.symbol.qname);
}

/** Counts of the listed dependents and of the ambiguous ones counted without being listed. */
export function countDependents(list: readonly Dependent[], unlisted?: UnlistedDependents): DependentCounts {
  const byTier = Object.fromEntries(EDGE_TIERS.map((t) => [t, 0])) as Record<EdgeTier, number>;
  const byKind: Partial<Record<DependencyKind, number>> = {};
  for (const d of list) {
    byTier[d.tier]++;
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
  }
  let direct = list.filter((d) => d.distance === 1).length;
  let total = list.length;
  if (unlisted) {
    for (const [kind, tiers] of Object.entries(unlisted.byKind) as [DependencyKind, Partial<Record<EdgeTier, number>>][]) {
      for (const [tier, n] of Object.entries(tiers) as [EdgeTier, number][]) {
        byTier[tier] += n;
        byKind[kind] = (byKind[kind] ?? 0) + n;
      }
    }
    direct += unlisted.direct;
    total += unlisted.count;
  }
  return { direct, transitive: total - direct, byTier, byKind };
}

/** Every dependent of the answer, listed or only counted. */
export function dependentTotal(r: Pick<WhatBreaksResult, 'counts'>): number {
  return r.counts.direct + r.counts.transitive;
}
