import { DATA_KINDS, type EdgeBinding, type EdgeKind } from '../../model/structural.js';
import type { Db } from '../../store/db.js';
import type { SiteTuple } from '../schema.js';
import type { ImplementationFact, Loc, ResolutionBatch, SiteVerdict, SymbolAnchor } from './types.js';
import { push } from '../../../shared/maps.js';

/*
 * A resolver's batch (locations and symbol ids) turned into edge rows, in
 * one transaction (ResolutionStore.apply): for each site verdict, the
 * inventory's edges it proves are confirmed in place, the ones a complete
 * verdict rules out are refuted (moved to refutations), and the targets the
 * inventory missed are added; then implementations, and the files the batch
 * covered.
 */

/** What applying a batch did. */
export interface BatchOutcome {
  readonly confirmed: number;
  readonly refuted: number;
  readonly added: number;
  readonly implementations: number;
  /** Inventory edges in covered files that no verdict spoke of: they now say so. */
  readonly unanswered: number;
  /** Data uses through receivers the checker types `any`, kept once by name, not attributed (EdgePlan.untyped). */
  readonly untyped: number;
  readonly unmatchedSites: number;
}

/** How the files a batch covers are recorded: under which type checker, and whether every use in them was read. */
export interface Coverage {
  readonly checker?: string;
  readonly allUses?: boolean;
}

/** Kinds of the module and type graph a use's syntax does not change. */
const FIXED_KINDS: ReadonlySet<EdgeKind> = new Set(['import', 'extends', 'implements']);

/** Edge kinds a type checker answers at a use site (imports are the module graph's, not a site's). */
const SITE_KINDS: ReadonlySet<EdgeKind> = new Set(['call', 'instantiate', 'reference', 'extends', 'implements', 'read', 'write']);

export interface FileRow {
  id: number;
  path: string;
  hash: string | null;
  language: string | null;
}

interface SymRow {
  id: number;
  sid: string;
  name: string;
  kind: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  parent_id: number | null;
  file_id: number;
}

interface InvSite {
  id: number;
  ownerId: number;
  kind: EdgeKind;
  name: string;
  receiver: string | null;
  line: number;
  col: number;
  dynamic: string | null;
}

interface EdgeRow {
  id: number;
  site_id: number | null;
  src_id: number;
  dst_id: number | null;
  kind: EdgeKind;
  name: string;
  tier: string;
  source: string;
  reason: string;
  candidates: number;
  file_id: number;
  line: number;
  col: number;
  base_tier: string | null;
  base_source: string | null;
  base_reason: string | null;
  added: number;
  binding: EdgeBinding | null;
  dst_kind: string | null;
}

interface FileCounts {
  sites: number;
  confirmed: number;
  refuted: number;
  added: number;
}

const json = (list: Iterable<number>) => JSON.stringify([...list]);

/** Symbol kinds that hold a value, and kinds that run: a data base is never reached by dispatch into a callable. */
const DATA_SYMBOLS: ReadonlySet<string> = DATA_KINDS as ReadonlySet<string>;
const CALLABLE_SYMBOLS: ReadonlySet<string> = new Set(['method', 'function']);

export async function applyBatch(db: Db, source: string, tier: 'resolved' | 'observed', batch: ResolutionBatch, coverage: Coverage = {}): Promise<BatchOutcome> {
  const files = await BatchFiles.load(db, batch);
  const now = Date.now();
  const existing = await ExistingEdges.load(db, files, batch);
  const plan = new EdgePlan(source, tier, files, existing);
  for (const v of batch.sites) plan.take(v);
  plan.untyped(batch.unanswered ?? []);
  for (const p of batch.coveredFiles ?? []) plan.unanswered(p);
  await plan.write(db, now);
  let implementations = 0;
  for (const fact of batch.implementations) implementations += await insertImplementation(db, files, fact, tier, source);
  await recordCoverage(db, files, batch.coveredFiles ?? [], plan.perFile, source, now, coverage);
  return { confirmed: plan.confirmed, refuted: plan.refuted, added: plan.added, implementations, unanswered: plan.unansweredEdges, untyped: plan.untypedSites, unmatchedSites: plan.unmatchedSites };
}

/** Per-file data needed to map locations to rows, loaded once per batch. */
class FileIndex {
  readonly symbols: SymRow[] = [];
  readonly sitesAt = new Map<string, InvSite>();
  constructor(readonly file: FileRow) {}

  /**
   * The definition whose name starts exactly here. No nearest-match: a
   * location the inventory has no definition for (a local, a parameter) is
   * not one of its symbols, and guessing would confirm a wrong edge.
   */
  symbolAt(at: Loc): SymRow | undefined {
    return this.symbols.find((s) => s.line === at.line && s.col === at.col && s.kind !== 'module');
  }

  /** The innermost definition around a position: the dependent a missed site belongs to. */
  enclosing(at: Loc): SymRow | undefined {
    let best: SymRow | undefined;
    for (const s of this.symbols) {
      const starts = s.kind === 'module' ? 0 : s.line;
      const inside = (at.line > starts || (at.line === starts && at.col >= (s.kind === 'module' ? 0 : s.col))) && (at.line < s.end_line || (at.line === s.end_line && (s.end_col === 0 || at.col <= s.end_col)) || s.kind === 'module');
      if (!inside) continue;
      if (!best || best.kind === 'module' || (s.kind !== 'module' && s.end_line - s.line <= best.end_line - best.line && s.line >= best.line)) best = s;
    }
    return best;
  }
}

/** The files a batch mentions, with their symbols and inventory sites, and anchors mapped to symbol rows. */
class BatchFiles {
  private constructor(private readonly byPath: Map<string, FileIndex>) {}

  static async load(db: Db, batch: ResolutionBatch): Promise<BatchFiles> {
    const paths = new Set<string>();
    const sids = new Set<string>();
    const addAnchor = (a: SymbolAnchor | undefined) => {
      if (!a) return;
      if ('at' in a) paths.add(a.at.path);
      else if ('sid' in a) sids.add(a.sid);
    };
    for (const v of batch.sites) {
      paths.add(v.site.path);
      addAnchor(v.from);
      for (const t of v.targets) addAnchor(t);
    }
    for (const i of batch.implementations) {
      addAnchor(i.base);
      addAnchor(i.impl);
    }
    for (const p of batch.coveredFiles ?? []) paths.add(p);
    if (sids.size) {
      for (const r of await db.all<{ path: string }>(`SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid IN (SELECT value FROM json_each(?))`, [JSON.stringify([...sids])])) paths.add(r.path);
    }
    const out = new Map<string, FileIndex>();
    const fileRows = await db.all<FileRow>(`SELECT id, path, hash, language FROM files WHERE path IN (SELECT value FROM json_each(?))`, [JSON.stringify([...paths])]);
    for (const f of fileRows) out.set(f.path, new FileIndex(f));
    const byId = new Map([...out.values()].map((fi) => [fi.file.id, fi]));
    const ids = json(byId.keys());
    for (const s of await db.all<SymRow>(`SELECT id, sid, name, kind, line, col, end_line, end_col, parent_id, file_id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))`, [ids])) {
      byId.get(s.file_id)!.symbols.push(s);
    }
    for (const row of await db.all<{ file_id: number; sites: string }>(`SELECT file_id, sites FROM file_sites WHERE file_id IN (SELECT value FROM json_each(?))`, [ids])) {
      const fi = byId.get(row.file_id)!;
      for (const [id, ownerId, kind, name, receiver, , line, col, dynamic] of JSON.parse(row.sites) as SiteTuple[]) {
        fi.sitesAt.set(`${line}:${col}`, { id, ownerId, kind, name, receiver, line, col, dynamic });
      }
    }
    return new BatchFiles(out);
  }

  get(path: string): FileIndex | undefined {
    return this.byPath.get(path);
  }

  /** The symbol row an anchor names; undefined outside the workspace or for a location with no definition. */
  anchor(a: SymbolAnchor): number | undefined {
    if ('external' in a) return undefined;
    if ('sid' in a) {
      for (const fi of this.byPath.values()) {
        const s = fi.symbols.find((x) => x.sid === a.sid);
        if (s) return s.id;
      }
      return undefined;
    }
    return this.byPath.get(a.at.path)?.symbolAt(a.at)?.id;
  }

  /** The file that defines a symbol row. */
  fileOf(id: number): FileIndex | undefined {
    for (const fi of this.byPath.values()) if (fi.symbols.some((s) => s.id === id)) return fi;
    return undefined;
  }

  kindOf(id: number): string | undefined {
    for (const fi of this.byPath.values()) {
      const s = fi.symbols.find((x) => x.id === id);
      if (s) return s.kind;
    }
    return undefined;
  }

  nameOf(id: number): string | undefined {
    for (const fi of this.byPath.values()) {
      const s = fi.symbols.find((x) => x.id === id);
      if (s) return s.name;
    }
    return undefined;
  }
}

/** The edges already at the sites of a batch, read in one query per file: by inventory site, else by location. */
class ExistingEdges {
  private readonly bySite = new Map<number, EdgeRow[]>();
  private readonly byLoc = new Map<string, EdgeRow[]>();
  private readonly byFile = new Map<number, EdgeRow[]>();

  static async load(db: Db, files: BatchFiles, batch: ResolutionBatch): Promise<ExistingEdges> {
    const out = new ExistingEdges();
    const siteFileIds = new Set<number>();
    for (const v of batch.sites) {
      const fi = files.get(v.site.path);
      if (fi) siteFileIds.add(fi.file.id);
    }
    for (const p of batch.coveredFiles ?? []) {
      const fi = files.get(p);
      if (fi) siteFileIds.add(fi.file.id);
    }
    for (const fid of siteFileIds) {
      const rows = await db.all<EdgeRow>(
        `SELECT e.id, e.site_id, e.src_id, e.dst_id, e.kind, e.name, e.tier, e.source, e.reason, e.candidates, e.file_id, e.line, e.col, e.base_tier, e.base_source, e.base_reason, e.added, e.binding, d.kind AS dst_kind
           FROM edges e LEFT JOIN symbols d ON d.id = e.dst_id WHERE e.file_id = ?`,
        [fid],
      );
      for (const r of rows) {
        if (r.site_id !== null) push(out.bySite, r.site_id, r);
        else push(out.byLoc, `${r.file_id}:${r.line}:${r.col}`, r);
      }
      out.byFile.set(fid, rows);
    }
    return out;
  }

  ofFile(fileId: number): readonly EdgeRow[] {
    return this.byFile.get(fileId) ?? [];
  }

  at(site: InvSite | undefined, fileId: number, loc: Loc): readonly EdgeRow[] {
    return site ? (this.bySite.get(site.id) ?? []) : (this.byLoc.get(`${fileId}:${loc.line}:${loc.col}`) ?? []);
  }
}

/** The edits a batch makes to the edges, gathered verdict by verdict and written at once. */
class EdgePlan {
  confirmed = 0;
  refuted = 0;
  added = 0;
  unmatchedSites = 0;
  readonly perFile = new Map<number, FileCounts>();
  private readonly upgrade: [number, string][] = [];
  private readonly refute: number[] = [];
  private readonly refuteReason = new Map<number, string>();
  private readonly dropAdded: number[] = [];
  private readonly inserts: (string | number | null)[][] = [];
  private readonly rekind: [number, EdgeKind][] = [];
  private readonly rebind: [number, EdgeBinding][] = [];
  private readonly silent: number[] = [];
  /** Sites a verdict spoke of, by inventory site id (`s…`) or location (`l…`). */
  private readonly answered = new Set<string>();
  unansweredEdges = 0;
  /** Data uses through receivers typed `any`, kept once by name instead of one ambiguous edge per candidate. */
  untypedSites = 0;

  constructor(
    private readonly source: string,
    private readonly tier: 'resolved' | 'observed',
    private readonly files: BatchFiles,
    private readonly existing: ExistingEdges,
  ) {}

  /** One site verdict: confirm the edges it proves, refute (if complete) the others, add what the inventory missed. */
  take(v: SiteVerdict): void {
    const fi = this.files.get(v.site.path);
    if (!fi) {
      this.unmatchedSites++;
      return;
    }
    const c = this.countsOf(fi.file.id);
    c.sites++;
    const site = fi.sitesAt.get(`${v.site.line}:${v.site.col}`);
    this.answered.add(site ? `s${site.id}` : `l${fi.file.id}:${v.site.line}:${v.site.col}`);
    if (site?.dynamic) return;
    const targets = new Set<number>();
    let outside = 0;
    for (const t of v.targets) {
      const id = this.files.anchor(t);
      if (id === undefined) outside++;
      else targets.add(id);
    }
    if (!targets.size && !v.complete) return;
    const have = this.confirmOrRefute(v, this.existing.at(site, fi.file.id, v.site), targets, outside, c);
    const missing = [...targets].filter((t) => !have.has(t));
    if (missing.length) this.addMissing(v, fi, site, missing, targets.size, c);
  }

  /** The existing edges at the site: those to a proven target are upgraded, the rest refuted when the verdict is complete. Returns the targets already there. */
  private confirmOrRefute(v: SiteVerdict, existing: readonly EdgeRow[], targets: ReadonlySet<number>, outside: number, c: FileCounts): Set<number> {
    const have = new Set<number>();
    for (const e of existing) {
      if (e.dst_id !== null && targets.has(e.dst_id)) {
        have.add(e.dst_id);
        this.upgrade.push([e.id, v.reason]);
        // The syntax the checker read decides what the use is (SiteVerdict.use): whether data is
        // read or written, a `new`, a call; and how a call is bound.
        const kind = v.use && !FIXED_KINDS.has(e.kind) ? dataKind(v.use, v, e.dst_kind ?? undefined) : v.role && (e.kind === 'read' || e.kind === 'write' || (e.kind === 'reference' && DATA_SYMBOLS.has(e.dst_kind ?? ''))) ? v.role : e.kind;
        if (kind !== e.kind) this.rekind.push([e.id, kind]);
        if (v.binding && e.binding !== v.binding) this.rebind.push([e.id, v.binding]);
        if (e.tier !== this.tier || e.source !== this.source) {
          this.confirmed++;
          c.confirmed++;
        }
      } else if (v.complete) {
        if (e.added) this.dropAdded.push(e.id);
        else {
          this.refute.push(e.id);
          this.refuteReason.set(e.id, targets.size ? v.reason : `${v.reason}${outside ? ' (the target is outside the workspace or not a definition the inventory lists)' : ''}`);
          this.refuted++;
          c.refuted++;
        }
      }
    }
    return have;
  }

  /** Edges to the proven targets the inventory did not have, from the site's owner (or the verdict's dependent, or the definition around it). */
  private addMissing(v: SiteVerdict, fi: FileIndex, site: InvSite | undefined, missing: readonly number[], candidates: number, c: FileCounts): void {
    let srcId: number | undefined;
    let kind: EdgeKind;
    let name: string;
    if (site) {
      srcId = site.ownerId;
      kind = site.kind;
      name = site.name;
      // A resolver that read the syntax knows the use better than the name match did.
      if (v.use && !FIXED_KINDS.has(site.kind)) kind = v.use;
    } else {
      srcId = v.from ? this.files.anchor(v.from) : undefined;
      srcId ??= fi.enclosing(v.site)?.id;
      kind = v.kind ?? 'reference';
      name = this.files.fileOf(missing[0]!)?.symbols.find((s) => s.id === missing[0])?.name ?? '';
    }
    if (srcId === undefined) return;
    for (const dst of missing) {
      if (dst === srcId && kind !== 'call') continue;
      const dstName = site ? name : (this.files.nameOf(dst) ?? name);
      const dstKind = this.files.kindOf(dst);
      const edgeKind = dataKind(kind, v, dstKind);
      // A call that became a read of data is a property call; `super` stays what the verdict says.
      const binding = v.binding ?? ((kind === 'call' || kind === 'instantiate') && edgeKind === 'read' ? 'property-call' : null);
      this.inserts.push([site?.id ?? null, srcId, dst, edgeKind, dstName, this.tier, this.source, v.reason, candidates, fi.file.id, v.site.line, v.site.col, 1, binding]);
      this.added++;
      c.added++;
    }
  }

  /**
   * Data uses the checker read and named no member for (a receiver typed
   * `any`, or as a type from a package that is not installed) that the
   * inventory matched by name alone (`ambiguous`: every same-named field a
   * candidate). What such a receiver holds is decided at run time, and the
   * checker that knows every declared type says no declared member is used:
   * the name match is no evidence of a read of any one of them. The
   * candidates are set aside (as refutations, so a change of the file puts
   * them back) and the site is kept once, by name, without a target
   * (`dynamic`, binding `untyped`): answers for a member of that name count
   * it as a use they cannot attribute (whatBreaks' untypedSites).
   */
  untyped(locs: readonly Loc[]): void {
    for (const loc of locs) {
      const fi = this.files.get(loc.path);
      const site = fi?.sitesAt.get(`${loc.line}:${loc.col}`);
      if (!fi || !site || site.receiver === null || site.dynamic) continue;
      const key = `s${site.id}`;
      if (this.answered.has(key)) continue;
      const edges = this.existing.at(site, fi.file.id, loc);
      const byName = (e: EdgeRow) => !e.added && e.base_tier === null && e.tier === 'ambiguous' && e.source === 'tree-sitter' && (e.kind === 'read' || e.kind === 'write');
      if (!edges.length || !edges.every(byName)) continue;
      this.answered.add(key);
      const candidates = Math.max(edges.length, ...edges.map((e) => (e.dst_id === null ? e.candidates : 0)));
      const what = edges[0]!.kind === 'write' ? 'write' : 'read';
      for (const e of edges) {
        this.refute.push(e.id);
        this.refuteReason.set(e.id, `the type checker (${this.source}) names no member for \`${site.name}\` on \`${site.receiver}\` (typed \`any\`, or as a type from a package that is not installed): a name match is no evidence of this member`);
      }
      const reason = `${what} of \`${site.name}\` on \`${site.receiver}\`, a receiver the type checker (${this.source}) types \`any\` (or as a type from a package that is not installed): not attributed to any of the ${candidates} \`${site.name}\`s the inventory matched by name`;
      this.inserts.push([site.id, site.ownerId, null, edges[0]!.kind, site.name, 'dynamic', this.source, reason, candidates, fi.file.id, loc.line, loc.col, 1, 'untyped']);
      this.untypedSites++;
    }
  }

  /**
   * A covered file's inventory edges no verdict spoke of: the resolver read the
   * file and had no answer for their sites. They keep their tier and say so,
   * so an unchecked `inferred` never looks checked.
   */
  unanswered(path: string): void {
    const fi = this.files.get(path);
    if (!fi) return;
    for (const e of this.existing.ofFile(fi.file.id)) {
      if (e.added || e.base_tier !== null || !SITE_KINDS.has(e.kind) || (e.tier !== 'inferred' && e.tier !== 'ambiguous')) continue;
      // A configuration key is read by its string: no type checker answers for it, by design.
      if (e.dst_kind === 'key') continue;
      if (this.answered.has(e.site_id !== null ? `s${e.site_id}` : `l${e.file_id}:${e.line}:${e.col}`)) continue;
      this.silent.push(e.id);
      this.unansweredEdges++;
    }
  }

  private countsOf(fileId: number): FileCounts {
    let c = this.perFile.get(fileId);
    if (!c) this.perFile.set(fileId, (c = { sites: 0, confirmed: 0, refuted: 0, added: 0 }));
    return c;
  }

  /** Refuted edges move to refutations with their inventory tier; upgraded ones keep their inventory tier as their base. */
  async write(db: Db, now: number): Promise<void> {
    if (this.refute.length) {
      await db.run(
        `INSERT INTO refutations (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, refuted_by, refuted_reason, at, binding)
           SELECT site_id, src_id, dst_id, kind, name, COALESCE(base_tier, tier), COALESCE(base_source, source), COALESCE(base_reason, reason), candidates, file_id, line, col, ?2, j.value->>1, ?3, binding
           FROM edges JOIN json_each(?1) j ON j.value->>0 = edges.id`,
        [JSON.stringify(this.refute.map((id) => [id, this.refuteReason.get(id) ?? ''])), this.source, now],
      );
      await db.run(`DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))`, [json(this.refute)]);
    }
    if (this.dropAdded.length) await db.run(`DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))`, [json(this.dropAdded)]);
    if (this.upgrade.length) {
      await db.run(
        `UPDATE edges SET base_tier = COALESCE(base_tier, CASE WHEN added = 1 THEN NULL ELSE tier END),
                          base_source = COALESCE(base_source, CASE WHEN added = 1 THEN NULL ELSE source END),
                          base_reason = COALESCE(base_reason, CASE WHEN added = 1 THEN NULL ELSE reason END),
                          tier = ?2, source = ?3, reason = (SELECT j.value->>1 FROM json_each(?1) j WHERE j.value->>0 = edges.id)
           WHERE id IN (SELECT value->>0 FROM json_each(?1))`,
        [JSON.stringify(this.upgrade), this.tier, this.source],
      );
    }
    if (this.rekind.length) {
      await db.run(`UPDATE edges SET kind = (SELECT j.value->>1 FROM json_each(?1) j WHERE j.value->>0 = edges.id) WHERE id IN (SELECT value->>0 FROM json_each(?1))`, [JSON.stringify(this.rekind)]);
    }
    if (this.rebind.length) {
      await db.run(`UPDATE edges SET binding = (SELECT j.value->>1 FROM json_each(?1) j WHERE j.value->>0 = edges.id) WHERE id IN (SELECT value->>0 FROM json_each(?1))`, [JSON.stringify(this.rebind)]);
    }
    if (this.silent.length) {
      // The inventory's answer is kept in base_* (as for an upgrade), so a change puts the plain reason back.
      await db.run(
        `UPDATE edges SET base_tier = tier, base_source = source, base_reason = reason, reason = reason || ?2 WHERE id IN (SELECT value FROM json_each(?1)) AND base_tier IS NULL`,
        [json(this.silent), `; no answer from the type checker (${this.source}) for this site: not confirmed, not refuted`],
      );
    }
    if (this.inserts.length) {
      await db.run(
        `INSERT INTO edges (site_id, src_id, dst_id, kind, name, tier, source, reason, candidates, file_id, line, col, added, binding)
           SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8, value->>9, value->>10, value->>11, value->>12, value->>13 FROM json_each(?)`,
        [JSON.stringify(this.inserts)],
      );
    }
  }
}

/**
 * The kind of an edge a resolver adds to data (a field, a constant): a read or
 * a write by the use's role, and a call through it is a read of it (what runs
 * is the value it holds). Other targets keep the kind the site has.
 */
function dataKind(kind: EdgeKind, v: SiteVerdict, targetKind: string | undefined): EdgeKind {
  if (!DATA_SYMBOLS.has(targetKind ?? '')) return kind;
  if (kind === 'read' || kind === 'write') return v.role ?? kind;
  if (kind === 'call' || kind === 'instantiate') return 'read';
  // A resolver that read the syntax said `reference` (a type position, a re-export): that is what it is.
  if (kind === 'reference' && v.use !== 'reference') return v.role ?? 'read';
  return kind;
}

async function insertImplementation(db: Db, files: BatchFiles, fact: ImplementationFact, tier: string, source: string): Promise<number> {
  const base = files.anchor(fact.base);
  const impl = files.anchor(fact.impl);
  if (base === undefined || impl === undefined || base === impl) return 0;
  // A call through a function-typed property reads the property: no method is reached from it by dispatch.
  if (DATA_SYMBOLS.has(files.kindOf(base) ?? '') && CALLABLE_SYMBOLS.has(files.kindOf(impl) ?? '')) return 0;
  const r = await db.run(
    `INSERT INTO implementations (impl_id, base_id, file_id, tier, source, reason, wired_by) SELECT ?1, ?2, file_id, ?3, ?4, ?5, ?6 FROM symbols WHERE id = ?1
       ON CONFLICT(impl_id, base_id, source) DO UPDATE SET tier = excluded.tier, reason = excluded.reason, wired_by = excluded.wired_by`,
    [impl, base, tier, source, fact.reason, fact.wiredBy ?? null],
  );
  return r.changes;
}

/** The files the batch answered for, recorded as enriched at their current content with what it did in them. */
async function recordCoverage(db: Db, files: BatchFiles, covered: readonly string[], perFile: ReadonlyMap<number, FileCounts>, source: string, now: number, coverage: Coverage): Promise<void> {
  for (const p of covered) {
    const fi = files.get(p);
    if (!fi) continue;
    const c = perFile.get(fi.file.id) ?? { sites: 0, confirmed: 0, refuted: 0, added: 0 };
    await db.run(
      `INSERT INTO resolution_files (file_id, source, hash, at, sites, confirmed, refuted, added, checker, all_uses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(file_id, source) DO UPDATE SET hash = excluded.hash, at = excluded.at, sites = excluded.sites,
           confirmed = excluded.confirmed, refuted = excluded.refuted, added = excluded.added, checker = excluded.checker, all_uses = excluded.all_uses`,
      [fi.file.id, source, fi.file.hash, now, c.sites, c.confirmed, c.refuted, c.added, coverage.checker ?? null, coverage.allUses ? 1 : 0],
    );
  }
}
