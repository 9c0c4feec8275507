import { loadProjectCommands } from '../episodic/classify.js';
import { DAY_MS, type Clock } from '../episodic/clock.js';
import type { MemoryOptions } from '../episodic/options.js';
import { loadEpisodes, recentActiveEpisodeIds } from '../episodic/store.js';
import type { Workspace } from '../store/workspace.js';
import { mineFindings } from './mine.js';
import type { Finding, Rule } from './model.js';
import { addEvent, getRule, listRules, setStatus, upsertFinding } from './store.js';
import { wilsonLowerBound } from './wilson.js';

/*
 * Mining meets the stored rules: counters and evidence are recomputed from
 * the episodes (which are never deleted, so this is repeatable), and status
 * moves only as far as the evidence allows — candidate ⇄ proposed, promoted
 * → demotion-proposed. Promotion and demotion themselves are a person's
 * decision (promotion.ts), never taken here.
 */

export interface RefreshReport {
  readonly episodes: number;
  readonly findings: number;
  readonly created: readonly Rule[];
  /** Rules that became proposed for promotion in this refresh. */
  readonly proposed: readonly Rule[];
  /** Promoted rules that became proposed for demotion in this refresh. */
  readonly demotionProposed: readonly Rule[];
  readonly ms: number;
}

interface Proof {
  readonly proven: boolean;
  readonly reason: string;
}

/** Whether a rule's counters prove it, and why (not), in words. */
function proofOf(c: { successes: number; failures: number; lastFailureAt: number | null }, o: MemoryOptions, now: number): Proof {
  const n = c.successes + c.failures;
  const lb = wilsonLowerBound(c.successes, n);
  const counts = `${c.successes} success${c.successes === 1 ? '' : 'es'}, ${c.failures} failure${c.failures === 1 ? '' : 's'}, lower bound ${lb.toFixed(2)}`;
  if (c.successes < o.ruleMinSuccesses) return { proven: false, reason: `not yet proven: ${counts}; needs ${o.ruleMinSuccesses} successes` };
  if (lb < o.rulePromotionLowerBound) return { proven: false, reason: `not yet proven: ${counts} < ${o.rulePromotionLowerBound}` };
  if (c.lastFailureAt !== null && now - c.lastFailureAt < o.ruleRecentFailureDays * DAY_MS) {
    return { proven: false, reason: `not yet proven: ${counts}, but it failed ${Math.max(0, Math.round((now - c.lastFailureAt) / DAY_MS))} days ago (needs ${o.ruleRecentFailureDays} days without a failure)` };
  }
  return { proven: true, reason: `proven: ${counts} ≥ ${o.rulePromotionLowerBound}; no failure in the last ${o.ruleRecentFailureDays} days` };
}

function counters(f: Finding, since: number | null) {
  const ok = f.evidence.filter((e) => e.role === 'success');
  const bad = f.evidence.filter((e) => e.role === 'failure');
  return {
    successes: ok.length,
    failures: bad.length,
    lowerBound: wilsonLowerBound(ok.length, f.evidence.length),
    lastSuccessAt: ok.length ? Math.max(...ok.map((e) => e.at)) : null,
    lastFailureAt: bad.length ? Math.max(...bad.map((e) => e.at)) : null,
    failuresSincePromotion: since === null ? 0 : bad.filter((e) => e.at > since).length,
  };
}

export async function refreshRules(ws: Workspace, options: MemoryOptions, clock: Clock): Promise<RefreshReport> {
  const t0 = performance.now();
  const db = ws.db;
  const now = clock.now();
  const episodes = await loadEpisodes(db, await recentActiveEpisodeIds(db, options.ruleMiningEpisodes));
  const findings = mineFindings(episodes, loadProjectCommands(ws.root), options.commandPatterns);
  const before = new Map((await listRules(db)).map((r) => [r.key, r]));
  const created: number[] = [];
  const proposed: number[] = [];
  const demotion: number[] = [];
  await db.write(async (d) => {
    const seen = new Set<string>();
    for (const f of findings) {
      seen.add(f.key);
      const prev = before.get(f.key);
      const since = prev?.promotedAt != null ? Math.max(prev.promotedAt, prev.reviewedAt ?? 0) : null;
      const c = counters(f, since);
      const { id, created: isNew } = await upsertFinding(d, f, c, now);
      if (isNew) created.push(id);
      const status = prev?.status ?? 'candidate';
      if (status === 'candidate' || status === 'proposed') {
        const p = proofOf(c, options, now);
        if (p.proven && status === 'candidate') {
          await setStatus(d, id, 'proposed', p.reason);
          await addEvent(d, id, now, 'proposed', 'tenure', { successes: c.successes, failures: c.failures, lowerBound: c.lowerBound });
          proposed.push(id);
        } else if (!p.proven && status === 'proposed') {
          await setStatus(d, id, 'candidate', p.reason);
          await addEvent(d, id, now, 'unproposed', 'tenure', { reason: p.reason });
        } else await setStatus(d, id, status, p.reason);
      } else if (status === 'promoted' && c.failuresSincePromotion >= options.ruleDemotionMinFailures) {
        const reason = `failing since it was promoted: ${c.failuresSincePromotion} failure${c.failuresSincePromotion === 1 ? '' : 's'} since ${new Date(since!).toISOString().slice(0, 10)}`;
        await setStatus(d, id, 'demotion-proposed', reason);
        await addEvent(d, id, now, 'demotion-proposed', 'tenure', { failuresSincePromotion: c.failuresSincePromotion });
        demotion.push(id);
      }
    }
    for (const r of before.values()) {
      if (seen.has(r.key) || (r.status !== 'candidate' && r.status !== 'proposed')) continue;
      const reason = 'no longer supported by active episodes (the episodes that showed it were archived, or mining no longer finds it)';
      if (r.status === 'proposed') await addEvent(d, r.id, now, 'unproposed', 'tenure', { reason });
      await setStatus(d, r.id, 'candidate', reason);
    }
  });
  const load = async (list: number[]) => (await Promise.all(list.map((id) => getRule(db, id)))).filter((r): r is Rule => !!r);
  return { episodes: episodes.length, findings: findings.length, created: await load(created), proposed: await load(proposed), demotionProposed: await load(demotion), ms: performance.now() - t0 };
}
