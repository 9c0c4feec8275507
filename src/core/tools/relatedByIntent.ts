import * as z from 'zod';
import { LINK_TIERS, type LinkTier as LinkTierT } from '../model/tiers.js';
import { QUOTED_DATA_NOTE, describeExtraction } from '../knowledge/quotes.js';
import { relatedByIntent, type RelatedByIntentResult } from '../knowledge/intent.js';
import { fitToBudget, moreLine } from './budget.js';
import { LinkTier, Omitted, QuoteView, SymbolView, quoteLine } from './present.js';
import { defineTool } from './types.js';
import { LINK_TIERS_FOR_AGENTS, sourceQuoteView } from './whyIsThis.js';

/* related_by_intent: a phrase → the symbols it denotes, by link tier, and the concepts no symbol denotes. */

export const RelatedByIntentInput = z.object({
  phrase: z.string().min(1).max(300).describe('A concept in words: "settlement retries", "the partner SLA", "duplicate instruction handling".'),
  limit: z.number().int().min(1).max(100).default(15).describe('Most symbols to return (default 15).'),
});

const RelatedByIntentOutput = z.object({
  phrase: z.string(),
  summary: z.string(),
  knowledgeIndexed: z.boolean(),
  symbols: z.array(SymbolView.extend({ tier: LinkTier, reason: z.string() })),
  unresolved: z.array(z.object({ type: z.string(), name: z.string(), quote: QuoteView.optional() })).describe('concepts in the documents that no symbol denotes: kept, never matched to a nearest name'),
  extraction: z.string(),
  omitted: Omitted,
});
type RelatedByIntentOutput = z.infer<typeof RelatedByIntentOutput>;

const MEANING: Record<LinkTierT, string> = {
  exact: 'the phrase or a document names it verbatim',
  strong: 'a normalised phrase clearly denotes it',
  weak: 'a concept spanning several symbols, or reached through a resembling phrase — verify',
  unresolved: 'no symbol denotes it',
};

export function presentRelatedByIntent(r: RelatedByIntentResult, limit: number): RelatedByIntentOutput {
  const symbols = r.symbols.slice(0, limit).map((s) => ({ sid: s.sid, qname: s.qname, kind: s.kind, at: `${s.path}:${s.line}`, tier: s.tier, reason: s.reasons[0] ?? '' }));
  const concepts = r.unresolved.slice(0, Math.max(2, Math.ceil(limit / 3)));
  const omitted: Record<string, number> = {};
  if (r.symbols.length > symbols.length) omitted['symbols'] = r.symbols.length - symbols.length;
  if (r.unresolved.length > concepts.length) omitted['unresolved'] = r.unresolved.length - concepts.length;
  return {
    phrase: r.phrase,
    summary: r.summary,
    knowledgeIndexed: r.knowledgeIndexed,
    symbols,
    unresolved: concepts.map((u) => ({ type: u.type, name: u.name, ...(u.sources[0] ? { quote: sourceQuoteView(u.sources[0], 200) } : {}) })),
    extraction: describeExtraction(r.extractedBy),
    omitted,
  };
}

export function renderRelatedByIntent(a: RelatedByIntentOutput): string {
  const lines = [`related_by_intent "${a.phrase}"`, a.summary];
  for (const tier of LINK_TIERS) {
    const group = a.symbols.filter((s) => s.tier === tier);
    if (!group.length) continue;
    lines.push(`${tier} (${group.length}) — ${MEANING[tier]}:`);
    for (const s of group) lines.push(`  - ${s.qname} (${s.kind}, ${s.at}) — ${s.reason}`);
  }
  if (a.omitted['symbols']) lines.push(moreLine(a.omitted['symbols'], 'symbols', a.symbols.length + a.omitted['symbols']));
  if (a.unresolved.length) {
    lines.push(`unresolved (${a.unresolved.length + (a.omitted['unresolved'] ?? 0)}) — in the documents, but no symbol denotes it; kept, never matched to the nearest name:`);
    for (const u of a.unresolved) {
      lines.push(`  - ${u.type} "${u.name}"`);
      if (u.quote) lines.push(`    > ${quoteLine(u.quote)}`);
    }
    if (a.extraction) lines.push(a.extraction);
    lines.push(QUOTED_DATA_NOTE);
  }
  return lines.join('\n');
}

const BUDGET = 800;

export const relatedByIntentTool = defineTool({
  name: 'related_by_intent',
  title: 'Which code does this concept mean?',
  summary: 'A phrase ("settlement retries", "the partner SLA") → the symbols it denotes, with link tiers, and the concepts no symbol denotes.',
  modelDescription:
    'Call this to find the code behind a concept in words, before searching files by hand: "settlement retries", "duplicate instruction handling", "the partner SLA". ' +
    'It compares the phrase with the names and places of the symbols and with what the team\'s documents say, and returns symbols grouped by link tier with the reason for each, ' +
    'plus the concepts in the documents that no symbol denotes. A symbol reached only through a similar (not identical) phrase in the documents is never better than weak. ' +
    LINK_TIERS_FOR_AGENTS,
  input: RelatedByIntentInput,
  output: RelatedByIntentOutput,
  cli: { command: 'related-by-intent', aliases: ['intent'], positional: 'phrase' },
  effects: { readOnly: true, idempotent: true },
  budgetTokens: BUDGET,
  async run(ctx, input) {
    const result = await relatedByIntent(ctx.workspace.db, input.phrase, input.limit);
    return fitToBudget((limit) => presentRelatedByIntent(result, limit), renderRelatedByIntent, input.limit, BUDGET);
  },
});
