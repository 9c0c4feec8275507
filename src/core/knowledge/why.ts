import * as path from 'node:path';
import { Yielder } from '../../shared/yielder.js';
import { identifierWords, isCodeShaped, segments } from '../linking/names.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';
import { innermostSymbolAt, linkableSymbolsNamed, namesUsedBy, neighboursOf, qnamesOf, symbolsBySid } from '../structural/lookup.js';
import { CATEGORY_ORDER, OFFLINE_UNSEEN, categoryOf, documentRef, invisibleIn, knowledgeIndexed, needlesFor, quoteFrom, type Category, type DocumentRef, type Quotation } from './quotes.js';
import { STOP_WORDS } from '../../shared/stopWords.js';
import { folderOf } from '../../shared/paths.js';
import { rootOf, stem } from '../../shared/stem.js';
import { NAME_BIT, bestSentences, candidates, containsInverted, containsRun, escape, rootWords, saysTitle, topicWords, hasNumberWithUnit, matchStem, onlyDescribes, proseForms, rankSentences, stemmedWords, stringLiteralOf, tieMatcher, type RankedSentence, type Ties } from './reasons.js';
import { DOC_KINDS, RECORD_KINDS, type DocKind, type Section } from './sources/document.js';
import { standingOf, statusToSay, successorIn } from './sources/recordStatus.js';
import { chunksOfDocuments, decisionRecords, documentsSaying, documentsWithPathLike, type DocumentRow, firstChunkOf, readmesIn, recordStatuses, searchDocumentChunks, type ChunkRow } from './store/documents.js';
import { conceptsAround, entitiesNamedAround, entitiesOfDocuments, mentionsOf, passagesReferringTo, type RelatedConcept } from './store/graph.js';
import { citationsOf, entitiesLinkedTo, linksOf, type LinkedEntity } from './store/links.js';
import { currentModel, rerank, type SentenceModel, type SourceContext } from './sentenceRanker.js';
import { filesAddedByPullRequests, pullRequestNumber } from './sources/lineHistory.js';
import { quote, sentences } from './text.js';
import { callerComments, callsOf, codeSources, type Calls, type ChangeSubject, commitsAway, type PullRequestOfLines, constructorsOf, historySources, literalsPassedTo, NOTED_RELATIONS, tiesOf, valueDeclaration, type Ranges } from './whyCode.js';
import { RELATION_RANK, TIER_RANK, aboutItself, addPassage, outranks, reached, type Anchor, type ReasonFound, type Reached, type ScopeRelation, type ScopeSymbol } from './whyScope.js';
import { byCodeUnits } from '../../shared/order.js';

export type { Anchor, ReasonFound, ScopeRelation, ScopeSymbol } from './whyScope.js';

/*
 * why_is_this: the reason a symbol is the way it is, in the team's words.
 *
 * Where reasons come from: the documents linked to the symbol in the
 * knowledge graph (and to its members, its class and what it uses — each
 * shown as such, never as a link to the symbol itself), code comments citing
 * a document, the symbol's own doc comment and comments and its class's, and
 * the commits that last changed its lines (git blame). Within each source the
 * sentences are ranked by how much they explain and how tightly they are
 * tied to the symbol (reasons.ts); the best are kept (up to twelve) and quoted
 * as deep as the answer's budget allows, and the best of all leads it. When nothing gives a reason, the answer says
 * so and lists, at most, what merely names the symbol.
 */

export interface WhyItem {
  readonly category: Category;
  readonly document: DocumentRef;
  /** Its record's own status, when it is not simply in force (`superseded by ADR-0012`, `draft`); the document holds it as read. */
  readonly status?: string;
  /**
   * The link tier for the symbol itself. A document that reaches it only
   * through a neighbour (its class, a member, something it uses) or through
   * another document is at most `weak` here; `about` says what it is about.
   */
  readonly tier: LinkTier;
  readonly relation: ScopeRelation;
  /** For a neighbour's document: the neighbour, and the tier by which the document reaches it. */
  readonly about?: { readonly qname: string; readonly relation: Exclude<ScopeRelation, 'self'>; readonly tier: LinkTier };
  /** 1: it names the symbol (or a neighbour); 2: it refers to a document that does. */
  readonly hops: 1 | 2;
  readonly anchors: readonly Anchor[];
  /** For hops 2: the document it refers to. */
  readonly via?: string;
  /** For hops 2: it is the record that supersedes `via`, rather than one that refers to it. */
  readonly successor?: true;
  /** For documents cited by the code: where. */
  readonly citedAt?: { readonly path: string; readonly line: number };
  /** The reason sentences (best first), else the passage that names the symbol. */
  readonly excerpts: readonly Quotation[];
  /** Whether the excerpts give a reason, or only name the symbol. */
  readonly reasons: readonly ReasonFound[];
  /** How it was found: the graph's extractor, `code comment`, `docstring`, `git blame`. */
  readonly extractedBy: string;
  /** The comment on or just above the line the question asked about (`path:line` inside the symbol). */
  readonly atLine?: number;
}

export interface WhyConstraint {
  readonly name: string;
  /** constraint; or a decision or incident the documents name without an indexed document of its own. */
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

/** The reason that leads the answer. */
export interface LeadReason {
  readonly quote: Quotation;
  readonly category: Category;
  readonly tier: LinkTier;
  readonly relation: ScopeRelation;
  readonly handle: string;
  /** Its record's own status, when it is not simply in force (`superseded by ADR-0012`, `draft`). */
  readonly status?: string;
}

export interface WhyIsThisResult {
  readonly target: SymbolRef;
  readonly indexed: boolean;
  readonly scope: readonly ScopeSymbol[];
  /** The best reason about the symbol itself; absent when nothing recorded gives one. */
  readonly lead?: LeadReason;
  readonly items: readonly WhyItem[];
  readonly constraints: readonly WhyConstraint[];
  readonly counts: { readonly documents: number; readonly byCategory: Partial<Record<Category, number>>; readonly byTier: Record<LinkTier, number>; readonly unresolved: number };
  /** Commits that last changed its lines, and how many of their messages say anything. */
  readonly history?: { readonly commits: number; readonly informative: number };
  readonly extractedBy: readonly string[];
  readonly summary: string;
  readonly notSeen: readonly string[];
  /** The line asked about, when it is inside the symbol rather than its declaration (`path:line`). */
  readonly line?: number;
}

export interface WhyOptions {
  /** The workspace root: with it, the symbol's own comments and its lines' git history are read too. */
  readonly root?: string;
  /** Read the git history of its lines (default true when root is given). */
  readonly history?: boolean;
  /** The line asked about, inside the symbol (a `path:line` question): the comment on or just above it comes first. */
  readonly line?: number;
  /** The sentence ranker: the fitted one by default; null for the hand-set score alone (the bench compares and refits them). */
  readonly model?: SentenceModel | null;
  /** Sees each source's sentences as scored by hand, with the source: how the bench fits the ranker. */
  readonly onRanked?: (source: Reached, ranked: readonly RankedSentence[], context: SourceContext) => void;
}

/** A sentence explains enough to be called a reason. */
const REASON_SCORE = 0.65;
/** After a source's first reason: the source is the symbol's already, and a sentence that explains needs less tie. */
const TAIL_REASON_SCORE = 0.45;
const REASON_EXPLAINS = 0.35;
/** Reasons kept per source; how many are quoted is the answer's budget's call (tools/whyIsThis.ts). */
const REASONS_PER_SOURCE = 12;

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
  // The member it overrides or implements: what is written about that contract bears on every implementation of it.
  for (const b of n.overrides) add({ sid: b.sid, qname: b.qname, relation: 'overrides' });
  // The type it extends or implements, likewise: a decision record on an interface (alfa's `Result<T, E>`) is the
  // reason for each of its implementations (`Err`), which the record never names.
  for (const t of n.supertypes) add({ sid: t.sid, qname: t.qname, relation: 'supertype' });
  // What it uses directly (one edge), and those symbols' types: knowledge about its collaborators bears on it too.
  for (const u of n.uses) {
    add({ sid: u.sid, qname: u.qname, relation: 'uses', edgeTier: u.tier });
    if (u.container) add({ sid: u.container.sid, qname: u.container.qname, relation: 'uses', edgeTier: u.tier });
  }
  return out;
}

/** What an entity reaches the symbol by: its strongest link into the scope. */
type BestAnchors = Map<number, { readonly row: LinkedEntity; readonly anchor: Anchor }>;

/** Entities linked into the scope, each with its best anchor. */
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
  const yielder = new Yielder(12, 1);
  for (const m of await mentionsOf(db, [...best.keys()])) {
    if (yielder.due()) await yielder.yield();
    const a = best.get(m.entity_id)!;
    let r = docs.get(m.doc_id);
    if (!r) docs.set(m.doc_id, (r = reached(documentRef(m), a.anchor.tier, a.anchor.relation, [])));
    const passage = quoteFrom(m, needlesFor(a.anchor.entity), m.description);
    if (outranks(a.anchor.tier, a.anchor.relation, r)) {
      r.tier = a.anchor.tier;
      r.relation = a.anchor.relation;
      addPassage(r, passage, true);
    } else addPassage(r, passage);
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
      docs.set(c.doc_id, (r = reached(documentRef({ ...c, path: c.dpath }), 'exact', s.relation, ['code comment'])));
      const first = await firstChunkOf(db, c.doc_id);
      if (first) addPassage(r, quoteFrom(first, [c.ref ?? c.title]));
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
    const handle = (p.from_ref ?? '').toLowerCase();
    if (!handle || !p.text.toLowerCase().includes(handle.replace(/^pr /, '').replace(/^issue /, ''))) continue;
    const from = docs.get(p.from_doc);
    if (!from || from.hops !== 1 || docs.has(p.doc_id)) continue;
    const r = reached(documentRef(p), from.tier, from.relation, from.extractedBy, 2);
    r.via = p.from_ref ?? p.from_title;
    docs.set(p.doc_id, r);
    addPassage(r, quoteFrom(p, needlesFor(p.from_ref ?? p.from_title), p.description));
  }
}

/** Each stored record found gets the status it gives itself (sources/recordStatus.ts). */
async function withStatuses(db: Db, docs: Map<number, Reached>): Promise<void> {
  for (const [id, s] of await recordStatuses(db, [...docs.keys()].filter((id) => id > 0 && !docs.get(id)!.document.status))) {
    const r = docs.get(id)!;
    r.document = { ...r.document, status: s };
  }
}

/**
 * The record that supersedes a record found (`superseded by ADR-0009`): the decision in force, whether or not it
 * names the symbol. Reached through the superseded one (two hops, so at most weak), its most likely reason is
 * quoted as a weakly reached record's is. Whether any was added.
 */
async function successorsOf(db: Db, docs: Map<number, Reached>): Promise<boolean> {
  const superseded = [...docs.values()].filter((r) => r.hops === 1 && r.document.status?.state === 'superseded' && r.document.path);
  if (!superseded.length) return false;
  const records = await decisionRecords(db);
  let added = false;
  for (const from of superseded) {
    const row = successorIn(from.document.status!, { ref: from.document.ref ?? null, path: from.document.path ?? null }, records);
    if (!row || docs.has(row.doc_id)) continue;
    const r = reached(documentRef(row), 'weak', from.relation, ['record status'], 2);
    r.via = handleOf(from.document);
    r.successor = true;
    docs.set(row.doc_id, r);
    const first = await firstChunkOf(db, row.doc_id);
    if (first) addPassage(r, quoteFrom(first, needlesFor(r.via)));
    added = true;
  }
  return added;
}

/** Constraints related to the anchored entities or to the entities of the documents about the symbol itself (kept unresolved when no symbol denotes them); decisions and incidents named without a document of their own. */
async function constraintsAround(db: Db, best: BestAnchors, docs: ReadonlyMap<number, Reached>): Promise<WhyConstraint[]> {
  // Only the documents about the symbol itself, linked exact or strong, are hubs: a constraint of a document that merely
  // shares words with it, or is about a neighbour, took the place of that document's own reason.
  const graphDocs = [...docs.entries()].filter(([id, r]) => id > 0 && r.relation === 'self' && (r.tier === 'exact' || r.tier === 'strong')).map(([id]) => id);
  const docEntities = await entitiesOfDocuments(db, graphDocs);
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
  const ranked = [...byEntity.values()]
    .sort((a, b) => Number(b.row.type === 'constraint') - Number(a.row.type === 'constraint') || b.via.size - a.via.size || b.weight - a.weight || byCodeUnits(a.row.name, b.row.name))
    .slice(0, 6);
  const out: WhyConstraint[] = [];
  for (const c of ranked) {
    const links = await linksOf(db, c.row.id);
    const qnames = await qnamesOf(db, links.map((l) => l.symbol_sid).filter((sid): sid is string => !!sid));
    const sources: Quotation[] = [];
    const seenDoc = new Set<number>();
    for (const m of await mentionsOf(db, [c.row.id])) {
      if (seenDoc.has(m.doc_id) || sources.length >= 3) continue;
      seenDoc.add(m.doc_id);
      sources.push(constraintQuote(m, c.row.name));
    }
    // A constraint is quoted with its number: the source that states one first.
    sources.sort((a, b) => Number(hasNumberWithUnit(b.quote)) - Number(hasNumberWithUnit(a.quote)));
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

/** The sentence of a passage that names the constraint, the one with its number first. */
function constraintQuote(m: ChunkRow & { description: string }, name: string): Quotation {
  const low = name.toLowerCase();
  const withNumber = sentences(m.text).find((s) => s.text.toLowerCase().includes(low) && hasNumberWithUnit(s.text));
  if (withNumber) return quoteFrom({ ...m, text: m.text }, [withNumber.text.slice(0, 60)], m.description, 260);
  return quoteFrom(m, needlesFor(name), m.description, 260);
}

/**
 * The words of a name as documents write what it is about: without its verb
 * when three or more words remain with it (SetTotalEscrowForDenom → total
 * escrow for denom; checkDoubleSigningRisk → double signing risk, as ADR 051
 * "Double Signing Risk Reduction" says it).
 */
export function nameBody(name: string): string[] {
  const words = identifierWords(name);
  return words.length > 2 && /^(get|set|is|has|default|create|make|build|load|handle|do|new|to|on|with|check|validate|verify|ensure|compute|calculate|update|apply|process|parse|fetch|init|add|remove|delete|register|resolve|convert)$/.test(words[0]!) ? words.slice(1) : words;
}

/** A name as code in prose: not part of a longer identifier (`$` counts as part of one). */
function asCodeName(name: string): RegExp {
  return new RegExp(`(?<![\\w$])${name.replace(/[$]/g, '\\$')}(?![\\w$])`);
}

/**
 * Documents that name the symbol where the graph did not link them: its name
 * inside a code block, a name joined into a longer one, its words as prose.
 * A verbatim name that only this symbol has is exact; anything else is weak
 * (its words, to verify). Decision records, designs, incidents and threads only.
 */
async function documentsSearched(db: Db, target: SymbolRef, docs: Map<number, Reached>): Promise<void> {
  const body = nameBody(target.name);
  const terms = new Set<string>();
  if (target.name.length >= 6) terms.add(`"${target.name.replace(/"/g, '')}"`);
  if (body.length >= 2) {
    terms.add(`"${body.join('')}"`);
    terms.add(`"${body.join(' ')}"`);
  }
  if (!terms.size) return;
  let rows: ChunkRow[];
  try {
    // Decision records first: in a repository with hundreds of docs, BM25 alone would rank a long guide above the ADR.
    const fts = [...terms].join(' OR ');
    rows = [...(await searchDocumentChunks(db, fts, ['adr', 'rfc', 'design', 'postmortem'], 6)), ...(await searchDocumentChunks(db, fts, ['pr', 'issue', 'doc', 'changelog'], 6))];
  } catch {
    return;
  }
  const unique = target.name.length >= 6 && isCodeShaped(target.name) && (await linkableSymbolsNamed(db, target.name)) === 1;
  const verbatim = asCodeName(target.name);
  // The name in other letter case (`GuEC2App` for GuEc2App): strong, not exact — the document may mean something else spelled alike.
  const anyCase = new RegExp(verbatim.source, 'i');
  // The name without the word nameBody left off, as code: `BlocksPerEpoch` for DefaultBlocksPerEpoch (the parameter whose default it is).
  const at = body.length >= 2 && body.length < identifierWords(target.name).length ? target.name.toLowerCase().indexOf(body[0]!, 1) : -1;
  const bare = at > 0 && isCodeShaped(target.name.slice(at)) ? target.name.slice(at).replace(/^_+/, '') : undefined;
  const bareRe = bare ? asCodeName(bare) : undefined;
  for (const row of rows) {
    const otherCase = unique && !verbatim.test(row.text) ? (row.text.match(new RegExp(anyCase.source, 'gi')) ?? [])[0] : undefined;
    // Only its first letter other (`ShadowDOM` for the flag shadowDOM, `NewServer` for newServer): by the convention of
    // most languages another kind of thing, a type, a component, a concept, or in Go the exported name: weak, to verify.
    const capitalOnly = otherCase && otherCase.slice(1) === target.name.slice(1) ? otherCase : undefined;
    const caseDiffers = capitalOnly ? undefined : otherCase;
    const prior = docs.get(row.doc_id);
    if (prior) {
      // Reached weakly by its words already: the name in other letter case makes it strong.
      if (caseDiffers && prior.relation === 'self' && prior.hops === 1 && TIER_RANK[prior.tier] > TIER_RANK.strong) {
        prior.tier = 'strong';
        prior.anchors.unshift({ entity: caseDiffers, entityType: 'search', tier: 'strong', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `names \`${caseDiffers}\`, its name in other letter case; one symbol has the name ${target.name}` });
      }
      continue;
    }
    const exact = unique && verbatim.test(row.text);
    const tier: LinkTier = exact ? 'exact' : caseDiffers ? 'strong' : 'weak';
    const bareHit = !exact && !caseDiffers && !capitalOnly && bare && bareRe!.test(row.text) ? bare : undefined;
    const r = reached(documentRef(row), tier, 'self', ['name search']);
    r.anchors.push({
      entity: exact ? target.name : caseDiffers || capitalOnly || bareHit || body.join(' '),
      entityType: 'search',
      tier,
      symbol: { sid: target.sid, qname: target.qname },
      relation: 'self',
      reason: exact ? `names \`${target.name}\` verbatim; one symbol has that name (found by search, not by the graph)` : caseDiffers ? `names \`${caseDiffers}\`, its name in other letter case; one symbol has the name ${target.name}` : capitalOnly ? `names \`${capitalOnly}\`, its name with another first letter: perhaps another kind of thing of that name — verify` : bareHit ? `names \`${bareHit}\`, its name without "${target.name.slice(0, at)}" — verify` : `has the words of its name ("${body.join(' ')}") — verify`,
    });
    addPassage(r, quoteFrom(row, [target.name, ...(caseDiffers ? [caseDiffers] : []), ...(capitalOnly ? [capitalOnly] : []), ...(bareHit ? [bareHit] : []), body.join(' ')]));
    docs.set(row.doc_id, r);
  }
  await documentsByInvertedName(db, target, body, docs);
  await documentsByTitle(db, target, body, docs);
}

/**
 * Decision records whose title holds two or three words of the name side by
 * side ("ADR: Write Model vs Read Models" for DependentFeaturesReadModel):
 * a record is about what its title says, so its reasons may be the symbol's.
 * Weak, to verify, at most two.
 */
async function documentsByTitle(db: Db, target: SymbolRef, body: readonly string[], docs: Map<number, Reached>): Promise<void> {
  if (body.length < 3) return;
  const runs: string[][] = [];
  for (let len = Math.min(3, body.length - 1); len >= 2; len--) for (let i = 0; i + len <= body.length; i++) if (body.slice(i, i + len).every((w) => w.length >= 3)) runs.push(body.slice(i, i + len));
  if (!runs.length) return;
  await weakSearchLinks(db, target, docs, runs.map((r) => `"${r.join(' ').replace(/"/g, '')}"*`).join(' OR '), ['adr', 'rfc', 'design'], 2, (row) => {
    const title = stemmedWords(row.title);
    const run = runs.find((r) => containsRun(title, r.map(matchStem)));
    if (!run) return undefined;
    const said = run.join(' ');
    return { said, reason: `its title "${row.title}" has words of its name ("${said}") — verify`, needles: [said, ...run] };
  });
}

/**
 * Documents that say two words of the name the other way round with "of"
 * ("the state of all toggles" for ToggleStateReport): weak, to verify.
 * Decision records and docs only, at most four.
 */
async function documentsByInvertedName(db: Db, target: SymbolRef, body: readonly string[], docs: Map<number, Reached>): Promise<void> {
  if (body.length < 2) return;
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < body.length; i++) if (body[i]!.length >= 3 && body[i + 1]!.length >= 3) pairs.push([body[i]!, body[i + 1]!]);
  if (!pairs.length) return;
  const fts = pairs.map(([a, b]) => `NEAR("${b.replace(/"/g, '')}" "${a.replace(/"/g, '')}"*, 3)`).join(' OR ');
  await weakSearchLinks(db, target, docs, fts, ['adr', 'rfc', 'design', 'doc'], 4, (row) => {
    const words = stemmedWords(row.text);
    const pair = pairs.find(([a, b]) => containsInverted(words, [matchStem(a), matchStem(b)]));
    if (!pair) return undefined;
    const said = `${pair[1]} of ${pair[0]}`;
    return { said, reason: `says words of its name the other way round ("${said}") — verify`, needles: [pair[1], body.join(' ')] };
  });
}

/**
 * Up to `max` documents the full-text search finds that the graph did not
 * reach, each linked weak to the symbol by what `match` says of it (nothing:
 * not linked). The search and its link, said once for the ways of naming it.
 */
async function weakSearchLinks(
  db: Db,
  target: SymbolRef,
  docs: Map<number, Reached>,
  fts: string,
  kinds: readonly DocKind[],
  max: number,
  match: (row: ChunkRow) => { said: string; reason: string; needles: string[] } | undefined,
): Promise<void> {
  let rows: ChunkRow[];
  try {
    rows = await searchDocumentChunks(db, fts, kinds, 12);
  } catch {
    return;
  }
  let added = 0;
  for (const row of rows) {
    if (added >= max || docs.has(row.doc_id)) continue;
    const m = match(row);
    if (!m) continue;
    added++;
    const r = reached(documentRef(row), 'weak', 'self', ['name search']);
    r.anchors.push({ entity: m.said, entityType: 'search', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: m.reason });
    addPassage(r, quoteFrom(row, m.needles));
    docs.set(row.doc_id, r);
  }
}

/**
 * The README of the folder the symbol's file sits in, or of the nearest
 * folder above it that has one (never the repository's own README): what the
 * code there is for, as its authors wrote it down — weak for the symbol
 * (it spans everything in the folder), read as a whole.
 */
async function documentsOfItsFolder(db: Db, target: SymbolRef, docs: Map<number, Reached>): Promise<void> {
  const folders: string[] = [];
  for (let d = folderOf(target.path); d; d = folderOf(d)) folders.push(d);
  const rows = await readmesIn(db, folders);
  const nearest = folders.map((f) => rows.find((r) => folderOf(r.path!) === f)).find((r) => r);
  if (!nearest) return;
  const folder = folderOf(nearest.path!);
  const prior = docs.get(nearest.doc_id);
  if (prior) {
    if (prior.relation === 'self' && prior.hops === 1) prior.folder = folder;
    return;
  }
  const r = reached(documentRef(nearest), 'weak', 'self', ['folder']);
  r.folder = folder;
  r.anchors.push({ entity: `${folder}/`, entityType: 'place', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `the README of its folder ${folder}/, about the code there — verify` });
  addPassage(r, quoteFrom(nearest, [target.name]));
  docs.set(nearest.doc_id, r);
}

/** Words a name may begin with that say what it does to its subject, not what the subject is. */
const ACTION = /^(create|update|or|and|get|set|new|make|build|handle|ensure|load|init|apply|process|reconcile|add|remove|delete|to|from|with|on)$/;

/** What a name is about, in its words: the words less the actions it begins with (`createOrUpdateCephExporter` → ceph, exporter). */
export function subjectWords(name: string): string[] {
  const words = identifierWords(name).map((w) => w.toLowerCase());
  let k = 0;
  while (k < words.length - 1 && ACTION.test(words[k]!)) k++;
  return words.slice(k);
}

/** The kind of anchor by which a document links to a line of the symbol's code: the link ties the sentence that holds it. */
export const LINE_LINK = 'line link';

/** A markdown link to a line of a file (`#L9`, `#L9-L20`): its target before the fragment, and the line. */
const LINE_LINK_RE = /\]\(\s*<?([^()\s<>#]+)#L(\d+)(?:-L?\d+)?>?\s*\)/g;

/** Whether a link written in the document at `docPath` points at the workspace file `file`: relative, from the root, or a forge's blob URL. */
export function linksToFile(href: string, docPath: string | undefined, file: string): boolean {
  // A forge's view of a file at a commit or branch: …/blob/<ref>/<path> (GitHub, GitLab's /-/blob/, Gitea's /src/).
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return /\/(?:blob|blame|src)\/[^/]+\/(.+)$/.exec(href)?.[1] === file;
  if (href.startsWith('/')) return href.slice(1) === file;
  return !!docPath && path.posix.normalize(path.posix.join(path.posix.dirname(docPath), href)) === file;
}

/**
 * Documents that link to a line of the symbol's code (`[name](https://github.com/o/r/blob/639b40a/packages/core/src/author.ts#L9)`,
 * `[the store](../../pkg/store/store.go#L211)`): the writer pointed at it. The line is read in the code as it is
 * now, and the link is to the symbol when it is the innermost symbol there: strong when the line declares it,
 * weak when it is in its body (a link made at an older commit may have moved). Its sentence is tied by the link.
 */
async function documentsLinkingToIt(db: Db, target: SymbolRef, docs: Map<number, Reached>): Promise<void> {
  const words = target.path.match(/[\p{L}\p{N}]+/gu);
  if (!words) return;
  let rows: ChunkRow[];
  try {
    rows = await searchDocumentChunks(db, `"${words.join(' ')}"`, DOC_KINDS.filter((k) => k !== 'commit'), 20);
  } catch {
    return;
  }
  for (const row of rows) {
    for (const m of row.text.matchAll(LINE_LINK_RE)) {
      const line = Number(m[2]);
      if (!linksToFile(m[1]!, row.path ?? undefined, target.path)) continue;
      if ((await innermostSymbolAt(db, target.path, line))?.sid !== target.sid) continue;
      const declares = line === target.line;
      const anchor: Anchor = {
        entity: `${m[1]}#L${m[2]}`,
        entityType: LINE_LINK,
        tier: declares ? 'strong' : 'weak',
        symbol: { sid: target.sid, qname: target.qname },
        relation: 'self',
        reason: declares ? `links to the line that declares it (${path.posix.basename(target.path)}#L${line})` : `links to line ${line} of ${path.posix.basename(target.path)}, inside it — verify`,
      };
      const prior = docs.get(row.doc_id);
      if (prior && prior.relation === 'self' && prior.hops === 1 && TIER_RANK[prior.tier] <= TIER_RANK[anchor.tier]) {
        prior.anchors.push(anchor);
      } else if (prior) {
        aboutItself(prior, anchor);
        delete prior.subject;
      } else {
        const r = reached(documentRef(row), anchor.tier, 'self', ['line link']);
        r.anchors.push(anchor);
        addPassage(r, quoteFrom(row, [anchor.entity]));
        docs.set(row.doc_id, r);
      }
      break;
    }
  }
}

/**
 * A document named for the symbol: its file name, less a record's number, is the words of what the symbol is about
 * (design/ceph/ceph-exporter.md for createOrUpdateCephExporter, 0016-ad-writer-factory.md for ADWriterFactory,
 * 0008-idempotency-key.md for getIdempotencyKey). Two words at least: a file named for one word (`cache.md`) is
 * named for many things. Strong: on the bench's forty-seven repositories the rule finds four documents, each the one
 * that holds its symbol's reason.
 */
async function documentsNamedForIt(db: Db, target: SymbolRef, docs: Map<number, Reached>): Promise<void> {
  const words = subjectWords(target.name);
  if (words.length < 2) return;
  const wanted = words.join(' ');
  // Word by word as the finder compares words: envoy-patch-policy.md is named for ProcessEnvoyPatchPolicies.
  const stems = words.map(matchStem).join(' ');
  // The path is searched as it is written: the last word's light stem, never a spelled-out abbreviation.
  const last = stem(words[words.length - 1]!);
  const all = (await documentsWithPathLike(db, last)).filter(
    (row) => (path.posix.basename(row.path!).replace(/\.\w+$/, '').replace(/^\d+[-_]/, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(matchStem).join(' ') === stems,
  );
  // A decision record named for it is its record; a guide of the same name (and its copies for each released version) is how to use it.
  const records = all.filter((row) => RECORD_KINDS.has(row.kind));
  const named = records.length ? records : all;
  for (const row of named) {
    const anchor: Anchor = { entity: wanted, entityType: 'search', tier: 'strong', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `its file is named for it: ${path.posix.basename(row.path!)} is ${wanted}` };
    const prior = docs.get(row.doc_id);
    if (prior && prior.relation === 'self' && prior.hops === 1 && TIER_RANK[prior.tier] <= TIER_RANK.strong) continue;
    if (prior) {
      // Reached weakly, through a neighbour or another document: its name makes it about the symbol itself.
      aboutItself(prior, anchor);
      delete prior.subject;
      prior.namedFor = wanted;
      continue;
    }
    const r = reached(documentRef(row), 'strong', 'self', ['name search']);
    r.anchors.push(anchor);
    r.namedFor = wanted;
    addPassage(r, quoteFrom(row, words));
    docs.set(row.doc_id, r);
  }
}

/** Words any doc comment may use, whatever its code is about: they say it is code, or how a sentence goes, not its subject. */
const NO_SUBJECT = new Set('get return returns returned param params parameter parameters value values function functions method methods class classes object objects given default none null nil true false string strings number numbers list lists type types instance instances argument arguments field fields call called calls used uses using err error errors should must also when then else each every otherwise because without per same cannot provides provided within not more over one two'.split(' '));

/** A word that can say what code is about: three letters or more, neither a stop word nor one any doc comment uses. */
function isSubjectWord(w: string): boolean {
  return w.length >= 3 && !STOP_WORDS.has(w) && !NO_SUBJECT.has(w);
}

/** The subject words of the symbol's name and of its class's name (`SecurityConfig.web` → web, security, config). */
function subjectNameWords(target: SymbolRef, scope: readonly ScopeSymbol[]): string[] {
  const container = scope.find((s) => s.relation === 'container');
  return [...new Set([...identifierWords(target.name), ...(container ? identifierWords(segments(container.qname).pop() ?? '') : [])])].filter(isSubjectWord);
}

/** Folder names that say how code is laid out, not what it is about. */
const GENERIC_FOLDERS = new Set('src lib libs pkg pkgs internal main app apps core common util utils shared impl java python scripts source sources packages modules components api apis views models handlers controllers services routes schemas serializers types helpers tests test spec base server client cmd'.split(' '));

/** Search terms, at most this many: the name's words first, then its folder's, then its doc comment's most frequent. */
const SUBJECT_TERMS = 16;

/**
 * The decision record on the symbol's subject when no document names it:
 * the words of its name, its class's name and its own doc comment, searched
 * together (BM25 over decision records and designs). The best record is kept
 * when it has three of those words or more, and every word of the name or two
 * of them and half of all the words ("nop … mempool" for NopMempool.CheckTx, "slash meter allowance …
 * voting power" for GetSlashMeterAllowance). A record reached only through a
 * neighbour (its class, what it uses) that is also on its own subject is
 * moved up to the symbol itself. Weak, to verify, at most one.
 */
export async function documentsOnItsSubject(db: Db, target: SymbolRef, scope: readonly ScopeSymbol[], docs: Map<number, Reached>): Promise<void> {
  const nameWords = subjectNameWords(target, scope);
  const counts = new Map<string, number>();
  for (const r of docs.values()) {
    if (!r.text || r.relation !== 'self' || r.document.kind !== 'doc') continue;
    for (const w of (r.text.body.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? []).flatMap(identifierWords)) if (w.length >= 4 && isSubjectWord(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const terms = [...new Set([...nameWords, ...[...counts].sort((a, b) => b[1] - a[1]).map(([w]) => w)])].slice(0, SUBJECT_TERMS);
  if (!nameWords.length || terms.length < 3) return;
  // The folder its file is in names the part of the system it belongs to (`pkg/alertmanager`): a record on that part
  // ranks first. It ranks, it does not decide: in a repository named for its domain every record has the word.
  const folderWords = identifierWords(path.posix.basename(folderOf(target.path))).filter((w) => isSubjectWord(w) && !GENERIC_FOLDERS.has(w));
  let rows: ChunkRow[];
  try {
    rows = await searchDocumentChunks(db, [...new Set([...terms, ...folderWords])].map((t) => `"${t}"`).join(' OR '), ['adr', 'rfc', 'design'], 1);
  } catch {
    return;
  }
  const best = rows[0];
  const prior = best ? docs.get(best.doc_id) : undefined;
  if (!best || (prior && prior.relation === 'self' && prior.hops === 1)) return;
  // Compared by root, derivations folded (`generate` in a record that says "generated"): a name's verb is rarely in the record's form.
  const said = new Set(stemmedWords(`${best.title} ${(await chunksOfDocuments(db, [best.doc_id])).map((c) => c.text).join('\n')}`).map(rootOf));
  const has = (w: string) => said.has(rootOf(matchStem(w)));
  const namesHad = nameWords.filter(has);
  const termsHad = terms.filter(has);
  const everyNameWord = nameWords.length >= 2 && namesHad.length === nameWords.length;
  if (termsHad.length < 3 || (!everyNameWord && (namesHad.length < Math.min(2, nameWords.length) || termsHad.length < terms.length / 2))) return;
  const shown = [...namesHad, ...termsHad.filter((w) => !namesHad.includes(w))].slice(0, 5);
  const anchor: Anchor = {
    entity: namesHad.join(' '),
    entityType: 'search',
    tier: 'weak',
    symbol: { sid: target.sid, qname: target.qname },
    relation: 'self',
    reason: `on its subject: has ${termsHad.length} of ${terms.length} words of its name and doc comment ("${shown.join('", "')}") — verify`,
  };
  if (prior) {
    movedToItsSubject(prior, [anchor]);
    return;
  }
  const r = reached(documentRef(best), 'weak', 'self', ['subject search']);
  r.subject = { anchors: [anchor] };
  r.anchors.push(anchor);
  addPassage(r, quoteFrom(best, shown));
  docs.set(best.doc_id, r);
}

/** At most this many records may say a word for it to be rare among them, and then no more than an eighth of them. */
const RARE_IN_RECORDS = 3;

/** The kind of anchor by which a record shares a rare word with the symbol: the word ties the record's sentences. */
const RARE_WORD = 'rare word';

/** How often a record says a rare word of the name for the word to be its subject, not a word in passing. */
const SAID_OFTEN = 3;

/**
 * The decision record that shares the symbol's rare words, when no record is about the symbol itself yet: words of
 * its name and its class's, and of the names its code uses, that few of the repository's records say (an eighth
 * of them, three at most). A record that says a rare word of the name three times or more ("JPA" for PostgresJPAConfig),
 * or two rare words of its code (`ClientQPS`, `ClientBurst` in WithFlowControl: "QPS" and "Burst" in the record on
 * the client's rate limits), is on its subject in the team's own terms; a word said once or twice is said in passing
 * ("use cases" for CaseLawLdml). Each word ties the record's sentences. Weak, to verify, one record (two when they share as many words); dropped, as
 * any subject link, unless one of its sentences is a reason.
 */
export async function documentsSharingRareWords(db: Db, target: SymbolRef, scope: readonly ScopeSymbol[], decisions: () => Promise<readonly DocumentRow[]>, docs: Map<number, Reached>): Promise<void> {
  if ([...docs.values()].some((r) => RECORD_KINDS.has(r.document.kind) && r.relation === 'self' && r.hops === 1)) return;
  const rareBound = Math.min(RARE_IN_RECORDS, Math.floor((await decisions()).length / 8));
  if (rareBound < 1) return;
  const nameWords = subjectNameWords(target, scope);
  const usedWords = [...new Set((await namesUsedBy(db, target)).flatMap(identifierWords).filter((w) => isSubjectWord(w) && !nameWords.includes(w)))];
  /** The records that say a word, when few do. */
  const rareIn = async (word: string): Promise<number[]> => {
    try {
      const ids = await documentsSaying(db, word, ['adr', 'rfc', 'design'], rareBound + 1);
      return ids.length <= rareBound ? ids : [];
    } catch {
      return [];
    }
  };
  const holders = new Map<number, { name: string[]; used: string[] }>();
  const holder = (id: number) => holders.get(id) ?? holders.set(id, { name: [], used: [] }).get(id)!;
  for (const w of nameWords) for (const id of await rareIn(w)) holder(id).name.push(w);
  for (const w of usedWords) for (const id of await rareIn(w)) holder(id).used.push(w);
  // Enough shared: a rare word of the name, or two of the code.
  const sharesEnough = (h: { name: readonly string[]; used: readonly string[] }) => h.name.length > 0 || h.used.length >= 2;
  const candidates = [...holders].filter(([, h]) => sharesEnough(h));
  if (!candidates.length) return;
  // How often each record says each word, by root as the other rules compare words.
  const said = new Map<number, Map<string, number>>();
  for (const c of await chunksOfDocuments(db, candidates.map(([id]) => id))) {
    // Each chunk carries its record's title: the title is said once.
    const titled = said.has(c.doc_id);
    const counts = said.get(c.doc_id) ?? new Map<string, number>();
    for (const w of stemmedWords(titled ? c.text : `${c.title} ${c.text}`).map(rootOf)) counts.set(w, (counts.get(w) ?? 0) + 1);
    said.set(c.doc_id, counts);
  }
  const timesSaid = (id: number, w: string) => said.get(id)?.get(rootOf(matchStem(w))) ?? 0;
  const chosen = candidates
    .map(([id, h]) => ({ id, name: h.name.filter((w) => timesSaid(id, w) >= SAID_OFTEN), used: h.used }))
    .filter(sharesEnough)
    .sort((a, b) => b.name.length + b.used.length - (a.name.length + a.used.length) || a.id - b.id)
    // A second record only when it shares as many of the words as the first.
    .filter((c, k, all) => k === 0 || (k === 1 && c.name.length + c.used.length === all[0]!.name.length + all[0]!.used.length));
  for (const c of chosen) {
    const words = [...c.name, ...c.used];
    const anchors: Anchor[] = words.map((w) => ({
      entity: w,
      entityType: RARE_WORD,
      tier: 'weak',
      symbol: { sid: target.sid, qname: target.qname },
      relation: 'self',
      reason: `on its subject: says ${words.length === 1 ? 'a word' : 'words'} of ${c.name.length ? 'its name' : 'the code it uses'} few records say ("${words.join('", "')}") — verify`,
    }));
    const prior = docs.get(c.id);
    if (prior) {
      movedToItsSubject(prior, anchors);
      continue;
    }
    const first = await firstChunkOf(db, c.id);
    if (!first) continue;
    const r = reached(documentRef(first), 'weak', 'self', ['rare words']);
    r.subject = { anchors };
    r.anchors.push(...anchors);
    addPassage(r, quoteFrom(first, words));
    docs.set(c.id, r);
  }
}

/** A record reached through a neighbour (or another document) found on the symbol's subject: about it, weakly; how it was reached is kept for settleSubjectLinks. */
function movedToItsSubject(prior: Reached, anchors: Anchor[]): void {
  prior.subject = { anchors, before: { relation: prior.relation, tier: prior.tier, hops: prior.hops } };
  prior.relation = 'self';
  prior.tier = 'weak';
  prior.hops = 1;
  prior.anchors.unshift(...anchors);
}

/**
 * A record linked only for being on the symbol's subject says nothing of it unless one of its sentences is a
 * reason: without one it is dropped, or left as its neighbour's document when a neighbour led to it.
 */
function settleSubjectLinks(docs: Map<number, Reached>): void {
  for (const [id, r] of docs) {
    if (!r.subject || r.reasons.length) continue;
    const before = r.subject.before;
    if (!before) {
      docs.delete(id);
      continue;
    }
    const added = r.subject.anchors;
    Object.assign(r, before);
    r.anchors = r.anchors.filter((a) => !added.includes(a));
    delete r.subject;
  }
}

/** Whether a text names pull request `PR #n`: "PR #6036", "pull request #6036", "…/pull/6036", "(#6036)". */
export function namesPullRequest(text: string, pr: string): boolean {
  const n = pullRequestNumber(pr);
  if (!n) return false;
  return new RegExp(`(?:\\bPR\\s*#?|\\bpull request\\s*#?|/pulls?/|\\(#)${n}(?!\\d)`, 'i').test(text);
}

/**
 * Decision records and docs that name the pull request a commit of the
 * symbol's lines came from (ADR-024 lists "celestia-app (PR #6036)"): about
 * the change that wrote those lines, so read as about the symbol — weak, to
 * verify, since a pull request changes more than one symbol. At most three.
 */
async function documentsNamingPullRequests(db: Db, target: SymbolRef, pullRequests: readonly PullRequestOfLines[], docs: Map<number, Reached>): Promise<void> {
  let added = 0;
  for (const { pr } of pullRequests) {
    const n = pullRequestNumber(pr);
    if (!n || n.length < 2) continue;
    let rows: ChunkRow[];
    try {
      rows = await searchDocumentChunks(db, `"${n}"`, ['adr', 'rfc', 'design', 'postmortem', 'doc'], 8);
    } catch {
      continue;
    }
    for (const row of rows) {
      if (added >= 3) return;
      if (!namesPullRequest(row.text, pr)) continue;
      const anchor = changeAnchor(target, pr, `names ${pr}, the pull request of a commit that last changed its lines — verify`);
      if (aboutTheChange(docs.get(row.doc_id), anchor, pr)) continue;
      added++;
      docs.set(row.doc_id, reachedByChange(row, anchor, pr, [pr, `#${n}`]));
    }
  }
}

/**
 * A document found to be about a change that wrote the symbol's lines, reached before: about the symbol itself already,
 * it is marked so; reached through a neighbour or another document, the change makes it about the symbol itself (weak).
 * False when it was not reached before.
 */
function aboutTheChange(prior: Reached | undefined, anchor: Anchor, change: string): boolean {
  if (!prior) return false;
  if (prior.relation === 'self' && prior.hops === 1) prior.change ??= change;
  else {
    aboutItself(prior, anchor);
    prior.change = change;
  }
  return true;
}

/** How a change that wrote the symbol's lines (a pull request, a commit) reaches a document: weak, for the symbol itself, to verify. */
function changeAnchor(target: SymbolRef, change: string, reason: string): Anchor {
  return { entity: change, entityType: 'history', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason };
}

/** A document about a change that wrote the symbol's lines, reached by it: weak, by git blame, with the passage on `needles`. */
function reachedByChange(row: ChunkRow, anchor: Anchor, change: string, needles: readonly string[]): Reached {
  const r = reached(documentRef(row), 'weak', 'self', ['git blame']);
  r.change = change;
  r.anchors.push(anchor);
  addPassage(r, quoteFrom(row, [...needles]));
  return r;
}

/**
 * Decision records whose title a commit that last wrote the symbol's lines says in its subject ("Shuffle sharding on
 * the read path" for the commit "Add ingesters shuffle sharding support on the read path"): the record designed the
 * change that wrote the code. Weak, to verify (a change writes more than one symbol), at most two.
 */
async function documentsTitledByItsCommits(db: Db, target: SymbolRef, commits: readonly ChangeSubject[], decisions: readonly DocumentRow[], docs: Map<number, Reached>): Promise<void> {
  if (!commits.length) return;
  // Each title and subject rooted once, not once per pair compared.
  const records = decisions.map((record) => ({ record, topic: topicWords(record.title) })).map((t) => ({ ...t, roots: t.topic.map(rootOf) }));
  let added = 0;
  for (const c of commits) {
    const subject = rootWords(c.subject);
    for (const { record, topic, roots } of records) {
      if (added >= 2) return;
      if (!saysTitle(subject, roots)) continue;
      const change = `commit ${c.sha.slice(0, 7)}`;
      const anchor = changeAnchor(target, change, `its title is what ${change} did ("${quote(c.subject, 100)}"), a commit that last changed its lines — verify`);
      if (aboutTheChange(docs.get(record.doc_id), anchor, change)) continue;
      const row = await firstChunkOf(db, record.doc_id);
      if (!row) continue;
      added++;
      docs.set(record.doc_id, reachedByChange(row, anchor, change, topic));
    }
  }
}

/** The least share of the symbol's lines a pull request must have written for the record it added to be the symbol's. */
const MIN_SHARE_OF_LINES = 1 / 3;

/**
 * The decision record a pull request of the symbol's lines added, when it added exactly one: the change that wrote the
 * code came with the record that designed it (a squash merge "Add the x/ratelimit module (#812)" that also adds
 * docs/adr/adr-017-rate-limits.md). A pull request that added two or more is left out: which one is about the symbol
 * cannot be told. Weak, to verify (a change writes more than one symbol), at most two.
 */
async function documentsAddedByItsPullRequests(db: Db, root: string, target: SymbolRef, pullRequests: readonly PullRequestOfLines[], decisions: readonly DocumentRow[], docs: Map<number, Reached>): Promise<void> {
  // A pull request that wrote a few lines of the symbol was about something else (a Django upgrade, Javadoc
  // follow-ups): on the bench's tuning questions, each record added by one that wrote under a third was another's.
  const writers = pullRequests.filter((p) => p.of > 0 && p.lines / p.of >= MIN_SHARE_OF_LINES);
  if (!writers.length) return;
  const records = decisions.filter((r): r is DocumentRow & { path: string } => !!r.path);
  const added = await filesAddedByPullRequests(root, writers.map((p) => p.pr), records.map((r) => r.path));
  let reachedSoFar = 0;
  for (const { pr, sha, lines, of, linked } of writers) {
    if (reachedSoFar >= 2) return;
    const files = [...new Set(added.get(pr) ?? [])];
    if (files.length !== 1) continue;
    const record = records.find((r) => r.path === files[0]);
    if (!record) continue;
    const anchor = changeAnchor(target, pr, `added by ${pr}, ${linked ? `which commit ${sha.slice(0, 7)} links to; it last wrote` : `whose commit ${sha.slice(0, 7)} last wrote`} ${lines} of its ${of} lines — verify`);
    if (aboutTheChange(docs.get(record.doc_id), anchor, pr)) continue;
    const row = await firstChunkOf(db, record.doc_id);
    if (!row) continue;
    reachedSoFar++;
    docs.set(record.doc_id, reachedByChange(row, anchor, pr, topicWords(record.title)));
  }
}

/** Affixes that make a name for the same operation or thing: the message that requests it, its event, its handler. */
const PREFIX = /^(?:Msg|Message|Event|EventType|Query|Cmd|Command|Request|Handle|Handler|On|Do|Abstract|Base|Default|I)$/;
const SUFFIX = /^(?:Msg|Message|Request|Response|Reply|Event|Events|Command|Cmd|Query|Handler|Proposal|Impl|Fn|Func|Callback|Options|Opts|Params|Args|Result|Config)$/;

/** `MsgRecoverClient` or `RecoverClientRequest` for RecoverClient: the name with one affix word; never a test or a mock. */
export function affixOf(name: string, around: string): string | undefined {
  if (around === name || around.length <= name.length) return undefined;
  if (around.endsWith(name)) {
    const p = around.slice(0, around.length - name.length);
    return /^[A-Z]/.test(name) && PREFIX.test(p) ? p : undefined;
  }
  if (around.startsWith(name)) {
    const s = around.slice(name.length);
    return SUFFIX.test(s) ? s : undefined;
  }
  return undefined;
}

/**
 * Documents that name the symbol with an affix (`MsgRecoverClient`,
 * `RecoverClientRequest` for RecoverClient): the message, event or handler
 * of the same operation. Strong when one symbol has the name, weak (to
 * verify) when several do; decision records first.
 */
async function documentsByAffixedName(db: Db, target: SymbolRef, docs: Map<number, Reached>): Promise<void> {
  if (target.name.length < 6 || !isCodeShaped(target.name)) return;
  const affixed = (await entitiesNamedAround(db, target.name)).map((e) => ({ ...e, affix: affixOf(target.name, e.name) })).filter((e) => e.affix);
  if (!affixed.length) return;
  const named = await linkableSymbolsNamed(db, target.name);
  const unique = named === 1;
  const byEntity = new Map(affixed.map((e) => [e.id, e]));
  const rows = (await mentionsOf(db, [...byEntity.keys()])).sort((a, b) => Number(!RECORD_KINDS.has(b.kind)) - Number(!RECORD_KINDS.has(a.kind)) || a.doc_id - b.doc_id);
  let added = 0;
  for (const m of rows) {
    const e = byEntity.get(m.entity_id)!;
    const existing = docs.get(m.doc_id);
    if (existing) {
      // Already reached (by its words, say): the affixed name says the document is about the same operation.
      if (existing.relation === 'self' && existing.hops === 1 && !existing.affixed) existing.affixed = e.name;
      continue;
    }
    if (added >= 8) continue;
    added++;
    const tier: LinkTier = unique ? 'strong' : 'weak';
    const r = reached(documentRef(m), tier, 'self', ['name search']);
    r.affixed = e.name;
    r.anchors.push({ entity: e.name, entityType: 'search', tier, symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: unique ? `names \`${e.name}\`, its name with the ${e.name.startsWith(target.name) ? 'suffix' : 'prefix'} ${e.affix}; one symbol has the name ${target.name}` : `names \`${e.name}\`, its name with the ${e.name.startsWith(target.name) ? 'suffix' : 'prefix'} ${e.affix}; ${named} symbols have the name ${target.name} — verify` });
    addPassage(r, quoteFrom(m, [e.name], m.description));
    docs.set(m.doc_id, r);
  }
}

/** Documents that name a value, at most: past this many it is a common one (a content type, an encoding), not the constant's own. */
const VALUE_DOCUMENTS = 3;

/**
 * A string value that reads as an identifier of the thing itself: eight characters or more, no space, with a
 * separator or a capital inside (`_ARRAY_DIMENSIONS`, `karpenter.sh/do-not-disrupt`, `x-request-id`). A word such
 * as "default" or "pending" would find every document that uses the word.
 */
export function isDistinctiveValue(value: string): boolean {
  return value.length >= 8 && !/\s/.test(value) && /\p{L}/u.test(value) && (/[_\-./:]/.test(value.slice(1, -1)) || /\p{Ll}\p{Lu}/u.test(value));
}

/** A string the symbol holds or is given, and how the answer says so. */
interface ItsValue {
  readonly value: string;
  readonly said: string;
}

/**
 * The strings a symbol is about besides its name: a constant's declared value, and the literals its callers pass a
 * function (the name of the setting a helper reads). Only those that read as identifiers.
 */
function itsValues(target: SymbolRef, declaration: string | undefined, calls: Calls | undefined): ItsValue[] {
  const valued = valueDeclaration(target, declaration);
  const declared = valued ? stringLiteralOf(valued) : undefined;
  const passed = calls ? literalsPassedTo(calls) : [];
  return [
    ...(declared !== undefined ? [{ value: declared, said: `names its value \`${declared}\`` }] : []),
    ...passed.map((p) => ({ value: p.value, said: `names \`${p.value}\`, which its caller passes it at ${p.at}` })),
  ].filter((v) => isDistinctiveValue(v.value));
}

/**
 * Documents that name a string the symbol holds or is given where its name is not written: a design speaks of
 * `_ARRAY_DIMENSIONS`, the attribute on disk, and the code holds it in DIMENSION_KEY; a design speaks of the
 * SAM_BUILD_MODE variable, and the helper that reads it is given the name by its callers. The value is what crosses
 * the wire, the file or the environment, so a document about it is about the symbol. Weak, to verify: another symbol
 * may hold the same value. A value that several documents name is left alone.
 */
async function documentsNamingItsValue(db: Db, target: SymbolRef, { value, said }: ItsValue, docs: Map<number, Reached>): Promise<void> {
  const words = value.match(/[\p{L}\p{N}]+/gu) ?? [];
  let rows: ChunkRow[];
  try {
    rows = await searchDocumentChunks(db, `"${words.join(' ')}"`, DOC_KINDS.filter((k) => k !== 'commit'), 20);
  } catch {
    return;
  }
  const verbatim = new RegExp(`(?<![\\w./:-])${escape(value)}(?![\\w/:-])`);
  const naming = new Map<number, ChunkRow>();
  for (const row of rows) if (verbatim.test(row.text) && !naming.has(row.doc_id)) naming.set(row.doc_id, row);
  if (!naming.size || naming.size > VALUE_DOCUMENTS) return;
  for (const row of naming.values()) {
    const anchor: Anchor = { entity: value, entityType: 'search', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `${said} — verify` };
    const prior = docs.get(row.doc_id);
    if (prior) {
      // Reached weakly by the words of its name: the value is the better evidence, and is said first.
      if (prior.relation === 'self' && prior.hops === 1 && prior.tier === 'weak') prior.anchors.unshift(anchor);
      continue;
    }
    const r = reached(documentRef(row), 'weak', 'self', ['value search']);
    r.anchors.push(anchor);
    addPassage(r, quoteFrom(row, [value]));
    docs.set(row.doc_id, r);
  }
}

// ---------------------------------------------------------------- reasons in each source

/** A stored document's text, put back together from its chunks, with how to cite an offset in it. */
interface DocText {
  readonly body: string;
  readonly cite: (offset: number) => Omit<Quotation, 'quote' | 'document'>;
  readonly threaded: boolean;
}

function docTexts(rows: readonly ChunkRow[]): Map<number, DocText> {
  const byDoc = new Map<number, ChunkRow[]>();
  for (const r of rows) byDoc.set(r.doc_id, [...(byDoc.get(r.doc_id) ?? []), r]);
  const out = new Map<number, DocText>();
  for (const [id, chunks] of byDoc) {
    const first = chunks[0]!;
    const base = first.start;
    let body = '';
    for (const c of chunks) {
      const at = c.start - base;
      if (at > body.length) body += '\n'.repeat(at - body.length);
      body += c.text.slice(Math.max(0, body.length - at));
    }
    let sections: Section[] = [];
    if (first.sections) {
      try {
        sections = JSON.parse(first.sections) as Section[];
      } catch {
        sections = [];
      }
    }
    const isFile = !!first.path && first.source === first.path;
    out.set(id, {
      body,
      threaded: sections.length > 0 || first.kind === 'commit',
      cite: (offset) => {
        const abs = base + offset;
        const s = sections.find((x) => x.start <= abs && abs < x.end);
        const line = first.line_start + (body.slice(0, offset).match(/\n/g)?.length ?? 0);
        return { ...(isFile ? { line } : {}), ...(s?.url ? { url: s.url } : {}), ...(s?.author ? { author: s.author } : {}) };
      },
    });
  }
  return out;
}

export function isFocused(r: Reached, target: SymbolRef, ties: Ties): boolean {
  if (r.relation !== 'self' || r.hops !== 1) return false;
  // A decision record about a change that wrote its lines is about the change as a whole.
  if (r.change && RECORD_KINDS.has(r.document.kind)) return true;
  // The README of its folder is about the code there as a whole.
  if (r.folder) return true;
  // The symbol's own comment is about it; a commit that changed its lines may be about anything else it changed: its sentences must name the symbol.
  if (r.text) return r.document.kind !== 'commit';
  // A document the symbol's own code cites (`// see ADR-7`, `@ADR(19)` on it) is about it as a whole.
  if (r.anchors.some((a) => a.entityType === 'citation' && a.relation === 'self' && a.symbol.sid === target.sid)) return true;
  const title = r.document.title;
  const lower = title.toLowerCase();
  const titleWords = stemmedWords(title);
  // A phrase's word is in the title as written ("RetryPolicy" holds "poli") or as a word spelled out ("Max attempts" holds "maximum").
  const mentions = (w: string) => lower.includes(w.slice(0, 4)) || titleWords.some((t) => t.startsWith(w.slice(0, 4)));
  return ties.names.some((n) => title.includes(n)) || ties.phrases.some((p) => p.length > 1 && mentions(p[0]!) && mentions(p[p.length - 1]!)) || title.includes(target.name);
}

/** A folder of a documentation site named for a release (`v1.5`, `version-2.3`, `latest`): it holds that release's copy of each page. */
const RELEASE_FOLDER = /^(?:v?\d+(?:\.\d+)+(?:\.x)?|version-[\w.-]+|latest|current|stable|next)$/i;

/**
 * A documentation site keeps a copy of each page for each release (site/content/en/v1.5/tasks/…,
 * versioned_docs/version-2.3/…), and often the current page outside them: pages of one kind, file name and title, one
 * of them in a release folder, are copies of one page, one source for the answer, not eleven that crowd out the
 * rest. The copy kept is the most certain link, then the page outside any release folder, then the current one
 * (`latest`), then the newest release, then `next`. Documents only.
 */
export function withoutReleaseCopies(docs: Map<number, Pick<Reached, 'tier' | 'text' | 'document'>>): void {
  const copies = new Map<string, { id: number; tier: LinkTier; rank: number; release: string }[]>();
  for (const [id, r] of docs) {
    const p = r.document.path;
    if (!p || r.text) continue;
    const release = p.split('/').find((seg) => RELEASE_FOLDER.test(seg)) ?? '';
    const rank = !release ? 0 : /^(latest|current|stable)$/i.test(release) ? 1 : /^next$/i.test(release) ? 3 : 2;
    const key = `${r.document.kind}\u0000${path.posix.basename(p)}\u0000${r.document.title}`;
    copies.set(key, [...(copies.get(key) ?? []), { id, tier: r.tier, rank, release }]);
  }
  for (const pages of copies.values()) {
    if (pages.length < 2 || !pages.some((c) => c.rank > 0)) continue;
    pages.sort((a, b) => TIER_RANK[a.tier] - TIER_RANK[b.tier] || a.rank - b.rank || b.release.localeCompare(a.release, 'en', { numeric: true }));
    for (const c of pages.slice(1)) docs.delete(c.id);
  }
}

/** Ranks each source's sentences with the symbol's ties (and the names by which the source reaches it) and keeps the reasons. */
async function findReasons(db: Db, docs: Map<number, Reached>, target: SymbolRef, ties: Ties, options: WhyOptions = {}): Promise<void> {
  const stored = docTexts(await chunksOfDocuments(db, [...docs.keys()].filter((id) => id > 0)));
  const model = options.model === null ? undefined : (options.model ?? currentModel());
  const nameWords = identifierWords(target.name).map(matchStem);
  const nameRoots = new Set(identifierWords(target.name).filter(isSubjectWord).map((w) => rootOf(matchStem(w))));
  const placeWords = [...new Set([...identifierWords(path.posix.basename(target.path).replace(/\.\w+$/, '')), ...identifierWords(path.posix.basename(folderOf(target.path)))].map(matchStem))];
  const yielder = new Yielder(12, 1);
  for (const [id, r] of docs) {
    if (yielder.due()) await yielder.yield();
    const text = r.text ?? stored.get(id);
    if (!text) continue;
    // The names by which this document reaches the symbol ("the retry policy", "max attempts") tie its sentences too.
    const selfAnchors = r.anchors.filter((a) => a.relation === 'self' && a.entityType !== 'citation' && a.entityType !== 'place');
    const anchorNames = selfAnchors.filter((a) => a.entityType !== LINE_LINK).map((a) => a.entity);
    // A code name by which the document reaches it only weakly (`EC2App`, a concept over several symbols) ties its sentences less than the symbol's own name.
    // (A name found by search — the name with an affix, in other letter case — is the symbol's own name, whatever its tier.)
    const certain = new Set(selfAnchors.filter((a) => a.tier === 'exact' || a.tier === 'strong' || a.entityType === 'search').map((a) => a.entity));
    const neighbourNames = r.anchors.filter((a) => a.relation !== 'self' && a.entityType !== 'citation' && !(r.relation === 'self' && a.relation === 'supertype')).map((a) => a.entity);
    // A changelog is a list of a thousand changes: one entry naming the symbol says nothing of the others.
    const changelog = r.document.kind === 'changelog';
    const own: Ties = {
      ...ties,
      names: [...ties.names, ...anchorNames.filter((n) => isCodeShaped(n) && certain.has(n))],
      weakNames: anchorNames.filter((n) => isCodeShaped(n) && !certain.has(n)),
      phrases: [
        ...ties.phrases,
        ...anchorNames.filter((n) => !isCodeShaped(n)).map((n) => proseForms(n.replace(/\s+/g, '_'))).flat(),
        // The rare words that led to it ("QPS", "Burst") are how its sentences speak of the symbol.
        ...selfAnchors.filter((a) => a.entityType === RARE_WORD).map((a) => [matchStem(a.entity)]),
      ],
      neighbours: [...ties.neighbours, ...neighbourNames],
      // The name of its file (`errors.go`) is a word of many of a changelog's entries.
      ...(changelog ? { places: [] } : {}),
    };
    // A decision record that names the symbol itself: its decision is about it, even in sentences that do not repeat the name.
    // Not a changelog (telegraf's CHANGELOG.md, reached by "partial write errors" in one line, was quoted for a sentence
    // on XML statistics two releases away, tied to `PartialWriteError` only by "errors", the name of its file).
    const aboutIt = r.relation === 'self' && r.hops === 1 && (r.tier === 'exact' || r.tier === 'strong' || (!!r.affixed && RECORD_KINDS.has(r.document.kind))) && !r.text && !changelog;
    const ownComment = !!r.text && r.document.kind !== 'commit' && r.relation === 'self' && r.hops === 1;
    const weaklyAbout = !aboutIt && !r.text && r.relation === 'self' && r.hops === 1 && r.tier === 'weak' && RECORD_KINDS.has(r.document.kind);
    const focused = isFocused(r, target, ties);
    const ranked = rankSentences(candidates(text.body), tieMatcher(own), { threaded: text.threaded, focused, ...(ownComment ? { own: true } : {}), ...(aboutIt ? { aboutIt: true } : {}), ...(weaklyAbout ? { weaklyAbout: true } : {}), names: own.names, links: selfAnchors.filter((a) => a.entityType === LINE_LINK).map((a) => a.entity) });
    // A changelog's sentences that neither name the symbol nor sit under a heading that does are other entries, its
    // neighbours in the list included: about other changes, never its reason.
    const hand = changelog ? ranked.filter((s) => s.signals.self > 0 || s.signals.sectionTie > 0) : ranked;
    const ctx: SourceContext = { kind: r.document.kind, own: !!r.text && r.document.kind !== 'commit', tier: r.tier, relation: r.relation, hops: r.hops, focused, aboutIt, weaklyAbout, threaded: text.threaded, atLine: r.atLine !== undefined, nameWords, placeWords };
    options.onRanked?.(r, hand, ctx);
    // A comment of the code that only says what the symbol is (Go's "Name does …") names it; it is not a reason for it.
    const describes = (s: RankedSentence) => !!r.text && onlyDescribes(s.text, own.names);
    const top = bestSentences(hand, REASONS_PER_SOURCE);
    const best = handReasons(top, describes);
    const tiedLead = !(aboutIt && RECORD_KINDS.has(r.document.kind));
    // A decision record reached only weakly (by the words of the name, on its subject) gives its reason in sentences
    // that do not name the symbol, so the hand-set score, which weighs the tie, finds none there: its most likely
    // sentences by the fitted ranker are quoted, two at most, on the hand-set scale of its best sentence (weak, below a
    // reason of the symbol's own). Tuning: 5 more questions cite their document, no no-reason answer lost; the second
    // sentence, 7 more needed sentences over sixty-three corpora, none lost. One of the sentences it may quote (its best
    // twelve by the hand-set score) must explain, not the first alone: the first is often the one tied to the symbol by its name
    // (python-tuf's "… [Timestamp] lists snapshot _only_ in a `meta` dictionary"), which states, not explains.
    const weakRecord = !best.length && r.tier === 'weak' && RECORD_KINDS.has(r.document.kind) && top.some((s) => s.explains >= REASON_EXPLAINS);
    // A decision record about the symbol itself is not dropped for want of a sentence that ties to it by the hand-set
    // score: its most likely sentences by the fitted ranker are quoted, two at most, at the bar of a reason. About it:
    // named for it, or naming it under a title on its subject (jaeger's "Cassandra FindTraceIDs Duration Query
    // Behavior" for `durationBucketSize`); a record on another subject that names it shows the code in passing
    // (openedx-events' "Enable producing to event bus via settings" calling `load_all_signals()`).
    const titleOnItsSubject = () => rootWords(r.document.title).some((w) => nameRoots.has(w));
    const linksToItsDeclaration = () => r.anchors.some((a) => a.entityType === LINE_LINK && a.tier === 'strong');
    const recordAboutIt = !best.length && aboutIt && RECORD_KINDS.has(r.document.kind) && !!top[0] && top[0].explains >= REASON_EXPLAINS && (!!r.namedFor || titleOnItsSubject() || linksToItsDeclaration());
    let chosen: RankedSentence[] = best;
    if (model && (best.length || weakRecord || recordAboutIt)) {
      const fitted = fittedBest(rerank(hand, ctx, model), model, describes, recordAboutIt ? Math.max(REASON_SCORE, top[0]!.score) : (best[0] ?? top[0])!.score, tiedLead);
      chosen = best.length ? fitted : fitted.slice(0, 2);
      r.likelihood = Math.max(0, ...fitted.map((s) => s.likelihood));
    }
    r.reasons = chosen.map((s) => reasonFound(r.document, text, s));
  }
}

/**
 * The reasons among a source's best sentences by the hand-set score: the first must reach the bar of a reason;
 * after it, a sentence that explains needs less of a tie. The lower bar is for a source that has given a reason:
 * when its first sentence does not reach the bar, the source gives none.
 */
export function handReasons(chosen: readonly RankedSentence[], describes: (s: RankedSentence) => boolean = () => false): RankedSentence[] {
  if (!chosen[0] || chosen[0].score < REASON_SCORE) return [];
  return chosen.filter((s, k) => s.score >= (k ? TAIL_REASON_SCORE : REASON_SCORE) && s.explains >= REASON_EXPLAINS && !describes(s));
}

/**
 * The reasons of a source the hand-set score says gives one, chosen by the fitted ranker: its most likely sentence,
 * then those at the model's tail probability or above. Scored on the hand-set scale of the source's best reason
 * (whether it may lead stays the hand-set score's), each in proportion to its probability, which is kept
 * (`likelihood`) to rank the source among sources.
 */
function fittedBest(ranked: readonly RankedSentence[], model: SentenceModel, describes: (s: RankedSentence) => boolean, strength: number, tiedLead: boolean): (RankedSentence & { readonly likelihood: number })[] {
  const out: RankedSentence[] = [];
  // A source other than a decision record about the symbol is quoted first where it ties itself to the symbol: its
  // most likely sentence that does and explains, ahead of any that does not (a README's opening line was quoted for
  // "settlement retry policy" instead of its line naming the policy). One that only names it is no reason: a doc
  // comment's heading-like first line ("Calculating estimated time to completion (ETC).") led the answer, above its
  // sentence that says why. Tuning, 71 corpora: 460 -> 463 of 987 needed sentences, none lost.
  if (tiedLead) {
    const lead = ranked.find((s) => s.signals.self > 0 && !describes(s) && s.explains >= REASON_EXPLAINS);
    if (lead) ranked = [lead, ...ranked.filter((s) => s !== lead)];
  }
  for (const s of ranked) {
    if (out.length >= REASONS_PER_SOURCE || (out.length && s.score < model.tail)) break;
    if (!describes(s)) out.push(s);
  }
  // A decision record about the symbol quotes, second at the latest, its likeliest sentence that writes the symbol's
  // name: the line that ties the record to the code (james' "We need to introduce a new API: `BlobReferenceSource`…"),
  // which the fitted ranker, weighing how much a sentence explains, had put last of forty.
  if (!tiedLead) {
    const naming = ranked.find((s) => (s.signals.tieKinds & NAME_BIT) !== 0 && !describes(s));
    const at = naming ? out.indexOf(naming) : -1;
    if (naming && (at < 0 || at > 1)) {
      if (at > 1) out.splice(at, 1);
      else if (out.length >= REASONS_PER_SOURCE) out.pop();
      // Scored as the sentence it goes before, so that it keeps its place when the answer is cut to its budget.
      out.splice(Math.min(1, out.length), 0, { ...naming, score: Math.max(naming.score, out[1]?.score ?? 0) });
    }
  }
  // The first quoted is the source's best on the hand-set scale; the others in proportion, never above it.
  const top = out[0]?.score ?? 1;
  return out.map((s, k) => ({ ...s, score: k === 0 ? strength : Math.min(strength, (strength * s.score) / top), likelihood: s.score }));
}

function reasonFound(document: DocumentRef, text: DocText, s: RankedSentence): ReasonFound {
  return { quote: { document, quote: quote(s.text, 320), ...invisibleIn(s.text, text.body), ...text.cite(s.start) }, score: s.score, tie: s.tie, ...(s.tiedBy ? { tiedBy: s.tiedBy } : {}), constraint: s.constraint };
}

// ---------------------------------------------------------------- the answer

const CATEGORY_WEIGHT: Record<Category, number> = { decision: 1, discussion: 0.95, docstring: 0.95, incident: 0.9, commit: 0.85, changelog: 0.6, note: 0.6 };
/** How sure a link is, as a weight of what its source says: a weak link is a concept spanning the symbol and others. */
const TIER_WEIGHT: Record<LinkTier, number> = { exact: 1, strong: 0.85, weak: 0.6, unresolved: 0.6 };

function standing(d: DocumentRef): number {
  return standingOf(d.status?.state);
}

/**
 * Linked sources are one band, ranked by how likely their best sentence is
 * a reason (the fitted ranker's probability; the hand-set score where no
 * ranker is fitted) times how sure the link is (exact 1, strong 0.85, weak
 * 0.6): a strong decision record can come before an exact commit, a weak one
 * that explains well before a strong one that explains little. The hand-set
 * score weighs a sentence's tie to the name, which a weakly reached record
 * lacks by definition: by it, edx-toggles' ADR on toggle state reports stood
 * fifth of ten sources, behind commits that name the class, and was cut for
 * the answer's budget (tuning, 71 corpora: 453 -> 460 of 987 needed
 * sentences, 3 more questions cite a right document). The tiers shown stay
 * as they are, and only exact or strong may lead the answer. Each
 * further commit of the symbol's lines counts less
 * (0.7 for the second, 0.49 for the third…): the commits that last changed
 * the lines crowd out the documents that explain the design. Pure.
 */
export function bandWeights(docs: readonly Pick<Reached, 'tier' | 'relation' | 'hops' | 'reasons' | 'document' | 'likelihood'>[]): Map<Pick<Reached, 'document'>, number> {
  const out = new Map<Pick<Reached, 'document'>, number>();
  const base = (r: (typeof docs)[number]) => (r.reasons.length ? (r.likelihood ?? r.reasons[0]!.score) : 0) * CATEGORY_WEIGHT[categoryOf(r.document.kind)] * standing(r.document) * TIER_WEIGHT[r.tier];
  const sorted = [...docs].sort((a, b) => base(b) - base(a));
  let commits = 0;
  for (const r of sorted) {
    const isCommit = categoryOf(r.document.kind) === 'commit' && r.relation === 'self' && r.hops === 1 && (r.tier === 'exact' || r.tier === 'strong');
    out.set(r, base(r) * (isCommit ? 0.7 ** commits : 1));
    if (isCommit) commits++;
  }
  return out;
}

/** The sources as items: about the symbol first (then those reached through another document), then its neighbours'; within each, by weight (`bandWeights`), then by tier. Pure. */
function rankItems(docs: Iterable<Reached>): WhyItem[] {
  const group = (r: Reached) => (r.atLine !== undefined ? -1 : r.relation !== 'self' ? 2 : r.hops === 2 ? 1 : 0);
  const list = [...docs];
  const weight = bandWeights(list);
  const band = (r: Reached) => (r.tier === 'unresolved' ? 1 : 0);
  return list
    .sort(
      (x, y) =>
        group(x) - group(y) ||
        Number(!x.reasons.length) - Number(!y.reasons.length) ||
        band(x) - band(y) ||
        weight.get(y)! - weight.get(x)! ||
        TIER_RANK[x.tier] - TIER_RANK[y.tier] ||
        CATEGORY_ORDER.indexOf(categoryOf(x.document.kind)) - CATEGORY_ORDER.indexOf(categoryOf(y.document.kind)) ||
        RELATION_RANK[x.relation] - RELATION_RANK[y.relation] ||
        y.anchors.length - x.anchors.length ||
        byCodeUnits(x.document.source, y.document.source),
    )
    .map((a) => {
      const anchors = a.anchors.sort((x, y) => Number(x.relation !== 'self') - Number(y.relation !== 'self') || TIER_RANK[x.tier] - TIER_RANK[y.tier] || RELATION_RANK[x.relation] - RELATION_RANK[y.relation]).slice(0, 4);
      const neighbour = a.relation !== 'self' ? anchors.find((x) => x.relation === a.relation) : undefined;
      // Not inherited: a neighbour's document, or one reached through another document, is at most weak for the symbol itself.
      const tier: LinkTier = a.relation === 'self' && a.hops === 1 ? a.tier : TIER_RANK[a.tier] < TIER_RANK.weak ? 'weak' : a.tier;
      const category = a.text && a.document.kind === 'doc' ? 'docstring' : categoryOf(a.document.kind);
      const status = statusToSay(a.document.status);
      return {
        category,
        document: a.document,
        ...(status ? { status } : {}),
        tier,
        relation: a.relation,
        ...(neighbour && a.relation !== 'self' ? { about: { qname: neighbour.symbol.qname, relation: a.relation, tier: a.tier } } : {}),
        hops: a.hops,
        anchors,
        ...(a.via ? { via: a.via } : {}),
        ...(a.successor ? { successor: a.successor } : {}),
        ...(a.citedAt ? { citedAt: a.citedAt } : {}),
        excerpts: a.reasons.length ? a.reasons.map((x) => x.quote) : a.passages.slice(0, 1),
        reasons: a.reasons,
        extractedBy: [...a.extractedBy].sort().join(', '),
        ...(a.atLine !== undefined ? { atLine: a.atLine } : {}),
      };
    });
}

function zeroTiers(): Record<LinkTier, number> {
  return Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
}

function handleOf(d: DocumentRef): string {
  return d.ref ?? d.title;
}

/** The best reason about the symbol itself, whatever source it is in. */
function leadOf(items: readonly WhyItem[]): LeadReason | undefined {
  // The question asked about a line: what its comment says is the answer's first line, when it gives a reason.
  const atLine = items.find((i) => i.atLine !== undefined && i.reasons.length);
  if (atLine) return leadFrom(atLine, atLine.reasons[0]!);
  let best: { item: WhyItem; reason: ReasonFound; score: number } | undefined;
  for (const item of items) {
    // Only a source about the symbol itself, linked exact or strong, may say why it is so; a weak link is a concept spanning it and others.
    if (item.relation !== 'self' || item.hops !== 1 || (item.tier !== 'exact' && item.tier !== 'strong')) continue;
    for (const reason of item.reasons.slice(0, 1)) {
      // A commit's message may be about anything else it changed: it leads only with a sentence that names the symbol.
      if (item.category === 'commit' && reason.tie < 0.7) continue;
      const score = reason.score * CATEGORY_WEIGHT[item.category] * standing(item.document) * TIER_WEIGHT[item.tier];
      if (!best || score > best.score) best = { item, reason, score };
    }
  }
  if (!best) return undefined;
  return leadFrom(best.item, best.reason);
}

function leadFrom(item: WhyItem, reason: ReasonFound): LeadReason {
  return { quote: reason.quote, category: item.category, tier: item.tier, relation: item.relation, handle: handleOf(item.document), ...(item.status ? { status: item.status } : {}) };
}

/**
 * A comment inside the symbol's own code (not its doc comment), linked exact: where its authors say how or why
 * a line is as it is ("SampleTimeout = approximate block time * max amount of catchup workers"). A doc comment
 * mostly says what the symbol does ("Submits the instruction, retrying transient failures as the policy allows")
 * and competes for a place like any other source.
 */
function isOwnBodyComment(i: WhyItem): boolean {
  return i.category === 'docstring' && i.relation === 'self' && i.hops === 1 && i.tier === 'exact' && i.extractedBy.split(', ').includes('code comment');
}

/** Comments inside the symbol's own code that keep a place whatever else gives a reason. */
const RESERVED_BODY_COMMENTS = 3;

/**
 * The sources an answer shows, in rank order: those that give a reason, then the comments inside the symbol's
 * own code that give none the reason finder can read (a formula, a terse note: its authors' words about it,
 * quoted where the budget has room), then at most three more that merely name it. Three of those comments keep
 * their places within the limit, so a limit full of weakly linked commits never pushes them out; more of them
 * (a model class has one on every field) never push out a source that gives a reason.
 */
export function selectShown(items: readonly WhyItem[], limit: number): WhyItem[] {
  const atLine = items.filter((i) => i.atLine !== undefined);
  const rest = items.filter((i) => i.atLine === undefined);
  const bodyComments = rest.filter((i) => !i.reasons.length && isOwnBodyComment(i));
  const reserved = [...atLine, ...bodyComments.slice(0, RESERVED_BODY_COMMENTS)].slice(0, limit);
  const ordered = [...atLine, ...rest.filter((i) => i.reasons.length), ...bodyComments, ...rest.filter((i) => !i.reasons.length && !isOwnBodyComment(i)).slice(0, 3)];
  const kept = new Set([...reserved, ...ordered.filter((i) => !reserved.includes(i)).slice(0, limit - reserved.length)]);
  return ordered.filter((i) => kept.has(i));
}

export async function whyIsThis(db: Db, target: SymbolRef, limit = 8, options: WhyOptions = {}): Promise<WhyIsThisResult> {
  const status = await knowledgeIndexed(db);
  const scope = await scopeOf(db, target);
  const docs = new Map<number, Reached>();
  let nextId = 0;
  const next = () => --nextId;
  let declaration: string | undefined;
  let history: { commits: number; informative: number } | undefined;
  const ranges: Ranges = options.root ? await symbolsBySid(db, [target.sid, ...scope.filter((s) => NOTED_RELATIONS.has(s.relation)).map((s) => s.sid), ...constructorsOf(target, scope).map((s) => s.sid)]) : new Map();
  const line = options.line !== undefined && options.line !== target.line ? options.line : undefined;
  const calls = options.root ? await callsOf(db, options.root, target) : undefined;
  if (options.root) declaration = codeSources(options.root, target, scope, ranges, docs, next, line).declaration;
  if (calls) callerComments(target, calls, docs, next);
  const best = status.documents ? await bestAnchors(db, scope) : new Map() as BestAnchors;
  if (status.documents) {
    await documentsMentioning(db, best, docs);
    await documentsCited(db, scope, docs);
    await documentsReferring(db, docs);
    await documentsSearched(db, target, docs);
    for (const v of itsValues(target, declaration, calls)) await documentsNamingItsValue(db, target, v, docs);
    await documentsByAffixedName(db, target, docs);
    await documentsNamedForIt(db, target, docs);
    await documentsLinkingToIt(db, target, docs);
    await documentsOfItsFolder(db, target, docs);
    await documentsOnItsSubject(db, target, scope, docs);
  }
  // The records several rules look among, read once, when one of them needs them.
  let records: Promise<DocumentRow[]> | undefined;
  const decisions = () => (records ??= decisionRecords(db));
  if (status.documents) await documentsSharingRareWords(db, target, scope, decisions, docs);
  if (options.root && options.history !== false) {
    const h = await historySources(db, options.root, target, ranges, docs, next);
    history = { commits: h.commits, informative: h.informative };
    if (status.documents) await documentsNamingPullRequests(db, target, h.pullRequests.filter((p) => !p.linked).slice(0, 5), docs);
    if (status.documents && (h.subjects.length || h.pullRequests.length)) {
      await documentsTitledByItsCommits(db, target, h.subjects, await decisions(), docs);
      await documentsAddedByItsPullRequests(db, options.root, target, h.pullRequests, await decisions(), docs);
    }
    if (status.documents) await commitsAway(options.root, target, docs);
  }
  if (status.documents) {
    await withStatuses(db, docs);
    if (await successorsOf(db, docs)) await withStatuses(db, docs);
  }
  withoutReleaseCopies(docs);
  const ties = tiesOf(target, scope, declaration);
  await findReasons(db, docs, target, ties, options);
  settleSubjectLinks(docs);
  const constraints = status.documents ? await constraintsAround(db, best, docs) : [];

  const items = rankItems(docs.values());
  const shown = selectShown(items, Math.max(limit, 1));
  const byCategory: Partial<Record<Category, number>> = {};
  const byTier = zeroTiers();
  for (const i of shown) {
    byCategory[i.category] = (byCategory[i.category] ?? 0) + 1;
    byTier[i.tier]++;
  }
  const lead = leadOf(items);
  const notSeen = [
    ...(status.extractedBy.length && status.extractedBy.every((x) => x === 'offline') ? [OFFLINE_UNSEEN] : []),
    ...(!options.root ? ["the symbol's own comments and the git history of its lines (not read here)"] : history && history.commits > history.informative ? [`${history.commits - history.informative} commit${history.commits - history.informative === 1 ? '' : 's'} that changed its lines, whose messages explain nothing`] : []),
    'tickets, chat and meetings outside the indexed sources',
    ...(items.length > shown.length ? [`${items.length - shown.length} more source${items.length - shown.length === 1 ? '' : 's'} (raise --limit)`] : []),
  ];
  const result: Omit<WhyIsThisResult, 'summary'> = {
    target,
    indexed: status.documents > 0,
    scope,
    ...(lead ? { lead } : {}),
    items: shown,
    constraints,
    counts: { documents: shown.length, byCategory, byTier, unresolved: constraints.filter((c) => c.tier === 'unresolved' && c.type === 'constraint').length },
    ...(history ? { history } : {}),
    extractedBy: status.extractedBy,
    notSeen,
    ...(line !== undefined ? { line } : {}),
  };
  return { ...result, summary: summarize(result) };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const CATEGORY_WORDS: Record<Category, [string, string]> = {
  decision: ['decision', 'decisions'],
  incident: ['incident', 'incidents'],
  discussion: ['discussion', 'discussions'],
  docstring: ['comment in the code', 'comments in the code'],
  commit: ['commit', 'commits'],
  changelog: ['changelog entry', 'changelog entries'],
  note: ['other document', 'other documents'],
};

function summarize(r: Omit<WhyIsThisResult, 'summary'>): string {
  const about = r.items.filter((i) => i.relation === 'self' && i.hops === 1);
  const nothing = !r.items.length && !r.constraints.length;
  if (nothing && !r.indexed) return `No recorded reason: nothing in the code's comments or history explains ${r.target.qname}, and the knowledge memory is empty (run \`tenure index\` or \`tenure knowledge index\`, then ask again).`;
  if (nothing) return `No recorded reason: no indexed document, comment or commit bears on ${r.target.qname}, its members, its type or what it uses directly.`;
  // Counts by kind and tier; each source is named, with its tier, on its own line below.
  const parts = CATEGORY_ORDER.map((c) => {
    const list = about.filter((i) => i.category === c);
    if (!list.length) return '';
    // Each source's tier is on its own line below: the count says only how many of each kind.
    return plural(list.length, ...CATEGORY_WORDS[c]);
  }).filter(Boolean);
  const onLine = r.line !== undefined ? r.items.find((i) => i.atLine !== undefined) : undefined;
  let s = r.line === undefined ? '' : onLine ? `line ${r.line} is inside it, and a comment there comes first; ` : `line ${r.line} is inside it, with no comment on or just above it; `;
  // The line above names the symbol in full: here it is "the method", which is shorter for an agent to read and says the same.
  s += `${plural(about.length, 'source')} about the ${r.target.kind} itself`;
  if (parts.length) s += ` — ${parts.join(', ')}`;
  const hop2 = r.items.filter((i) => i.relation === 'self' && i.hops === 2).length;
  const neighbours = r.items.filter((i) => i.relation !== 'self').length;
  if (hop2) s += `; ${plural(hop2, 'more refers', 'more refer')} to them`;
  if (neighbours) s += `; ${plural(neighbours, 'source')} about its neighbours (weak for it)`;
  const unresolved = r.constraints.filter((c) => c.tier === 'unresolved' && c.type === 'constraint');
  if (unresolved.length) s += `; ${plural(unresolved.length, 'constraint')} no symbol denotes (unresolved, kept): ${unresolved.map((c) => c.name).join(', ')}`;
  return `${s}.`;
}
