import { TenureError, errorMessage } from '../../shared/errors.js';
import type { Clock } from '../episodic/clock.js';
import { whatHappenedBefore, type HistoryResult } from '../episodic/history.js';
import type { MemoryOptions } from '../episodic/options.js';
import { whyIsThis, type WhyIsThisResult } from '../knowledge/why.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { LinkTier } from '../model/tiers.js';
import type { TriggeredRule } from '../model/rules.js';
import { episodeTotals } from '../episodic/store.js';
import { knowledgeIndexed } from '../knowledge/quotes.js';
import { rulesForChangeTo, triggeredRules } from '../procedural/hints.js';
import { ruleCountsByStatus } from '../procedural/store.js';
import type { Workspace } from '../store/workspace.js';
import { dispatchTotal, type WhatBreaksResult } from '../structural/impact/result.js';
import { whatBreaks } from '../structural/impact/whatBreaks.js';
import { resolveSymbols } from '../structural/lookup.js';
import { isIndexed } from '../structural/lookup.js';
import { conceptPhrases, identifiers, linkByKnowledge, linkByName, withoutFiles, writtenFiles, type ConceptLink } from './link.js';

/*
 * ask: the question no single memory answers. The question's identifiers
 * are resolved first, then its concepts are linked to symbols (by the
 * knowledge memory when it can, else by name, with link tiers either way);
 * then each memory answers about the symbols in focus through its own typed
 * API — structural impact, knowledge reasons, episodic history, the rules a
 * change there triggers — each part labelled with the memory that produced
 * it and how far to trust it. Rendering is the tool's (src/core/tools/ask.ts).
 */

export type Memory = 'structural' | 'knowledge' | 'episodic' | 'procedural';

/** One memory's answer about one symbol, or why there is none. */
export interface MemoryPart<T> {
  readonly status: 'answered' | 'empty' | 'unavailable';
  readonly data: T | null;
  /** For an empty or unavailable part: what it means and how to fill it. */
  readonly hint?: string;
}

/** What every memory knows about one symbol. */
export interface SymbolAnswers {
  readonly symbol: SymbolRef;
  readonly structural: MemoryPart<WhatBreaksResult>;
  readonly knowledge: MemoryPart<WhyIsThisResult>;
  readonly episodic: MemoryPart<HistoryResult>;
  /** Rules a change to it triggers (procedural memory). */
  readonly procedural: MemoryPart<readonly TriggeredRule[]>;
}

export interface AboutOptions {
  readonly clock: Clock;
  readonly options: MemoryOptions;
  /** Hops of dependents (what_breaks depth). */
  readonly depth?: number;
  /** Documents and attempts each memory returns at most. */
  readonly limit?: number;
  /** The line asked about, inside the symbol (the editor's cursor, a `path:line`): the knowledge memory leads with its comment. */
  readonly line?: number;
}

export const KNOWLEDGE_EMPTY = 'knowledge memory empty: run tenure knowledge index';

async function part<T>(fn: () => Promise<MemoryPart<T>>): Promise<MemoryPart<T>> {
  try {
    return await fn();
  } catch (e) {
    return { status: 'unavailable', data: null, hint: errorMessage(e) };
  }
}

/**
 * Every memory's answer about one symbol — the Why panel's and each of
 * ask's symbols. A memory that is empty in this repository says so and how
 * to fill it; one that has nothing about this symbol says what that does
 * not mean; one that fails says why, and the others still answer.
 */
export async function answerAbout(ws: Workspace, symbol: SymbolRef, o: AboutOptions): Promise<SymbolAnswers> {
  const db = ws.db;
  const structural = await part<WhatBreaksResult>(async () => {
    const r = await whatBreaks(db, symbol, o.depth ?? 2);
    const any = r.dependents.length || r.implementers.length || r.dynamicSites.length || dispatchTotal(r);
    return { status: any ? 'answered' : 'empty', data: r };
  });
  const knowledge = await part<WhyIsThisResult>(async () => {
    const r = await whyIsThis(db, symbol, o.limit ?? 8, { root: ws.root, ...(o.line !== undefined ? { line: o.line } : {}) });
    if (!r.indexed) return { status: 'empty', data: r, hint: `${KNOWLEDGE_EMPTY}. No decision record, post-mortem, pull-request export or commit message has been indexed in this repository. Index them offline (no model, no cost): \`tenure knowledge index\`, or “Tenure: Index Knowledge” in VS Code.` };
    if (r.items.length || r.constraints.length) return { status: 'answered', data: r };
    const { documents } = await knowledgeIndexed(db);
    return { status: 'empty', data: r, hint: `None of the ${documents} indexed documents names ${symbol.qname} or its type. That is not a reason to think there is none: the reason may live in a document Tenure has not read.` };
  });
  const episodic = await part<HistoryResult>(async () => {
    const r = await whatHappenedBefore(db, symbol, o.limit ?? 8, { clock: o.clock, options: o.options, root: ws.root });
    if (r.entries.length) return { status: 'answered', data: r };
    const { episodes } = await episodeTotals(db);
    return {
      status: 'empty',
      data: r,
      hint: episodes
        ? `None of the ${episodes} recorded attempts touched ${symbol.qname} or its neighbourhood. No history is not evidence of safety.`
        : 'No attempt has been recorded in this repository yet. Tenure records builds and tests run in the editor\'s terminal and with `tenure run -- <command>`; an exported episode file can be imported.',
    };
  });
  const procedural = await part<readonly TriggeredRule[]>(async () => {
    const rules = await rulesForChangeTo(db, symbol);
    if (rules.length) return { status: 'answered', data: rules };
    const known = Object.values(await ruleCountsByStatus(db)).reduce((a, b) => a + (b ?? 0), 0);
    return {
      status: 'empty',
      data: rules,
      hint: known
        ? `None of the ${known} learned rules is triggered by a change to ${symbol.qname}.`
        : 'No rule has been learned yet: rules are mined from recorded attempts (an ordering that keeps succeeding, a change that keeps failing) and written into AGENTS.md only after a person approves the diff.',
    };
  });
  return { symbol, structural, knowledge, episodic, procedural };
}

export interface AskQuestion {
  readonly question: string;
  /** The symbol the question is about, when the asker knows it (name, id or path:line). */
  readonly symbol?: string;
}

export interface ConceptLinks {
  /** How the links were made: the symbol argument, identifiers in the question, the knowledge memory, name matching. */
  readonly linkedBy: readonly string[];
  /** The concepts read from the question. */
  readonly phrases: readonly string[];
  readonly links: readonly ConceptLink[];
  /** Concepts no symbol denotes: kept, never forced onto a symbol. */
  readonly unresolved: readonly string[];
  /** Identifiers the question names that are not in the index. */
  readonly missing: readonly string[];
  readonly note: string | null;
}

export interface AskResult {
  readonly question: string;
  readonly concept: ConceptLinks;
  /** The symbols the answer is about (at most four, strongest links first). */
  readonly focus: readonly ConceptLink[];
  readonly about: readonly SymbolAnswers[];
  /** Rules a change to the focus symbols triggers (procedural memory). */
  readonly rules: readonly TriggeredRule[];
}

const MAX_FOCUS = 4;
const TIER_RANK: Record<LinkTier, number> = { exact: 0, strong: 1, weak: 2, unresolved: 3 };

async function linkQuestion(ws: Workspace, q: AskQuestion): Promise<ConceptLinks> {
  const { db, root } = ws;
  if (q.symbol) {
    const found = await resolveSymbols(db, q.symbol, { root });
    const tier: LinkTier = found.length === 1 ? 'exact' : 'weak';
    const links = found.map((s) => ({ symbol: s, tier, phrase: q.symbol!, why: found.length === 1 ? 'named by the symbol argument' : `the symbol argument matches ${found.length} symbols; all are used`, score: 1 }));
    return { linkedBy: ['symbol argument'], phrases: [q.symbol], links, unresolved: [], missing: [], note: null };
  }
  const phrases = conceptPhrases(withoutFiles(q.question));
  const k = await linkByKnowledge(db, phrases);
  const n = await linkByName(db, q.question, root);
  // The knowledge memory's links first; name matches add what it did not link, each with its own tier and reason.
  const seen = new Set(k.links.map((l) => l.symbol.sid));
  const fromIdentifier = new Map(n.links.filter((l) => l.identifier).map((l) => [l.symbol.sid, l]));
  // A symbol the question names as an identifier keeps that link (its tier and why) even where the knowledge memory linked it too,
  // and comes first: it is what the question is about, before what its phrases reach.
  const linked = [...k.links.map((l) => fromIdentifier.get(l.symbol.sid) ?? l), ...n.links.filter((l) => !seen.has(l.symbol.sid))];
  const links = [...linked.filter((l) => l.identifier), ...linked.filter((l) => !l.identifier)];
  const named = new Set([...identifiers(q.question), ...writtenFiles(q.question)]);
  const missing = n.unresolved.filter((u) => named.has(u));
  // A name the documents use that no symbol denotes for the knowledge memory, but that the question's identifier found by name, is not unresolved.
  const foundByName = new Set(n.links.filter((l) => l.identifier).map((l) => l.phrase));
  const linkedBy = [
    ...(n.links.some((l) => l.identifier) ? ['identifiers in the question'] : []),
    ...(k.links.length ? ['knowledge linking (related_by_intent)'] : []),
    ...(n.links.some((l) => !seen.has(l.symbol.sid) && !l.identifier) ? ['name match'] : []),
  ];
  // With no phrase to link, the knowledge memory was not asked: whether it is empty is read, not assumed.
  const knowledgeThere = k.knowledgeIndexed || (!phrases.length && (await knowledgeIndexed(db)).documents > 0);
  const note = !knowledgeThere ? `${KNOWLEDGE_EMPTY}: links come from symbol names, not from documents` : null;
  return { linkedBy, phrases, links, unresolved: [...new Set([...k.unresolved.filter((u) => !foundByName.has(u)), ...n.unresolved.filter((u) => !named.has(u))])], missing, note };
}

/**
 * The symbols the parts answer about. Identifiers the question names come
 * first; when it names one that is not in the index, the answer is about
 * nothing weaker than a strong link (a weak neighbour is not the subject).
 * No file-level module, nothing already covered by a focused container (its
 * members are in the container's impact and history), at most MAX_FOCUS.
 */
export function chooseFocus(c: Pick<ConceptLinks, 'links' | 'missing'>): ConceptLink[] {
  const floor = c.missing.length ? TIER_RANK.strong : TIER_RANK.weak;
  // An identifier the question writes (`GuStack.overrideLogicalId`, `Minter.Calc`) is its subject before anything its phrases link to — its class included.
  const byIdentifier = (l: ConceptLink) => (l.identifier ? 0 : 1);
  const sorted = [...c.links]
    .filter((l) => TIER_RANK[l.tier] <= floor)
    .sort((a, b) => byIdentifier(a) - byIdentifier(b) || TIER_RANK[a.tier] - TIER_RANK[b.tier] || (a.symbol.kind === 'module' ? 1 : 0) - (b.symbol.kind === 'module' ? 1 : 0) || b.score - a.score);
  const focus: ConceptLink[] = [];
  for (const l of sorted) {
    if (focus.length >= MAX_FOCUS) break;
    if (l.symbol.kind === 'module' && sorted.some((o) => o.symbol.kind !== 'module')) continue;
    if (focus.some((f) => f.symbol.path === l.symbol.path && l.symbol.qname.startsWith(`${f.symbol.qname}.`))) continue;
    focus.push(l);
  }
  return focus;
}

export async function ask(ws: Workspace, q: AskQuestion, o: AboutOptions): Promise<AskResult> {
  if (!(await isIndexed(ws.db))) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index`, then ask again.');
  const concept = await linkQuestion(ws, q);
  const focus = chooseFocus(concept);
  const about: SymbolAnswers[] = [];
  for (const link of focus) about.push(await answerAbout(ws, link.symbol, { ...o, limit: o.limit ?? 5 }));
  const rules = focus.length ? await triggeredRules(ws.db, { paths: [...new Set(focus.map((l) => l.symbol.path))], sids: focus.map((l) => l.symbol.sid) }) : [];
  return { question: q.question, concept, focus, about, rules };
}
