import { z } from 'zod';
import { TenureError } from '../../shared/errors.js';
import { clockFromEnv } from '../episodic/clock.js';
import { CONCLUSION_MEANING, OUTCOME_MEANING } from '../episodic/model.js';
import { EDGE_TIERS, LINK_TIERS, type EdgeTier, type LinkTier } from '../model/tiers.js';
import { renderTriggeredRule, triggeredRules, type TriggeredRule } from '../procedural/hints.js';
import { RULE_STATUS_MEANING, type RuleStatus } from '../procedural/model.js';
import type { ToolContext, ToolSpec } from '../tools/types.js';
import { KNOWLEDGE_EMPTY, knowledgeReasons, linkByKnowledge } from './askKnowledge.js';
import { conceptPhrases, linkByName, type ConceptLink } from './askLink.js';
import { optionsFor } from '../tools/episodic.js';
import { resolveSymbols } from '../structural/lookup.js';
import type { SymbolRef } from '../model/symbolRef.js';
import { whatBreaks } from '../structural/impact/whatBreaks.js';
import type { WhatBreaksResult } from '../structural/impact/result.js';
import { conclusionLine, describeLink, whatHappenedBefore, type HistoryEntry, type HistoryResult } from '../episodic/history.js';

/*
 * ask: the question no single memory answers. The question's concepts are
 * linked to symbols (by the knowledge memory when it can, else by name, with
 * link tiers either way); then structural impact, knowledge reasons,
 * episodic history and the rules a change there triggers — one answer, each
 * part labelled with the memory that produced it and how far to trust it.
 */

export const AskInput = z.object({
  question: z.string().min(1).max(2000).describe('The question, in words: "I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?"'),
  symbol: z.string().optional().describe('The symbol the question is about, if known (name, id or path:line). Otherwise Tenure links the question\'s concepts to symbols and says how sure it is.'),
});
export type AskInput = z.infer<typeof AskInput>;

export type Memory = 'structural' | 'knowledge' | 'episodic' | 'procedural';

export interface AskPart {
  readonly memory: Memory;
  readonly status: 'answered' | 'empty' | 'unavailable';
  /**
   * How far to trust this part, in the memory's own terms: the weakest edge
   * tier relied on (structural), the weakest link tier (knowledge), `high`
   * for build-system outcomes (episodic), the best rule's standing (procedural).
   */
  readonly tier: string;
  /** Counts behind the tier: edges by tier, links by tier, outcomes and conclusions, rules by status. */
  readonly tiers: Record<string, number>;
  readonly summary: string;
  readonly text: string;
  readonly data: unknown;
}

export interface AskResult {
  readonly question: string;
  readonly concept: {
    /** How the links were made: the symbol argument, the knowledge memory's linking, name matching. */
    readonly linkedBy: readonly string[];
    /** The concepts read from the question. */
    readonly phrases: readonly string[];
    readonly links: readonly { readonly sid: string; readonly qname: string; readonly kind: string; readonly path: string; readonly line: number; readonly tier: LinkTier; readonly phrase: string; readonly why: string }[];
    readonly unresolved: readonly string[];
    readonly note: string | null;
  };
  /** The symbols the parts answer about (at most four, strongest links first). */
  readonly focus: readonly { readonly sid: string; readonly qname: string; readonly tier: LinkTier }[];
  readonly parts: readonly AskPart[];
  readonly summary: string;
}

const MAX_FOCUS = 4;

function weakestEdge(r: readonly WhatBreaksResult[]): EdgeTier | null {
  let worst = -1;
  for (const w of r) for (const d of w.dependents) worst = Math.max(worst, EDGE_TIERS.indexOf(d.tier));
  return worst < 0 ? null : EDGE_TIERS[worst]!;
}

async function linkConcepts(ctx: ToolContext, tools: readonly ToolSpec[], input: AskInput): Promise<AskResult['concept'] & { symbols: ConceptLink[] }> {
  const { db, root } = ctx.workspace;
  if (input.symbol) {
    const found = await resolveSymbols(db, input.symbol, { root });
    const tier: LinkTier = found.length === 1 ? 'exact' : 'weak';
    const symbols = found.map((s) => ({ symbol: s, tier, phrase: input.symbol!, why: found.length === 1 ? 'named by the symbol argument' : `the symbol argument matches ${found.length} symbols; all are used`, score: 1 }));
    return { linkedBy: ['symbol argument'], phrases: [input.symbol], links: symbols.map(linkView), unresolved: [], note: null, symbols };
  }
  const phrases = conceptPhrases(input.question);
  const lookup = async (sid: string) => (await db.get<SymbolRef>('SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ? LIMIT 1', [sid])) ?? undefined;
  const k = await linkByKnowledge(tools, ctx, phrases, lookup);
  const n = await linkByName(db, input.question, root);
  // The knowledge memory's links first; name matches add what it did not link, each with its own tier and reason.
  const seen = new Set((k?.links ?? []).map((l) => l.symbol.sid));
  const symbols = [...(k?.links ?? []), ...n.links.filter((l) => !seen.has(l.symbol.sid))];
  const linkedBy = [...(k?.links.length ? ['knowledge linking (related_by_intent)'] : []), ...(n.links.some((l) => !seen.has(l.symbol.sid)) ? ['name match'] : [])];
  const note = !k ? `${KNOWLEDGE_EMPTY} (this build has no related_by_intent tool); concepts linked to symbols by name only` : !k.knowledgeIndexed ? `${KNOWLEDGE_EMPTY}: links come from symbol names, not from documents` : null;
  return { linkedBy, phrases, links: symbols.map(linkView), unresolved: [...new Set([...(k?.unresolved ?? []), ...n.unresolved])], note, symbols };
}

const TIER_RANK: Record<LinkTier, number> = { exact: 0, strong: 1, weak: 2, unresolved: 3 };

/**
 * The symbols the parts answer about: strongest links first, no file-level
 * module, nothing already covered by a focused container (its members are in
 * the container's impact and history), at most MAX_FOCUS.
 */
function chooseFocus(links: readonly ConceptLink[]): ConceptLink[] {
  const sorted = [...links].filter((l) => l.tier !== 'unresolved').sort((a, b) => TIER_RANK[a.tier] - TIER_RANK[b.tier] || (a.symbol.kind === 'module' ? 1 : 0) - (b.symbol.kind === 'module' ? 1 : 0) || b.score - a.score);
  const focus: ConceptLink[] = [];
  for (const l of sorted) {
    if (focus.length >= MAX_FOCUS) break;
    if (l.symbol.kind === 'module' && sorted.some((o) => o.symbol.kind !== 'module')) continue;
    if (focus.some((f) => f.symbol.path === l.symbol.path && l.symbol.qname.startsWith(`${f.symbol.qname}.`))) continue;
    focus.push(l);
  }
  return focus;
}

function linkView(l: ConceptLink) {
  return { sid: l.symbol.sid, qname: l.symbol.qname, kind: l.symbol.kind, path: l.symbol.path, line: l.symbol.line, tier: l.tier, phrase: l.phrase, why: l.why };
}

function structuralPart(results: readonly { link: ConceptLink; r: WhatBreaksResult }[]): AskPart {
  if (!results.length) return { memory: 'structural', status: 'empty', tier: 'none', tiers: {}, summary: 'No symbol to analyse: the question linked to none.', text: '', data: [] };
  const tiers: Record<string, number> = {};
  for (const { r } of results) for (const t of EDGE_TIERS) if (r.counts.byTier[t]) tiers[t] = (tiers[t] ?? 0) + r.counts.byTier[t];
  const dyn = results.reduce((n, x) => n + x.r.dynamicSites.length, 0);
  if (dyn) tiers['dynamic sites'] = dyn;
  // The "not seen" clause is the same for every symbol: say it once.
  const lines = results.map(({ link, r }, i) => `${r.target.qname} [${link.tier} link]: ${i === 0 ? r.summary : r.summary.replace(/; not seen: .*$/, '.')}`);
  const weakest = weakestEdge(results.map((x) => x.r));
  return {
    memory: 'structural',
    status: 'answered',
    tier: weakest ?? 'none',
    tiers,
    summary: lines[0]!,
    text: lines.join('\n'),
    data: results.map(({ link, r }) => ({ link: linkView(link), whatBreaks: r })),
  };
}

function episodicPart(results: readonly { link: ConceptLink; r: HistoryResult }[]): AskPart {
  const byId = new Map<number, { e: HistoryEntry; link: ConceptLink }>();
  for (const { link, r } of results) for (const e of r.entries) if (!byId.has(e.episode.id) || byId.get(e.episode.id)!.e.weight < e.weight) byId.set(e.episode.id, { e, link });
  const entries = [...byId.values()].sort((a, b) => b.e.weight - a.e.weight).slice(0, 6);
  const archived = results.reduce((n, x) => n + x.r.counts.archived, 0);
  const conclusions = entries.reduce((n, x) => n + x.e.conclusions.length, 0) + results.reduce((n, x) => n + x.r.conclusions.length, 0);
  const tiers: Record<string, number> = {};
  if (entries.length) tiers['outcome: high'] = entries.length;
  if (conclusions) tiers['conclusion: low'] = conclusions;
  if (archived) tiers['archived'] = archived;
  if (!entries.length) {
    return {
      memory: 'episodic',
      status: 'empty',
      tier: 'none',
      tiers,
      summary: `No earlier attempt on these symbols or their neighbourhood is recorded${archived ? ` (${archived} archived about code that has changed since)` : ''}. No history is not evidence of safety.`,
      text: '',
      data: results.map(({ link, r }) => ({ link: linkView(link), history: r })),
    };
  }
  const failures = entries.filter((x) => x.e.outcome.status === 'failure' || x.e.outcome.status === 'rejected');
  const lines: string[] = [];
  for (const { e } of entries) {
    const o = e.outcome;
    lines.push(`#${e.episode.id} · ${e.episode.age} · ${o.kind} ${o.status}${e.episode.command ? ` (\`${e.episode.command}\`)` : ''} — ${describeLink(e.link)}${e.episode.intent ? `; intent: ${e.episode.intent}` : ''}`);
    if (o.evidence) lines.push(`   evidence (${o.source}, high confidence): ${o.evidence.split('\n').slice(0, 2).join(' | ')}`);
    for (const c of e.conclusions) lines.push(`   ${conclusionLine(c)}`);
    if (e.drift.stale) lines.push(`   ⚠ the code it touched has changed since (similarity ${e.drift.similarity ?? 'n/a'}): may no longer apply`);
  }
  const top = failures[0]?.e ?? entries[0]!.e;
  const summary =
    `${entries.length} earlier attempt${entries.length === 1 ? '' : 's'} on these symbols or their neighbourhood; ${failures.length} failed or rejected. ` +
    `Most relevant: ${top.episode.age}, ${top.outcome.kind} ${top.outcome.status}${top.outcome.evidence ? ` — ${top.outcome.evidence.split('\n')[0]}` : ''}.`;
  return {
    memory: 'episodic',
    status: 'answered',
    tier: 'high',
    tiers,
    summary,
    text: lines.join('\n'),
    data: results.map(({ link, r }) => ({ link: linkView(link), history: r })),
  };
}

function proceduralPart(rules: readonly TriggeredRule[]): AskPart {
  if (!rules.length) return { memory: 'procedural', status: 'empty', tier: 'none', tiers: {}, summary: 'No learned rule is triggered by a change to these symbols.', text: '', data: [] };
  const tiers: Record<string, number> = {};
  for (const r of rules) tiers[r.status] = (tiers[r.status] ?? 0) + 1;
  const best = rules[0]!;
  return {
    memory: 'procedural',
    status: 'answered',
    tier: best.status,
    tiers,
    summary: `${rules.length} rule${rules.length === 1 ? '' : 's'} apply: ${best.text} (${best.status}: ${RULE_STATUS_MEANING[best.status as RuleStatus]})`,
    text: rules.map(renderTriggeredRule).join('\n'),
    data: rules,
  };
}

export async function ask(ctx: ToolContext, tools: readonly ToolSpec[], input: AskInput): Promise<AskResult> {
  const ws = ctx.workspace;
  const indexed = await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM files');
  if (!indexed?.n) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index`, then ask again.');
  const clock = clockFromEnv();
  const options = optionsFor(ctx);
  const concept = await linkConcepts(ctx, tools, input);
  const focusLinks = chooseFocus(concept.symbols);

  const structural: { link: ConceptLink; r: WhatBreaksResult }[] = [];
  const history: { link: ConceptLink; r: HistoryResult }[] = [];
  for (const link of focusLinks) {
    structural.push({ link, r: await whatBreaks(ws.db, link.symbol, 2) });
    history.push({ link, r: await whatHappenedBefore(ws.db, link.symbol, 5, { clock, options, root: ws.root }) });
  }
  const knowledge = focusLinks.length ? await knowledgeReasons(tools, ctx, focusLinks.map((l) => l.symbol)) : { status: 'empty' as const, text: KNOWLEDGE_EMPTY, data: null, tiers: {}, note: null };
  const knowledgeTiers = knowledge.tiers as Record<string, number>;
  const weakestLink = [...LINK_TIERS].reverse().find((t) => knowledgeTiers[t]) ?? 'none';
  const rules = await triggeredRules(ws.db, { paths: [...new Set(focusLinks.map((l) => l.symbol.path))], sids: focusLinks.map((l) => l.symbol.sid) });

  const parts: AskPart[] = [
    structuralPart(structural),
    {
      memory: 'knowledge',
      status: knowledge.status,
      tier: knowledge.status === 'answered' ? weakestLink : 'none',
      tiers: knowledgeTiers,
      summary: knowledge.status === 'answered' ? knowledge.text.split('\n')[0] ?? '' : knowledge.text,
      text: knowledge.text,
      data: knowledge.data,
    },
    episodicPart(history),
    proceduralPart(rules),
  ];
  const focus = focusLinks.map((l) => ({ sid: l.symbol.sid, qname: l.symbol.qname, tier: l.tier }));
  const summary = focus.length
    ? `"${input.question}" → ${focus.map((f) => `${f.qname} (${f.tier})`).join(', ')}; ${parts.filter((p) => p.status === 'answered').map((p) => p.memory).join(', ') || 'no memory'} answered.`
    : `"${input.question}" links to no symbol in the index${concept.unresolved.length ? ` (unresolved: ${concept.unresolved.join(', ')})` : ''}. Name the symbol with --symbol, or ask about a name that exists.`;
  return { question: input.question, concept: { linkedBy: concept.linkedBy, phrases: concept.phrases, links: concept.links, unresolved: concept.unresolved, note: concept.note }, focus, parts, summary };
}

const MEMORY_LABEL: Record<Memory, string> = {
  structural: 'structural — what breaks',
  knowledge: 'knowledge — why it is this way',
  episodic: 'episodic — what happened before',
  procedural: 'procedural — how it is done here',
};

function partTierWords(p: AskPart): string {
  if (p.status !== 'answered') return p.status;
  switch (p.memory) {
    case 'structural':
      return `edge tiers ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ')}; weakest relied on: ${p.tier}; a lower bound`;
    case 'knowledge':
      return `link tiers ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ') || 'none reported'}`;
    case 'episodic':
      return `outcomes high confidence (build system, never decay); conclusions low, decaying`;
    case 'procedural':
      return `rule standing ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ')}`;
  }
}

export function renderAsk(r: AskResult): string {
  const lines: string[] = [];
  lines.push(`ask: ${r.question}`);
  const c = r.concept;
  lines.push(`concepts ${c.phrases.map((p) => `"${p}"`).join(', ') || '(none)'} → symbols (${c.linkedBy.join(' + ') || 'nothing linked'}; link tiers: exact › strong › weak › unresolved)${c.note ? ` — ${c.note}` : ''}:`);
  if (!c.links.length) lines.push('  (no symbol linked)');
  for (const l of c.links.slice(0, 8)) lines.push(`  - ${l.qname} [${l.tier}] ${l.kind} at ${l.path}:${l.line} — ${l.why}`);
  if (c.links.length > 8) lines.push(`  … ${c.links.length - 8} more (--json)`);
  if (c.unresolved.length) lines.push(`  unresolved (kept, not forced onto a symbol): ${c.unresolved.join(', ')}`);
  for (const p of r.parts) {
    lines.push('');
    lines.push(`[${MEMORY_LABEL[p.memory]} · ${partTierWords(p)}]`);
    if (p.status !== 'answered') {
      lines.push(`  ${p.summary}`);
      continue;
    }
    for (const l of p.text.split('\n').slice(0, 30)) lines.push(`  ${l}`);
  }
  lines.push('');
  lines.push(`Outcomes: ${OUTCOME_MEANING}. Conclusions: ${CONCLUSION_MEANING}. Structural counts are lower bounds.`);
  return lines.join('\n');
}

/** The catalog entry; `tools` is the catalog itself, read when called, so ask reaches the knowledge tools by name. */
export function askToolSpec(tools: () => readonly ToolSpec[]): ToolSpec<typeof AskInput> {
  return {
    name: 'ask',
    title: 'Ask all of Tenure\'s memories',
    summary: 'One answer from every memory: what breaks (structural), why it is this way (knowledge), what happened before (episodic), which rules apply (procedural) — each part labelled with its memory and tier.',
    modelDescription:
      'Call this when you are about to change something and want the whole picture in one call: "I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?" ' +
      'Tenure links the question\'s concepts to symbols (link tiers: exact, strong, weak = a set to verify, unresolved = kept but matched to nothing), then answers from each memory: ' +
      'structural (dependents by edge tier, a lower bound), knowledge (decisions, incidents and constraints with their sources), episodic (earlier attempts with outcomes decided by the build system — high confidence — and agents\' conclusions — low, decaying), ' +
      'procedural (learned rules the change triggers, with their standing: promoted by a person, proposed, or candidate). Each part says which memory produced it and how far to trust it. ' +
      'Pass `symbol` when you know the exact symbol.',
    input: AskInput,
    cli: { command: 'ask', aliases: [], positional: 'question' },
    readOnly: true,
    async run(ctx, input) {
      const result = await ask(ctx, tools().filter((t) => t.name !== 'ask'), input);
      return { data: result, text: renderAsk(result) };
    },
  };
}
