import type { Clock } from '../episodic/clock.js';
import { maybeEvict, type EvictionReport } from '../episodic/eviction.js';
import type { Episode } from '../episodic/model.js';
import type { MemoryOptions } from '../episodic/options.js';
import type { Workspace } from '../store/workspace.js';
import { refreshRules, type RefreshReport } from './refresh.js';

/*
 * What follows a recorded outcome, for every front door that records one
 * (`tenure run`, `tenure import …`, the editor's capture): archive what has
 * gone stale, then re-mine the rules. It lives here, not in the episodic
 * memory, because rules are derived from episodes: the procedural memory
 * reads the episodic one, never the reverse.
 */

export interface OutcomeNews {
  readonly evicted: EvictionReport | null;
  readonly rules: RefreshReport;
}

const NO_RULE_NEWS: RefreshReport = { episodes: 0, findings: 0, created: [], proposed: [], demotionProposed: [], ms: 0 };

/**
 * Only an episode that can change a rule re-mines them: a test or build run,
 * a review or a CI result (a generator or lint run completes no observation
 * on its own). Without an episode (a bulk import) the rules are re-mined.
 */
function canChangeRules(episode: Pick<Episode, 'commandKind' | 'outcome'> | undefined): boolean {
  return !episode || episode.commandKind === 'test' || episode.commandKind === 'build' || ['test', 'build', 'review', 'ci'].includes(episode.outcome.kind);
}

/** After an outcome: archive what has gone stale (at most every few hours) and re-mine the rules the episode can change. */
export async function afterOutcome(ws: Workspace, options: MemoryOptions, clock: Clock, episode?: Pick<Episode, 'commandKind' | 'outcome'>): Promise<OutcomeNews> {
  const evicted = await maybeEvict(ws, options, clock);
  const rules = canChangeRules(episode) ? await refreshRules(ws, options, clock) : NO_RULE_NEWS;
  return { evicted, rules };
}
