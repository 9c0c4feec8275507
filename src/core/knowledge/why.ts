import { Yielder } from '../../shared/yielder.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import { neighboursOf, qnamesOf } from '../structural/lookup.js';
import {
  CATEGORY_ORDER,
  categoryOf,
  documentRef,
  knowledgeIndexed,
  needlesFor,
  quoteFrom,
  type Category,
  type DocumentRef,
  type Quotation,
} from './quotes.js';
import type { SymbolRef } from '../model/symbolRef.js';
import { firstChunkOf } from './store/documents.js';
import { conceptsAround, entitiesOfDocuments, mentionsOf, passagesReferringTo, type RelatedConcept } from './store/graph.js';
import { citationsOf, entitiesLinkedTo, linksOf, type LinkedEntity } from './store/links.js';

/*
 * why_is_this: the decisions, incidents, discussions and constraints that
 * bear on a symbol, each with its source, a short quotation, the link tier by
 * which the document reaches the symbol, and how it was extracted. Reads
 * SQLite only.
 *
 * What reaches a symbol: entities linked to it, to its members (for a type),
 * to its enclosing type, and to the symbols it uses directly (one structural
 * edge, whose tier is shown); code comments citing a document; then the
 * documents those documents refer to (one more hop, marked), and the
 * constraints, decisions and incidents related to any of them in the
 * knowledge graph — kept even when no symbol denotes them (unresolved).
 */

export type ScopeRelation = 'self' | 'member' | 'container' | 'uses';

export interface ScopeSymbol {
  readonly sid: string;
  readonly qname: string;
  readonly relation: ScopeRelation;
  /** For `uses`: the tier of the structural edge from the target. */
  readonly edgeTier?: string;
}

export interface Anchor {
  /** The entity as written in the documents. */
  readonly entity: string;
  readonly entityType: string;
  readonly tier: LinkTier;
  readonly symbol: { readonly sid: string; readonly qname: string };
  readonly relation: ScopeRelation;
  readonly reason: string;
}

export interface WhyItem {
  readonly category: Category;
  readonly document: DocumentRef;
  /** The best link tier by which this document reaches the symbol. */
  readonly tier: LinkTier;
  readonly relation: ScopeRelation;
  /** 1: it names the symbol (or something linked to it); 2: it refers to a document that does. */
  readonly hops: 1 | 2;
  readonly anchors: readonly Anchor[];
  /** For hops 2: the document it refers to. */
  readonly via?: string;
  /** For documents cited by the code: where. */
  readonly citedAt?: { readonly path: string; readonly line: number };
  readonly excerpts: readonly Quotation[];
  readonly extractedBy: string;
}

export interface WhyConstraint {
  readonly name: string;
  readonly type: string;
  /** The constraint's own link: unresolved when no symbol denotes it (kept, never forced). */
  readonly tier: LinkTier;
  readonly symbols: readonly string[];
  readonly reason: string;
  /** What connects it to the symbol: documents or entities. */
  readonly via: readonly string[];
  readonly sources: readonly Quotation[];
  readonly extractedBy: string;
}

export interface WhyIsThisResult {
  readonly target: SymbolRef;
  readonly indexed: boolean;
  readonly scope: readonly ScopeSymbol[];
  readonly items: readonly WhyItem[];
  readonly constraints: readonly WhyConstraint[];
  readonly counts: { readonly documents: number; readonly byCategory: Partial<Record<Category, number>>; readonly byTier: Record<LinkTier, number>; readonly unresolved: number };
  readonly extractedBy: readonly string[];
  readonly summary: string;
  readonly notSeen: readonly string[];
}

const TIER_RANK: Record<LinkTier, number> = { exact: 0, strong: 1, weak: 2, unresolved: 3 };
const RELATION_RANK: Record<ScopeRelation, number> = { self: 0, member: 1, container: 1, uses: 2 };

async function scopeOf(db: Db, target: SymbolRef): Promise<ScopeSymbol[]> {
  const out: ScopeSymbol[] = [{ sid: target.sid, qname: target.qname, relation: 'self' }];
  const seen = new Set([target.sid]);
  const add = (s: ScopeSymbol) => {
    if (seen.has(s.sid)) return;
    seen.add(s.sid);
    out.push(s);
  };
  const n = await neighboursOf(db, target, 40);
  for (const m of n.members) add({ sid: m.sid, qname: m.qname, relation: 'member' });
  if (n.container) add({ sid: n.container.sid, qname: n.container.qname, relation: 'container' });
  // What it uses directly (one edge), and those symbols' types: knowledge about its collaborators bears on it too.
  for (const u of n.uses) {
    add({ sid: u.sid, qname: u.qname, relation: 'uses', edgeTier: u.tier });
    if (u.container) add({ sid: u.container.sid, qname: u.container.qname, relation: 'uses', edgeTier: u.tier });
  }
  return out;
}

/** What an entity reaches the symbol by: its strongest link into the scope. */
type BestAnchors = Map<number, { readonly row: LinkedEntity; readonly anchor: Anchor }>;

/** A document reaching the symbol, as it is being found. */
interface Reached {
  document: DocumentRef;
  tier: LinkTier;
  relation: ScopeRelation;
  hops: 1 | 2;
  anchors: Anchor[];
  via?: string;
  citedAt?: { path: string; line: number };
  excerpts: Quotation[];
  extractedBy: Set<string>;
}

/** Whether reaching by this tier and relation is better than `than`: a stronger tier, or as strong and closer. */
function outranks(tier: LinkTier, relation: ScopeRelation, than: { readonly tier: LinkTier; readonly relation: ScopeRelation }): boolean {
  return TIER_RANK[tier] < TIER_RANK[than.tier] || (tier === than.tier && RELATION_RANK[relation] < RELATION_RANK[than.relation]);
}

function addExcerpt(r: Reached, q: Quotation): void {
  if (r.excerpts.length < 2 && !r.excerpts.some((e) => e.quote === q.quote)) r.excerpts.push(q);
}

/** Entities linked into the scope, each with its best anchor: strongest tier, then closest relation. */
async function bestAnchors(db: Db, scope: readonly ScopeSymbol[]): Promise<BestAnchors> {
  const bySid = new Map(scope.map((s) => [s.sid, s]));
  const best: BestAnchors = new Map();
  for (const row of await entitiesLinkedTo(db, scope.map((s) => s.sid))) {
    const s = bySid.get(row.symbol_sid)!;
    const anchor: Anchor = { entity: row.name, entityType: row.type, tier: row.tier, symbol: { sid: s.sid, qname: s.qname }, relation: s.relation, reason: row.reason };
    const b = best.get(row.entity_id);
    if (!b || outranks(anchor.tier, anchor.relation, b.anchor)) best.set(row.entity_id, { row, anchor });
  }
  return best;
}

/** Documents that mention an anchored entity, with the passage. */
async function documentsMentioning(db: Db, best: BestAnchors, docs: Map<number, Reached>): Promise<void> {
  // Quoting splits each chunk into sentences: on a query path (the extension host), give the thread back as it goes.
  const yielder = new Yielder(12, 1);
  for (const m of await mentionsOf(db, [...best.keys()])) {
    if (yielder.due()) await yielder.yield();
    const a = best.get(m.entity_id)!;
    let r = docs.get(m.doc_id);
    if (!r) docs.set(m.doc_id, (r = { document: documentRef(m), tier: a.anchor.tier, relation: a.anchor.relation, hops: 1, anchors: [], excerpts: [], extractedBy: new Set() }));
    if (outranks(a.anchor.tier, a.anchor.relation, r)) {
      r.tier = a.anchor.tier;
      r.relation = a.anchor.relation;
      r.excerpts.unshift(quoteFrom(m, needlesFor(a.anchor.entity), m.description));
      r.excerpts.splice(2);
    } else addExcerpt(r, quoteFrom(m, needlesFor(a.anchor.entity), m.description));
    if (!r.anchors.some((x) => x.entity === a.anchor.entity && x.symbol.sid === a.anchor.symbol.sid)) r.anchors.push(a.anchor);
    for (const x of (m.extracted_by ?? a.row.extracted_by).split(',')) r.extractedBy.add(x);
  }
}

/** Documents the code cites in a comment next to a symbol of the scope: exact. */
async function documentsCited(db: Db, scope: readonly ScopeSymbol[], docs: Map<number, Reached>): Promise<void> {
  const bySid = new Map(scope.map((s) => [s.sid, s]));
  for (const c of await citationsOf(db, scope.map((s) => s.sid))) {
    const s = bySid.get(c.symbol_sid)!;
    const anchor: Anchor = { entity: c.text, entityType: 'citation', tier: 'exact', symbol: { sid: s.sid, qname: s.qname }, relation: s.relation, reason: `the code cites it at ${c.path}:${c.line}` };
    let r = docs.get(c.doc_id);
    if (!r) {
      docs.set(c.doc_id, (r = { document: documentRef({ ...c, path: c.dpath }), tier: 'exact', relation: s.relation, hops: 1, anchors: [], excerpts: [], extractedBy: new Set(['code comment']) }));
      const first = await firstChunkOf(db, c.doc_id);
      if (first) addExcerpt(r, quoteFrom(first, [c.ref ?? c.title]));
    } else if (outranks('exact', s.relation, r)) {
      r.tier = 'exact';
      r.relation = s.relation;
    }
    r.citedAt ??= { path: c.path, line: c.line };
    r.anchors.unshift(anchor);
  }
}

/** One more hop: documents that refer to the documents found (a commit naming ADR-0007, a post-mortem naming PR #142). */
async function documentsReferring(db: Db, docs: Map<number, Reached>): Promise<void> {
  for (const p of await passagesReferringTo(db, [...docs.keys()])) {
    // Only documents that name the first document (the chunk's own document refers to it), not ones merely sharing an entity.
    const handle = (p.from_ref ?? '').toLowerCase();
    if (!handle || !p.text.toLowerCase().includes(handle.replace(/^pr /, '').replace(/^issue /, ''))) continue;
    const from = docs.get(p.from_doc);
    if (!from || from.hops !== 1 || docs.has(p.doc_id)) continue;
    const r: Reached = { document: documentRef(p), tier: from.tier, relation: from.relation, hops: 2, anchors: [], via: p.from_ref ?? p.from_title, excerpts: [], extractedBy: new Set(from.extractedBy) };
    docs.set(p.doc_id, r);
    addExcerpt(r, quoteFrom(p, needlesFor(p.from_ref ?? p.from_title), p.description));
  }
}

/** Constraints, decisions and incidents related to the anchored entities or to the documents' own entities; kept unresolved when no symbol denotes them. */
async function constraintsAround(db: Db, best: BestAnchors, docs: ReadonlyMap<number, Reached>): Promise<WhyConstraint[]> {
  const docEntities = await entitiesOfDocuments(db, [...docs.keys()]);
  const hubName = new Map<number, string>();
  for (const [id, a] of best) hubName.set(id, a.anchor.entity);
  for (const r of docEntities) hubName.set(r.id, docs.get(r.doc_id)!.document.ref ?? docs.get(r.doc_id)!.document.title);
  const hubIds = [...best.keys(), ...docEntities.map((r) => r.id)];
  if (!hubIds.length) return [];
  const byEntity = new Map<number, { row: RelatedConcept; via: Set<string>; weight: number }>();
  for (const r of await conceptsAround(db, hubIds)) {
    if (best.has(r.id)) continue;
    const e = byEntity.get(r.id) ?? { row: r, via: new Set<string>(), weight: 0 };
    e.via.add(hubName.get(r.hub) ?? '');
    e.weight += r.weight;
    byEntity.set(r.id, e);
  }
  const ranked = [...byEntity.values()].sort((a, b) => b.via.size - a.via.size || b.weight - a.weight || a.row.name.localeCompare(b.row.name)).slice(0, 6);
  const out: WhyConstraint[] = [];
  for (const c of ranked) {
    const links = await linksOf(db, c.row.id);
    const qnames = await qnamesOf(db, links.map((l) => l.symbol_sid).filter((sid): sid is string => !!sid));
    const sources: Quotation[] = [];
    const seenDoc = new Set<number>();
    for (const m of await mentionsOf(db, [c.row.id])) {
      if (seenDoc.has(m.doc_id) || sources.length >= 3) continue;
      seenDoc.add(m.doc_id);
      sources.push(quoteFrom(m, needlesFor(c.row.name), m.description, 240));
    }
    out.push({
      name: c.row.name,
      type: c.row.type,
      tier: links[0]?.tier ?? 'unresolved',
      symbols: links.map((l) => (l.symbol_sid ? (qnames.get(l.symbol_sid) ?? l.symbol_sid) : null)).filter((x): x is string => !!x),
      reason: links[0]?.reason ?? 'not linked',
      via: [...c.via].filter(Boolean).sort(),
      sources,
      extractedBy: c.row.extracted_by,
    });
  }
  return out;
}

/** The documents found, as items: nearest first, then by category, tier and relation. Pure. */
function rankItems(docs: Iterable<Reached>): WhyItem[] {
  return [...docs]
    .map((a) => ({
      category: categoryOf(a.document.kind),
      document: a.document,
      tier: a.tier,
      relation: a.relation,
      hops: a.hops,
      anchors: a.anchors.sort((x, y) => TIER_RANK[x.tier] - TIER_RANK[y.tier] || RELATION_RANK[x.relation] - RELATION_RANK[y.relation]).slice(0, 4),
      ...(a.via ? { via: a.via } : {}),
      ...(a.citedAt ? { citedAt: a.citedAt } : {}),
      excerpts: a.excerpts,
      extractedBy: [...a.extractedBy].sort().join(', '),
    }))
    .sort(
      (x, y) =>
        x.hops - y.hops ||
        CATEGORY_ORDER.indexOf(x.category) - CATEGORY_ORDER.indexOf(y.category) ||
        TIER_RANK[x.tier] - TIER_RANK[y.tier] ||
        RELATION_RANK[x.relation] - RELATION_RANK[y.relation] ||
        y.anchors.length - x.anchors.length ||
        x.document.source.localeCompare(y.document.source),
    );
}

function zeroTiers(): Record<LinkTier, number> {
  return Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
}

export async function whyIsThis(db: Db, target: SymbolRef, limit = 8): Promise<WhyIsThisResult> {
  const status = await knowledgeIndexed(db);
  const scope = await scopeOf(db, target);
  if (!status.documents) {
    const empty: Omit<WhyIsThisResult, 'summary'> = {
      target,
      indexed: false,
      scope,
      items: [],
      constraints: [],
      counts: { documents: 0, byCategory: {}, byTier: zeroTiers(), unresolved: 0 },
      extractedBy: [],
      notSeen: ['every document: the knowledge memory has not been built'],
    };
    return { ...empty, summary: summarize(empty) };
  }
  const best = await bestAnchors(db, scope);
  const docs = new Map<number, Reached>();
  await documentsMentioning(db, best, docs);
  await documentsCited(db, scope, docs);
  await documentsReferring(db, docs);
  const constraints = await constraintsAround(db, best, docs);

  const items = rankItems(docs.values());
  // Notes (READMEs, general docs) after the reasons, at most three.
  const shown = [...items.filter((i) => i.category !== 'note'), ...items.filter((i) => i.category === 'note').slice(0, 3)].slice(0, limit);
  const byCategory: Partial<Record<Category, number>> = {};
  const byTier = zeroTiers();
  for (const i of shown) {
    byCategory[i.category] = (byCategory[i.category] ?? 0) + 1;
    byTier[i.tier]++;
  }
  const notSeen = [
    ...(status.extractedBy.length && status.extractedBy.every((x) => x === 'offline') ? ['reasons phrased without naming the code (offline extraction finds names, not paraphrases; a model pass finds more)'] : []),
    'documents outside the indexed sources (tickets in other systems, chat, meetings)',
    ...(items.length > shown.length ? [`${items.length - shown.length} more document${items.length - shown.length === 1 ? '' : 's'} (raise --limit)`] : []),
  ];
  const result: Omit<WhyIsThisResult, 'summary'> = {
    target,
    indexed: status.documents > 0,
    scope,
    items: shown,
    constraints,
    counts: { documents: shown.length, byCategory, byTier, unresolved: constraints.filter((c) => c.tier === 'unresolved').length },
    extractedBy: status.extractedBy,
    notSeen,
  };
  return { ...result, summary: summarize(result) };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function summarize(r: Omit<WhyIsThisResult, 'summary'>): string {
  if (!r.indexed) return `The knowledge memory is empty: run \`tenure index\` (offline) or \`tenure knowledge index\`, then ask again.`;
  if (!r.items.length && !r.constraints.length) return `No indexed document bears on ${r.target.qname}, its members, its type or what it uses directly.`;
  const direct = r.items.filter((i) => i.hops === 1);
  const hop2 = r.items.length - direct.length;
  const parts = CATEGORY_ORDER.map((c) => {
    const list = direct.filter((i) => i.category === c);
    if (!list.length) return '';
    const names = list.slice(0, 3).map((i) => `${i.document.ref ?? i.document.title} (${i.tier})`).join(', ');
    return `${plural(list.length, c === 'discussion' ? 'discussion' : c === 'note' ? 'other document' : c)}: ${names}${list.length > 3 ? ', …' : ''}`;
  }).filter(Boolean);
  let s = `${plural(direct.length, 'document')} bear${direct.length === 1 ? 's' : ''} on ${r.target.qname}`;
  if (parts.length) s += ` — ${parts.join('; ')}`;
  if (hop2) s += `; ${plural(hop2, 'more refers', 'more refer')} to them`;
  const unresolved = r.constraints.filter((c) => c.tier === 'unresolved');
  const linkedC = r.constraints.length - unresolved.length;
  if (unresolved.length) s += `; ${plural(unresolved.length, 'constraint')} no symbol denotes (unresolved, kept): ${unresolved.map((c) => c.name).join(', ')}`;
  if (linkedC) s += `; ${plural(linkedC, 'related decision or constraint', 'related decisions or constraints')} linked to code`;
  return `${s}.`;
}
