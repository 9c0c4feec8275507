import { PROMPT_VERSIONS, localMessages, mapMessages, reduceMessages, type MapInput } from './prompts.js';
import { Answer, MapPoints } from './schemas.js';
import { queryEmbedder, searchChunks, searchEntities, searchReports } from './search.js';
import { offlineChatModel } from './offline.js';
import { HashingEmbedder } from '../llm/offline.js';
import { LlmRunner, approxTokens, type Spend } from '../llm/runner.js';
import type { ChatModel, Embedder } from '../llm/types.js';
import type { Db } from '../store/db.js';
import { knowledgeIndexed, quoteFrom, type Quotation } from './quotes.js';
import { standingOf } from './sources/recordStatus.js';
import { SqliteCallStore } from './store/calls.js';
import { loadReports, reportsAround, type ReportHit } from './store/communities.js';
import { chunkRow, type ChunkHit, type ChunkRow } from './store/documents.js';
import { chunksMentioning, chunksMentioningKeys, relationshipsAround } from './store/graph.js';

/*
 * Questions to the whole corpus. Global search (GraphRAG's): ask every
 * relevant community report (map), rank the partial answers, combine the best
 * (reduce) — for questions no single document answers ("recurring failure
 * modes in settlement"). Local search: start from the entities nearest the
 * question and answer from their neighbourhood — relationships, source
 * passages, their communities' reports. With no model both are extractive.
 */

export type AskMode = 'global' | 'local' | 'auto';

export interface AskOptions {
  readonly mode?: AskMode;
  readonly chat?: ChatModel;
  readonly embedders?: readonly Embedder[];
  /** Community level for global search; default: every level, ranked. */
  readonly level?: number;
  /** Reports mapped at most (ranked by relevance first). Default 24. */
  readonly maxReports?: number;
  /** Report context per map call, in tokens. Default 6000. */
  readonly mapContextTokens?: number;
  readonly budgetTokens?: number;
  readonly concurrency?: number;
  readonly db?: Db;
  readonly signal?: AbortSignal;
  readonly log?: (m: string) => void;
}

export interface AskResult {
  readonly question: string;
  readonly mode: 'global' | 'local';
  readonly answer: string;
  /** offline, or the model id that wrote the answer. */
  readonly answeredBy: string;
  readonly reports: readonly { id: number; level: number; title: string; rating: number }[];
  readonly points: readonly { description: string; score: number; reports: readonly number[] }[];
  readonly sources: readonly Quotation[];
  readonly extractedBy: readonly string[];
  readonly spend: Spend;
  readonly empty: boolean;
}

/** Questions about the corpus as a whole go global; questions about a named thing go local. */
export function chooseMode(question: string): 'global' | 'local' {
  return /\b(recurring|common|across|overall|themes?|patterns?|trends?|main|biggest|most|all|every|summar|overview|landscape|top)\b/i.test(question) ? 'global' : 'local';
}

export async function askKnowledge(db: Db, question: string, options: AskOptions = {}): Promise<AskResult> {
  const chat = options.chat ?? offlineChatModel();
  const runner = new LlmRunner(chat, options.embedders?.[0] ?? new HashingEmbedder(), {
    calls: new SqliteCallStore(db),
    ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const status = await knowledgeIndexed(db);
  const mode = !options.mode || options.mode === 'auto' ? chooseMode(question) : options.mode;
  const base = { question, mode, answeredBy: runner.offline ? 'offline' : chat.id, extractedBy: status.extractedBy };
  if (!status.documents) {
    return { ...base, answer: 'The knowledge memory is empty: run `tenure index` (offline) or `tenure knowledge index`, then ask again.', reports: [], points: [], sources: [], spend: { ...runner.spend }, empty: true };
  }
  const embedder = await queryEmbedder(db, options.embedders ?? []);
  return mode === 'global' ? globalSearch(db, runner, question, embedder, options, base) : localSearch(db, runner, question, embedder, base);
}

async function globalSearch(db: Db, runner: LlmRunner, question: string, embedder: Embedder | undefined, options: AskOptions, base: Omit<AskResult, 'answer' | 'reports' | 'points' | 'sources' | 'spend' | 'empty'>): Promise<AskResult> {
  const max = options.maxReports ?? 24;
  let reports: ReportHit[];
  if (runner.offline) {
    reports = (await searchReports(db, embedder, question, max, options.level)).map((r) => r.item);
  } else {
    // A model reads the reports, so rank to bound the cost, but keep more of them: the model decides relevance.
    const ranked = (await searchReports(db, embedder, question, max, options.level)).map((r) => r.item);
    const rest = (await loadReports(db, options.level)).filter((r) => !ranked.some((x) => x.communityId === r.communityId)).sort((a, b) => b.rating - a.rating);
    reports = [...ranked, ...rest].slice(0, max);
  }
  // Map: batches of reports that fit one context.
  // Offline, a batch costs nothing but its text matching on this thread: smaller batches keep each stretch short.
  const budget = options.mapContextTokens ?? (runner.offline ? 1500 : 6000);
  const batches: MapInput['reports'][number][][] = [];
  let current: MapInput['reports'][number][] = [];
  let used = 0;
  for (const r of reports) {
    const entry = { id: r.communityId, title: r.title, summary: r.summary, rating: r.rating, findings: r.findings.map((f) => ({ summary: f.summary, explanation: f.explanation, entities: [], relationships: [] })) };
    // Packing only needs a bound, and this runs on the query path (the extension host): by length, not the tokenizer.
    const cost = approxTokens(`${r.title}\n${r.summary}\n${r.findings.map((f) => f.explanation).join('\n')}`);
    if (current.length && used + cost > budget) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(entry);
    used += cost;
  }
  if (current.length) batches.push(current);
  const mapped = await Promise.all(
    batches.map((batch) =>
      runner.run({ task: 'global-map', promptVersion: PROMPT_VERSIONS.map, messages: runner.offline ? [] : mapMessages({ question, reports: batch }), input: { question, reports: batch }, schema: MapPoints, maxOutputTokens: 1500 }),
    ),
  );
  const merged = new Map<string, MapPoints['points'][number]>();
  for (const p of mapped.flatMap((m) => (m.ok ? m.value.points : []))) {
    if (p.score <= 0) continue;
    // The same finding reached through a parent and a child community is one point.
    const k = p.description.toLowerCase().replace(/\W+/g, ' ').trim();
    const seen = merged.get(k);
    if (seen) merged.set(k, { ...seen, score: Math.max(seen.score, p.score), reports: [...new Set([...seen.reports, ...p.reports])] });
    else merged.set(k, p);
  }
  const points = [...merged.values()].sort((a, b) => b.score - a.score).slice(0, 20);
  const reduced = await runner.run({
    task: 'global-reduce',
    promptVersion: PROMPT_VERSIONS.reduce,
    messages: runner.offline ? [] : reduceMessages({ question, points }),
    input: { question, points },
    schema: Answer,
    maxOutputTokens: 2000,
  });
  const usedIds = new Set(points.flatMap((p) => p.reports));
  const used2 = reports.filter((r) => usedIds.has(r.communityId));
  // Sources: the passages behind the findings of the reports used.
  const sources = await findingSources(db, used2, question);
  return {
    ...base,
    mode: 'global',
    answer: reduced.ok ? reduced.value.answer : `The model's answer was invalid and was dropped (${reduced.error}). The key points it was given are listed below.`,
    reports: used2.map((r) => ({ id: r.communityId, level: r.level, title: r.title, rating: r.rating })),
    points,
    sources,
    spend: { ...runner.spend },
    empty: false,
  };
}

async function findingSources(db: Db, reports: readonly ReportHit[], question: string): Promise<Quotation[]> {
  const keys = [...new Set(reports.flatMap((r) => r.findings.flatMap((f) => f.entityKeys)))].slice(0, 40);
  if (!keys.length) return [];
  const chunkIds = await chunksMentioningKeys(db, keys);
  const out: Quotation[] = [];
  const seenDoc = new Set<number>();
  for (const row of await rowsByStanding(db, await searchChunks(db, question, 6, chunkIds))) {
    if (seenDoc.has(row.doc_id)) continue;
    seenDoc.add(row.doc_id);
    out.push(quoteFrom(row, questionNeedles(question), undefined, 260));
  }
  return out;
}

/**
 * The chunks found, with their documents, best first by how well each matches times its record's standing: a
 * superseded or rejected decision still answers, below the records in force that answer as well.
 */
async function rowsByStanding(db: Db, hits: readonly ChunkHit[]): Promise<ChunkRow[]> {
  const rows: { row: ChunkRow; score: number }[] = [];
  for (const c of hits) {
    const row = await chunkRow(db, c.chunk_id);
    if (row) rows.push({ row, score: c.score * standingOf(row.status) });
  }
  return rows.sort((a, b) => b.score - a.score).map((r) => r.row);
}

function questionNeedles(question: string): string[] {
  return (question.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? []).filter((w) => !['what', 'which', 'where', 'when', 'does', 'there', 'their', 'about', 'have'].includes(w));
}

async function localSearch(db: Db, runner: LlmRunner, question: string, embedder: Embedder | undefined, base: Omit<AskResult, 'answer' | 'reports' | 'points' | 'sources' | 'spend' | 'empty'>): Promise<AskResult> {
  const hits = (await searchEntities(db, embedder, question, 8)).map((h) => h.item);
  const ids = hits.map((h) => h.id);
  const rels = await relationshipsAround(db, ids, 24);
  const around = await chunksMentioning(db, ids);
  let chunkHits = await searchChunks(db, question, 6, around.length ? around : undefined);
  if (!chunkHits.length) chunkHits = await searchChunks(db, question, 6);
  const chunks = await rowsByStanding(db, chunkHits);
  const reports = await reportsAround(db, ids, 3);
  const input = {
    question,
    entities: hits.map((h) => ({ name: h.name, type: h.type, description: h.description })),
    relationships: rels.map((r) => ({ source: r.source, target: r.target, description: r.description })),
    chunks: chunks.map((c, i) => ({ id: i + 1, source: c.ref ?? c.path ?? c.title, text: c.text })),
    reports: reports.map((r) => ({ title: r.title, summary: r.summary })),
  };
  const answer = await runner.run({ task: 'local-answer', promptVersion: PROMPT_VERSIONS.local, messages: runner.offline ? [] : localMessages(input), input, schema: Answer, maxOutputTokens: 2000 });
  return {
    ...base,
    mode: 'local',
    answer: answer.ok ? answer.value.answer : `The model's answer was invalid and was dropped (${answer.error}).`,
    reports: reports.map((r) => ({ id: r.id, level: r.level, title: r.title, rating: r.rating })),
    points: [],
    sources: chunks.map((c) => quoteFrom(c, questionNeedles(question), undefined, 260)),
    spend: { ...runner.spend },
    empty: false,
  };
}
