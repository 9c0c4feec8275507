import { EDGE_TIERS, weakerTier, type EdgeTier } from '../../model/tiers.js';
import type { EdgeKind } from '../../model/structural.js';
import type { Db } from '../../store/db.js';
import type { SymbolRef } from '../../model/symbolRef.js';
import { artifactExtras, observedWords, withArtifacts, type ArtifactsSummary } from './artifacts.js';

/*
 * what_breaks: the dependents of a symbol, transitively to a bound, grouped
 * by tier, with a sentence that states the answer as a lower bound and names
 * what the graph could not see. Reads SQLite only.
 */

export type DependencyKind = EdgeKind | 'overrides' | 'member';

export interface Site {
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

export interface Dependent {
  readonly symbol: SymbolRef;
  /** How it depends on the symbol it reaches: calls it, references it, implements it, overrides it… */
  readonly kind: DependencyKind;
  /** Weakest tier along the path from the target. */
  readonly tier: EdgeTier;
  /** 1 for direct dependents. */
  readonly distance: number;
  /** The symbol this one depends on directly (the target, one of its members, or a dependent one hop closer). */
  readonly via: { readonly sid: string; readonly name: string };
  readonly sites: readonly Site[];
  readonly provenance: { readonly source: string; readonly reason: string };
  /** For ambiguous edges: every candidate the site could mean. */
  readonly candidates?: readonly { readonly sid: string; readonly qname: string; readonly path: string; readonly line: number }[];
}

export interface Dispatch {
  /** The caller, which calls a base or interface method the target overrides. */
  readonly caller: SymbolRef;
  readonly through: { readonly sid: string; readonly qname: string };
  readonly site: Site;
  /** Tier of the call edge to the base method. */
  readonly tier: EdgeTier;
  /**
   * `resolved`: the call is resolved to the base method and a type checker
   * proved the target implements it, so the call can land here (which
   * implementation runs is still the receiver's runtime type).
   * `unresolved`: the call or the override is only inferred by name.
   */
  readonly resolution: 'resolved' | 'unresolved';
  readonly provenance: { readonly source: string; readonly reason: string };
}

export interface DynamicSite {
  readonly owner: SymbolRef;
  readonly site: Site;
  readonly reason: string;
  /** Whether the site names the target (getattr with a literal) or could reach anything in a file that imports it. */
  readonly match: 'name' | 'file';
}

export interface WhatBreaksResult {
  readonly target: SymbolRef;
  readonly depth: number;
  readonly dependents: readonly Dependent[];
  readonly implementers: readonly Dependent[];
  readonly dispatches: readonly Dispatch[];
  readonly dynamicSites: readonly DynamicSite[];
  /** Sites that name the target among too many candidates to list one by one. */
  readonly wideSites: number;
  /** Ambiguous dependents whose own dependents were not followed (the answer says so). */
  readonly notFollowed: number;
  readonly counts: {
    readonly direct: number;
    readonly transitive: number;
    readonly byTier: Record<EdgeTier, number>;
    readonly byKind: Partial<Record<DependencyKind, number>>;
  };
  /** The answer in one sentence, stated as a lower bound. */
  readonly summary: string;
  /** What the graph could not see. */
  readonly notSeen: readonly string[];
  /** Which sources produced the edges used. */
  readonly sources: readonly string[];
  /** What class files, DI wiring and traces added (artifactsImpact.ts); absent when none was imported. */
  readonly artifacts?: ArtifactsSummary;
}

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
  site_path: string;
  sid: string;
  name: string;
  qname: string;
  skind: SymbolRef['kind'];
  spath: string;
  sline: number;
}

const EDGE_SELECT = `
  SELECT e.site_id, e.src_id, e.dst_id, e.kind, e.tier, e.source, e.reason, e.candidates, e.line, e.col, ef.path AS site_path,
         s.sid, s.name, s.qname, s.kind AS skind, sf.path AS spath, s.line AS sline
  FROM edges e
  JOIN symbols s ON s.id = e.src_id
  JOIN files ef ON ef.id = e.file_id
  JOIN files sf ON sf.id = s.file_id`;

function symbolOf(r: EdgeRow): SymbolRef {
  return { id: r.src_id, sid: r.sid, name: r.name, qname: r.qname, kind: r.skind, path: r.spath, line: r.sline };
}

const ids = (list: Iterable<number>) => JSON.stringify([...list]);

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

export async function whatBreaks(db: Db, target: SymbolRef, depth: number): Promise<WhatBreaksResult> {
  const targetRow = await db.get<{ parent_id: number | null; file_id: number }>('SELECT parent_id, file_id FROM symbols WHERE id = ?', [target.id]);
  const isType = ['class', 'interface', 'enum', 'type'].includes(target.kind);

  // Seeds: the target, and for a type its members (changing a type breaks users of its members).
  const seeds = new Map<number, { sid: string; name: string }>([[target.id, { sid: target.sid, name: target.name }]]);
  if (isType) for (const m of await membersOf(db, target.id)) seeds.set(m.id, { sid: m.sid, name: `${target.name}.${m.name}` });
  // Overloads are one function: a call bound to any signature depends on it (a type checker names the signature it picked).
  if (!isType && targetRow && ['function', 'method', 'constructor'].includes(target.kind)) {
    const overloads = await db.all<{ id: number; sid: string }>(
      `SELECT id, sid FROM symbols WHERE file_id = ? AND name = ? AND kind = ? AND parent_id IS ? AND id != ?`,
      [targetRow.file_id, target.name, target.kind, targetRow.parent_id, target.id],
    );
    for (const o of overloads) seeds.set(o.id, { sid: target.sid, name: target.name });
  }

  const dependents = new Map<string, Dependent & { sites: Site[] }>();
  const implementers: Dependent[] = [];
  const reached = new Set<number>(seeds.keys());
  const sources = new Set<string>();
  const ambiguousSites = new Set<number>();
  const notFollowed = new Set<number>();

  // Implementers and overriders.
  if (isType) {
    for (const [sub, tier] of await subtypes(db, target.id)) {
      const s = await db.get<SymbolRef>(`SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?`, [sub]);
      if (s) implementers.push({ symbol: s, kind: target.kind === 'interface' ? 'implements' : 'extends', tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: 'declares it as a supertype' } });
    }
  } else if (targetRow?.parent_id && ['method', 'function', 'field', 'constructor'].includes(target.kind)) {
    // Proven by a type checker (implementation requests, SCIP relationships): resolved dispatch targets.
    const proven = await db.all<SymbolRef & { tier: EdgeTier; source: string; reason: string; wired_by: string | null }>(
      `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, i.tier, i.source, i.reason, i.wired_by
         FROM implementations i JOIN symbols s ON s.id = i.impl_id JOIN files f ON f.id = s.file_id WHERE i.base_id = ? ORDER BY s.qname`,
      [target.id],
    );
    const seen = new Set<number>();
    for (const p of proven) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      sources.add(p.source);
      const { tier, source, reason, wired_by, ...symbol } = p;
      implementers.push({ symbol, kind: 'overrides', tier, distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: symbol.path, line: symbol.line, col: 0 }], provenance: { source, reason: wired_by ? `${reason}; reached through ${wired_by}` : reason } });
    }
    for (const [sub, tier] of await subtypes(db, targetRow.parent_id)) {
      const rows = await db.all<SymbolRef>(`SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.parent_id = ? AND s.name = ?`, [sub, target.name]);
      for (const s of rows) {
        if (seen.has(s.id)) continue;
        seen.add(s.id);
        implementers.push({ symbol: s, kind: 'overrides', tier: weakerTier(tier, 'inferred'), distance: 1, via: { sid: target.sid, name: target.name }, sites: [{ path: s.path, line: s.line, col: 0 }], provenance: { source: 'tree-sitter', reason: `same name in a subtype (${tier} inheritance)` } });
      }
    }
  }

  // Dependents, breadth-first with a bound; a path's tier is its weakest edge.
  let frontier = new Map<number, EdgeTier>([...seeds.keys()].map((id) => [id, 'resolved' as EdgeTier]));
  for (let distance = 1; distance <= depth && frontier.size; distance++) {
    const rows = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier != 'dynamic' ORDER BY CASE e.tier WHEN 'resolved' THEN 0 WHEN 'observed' THEN 1 WHEN 'inferred' THEN 2 ELSE 3 END`, [ids(frontier.keys())]);
    const next = new Map<number, EdgeTier>();
    for (const r of rows) {
      if (reached.has(r.src_id) && distance > 1) continue;
      if (r.src_id === r.dst_id) continue; // recursion is not a dependent
      if (seeds.has(r.src_id)) continue; // a member using its own type
      const tier = weakerTier(frontier.get(r.dst_id) ?? 'resolved', r.tier);
      const via = seeds.get(r.dst_id) ?? { sid: '', name: '' };
      const key = `${r.src_id}:${r.kind}`;
      const site = { path: r.site_path, line: r.line, col: r.col };
      const existing = dependents.get(key);
      sources.add(r.source);
      if (r.tier === 'ambiguous' && r.site_id !== null) ambiguousSites.add(r.site_id);
      if (existing) {
        if (existing.distance === distance) existing.sites.push(site);
        continue;
      }
      const kind: DependencyKind = r.kind;
      dependents.set(key, {
        symbol: symbolOf(r),
        kind,
        tier,
        distance,
        via: via.sid ? via : { sid: '', name: '' },
        sites: [site],
        provenance: { source: r.source, reason: r.reason },
        ...(r.tier === 'ambiguous' ? { candidates: [], siteId: r.site_id } : {}),
      } as Dependent & { sites: Site[] });
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
    // Name the hop each transitive dependent came through.
    if (distance > 1) {
      const firstRowBySrc = new Map<number, EdgeRow>();
      for (const r of rows) if (!firstRowBySrc.has(r.src_id)) firstRowBySrc.set(r.src_id, r);
      const names = await db.all<{ id: number; sid: string; name: string }>('SELECT id, sid, name FROM symbols WHERE id IN (SELECT value FROM json_each(?))', [ids(frontier.keys())]);
      const byId = new Map(names.map((n) => [n.id, n]));
      for (const d of dependents.values()) {
        if (d.distance !== distance || d.via.sid) continue;
        const row = firstRowBySrc.get(d.symbol.id);
        const v = row ? byId.get(row.dst_id) : undefined;
        if (v) (d as { via: { sid: string; name: string } }).via = { sid: v.sid, name: v.name };
      }
    }
    frontier = next;
  }

  // Every candidate of each ambiguous site, so the agent sees the whole set.
  if (ambiguousSites.size) {
    const cand = await db.all<{ site_id: number; sid: string; qname: string; path: string; line: number }>(
      `SELECT e.site_id, s.sid, s.qname, f.path, s.line FROM edges e JOIN symbols s ON s.id = e.dst_id JOIN files f ON f.id = s.file_id WHERE e.site_id IN (SELECT value FROM json_each(?))`,
      [ids(ambiguousSites)],
    );
    const bySite = new Map<number, { sid: string; qname: string; path: string; line: number }[]>();
    for (const { site_id, sid, qname, path, line } of cand) {
      const list = bySite.get(site_id) ?? [];
      list.push({ sid, qname, path, line });
      bySite.set(site_id, list);
    }
    for (const d of dependents.values()) {
      const siteId = (d as { siteId?: number }).siteId;
      if (siteId === undefined) continue;
      (d as { candidates?: unknown }).candidates = bySite.get(siteId) ?? [];
      delete (d as { siteId?: number }).siteId;
    }
  }

  // Calls through a base or interface method the target overrides: possible dispatches, unresolved.
  // A call through a base method proven (implementations table) to reach the target is resolved dispatch.
  const dispatches: Dispatch[] = [];
  if (targetRow?.parent_id && ['method', 'function'].includes(target.kind)) {
    const proven = await db.all<{ id: number; sid: string; qname: string; source: string; reason: string }>(
      `SELECT s.id, s.sid, s.qname, i.source, i.reason FROM implementations i JOIN symbols s ON s.id = i.base_id WHERE i.impl_id = ?`,
      [target.id],
    );
    const supers = await supertypes(db, targetRow.parent_id);
    const named = supers.length
      ? await db.all<{ id: number; sid: string; qname: string }>(`SELECT id, sid, qname FROM symbols WHERE name = ? AND parent_id IN (SELECT value FROM json_each(?))`, [target.name, ids(supers)])
      : [];
    const baseMethods = new Map<number, { sid: string; qname: string; proof?: { source: string; reason: string } }>();
    for (const b of named) baseMethods.set(b.id, { sid: b.sid, qname: b.qname });
    for (const b of proven) baseMethods.set(b.id, { sid: b.sid, qname: b.qname, proof: { source: b.source, reason: b.reason } });
    if (baseMethods.size) {
      const rows = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.kind = 'call'`, [ids(baseMethods.keys())]);
      for (const r of rows) {
        const base = baseMethods.get(r.dst_id)!;
        const resolution = base.proof && r.tier === 'resolved' ? 'resolved' : 'unresolved';
        if (resolution === 'resolved') sources.add(r.source);
        dispatches.push({
          caller: symbolOf(r),
          through: { sid: base.sid, qname: base.qname },
          site: { path: r.site_path, line: r.line, col: r.col },
          tier: r.tier,
          resolution,
          provenance: resolution === 'resolved' ? { source: r.source, reason: `call ${r.reason}; ${base.proof!.reason}` } : { source: r.source, reason: r.reason },
        });
      }
    }
  }

  // Dynamic sites: ones that name the target, and computed ones in files that import its file.
  const dynamicSites: DynamicSite[] = [];
  const named = await db.all<EdgeRow>(`${EDGE_SELECT} WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier = 'dynamic'`, [ids(seeds.keys())]);
  for (const r of named) dynamicSites.push({ owner: symbolOf(r), site: { path: r.site_path, line: r.line, col: r.col }, reason: r.reason, match: 'name' });
  if (targetRow) {
    const computed = await db.all<EdgeRow>(
      `${EDGE_SELECT} WHERE e.dst_id IS NULL AND e.tier = 'dynamic'
         AND (e.file_id = ? OR e.file_id IN (SELECT file_id FROM imports WHERE target_file_id = ?))`,
      [targetRow.file_id, targetRow.file_id],
    );
    for (const r of computed) dynamicSites.push({ owner: symbolOf(r), site: { path: r.site_path, line: r.line, col: r.col }, reason: r.reason, match: 'file' });
  }
  const wide = await db.get<{ n: number }>(
    `SELECT count(*) AS n FROM edges e WHERE e.dst_id IS NULL AND e.tier = 'ambiguous' AND e.name IN (SELECT value FROM json_each(?))`,
    [JSON.stringify([...new Set([target.name, ...[...seeds.values()].map((s) => s.name.split('.').pop()!)])])],
  );

  const list = [...dependents.values()].sort((a, b) => a.distance - b.distance || EDGE_TIERS.indexOf(a.tier) - EDGE_TIERS.indexOf(b.tier) || a.symbol.qname.localeCompare(b.symbol.qname));
  const byTier = Object.fromEntries(EDGE_TIERS.map((t) => [t, 0])) as Record<EdgeTier, number>;
  const byKind: Partial<Record<DependencyKind, number>> = {};
  for (const d of list) {
    byTier[d.tier]++;
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
  }
  const direct = list.filter((d) => d.distance === 1).length;
  const notSeen = await notSeenFor(db, [...sources], targetRow?.file_id);
  const result: Omit<WhatBreaksResult, 'summary'> = {
    target,
    depth,
    dependents: list,
    implementers,
    dispatches,
    dynamicSites,
    wideSites: wide?.n ?? 0,
    notFollowed: notFollowed.size,
    counts: { direct, transitive: list.length - direct, byTier, byKind },
    notSeen,
    sources: [...sources].sort(),
  };
  const merged = await withArtifacts(db, result);
  return { ...merged, summary: lowerBoundSentence(merged) };
}

/**
 * What the graph could not see for this answer. Type-checked resolution is
 * named as missing while the enrichment pass has not covered the target's
 * language (or a resolver for it could not run, with its own message).
 */
async function notSeenFor(db: Db, sources: readonly string[], fileId: number | undefined): Promise<string[]> {
  const resolvedBySomething = sources.some((s) => s !== 'tree-sitter');
  const gaps: string[] = [];
  const lang = fileId !== undefined ? (await db.get<{ language: string | null }>('SELECT language FROM files WHERE id = ?', [fileId]))?.language : undefined;
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
  const status = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'resolution.status'");
  if (status) {
    for (const [source, st] of Object.entries(JSON.parse(status.value) as Record<string, { state: string; languages?: string[]; message?: string }>)) {
      if (st.state === 'unavailable' && st.message && (!lang || !st.languages?.length || st.languages.includes(lang))) gaps.push(`${source} (${st.message})`);
    }
  }
  return [
    ...gaps,
    'reflection targets',
    'DI wiring',
    'generated code',
    'callers outside this workspace',
  ];
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
  const viaResolved = r.dispatches.filter((d) => d.resolution === 'resolved').length;
  const unresolved = r.dispatches.length - viaResolved;
  if (viaResolved) extras.push(`${plural(viaResolved, 'call')} reaching it by resolved dispatch (resolved to a base method it is proven to implement; the receiver's runtime type picks the implementation)`);
  if (unresolved) extras.push(`${plural(unresolved, 'unresolved interface dispatch', 'unresolved interface dispatches')} (calls through a base method that may land here)`);
  const dyn = r.dynamicSites.length;
  if (dyn) extras.push(`${plural(dyn, 'dynamic call site')} that may reach it`);
  if (r.wideSites) extras.push(`${plural(r.wideSites, 'call site')} matching its name among too many candidates to list`);
  if (r.notFollowed) extras.push(`${plural(r.notFollowed, 'ambiguous dependent')} whose own dependents were not followed (ask about ${r.notFollowed === 1 ? 'it' : 'them'} directly)`);
  extras.push(...artifactExtras(r.artifacts));
  if (extras.length) s += `; ${extras.join('; ')}`;
  s += `; not seen: ${r.notSeen.join(', ')}`;
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}
