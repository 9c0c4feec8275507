import { Yielder } from '../../shared/yielder.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import {
  CATEGORY_ORDER,
  CHUNK_SELECT,
  categoryOf,
  documentRef,
  knowledgeIndexed,
  needlesFor,
  quoteFrom,
  type Category,
  type ChunkRow,
  type DocumentRef,
  type Quotation,
} from './quotes.js';
import type { SymbolRef } from '../model/symbolRef.js';

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
  const members = await db.all<{ id: number; sid: string; qname: string }>("SELECT id, sid, qname FROM symbols WHERE parent_id = ? AND kind != 'module'", [target.id]);
  for (const m of members) add({ sid: m.sid, qname: m.qname, relation: 'member' });
  const parent = await db.get<{ sid: string; qname: string }>("SELECT p.sid, p.qname FROM symbols s JOIN symbols p ON p.id = s.parent_id WHERE s.id = ? AND p.kind != 'module'", [target.id]);
  if (parent) add({ sid: parent.sid, qname: parent.qname, relation: 'container' });
  // What it uses directly (one edge), and those symbols' types: knowledge about its collaborators bears on it too.
  const uses = await db.all<{ sid: string; qname: string; tier: string; psid: string | null; pqname: string | null }>(
    `SELECT DISTINCT d.sid, d.qname, e.tier, p.sid AS psid, p.qname AS pqname FROM edges e JOIN symbols d ON d.id = e.dst_id
     LEFT JOIN symbols p ON p.id = d.parent_id AND p.kind != 'module'
     WHERE e.src_id IN (SELECT value FROM json_each(?)) AND e.kind IN ('call', 'instantiate', 'reference') AND e.tier IN ('resolved', 'observed', 'inferred')
     ORDER BY d.qname LIMIT 40`,
    [JSON.stringify([target.id, ...members.map((m) => m.id)])],
  );
  for (const u of uses) {
    add({ sid: u.sid, qname: u.qname, relation: 'uses', edgeTier: u.tier });
    if (u.psid && u.pqname) add({ sid: u.psid, qname: u.pqname, relation: 'uses', edgeTier: u.tier });
  }
  return out;
}

interface AnchorRow {
  entity_id: number;
  name: string;
  type: string;
  extracted_by: string;
  tier: LinkTier;
  symbol_sid: string;
  reason: string;
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
      counts: { documents: 0, byCategory: {}, byTier: Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>, unresolved: 0 },
      extractedBy: [],
      notSeen: ['every document: the knowledge memory has not been built'],
    };
    return { ...empty, summary: summarize(empty) };
  }
  const bySid = new Map(scope.map((s) => [s.sid, s]));
  const anchorRows = await db.all<AnchorRow>(
    `SELECT l.entity_id, e.name, e.type, e.extracted_by, l.tier, l.symbol_sid, l.reason FROM kn_links l JOIN kn_entities e ON e.id = l.entity_id
     WHERE l.symbol_sid IN (SELECT value FROM json_each(?)) AND l.tier != 'unresolved'`,
    [JSON.stringify(scope.map((s) => s.sid))],
  );
  const anchors = anchorRows.map((r) => {
    const s = bySid.get(r.symbol_sid)!;
    return { row: r, anchor: { entity: r.name, entityType: r.type, tier: r.tier, symbol: { sid: s.sid, qname: s.qname }, relation: s.relation, reason: r.reason } satisfies Anchor };
  });
  // An entity's best anchor: strongest tier, then closest relation.
  const best = new Map<number, (typeof anchors)[number]>();
  for (const a of anchors) {
    const b = best.get(a.row.entity_id);
    if (!b || TIER_RANK[a.anchor.tier] < TIER_RANK[b.anchor.tier] || (a.anchor.tier === b.anchor.tier && RELATION_RANK[a.anchor.relation] < RELATION_RANK[b.anchor.relation])) best.set(a.row.entity_id, a);
  }

  interface Acc {
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
  const docs = new Map<number, Acc>();
  const better = (acc: Acc, tier: LinkTier, relation: ScopeRelation) => TIER_RANK[tier] < TIER_RANK[acc.tier] || (tier === acc.tier && RELATION_RANK[relation] < RELATION_RANK[acc.relation]);
  const addExcerpt = (acc: Acc, q: Quotation) => {
    if (acc.excerpts.length < 2 && !acc.excerpts.some((e) => e.quote === q.quote)) acc.excerpts.push(q);
  };

  // Documents that mention an anchor.
  const entityIds = [...best.keys()];
  const mentionRows = entityIds.length
    ? await db.all<ChunkRow & { entity_id: number; description: string; extracted_by: string | null }>(
        `SELECT m.entity_id, m.description, m.extracted_by, x.* FROM kn_mentions m JOIN (${CHUNK_SELECT}) x ON x.chunk_id = m.chunk_id WHERE m.entity_id IN (SELECT value FROM json_each(?)) ORDER BY x.doc_id, x.chunk_id`,
        [JSON.stringify(entityIds)],
      )
    : [];
  // Quoting splits each chunk into sentences: on a query path (the extension host), give the thread back as it goes.
  const yielder = new Yielder(12, 1);
  for (const m of mentionRows) {
    if (yielder.due()) await yielder.yield();
    const a = best.get(m.entity_id)!;
    let acc = docs.get(m.doc_id);
    if (!acc) docs.set(m.doc_id, (acc = { document: documentRef(m), tier: a.anchor.tier, relation: a.anchor.relation, hops: 1, anchors: [], excerpts: [], extractedBy: new Set() }));
    if (better(acc, a.anchor.tier, a.anchor.relation)) {
      acc.tier = a.anchor.tier;
      acc.relation = a.anchor.relation;
      acc.excerpts.unshift(quoteFrom(m, needlesFor(a.anchor.entity), m.description));
      acc.excerpts.splice(2);
    } else addExcerpt(acc, quoteFrom(m, needlesFor(a.anchor.entity), m.description));
    if (!acc.anchors.some((x) => x.entity === a.anchor.entity && x.symbol.sid === a.anchor.symbol.sid)) acc.anchors.push(a.anchor);
    for (const x of (m.extracted_by ?? a.row.extracted_by).split(',')) acc.extractedBy.add(x);
  }

  // Documents the code cites in a comment next to the symbol.
  const citations = await db.all<{ doc_id: number; path: string; line: number; symbol_sid: string; text: string; source: string; kind: ChunkRow['kind']; title: string; ref: string | null; dpath: string | null; url: string | null }>(
    `SELECT c.doc_id, c.path, c.line, c.symbol_sid, c.text, d.source, d.kind, d.title, d.ref, d.path AS dpath, d.url FROM kn_citations c JOIN kn_documents d ON d.id = c.doc_id
     WHERE c.symbol_sid IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(scope.map((s) => s.sid))],
  );
  for (const c of citations) {
    const s = bySid.get(c.symbol_sid)!;
    const anchor: Anchor = { entity: c.text, entityType: 'citation', tier: 'exact', symbol: { sid: s.sid, qname: s.qname }, relation: s.relation, reason: `the code cites it at ${c.path}:${c.line}` };
    let acc = docs.get(c.doc_id);
    if (!acc) {
      docs.set(c.doc_id, (acc = { document: documentRef({ ...c, path: c.dpath }), tier: 'exact', relation: s.relation, hops: 1, anchors: [], excerpts: [], extractedBy: new Set(['code comment']) }));
      const first = await db.get<ChunkRow>(`${CHUNK_SELECT} WHERE c.doc_id = ? ORDER BY c.ord LIMIT 1`, [c.doc_id]);
      if (first) addExcerpt(acc, quoteFrom(first, [c.ref ?? c.title]));
    } else if (better(acc, 'exact', s.relation)) {
      acc.tier = 'exact';
      acc.relation = s.relation;
    }
    acc.citedAt ??= { path: c.path, line: c.line };
    acc.anchors.unshift(anchor);
  }

  // One more hop: documents that refer to these documents (a commit naming ADR-0007, a post-mortem naming PR #142).
  const firstHop = [...docs.keys()];
  if (firstHop.length) {
    const related = await db.all<ChunkRow & { from_doc: number; from_ref: string | null; from_title: string; description: string }>(
      `SELECT e1.doc_id AS from_doc, e1.name AS from_ref, d1.title AS from_title, s.description, x.*
       FROM kn_entities e1 JOIN kn_documents d1 ON d1.id = e1.doc_id
       JOIN kn_relationships r ON r.source_id = e1.id OR r.target_id = e1.id
       JOIN kn_entities e2 ON e2.id = CASE WHEN r.source_id = e1.id THEN r.target_id ELSE r.source_id END
       JOIN kn_relationship_sources s ON s.relationship_id = r.id
       JOIN (${CHUNK_SELECT}) x ON x.chunk_id = s.chunk_id
       WHERE e1.doc_id IN (SELECT value FROM json_each(?)) AND x.doc_id NOT IN (SELECT value FROM json_each(?)) AND (e2.doc_id = x.doc_id OR e2.doc_id IS NULL)
       ORDER BY r.weight DESC, x.doc_id`,
      [JSON.stringify(firstHop), JSON.stringify(firstHop)],
    );
    for (const r of related) {
      // Only documents that name the first document (the chunk's own document refers to it), not ones merely sharing an entity.
      const text = r.text.toLowerCase();
      const handle = (r.from_ref ?? '').toLowerCase();
      if (!handle || !text.includes(handle.replace(/^pr /, '').replace(/^issue /, ''))) continue;
      const from = docs.get(r.from_doc);
      if (!from || from.hops !== 1) continue;
      let acc = docs.get(r.doc_id);
      if (!acc) {
        docs.set(r.doc_id, (acc = { document: documentRef(r), tier: from.tier, relation: from.relation, hops: 2, anchors: [], via: r.from_ref ?? r.from_title, excerpts: [], extractedBy: new Set(from.extractedBy) }));
        addExcerpt(acc, quoteFrom(r, needlesFor(r.from_ref ?? r.from_title), r.description));
      }
    }
  }

  // Constraints, decisions and incidents related to the anchors or to the documents' own entities.
  const hubIds = [...entityIds];
  const docEntityRows = docs.size ? await db.all<{ id: number; doc_id: number }>('SELECT id, doc_id FROM kn_entities WHERE doc_id IN (SELECT value FROM json_each(?))', [JSON.stringify([...docs.keys()])]) : [];
  for (const r of docEntityRows) hubIds.push(r.id);
  const hubName = new Map<number, string>();
  for (const [id, a] of best) hubName.set(id, a.anchor.entity);
  for (const r of docEntityRows) hubName.set(r.id, docs.get(r.doc_id)!.document.ref ?? docs.get(r.doc_id)!.document.title);
  const constraints: WhyConstraint[] = [];
  if (hubIds.length) {
    const rows = await db.all<{ hub: number; id: number; name: string; type: string; description: string; extracted_by: string; weight: number }>(
      `SELECT CASE WHEN r.source_id IN (SELECT value FROM json_each(?1)) THEN r.source_id ELSE r.target_id END AS hub,
              e.id, e.name, e.type, e.description, e.extracted_by, r.weight
       FROM kn_relationships r JOIN kn_entities e ON e.id = CASE WHEN r.source_id IN (SELECT value FROM json_each(?1)) THEN r.target_id ELSE r.source_id END
       WHERE (r.source_id IN (SELECT value FROM json_each(?1)) OR r.target_id IN (SELECT value FROM json_each(?1)))
         AND e.doc_id IS NULL AND e.type IN ('constraint', 'decision', 'incident')`,
      [JSON.stringify(hubIds)],
    );
    const byEntity = new Map<number, { row: (typeof rows)[number]; via: Set<string>; weight: number }>();
    for (const r of rows) {
      if (best.has(r.id)) continue;
      const e = byEntity.get(r.id) ?? { row: r, via: new Set<string>(), weight: 0 };
      e.via.add(hubName.get(r.hub) ?? '');
      e.weight += r.weight;
      byEntity.set(r.id, e);
    }
    const ranked = [...byEntity.values()].sort((a, b) => b.via.size - a.via.size || b.weight - a.weight || a.row.name.localeCompare(b.row.name)).slice(0, 6);
    for (const c of ranked) {
      const links = await db.all<{ tier: LinkTier; symbol_sid: string | null; reason: string; qname: string | null }>(
        'SELECT l.tier, l.symbol_sid, l.reason, (SELECT qname FROM symbols WHERE sid = l.symbol_sid LIMIT 1) AS qname FROM kn_links l WHERE l.entity_id = ?',
        [c.row.id],
      );
      const tier = links[0]?.tier ?? 'unresolved';
      const mentions = await db.all<ChunkRow & { description: string; extracted_by: string | null }>(
        `SELECT m.description, m.extracted_by, x.* FROM kn_mentions m JOIN (${CHUNK_SELECT}) x ON x.chunk_id = m.chunk_id WHERE m.entity_id = ? ORDER BY x.doc_id, x.chunk_id`,
        [c.row.id],
      );
      const sources: Quotation[] = [];
      const seenDoc = new Set<number>();
      for (const m of mentions) {
        if (seenDoc.has(m.doc_id) || sources.length >= 3) continue;
        seenDoc.add(m.doc_id);
        sources.push(quoteFrom(m, needlesFor(c.row.name), m.description, 240));
      }
      constraints.push({
        name: c.row.name,
        type: c.row.type,
        tier,
        symbols: links.map((l) => l.qname ?? l.symbol_sid).filter((x): x is string => !!x),
        reason: links[0]?.reason ?? 'not linked',
        via: [...c.via].filter(Boolean).sort(),
        sources,
        extractedBy: c.row.extracted_by,
      });
    }
  }

  const items: WhyItem[] = [...docs.values()]
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
  // Notes (READMEs, general docs) after the reasons, at most three.
  const strongItems = items.filter((i) => i.category !== 'note');
  const noteItems = items.filter((i) => i.category === 'note').slice(0, 3);
  const shown = [...strongItems, ...noteItems].slice(0, limit);
  const byCategory: Partial<Record<Category, number>> = {};
  const byTier = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  for (const i of shown) {
    byCategory[i.category] = (byCategory[i.category] ?? 0) + 1;
    byTier[i.tier]++;
  }
  const unresolved = constraints.filter((c) => c.tier === 'unresolved').length;
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
    counts: { documents: shown.length, byCategory, byTier, unresolved },
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
