import type { ConclusionView } from '../core/episodic/history.js';
import type { Quotation } from '../core/knowledge/quotes.js';
import type { WhyIsThisResult, WhyItem } from '../core/knowledge/why.js';

/*
 * What the "Why is this?" panel says first and what it folds, as plain
 * data: the answer (the recorded reason, quoted, with its source and tier),
 * the link rationales said once for all the documents that share them, and
 * ages in one style ("3 months ago"). No DOM: the panel (why.ts) draws it,
 * test/unit/webview.why.test.ts checks it on the settlement example.
 */

export interface Answer {
  readonly quote: Quotation;
  readonly category: string;
  /** Its record's own status when it is not simply in force (`superseded by ADR-0012`, `draft`). */
  readonly status?: string;
  readonly tier: string;
  /** The document is about the symbol itself, or about a neighbour (its class, a member). */
  readonly about: string;
}

/** The reason to read first: the knowledge memory's lead, else the first reason sentence any document gives. */
export function answerOf(k: WhyIsThisResult | null | undefined): Answer | undefined {
  if (!k) return undefined;
  if (k.lead) return { quote: k.lead.quote, category: k.lead.category, ...withStatus(k.lead.status), tier: k.lead.tier, about: k.lead.relation === 'self' ? k.target.qname : k.lead.handle };
  for (const item of k.items) {
    const q = item.reasons[0]?.quote;
    if (q) return { quote: q, category: item.category, ...withStatus(item.status), tier: item.tier, about: item.about?.qname ?? k.target.qname };
  }
  return undefined;
}

function withStatus(status: string | undefined): { status?: string } {
  return status ? { status } : {};
}

/** One sentence for how a document is tied to the symbol: what it names, what that resolves to, why. */
export function rationaleOf(item: WhyItem): string | undefined {
  const a = item.anchors[0];
  if (!a) return undefined;
  return `“${a.entity}” → ${a.symbol.qname} (${a.relation}): ${a.reason}`;
}

/**
 * Each distinct rationale once, with the documents it ties: the panel lists
 * them in one folded place instead of under every document.
 */
export function sharedRationales(items: readonly WhyItem[]): { text: string; documents: string[] }[] {
  const map = new Map<string, string[]>();
  for (const item of items) {
    const r = rationaleOf(item);
    if (!r) continue;
    const docs = map.get(r) ?? [];
    docs.push(item.document.ref ?? item.document.title);
    map.set(r, docs);
  }
  return [...map.entries()].map(([text, documents]) => ({ text, documents }));
}

/** "the agent’s own conclusion, 3 months ago: confidence 0.30 then, 0.00 now" — the age said as everywhere else in the panel. */
export function conclusionWords(c: ConclusionView): string {
  const who = c.authorKind === 'agent' ? 'the agent’s own conclusion' : `${c.author}’s note`;
  const then = c.confidence.initial.toFixed(2);
  const now = c.confidence.now.toFixed(2);
  return `${who}, ${c.age}, NOT an outcome — confidence ${then === now ? `${now}` : `${then} when written, ${now} now`}`;
}
