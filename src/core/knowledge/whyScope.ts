import type { LinkTier } from '../model/tiers.js';
import type { DocumentRef, Quotation } from './quotes.js';

/*
 * What why_is_this is made of while it is being found: the symbol's scope
 * (itself, its members, its class, what it overrides, what it uses), the anchors by which a
 * source reaches it, and each source with the sentences chosen as reasons.
 * Shared by the finder (why.ts) and the sources read from code and history
 * (whyCode.ts).
 */

export type ScopeRelation = 'self' | 'member' | 'container' | 'overrides' | 'supertype' | 'uses';

export interface ScopeSymbol {
  readonly sid: string;
  readonly qname: string;
  readonly relation: ScopeRelation;
  /** For `uses`: the tier of the structural edge from the target. */
  readonly edgeTier?: string;
}

export interface Anchor {
  /** The entity as written in the documents. */
  readonly entity: string;
  readonly entityType: string;
  readonly tier: LinkTier;
  readonly symbol: { readonly sid: string; readonly qname: string };
  readonly relation: ScopeRelation;
  readonly reason: string;
}

/** The sentence chosen as a reason, and what made it one. */
export interface ReasonFound {
  readonly quote: Quotation;
  readonly score: number;
  /** What ties it to the symbol: "names RetryPolicy.MAX_ATTEMPTS", "states its value three". */
  readonly tiedBy?: string;
  /** How tightly the sentence (or its paragraph) is tied to the symbol. */
  readonly tie: number;
  /** It states a limit with its number. */
  readonly constraint: boolean;
}

export const TIER_RANK: Record<LinkTier, number> = { exact: 0, strong: 1, weak: 2, unresolved: 3 };
export const RELATION_RANK: Record<ScopeRelation, number> = { self: 0, member: 1, container: 1, overrides: 1, supertype: 1, uses: 2 };

/** A source reaching the symbol, as it is being found. */
export interface Reached {
  document: DocumentRef;
  tier: LinkTier;
  relation: ScopeRelation;
  hops: 1 | 2;
  anchors: Anchor[];
  via?: string;
  /** Reached as the record that supersedes `via`, which reaches the symbol (`superseded by ADR-0009`). */
  successor?: true;
  citedAt?: { path: string; line: number };
  /** The passage that names it, kept for when no sentence gives a reason. */
  passages: Quotation[];
  extractedBy: Set<string>;
  /** For sources that are not stored documents: the text to rank, and how to cite a sentence in it. */
  text?: { readonly body: string; readonly cite: (offset: number) => Omit<Quotation, 'quote' | 'document'>; readonly threaded: boolean };
  reasons: ReasonFound[];
  /** How likely its likeliest quoted sentence is a reason, by the fitted ranker (none without it): its rank among sources. */
  likelihood?: number;
  /** Reached by an affixed form of the symbol's name (`MsgRecoverClient` for RecoverClient): a decision record so reached is about it, whatever its tier. */
  affixed?: string;
  /** Its file is named for the symbol's subject (envoy-patch-policy.md for ProcessEnvoyPatchPolicies): the words. */
  namedFor?: string;
  /**
   * Reached as a document about a change that last wrote the symbol's lines: it names the change's pull request
   * (`PR #6036`), or its title is the change's subject (`commit 1a2b3c4`).
   */
  change?: string;
  /** The README of the folder the symbol sits in (or the nearest folder above it): about the code there as a whole. */
  folder?: string;
  /**
   * Linked because it is on the symbol's subject without naming it (and how it was reached before, when a
   * neighbour led to it): worth showing only for a reason it gives.
   */
  subject?: { readonly anchors: readonly Anchor[]; readonly before?: Pick<Reached, 'relation' | 'tier' | 'hops'> };
  /** A comment on or just above the line the question asked about, inside the symbol (`path:line`): what its authors wrote about that line. */
  atLine?: number;
}

/** Whether reaching by this tier and relation is better than `than`: the symbol itself before a neighbour, then a stronger tier, then closer. */
export function outranks(tier: LinkTier, relation: ScopeRelation, than: { readonly tier: LinkTier; readonly relation: ScopeRelation }): boolean {
  const self = relation === 'self' ? 0 : 1;
  const thanSelf = than.relation === 'self' ? 0 : 1;
  if (self !== thanSelf) return self < thanSelf;
  return TIER_RANK[tier] < TIER_RANK[than.tier] || (tier === than.tier && RELATION_RANK[relation] < RELATION_RANK[than.relation]);
}

export function addPassage(r: Reached, q: Quotation, first = false): void {
  if (r.passages.some((e) => e.quote === q.quote)) return;
  if (first) r.passages.unshift(q);
  else r.passages.push(q);
  r.passages.splice(2);
}

/**
 * A source reached before (through a neighbour, through another document, or less surely) that `anchor` finds
 * about the symbol itself: it becomes the symbol's own at the anchor's tier, the anchor said first.
 */
export function aboutItself(r: Reached, anchor: Anchor): void {
  r.relation = 'self';
  r.hops = 1;
  r.tier = anchor.tier;
  delete r.via;
  r.anchors.unshift(anchor);
}

export function reached(document: DocumentRef, tier: LinkTier, relation: ScopeRelation, extractedBy: Iterable<string>, hops: 1 | 2 = 1): Reached {
  return { document, tier, relation, hops, anchors: [], passages: [], extractedBy: new Set(extractedBy), reasons: [] };
}
