import { tableExists } from '../episodic/store.js';
import { RULE_STATUS_MEANING, type RuleStatus, type TriggeredRule } from '../model/rules.js';
import type { Db } from '../store/db.js';
import { matchesTrigger } from './mine.js';
import { listRules } from './store.js';

/*
 * Triggered hints: rules that matter only when a change touches their
 * trigger (files under src/mappers, a given symbol). what_breaks and ask
 * call this with the files and symbols a change touches; promoted rules
 * that always apply live in AGENTS.md and are returned flagged `always`.
 */

const SHOWN: readonly RuleStatus[] = ['promoted', 'demotion-proposed', 'proposed', 'candidate'];
const RANK: Record<RuleStatus, number> = { promoted: 0, 'demotion-proposed': 1, proposed: 2, candidate: 3, demoted: 4, rejected: 5 };

/**
 * Rules whose trigger a change to these files or symbols touches. Candidates
 * are returned only once they have at least two successes: one success is an
 * anecdote, not a hint.
 */
export async function triggeredRules(db: Db, change: { paths?: readonly string[]; sids?: readonly string[] }, opts: { includeAlways?: boolean } = {}): Promise<TriggeredRule[]> {
  if (!(await tableExists(db, 'rules'))) return [];
  const paths = change.paths ?? [];
  const sids = new Set(change.sids ?? []);
  const out: TriggeredRule[] = [];
  for (const r of await listRules(db, { statuses: SHOWN })) {
    if (r.status === 'candidate' && r.successes < 2) continue;
    const always = !r.trigger.paths.length && !r.trigger.sids.length;
    let matched: string | null = null;
    if (always) matched = opts.includeAlways === false ? null : 'every change';
    for (const g of r.trigger.paths) if (!matched && paths.some((p) => matchesTrigger(g, p))) matched = g;
    r.trigger.sids.forEach((s, i) => {
      if (!matched && sids.has(s)) matched = r.trigger.qnames[i] ?? s;
    });
    if (!matched) continue;
    out.push({
      id: r.id,
      text: r.promotedText ?? r.text,
      kind: r.kind,
      status: r.status,
      meaning: RULE_STATUS_MEANING[r.status],
      successes: r.successes,
      failures: r.failures,
      lowerBound: Math.round(r.lowerBound * 100) / 100,
      matched,
      always,
      audit: `tenure rules audit ${r.id}`,
    });
  }
  return out.sort((a, b) => RANK[a.status] - RANK[b.status] || b.lowerBound - a.lowerBound);
}

/** Rules a change to this symbol triggers: through its file or the symbol itself (rules that apply to every change live in AGENTS.md). */
export function rulesForChangeTo(db: Db, target: { readonly path: string; readonly sid: string }): Promise<TriggeredRule[]> {
  return triggeredRules(db, { paths: [target.path], sids: [target.sid] }, { includeAlways: false });
}
