import { searchEntities, queryEmbedder } from './search.js';
import { LinkReach, linkEntity } from '../linking/link.js';
import { entityKey, phraseTokens } from '../linking/names.js';
import { linkableSymbolCount, reachedSymbolIndex, symbolsBySid } from '../structural/lookup.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import type { Embedder } from '../llm/types.js';
import { isIndexed } from '../structural/lookup.js';
import { TenureError } from '../../shared/errors.js';
import { knowledgeIndexed, needlesFor, quoteFrom, type Quotation } from './quotes.js';
import { documentEntityIds, entityByKey, mentionsOf, type EntityHit } from './store/graph.js';
import { linksOf } from './store/links.js';
import { byCodeUnits } from '../../shared/order.js';

/*
 * related_by_intent: a phrase ("settlement retries", "the partner SLA") → the
 * symbols it denotes, each with a link tier and the reason. Two routes: the
 * phrase itself against the symbols' names and places (the linker), and the
 * knowledge graph — entities the phrase names or resembles, and the symbols
 * those entities link to. A symbol reached through a resembling (not
 * identical) entity is never better than weak. Concepts with no symbol are
 * returned too, as unresolved.
 */

export interface IntentSymbol {
  readonly sid: string;
  readonly qname: string;
  readonly kind: string;
  readonly path: string;
  readonly line: number;
  readonly tier: LinkTier;
  /** Why, strongest first. */
  readonly reasons: readonly string[];
  /** Knowledge entities it was reached through. */
  readonly via: readonly string[];
}

export interface IntentConcept {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly tier: LinkTier;
  readonly sources: readonly Quotation[];
}

export interface RelatedByIntentResult {
  readonly phrase: string;
  readonly symbols: readonly IntentSymbol[];
  /** Knowledge entities matching the phrase that no symbol denotes. */
  readonly unresolved: readonly IntentConcept[];
  readonly counts: Record<LinkTier, number>;
  readonly knowledgeIndexed: boolean;
  readonly extractedBy: readonly string[];
  readonly summary: string;
}

const RANK: Record<LinkTier, number> = { exact: 0, strong: 1, weak: 2, unresolved: 3 };

type AddLink = (sid: string, tier: LinkTier, reason: string, via?: string) => void;

/** Whether a ranked entity's name shares most of the phrase's words: ranking always returns something, resembling is stricter. */
function resembler(phrase: string): (name: string) => boolean {
  const phraseWords = new Set(phraseTokens(phrase));
  return (name) => {
    if (!phraseWords.size) return false;
    const words = new Set(phraseTokens(name));
    let n = 0;
    for (const w of phraseWords) if (words.has(w)) n++;
    return n / phraseWords.size >= 0.5;
  };
}

/** A concept no symbol denotes, with where the documents say it (one passage a document, two at most). */
async function unresolvedConcept(db: Db, e: EntityHit): Promise<IntentConcept> {
  const seen = new Set<number>();
  const sources: Quotation[] = [];
  for (const m of await mentionsOf(db, [e.id], 6)) {
    if (seen.has(m.doc_id) || sources.length >= 2) continue;
    seen.add(m.doc_id);
    sources.push(quoteFrom(m, needlesFor(e.name), m.description, 240));
  }
  return { name: e.name, type: e.type, description: e.description, tier: 'unresolved', sources };
}

/**
 * The knowledge graph's route: the entity the phrase names, and entities
 * resembling it, to the symbols they link to (through a resembling entity at
 * best weak); the concepts among them no symbol denotes.
 */
async function throughTheGraph(db: Db, text: string, embedders: readonly Embedder[], add: AddLink): Promise<IntentConcept[]> {
  const key = entityKey(text);
  const hits = await searchEntities(db, await queryEmbedder(db, embedders), text, 8);
  const exact = await entityByKey(db, key);
  const resembles = resembler(text);
  const docEntities = await documentEntityIds(db);
  const entities = [...(exact ? [exact] : []), ...hits.map((h) => h.item).filter((h) => h.id !== exact?.id && resembles(h.name))].filter((e) => !docEntities.has(e.id));
  const unresolved: IntentConcept[] = [];
  for (const e of entities.slice(0, 8)) {
    const same = e.key === key;
    const links = (await linksOf(db, e.id)).filter((l) => l.symbol_sid && l.tier !== 'unresolved');
    if (!links.length) {
      if ((same || ['constraint', 'decision', 'incident'].includes(e.type)) && (same || unresolved.length < 3)) unresolved.push(await unresolvedConcept(db, e));
      continue;
    }
    for (const l of links) {
      // Through an entity that merely resembles the phrase, a link is at best weak.
      const tier: LinkTier = same ? l.tier : RANK[l.tier] < RANK.weak ? 'weak' : l.tier;
      add(l.symbol_sid!, tier, same ? `the documents' "${e.name}": ${l.reason}` : `resembles the documents' "${e.name}" (${e.type}), which links ${l.tier}: ${l.reason}`, e.name);
    }
  }
  return unresolved;
}

function summarize(text: string, shown: readonly IntentSymbol[], found: number, unresolved: readonly IntentConcept[], counts: Record<LinkTier, number>, knowledgeIndexed: boolean): string {
  const parts = LINK_TIERS.filter((t) => t !== 'unresolved' && counts[t]).map((t) => `${counts[t]} ${t}`);
  let summary = shown.length ? `"${text}" → ${shown.length} symbol${shown.length === 1 ? '' : 's'} (${parts.join(', ')})` : `"${text}" denotes no symbol Tenure can find by name or through the documents`;
  if (found > shown.length) summary += `, ${found - shown.length} more beyond the limit`;
  if (unresolved.length) summary += `; ${unresolved.length} concept${unresolved.length === 1 ? '' : 's'} in the documents with no symbol (unresolved): ${unresolved.map((u) => u.name).join(', ')}`;
  if (!knowledgeIndexed) summary += '; the knowledge memory is empty, so only symbol names were compared (run `tenure index`)';
  return `${summary}.`;
}

export async function relatedByIntent(db: Db, phrase: string, limit = 15, embedders: readonly Embedder[] = []): Promise<RelatedByIntentResult> {
  const text = phrase.trim();
  if (!text) throw new TenureError('invalid-input', 'No phrase given.');
  if (!(await isIndexed(db))) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index`, then ask again.');
  const status = await knowledgeIndexed(db);
  if (!(await linkableSymbolCount(db))) throw new TenureError('not-indexed', 'The structural index holds no symbols yet. Run `tenure index`, then ask again.');
  const found = new Map<string, { tier: LinkTier; reasons: string[]; via: Set<string> }>();
  const add: AddLink = (sid, tier, reason, via) => {
    const f = found.get(sid);
    if (!f) {
      found.set(sid, { tier, reasons: [reason], via: new Set(via ? [via] : []) });
      return;
    }
    if (RANK[tier] < RANK[f.tier]) {
      f.tier = tier;
      f.reasons.unshift(reason);
    } else if (!f.reasons.includes(reason)) f.reasons.push(reason);
    if (via) f.via.add(via);
  };

  // 1. The phrase itself.
  const subject = { name: text, type: 'component' };
  const direct = linkEntity(await reachedSymbolIndex(db, new LinkReach([subject])), subject);
  for (const s of direct.symbols) add(s.sid, direct.tier, `the phrase: ${direct.reason}`);
  // 2. Through the knowledge graph.
  const unresolved = status.documents > 0 ? await throughTheGraph(db, text, embedders, add) : [];

  const symbols: IntentSymbol[] = [];
  const refs = await symbolsBySid(db, [...found.keys()]);
  for (const [sid, f] of found) {
    const s = refs.get(sid);
    if (!s) continue;
    symbols.push({ sid, qname: s.qname, kind: s.kind, path: s.path, line: s.line, tier: f.tier, reasons: f.reasons.slice(0, 3), via: [...f.via].sort() });
  }
  symbols.sort((a, b) => RANK[a.tier] - RANK[b.tier] || b.via.length - a.via.length || byCodeUnits(a.qname, b.qname));
  const shown = symbols.slice(0, limit);
  const counts = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  for (const s of shown) counts[s.tier]++;
  counts.unresolved = unresolved.length;
  const summary = summarize(text, shown, symbols.length, unresolved, counts, status.documents > 0);
  return { phrase: text, symbols: shown, unresolved, counts, knowledgeIndexed: status.documents > 0, extractedBy: status.extractedBy, summary };
}
