import { tableExists } from '../episodic/store.js';
import type { RuleKind, RuleStatus } from '../model/rules.js';
import type { Db } from '../store/db.js';
import type { Evidence, Finding, Rule, Trigger } from './model.js';

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
