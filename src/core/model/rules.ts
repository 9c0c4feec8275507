/*
 * The vocabulary of a learned rule that more than the procedural memory
 * speaks: what_happened_before, what_breaks and ask all close with the rules
 * a change triggers, each with its standing. The procedural memory mines,
 * counts and promotes them (src/core/procedural); this is only their shape.
 */

export type RuleKind = 'order' | 'co-change';

/**
 * candidate: seen, not proven. proposed: proven (enough successes, Wilson
 * lower bound above the threshold, no recent failure), awaiting a person.
 * promoted: a person approved it into AGENTS.md. demotion-proposed: promoted
 * but failing since. demoted / rejected: a person took it out / said no.
 */
export type RuleStatus = 'candidate' | 'proposed' | 'promoted' | 'demotion-proposed' | 'demoted' | 'rejected';

export const RULE_STATUS_MEANING: Record<RuleStatus, string> = {
  candidate: 'mined from episodes, not yet proven — a hint, verify before relying on it',
  proposed: 'proven by its episodes, awaiting a person\'s approval',
  promoted: 'approved by a person and written into the always-loaded instructions',
  'demotion-proposed': 'promoted, but failing since — a person should review it',
  demoted: 'taken out of the instructions by a person',
  rejected: 'a person decided it is not a rule',
};

/** A rule a change triggers (a triggered hint), as answers carry it. */
export interface TriggeredRule {
  readonly id: number;
  readonly text: string;
  readonly kind: RuleKind;
  /** The rule's standing, which is its tier: promoted (a person approved it) › proposed (proven) › candidate (seen). */
  readonly status: RuleStatus;
  readonly meaning: string;
  readonly successes: number;
  readonly failures: number;
  readonly lowerBound: number;
  /** What in the change matched: a file glob or a symbol. */
  readonly matched: string;
  /** The rule has no trigger: it applies to every change (and belongs in AGENTS.md once promoted). */
  readonly always: boolean;
  readonly audit: string;
}
