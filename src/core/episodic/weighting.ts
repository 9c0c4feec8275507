import type { OutcomeStatus } from './model.js';
import type { MemoryOptions } from './options.js';

/*
 * How much an earlier attempt should count now. Ranking weight, not
 * confidence: an outcome's confidence stays high forever, but a failure
 * from last week on the symbol itself outranks a success from last year in
 * the same file. Failures and rejections weigh more than successes: they are
 * what an agent most needs to hear before repeating them.
 */

/** How an episode relates to the symbol asked about, from closest to farthest. */
export type Relation = 'self' | 'member' | 'container' | 'caller' | 'callee' | 'same-file';

export const RELATION_WEIGHT: Record<Relation, number> = {
  self: 1,
  member: 0.9,
  container: 0.6,
  caller: 0.6,
  callee: 0.5,
  'same-file': 0.35,
};

export const OUTCOME_WEIGHT: Record<OutcomeStatus, number> = {
  rejected: 1.2,
  failure: 1,
  success: 0.3,
  recorded: 0.3,
  cancelled: 0.2,
  interrupted: 0.2,
};

/** Share of rank weight an archived lesson keeps: shown only after every active one. */
export const ARCHIVED_FACTOR = 0.3;

export function recencyFactor(ageMs: number, o: Pick<MemoryOptions, 'recencyHalfLifeDays' | 'recencyFloor'>): number {
  const days = Math.max(0, ageMs) / 86_400_000;
  return o.recencyFloor + (1 - o.recencyFloor) * Math.pow(0.5, days / o.recencyHalfLifeDays);
}

/** 1 for a one-off; grows slowly with each similar episode (same symbol, same outcome), at most 2. */
export function frequencyFactor(similar: number): number {
  return Math.min(2, 1 + 0.25 * Math.log2(1 + Math.max(0, similar)));
}

export interface WeightFactors {
  readonly outcome: number;
  readonly recency: number;
  readonly frequency: number;
  readonly relation: number;
  readonly archived: number;
}

export function episodeWeight(f: WeightFactors): number {
  return f.outcome * f.recency * f.frequency * f.relation * f.archived;
}
