import { episodeIdsByUid, episodeUidsById, tableExists } from '../episodic/store.js';
import type { RuleKind, RuleStatus } from '../model/rules.js';
import type { Db } from '../store/db.js';
import type { Evidence, Finding, Rule, Trigger } from './model.js';
import { wilsonLowerBound } from './wilson.js';

/** Reads and writes the procedural tables; the only module that knows their SQL shape. */

interface RuleRow {
  id: number;
  key: string;
  kind: RuleKind;
  text: string;
  trigger: string;
  action: string;
  status: RuleStatus;
  successes: number;
  failures: number;
  lower_bound: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  failures_since_promotion: number;
  first_seen_at: number;
  updated_at: number;
  promoted_at: number | null;
  promoted_text: string | null;
  reviewed_at: number | null;
  demoted_at: number | null;
  reason: string | null;
}

function toRule(r: RuleRow): Rule {
  return {
    id: r.id,
    key: r.key,
    kind: r.kind,
    text: r.text,
    trigger: JSON.parse(r.trigger) as Trigger,
    action: JSON.parse(r.action) as Record<string, unknown>,
    status: r.status,
    successes: r.successes,
    failures: r.failures,
    lowerBound: r.lower_bound,
    lastSuccessAt: r.last_success_at,
    lastFailureAt: r.last_failure_at,
    failuresSincePromotion: r.failures_since_promotion,
    firstSeenAt: r.first_seen_at,
    updatedAt: r.updated_at,
    promotedAt: r.promoted_at,
    promotedText: r.promoted_text,
    reviewedAt: r.reviewed_at,
    demotedAt: r.demoted_at,
    reason: r.reason,
  };
}

export async function listRules(db: Db, opts: { statuses?: readonly RuleStatus[] } = {}): Promise<Rule[]> {
  const rows = opts.statuses
    ? await db.all<RuleRow>('SELECT * FROM rules WHERE status IN (SELECT value FROM json_each(?)) ORDER BY id', [JSON.stringify(opts.statuses)])
    : await db.all<RuleRow>('SELECT * FROM rules ORDER BY id');
  return rows.map(toRule);
}

export async function getRule(db: Db, id: number): Promise<Rule | undefined> {
  const r = await db.get<RuleRow>('SELECT * FROM rules WHERE id = ?', [id]);
  return r ? toRule(r) : undefined;
}

export async function ruleEvidence(db: Db, id: number): Promise<Evidence[]> {
  const rows = await db.all<{ episode_id: number; role: 'success' | 'failure'; detail: string; at: number }>(
    'SELECT episode_id, role, detail, at FROM rule_evidence WHERE rule_id = ? ORDER BY at, episode_id',
    [id],
  );
  return rows.map((r) => ({ episodeId: r.episode_id, role: r.role, detail: r.detail, at: r.at }));
}

export interface RuleEvent {
  readonly id: number;
  readonly at: number;
  readonly event: string;
  readonly actor: string;
  readonly detail: unknown;
}

export async function ruleEvents(db: Db, id: number): Promise<RuleEvent[]> {
  const rows = await db.all<{ id: number; at: number; event: string; actor: string; detail: string | null }>('SELECT id, at, event, actor, detail FROM rule_events WHERE rule_id = ? ORDER BY at, id', [id]);
  return rows.map((r) => ({ id: r.id, at: r.at, event: r.event, actor: r.actor, detail: r.detail ? (JSON.parse(r.detail) as unknown) : null }));
}

export async function addEvent(db: Db, ruleId: number, at: number, event: string, actor: string, detail: unknown): Promise<void> {
  await db.run('INSERT INTO rule_events (rule_id, at, event, actor, detail) VALUES (?, ?, ?, ?, ?)', [ruleId, at, event, actor, detail === null ? null : JSON.stringify(detail)]);
}

/** Inserts a new finding as a candidate, or updates the stored rule's text, trigger, counters and evidence. */
export async function upsertFinding(
  db: Db,
  f: Finding,
  counters: { successes: number; failures: number; lowerBound: number; lastSuccessAt: number | null; lastFailureAt: number | null; failuresSincePromotion: number },
  now: number,
): Promise<{ id: number; created: boolean }> {
  const existing = await db.get<{ id: number }>('SELECT id FROM rules WHERE key = ?', [f.key]);
  let id: number;
  if (existing) {
    id = existing.id;
    await db.run(
      `UPDATE rules SET text = ?, trigger = ?, action = ?, successes = ?, failures = ?, lower_bound = ?, last_success_at = ?, last_failure_at = ?,
         failures_since_promotion = ?, updated_at = ? WHERE id = ?`,
      [f.text, JSON.stringify(f.trigger), JSON.stringify(f.action), counters.successes, counters.failures, counters.lowerBound, counters.lastSuccessAt, counters.lastFailureAt, counters.failuresSincePromotion, now, id],
    );
  } else {
    const r = await db.run(
      `INSERT INTO rules (key, kind, text, trigger, action, status, successes, failures, lower_bound, last_success_at, last_failure_at, failures_since_promotion, first_seen_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'candidate', ?, ?, ?, ?, ?, 0, ?, ?)`,
      [f.key, f.kind, f.text, JSON.stringify(f.trigger), JSON.stringify(f.action), counters.successes, counters.failures, counters.lowerBound, counters.lastSuccessAt, counters.lastFailureAt, now, now],
    );
    id = r.lastID;
    await addEvent(db, id, now, 'mined', 'tenure', { successes: counters.successes, failures: counters.failures });
  }
  await db.run('DELETE FROM rule_evidence WHERE rule_id = ?', [id]);
  for (const e of f.evidence) {
    await db.run('INSERT OR REPLACE INTO rule_evidence (rule_id, episode_id, role, detail, at) VALUES (?, ?, ?, ?, ?)', [id, e.episodeId, e.role, e.detail, e.at]);
  }
  return { id, created: !existing };
}

export async function setStatus(db: Db, id: number, status: RuleStatus, reason: string | null, extra: Partial<{ promotedAt: number | null; promotedText: string | null; demotedAt: number | null; reviewedAt: number | null }> = {}): Promise<void> {
  const sets = ['status = ?', 'reason = ?'];
  const params: (string | number | null)[] = [status, reason];
  const columns = { promotedAt: 'promoted_at', promotedText: 'promoted_text', demotedAt: 'demoted_at', reviewedAt: 'reviewed_at' } as const;
  for (const [key, column] of Object.entries(columns) as [keyof typeof columns, string][]) {
    if (!(key in extra)) continue;
    sets.push(`${column} = ?`);
    params.push(extra[key] ?? null);
  }
  params.push(id);
  await db.run(`UPDATE rules SET ${sets.join(', ')} WHERE id = ?`, params);
}

/** How many rules stand at each status (only the statuses some rule has): the procedural line of the status view. */
export async function ruleCountsByStatus(db: Db): Promise<Partial<Record<RuleStatus, number>>> {
  if (!(await tableExists(db, 'rules'))) return {};
  const rows = await db.all<{ status: RuleStatus; n: number }>('SELECT status, count(*) AS n FROM rules GROUP BY status');
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/*
 * What a team store needs to share rules between clones: the rules as mined
 * here with their evidence named by episode uid (counters are recounted from
 * evidence, never merged), and a person's decisions as events with a global
 * id, applied in time order so every clone ends at the latest decision.
 */

/** The events that are a person's decision; the others (mined, proposed, …) every clone derives itself. */
export const DECISIONS = ['promoted', 'demoted', 'rejected', 'kept'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface SharedRule {
  readonly key: string;
  readonly kind: RuleKind;
  readonly text: string;
  readonly trigger: Trigger;
  readonly action: Record<string, unknown>;
  readonly firstSeenAt: number;
  readonly minedAt: number;
  readonly evidence: readonly { readonly episodeUid: string; readonly role: 'success' | 'failure'; readonly detail: string; readonly at: number }[];
}

/** Rules mined here since `since` (their updated_at), with evidence by episode uid. */
export async function rulesMinedSince(db: Db, since: number): Promise<SharedRule[]> {
  const rows = await db.all<RuleRow>('SELECT * FROM rules WHERE updated_at > ? ORDER BY updated_at, id', [since]);
  const out: SharedRule[] = [];
  for (const r of rows.map(toRule)) {
    const ev = await ruleEvidence(db, r.id);
    const uids = await episodeUidsById(db, ev.map((e) => e.episodeId));
    out.push({
      key: r.key,
      kind: r.kind,
      text: r.text,
      trigger: r.trigger,
      action: r.action,
      firstSeenAt: r.firstSeenAt,
      minedAt: r.updatedAt,
      evidence: ev.filter((e) => uids.has(e.episodeId)).map((e) => ({ episodeUid: uids.get(e.episodeId)!, role: e.role, detail: e.detail, at: e.at })),
    });
  }
  return out;
}

export async function ruleByKey(db: Db, key: string): Promise<Rule | undefined> {
  const r = await db.get<RuleRow>('SELECT * FROM rules WHERE key = ?', [key]);
  return r ? toRule(r) : undefined;
}

/** A rule mined elsewhere and not (yet) here: stored as a candidate with the evidence this clone has episodes for. Call inside a write. */
export async function adoptSharedRule(db: Db, r: SharedRule, now: number): Promise<number> {
  const existing = await ruleByKey(db, r.key);
  if (existing) return existing.id;
  const ids = await episodeIdsByUid(db, r.evidence.map((e) => e.episodeUid));
  const evidence = r.evidence.filter((e) => ids.has(e.episodeUid)).map((e) => ({ episodeId: ids.get(e.episodeUid)!, role: e.role, detail: e.detail, at: e.at }));
  const ok = evidence.filter((e) => e.role === 'success');
  const bad = evidence.filter((e) => e.role === 'failure');
  const n = evidence.length;
  const { id } = await upsertFinding(
    db,
    { key: r.key, kind: r.kind, text: r.text, trigger: r.trigger, action: r.action, evidence },
    {
      successes: ok.length,
      failures: bad.length,
      lowerBound: wilsonLowerBound(ok.length, n),
      lastSuccessAt: ok.length ? Math.max(...ok.map((e) => e.at)) : null,
      lastFailureAt: bad.length ? Math.max(...bad.map((e) => e.at)) : null,
      failuresSincePromotion: 0,
    },
    now,
  );
  return id;
}

export interface SharedDecision {
  readonly uid: string;
  readonly ruleKey: string;
  readonly at: number;
  readonly event: Decision;
  readonly actor: string;
  readonly detail: unknown;
  /** The team store's login that wrote it; null for a decision taken here. */
  readonly recordedBy: string | null;
}

/** Decisions taken in this clone with an event id above `afterId`; each gets its global id (`<clone>:<id>`) on the way out. */
export async function localDecisionsAfter(db: Db, afterId: number, clone: string, limit: number): Promise<{ decisions: SharedDecision[]; lastId: number }> {
  const rows = await db.all<{ id: number; uid: string | null; origin: string | null; key: string; at: number; event: string; actor: string; detail: string | null }>(
    'SELECT e.id, e.uid, e.origin, r.key, e.at, e.event, e.actor, e.detail FROM rule_events e JOIN rules r ON r.id = e.rule_id WHERE e.id > ? ORDER BY e.id LIMIT ?',
    [afterId, limit],
  );
  const decisions = rows
    .filter((r) => r.origin === null && (DECISIONS as readonly string[]).includes(r.event))
    .map((r) => ({ uid: r.uid ?? `${clone}:${r.id}`, ruleKey: r.key, at: r.at, event: r.event as Decision, actor: r.actor, detail: r.detail ? (JSON.parse(r.detail) as unknown) : null, recordedBy: null }));
  return { decisions, lastId: rows.length ? rows[rows.length - 1]!.id : afterId };
}

/**
 * Applies a decision taken elsewhere: recorded as an event (once, by uid)
 * and, when it is the latest decision on that rule, its status follows —
 * promoted, demoted, rejected, kept. An older decision is kept in the audit
 * trail and changes nothing. Call inside a write; false when it was known.
 */
export async function applySharedDecision(db: Db, d: SharedDecision): Promise<boolean> {
  if (await db.get('SELECT 1 FROM rule_events WHERE uid = ?', [d.uid])) return false;
  const rule = await ruleByKey(db, d.ruleKey);
  if (!rule) return false;
  const latest = await db.get<{ at: number | null }>(
    'SELECT max(at) AS at FROM rule_events WHERE rule_id = ? AND event IN (SELECT value FROM json_each(?))',
    [rule.id, JSON.stringify(DECISIONS)],
  );
  await db.run("INSERT INTO rule_events (rule_id, at, event, actor, detail, uid, origin, recorded_by) VALUES (?, ?, ?, ?, ?, ?, 'team', ?)", [
    rule.id, d.at, d.event, d.actor, d.detail === null ? null : JSON.stringify(d.detail), d.uid, d.recordedBy,
  ]);
  if (latest?.at != null && latest.at > d.at) return true;
  const by = `${d.actor}${d.recordedBy ? ` (team store login ${d.recordedBy})` : ''}`;
  const text = typeof (d.detail as { text?: unknown } | null)?.text === 'string' ? (d.detail as { text: string }).text : rule.text;
  if (d.event === 'promoted') await setStatus(db, rule.id, 'promoted', `promoted by ${by}`, { promotedAt: d.at, promotedText: text, reviewedAt: null });
  else if (d.event === 'demoted') await setStatus(db, rule.id, 'demoted', `demoted by ${by}`, { demotedAt: d.at });
  else if (d.event === 'rejected') await setStatus(db, rule.id, 'rejected', `rejected by ${by}`);
  else await setStatus(db, rule.id, 'promoted', `kept by ${by} after a demotion proposal`, { reviewedAt: d.at });
  return true;
}
