import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import { TenureError, errorMessage } from '../../shared/errors.js';
import type { ToolContext, ToolResult, ToolSpec } from '../tools/types.js';
import type { ConceptLink } from './askLink.js';
import type { SymbolRef } from '../model/symbolRef.js';

/*
 * The knowledge memory, as ask sees it: through the tool catalog, by name
 * (why_is_this, related_by_intent), so ask composes whatever the knowledge
 * memory answers without depending on its internals. When the tools are not
 * in this build, or their tables are empty, ask says so in that part.
 */

export const KNOWLEDGE_EMPTY = 'knowledge memory empty: run tenure knowledge index';

export interface KnowledgeAnswer {
  readonly status: 'answered' | 'empty' | 'unavailable';
  readonly text: string;
  readonly data: unknown;
  /** Link tiers found in the answer, counted. */
  readonly tiers: Partial<Record<LinkTier, number>>;
  readonly note: string | null;
}

function isLinkTier(v: unknown): v is LinkTier {
  return typeof v === 'string' && (LINK_TIERS as readonly string[]).includes(v);
}

/** Every object in a result that carries a link tier, with the symbol id near it when there is one. */
export function tieredItems(data: unknown, max = 2000): { tier: LinkTier; sid: string | null; node: Record<string, unknown> }[] {
  const out: { tier: LinkTier; sid: string | null; node: Record<string, unknown> }[] = [];
  const seen = new Set<unknown>();
  const walk = (v: unknown, depth: number) => {
    if (out.length >= max || depth > 8 || !v || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    const tier = [o['linkTier'], o['link_tier'], o['tier']].find(isLinkTier);
    if (tier) {
      const sym = o['symbol'] as Record<string, unknown> | undefined;
      const sid = typeof o['sid'] === 'string' ? o['sid'] : typeof sym?.['sid'] === 'string' ? (sym['sid'] as string) : null;
      out.push({ tier, sid, node: o });
    }
    for (const x of Object.values(o)) walk(x, depth + 1);
  };
  walk(data, 0);
  return out;
}

function looksEmpty(e: unknown): boolean {
  const m = errorMessage(e);
  return TenureError.is(e, 'not-indexed') || /no such table|knowledge (memory|index)[^.]*(empty|not)|not been indexed|tenure knowledge index/i.test(m);
}

async function call(tool: ToolSpec, ctx: ToolContext, value: string): Promise<ToolResult> {
  const field = tool.cli.positional ?? Object.keys(tool.input.shape)[0] ?? 'symbol';
  const input = tool.input.parse({ [field]: value });
  return tool.run(ctx, input);
}

function find(tools: readonly ToolSpec[], name: string): ToolSpec | undefined {
  return tools.find((t) => t.name === name);
}

/** why_is_this for each focus symbol, or the reason there is no answer. */
export async function knowledgeReasons(tools: readonly ToolSpec[], ctx: ToolContext, symbols: readonly SymbolRef[]): Promise<KnowledgeAnswer> {
  const tool = find(tools, 'why_is_this');
  if (!tool) return { status: 'empty', text: `${KNOWLEDGE_EMPTY} (this build has no why_is_this tool)`, data: null, tiers: {}, note: 'why_is_this is not in the tool catalog' };
  const texts: string[] = [];
  const data: unknown[] = [];
  const tiers: Partial<Record<LinkTier, number>> = {};
  let empty = 0;
  for (const s of symbols) {
    try {
      const r = await call(tool, ctx, s.sid);
      // The knowledge memory's own flag for "nothing indexed yet".
      if ((r.data as { indexed?: unknown } | null)?.indexed === false) {
        empty++;
        continue;
      }
      texts.push(r.text);
      data.push({ symbol: s.sid, result: r.data });
      const items = tieredItems(r.data);
      if (!items.length) empty++;
      for (const i of items) tiers[i.tier] = (tiers[i.tier] ?? 0) + 1;
    } catch (e) {
      if (looksEmpty(e)) {
        empty++;
        continue;
      }
      texts.push(`why_is_this ${s.qname} failed: ${errorMessage(e)}`);
    }
  }
  if (empty === symbols.length && !texts.length) return { status: 'empty', text: KNOWLEDGE_EMPTY, data, tiers, note: null };
  return { status: 'answered', text: texts.join('\n'), data, tiers, note: null };
}

/** related_by_intent on each concept the question names: the knowledge memory's tiered links, or null when the tool is absent. */
export async function linkByKnowledge(
  tools: readonly ToolSpec[],
  ctx: ToolContext,
  phrases: readonly string[],
  lookup: (sid: string) => Promise<SymbolRef | undefined>,
): Promise<{ links: ConceptLink[]; unresolved: string[]; knowledgeIndexed: boolean } | null> {
  const tool = find(tools, 'related_by_intent');
  if (!tool) return null;
  const links = new Map<string, ConceptLink>();
  const unresolved: string[] = [];
  let knowledgeIndexed = false;
  const rank = (t: LinkTier) => LINK_TIERS.indexOf(t);
  for (const phrase of phrases) {
    let r: ToolResult;
    try {
      r = await call(tool, ctx, phrase);
    } catch (e) {
      if (looksEmpty(e) || TenureError.is(e, 'symbol-not-found') || TenureError.is(e, 'invalid-input')) continue;
      throw e;
    }
    if ((r.data as { knowledgeIndexed?: unknown } | null)?.knowledgeIndexed === true) knowledgeIndexed = true;
    for (const item of tieredItems(r.data)) {
      const label = [item.node['name'], item.node['entity'], item.node['qname'], item.node['text']].find((v) => typeof v === 'string') as string | undefined;
      if (item.tier === 'unresolved' || !item.sid) {
        if (item.tier === 'unresolved' && label) unresolved.push(label);
        continue;
      }
      const s = await lookup(item.sid);
      if (!s) continue;
      const reasons = item.node['reasons'];
      const why = Array.isArray(reasons) && typeof reasons[0] === 'string' ? (reasons[0] as string) : `linked by related_by_intent (${item.tier})`;
      const prev = links.get(s.sid);
      if (!prev || rank(item.tier) < rank(prev.tier)) links.set(s.sid, { symbol: s, tier: item.tier, phrase, why, score: 1 });
    }
  }
  return { links: [...links.values()].sort((a, b) => rank(a.tier) - rank(b.tier)), unresolved: [...new Set(unresolved)], knowledgeIndexed };
}
