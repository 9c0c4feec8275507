import { weakerTier, type EdgeTier } from '../../model/tiers.js';
import { CALLABLE_KINDS, TYPE_KINDS } from '../../model/structural.js';
import type { Db } from '../../store/db.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import { DEFAULT_STALE_AFTER_DAYS, STALE_AFTER_KEY } from '../sources/traces/model.js';
import { byDistanceTierName, countDependents, tierRank, type ArtifactsSummary, type Dependent, type DependencyKind, type MutableDependent, type ObservedEvidence, type WhatBreaksResult } from './result.js';

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

export interface ArtifactsOptions {
  readonly now?: number;
  readonly staleAfterDays?: number;
  /** The imported artifacts, when the caller has read them already (artifactGroups). */
  readonly groups?: readonly ArtifactGroup[];
}

const DAY = 86_400_000;
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

/** One kind and format of imported artifact, with when it was captured and for which profiles. */
export interface ArtifactGroup {
  kind: string;
  format: string;
  captured_at: number | null;
  profile: string | null;
}

/** The target as the steps below need it: whether it is a type, its members, the type it is a member of. */
interface TargetShape {
  readonly isType: boolean;
  readonly parentId: number | null;
  readonly members: readonly { id: number; sid: string }[];
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

/** Callers of `dst` with the calling symbols' rows. */
async function callersWithSymbols(db: Db, dst: Iterable<number>): Promise<{ hits: EdgeHit[]; srcs: Map<number, SymRow> }> {
  const hits = await callersOf(db, dst);
  return { hits, srcs: await symbols(db, hits.map((h) => h.src_id)) };
}

function ref(s: SymRow): SymbolRef {
  return { id: s.id, sid: s.sid, name: s.name, qname: s.qname, kind: s.kind, path: s.path, line: s.line };
}

function siteOf(h: EdgeHit): { path: string; line: number; col: number } {
  return { path: h.site_path, line: h.line, col: h.col };
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The dependents of the answer, one per symbol and kind. What an artifact
 * adds replaces what is there only when it is stronger, or nearer at no
 * weaker tier; the reason it replaces is kept beside its own.
 */
class DependentSet {
  private readonly byKey: Map<string, MutableDependent>;

  constructor(
    private readonly target: SymbolRef,
    dependents: readonly Dependent[],
  ) {
    this.byKey = new Map(dependents.map((d) => [`${d.symbol.id}:${d.kind}`, { ...d, sites: [...d.sites] } as MutableDependent]));
  }

  add(d: MutableDependent): void {
    const key = `${d.symbol.id}:${d.kind}`;
    const old = this.byKey.get(key);
    if (d.symbol.id === this.target.id) return;
    if (!old) {
      this.byKey.set(key, d);
      return;
    }
    if (tierRank(d.tier) < tierRank(old.tier) || (d.distance < old.distance && tierRank(d.tier) <= tierRank(old.tier))) {
      this.byKey.set(key, { ...d, provenance: { source: d.provenance.source, reason: `${d.provenance.reason}; also: ${old.provenance.reason}` } });
    }
  }

  includes(symbolId: number): boolean {
    return [...this.byKey.values()].some((d) => d.symbol.id === symbolId);
  }

  list(): MutableDependent[] {
    return [...this.byKey.values()];
  }
}

/** Adds what artifacts show to a what_breaks result; the result is returned with its counts recomputed. */
/** The artifacts imported into this workspace, by kind and format. */
export function artifactGroups(db: Db): Promise<ArtifactGroup[]> {
  return db.all<ArtifactGroup>(`SELECT kind, format, max(captured_at) AS captured_at, group_concat(DISTINCT profile) AS profile FROM artifacts GROUP BY kind, format`);
}

export async function withArtifacts(db: Db, r: Result, options: ArtifactsOptions = {}): Promise<Result & { artifacts?: ArtifactsSummary }> {
  const artifacts = options.groups ?? (await artifactGroups(db));
  if (!artifacts.length) return r;
  const has = (kind: string) => artifacts.some((a) => a.kind === kind);
  const now = options.now ?? Date.now();
  const staleAfterDays = options.staleAfterDays ?? Number((await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [STALE_AFTER_KEY]))?.value ?? DEFAULT_STALE_AFTER_DAYS);
  const wiring = wiringWords(artifacts);

  const target = r.target;
  const shape = await shapeOf(db, target);
  const dependents = new DependentSet(target, r.dependents);
  await addGenerated(db, dependents, target, shape);
  if (!shape.isType && r.implementers.length && r.depth > 1) await addImplementationCallers(db, dependents, r.implementers);
  const wiredCallers = wiring.length ? await addWiredCallers(db, dependents, target, shape) : new Set<number>();

  const list = dependents.list();
  const traces = has('traces')
    ? await traceEvidence(db, list, [target.id, ...shape.members.map((m) => m.id), ...r.implementers.map((i) => i.symbol.id), ...list.map((d) => d.symbol.id)], now, staleAfterDays)
    : { evidence: {}, stale: 0, tracesOnly: {} };
  await strengthenPaths(db, list);
  const wired = countWired(list, wiredCallers);
  const { generated, endpoints } = await markGenerated(db, list, r.implementers);
  const implementers = await markWiredImplementations(db, r.implementers, target.id);
  // Callers the wiring shows are no longer only possible dispatches.
  const dispatches = r.dispatches.filter((d) => !wiredCallers.has(d.caller.id));
  const sorted = list.sort(byDistanceTierName);
  const sources = new Set([...r.sources, ...sorted.map((d) => d.provenance.source)]);
  return {
    ...r,
    dependents: sorted,
    implementers,
    dispatches,
    counts: countDependents(sorted, r.unlisted),
    sources: [...sources].sort(),
    artifacts: { tracesOnly: traces.tracesOnly, wired, generated, endpoints, stale: traces.stale, staleAfterDays, wiring, evidence: traces.evidence },
  };
}

/** The wiring artifacts in words: "actuator beans of 2026-11-28 (profile prod)". */
function wiringWords(artifacts: readonly ArtifactGroup[]): string[] {
  return artifacts
    .filter((a) => a.kind === 'beans')
    .map((a) => `${a.format === 'actuator-beans' ? 'actuator beans' : 'Spring AOT output'} of ${a.captured_at ? day(a.captured_at) : 'unknown date'}${a.profile ? ` (profile ${a.profile})` : ''}`);
}

async function shapeOf(db: Db, target: SymbolRef): Promise<TargetShape> {
  const row = await db.get<{ parent_id: number | null }>('SELECT parent_id FROM symbols WHERE id = ?', [target.id]);
  const isType = TYPE_KINDS.has(target.kind);
  const members = isType ? await db.all<{ id: number; sid: string }>('SELECT id, sid FROM symbols WHERE parent_id = ?', [target.id]) : [];
  return { isType, parentId: row?.parent_id ?? null, members };
}

/** Generated from the target (accessors of a field, members of a record, a mapper's implementation), and their callers. */
async function addGenerated(db: Db, dependents: DependentSet, target: SymbolRef, shape: TargetShape): Promise<void> {
  const ownSids = [target.sid, ...shape.members.map((m) => m.sid)];
  const derived = await db.all<SymRow>(`${SYM} WHERE s.derived_from IN (SELECT value FROM json_each(?)) AND s.origin != 'endpoint'`, [JSON.stringify(ownSids)]);
  for (const g of derived) {
    if (shape.members.some((m) => m.id === g.id) || dependents.includes(g.id)) continue;
    dependents.add({ symbol: ref(g), kind: 'reference', tier: 'resolved', distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: g.path, line: g.line, col: 0 }], provenance: { source: 'bytecode', reason: `generated from it (${g.origin})` } });
  }
  if (!derived.length) return;
  const gs = new Map(derived.map((g) => [g.id, g]));
  const { hits, srcs } = await callersWithSymbols(db, gs.keys());
  for (const h of hits) {
    const s = srcs.get(h.src_id);
    const g = gs.get(h.dst_id)!;
    if (!s || s.id === target.id) continue;
    dependents.add({ symbol: ref(s), kind: h.kind, tier: h.tier, distance: 1, via: { sid: g.sid, name: g.name }, sites: [siteOf(h)], provenance: { source: h.source, reason: `uses \`${g.name}\`, generated from \`${target.name}\` (${g.origin}): ${h.reason}` } });
  }
}

/** Callers of its implementations: they break when an implementation has to change. */
async function addImplementationCallers(db: Db, dependents: DependentSet, implementers: readonly Dependent[]): Promise<void> {
  const impls = new Map(implementers.map((i) => [i.symbol.id, i]));
  const { hits, srcs } = await callersWithSymbols(db, impls.keys());
  for (const h of hits) {
    const s = srcs.get(h.src_id);
    const impl = impls.get(h.dst_id)!;
    if (!s || impls.has(s.id) || s.kind === 'module') continue;
    dependents.add({
      symbol: ref(s), kind: h.kind, tier: weakerTier(impl.tier === 'observed' ? 'observed' : 'resolved', h.tier), distance: 2, via: { sid: impl.symbol.sid, name: impl.symbol.qname },
      sites: [siteOf(h)], provenance: { source: h.source, reason: `calls the implementation \`${impl.symbol.name}\` of ${impl.symbol.qname.split('.').slice(-2, -1)[0] ?? ''}: ${h.reason}` },
    });
  }
}

/**
 * DI wiring: consumers of the bean that call through the type they declared.
 * For a type, its consumers; for a member, the calls consumers make through
 * the declared type's same-named member. Returns the callers the wiring showed.
 */
async function addWiredCallers(db: Db, dependents: DependentSet, target: SymbolRef, shape: TargetShape): Promise<Set<number>> {
  const wiredCallers = new Set<number>();
  const cls = shape.isType ? { qname: target.qname } : shape.parentId ? await db.get<{ qname: string }>('SELECT qname FROM symbols WHERE id = ?', [shape.parentId]) : undefined;
  if (!cls) return wiredCallers;
  const rows = await db.all<{ consumer_type: string; injection: string | null; declared_type: string; bean: string; bean_type: string; why: string; tier: EdgeTier; format: string }>(
    `SELECT w.consumer_type, w.injection, w.declared_type, w.bean, w.bean_type, w.why, w.tier, a.format FROM di_wiring w JOIN artifacts a ON a.file_id = w.file_id
       WHERE w.bean_type = ? ORDER BY CASE w.tier WHEN 'resolved' THEN 0 ELSE 1 END`,
    [cls.qname],
  );
  for (const w of rows) {
    const source = w.format === 'actuator-beans' ? 'di:actuator' : 'di:aot';
    if (shape.isType) {
      const c = await db.get<SymRow>(`${SYM} WHERE s.qname = ? AND s.kind IN ('class', 'interface', 'enum') AND s.origin IS NULL`, [w.consumer_type]);
      if (c) dependents.add({ symbol: ref(c), kind: 'reference', tier: w.tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: c.path, line: c.line, col: 0 }], provenance: { source, reason: `receives it by injection: ${w.why}` } });
      continue;
    }
    if (w.declared_type === w.bean_type) continue; // injected as itself: its calls are ordinary calls
    const bases = await db.all<{ id: number; sid: string; qname: string }>(
      `SELECT m.id, m.sid, m.qname FROM symbols m JOIN symbols t ON t.id = m.parent_id WHERE m.name = ? AND t.qname = ?`,
      [target.name, w.declared_type],
    );
    if (!bases.length) continue;
    const { hits, srcs } = await callersWithSymbols(db, bases.map((b) => b.id));
    for (const h of hits) {
      const s = srcs.get(h.src_id);
      if (!s || !s.qname.startsWith(`${w.consumer_type}.`)) continue;
      const base = bases.find((b) => b.id === h.dst_id)!;
      wiredCallers.add(s.id);
      const kind: DependencyKind = h.kind;
      dependents.add({
        symbol: ref(s), kind, tier: weakerTier(w.tier, h.tier === 'observed' ? 'observed' : 'resolved'), distance: 1, via: { sid: base.sid, name: base.qname },
        sites: [siteOf(h)],
        provenance: { source, reason: `${kind === 'call' ? 'calls' : 'refers to'} ${base.qname}${w.injection ? ` on \`${w.injection}\`` : ''}, which the container fills with bean \`${w.bean}\` (${w.bean_type}): ${w.why}` },
      });
    }
  }
  return wiredCallers;
}

const seenInTracesOnly = (d: Dependent) => d.tier === 'observed' && d.provenance.source === 'traces';

/**
 * Trace evidence for the dependents: when each was last seen and in which
 * traces; a trace edge a static edge confirms takes the static tier; the
 * paths seen in traces only are counted, and marked stale when not seen for
 * `staleAfterDays`.
 */
async function traceEvidence(
  db: Db,
  list: MutableDependent[],
  reached: readonly number[],
  now: number,
  staleAfterDays: number,
): Promise<{ evidence: Record<string, ObservedEvidence>; stale: number; tracesOnly: Partial<Record<DependencyKind, number>> }> {
  const observedIds = list.filter(seenInTracesOnly).map((d) => d.symbol.id);
  const evidence = await observationsOf(db, list, now, staleAfterDays);
  if (observedIds.length) await confirmStatically(db, list, observedIds, reached);
  let stale = 0;
  const tracesOnly: Partial<Record<DependencyKind, number>> = {};
  for (const d of list) {
    if (!seenInTracesOnly(d)) continue;
    tracesOnly[d.kind] = (tracesOnly[d.kind] ?? 0) + 1;
    const ev = evidence[d.symbol.sid];
    if (ev?.stale) {
      stale++;
      d.provenance = { ...d.provenance, reason: `STALE (not seen since ${ev.lastSeen.slice(0, 10)}, over ${staleAfterDays} days): ${d.provenance.reason}` };
    }
  }
  return { evidence, stale, tracesOnly };
}

/** The latest observation of each dependent, with up to ten of the traces that showed it. */
async function observationsOf(db: Db, list: readonly Dependent[], now: number, staleAfterDays: number): Promise<Record<string, ObservedEvidence>> {
  const evidence: Record<string, ObservedEvidence> = {};
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
  return evidence;
}

/** A trace edge whose path a static edge also shows takes the static edge's tier: the trace then only confirms it. */
async function confirmStatically(db: Db, list: MutableDependent[], observedIds: readonly number[], reached: readonly number[]): Promise<void> {
  const statics = await db.all<{ src_id: number; tier: EdgeTier; source: string; reason: string }>(
    `SELECT src_id, tier, source, reason FROM edges WHERE src_id IN (SELECT value FROM json_each(?1)) AND dst_id IN (SELECT value FROM json_each(?2)) AND source != 'traces' AND tier IN ('resolved', 'inferred')
       ORDER BY CASE tier WHEN 'resolved' THEN 0 ELSE 1 END`,
    [ids(observedIds), ids(reached)],
  );
  for (const d of list) {
    if (!seenInTracesOnly(d)) continue;
    const s = statics.find((x) => x.src_id === d.symbol.id);
    if (s && s.tier === 'resolved') {
      d.tier = 'resolved';
      d.provenance = { source: s.source, reason: `${s.reason}; also seen in traces` };
    }
  }
}

/** A hop made stronger above makes the paths through it stronger: their tier is their weakest hop again. */
async function strengthenPaths(db: Db, list: MutableDependent[]): Promise<void> {
  const firstHop = new Map(list.filter((d) => d.distance === 1).map((d) => [d.symbol.sid, d.tier]));
  const further = list.filter((d) => d.distance > 1 && firstHop.has(d.via.sid));
  if (!further.length) return;
  const viaIds = await db.all<{ id: number; sid: string }>('SELECT id, sid FROM symbols WHERE sid IN (SELECT value FROM json_each(?))', [JSON.stringify([...new Set(further.map((d) => d.via.sid))])]);
  const hops = await db.all<{ src_id: number; dst_id: number; tier: EdgeTier }>(
    `SELECT src_id, dst_id, tier FROM edges WHERE src_id IN (SELECT value FROM json_each(?1)) AND dst_id IN (SELECT value FROM json_each(?2)) AND tier != 'dynamic'`,
    [ids(further.map((d) => d.symbol.id)), ids(viaIds.map((v) => v.id))],
  );
  for (const d of further) {
    const via = viaIds.find((v) => v.sid === d.via.sid);
    const best = hops.filter((h) => h.src_id === d.symbol.id && h.dst_id === via?.id).sort((a, b) => tierRank(a.tier) - tierRank(b.tier))[0];
    if (best) d.tier = weakerTier(firstHop.get(d.via.sid)!, best.tier);
  }
}

/** Dependents the wiring showed, by kind and by whether the build (resolved) or a running application (observed) showed it. */
function countWired(list: readonly Dependent[], wiredCallers: ReadonlySet<number>): Partial<Record<DependencyKind, { observed: number; resolved: number }>> {
  const wired: Partial<Record<DependencyKind, { observed: number; resolved: number }>> = {};
  for (const d of list) {
    if (!wiredCallers.has(d.symbol.id) || !d.provenance.source.startsWith('di:')) continue;
    const c = (wired[d.kind] ??= { observed: 0, resolved: 0 });
    if (d.tier === 'resolved') c.resolved++;
    else c.observed++;
  }
  return wired;
}

/** Generated and endpoint symbols among what the answer lists: counted, and generated ones say what wrote them. */
async function markGenerated(db: Db, list: MutableDependent[], implementers: readonly Dependent[]): Promise<{ generated: number; endpoints: number }> {
  const listed = await symbols(db, [...list.map((d) => d.symbol.id), ...implementers.map((i) => i.symbol.id)]);
  const generated = [...listed.values()].filter((s) => s.origin && s.origin !== 'endpoint' && CALLABLE_KINDS.has(s.kind)).length;
  for (const d of list) {
    const s = listed.get(d.symbol.id);
    if (s?.origin && s.origin !== 'endpoint' && !d.provenance.reason.startsWith('generated')) d.provenance = { ...d.provenance, reason: `[generated: ${s.origin}] ${d.provenance.reason}` };
  }
  const endpoints = [...listed.values()].filter((s) => s.origin === 'endpoint' && list.some((d) => d.symbol.id === s.id)).length;
  return { generated, endpoints };
}

/** Implementations the container wires: say so, whichever resolver listed them. */
async function markWiredImplementations(db: Db, implementers: readonly Dependent[], targetId: number): Promise<readonly Dependent[]> {
  if (!implementers.length) return implementers;
  const wiredImpls = await db.all<{ impl_id: number; wired_by: string; source: string }>(
    `SELECT impl_id, wired_by, source FROM implementations WHERE wired_by IS NOT NULL AND impl_id IN (SELECT value FROM json_each(?)) AND base_id = ? ORDER BY source DESC`,
    [ids(implementers.map((i) => i.symbol.id)), targetId],
  );
  return implementers.map((i) => {
    const w = wiredImpls.filter((x) => x.impl_id === i.symbol.id);
    if (!w.length || i.provenance.reason.includes('reached through')) return i;
    return { ...i, provenance: { source: i.provenance.source, reason: `${i.provenance.reason}; the container wires it (${[...new Set(w.map((x) => x.source))].join(', ')}): ${w[0]!.wired_by}` } };
  });
}

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
