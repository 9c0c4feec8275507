import { EDGE_TIERS, weakerTier, type EdgeTier } from '../../model/tiers.js';
import { CALLABLE_KINDS, DATA_KINDS, TYPE_KINDS, type EdgeBinding, type EdgeKind } from '../../model/structural.js';
import { isCode, languageById } from '../inventory/languages.js';
import type { Db } from '../../store/db.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import { baseMembersOf, supertypes } from '../lookup.js';
import { resolutionStatus } from '../enrichment/enrich.js';
import { artifactExtras, artifactGroups, observedWords, withArtifacts } from './artifacts.js';
import { sameNamespace, workspaceGaps } from './notSeen.js';
import { UNKNOWN_RECEIVER } from '../index/resolve.js';
import { byDistanceTierName, countDependents, dependentTotal, dispatchTotal, unlistedOf, type Dependent, type DependencyKind, type Dispatch, type DynamicSite, type MutableDependent, type Site, type UnlistedDependents, type WhatBreaksResult } from './result.js';
import { byCodeUnits } from '../../../shared/order.js';

interface EdgeRow {
  id: number;
  site_id: number | null;
  src_id: number;
  dst_id: number;
  kind: EdgeKind;
  tier: EdgeTier;
  source: string;
  reason: string;
  candidates: number;
  line: number;
  col: number;
  binding: EdgeBinding | null;
  site_path: string;
  sid: string;
  name: string;
  qname: string;
  skind: SymbolRef['kind'];
  spath: string;
  sline: number;
}

const EDGE_SELECT = `
  SELECT e.id, e.site_id, e.src_id, e.dst_id, e.kind, e.tier, e.source, e.reason, e.candidates, e.line, e.col, e.binding, ef.path AS site_path,
         s.sid, s.name, s.qname, s.kind AS skind, sf.path AS spath, s.line AS sline
  FROM edges e
  JOIN symbols s ON s.id = e.src_id
  JOIN files ef ON ef.id = e.file_id
  JOIN files sf ON sf.id = s.file_id`;

function symbolOf(r: EdgeRow): SymbolRef {
  return { id: r.src_id, sid: r.sid, name: r.name, qname: r.qname, kind: r.skind, path: r.spath, line: r.sline };
}

function siteOf(r: EdgeRow): Site {
  return { path: r.site_path, line: r.line, col: r.col };
}

const ids = (list: Iterable<number>) => JSON.stringify([...list]);

/** Where the target sits: its enclosing symbol, its file and the file's language; absent when the id is not in the index. */
interface Placement {
  readonly parent_id: number | null;
  readonly file_id: number;
  readonly language: string | null;
}

/**
 * The symbols whose dependents break with the target, each with the name the
 * answer shows for it; `only` keeps the edges of those kinds (a
 * constructor's class: its instantiations), shown as `as` (calls of the
 * constructor).
 */
type Seeds = Map<number, { sid: string; name: string; only?: readonly EdgeKind[]; as?: EdgeKind }>;

async function membersOf(db: Db, typeId: number): Promise<{ id: number; sid: string; name: string; kind: string }[]> {
  return db.all('SELECT id, sid, name, kind FROM symbols WHERE parent_id = ?', [typeId]);
}

/**
 * Subtypes of a type, transitively, through extends/implements edges that are
 * not ambiguous, breadth-first (a subtype's tier is that of the first edge,
 * by supertype then id, that reaches it at its level). With `within` (a set
 * closed under supertypes), only the subtypes in it: the same ones with the
 * same tiers, found through their own edges instead of every incoming edge
 * of every subtype.
 */
async function subtypes(db: Db, typeId: number, within?: ReadonlySet<number>): Promise<Map<number, EdgeTier>> {
  const out = new Map<number, EdgeTier>();
  let frontier = new Map<number, EdgeTier>([[typeId, 'resolved']]);
  while (frontier.size) {
    const rows = within
      ? await db.all<{ src_id: number; dst_id: number; tier: EdgeTier }>(
          `SELECT src_id, dst_id, tier FROM edges INDEXED BY edges_src WHERE src_id IN (SELECT value FROM json_each(?2)) AND dst_id IN (SELECT value FROM json_each(?1))
              AND kind IN ('extends','implements') AND tier != 'ambiguous' ORDER BY dst_id, id`,
          [ids(frontier.keys()), ids([...within].filter((id) => !out.has(id)))],
        )
      : await db.all<{ src_id: number; dst_id: number; tier: EdgeTier }>(
          `SELECT src_id, dst_id, tier FROM edges WHERE kind IN ('extends','implements') AND tier != 'ambiguous' AND dst_id IN (SELECT value FROM json_each(?)) ORDER BY dst_id, id`,
          [ids(frontier.keys())],
        );
    const next = new Map<number, EdgeTier>();
    for (const r of rows) {
      if (out.has(r.src_id) || r.src_id === typeId) continue;
      const t = weakerTier(frontier.get(r.dst_id) ?? 'inferred', r.tier);
      out.set(r.src_id, t);
      next.set(r.src_id, t);
    }
    frontier = next;
  }
  return out;
}

/** These types and all their supertypes, transitively. */
async function withSupertypes(db: Db, types: Iterable<number>): Promise<Set<number>> {
  const own = [...types];
  return new Set([...own, ...(await supertypes(db, own))]);
}

export interface WhatBreaksOptions {
  /**
   * The answer will show at most its first this many dependents (in answer
   * order: nearest, strongest tier, by name), as the what_breaks tool's
   * `limit` does. Ambiguous dependents past them are counted — by kind, by
   * hop, in the lower-bound sentence — but not read: a common name (`get`,
   * `gettext`) has hundreds of ambiguous dependents with dozens of
   * candidates each, and reading their sites, reasons and candidates only to
   * leave them out was most of such an answer's cost. Every non-ambiguous
   * dependent is still listed (the walk goes through them). Calls through
   * a base method (dispatches) past this many are counted the same way. By
   * default every dependent is listed (the impact panel); so is every one when
   * artifacts (class files, DI wiring, traces) are imported, since they may
   * strengthen any of them.
   */
  readonly list?: number;
  /** Candidates to read per ambiguous site (the tool shows 6; each dependent's reason says how many there are). By default, all. */
  readonly candidates?: number;
}

export async function whatBreaks(db: Db, target: SymbolRef, depth: number, options: WhatBreaksOptions = {}): Promise<WhatBreaksResult> {
  // The parts of an answer are independent reads.
  const [placement, groups] = await Promise.all([
    db.get<Placement>('SELECT s.parent_id, s.file_id, f.language FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?', [target.id]),
    artifactGroups(db),
  ]);
  const sources = new Set<string>();
  const seeds = await seedsOf(db, target, placement);
  // Artifacts (class files, DI wiring, traces) may strengthen any dependent or dispatch: with them, every one is read.
  const bound = groups.length ? Infinity : (options.list ?? Infinity);
  const walked = async () => {
    const w = await dependentsByHop(db, target, seeds, depth, sources, bound);
    await attachCandidates(db, w.ambiguousAt, options.candidates ?? Infinity);
    return w;
  };
  const [implementers, walk, dispatches, dynamicSites, wideSites, untypedSites] = await Promise.all([
    implementersOf(db, target, placement, sources),
    walked(),
    dispatchesTo(db, target, placement, sources, bound),
    dynamicSitesFor(db, seeds, placement),
    wideSitesFor(db, target, seeds),
    untypedSitesFor(db, target, placement),
  ]);
  const list = [...walk.dependents.values()].sort(byDistanceTierName);
  const result: Omit<WhatBreaksResult, 'summary'> = {
    target,
    depth,
    dependents: list,
    ...(walk.unlisted ? { unlisted: walk.unlisted } : {}),
    implementers,
    dispatches: dispatches.listed,
    ...(dispatches.unlisted ? { unlistedDispatches: dispatches.unlisted } : {}),
    dynamicSites,
    wideSites,
    untypedSites,
    notFollowed: walk.notFollowed,
    recursion: walk.recursion,
    counts: countDependents(list, walk.unlisted),
    notSeen: [],
    sources: [...sources].sort(),
  };
  const merged = await withArtifacts(db, result, { groups });
  const gaps = await Promise.all([resolutionGaps(db, merged.sources, placement?.language ?? undefined), workspaceGaps(db, merged, placement, new Set(groups.map((g) => g.kind)))]);
  const notSeen = gaps.flat();
  const answer = { ...merged, notSeen };
  return { ...answer, summary: lowerBoundSentence(answer) };
}

/**
 * The target, and for a type its members (changing a type breaks users of
 * its members). Overloads are one function: a call bound to any signature
 * depends on it (a type checker names the signature it picked).
 */
async function seedsOf(db: Db, target: SymbolRef, placement: Placement | undefined): Promise<Seeds> {
  const seeds: Seeds = new Map([[target.id, { sid: target.sid, name: target.name }]]);
  if (TYPE_KINDS.has(target.kind)) {
    for (const m of await membersOf(db, target.id)) seeds.set(m.id, { sid: m.sid, name: `${target.name}.${m.name}` });
  } else if (placement && CALLABLE_KINDS.has(target.kind)) {
    // `new X()` runs X's constructor: the inventory names the class at such a site, a type checker the constructor.
    if (target.kind === 'constructor' && placement.parent_id !== null) seeds.set(placement.parent_id, { sid: target.sid, name: target.name, only: ['instantiate'], as: 'call' });
    const overloads = await db.all<{ id: number; sid: string }>(
      `SELECT id, sid FROM symbols WHERE file_id = ? AND name = ? AND kind = ? AND parent_id IS ? AND id != ?`,
      [placement.file_id, target.name, target.kind, placement.parent_id, target.id],
    );
    for (const o of overloads) seeds.set(o.id, { sid: target.sid, name: target.name });
  }
  return seeds;
}

/** Types that extend or implement a type; for a member, the members that override it. */
async function implementersOf(db: Db, target: SymbolRef, placement: Placement | undefined, sources: Set<string>): Promise<Dependent[]> {
  if (TYPE_KINDS.has(target.kind)) return subtypesAsImplementers(db, target);
  // A subclass's constructor does not override its base's: `new Base()` never runs it.
  if (placement?.parent_id && ['method', 'function', 'field'].includes(target.kind)) return overridersOf(db, target, placement.parent_id, sources);
  return [];
}

async function subtypesAsImplementers(db: Db, target: SymbolRef): Promise<Dependent[]> {
  const out: Dependent[] = [];
  const subs = await subtypes(db, target.id);
  // One query for all of them (a framework's base class has hundreds), listed in the walk's order.
  const rows = subs.size ? await db.all<SymbolRef>(`SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))`, [ids(subs.keys())]) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [sub, tier] of subs) {
    const s = byId.get(sub);
    if (s) out.push({ symbol: s, kind: target.kind === 'interface' ? 'implements' : 'extends', tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: 'declares it as a supertype' } });
  }
  return out;
}

/** Up to this many members of the target's name elsewhere, overriders are looked for from them up, not from the target's type down. */
const NAMESAKES_WALKED_UP = 300;

/**
 * Overriding members: those a type checker proved (implementation requests,
 * SCIP relationships: resolved dispatch targets), then same-named members of
 * subtypes, inferred.
 */
async function overridersOf(db: Db, target: SymbolRef, parentId: number, sources: Set<string>): Promise<Dependent[]> {
  const out: Dependent[] = [];
  const proven = await db.all<SymbolRef & { tier: EdgeTier; source: string; reason: string; wired_by: string | null }>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, i.tier, i.source, i.reason, i.wired_by
       FROM implementations i JOIN symbols s ON s.id = i.impl_id JOIN files f ON f.id = s.file_id WHERE i.base_id = ? AND i.impl_id != i.base_id ORDER BY s.qname`,
    [target.id],
  );
  const seen = new Set<number>();
  for (const p of proven) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    sources.add(p.source);
    const { tier, source, reason, wired_by, ...symbol } = p;
    out.push({ symbol, kind: 'overrides', tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: symbol.path, line: symbol.line, col: 0 }], provenance: { source, reason: wired_by ? `${reason}; reached through ${wired_by}` : reason } });
  }
  // The members of the same name elsewhere, when there are few: the subtypes that matter are among their types and
  // those types' supertypes (a base class of a framework has hundreds of subtypes, each with thousands of uses).
  let named = await db.all<SymbolRef & { parent_id: number }>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.parent_id FROM symbols s JOIN files f ON f.id = s.file_id
      WHERE s.name = ? AND s.parent_id IS NOT NULL AND s.parent_id != ? ORDER BY s.id LIMIT ?`,
    [target.name, parentId, NAMESAKES_WALKED_UP + 1],
  );
  let subs: Map<number, EdgeTier>;
  if (named.length <= NAMESAKES_WALKED_UP) {
    const within = named.length ? await withSupertypes(db, named.map((n) => n.parent_id)) : new Set<number>();
    subs = within.has(parentId) ? await subtypes(db, parentId, within) : new Map();
  } else {
    subs = await subtypes(db, parentId);
    // One query for every subtype, in the subtypes' order.
    named = subs.size
      ? await db.all<SymbolRef & { parent_id: number }>(
          `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.parent_id FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.parent_id IN (SELECT value FROM json_each(?)) AND s.name = ? ORDER BY s.id`,
          [ids(subs.keys()), target.name],
        )
      : [];
  }
  const byParent = new Map<number, SymbolRef[]>();
  for (const { parent_id, ...s } of named) byParent.set(parent_id, [...(byParent.get(parent_id) ?? []), s]);
  for (const [sub, tier] of subs) {
    for (const s of byParent.get(sub) ?? []) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      out.push({ symbol: s, kind: 'overrides', tier: weakerTier(tier, 'inferred'), distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: `same name in a subtype (${tier} inheritance)` } });
    }
  }
  return out;
}

interface Walk {
  /** By `srcId:kind`: one entry per listed dependent and way of depending. */
  readonly dependents: Map<string, MutableDependent>;
  /** Ambiguous dependents and the site whose candidates they are. */
  readonly ambiguousAt: Map<MutableDependent, number>;
  readonly notFollowed: number;
  /** Where the target uses itself (recursion): not a dependent, and said. */
  readonly recursion: Site[];
  readonly unlisted?: UnlistedDependents;
}

/** Symbols declared inside a symbol, transitively (nested functions, their locals' classes). */
async function declaredInside(db: Db, id: number): Promise<Set<number>> {
  const rows = await db.all<{ id: number }>(
    'WITH RECURSIVE inner(id) AS (SELECT id FROM symbols WHERE parent_id = ?1 UNION SELECT s.id FROM symbols s JOIN inner ON s.parent_id = inner.id) SELECT id FROM inner',
    [id],
  );
  return new Set(rows.map((r) => r.id));
}

/** A direct ambiguous edge, without its site, reason or file: enough to count it. */
interface AmbiguousEdge {
  id: number;
  src_id: number;
  dst_id: number;
  kind: EdgeKind;
  source: string;
  skind: SymbolRef['kind'];
  qname: string;
  /** Matched by name on a receiver of unknown type. */
  by_name: number;
  /** A call through a function-typed property (a read of it). */
  property_call: number;
}

/** An ambiguous dependent beyond the first hop: the first of its edges (by id) that reaches the frontier. */
interface AmbiguousFirst {
  id: number;
  src_id: number;
  dst_id: number;
  kind: EdgeKind;
  source: string;
  module: number;
  qname: string;
  property_call: number;
}

/** Dependents of a hop past the bound, counted in SQL: one row per way of depending, with the dependents' ids. */
interface CountedGroup {
  kind: EdgeKind;
  /** The path's tier (its weakest edge), as an index into EDGE_TIERS. */
  rank: number;
  source: string;
  module: number;
  property_call: number;
  srcs: string;
}

/** An ambiguous dependent whose edges are read only if the answer lists it. */
interface Pending {
  readonly srcId: number;
  readonly kind: DependencyKind;
  readonly distance: number;
  readonly qname: string;
  readonly source: string;
  readonly byName: boolean;
  readonly propertyCall: boolean;
  readonly via?: { sid: string; name: string };
  /** Its edges, the first the one that made it a dependent. */
  readonly edgeIds: number[];
}

/** How the inventory's reason begins for a call through a function-typed property (a read of it). */
const PROPERTY_CALL = 'called through the property';

const TIER_ORDER = `CASE e.tier WHEN 'resolved' THEN 0 WHEN 'observed' THEN 1 WHEN 'inferred' THEN 2 ELSE 3 END, e.id`;

/** Per hop beyond the first: each ambiguous dependent not reached before, by its first edge. */
const FIRST_AMBIGUOUS = `
  WITH first AS (
    SELECT e.src_id, e.dst_id, e.kind, e.source, instr(e.reason, ?3) = 1 AS property_call, min(e.id) AS id FROM edges e
     WHERE e.dst_id IN (SELECT value FROM json_each(?1)) AND e.tier = 'ambiguous' GROUP BY e.src_id
  )
  SELECT f.id, f.src_id, f.dst_id, f.kind, f.source, f.property_call, s.kind = 'module' AS module, s.qname
    FROM first f JOIN symbols s ON s.id = f.src_id
   WHERE f.src_id NOT IN (SELECT value FROM json_each(?2)) ORDER BY f.id`;

const RANK = (tier: string) => `(CASE ${tier} WHEN 'resolved' THEN 0 WHEN 'observed' THEN 1 WHEN 'inferred' THEN 2 ELSE 3 END)`;

/**
 * A hop that starts past the bound lists nothing: each dependent not reached
 * before, by the first of its edges in tier order then id (the edge that
 * decides how it depends), is counted in SQL — by kind, path tier (the
 * weaker of that edge's and the frontier symbol's: ?4 and ?5 hold the
 * frontier's observed and inferred ids, the rest are resolved), source,
 * whether it is a module (never followed) and whether it calls through a
 * property — without its site, reason or name; the ids come back as one JSON
 * array per group, to be followed and marked reached.
 */
const COUNTED_HOP = `
  WITH first AS (
    SELECT e.src_id, e.dst_id, e.kind, e.tier, e.source, instr(e.reason, ?3) = 1 AS property_call, min((${RANK('e.tier')} << 40) + e.id) AS o
      FROM edges e WHERE e.dst_id IN (SELECT value FROM json_each(?1)) AND e.tier != 'dynamic' GROUP BY e.src_id
  )
  SELECT f.kind,
         max(${RANK('f.tier')}, CASE WHEN f.dst_id IN (SELECT value FROM json_each(?4)) THEN 1 WHEN f.dst_id IN (SELECT value FROM json_each(?5)) THEN 2 ELSE 0 END) AS rank,
         f.source, s.kind = 'module' AS module, f.property_call, json_group_array(f.src_id) AS srcs
    FROM first f JOIN symbols s ON s.id = f.src_id
   WHERE f.src_id NOT IN (SELECT value FROM json_each(?2)) GROUP BY 1, 2, 3, 4, 5`;

/**
 * Dependents, breadth-first to `depth` hops; a path's tier is its weakest
 * edge. Within a hop, edges count in tier order, then by id: the first edge
 * that reaches a dependent decides how it depends. Every dependent is
 * counted; ambiguous ones past the first `bound` of the answer's order
 * (nearest, strongest, by name) are not read: their sites, reasons and
 * candidates would only be dropped from the list.
 */
async function dependentsByHop(db: Db, target: SymbolRef, seeds: Seeds, depth: number, sources: Set<string>, bound: number): Promise<Walk> {
  const dependents = new Map<string, MutableDependent>();
  const pending = new Map<string, Pending>();
  const listed: Pending[] = [];
  /** Sites of listed dependents on ambiguous edges, read with the listed ambiguous dependents. */
  const laterSites = new Map<MutableDependent, number[]>();
  const recursion: (Site | number)[] = [];
  const unlisted = { count: 0, direct: 0, byKind: {} as Partial<Record<DependencyKind, Partial<Record<EdgeTier, number>>>>, directByName: {} as Partial<Record<DependencyKind, number>>, propertyCalls: 0 };
  const countUnlisted = (kind: DependencyKind, tier: EdgeTier, distance: number, propertyCall: boolean) => {
    unlisted.count++;
    if (kind === 'read' && propertyCall) unlisted.propertyCalls++;
    const ofKind = (unlisted.byKind[kind] ??= {});
    ofKind[tier] = (ofKind[tier] ?? 0) + 1;
    if (distance === 1) unlisted.direct++;
  };
  const reached = new Set<number>(seeds.keys());
  const notFollowed = new Set<number>();
  /** The symbols the walk goes through (the frontier's), for the hop each dependent came through. */
  const names = new Map<number, { sid: string; name: string }>();
  let total = 0;
  // A function declared inside the target (a local helper, a callback) is part of it: its call of the target is recursion.
  const inner = CALLABLE_KINDS.has(target.kind) ? await declaredInside(db, target.id) : new Set<number>();
  let frontier = new Map<number, EdgeTier>([...seeds.keys()].map((id) => [id, 'resolved' as EdgeTier]));

  for (let distance = 1; distance <= depth && frontier.size; distance++) {
    const front = ids(frontier.keys());
    if (total >= bound) {
      // Past the bound: nothing of this hop is listed. Each dependent is counted, with its kind and tier, and followed.
      const next = new Map<number, EdgeTier>();
      const tiered = (t: EdgeTier) => ids([...frontier].filter(([, ft]) => ft === t).map(([id]) => id));
      for (const g of await db.all<CountedGroup>(COUNTED_HOP, [front, ids(reached), PROPERTY_CALL, tiered('observed'), tiered('inferred')])) {
        const tier = EDGE_TIERS[g.rank]!;
        sources.add(g.source);
        for (const src of JSON.parse(g.srcs) as number[]) {
          countUnlisted(g.kind, tier, distance, Boolean(g.property_call));
          total++;
          if (!g.module) {
            if (tier === 'ambiguous') {
              if (distance < depth) notFollowed.add(src);
            } else next.set(src, tier);
          }
          reached.add(src);
        }
      }
      frontier = next;
      continue;
    }
    const rows = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier NOT IN ('dynamic', 'ambiguous') ORDER BY ${TIER_ORDER}`, [front]);
    const next = new Map<number, EdgeTier>();
    for (const r of rows) {
      const seed = distance === 1 ? seeds.get(r.dst_id) : undefined;
      if (seed?.only && !seed.only.includes(r.kind)) continue;
      if (reached.has(r.src_id) && distance > 1) continue;
      if (r.src_id === r.dst_id || (distance === 1 && inner.has(r.src_id))) {
        if (distance === 1 && (r.dst_id === target.id || seed?.sid === target.sid)) recursion.push(siteOf(r));
        continue;
      }
      // A member using its own type is not a dependent of it; a member making one (`new X()` in X.of) is.
      if (seeds.has(r.src_id) && r.kind !== 'instantiate') continue;
      const kind = seed?.as ?? r.kind;
      const existing = dependents.get(`${r.src_id}:${kind}`);
      sources.add(r.source);
      if (existing) {
        if (existing.distance === distance) existing.sites.push(siteOf(r));
        continue;
      }
      const tier = weakerTier(frontier.get(r.dst_id) ?? 'resolved', r.tier);
      const d = dependentOf(r, tier, distance, seeds, kind);
      if (distance > 1) d.via = names.get(r.dst_id) ?? d.via;
      dependents.set(`${r.src_id}:${kind}`, d);
      total++;
      if (!reached.has(r.src_id) && r.skind !== 'module') {
        next.set(r.src_id, tier);
        names.set(r.src_id, { sid: r.sid, name: r.name });
      }
      reached.add(r.src_id);
    }

    // An ambiguous dependent is a maybe; its own dependents would be maybes of maybes, and
    // following them floods the answer (a common name like `get` reaches thousands).
    // They are counted and not followed further; listed while the answer has room.
    const room = bound - total;
    const found: Pending[] = [];
    if (distance === 1) {
      const amb = await db.all<AmbiguousEdge>(
        `SELECT e.id, e.src_id, e.dst_id, e.kind, e.source, s.kind AS skind, s.qname, instr(e.reason, ?2) > 0 AS by_name, instr(e.reason, ?3) = 1 AS property_call
           FROM edges e JOIN symbols s ON s.id = e.src_id WHERE e.dst_id IN (SELECT value FROM json_each(?1)) AND e.tier = 'ambiguous' ORDER BY e.id`,
        [front, UNKNOWN_RECEIVER, PROPERTY_CALL],
      );
      for (const r of amb) {
        const seed = seeds.get(r.dst_id);
        if (seed?.only && !seed.only.includes(r.kind)) continue;
        if (r.src_id === r.dst_id || inner.has(r.src_id)) {
          if (r.dst_id === target.id || seed?.sid === target.sid) recursion.push(r.id);
          continue;
        }
        if (seeds.has(r.src_id) && r.kind !== 'instantiate') continue;
        const kind = seed?.as ?? r.kind;
        const key = `${r.src_id}:${kind}`;
        sources.add(r.source);
        const existing = dependents.get(key);
        if (existing) {
          laterSites.set(existing, [...(laterSites.get(existing) ?? []), r.id]);
          continue;
        }
        const known = pending.get(key);
        if (known) {
          known.edgeIds.push(r.id);
          continue;
        }
        const p: Pending = { srcId: r.src_id, kind, distance, qname: r.qname, source: r.source, byName: Boolean(r.by_name) && r.source === 'tree-sitter', propertyCall: Boolean(r.property_call), edgeIds: [r.id] };
        pending.set(key, p);
        found.push(p);
        if (!reached.has(r.src_id) && r.skind !== 'module' && distance < depth) notFollowed.add(r.src_id);
        reached.add(r.src_id);
      }
    } else {
      for (const r of await db.all<AmbiguousFirst>(FIRST_AMBIGUOUS, [front, ids(reached), PROPERTY_CALL])) {
        const p: Pending = { srcId: r.src_id, kind: r.kind, distance, qname: r.qname, source: r.source, byName: false, propertyCall: Boolean(r.property_call), via: names.get(r.dst_id), edgeIds: [r.id] };
        found.push(p);
        sources.add(r.source);
        if (!r.module && distance < depth) notFollowed.add(r.src_id);
        reached.add(r.src_id);
      }
    }
    // In answer order (by name within a hop and tier), the first that fit are listed, the rest counted.
    found.sort((a, b) => byCodeUnits(a.qname, b.qname));
    found.forEach((p, i) => {
      if (i < room) listed.push(p);
      else {
        countUnlisted(p.kind, 'ambiguous', p.distance, p.propertyCall);
        if (p.byName) unlisted.directByName[p.kind] = (unlisted.directByName[p.kind] ?? 0) + 1;
      }
    });
    total += found.length;
    frontier = next;
  }

  const ambiguousAt = new Map<MutableDependent, number>();
  const toRead = [...listed.flatMap((p) => p.edgeIds), ...[...laterSites.values()].flat(), ...recursion.filter((x): x is number => typeof x === 'number')];
  const byId = new Map<number, EdgeRow>();
  if (toRead.length) for (const r of await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.id IN (SELECT value FROM json_each(?))`, [ids(toRead)])) byId.set(r.id, r);
  for (const p of listed) {
    const [first, ...more] = p.edgeIds.map((id) => byId.get(id)!);
    const d = dependentOf(first!, 'ambiguous', p.distance, seeds, p.kind);
    if (p.via) d.via = p.via;
    for (const r of more) d.sites.push(siteOf(r!));
    dependents.set(`${p.srcId}:${p.kind}`, d);
    if (first!.site_id !== null) ambiguousAt.set(d, first!.site_id);
  }
  for (const [d, edgeIds] of laterSites) for (const id of edgeIds) d.sites.push(siteOf(byId.get(id)!));
  return {
    dependents,
    ambiguousAt,
    notFollowed: notFollowed.size,
    recursion: recursion.map((x) => (typeof x === 'number' ? siteOf(byId.get(x)!) : x)),
    ...(unlisted.count ? { unlisted: { bound, ...unlisted } } : {}),
  };
}

function dependentOf(r: EdgeRow, tier: EdgeTier, distance: number, seeds: Seeds, kind: DependencyKind): MutableDependent {
  const via = seeds.get(r.dst_id);
  const reason = via?.as && via.as !== r.kind ? `\`new\` runs its constructor: ${r.reason}` : r.binding === 'super' && distance === 1 ? `${r.reason} (statically bound: super)` : r.reason;
  return {
    symbol: symbolOf(r),
    kind,
    tier,
    distance,
    via: via?.sid ? { sid: via.sid, name: via.name } : { sid: '', name: '' },
    sites: [siteOf(r)],
    provenance: { source: r.source, reason },
    ...(r.tier === 'ambiguous' ? { candidates: [] } : {}),
  };
}

/** The candidates of each ambiguous site (the first `cap` of each, by edge id), so the agent sees the set. */
async function attachCandidates(db: Db, ambiguousAt: ReadonlyMap<MutableDependent, number>, cap: number): Promise<void> {
  if (!ambiguousAt.size) return;
  const cand = await db.all<{ site_id: number; sid: string; qname: string; path: string; line: number }>(
    // Per site, its first `cap` candidate edges in id order, straight from edges_site (site, id): no more are read.
    `SELECT e.site_id, s.sid, s.qname, f.path, s.line
       FROM json_each(?1) j
       JOIN edges e ON e.id IN (SELECT c.id FROM edges c WHERE c.site_id = j.value AND c.dst_id IS NOT NULL ORDER BY c.id LIMIT ?2)
       JOIN symbols s ON s.id = e.dst_id JOIN files f ON f.id = s.file_id
      ORDER BY e.site_id, e.id`,
    [ids(new Set(ambiguousAt.values())), Number.isFinite(cap) ? cap : Number.MAX_SAFE_INTEGER],
  );
  const bySite = new Map<number, { sid: string; qname: string; path: string; line: number }[]>();
  for (const { site_id, sid, qname, path, line } of cand) {
    const list = bySite.get(site_id) ?? [];
    list.push({ sid, qname, path, line });
    bySite.set(site_id, list);
  }
  for (const [d, siteId] of ambiguousAt) d.candidates = bySite.get(siteId) ?? [];
}

/**
 * Calls through a base or interface method the target overrides, and reads
 * and writes through a base or interface property a field or accessor
 * implements: possible dispatches, unresolved. A use through a base member
 * proven (implementations table) to reach the target is resolved dispatch.
 * `super.m()` and `super(...)` are bound to the base member statically:
 * they never reach an override. The first `bound` by edge id are read in
 * full, the rest counted by resolution: a common name (`append`, `put`) has
 * thousands of calls through its base methods, which the answer only counts.
 */
async function dispatchesTo(db: Db, target: SymbolRef, placement: Placement | undefined, sources: Set<string>, bound: number): Promise<{ listed: Dispatch[]; unlisted?: { resolved: number; unresolved: number } }> {
  const isData = target.kind === 'field';
  if (!placement?.parent_id || !(isData || ['method', 'function'].includes(target.kind))) return { listed: [] };
  const baseMethods = new Map((await baseMembersOf(db, target, placement.parent_id)).map((b) => [b.id, b]));
  if (!baseMethods.size) return { listed: [] };
  const dispatches: Dispatch[] = [];
  const kinds = isData ? ['read', 'write'] : ['call'];
  const through = `e.dst_id IN (SELECT value FROM json_each(?1)) AND e.kind IN (SELECT value FROM json_each(?2)) AND (e.binding IS NULL OR e.binding != 'super') AND e.src_id != ?3`;
  const params = [ids(baseMethods.keys()), JSON.stringify(kinds), target.id];
  const bounded = Number.isFinite(bound);
  const [rows, counted] = await Promise.all([
    db.all<EdgeRow>(`${EDGE_SELECT} WHERE ${through} ORDER BY e.id${bounded ? ' LIMIT ?4' : ''}`, bounded ? [...params, bound] : params),
    bounded
      ? db.all<{ dst_id: number; resolved_edge: number; source: string; n: number }>(`SELECT e.dst_id, e.tier = 'resolved' AS resolved_edge, e.source, count(*) AS n FROM edges e WHERE ${through} GROUP BY 1, 2, 3`, params)
      : [],
  ]);
  for (const r of rows) {
    const base = baseMethods.get(r.dst_id)!;
    const resolution = base.proof && r.tier === 'resolved' ? 'resolved' : 'unresolved';
    if (resolution === 'resolved') sources.add(r.source);
    dispatches.push({
      caller: symbolOf(r),
      kind: r.kind === 'read' || r.kind === 'write' ? r.kind : 'call',
      through: { sid: base.sid, qname: base.qname },
      site: siteOf(r),
      tier: r.tier,
      resolution,
      provenance: resolution === 'resolved' ? { source: r.source, reason: `${r.kind} ${r.reason}; ${base.proof!.reason}` } : { source: r.source, reason: r.reason },
    });
  }
  const all = counted.reduce((n, c) => n + c.n, 0);
  if (all <= dispatches.length) return { listed: dispatches };
  // As above: resolved when the edge is and a type checker proved the target implements the base.
  let resolved = 0;
  for (const c of counted) {
    if (!c.resolved_edge || !baseMethods.get(c.dst_id)?.proof) continue;
    resolved += c.n;
    sources.add(c.source);
  }
  const listedResolved = dispatches.filter((d) => d.resolution === 'resolved').length;
  return { listed: dispatches, unlisted: { resolved: resolved - listedResolved, unresolved: all - resolved - (dispatches.length - listedResolved) } };
}

/** Dynamic sites: ones that name the target, and computed ones in files that import its file. */
async function dynamicSitesFor(db: Db, seeds: Seeds, placement: Placement | undefined): Promise<DynamicSite[]> {
  const dynamicSites: DynamicSite[] = [];
  const named = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier = 'dynamic'`, [ids(seeds.keys())]);
  for (const r of named) dynamicSites.push({ owner: symbolOf(r), site: siteOf(r), reason: r.reason, match: 'name' });
  if (placement) {
    // The target's file and its importers, through the index of dynamic edges by file (left to itself the
    // planner takes edges_dst for `dst_id IS NULL` and reads every unresolved edge: 80 ms on 2.8M edges).
    const computed = await db.all<EdgeRow>(
      `${EDGE_SELECT.replace('FROM edges e', 'FROM edges e INDEXED BY edges_dynamic_file')}
        WHERE e.file_id IN (SELECT ?1 UNION SELECT file_id FROM imports WHERE target_file_id = ?1) AND e.dst_id IS NULL AND e.tier = 'dynamic' AND e.kind = 'call' ORDER BY e.id`,
      [placement.file_id],
    );
    for (const r of computed) dynamicSites.push({ owner: symbolOf(r), site: siteOf(r), reason: r.reason, match: 'file' });
  }
  return dynamicSites;
}

/** Sites that name the target (or a member) among too many candidates for the resolver to list. */
async function wideSitesFor(db: Db, target: SymbolRef, seeds: Seeds): Promise<number> {
  const wide = await db.get<{ n: number }>(
    // By name: left to itself the planner takes edges_dst for `dst_id IS NULL` and reads every unresolved edge.
    `SELECT count(*) AS n FROM edges e INDEXED BY edges_name_wide WHERE e.dst_id IS NULL AND e.tier = 'ambiguous' AND e.name IN (SELECT value FROM json_each(?))`,
    [JSON.stringify([...new Set([target.name, ...[...seeds.values()].map((s) => s.name.split('.').pop()!)])])],
  );
  return wide?.n ?? 0;
}

/**
 * Reads and writes by the target's name on receivers the type checker types
 * `any` (kept once by name by the enrichment pass, binding `untyped`), in the
 * languages that share the target's names. Only data can be meant there.
 */
async function untypedSitesFor(db: Db, target: SymbolRef, placement: Placement | undefined): Promise<number> {
  if (!DATA_KINDS.has(target.kind) || !placement) return 0;
  const row = await db.get<{ n: number }>(
    `SELECT count(*) AS n FROM edges e INDEXED BY edges_name_wide JOIN files f ON f.id = e.file_id
      WHERE e.dst_id IS NULL AND e.binding = 'untyped' AND e.name = ?
        AND f.language IN (SELECT value FROM json_each(?))`,
    [target.name, JSON.stringify(sameNamespace(placement.language ?? ''))],
  );
  return row?.n ?? 0;
}

/**
 * What type-checked resolution has not seen for this answer: named as
 * missing while the enrichment pass has not covered the target's language
 * (or a resolver for it could not run, with its own message). Configuration
 * files have no type checker: nothing to say for them. The enrichment
 * pass's part of "not seen"; the workspace's own gaps are notSeen.ts's.
 */
async function resolutionGaps(db: Db, sources: readonly string[], lang: string | undefined): Promise<string[]> {
  const resolvedBySomething = sources.some((s) => s !== 'tree-sitter');
  const gaps: string[] = [];
  const spec = lang ? languageById(lang) : undefined;
  if (spec && !isCode(spec)) return [];
  const [progress, status] = await Promise.all([
    lang
      ? db.cached(`resolution-progress:${lang}`, () =>
          db.get<{ total: number; done: number }>(
            `SELECT count(*) AS total, sum(EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id)) AS done FROM files f WHERE f.language = ? AND f.skip_reason IS NULL`,
            [lang],
          ),
        )
      : undefined,
    resolutionStatus(db),
  ]);
  const done = progress?.done ?? 0;
  const total = progress?.total ?? 0;
  if (!resolvedBySomething && done === 0) gaps.push('type-checked resolution (no language server or SCIP index has confirmed these edges yet)');
  else if (done < total) gaps.push(`type-checked resolution of ${total - done} of ${total} ${lang} files (enrichment has not reached them yet: their edges keep their inventory tier)`);
  for (const [source, st] of Object.entries(status)) {
    if (st.state === 'unavailable' && st.message && (!lang || !st.languages?.length || st.languages.includes(lang))) gaps.push(`${source} (${st.message})`);
  }
  return gaps;
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

const KIND_WORDS: Record<DependencyKind, [string, string]> = {
  call: ['caller', 'callers'],
  instantiate: ['instantiation', 'instantiations'],
  reference: ['reference', 'references'],
  import: ['importer', 'importers'],
  extends: ['subclass', 'subclasses'],
  implements: ['implementer', 'implementers'],
  read: ['reader', 'readers'],
  write: ['writer', 'writers'],
  overrides: ['override', 'overrides'],
  member: ['member use', 'member uses'],
};

/** "at least 17 dependents: 12 callers (9 inferred, 3 ambiguous candidates), …; not seen: …" */
export function lowerBoundSentence(r: Omit<WhatBreaksResult, 'summary'>): string {
  const parts: string[] = [];
  const kinds = Object.entries(r.counts.byKind) as [DependencyKind, number][];
  for (const [kind, n] of kinds.sort((a, b) => b[1] - a[1])) {
    const ofKind = r.dependents.filter((d) => d.kind === kind);
    const counted = (t: EdgeTier) => ofKind.filter((d) => d.tier === t).length + unlistedOf(r.unlisted, t, kind);
    const tiers = EDGE_TIERS.map((t) => [t, counted(t)] as const)
      .filter(([, c]) => c > 0)
      .map(([t, c]) => (t === 'ambiguous' ? `${c} ambiguous candidate${c === 1 ? '' : 's'}` : t === 'observed' ? observedWords(r.artifacts, kind, c) : `${c} ${t}`));
    const [one, many] = KIND_WORDS[kind];
    parts.push(`${n} ${n === 1 ? one : many} (${tiers.join(', ')})`);
  }
  const total = dependentTotal(r);
  let s = total > 0 ? `at least ${plural(total, 'dependent')}` : 'no dependents found in the index';
  if (r.depth > 1 && total > 0) s += ` within ${r.depth} hops (${r.counts.direct} direct)`;
  if (parts.length) s += `: ${parts.join(', ')}`;
  const extras: string[] = [];
  if (r.implementers.length) {
    const word = r.implementers.some((i) => i.kind === 'overrides') ? 'overriding implementation' : 'implementing or extending type';
    const proven = r.implementers.filter((i) => i.tier === 'resolved').length;
    const byTier = proven ? ` (${proven} proven by a type checker${proven < r.implementers.length ? `, ${r.implementers.length - proven} inferred` : ''})` : '';
    extras.push(`${r.implementers.length} ${word}${r.implementers.length === 1 ? '' : 's'}${byTier}`);
  }
  const propertyCalls = r.dependents.filter((d) => d.kind === 'read' && d.provenance.reason.startsWith(PROPERTY_CALL)).length + (r.unlisted?.propertyCalls ?? 0);
  if (propertyCalls) extras.push(`${propertyCalls === 1 ? 'one reader calls' : `${propertyCalls} readers call`} it (a function-typed property: what runs is the value it holds)`);
  const data = r.target.kind === 'field' || r.target.kind === 'constant' || r.target.kind === 'key';
  const viaResolved = dispatchTotal(r, 'resolved');
  const unresolved = dispatchTotal(r, 'unresolved');
  const uses = (n: number) => (data ? plural(n, 'read or write', 'reads and writes') : plural(n, 'call'));
  if (viaResolved) extras.push(`${uses(viaResolved)} reaching it by resolved dispatch (resolved to a base ${data ? 'property' : 'method'} it is proven to implement; the receiver's runtime type picks the implementation)`);
  if (unresolved) {
    extras.push(`${plural(unresolved, 'unresolved interface dispatch', 'unresolved interface dispatches')} (${data ? 'reads and writes through a base or interface property' : 'calls through a base method'} that may land here)`);
  }
  const dyn = r.dynamicSites.length;
  if (dyn) extras.push(`${plural(dyn, 'dynamic call site')} that may reach it`);
  if (r.wideSites) extras.push(`${plural(r.wideSites, data ? 'use site' : 'call site')} matching its name among too many candidates to list`);
  if (r.unlisted) {
    const u = r.unlisted;
    const ambiguous = unlistedOf(u, 'ambiguous');
    const of = EDGE_TIERS.map((t) => [t, unlistedOf(u, t)] as const).filter(([, n]) => n > 0);
    const which = of.length === 1 ? (ambiguous ? `all ambiguous candidates` : `all ${of[0]![0]}`) : of.map(([t, n]) => (t === 'ambiguous' ? `${n} ambiguous candidate${n === 1 ? '' : 's'}` : `${n} ${t}`)).join(', ');
    extras.push(
      `${plural(u.count, 'dependent')} counted above ${u.count === 1 ? 'is' : 'are'} not listed (${which}, past the first ${u.bound} in answer order: the impact panel lists ${u.count === 1 ? 'it' : 'every one'})`,
    );
  }
  if (r.notFollowed) extras.push(`${plural(r.notFollowed, 'ambiguous dependent')} whose own dependents were not followed (ask about ${r.notFollowed === 1 ? 'it' : 'them'} directly)`);
  extras.push(...artifactExtras(r.artifacts));
  if (extras.length) s += `; ${extras.join('; ')}`;
  s += `; not seen: ${r.notSeen.join(', ')}`;
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}
