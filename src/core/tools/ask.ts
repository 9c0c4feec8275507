import * as z from 'zod';
import { ask, type AskResult, type SymbolAnswers } from '../compose/ask.js';
import type { ConceptLink } from '../compose/link.js';
import { clockFromEnv } from '../episodic/clock.js';
import type { HistoryEntry } from '../episodic/history.js';
import { CONCLUSION_MEANING, OUTCOME_MEANING } from '../episodic/model.js';
import { QUOTED_DATA_NOTE } from '../knowledge/quotes.js';
import { EDGE_TIERS, LINK_TIERS, type EdgeTier as EdgeTierT } from '../model/tiers.js';
import { isFileName } from '../structural/lookup.js';
import { RULE_STATUS_MEANING, type RuleStatus } from '../model/rules.js';
import { clip, fitToBudget, plural } from './budget.js';
import { LinkTier, QuoteView, RuleView, SymbolView, quoteLine, ruleLine, ruleView, symbolView } from './present.js';
import { defineTool } from './types.js';
import { ConclusionOut, conclusionOut, conclusionWords, linkWords, optionsFor } from './whatHappenedBefore.js';
import { kindLabel, quoteView, throughWords } from './whyIsThis.js';

/*
 * ask: one answer from every memory, within 2,000 tokens. The links first
 * (what the question was taken to be about, with link tiers), then one part
 * per memory, each with its tier words; a document or an attempt that bears
 * on several symbols is shown once.
 */

export const AskInput = z.object({
  question: z.string().min(1).max(2000).describe('The question, in words: "I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?"'),
  symbol: z.string().max(1000).optional().describe("The symbol the question is about, if known (name, id or path:line). Otherwise Tenure links the question's concepts to symbols and says how sure it is."),
  limit: z.number().int().min(1).max(50).default(6).describe('Most items each memory lists (default 6).'),
});

const LinkView = SymbolView.extend({ tier: LinkTier, phrase: z.string(), why: z.string() });
const Status = z.enum(['answered', 'empty', 'unavailable']);
const PartBase = z.object({
  status: Status,
  tier: z.string().describe("how far to trust the part, in the memory's terms: the weakest edge tier relied on, the weakest link tier, high (build-system outcomes), the best rule's standing"),
  tiers: z.record(z.string(), z.number().int()),
  summary: z.string(),
});
const StructuralPart = PartBase.extend({
  memory: z.literal('structural'),
  symbols: z.array(z.object({ symbol: SymbolView, link: LinkTier, summary: z.string(), dependents: z.array(z.object({ qname: z.string(), relation: z.string(), tier: z.string(), site: z.string() })) })),
});
const KnowledgePart = PartBase.extend({
  memory: z.literal('knowledge'),
  documents: z.array(z.object({ about: z.string(), category: z.string(), status: z.string().optional(), handle: z.string(), tier: LinkTier, how: z.string(), quote: QuoteView.optional() })),
  constraints: z.array(z.object({ type: z.string(), name: z.string(), tier: LinkTier, quote: QuoteView.optional() })),
});
const EpisodicPart = PartBase.extend({
  memory: z.literal('episodic'),
  attempts: z.array(z.object({ episode: z.number().int(), age: z.string(), kind: z.string(), status: z.string(), command: z.string().nullable(), link: z.string(), evidence: z.string().optional(), conclusions: z.array(ConclusionOut), stale: z.boolean() })),
});
const ProceduralPart = PartBase.extend({ memory: z.literal('procedural'), rules: z.array(RuleView) });

const AskOutput = z.object({
  question: z.string(),
  summary: z.string(),
  linkedBy: z.array(z.string()),
  phrases: z.array(z.string()),
  links: z.array(LinkView),
  unresolved: z.array(z.string()).describe('concepts no symbol denotes: kept, never forced onto a symbol'),
  missing: z.array(z.string()).describe('identifiers the question names that are not in the index'),
  note: z.string().nullable(),
  focus: z.array(z.object({ sid: z.string(), qname: z.string(), tier: LinkTier })),
  parts: z.array(z.discriminatedUnion('memory', [StructuralPart, KnowledgePart, EpisodicPart, ProceduralPart])),
});
export type AskOutput = z.infer<typeof AskOutput>;

function linkView(l: ConceptLink): z.infer<typeof LinkView> {
  return { ...symbolView(l.symbol), tier: l.tier, phrase: l.phrase, why: l.why };
}

function structuralPart(about: readonly SymbolAnswers[], focus: readonly ConceptLink[], limit: number): z.infer<typeof StructuralPart> {
  const answered = about.filter((a) => a.structural.data);
  if (!answered.length) return { memory: 'structural', status: 'empty', tier: 'none', tiers: {}, summary: 'No symbol to analyse: the question linked to none.', symbols: [] };
  const tiers: Record<string, number> = {};
  let worst = -1;
  for (const a of answered) {
    const r = a.structural.data!;
    for (const t of EDGE_TIERS) if (r.counts.byTier[t]) tiers[t] = (tiers[t] ?? 0) + r.counts.byTier[t];
    if (r.dynamicSites.length) tiers['dynamic sites'] = (tiers['dynamic sites'] ?? 0) + r.dynamicSites.length;
    for (const d of r.dependents) worst = Math.max(worst, EDGE_TIERS.indexOf(d.tier));
  }
  const per = Math.max(1, Math.floor(limit / answered.length));
  const symbols = answered.map((a, i) => {
    const r = a.structural.data!;
    const link = focus.find((f) => f.symbol.sid === a.symbol.sid)?.tier ?? 'exact';
    // The "not seen" clause is the same for every symbol: said once, with the first.
    const summary = `${r.target.qname} [${link} link]: ${i === 0 ? r.summary : r.summary.replace(/; not seen: .*$/, '.')}`;
    const dependents = r.dependents.filter((d) => d.distance === 1).slice(0, per).map((d) => ({ qname: d.symbol.qname, relation: d.kind, tier: d.tier, site: `${d.sites[0]!.path}:${d.sites[0]!.line}` }));
    return { symbol: symbolView(a.symbol), link, summary, dependents };
  });
  return { memory: 'structural', status: 'answered', tier: worst < 0 ? 'none' : (EDGE_TIERS[worst] as EdgeTierT), tiers, summary: symbols[0]!.summary, symbols };
}

function knowledgePart(about: readonly SymbolAnswers[], limit: number): z.infer<typeof KnowledgePart> {
  const results = about.map((a) => a.knowledge).filter((p) => p.data);
  const indexed = results.some((p) => p.data!.indexed);
  if (!indexed) return { memory: 'knowledge', status: 'empty', tier: 'none', tiers: {}, summary: about.find((a) => a.knowledge.hint)?.knowledge.hint ?? 'knowledge memory empty: run tenure knowledge index', documents: [], constraints: [] };
  const tiers: Record<string, number> = {};
  const documents: z.infer<typeof KnowledgePart>['documents'] = [];
  const constraints: z.infer<typeof KnowledgePart>['constraints'] = [];
  const seenDocs = new Set<number>();
  const seenConstraints = new Set<string>();
  for (const a of about) {
    const r = a.knowledge.data;
    if (!r) continue;
    for (const i of r.items) {
      tiers[i.tier] = (tiers[i.tier] ?? 0) + 1;
      // A document bearing on several focus symbols is quoted once, with the first.
      if (seenDocs.has(i.document.id)) continue;
      seenDocs.add(i.document.id);
      const anchor = i.anchors[0];
      const how = i.hops === 2 ? throughWords(i) : anchor ? (anchor.entityType === 'citation' ? anchor.reason : `"${anchor.entity}" → ${anchor.symbol.qname}`) : i.tier;
      documents.push({ about: r.target.qname, category: i.category, ...(i.status ? { status: i.status } : {}), handle: i.document.ref ?? i.document.title, tier: i.tier, how, ...(i.excerpts[0] ? { quote: quoteView(i.excerpts[0], 200) } : {}) });
    }
    for (const c of r.constraints) {
      tiers[c.tier] = (tiers[c.tier] ?? 0) + 1;
      if (seenConstraints.has(c.name)) continue;
      seenConstraints.add(c.name);
      constraints.push({ type: c.type, name: c.name, tier: c.tier, ...(c.sources[0] ? { quote: quoteView(c.sources[0], 160) } : {}) });
    }
  }
  if (!documents.length && !constraints.length) {
    return { memory: 'knowledge', status: 'empty', tier: 'none', tiers, summary: `No indexed document bears on ${about.map((a) => a.symbol.qname).join(', ')}.`, documents: [], constraints: [] };
  }
  const weakest = [...LINK_TIERS].reverse().find((t) => tiers[t]) ?? 'none';
  const first = about.find((a) => a.knowledge.data?.items.length || a.knowledge.data?.constraints.length)?.knowledge.data;
  // The reason in the team's words leads, as why_is_this gives it; else the summary of what bears on it.
  const lead = about.map((a) => a.knowledge.data?.lead).find((l) => l);
  const summary = lead ? `Why: "${clip(lead.quote.quote, 260)}" — ${lead.handle}, ${lead.tier}` : (first?.summary ?? '');
  return { memory: 'knowledge', status: 'answered', tier: weakest, tiers, summary, documents: documents.slice(0, limit), constraints: constraints.slice(0, Math.max(1, Math.ceil(limit / 2))) };
}

function episodicPart(about: readonly SymbolAnswers[], limit: number): z.infer<typeof EpisodicPart> {
  const byId = new Map<number, HistoryEntry>();
  let archived = 0;
  let looseConclusions = 0;
  for (const a of about) {
    const r = a.episodic.data;
    if (!r) continue;
    archived += r.counts.archived;
    looseConclusions += r.conclusions.length;
    for (const e of r.entries) if (!byId.has(e.episode.id) || byId.get(e.episode.id)!.weight < e.weight) byId.set(e.episode.id, e);
  }
  const entries = [...byId.values()].sort((a, b) => b.weight - a.weight);
  const tiers: Record<string, number> = {};
  const conclusions = entries.reduce((n, e) => n + e.conclusions.length, 0) + looseConclusions;
  if (entries.length) tiers['outcome: high'] = entries.length;
  if (conclusions) tiers['conclusion: low'] = conclusions;
  if (archived) tiers['archived'] = archived;
  if (!entries.length) {
    return { memory: 'episodic', status: 'empty', tier: 'none', tiers, summary: `No earlier attempt on these symbols or their neighbourhood is recorded${archived ? ` (${archived} archived about code that has changed since)` : ''}. No history is not evidence of safety.`, attempts: [] };
  }
  const failures = entries.filter((e) => e.outcome.status === 'failure' || e.outcome.status === 'rejected');
  const top = failures[0] ?? entries[0]!;
  const summary =
    `${plural(entries.length, 'earlier attempt')} on these symbols or their neighbourhood; ${failures.length} failed or rejected. ` +
    `Most relevant: ${top.episode.age}, ${top.outcome.kind} ${top.outcome.status}${top.outcome.evidence ? ` — ${clip(top.outcome.evidence.split('\n')[0]!, 200)}` : ''}.`;
  const attempts = entries.slice(0, limit).map((e) => ({
    episode: e.episode.id,
    age: e.episode.age,
    kind: e.outcome.kind,
    status: e.outcome.status,
    command: e.episode.command,
    link: linkWords(e.link),
    ...(e.outcome.evidence ? { evidence: clip(e.outcome.evidence.split('\n').slice(0, 2).join(' | '), 200) } : {}),
    conclusions: e.conclusions.slice(0, 2).map(conclusionOut),
    stale: e.drift.stale,
  }));
  return { memory: 'episodic', status: 'answered', tier: 'high', tiers, summary, attempts };
}

function proceduralPart(r: AskResult, limit: number): z.infer<typeof ProceduralPart> {
  if (!r.rules.length) return { memory: 'procedural', status: 'empty', tier: 'none', tiers: {}, summary: 'No learned rule is triggered by a change to these symbols.', rules: [] };
  const tiers: Record<string, number> = {};
  for (const x of r.rules) tiers[x.status] = (tiers[x.status] ?? 0) + 1;
  const best = r.rules[0]!;
  return {
    memory: 'procedural',
    status: 'answered',
    tier: best.status,
    tiers,
    summary: `${plural(r.rules.length, 'rule')} apply: ${best.text} (${best.status}: ${RULE_STATUS_MEANING[best.status as RuleStatus]})`,
    rules: r.rules.slice(0, Math.max(1, Math.ceil(limit / 2))).map(ruleView),
  };
}

export function presentAsk(r: AskResult, limit: number): AskOutput {
  const c = r.concept;
  const focus = r.focus.map((f) => ({ sid: f.symbol.sid, qname: f.symbol.qname, tier: f.tier }));
  const parts = [structuralPart(r.about, r.focus, limit), knowledgePart(r.about, limit), episodicPart(r.about, limit), proceduralPart(r, limit)];
  const summary = focus.length
    ? `"${r.question}" → ${focus.map((f) => `${f.qname} (${f.tier})`).join(', ')}; ${parts.filter((p) => p.status === 'answered').map((p) => p.memory).join(', ') || 'no memory'} answered.`
    : c.missing.length
      ? `${c.missing.map((m) => `\`${m}\``).join(', ')} ${c.missing.length === 1 ? 'names' : 'name'} no ${c.missing.every(isFileName) ? 'indexed file' : 'symbol in the index'}, and nothing else in the question links strongly enough to answer about: check the name, or pass --symbol with an id.`
      : `"${r.question}" links to no symbol in the index${c.unresolved.length ? ` (unresolved: ${c.unresolved.join(', ')})` : ''}. Name the symbol with --symbol, or ask about a name that exists.`;
  return {
    question: r.question,
    summary,
    linkedBy: [...c.linkedBy],
    phrases: [...c.phrases],
    links: c.links.slice(0, Math.max(3, limit)).map(linkView),
    unresolved: [...c.unresolved],
    missing: [...c.missing],
    note: c.note,
    focus,
    parts,
  };
}

const MEMORY_LABEL: Record<AskOutput['parts'][number]['memory'], string> = {
  structural: 'structural — what breaks',
  knowledge: 'knowledge — why it is this way',
  episodic: 'episodic — what happened before',
  procedural: 'procedural — how it is done here',
};

function partTierWords(p: AskOutput['parts'][number]): string {
  if (p.status !== 'answered') return p.status;
  switch (p.memory) {
    case 'structural':
      return `edge tiers ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ')}; weakest relied on: ${p.tier}; a lower bound`;
    case 'knowledge':
      return `link tiers ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ') || 'none reported'}`;
    case 'episodic':
      return 'outcomes high confidence (build system, never decay); conclusions low, decaying';
    case 'procedural':
      return `rule standing ${Object.entries(p.tiers).map(([t, n]) => `${t} ${n}`).join(', ')}`;
  }
}

function partLines(p: AskOutput['parts'][number]): string[] {
  switch (p.memory) {
    case 'structural':
      return p.symbols.flatMap((s) => [s.summary, ...s.dependents.map((d) => `  - ${d.qname} ${d.relation} ${s.symbol.qname} at ${d.site} [${d.tier}]`)]);
    case 'knowledge':
      return [
        ...(p.summary.startsWith('Why:') ? [p.summary] : []),
        ...p.documents.flatMap((d) => [`${kindLabel(d.category, d.status)} — ${d.handle} [${d.tier}: ${d.how}]`, ...(d.quote ? [`  > ${quoteLine(d.quote)}`] : [])]),
        ...p.constraints.map((c) => `${c.type} "${c.name}" [${c.tier === 'unresolved' ? 'unresolved — no symbol denotes it; kept' : c.tier}]${c.quote ? ` > ${quoteLine(c.quote)}` : ''}`),
        ...(p.documents.length ? [QUOTED_DATA_NOTE] : []),
      ];
    case 'episodic':
      return p.attempts.flatMap((a) => [
        `#${a.episode} · ${a.age} · ${a.kind} ${a.status}${a.command ? ` (\`${a.command}\`)` : ''} — ${a.link}`,
        ...(a.evidence ? [`   evidence (high confidence): ${a.evidence}`] : []),
        ...a.conclusions.map((c) => `   ${conclusionWords(c)}`),
        ...(a.stale ? ['   ⚠ the code it touched has changed since: may no longer apply'] : []),
      ]);
    case 'procedural':
      return p.rules.map(ruleLine);
  }
}

export function renderAsk(a: AskOutput): string {
  const lines = [`ask: ${a.question}`, a.summary];
  lines.push(`concepts ${a.phrases.map((p) => `"${p}"`).join(', ') || '(none)'} → symbols (${a.linkedBy.join(' + ') || 'nothing linked'}; link tiers: exact › strong › weak › unresolved)${a.note ? ` — ${a.note}` : ''}:`);
  if (!a.links.length) lines.push('  (no symbol linked)');
  for (const l of a.links) lines.push(`  - ${l.qname} [${l.tier}] ${l.kind} at ${l.at} — ${l.why}`);
  if (a.missing.length) lines.push(`  not in the index: ${a.missing.join(', ')}`);
  if (a.unresolved.length) lines.push(`  unresolved (kept, not forced onto a symbol): ${a.unresolved.join(', ')}`);
  for (const p of a.parts) {
    lines.push(`[${MEMORY_LABEL[p.memory]} · ${partTierWords(p)}]`);
    if (p.status !== 'answered') {
      lines.push(`  ${p.summary}`);
      continue;
    }
    for (const l of partLines(p)) lines.push(`  ${l}`);
  }
  lines.push(`Outcomes: ${OUTCOME_MEANING}. Conclusions: ${CONCLUSION_MEANING}. Structural counts are lower bounds.`);
  return lines.join('\n');
}

const BUDGET = 2000;

export const askTool = defineTool({
  name: 'ask',
  title: "Ask all of Tenure's memories",
  summary: 'One answer from every memory: what breaks (structural), why it is this way (knowledge), what happened before (episodic), which rules apply (procedural) — each part labelled with its memory and tier.',
  modelDescription:
    'Call this when you are about to change something and want the whole picture in one call: "I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?" ' +
    "Tenure resolves the identifiers the question names, links its concepts to symbols (link tiers: exact, strong, weak = a set to verify, unresolved = kept but matched to nothing), then answers from each memory: " +
    "structural (dependents by edge tier, a lower bound), knowledge (decisions, incidents and constraints with their sources), episodic (earlier attempts with outcomes decided by the build system — high confidence — and agents' conclusions — low, decaying), " +
    'procedural (learned rules the change triggers, with their standing: promoted by a person, proposed, or candidate). Each part says which memory produced it and how far to trust it. ' +
    'Pass `symbol` when you know the exact symbol; ask the single-memory tools for more of one part.',
  input: AskInput,
  output: AskOutput,
  cli: { command: 'ask', aliases: [], positional: 'question' },
  effects: { readOnly: true, idempotent: true },
  budgetTokens: BUDGET,
  async run(ctx, input) {
    const result = await ask(ctx.workspace, { question: input.question, ...(input.symbol ? { symbol: input.symbol } : {}) }, { clock: clockFromEnv(), options: optionsFor(ctx) });
    ctx.queried?.(result.focus.map((f) => f.symbol.sid));
    return fitToBudget((limit) => presentAsk(result, limit), renderAsk, input.limit, BUDGET);
  },
});
