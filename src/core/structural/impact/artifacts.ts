import { EDGE_TIERS, weakerTier, type EdgeTier } from '../../model/tiers.js';
import type { Db } from '../../store/db.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import type { Dependent, DependencyKind, WhatBreaksResult } from './whatBreaks.js';

/*
 * What the source does not show, added to a what_breaks answer (issue 7):
 *
 *  - callers that reach the target only through dependency-injection wiring
 *    (the bean the container put behind an interface), tiered `observed`
 *    (actuator: a running application) or `resolved` (AOT: the build);
 *  - callers of symbols generated from the target (a record component's
 *    accessor, a Lombok getter), and callers of its implementations;
 *  - trace evidence for observed edges: when last seen, in which traces, and
 *    whether that was long enough ago to call the path stale;
 *  - the words of the lower-bound sentence: "3 observed in traces only",
 *    "1 generated method", "DI wiring from actuator beans of 2026-11-28".
 *
 * Reads SQLite only, like every query.
 */

type Result = Omit<WhatBreaksResult, 'summary'>;
type MutableDependent = { -readonly [K in keyof Dependent]: Dependent[K] } & { sites: Dependent['sites'][number][] };

export interface ObservedEvidence {
  readonly lastSeen: string;
  readonly firstSeen: string;
  readonly count: number;
  readonly traceIds: readonly string[];
  readonly via: string;
  readonly stale: boolean;
}

export interface ArtifactsSummary {
  /** Dependents whose only evidence is traces, by kind. */
  readonly tracesOnly: Partial<Record<DependencyKind, number>>;
  /** Dependents reached through DI wiring, by kind and tier. */
  readonly wired: Partial<Record<DependencyKind, { observed: number; resolved: number }>>;
  /** Generated methods among the dependents and implementations (compiler, annotation processors, Lombok, AOT). */
  readonly generated: number;
  /** Service endpoints without a symbol among the dependents (seen in traces). */
  readonly endpoints: number;
  /** Observed paths not seen for `staleAfterDays`. */
  readonly stale: number;
  readonly staleAfterDays: number;
  /** The wiring artifacts used, in words: "actuator beans of 2026-11-28 (profile prod)". */
  readonly wiring: readonly string[];
  /** Trace evidence per dependent symbol id. */
  readonly evidence: Readonly<Record<string, ObservedEvidence>>;
}

export interface ArtifactsOptions {
  readonly now?: number;
  readonly staleAfterDays?: number;
}

const DAY = 86_400_000;
const rank = (t: EdgeTier) => EDGE_TIERS.indexOf(t);
const ids = (list: Iterable<number>) => JSON.stringify([...list]);

interface SymRow {
  id: number;
  sid: string;
  name: string;
  qname: string;
  kind: SymbolRef['kind'];
  path: string;
  line: number;
  origin: string | null;
  parent_id: number | null;
}

interface EdgeHit {
  src_id: number;
  dst_id: number;
  kind: DependencyKind;
  tier: EdgeTier;
  source: string;
  reason: string;
  line: number;
  col: number;
  site_path: string;
}

const SYM = 'SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.origin, s.parent_id FROM symbols s JOIN files f ON f.id = s.file_id';

async function symbols(db: Db, idList: Iterable<number>): Promise<Map<number, SymRow>> {
  const rows = await db.all<SymRow>(`${SYM} WHERE s.id IN (SELECT value FROM json_each(?))`, [ids(idList)]);
  return new Map(rows.map((r) => [r.id, r]));
}

async function callersOf(db: Db, dst: Iterable<number>): Promise<EdgeHit[]> {
  return db.all<EdgeHit>(
    `SELECT e.src_id, e.dst_id, e.kind, e.tier, e.source, e.reason, e.line, e.col, f.path AS site_path FROM edges e JOIN files f ON f.id = e.file_id
       WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier != 'dynamic'
       ORDER BY CASE e.tier WHEN 'resolved' THEN 0 WHEN 'observed' THEN 1 WHEN 'inferred' THEN 2 ELSE 3 END`,
    [ids(dst)],
  );
}

function ref(s: SymRow): SymbolRef {
  return { id: s.id, sid: s.sid, name: s.name, qname: s.qname, kind: s.kind, path: s.path, line: s.line };
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Adds what artifacts show to a what_breaks result; the result is returned with its counts recomputed. */
export async function withArtifacts(db: Db, r: Result, options: ArtifactsOptions = {}): Promise<Result & { artifacts?: ArtifactsSummary }> {
  const artifacts = await db.all<{ kind: string; format: string; captured_at: number | null; profile: string | null }>(
    `SELECT kind, format, max(captured_at) AS captured_at, group_concat(DISTINCT profile) AS profile FROM artifacts GROUP BY kind, format`,
  );
  const has = (kind: string) => artifacts.some((a) => a.kind === kind);
  const now = options.now ?? Date.now();
  const staleAfterDays = options.staleAfterDays ?? Number((await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'traces.staleAfterDays'"))?.value ?? 30);
  const wiring = artifacts
    .filter((a) => a.kind === 'beans')
    .map((a) => `${a.format === 'actuator-beans' ? 'actuator beans' : 'Spring AOT output'} of ${a.captured_at ? day(a.captured_at) : 'unknown date'}${a.profile ? ` (profile ${a.profile})` : ''}`);
  const notSeen = r.notSeen.flatMap((n) => {
    if (n === 'DI wiring') return wiring.length ? [] : ['DI wiring (no actuator beans export or Spring AOT output imported)'];
    if (n === 'generated code' && has('bytecode')) return [];
    return [n];
  });
  if (!has('traces')) notSeen.push('callers in other services and through message topics (no traces imported)');
  if (!artifacts.length) return { ...r, notSeen };

  const target = r.target;
  const dependents = new Map<string, MutableDependent>(r.dependents.map((d) => [`${d.symbol.id}:${d.kind}`, { ...d, sites: [...d.sites] } as MutableDependent]));
  const add = (d: MutableDependent) => {
    const key = `${d.symbol.id}:${d.kind}`;
    const old = dependents.get(key);
    if (d.symbol.id === target.id) return;
    if (!old) {
      dependents.set(key, d);
      return;
    }
    if (rank(d.tier) < rank(old.tier) || (d.distance < old.distance && rank(d.tier) <= rank(old.tier))) {
      dependents.set(key, { ...d, provenance: { source: d.provenance.source, reason: `${d.provenance.reason}; also: ${old.provenance.reason}` } });
    }
  };
  const targetRow = await db.get<{ parent_id: number | null }>('SELECT parent_id FROM symbols WHERE id = ?', [target.id]);
  const isType = ['class', 'interface', 'enum', 'type'].includes(target.kind);
  const memberRows = isType ? await db.all<{ id: number; sid: string }>('SELECT id, sid FROM symbols WHERE parent_id = ?', [target.id]) : [];
  const ownSids = [target.sid, ...memberRows.map((m) => m.sid)];

  // ---- generated from the target: accessors of a field, members of a record, a mapper's implementation ----
  const derived = await db.all<SymRow>(`${SYM} WHERE s.derived_from IN (SELECT value FROM json_each(?)) AND s.origin != 'endpoint'`, [JSON.stringify(ownSids)]);
  for (const g of derived) {
    if (memberRows.some((m) => m.id === g.id) || [...dependents.values()].some((d) => d.symbol.id === g.id)) continue;
    add({ symbol: ref(g), kind: 'reference', tier: 'resolved', distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: g.path, line: g.line, col: 0 }], provenance: { source: 'bytecode', reason: `generated from it (${g.origin})` } });
  }
  if (derived.length) {
    const gs = new Map(derived.map((g) => [g.id, g]));
    const hits = await callersOf(db, gs.keys());
    const srcs = await symbols(db, hits.map((h) => h.src_id));
    for (const h of hits) {
      const s = srcs.get(h.src_id);
      const g = gs.get(h.dst_id)!;
      if (!s || s.id === target.id) continue;
      add({ symbol: ref(s), kind: h.kind, tier: h.tier, distance: 1, via: { sid: g.sid, name: g.name }, sites: [{ path: h.site_path, line: h.line, col: h.col }], provenance: { source: h.source, reason: `uses \`${g.name}\`, generated from \`${target.name}\` (${g.origin}): ${h.reason}` } });
    }
  }

  // ---- callers of its implementations: they break when an implementation has to change ----
  if (!isType && r.implementers.length && r.depth > 1) {
    const impls = new Map(r.implementers.map((i) => [i.symbol.id, i]));
    const hits = await callersOf(db, impls.keys());
    const srcs = await symbols(db, hits.map((h) => h.src_id));
    for (const h of hits) {
      const s = srcs.get(h.src_id);
      const impl = impls.get(h.dst_id)!;
      if (!s || impls.has(s.id) || s.kind === 'module') continue;
      add({
        symbol: ref(s), kind: h.kind, tier: weakerTier(impl.tier === 'observed' ? 'observed' : 'resolved', h.tier), distance: 2, via: { sid: impl.symbol.sid, name: impl.symbol.qname },
        sites: [{ path: h.site_path, line: h.line, col: h.col }], provenance: { source: h.source, reason: `calls the implementation \`${impl.symbol.name}\` of ${impl.symbol.qname.split('.').slice(-2, -1)[0] ?? ''}: ${h.reason}` },
      });
    }
  }

  // ---- DI wiring: consumers of the bean that call through the type they declared ----
  const wiredCallers = new Set<number>();
  const wiredCount: Partial<Record<DependencyKind, { observed: number; resolved: number }>> = {};
  const cls = isType ? { qname: target.qname } : targetRow?.parent_id ? await db.get<{ qname: string }>('SELECT qname FROM symbols WHERE id = ?', [targetRow.parent_id]) : undefined;
  if (cls && wiring.length) {
    const rows = await db.all<{ consumer_type: string; injection: string | null; declared_type: string; bean: string; bean_type: string; why: string; tier: EdgeTier; format: string }>(
      `SELECT w.consumer_type, w.injection, w.declared_type, w.bean, w.bean_type, w.why, w.tier, a.format FROM di_wiring w JOIN artifacts a ON a.file_id = w.file_id
         WHERE w.bean_type = ? ORDER BY CASE w.tier WHEN 'resolved' THEN 0 ELSE 1 END`,
      [cls.qname],
    );
    for (const w of rows) {
      const source = w.format === 'actuator-beans' ? 'di:actuator' : 'di:aot';
      const consumerPrefix = `${w.consumer_type}.`;
      if (isType) {
        const c = await db.get<SymRow>(`${SYM} WHERE s.qname = ? AND s.kind IN ('class', 'interface', 'enum') AND s.origin IS NULL`, [w.consumer_type]);
        if (c) add({ symbol: ref(c), kind: 'reference', tier: w.tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: c.path, line: c.line, col: 0 }], provenance: { source, reason: `receives it by injection: ${w.why}` } });
        continue;
      }
      if (w.declared_type === w.bean_type) continue; // injected as itself: its calls are ordinary calls
      const bases = await db.all<{ id: number; sid: string; qname: string }>(
        `SELECT m.id, m.sid, m.qname FROM symbols m JOIN symbols t ON t.id = m.parent_id WHERE m.name = ? AND t.qname = ?`,
        [target.name, w.declared_type],
      );
      if (!bases.length) continue;
      const hits = await callersOf(db, bases.map((b) => b.id));
      const srcs = await symbols(db, hits.map((h) => h.src_id));
      for (const h of hits) {
        const s = srcs.get(h.src_id);
        if (!s || !s.qname.startsWith(consumerPrefix)) continue;
        const base = bases.find((b) => b.id === h.dst_id)!;
        wiredCallers.add(s.id);
        const kind: DependencyKind = h.kind;
        add({
          symbol: ref(s), kind, tier: weakerTier(w.tier, h.tier === 'observed' ? 'observed' : 'resolved'), distance: 1, via: { sid: base.sid, name: base.qname },
          sites: [{ path: h.site_path, line: h.line, col: h.col }],
          provenance: { source, reason: `${kind === 'call' ? 'calls' : 'refers to'} ${base.qname}${w.injection ? ` on \`${w.injection}\`` : ''}, which the container fills with bean \`${w.bean}\` (${w.bean_type}): ${w.why}` },
        });
      }
    }
  }

  // ---- trace evidence ----
  const list = [...dependents.values()];
  const observedIds = list.filter((d) => d.tier === 'observed' && d.provenance.source === 'traces').map((d) => d.symbol.id);
  const evidence: Record<string, ObservedEvidence> = {};
  let stale = 0;
  const tracesOnly: Partial<Record<DependencyKind, number>> = {};
  if (has('traces')) {
    const all = await db.all<{ src_sid: string; dst_sid: string; first_seen: number; last_seen: number; count: number; trace_ids: string; via: string }>(
      `SELECT src_sid, dst_sid, min(first_seen) AS first_seen, max(last_seen) AS last_seen, sum(count) AS count, json_group_array(trace_ids) AS trace_ids, max(via) AS via
         FROM observations WHERE src_sid IN (SELECT value FROM json_each(?)) GROUP BY src_sid, dst_sid`,
      [JSON.stringify(list.map((d) => d.symbol.sid))],
    );
    for (const o of all) {
      const prev = evidence[o.src_sid];
      if (prev && Date.parse(prev.lastSeen) >= o.last_seen) continue;
      const traceIds = [...new Set((JSON.parse(o.trace_ids) as string[]).flatMap((t) => JSON.parse(t) as string[]))].slice(0, 10);
      evidence[o.src_sid] = { lastSeen: new Date(o.last_seen).toISOString(), firstSeen: new Date(o.first_seen).toISOString(), count: o.count, traceIds, via: o.via, stale: now - o.last_seen > staleAfterDays * DAY };
    }
    // A trace edge whose path a static edge also shows takes the static edge's tier: the trace then only confirms it.
    if (observedIds.length) {
      const reached = [target.id, ...memberRows.map((m) => m.id), ...r.implementers.map((i) => i.symbol.id), ...list.map((d) => d.symbol.id)];
      const statics = await db.all<{ src_id: number; tier: EdgeTier; source: string; reason: string }>(
        `SELECT src_id, tier, source, reason FROM edges WHERE src_id IN (SELECT value FROM json_each(?1)) AND dst_id IN (SELECT value FROM json_each(?2)) AND source != 'traces' AND tier IN ('resolved', 'inferred')
           ORDER BY CASE tier WHEN 'resolved' THEN 0 ELSE 1 END`,
        [ids(observedIds), ids(reached)],
      );
      for (const d of list) {
        if (d.tier !== 'observed' || d.provenance.source !== 'traces') continue;
        const s = statics.find((x) => x.src_id === d.symbol.id);
        if (s && s.tier === 'resolved') {
          d.tier = 'resolved';
          d.provenance = { source: s.source, reason: `${s.reason}; also seen in traces` };
        }
      }
    }
    for (const d of list) {
      const ev = evidence[d.symbol.sid];
      if (d.tier === 'observed' && d.provenance.source === 'traces') {
        tracesOnly[d.kind] = (tracesOnly[d.kind] ?? 0) + 1;
        if (ev?.stale) {
          stale++;
          d.provenance = { ...d.provenance, reason: `STALE (not seen since ${ev.lastSeen.slice(0, 10)}, over ${staleAfterDays} days): ${d.provenance.reason}` };
        }
      }
    }
  }
  // A hop made stronger above makes the paths through it stronger: their tier is their weakest hop again.
  const firstHop = new Map(list.filter((d) => d.distance === 1).map((d) => [d.symbol.sid, d.tier]));
  const further = list.filter((d) => d.distance > 1 && firstHop.has(d.via.sid));
  if (further.length) {
    const viaIds = await db.all<{ id: number; sid: string }>('SELECT id, sid FROM symbols WHERE sid IN (SELECT value FROM json_each(?))', [JSON.stringify([...new Set(further.map((d) => d.via.sid))])]);
    const hops = await db.all<{ src_id: number; dst_id: number; tier: EdgeTier }>(
      `SELECT src_id, dst_id, tier FROM edges WHERE src_id IN (SELECT value FROM json_each(?1)) AND dst_id IN (SELECT value FROM json_each(?2)) AND tier != 'dynamic'`,
      [ids(further.map((d) => d.symbol.id)), ids(viaIds.map((v) => v.id))],
    );
    for (const d of further) {
      const via = viaIds.find((v) => v.sid === d.via.sid);
      const best = hops.filter((h) => h.src_id === d.symbol.id && h.dst_id === via?.id).sort((a, b) => rank(a.tier) - rank(b.tier))[0];
      if (best) d.tier = weakerTier(firstHop.get(d.via.sid)!, best.tier);
    }
  }
  for (const d of list) {
    if (!wiredCallers.has(d.symbol.id) || !d.provenance.source.startsWith('di:')) continue;
    const c = (wiredCount[d.kind] ??= { observed: 0, resolved: 0 });
    if (d.tier === 'resolved') c.resolved++;
    else c.observed++;
  }

  // ---- generated and endpoint symbols among what the answer lists ----
  const listed = await symbols(db, [...list.map((d) => d.symbol.id), ...r.implementers.map((i) => i.symbol.id)]);
  const generated = [...listed.values()].filter((s) => s.origin && s.origin !== 'endpoint' && CALLABLE.has(s.kind)).length;
  for (const d of list) {
    const s = listed.get(d.symbol.id);
    if (s?.origin && s.origin !== 'endpoint' && !d.provenance.reason.startsWith('generated')) d.provenance = { ...d.provenance, reason: `[generated: ${s.origin}] ${d.provenance.reason}` };
  }
  const endpoints = [...listed.values()].filter((s) => s.origin === 'endpoint' && list.some((d) => d.symbol.id === s.id)).length;

  // Implementations the container wires: say so, whichever resolver listed them.
  const wiredImpls = r.implementers.length
    ? await db.all<{ impl_id: number; wired_by: string; source: string }>(
        `SELECT impl_id, wired_by, source FROM implementations WHERE wired_by IS NOT NULL AND impl_id IN (SELECT value FROM json_each(?)) AND base_id = ? ORDER BY source DESC`,
        [ids(r.implementers.map((i) => i.symbol.id)), target.id],
      )
    : [];
  const implementers = r.implementers.map((i) => {
    const w = wiredImpls.filter((x) => x.impl_id === i.symbol.id);
    if (!w.length || i.provenance.reason.includes('reached through')) return i;
    return { ...i, provenance: { source: i.provenance.source, reason: `${i.provenance.reason}; the container wires it (${[...new Set(w.map((x) => x.source))].join(', ')}): ${w[0]!.wired_by}` } };
  });
  // Callers the wiring shows are no longer only possible dispatches.
  const dispatches = r.dispatches.filter((d) => !wiredCallers.has(d.caller.id));
  const sorted = list.sort((a, b) => a.distance - b.distance || rank(a.tier) - rank(b.tier) || a.symbol.qname.localeCompare(b.symbol.qname));
  const byTier = Object.fromEntries(EDGE_TIERS.map((t) => [t, 0])) as Record<EdgeTier, number>;
  const byKind: Partial<Record<DependencyKind, number>> = {};
  for (const d of sorted) {
    byTier[d.tier]++;
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
  }
  const direct = sorted.filter((d) => d.distance === 1).length;
  const sources = new Set([...r.sources, ...sorted.map((d) => d.provenance.source)]);
  return {
    ...r,
    dependents: sorted,
    implementers,
    dispatches,
    counts: { direct, transitive: sorted.length - direct, byTier, byKind },
    notSeen,
    sources: [...sources].sort(),
    artifacts: { tracesOnly, wired: wiredCount, generated, endpoints, stale, staleAfterDays, wiring, evidence },
  };
}

const CALLABLE = new Set(['method', 'function', 'constructor']);

/** Words for the observed dependents of one kind: "3 observed in traces only, 1 observed through DI wiring". */
export function observedWords(a: ArtifactsSummary | undefined, kind: DependencyKind, count: number): string {
  if (!a) return `${count} observed`;
  const traces = a.tracesOnly[kind] ?? 0;
  const wired = a.wired[kind]?.observed ?? 0;
  const parts: string[] = [];
  if (traces) parts.push(`${traces} observed in traces only`);
  if (wired) parts.push(`${wired} observed through DI wiring`);
  const rest = count - traces - wired;
  if (rest > 0) parts.push(`${rest} observed`);
  return parts.join(', ') || `${count} observed`;
}

/** Clauses for the lower-bound sentence: generated methods, endpoints, stale paths, and which DI wiring was used. */
export function artifactExtras(a: ArtifactsSummary | undefined): string[] {
  if (!a) return [];
  const out: string[] = [];
  const wiredResolved = Object.values(a.wired).reduce((n, w) => n + (w?.resolved ?? 0), 0);
  if (wiredResolved) out.push(`${wiredResolved} reached through DI wiring the build resolved`);
  if (a.generated) out.push(`${a.generated} generated method${a.generated === 1 ? '' : 's'}`);
  if (a.endpoints) out.push(`${a.endpoints} service endpoint${a.endpoints === 1 ? '' : 's'} with no symbol (seen in traces)`);
  if (a.stale) out.push(`${a.stale} observed path${a.stale === 1 ? '' : 's'} stale (not seen for ${a.staleAfterDays} days)`);
  if (a.wiring.length) out.push(`DI wiring from ${a.wiring.join(' and ')}`);
  return out;
}
