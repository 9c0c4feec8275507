import { EDGE_TIERS, weakerTier, type EdgeTier } from '../../model/tiers.js';
import { DATA_KINDS, TYPE_KINDS, type EdgeBinding, type EdgeKind } from '../../model/structural.js';
import { isCode, languageById } from '../inventory/languages.js';
import type { Db } from '../../store/db.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import { resolutionStatus } from '../enrichment/enrich.js';
import { artifactExtras, observedWords, withArtifacts } from './artifacts.js';
import { sameNamespace, workspaceGaps } from './notSeen.js';
import { byDistanceTierName, countDependents, type Dependent, type DependencyKind, type Dispatch, type DynamicSite, type MutableDependent, type Site, type WhatBreaksResult } from './result.js';

interface EdgeRow {
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
  SELECT e.site_id, e.src_id, e.dst_id, e.kind, e.tier, e.source, e.reason, e.candidates, e.line, e.col, e.binding, ef.path AS site_path,
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

/** Subtypes of a type, transitively, through extends/implements edges that are not ambiguous. */
async function subtypes(db: Db, typeId: number): Promise<Map<number, EdgeTier>> {
  const out = new Map<number, EdgeTier>();
  let frontier = new Map<number, EdgeTier>([[typeId, 'resolved']]);
  while (frontier.size) {
    const rows = await db.all<{ src_id: number; dst_id: number; tier: EdgeTier }>(
      `SELECT src_id, dst_id, tier FROM edges WHERE kind IN ('extends','implements') AND tier != 'ambiguous' AND dst_id IN (SELECT value FROM json_each(?))`,
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

/** Supertypes of a type, transitively. */
async function supertypes(db: Db, typeId: number): Promise<number[]> {
  const out: number[] = [];
  const seen = new Set([typeId]);
  let frontier = [typeId];
  while (frontier.length) {
    const rows = await db.all<{ dst_id: number }>(
      `SELECT dst_id FROM edges WHERE kind IN ('extends','implements') AND tier != 'ambiguous' AND dst_id IS NOT NULL AND src_id IN (SELECT value FROM json_each(?))`,
      [ids(frontier)],
    );
    frontier = [];
    for (const r of rows) {
      if (seen.has(r.dst_id)) continue;
      seen.add(r.dst_id);
      out.push(r.dst_id);
      frontier.push(r.dst_id);
    }
  }
  return out;
}

export interface WhatBreaksOptions {
  /**
   * List every candidate of an ambiguous site for the first this many
   * dependents in answer order only (an answer that shows 30 needs no more).
   * A common name (`get`) has hundreds of ambiguous dependents with dozens of
   * candidates each, and reading them all is most of such an answer's cost.
   * Every dependent is still counted; by default all get their candidates.
   */
  readonly candidatesFor?: number;
}

export async function whatBreaks(db: Db, target: SymbolRef, depth: number, options: WhatBreaksOptions = {}): Promise<WhatBreaksResult> {
  const placement = await db.get<Placement>('SELECT s.parent_id, s.file_id, f.language FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?', [target.id]);
  const sources = new Set<string>();
  const seeds = await seedsOf(db, target, placement);
  const implementers = await implementersOf(db, target, placement, sources);
  const walk = await dependentsByHop(db, target, seeds, depth, sources);
  const list = [...walk.dependents.values()].sort(byDistanceTierName);
  const listed = new Set(list.slice(0, options.candidatesFor ?? list.length));
  await attachCandidates(db, new Map([...walk.ambiguousAt].filter(([d]) => listed.has(d))));
  const dispatches = await dispatchesTo(db, target, placement, sources);
  const dynamicSites = await dynamicSitesFor(db, seeds, placement);
  const wideSites = await wideSitesFor(db, target, seeds);
  const untypedSites = await untypedSitesFor(db, target, placement);
  const result: Omit<WhatBreaksResult, 'summary'> = {
    target,
    depth,
    dependents: list,
    implementers,
    dispatches,
    dynamicSites,
    wideSites,
    untypedSites,
    notFollowed: walk.notFollowed,
    recursion: walk.recursion,
    counts: countDependents(list),
    notSeen: [],
    sources: [...sources].sort(),
  };
  const merged = await withArtifacts(db, result);
  const notSeen = [...(await resolutionGaps(db, merged.sources, placement?.language ?? undefined)), ...(await workspaceGaps(db, merged, placement))];
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
  } else if (placement && ['function', 'method', 'constructor'].includes(target.kind)) {
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
  for (const [sub, tier] of await subtypes(db, target.id)) {
    const s = await db.get<SymbolRef>(`SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?`, [sub]);
    if (s) out.push({ symbol: s, kind: target.kind === 'interface' ? 'implements' : 'extends', tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: 'declares it as a supertype' } });
  }
  return out;
}

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
  for (const [sub, tier] of await subtypes(db, parentId)) {
    const rows = await db.all<SymbolRef>(`SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.parent_id = ? AND s.name = ?`, [sub, target.name]);
    for (const s of rows) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      out.push({ symbol: s, kind: 'overrides', tier: weakerTier(tier, 'inferred'), distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: `same name in a subtype (${tier} inheritance)` } });
    }
  }
  return out;
}

interface Walk {
  /** By `srcId:kind`: one entry per dependent and way of depending. */
  readonly dependents: Map<string, MutableDependent>;
  /** Ambiguous dependents and the site whose candidates they are. */
  readonly ambiguousAt: Map<MutableDependent, number>;
  readonly notFollowed: number;
  /** Where the target uses itself (recursion): not a dependent, and said. */
  readonly recursion: Site[];
}

const CALLABLE_KINDS: ReadonlySet<string> = new Set(['function', 'method', 'constructor']);

/** Symbols declared inside a symbol, transitively (nested functions, their locals' classes). */
async function declaredInside(db: Db, id: number): Promise<Set<number>> {
  const rows = await db.all<{ id: number }>(
    'WITH RECURSIVE inner(id) AS (SELECT id FROM symbols WHERE parent_id = ?1 UNION SELECT s.id FROM symbols s JOIN inner ON s.parent_id = inner.id) SELECT id FROM inner',
    [id],
  );
  return new Set(rows.map((r) => r.id));
}

/** Dependents, breadth-first to `depth` hops; a path's tier is its weakest edge. */
async function dependentsByHop(db: Db, target: SymbolRef, seeds: Seeds, depth: number, sources: Set<string>): Promise<Walk> {
  const dependents = new Map<string, MutableDependent>();
  const ambiguousAt = new Map<MutableDependent, number>();
  const recursion: Site[] = [];
  const reached = new Set<number>(seeds.keys());
  const notFollowed = new Set<number>();
  // A function declared inside the target (a local helper, a callback) is part of it: its call of the target is recursion.
  const inner = CALLABLE_KINDS.has(target.kind) ? await declaredInside(db, target.id) : new Set<number>();
  let frontier = new Map<number, EdgeTier>([...seeds.keys()].map((id) => [id, 'resolved' as EdgeTier]));
  for (let distance = 1; distance <= depth && frontier.size; distance++) {
    const rows = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier != 'dynamic' ORDER BY CASE e.tier WHEN 'resolved' THEN 0 WHEN 'observed' THEN 1 WHEN 'inferred' THEN 2 ELSE 3 END`, [ids(frontier.keys())]);
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
      const tier = weakerTier(frontier.get(r.dst_id) ?? 'resolved', r.tier);
      const existing = dependents.get(`${r.src_id}:${kind}`);
      sources.add(r.source);
      if (existing) {
        if (existing.distance === distance) existing.sites.push(siteOf(r));
        continue;
      }
      const d = dependentOf(r, tier, distance, seeds, kind);
      dependents.set(`${r.src_id}:${kind}`, d);
      if (r.tier === 'ambiguous' && r.site_id !== null) ambiguousAt.set(d, r.site_id);
      // An ambiguous dependent is a maybe; its own dependents would be maybes of maybes, and
      // following them floods the answer (a common name like `get` reaches thousands).
      // They are listed, counted, and not followed further.
      if (!reached.has(r.src_id) && r.skind !== 'module') {
        if (tier === 'ambiguous') {
          if (distance < depth) notFollowed.add(r.src_id);
        } else next.set(r.src_id, tier);
      }
      reached.add(r.src_id);
    }
    if (distance > 1) await nameHops(db, dependents, rows, frontier, distance);
    frontier = next;
  }
  return { dependents, ambiguousAt, notFollowed: notFollowed.size, recursion };
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

/** Names the hop each transitive dependent of this distance came through (the first edge that reached it). */
async function nameHops(db: Db, dependents: Map<string, MutableDependent>, rows: readonly EdgeRow[], frontier: Map<number, EdgeTier>, distance: number): Promise<void> {
  const firstRowBySrc = new Map<number, EdgeRow>();
  for (const r of rows) if (!firstRowBySrc.has(r.src_id)) firstRowBySrc.set(r.src_id, r);
  const names = await db.all<{ id: number; sid: string; name: string }>('SELECT id, sid, name FROM symbols WHERE id IN (SELECT value FROM json_each(?))', [ids(frontier.keys())]);
  const byId = new Map(names.map((n) => [n.id, n]));
  for (const d of dependents.values()) {
    if (d.distance !== distance || d.via.sid) continue;
    const row = firstRowBySrc.get(d.symbol.id);
    const v = row ? byId.get(row.dst_id) : undefined;
    if (v) d.via = { sid: v.sid, name: v.name };
  }
}

/** Every candidate of each ambiguous site, so the agent sees the whole set. */
async function attachCandidates(db: Db, ambiguousAt: ReadonlyMap<MutableDependent, number>): Promise<void> {
  if (!ambiguousAt.size) return;
  const cand = await db.all<{ site_id: number; sid: string; qname: string; path: string; line: number }>(
    `SELECT e.site_id, s.sid, s.qname, f.path, s.line FROM edges e JOIN symbols s ON s.id = e.dst_id JOIN files f ON f.id = s.file_id WHERE e.site_id IN (SELECT value FROM json_each(?))`,
    [ids(new Set(ambiguousAt.values()))],
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
 * they never reach an override.
 */
async function dispatchesTo(db: Db, target: SymbolRef, placement: Placement | undefined, sources: Set<string>): Promise<Dispatch[]> {
  const isData = target.kind === 'field';
  if (!placement?.parent_id || !(isData || ['method', 'function'].includes(target.kind))) return [];
  const proven = await db.all<{ id: number; sid: string; qname: string; source: string; reason: string }>(
    `SELECT s.id, s.sid, s.qname, i.source, i.reason FROM implementations i JOIN symbols s ON s.id = i.base_id WHERE i.impl_id = ? AND i.base_id != i.impl_id`,
    [target.id],
  );
  const supers = await supertypes(db, placement.parent_id);
  const named = supers.length
    ? await db.all<{ id: number; sid: string; qname: string }>(`SELECT id, sid, qname FROM symbols WHERE name = ? AND parent_id IN (SELECT value FROM json_each(?))`, [target.name, ids(supers)])
    : [];
  const baseMethods = new Map<number, { sid: string; qname: string; proof?: { source: string; reason: string } }>();
  for (const b of named) baseMethods.set(b.id, { sid: b.sid, qname: b.qname });
  for (const b of proven) baseMethods.set(b.id, { sid: b.sid, qname: b.qname, proof: { source: b.source, reason: b.reason } });
  baseMethods.delete(target.id);
  if (!baseMethods.size) return [];
  const dispatches: Dispatch[] = [];
  const kinds = isData ? ['read', 'write'] : ['call'];
  const rows = await db.all<EdgeRow>(
    `${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.kind IN (SELECT value FROM json_each(?)) AND (e.binding IS NULL OR e.binding != 'super')`,
    [ids(baseMethods.keys()), JSON.stringify(kinds)],
  );
  for (const r of rows) {
    if (r.src_id === target.id) continue;
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
  return dispatches;
}

/** Dynamic sites: ones that name the target, and computed ones in files that import its file. */
async function dynamicSitesFor(db: Db, seeds: Seeds, placement: Placement | undefined): Promise<DynamicSite[]> {
  const dynamicSites: DynamicSite[] = [];
  const named = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier = 'dynamic'`, [ids(seeds.keys())]);
  for (const r of named) dynamicSites.push({ owner: symbolOf(r), site: siteOf(r), reason: r.reason, match: 'name' });
  if (placement) {
    const computed = await db.all<EdgeRow>(
      `${EDGE_SELECT} WHERE e.dst_id IS NULL AND e.tier = 'dynamic' AND e.kind = 'call'
         AND (e.file_id = ? OR e.file_id IN (SELECT file_id FROM imports WHERE target_file_id = ?))`,
      [placement.file_id, placement.file_id],
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
  const progress = lang
    ? await db.get<{ total: number; done: number }>(
        `SELECT count(*) AS total, sum(EXISTS (SELECT 1 FROM resolution_files r WHERE r.file_id = f.id)) AS done FROM files f WHERE f.language = ? AND f.skip_reason IS NULL`,
        [lang],
      )
    : undefined;
  const done = progress?.done ?? 0;
  const total = progress?.total ?? 0;
  if (!resolvedBySomething && done === 0) gaps.push('type-checked resolution (no language server or SCIP index has confirmed these edges yet)');
  else if (done < total) gaps.push(`type-checked resolution of ${total - done} of ${total} ${lang} files (enrichment has not reached them yet: their edges keep their inventory tier)`);
  for (const [source, st] of Object.entries(await resolutionStatus(db))) {
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
    const tiers = EDGE_TIERS.map((t) => [t, ofKind.filter((d) => d.tier === t).length] as const)
      .filter(([, c]) => c > 0)
      .map(([t, c]) => (t === 'ambiguous' ? `${c} ambiguous candidate${c === 1 ? '' : 's'}` : t === 'observed' ? observedWords(r.artifacts, kind, c) : `${c} ${t}`));
    const [one, many] = KIND_WORDS[kind];
    parts.push(`${n} ${n === 1 ? one : many} (${tiers.join(', ')})`);
  }
  const total = r.dependents.length;
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
  const propertyCalls = r.dependents.filter((d) => d.kind === 'read' && d.provenance.reason.startsWith('called through the property')).length;
  if (propertyCalls) extras.push(`${propertyCalls === 1 ? 'one reader calls' : `${propertyCalls} readers call`} it (a function-typed property: what runs is the value it holds)`);
  const data = r.target.kind === 'field' || r.target.kind === 'constant' || r.target.kind === 'key';
  const viaResolved = r.dispatches.filter((d) => d.resolution === 'resolved').length;
  const unresolved = r.dispatches.length - viaResolved;
  const uses = (n: number) => (data ? plural(n, 'read or write', 'reads and writes') : plural(n, 'call'));
  if (viaResolved) extras.push(`${uses(viaResolved)} reaching it by resolved dispatch (resolved to a base ${data ? 'property' : 'method'} it is proven to implement; the receiver's runtime type picks the implementation)`);
  if (unresolved) {
    extras.push(`${plural(unresolved, 'unresolved interface dispatch', 'unresolved interface dispatches')} (${data ? 'reads and writes through a base or interface property' : 'calls through a base method'} that may land here)`);
  }
  const dyn = r.dynamicSites.length;
  if (dyn) extras.push(`${plural(dyn, 'dynamic call site')} that may reach it`);
  if (r.wideSites) extras.push(`${plural(r.wideSites, data ? 'use site' : 'call site')} matching its name among too many candidates to list`);
  if (r.notFollowed) extras.push(`${plural(r.notFollowed, 'ambiguous dependent')} whose own dependents were not followed (ask about ${r.notFollowed === 1 ? 'it' : 'them'} directly)`);
  extras.push(...artifactExtras(r.artifacts));
  if (extras.length) s += `; ${extras.join('; ')}`;
  s += `; not seen: ${r.notSeen.join(', ')}`;
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}
