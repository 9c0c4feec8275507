import type { TriggeredRule } from '../model/rules.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { EdgeTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import { describeAge, type Clock } from './clock.js';
import { fingerprints, similarity, symbolsBySid } from './fingerprint.js';
import { CONCLUSION_MEANING, OUTCOME_MEANING, decayedConfidence, type Conclusion, type EpisodeProvenance, type OutcomeStatus } from './model.js';
import type { MemoryOptions } from './options.js';
import { conclusionsFor, loadEpisodes, touchesOn, type StoredEpisode } from './store.js';
import { ARCHIVED_FACTOR, OUTCOME_WEIGHT, RELATION_WEIGHT, episodeWeight, frequencyFactor, recencyFactor, type Relation, type WeightFactors } from './weighting.js';

/*
 * what_happened_before: earlier attempts on a symbol and its neighbourhood
 * (members, container, callers, callees, same file), ranked by recency,
 * frequency and outcome, each with its age, outcome and evidence. Outcomes
 * are the build system's word (high confidence, never decaying); the
 * conclusions an agent drew are shown apart, with their decayed confidence.
 * Reads SQLite only.
 */

export interface NeighbourLink {
  readonly relation: Relation;
  /** The symbol the episode touched, as it relates to the target. */
  readonly qname: string | null;
  readonly path: string;
  /** For callers and callees: the structural edge's tier. */
  readonly edgeTier: EdgeTier | null;
}

export interface ConclusionView {
  readonly id: number;
  readonly episodeId: number | null;
  readonly author: string;
  readonly authorKind: 'agent' | 'person';
  readonly text: string;
  readonly confidence: { readonly initial: number; readonly now: number; readonly halfLifeDays: number };
  readonly age: string;
  readonly at: string;
  /** Always true: a conclusion is someone's reading of an outcome, not an outcome. */
  readonly isConclusion: true;
  /** Set when it was pulled from the team store: the login that wrote it there. */
  readonly team?: { readonly recordedBy: string | null };
}

export interface HistoryEntry {
  readonly episode: {
    readonly id: number;
    readonly uid: string;
    readonly at: string;
    readonly age: string;
    readonly command: string | null;
    readonly kind: string | null;
    readonly intent: string | null;
    readonly source: string;
    readonly actor: string | null;
    readonly branch: string | null;
    readonly head: string | null;
    readonly commitMessage: string | null;
    readonly diff: { readonly files: number; readonly added: number; readonly removed: number };
    readonly durationMs: number;
    /** Set when the episode came from the team store or was recorded by CI: who wrote it, from where. */
    readonly provenance?: EpisodeProvenance;
  };
  readonly link: NeighbourLink;
  readonly touched: readonly { readonly qname: string | null; readonly path: string; readonly change: string; readonly lines: number }[];
  readonly outcome: {
    readonly kind: string;
    readonly status: OutcomeStatus;
    readonly source: string;
    readonly confidence: 'high';
    readonly exitCode: number | null;
    readonly evidence: string | null;
    readonly failingTests: readonly { readonly suite: string | null; readonly name: string; readonly message: string | null }[];
    readonly tests: { readonly total: number; readonly failed: number } | null;
  };
  readonly conclusions: readonly ConclusionView[];
  readonly weight: number;
  readonly factors: WeightFactors;
  /** How much of the touched code is still what it was (structural fingerprint); null when nothing to compare. */
  readonly drift: { readonly similarity: number | null; readonly symbolsGone: readonly string[]; readonly stale: boolean };
  readonly archived: { readonly at: string; readonly reason: string } | null;
}

export interface HistoryResult {
  readonly target: SymbolRef;
  readonly neighbourhood: { readonly members: number; readonly callers: number; readonly callees: number; readonly container: string | null; readonly file: string };
  readonly entries: readonly HistoryEntry[];
  /** Archived lessons that match: code that has changed or gone since. Shown apart, never mixed with the active ones. */
  readonly archived: readonly HistoryEntry[];
  /** Conclusions about the neighbourhood not attached to a listed episode. */
  readonly conclusions: readonly ConclusionView[];
  /** Procedural rules a change to this symbol triggers (triggered hints), with their standing: what the caller's `rulesFor` returned. */
  readonly rules: readonly TriggeredRule[];
  readonly counts: { readonly matching: number; readonly bySelf: number; readonly byStatus: Partial<Record<OutcomeStatus, number>>; readonly archived: number };
  readonly summary: string;
  readonly notSeen: readonly string[];
  readonly now: string;
}

interface Neighbour {
  sid: string | null;
  path: string;
  qname: string | null;
  relation: Relation;
  tier: EdgeTier | null;
}

/** The target's neighbourhood, closest relation first for each symbol. */
export async function neighbourhood(db: Db, target: SymbolRef): Promise<{ bySid: Map<string, Neighbour>; file: string; counts: HistoryResult['neighbourhood'] }> {
  const bySid = new Map<string, Neighbour>();
  const add = (n: Neighbour) => {
    if (!n.sid) return;
    const prev = bySid.get(n.sid);
    if (!prev || RELATION_WEIGHT[n.relation] > RELATION_WEIGHT[prev.relation]) bySid.set(n.sid, n);
  };
  add({ sid: target.sid, path: target.path, qname: target.qname, relation: 'self', tier: null });
  const row = await db.get<{ parent_id: number | null }>('SELECT parent_id FROM symbols WHERE id = ?', [target.id]);
  const members = await db.all<{ id: number; sid: string; qname: string; path: string }>(
    `WITH RECURSIVE d(id) AS (SELECT id FROM symbols WHERE parent_id = ? UNION ALL SELECT s.id FROM symbols s JOIN d ON s.parent_id = d.id)
     SELECT s.id, s.sid, s.qname, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT id FROM d)`,
    [target.id],
  );
  for (const m of members) add({ sid: m.sid, path: m.path, qname: m.qname, relation: 'member', tier: null });
  let container: string | null = null;
  if (row?.parent_id) {
    const p = await db.get<{ sid: string; qname: string; kind: string; path: string }>('SELECT s.sid, s.qname, s.kind, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?', [row.parent_id]);
    if (p && p.kind !== 'module') {
      container = p.qname;
      add({ sid: p.sid, path: p.path, qname: p.qname, relation: 'container', tier: null });
    }
  }
  const own = JSON.stringify([target.id, ...members.map((m) => m.id)]);
  const callers = await db.all<{ sid: string; qname: string; path: string; tier: EdgeTier }>(
    `SELECT s.sid, s.qname, f.path, e.tier FROM edges e JOIN symbols s ON s.id = e.src_id JOIN files f ON f.id = s.file_id
     WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND s.kind != 'module'`,
    [own],
  );
  for (const c of callers) add({ sid: c.sid, path: c.path, qname: c.qname, relation: 'caller', tier: c.tier });
  const callees = await db.all<{ sid: string; qname: string; path: string; tier: EdgeTier }>(
    `SELECT s.sid, s.qname, f.path, e.tier FROM edges e JOIN symbols s ON s.id = e.dst_id JOIN files f ON f.id = s.file_id
     WHERE e.src_id IN (SELECT value FROM json_each(?)) AND s.kind != 'module'`,
    [own],
  );
  for (const c of callees) add({ sid: c.sid, path: c.path, qname: c.qname, relation: 'callee', tier: c.tier });
  return {
    bySid,
    file: target.path,
    counts: {
      members: members.length,
      callers: new Set(callers.map((c) => c.sid)).size,
      callees: new Set(callees.map((c) => c.sid)).size,
      container,
      file: target.path,
    },
  };
}

function conclusionView(c: Conclusion, now: number): ConclusionView {
  return {
    id: c.id,
    episodeId: c.episodeId,
    author: c.author,
    authorKind: c.authorKind,
    text: c.text,
    confidence: { initial: c.confidence, now: round(decayedConfidence(c, now), 3), halfLifeDays: c.halfLifeDays },
    age: describeAge(now - c.at),
    at: new Date(c.at).toISOString(),
    isConclusion: true,
    ...(c.team ? { team: c.team } : {}),
  };
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export interface HistoryOptions {
  readonly clock: Clock;
  readonly options: MemoryOptions;
  readonly root: string;
  /**
   * The rules a change to the target triggers. Rules are the procedural
   * memory's, derived from episodes, so the episodic memory cannot ask for
   * them itself: the caller passes the procedural query (rulesForChangeTo).
   * Without it the answer lists no rules.
   */
  readonly rulesFor?: (target: SymbolRef) => Promise<readonly TriggeredRule[]>;
}

export async function whatHappenedBefore(db: Db, target: SymbolRef, limit: number, o: HistoryOptions): Promise<HistoryResult> {
  const now = o.clock.now();
  const hood = await neighbourhood(db, target);
  const sids = [...hood.bySid.keys()];
  const hits = await touchesOn(db, sids, hood.file);
  // The closest link of each episode to the target.
  const best = new Map<number, { link: NeighbourLink; sid: string | null; status: OutcomeStatus; startedAt: number; archived: boolean }>();
  for (const h of hits) {
    const n = h.sid ? hood.bySid.get(h.sid) : undefined;
    const link: NeighbourLink = n ? { relation: n.relation, qname: n.qname, path: n.path, edgeTier: n.tier } : { relation: 'same-file', qname: h.qname, path: h.path, edgeTier: null };
    const prev = best.get(h.episodeId);
    if (!prev || RELATION_WEIGHT[link.relation] > RELATION_WEIGHT[prev.link.relation]) {
      best.set(h.episodeId, { link, sid: n ? h.sid : null, status: h.status, startedAt: h.startedAt, archived: h.archived });
    }
  }
  // Frequency: how many other matching episodes share the same closest symbol and the same outcome.
  const similarKey = (b: { sid: string | null; link: NeighbourLink; status: OutcomeStatus }) => `${b.sid ?? b.link.path}\u0000${b.status}`;
  const similarCount = new Map<string, number>();
  for (const b of best.values()) similarCount.set(similarKey(b), (similarCount.get(similarKey(b)) ?? 0) + 1);
  const scored = [...best.entries()].map(([id, b]) => {
    const factors: WeightFactors = {
      outcome: OUTCOME_WEIGHT[b.status],
      recency: round(recencyFactor(now - b.startedAt, o.options), 4),
      frequency: round(frequencyFactor((similarCount.get(similarKey(b)) ?? 1) - 1), 4),
      relation: RELATION_WEIGHT[b.link.relation],
      archived: b.archived ? ARCHIVED_FACTOR : 1,
    };
    return { id, b, factors, weight: episodeWeight(factors) };
  });
  scored.sort((x, y) => y.weight - x.weight || y.b.startedAt - x.b.startedAt);
  const active = scored.filter((s) => !s.b.archived).slice(0, limit);
  const archivedShown = scored.filter((s) => s.b.archived).slice(0, Math.min(3, limit));
  const episodes = new Map((await loadEpisodes(db, [...active, ...archivedShown].map((s) => s.id))).map((e) => [e.id, e]));

  // Drift: compare the touched symbols' fingerprints then and now.
  const touchedSids = [...new Set([...episodes.values()].flatMap((e) => e.touches.filter((t) => t.sid && t.fingerprint).map((t) => t.sid!)))];
  const current = await symbolsBySid(db, touchedSids);
  const nowPrints = await fingerprints(db, o.root, [...current.values()]);

  const conclusions = await conclusionsFor(db, { episodeIds: [...episodes.keys()], sids, paths: [hood.file] });
  const listed = new Set<number>();
  const entry = (s: (typeof scored)[number]): HistoryEntry => {
    const e = episodes.get(s.id)!;
    const own = conclusions.filter((c) => c.episodeId === e.id);
    for (const c of own) listed.add(c.id);
    return toEntry(e, s.b.link, s.factors, s.weight, own, drift(e, current, nowPrints, o.options.archiveSimilarity), now);
  };
  const entries = active.filter((s) => episodes.has(s.id)).map(entry);
  const archived = archivedShown.filter((s) => episodes.has(s.id)).map(entry);
  const loose = conclusions.filter((c) => !listed.has(c.id) && !c.archivedAt).map((c) => conclusionView(c, now));

  const byStatus: Partial<Record<OutcomeStatus, number>> = {};
  for (const s of scored) if (!s.b.archived) byStatus[s.b.status] = (byStatus[s.b.status] ?? 0) + 1;
  const counts = {
    matching: scored.filter((s) => !s.b.archived).length,
    bySelf: scored.filter((s) => !s.b.archived && s.b.link.relation === 'self').length,
    byStatus,
    archived: scored.filter((s) => s.b.archived).length,
  };
  const notSeen = [
    'attempts made outside `tenure run`, the VS Code capture and imported reports',
    'CI and review outcomes not imported (`tenure import junit`, `tenure import github`)',
    'episodes on code that no longer matches a symbol id (renamed or moved symbols start a new history)',
  ];
  const rules = o.rulesFor ? await o.rulesFor(target) : [];
  const result: Omit<HistoryResult, 'summary'> = {
    target,
    neighbourhood: hood.counts,
    entries,
    archived,
    conclusions: loose,
    rules,
    counts,
    notSeen,
    now: new Date(now).toISOString(),
  };
  return { ...result, summary: historySentence(result, now) };
}

function drift(e: StoredEpisode, current: Map<string, unknown>, nowPrints: Map<string, string>, threshold: number): HistoryEntry['drift'] {
  const gone: string[] = [];
  const sims: number[] = [];
  for (const t of e.touches) {
    if (!t.sid || t.change === 'deleted') continue;
    if (!current.has(t.sid)) {
      gone.push(t.qname ?? t.sid);
      continue;
    }
    const p = nowPrints.get(t.sid);
    if (t.fingerprint && p) sims.push(similarity(t.fingerprint, p));
  }
  const sim = sims.length ? round(sims.reduce((a, b) => a + b, 0) / sims.length, 2) : null;
  const symbolTouches = e.touches.filter((t) => t.sid && t.change !== 'deleted').length;
  const stale = (sim !== null && sim < threshold) || (symbolTouches > 0 && gone.length === symbolTouches);
  return { similarity: sim, symbolsGone: gone, stale };
}

function toEntry(e: StoredEpisode, link: NeighbourLink, factors: WeightFactors, weight: number, conclusions: readonly Conclusion[], d: HistoryEntry['drift'], now: number): HistoryEntry {
  return {
    episode: {
      id: e.id,
      uid: e.uid,
      at: new Date(e.startedAt).toISOString(),
      age: describeAge(now - e.startedAt),
      command: e.command,
      kind: e.commandKind,
      intent: e.intent,
      source: e.source,
      actor: e.actor,
      branch: e.branch,
      head: e.head,
      commitMessage: e.commitMessage,
      diff: e.diff,
      durationMs: e.endedAt - e.startedAt,
      ...(e.provenance && (e.provenance.origin === 'team' || e.provenance.ci) ? { provenance: e.provenance } : {}),
    },
    link,
    touched: e.touches.slice(0, 8).map((t) => ({ qname: t.qname, path: t.path, change: t.change, lines: t.lines })),
    outcome: {
      kind: e.outcome.kind,
      status: e.outcome.status,
      source: e.outcome.source,
      confidence: 'high',
      exitCode: e.outcome.exitCode,
      evidence: e.outcome.evidence,
      failingTests: (e.tests?.failing ?? []).slice(0, 10).map((f) => ({ suite: f.suite, name: f.name, message: f.message })),
      tests: e.tests ? { total: e.tests.total, failed: e.tests.failed + e.tests.errors } : null,
    },
    conclusions: conclusions.map((c) => conclusionView(c, now)),
    weight: round(weight, 4),
    factors,
    drift: d,
    archived: e.archivedAt ? { at: new Date(e.archivedAt).toISOString(), reason: e.archiveReason ?? 'archived' } : null,
  };
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

function historySentence(r: Omit<HistoryResult, 'summary'>, now: number): string {
  const c = r.counts;
  if (!c.matching && !c.archived) {
    return `No earlier attempt on ${r.target.qname} or its neighbourhood is recorded${r.conclusions.length ? `; ${plural(r.conclusions.length, 'conclusion')} about it` : ''}. Absence of history is not evidence of safety: record attempts with \`tenure run -- <command>\`.`;
  }
  const parts: string[] = [];
  const order: OutcomeStatus[] = ['failure', 'rejected', 'success', 'cancelled', 'interrupted', 'recorded'];
  const words: Record<OutcomeStatus, string> = { failure: 'failed', rejected: 'rejected', success: 'succeeded', cancelled: 'cancelled', interrupted: 'interrupted before their outcome was recorded', recorded: 'recorded events' };
  for (const s of order) if (c.byStatus[s]) parts.push(`${c.byStatus[s]} ${words[s]}`);
  const last = r.entries[0] ? Date.parse(r.entries.reduce((a, b) => (a.episode.at > b.episode.at ? a : b)).episode.at) : null;
  let s = `${plural(c.matching, 'earlier attempt')} on ${r.target.qname} or its neighbourhood (${c.bySelf} on the symbol itself)`;
  if (parts.length) s += `: ${parts.join(', ')}`;
  if (last !== null) s += `; the latest ${describeAge(now - last)}`;
  if (c.archived) s += `; ${plural(c.archived, 'archived lesson')} about code that has changed since`;
  const stale = r.entries.filter((e) => e.drift.stale).length;
  if (stale) s += `; ${plural(stale, 'listed attempt')} touched code that has changed a lot since`;
  s += `. Outcomes: ${OUTCOME_MEANING}. Conclusions: ${CONCLUSION_MEANING}.`;
  return s;
}

const RELATION_WORDS: Record<Relation, string> = {
  self: 'the symbol itself',
  member: 'its member',
  container: 'its container',
  caller: 'its dependent',
  callee: 'its dependency',
  'same-file': 'the same file',
};

export function describeLink(l: NeighbourLink): string {
  if (l.relation === 'self') return 'touched the symbol itself';
  if (l.relation === 'same-file') return `touched ${l.qname ? `${l.qname} in ` : ''}the same file (${l.path})`;
  return `touched ${RELATION_WORDS[l.relation]} ${l.qname ?? l.path}${l.edgeTier ? ` (${l.edgeTier} edge)` : ''}`;
}
