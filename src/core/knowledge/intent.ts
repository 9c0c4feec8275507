import { z } from 'zod';
import { searchEntities, queryEmbedder } from './search.js';
import { linkEntity } from '../linking/link.js';
import { entityKey, phraseTokens } from '../linking/names.js';
import { symbolIndexOf } from '../structural/lookup.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import type { Embedder } from '../llm/types.js';
import { TenureError } from '../../shared/errors.js';
import { CHUNK_SELECT, QUOTED_DATA_NOTE, describeExtraction, knowledgeIndexed, needlesFor, quoteFrom, renderQuote, type ChunkRow, type Quotation } from './quotes.js';

/*
 * related_by_intent: a phrase ("settlement retries", "the partner SLA") → the
 * symbols it denotes, each with a link tier and the reason. Two routes: the
 * phrase itself against the symbols' names and places (the linker), and the
 * knowledge graph — entities the phrase names or resembles, and the symbols
 * those entities link to. A symbol reached through a resembling (not
 * identical) entity is never better than weak. Concepts with no symbol are
 * returned too, as unresolved.
 */

export const RelatedByIntentInput = z.object({
  phrase: z.string().min(1).max(300).describe('A concept in words: "settlement retries", "the partner SLA", "duplicate instruction handling".'),
  limit: z.number().int().min(1).max(100).default(15).describe('Most symbols to return (default 15).'),
});
export type RelatedByIntentInput = z.infer<typeof RelatedByIntentInput>;

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

export async function relatedByIntent(db: Db, phrase: string, limit = 15, embedders: readonly Embedder[] = []): Promise<RelatedByIntentResult> {
  const text = phrase.trim();
  if (!text) throw new TenureError('invalid-input', 'No phrase given.');
  const indexed = await db.get<{ n: number }>('SELECT count(*) AS n FROM files');
  if (!indexed?.n) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index`, then ask again.');
  const status = await knowledgeIndexed(db);
  const index = await symbolIndexOf(db);
  if (!index.size) throw new TenureError('not-indexed', 'The structural index holds no symbols yet. Run `tenure index`, then ask again.');
  const found = new Map<string, { tier: LinkTier; reasons: string[]; via: Set<string> }>();
  const add = (sid: string, tier: LinkTier, reason: string, via?: string) => {
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
  const direct = linkEntity(index, { name: text, type: 'component' });
  for (const s of direct.symbols) add(s.sid, direct.tier, `the phrase: ${direct.reason}`);

  // 2. Through the knowledge graph.
  const unresolved: IntentConcept[] = [];
  if (status.documents > 0) {
    const key = entityKey(text);
    const embedder = await queryEmbedder(db, embedders);
    const hits = await searchEntities(db, embedder, text, 8);
    const exact = await db.get<{ id: number; key: string; name: string; type: string; description: string; degree: number; extracted_by: string }>('SELECT id, key, name, type, description, degree, extracted_by FROM kn_entities WHERE key = ?', [key]);
    // Ranking always returns something; only entities whose name shares most of the phrase's words count as resembling it.
    const phraseWords = new Set(phraseTokens(text));
    const resembles = (name: string) => {
      if (!phraseWords.size) return false;
      const words = new Set(phraseTokens(name));
      let n = 0;
      for (const w of phraseWords) if (words.has(w)) n++;
      return n / phraseWords.size >= 0.5;
    };
    const docEntities = new Set((await db.all<{ id: number }>('SELECT id FROM kn_entities WHERE doc_id IS NOT NULL')).map((r) => r.id));
    const entities = [...(exact ? [exact] : []), ...hits.map((h) => h.item).filter((h) => h.id !== exact?.id && resembles(h.name))].filter((e) => !docEntities.has(e.id));
    for (const e of entities.slice(0, 8)) {
      const same = e.key === key;
      const links = await db.all<{ tier: LinkTier; symbol_sid: string | null; reason: string }>('SELECT tier, symbol_sid, reason FROM kn_links WHERE entity_id = ?', [e.id]);
      const resolvedLinks = links.filter((l) => l.symbol_sid && l.tier !== 'unresolved');
      if (!resolvedLinks.length) {
        if (same || ['constraint', 'decision', 'incident'].includes(e.type)) {
          const mentions = await db.all<ChunkRow & { description: string }>(`SELECT m.description, x.* FROM kn_mentions m JOIN (${CHUNK_SELECT}) x ON x.chunk_id = m.chunk_id WHERE m.entity_id = ? ORDER BY x.doc_id LIMIT 6`, [e.id]);
          const seen = new Set<number>();
          const sources: Quotation[] = [];
          for (const m of mentions) {
            if (seen.has(m.doc_id) || sources.length >= 2) continue;
            seen.add(m.doc_id);
            sources.push(quoteFrom(m, needlesFor(e.name), m.description, 240));
          }
          if (same || unresolved.length < 3) unresolved.push({ name: e.name, type: e.type, description: e.description, tier: 'unresolved', sources });
        }
        continue;
      }
      for (const l of resolvedLinks) {
        // Through an entity that merely resembles the phrase, a link is at best weak.
        const tier: LinkTier = same ? l.tier : RANK[l.tier] < RANK.weak ? 'weak' : l.tier;
        add(l.symbol_sid!, tier, same ? `the documents' "${e.name}": ${l.reason}` : `resembles the documents' "${e.name}" (${e.type}), which links ${l.tier}: ${l.reason}`, e.name);
      }
    }
  }

  const symbols: IntentSymbol[] = [];
  for (const [sid, f] of found) {
    const s = index.bySid.get(sid);
    if (!s) continue;
    symbols.push({ sid, qname: s.qname, kind: s.kind, path: s.path, line: s.line, tier: f.tier, reasons: f.reasons.slice(0, 3), via: [...f.via].sort() });
  }
  symbols.sort((a, b) => RANK[a.tier] - RANK[b.tier] || b.via.length - a.via.length || a.qname.localeCompare(b.qname));
  const shown = symbols.slice(0, limit);
  const counts = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  for (const s of shown) counts[s.tier]++;
  counts.unresolved = unresolved.length;
  const parts = LINK_TIERS.filter((t) => t !== 'unresolved' && counts[t]).map((t) => `${counts[t]} ${t}`);
  let summary = shown.length ? `"${text}" → ${shown.length} symbol${shown.length === 1 ? '' : 's'} (${parts.join(', ')})` : `"${text}" denotes no symbol Tenure can find by name or through the documents`;
  if (symbols.length > shown.length) summary += `, ${symbols.length - shown.length} more beyond the limit`;
  if (unresolved.length) summary += `; ${unresolved.length} concept${unresolved.length === 1 ? '' : 's'} in the documents with no symbol (unresolved): ${unresolved.map((u) => u.name).join(', ')}`;
  if (!status.documents) summary += '; the knowledge memory is empty, so only symbol names were compared (run `tenure index`)';
  return { phrase: text, symbols: shown, unresolved, counts, knowledgeIndexed: status.documents > 0, extractedBy: status.extractedBy, summary: `${summary}.` };
}

const MEANING: Record<LinkTier, string> = {
  exact: 'the phrase or a document names it verbatim',
  strong: 'a normalised phrase clearly denotes it',
  weak: 'a concept spanning several symbols, or reached through a resembling phrase — verify',
  unresolved: 'no symbol denotes it',
};

export function renderRelatedByIntent(r: RelatedByIntentResult): string {
  const lines = [`related_by_intent "${r.phrase}"`, r.summary];
  for (const tier of LINK_TIERS) {
    const group = r.symbols.filter((s) => s.tier === tier);
    if (!group.length) continue;
    lines.push(`${tier} (${group.length}) — ${MEANING[tier]}:`);
    for (const s of group) lines.push(`  - ${s.qname} (${s.kind}, ${s.path}:${s.line}) — ${s.reasons[0]}`);
  }
  if (r.unresolved.length) {
    const how = describeExtraction(r.extractedBy);
    lines.push(`unresolved (${r.unresolved.length}) — in the documents, but no symbol denotes it; kept, never matched to the nearest name:`);
    for (const u of r.unresolved) {
      lines.push(`  - ${u.type} "${u.name}"`);
      for (const q of u.sources) lines.push(`    > ${renderQuote(q)}`);
    }
    if (how) lines.push(how);
    lines.push(QUOTED_DATA_NOTE);
  }
  return lines.join('\n');
}
