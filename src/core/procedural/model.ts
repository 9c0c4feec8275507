import type { RuleKind, RuleStatus } from '../model/rules.js';

/*
 * Procedural memory: how work is done here. A rule is mined from episodes,
 * counts its successes and failures, keeps its evidence, and reaches the
 * always-loaded instructions (AGENTS.md) only when a person approves the
 * exact change.
 */

/** When a rule applies: files matching one of the globs, or one of the symbols; empty = always. */
export interface Trigger {
  readonly paths: readonly string[];
  readonly sids: readonly string[];
  readonly qnames: readonly string[];
}

export interface Evidence {
  readonly episodeId: number;
  readonly role: 'success' | 'failure';
  /** In words: "ran npm run gen:mappers first; npm test passed". */
  readonly detail: string;
  readonly at: number;
}

/** What mining found, before it meets the stored rule. */
export interface Finding {
  readonly key: string;
  readonly kind: RuleKind;
  readonly text: string;
  readonly trigger: Trigger;
  readonly action: Record<string, unknown>;
  readonly evidence: readonly Evidence[];
}

export interface Rule {
  readonly id: number;
  readonly key: string;
  readonly kind: RuleKind;
  /** The text as mined now; `promotedText` is what a person approved. */
  readonly text: string;
  readonly trigger: Trigger;
  readonly action: Record<string, unknown>;
  readonly status: RuleStatus;
  readonly successes: number;
  readonly failures: number;
  readonly lowerBound: number;
  readonly lastSuccessAt: number | null;
  readonly lastFailureAt: number | null;
  readonly failuresSincePromotion: number;
  readonly firstSeenAt: number;
  readonly updatedAt: number;
  readonly promotedAt: number | null;
  readonly promotedText: string | null;
  readonly reviewedAt: number | null;
  readonly demotedAt: number | null;
  /** Why it is (not yet) proposed, in words. */
  readonly reason: string | null;
}
