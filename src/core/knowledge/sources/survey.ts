import { linkableSymbolCount, phraseNames } from '../../structural/lookup.js';
import { LlmRunner, estimateTokens, messagesTokens } from '../../llm/runner.js';
import { HashingEmbedder } from '../../llm/offline.js';
import type { ChatModel } from '../../llm/types.js';
import type { Db } from '../../store/db.js';
import { chunkText, type ChunkOptions } from '../chunk.js';
import { buildGraph, type ChunkExtraction, type KnowledgeGraph } from '../graph.js';
import { csrFromEdges, hierarchicalLeiden, type HierarchicalCommunity } from '../leiden.js';
import { Vocabulary, offlineExtract } from '../offline.js';
import { PROMPT_VERSIONS, extractMessages, reportMessages, summarizeMessages } from '../prompts.js';
import { DOC_KINDS, type DocKind, type SourceDocument } from './document.js';
import { collectSources, type Skipped, type SourceOptions, type SourceSet } from './documents.js';
import { SqliteCallStore } from '../store/calls.js';
import { wordCount } from '../text.js';

/*
 * What the corpus holds and what indexing it will cost, before anything is
 * spent. Most document collections are thin — nine ADRs and "fix bug"
 * commits give a knowledge index nothing — and the survey says so. The cost
 * estimate comes from a dry run of the offline pipeline on the real documents
 * (chunks, entities, communities), priced with the model prompts' real sizes,
 * minus what the cache already holds.
 */

export interface SurveyOptions {
  readonly sources?: SourceOptions;
  readonly chunking?: ChunkOptions;
  /** Estimate for this model; undefined: offline (no calls). */
  readonly chat?: ChatModel;
  readonly embedderIsModel?: boolean;
  /** Dollars per million tokens, for a price estimate. */
  readonly price?: { readonly input: number; readonly output: number };
  readonly maxClusterSize?: number;
}

export interface CostEstimate {
  readonly model: string;
  readonly calls: { readonly extract: number; readonly summarize: number; readonly report: number; readonly total: number };
  /** Extraction calls the cache already answers. */
  readonly cachedExtract: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly embeddingTokens: number;
  readonly dollars?: number;
  /** How much to trust it. */
  readonly note: string;
}

export interface Survey {
  readonly documents: { readonly total: number; readonly byKind: Record<DocKind, number>; readonly words: number; readonly tokens: number; readonly bytes: number };
  readonly commits: { readonly seen: number; readonly informative: number; readonly contentFree: number; readonly fromGit: boolean };
  readonly skipped: readonly Skipped[];
  readonly chunks: number;
  /** From an offline dry run. */
  readonly graph: { readonly entities: number; readonly relationships: number; readonly communities: number };
  readonly thin: boolean;
  readonly warnings: readonly string[];
  readonly estimate?: CostEstimate;
  readonly ms: number;
}

interface SurveyChunk {
  readonly text: string;
  readonly tokens: number;
  readonly kind: string;
  readonly title: string;
  readonly ref?: string;
  readonly heading?: string;
}

interface DryRun {
  readonly byKind: Record<DocKind, number>;
  readonly words: number;
  readonly bytes: number;
  readonly tokens: number;
  readonly chunks: readonly SurveyChunk[];
  readonly graph: KnowledgeGraph;
  /** Entity keys in the order the communities' node numbers refer to. */
  readonly keys: readonly string[];
  /** Communities of two or more entities: the ones a report is written for. */
  readonly reportable: readonly HierarchicalCommunity[];
}

/** The offline pipeline on the real documents, in memory: chunks, entities, communities. */
function dryRun(documents: readonly SourceDocument[], vocabulary: Vocabulary, options: SurveyOptions): DryRun {
  const byKind = Object.fromEntries(DOC_KINDS.map((k) => [k, 0])) as Record<DocKind, number>;
  let words = 0;
  let bytes = 0;
  let tokens = 0;
  const items: ChunkExtraction[] = [];
  const chunks: SurveyChunk[] = [];
  documents.forEach((d, docId) => {
    byKind[d.kind]++;
    words += wordCount(d.text);
    bytes += Buffer.byteLength(d.text);
    for (const c of chunkText(d.text, options.chunking ?? {})) {
      tokens += c.tokens;
      chunks.push({ text: c.text, tokens: c.tokens, kind: d.kind, title: d.title, ...(d.ref ? { ref: d.ref } : {}), ...(c.heading ? { heading: c.heading } : {}) });
      items.push({ chunkId: chunks.length, docId, extractedBy: 'offline', extraction: offlineExtract({ text: c.text, doc: { kind: d.kind, title: d.title, ...(d.ref ? { ref: d.ref } : {}) }, vocabulary }) });
    }
  });
  const graph = buildGraph(items, documents.map((d, id) => ({ id, title: d.title, kind: d.kind, ...(d.ref ? { ref: d.ref } : {}) })));
  const keys = [...graph.entities.keys()].sort();
  const idx = new Map(keys.map((k, i) => [k, i]));
  const rels = [...graph.relationships.values()];
  const communities = keys.length
    ? hierarchicalLeiden(csrFromEdges(keys.length, rels.map((r) => idx.get(r.a)!), rels.map((r) => idx.get(r.b)!), rels.map((r) => r.weight)), { maxClusterSize: options.maxClusterSize ?? 10 })
    : [];
  return { byKind, words, bytes, tokens, chunks, graph, keys, reportable: communities.filter((c) => c.nodes.length >= 2) };
}

/** What the corpus lacks, said before anything is spent. */
function corpusWarnings(run: DryRun, commits: SourceSet['commits'], symbols: number): { thin: boolean; warnings: string[] } {
  const { byKind, words } = run;
  const decisions = byKind.adr + byKind.rfc + byKind.design;
  const incidents = byKind.postmortem;
  const discussions = byKind.pr + byKind.issue;
  const reasons = decisions + incidents + discussions + commits.informative;
  const warnings: string[] = [];
  const thin = words < 3000 || reasons < 5;
  if (thin) {
    warnings.push(
      `Thin corpus: ${decisions} decision record${decisions === 1 ? '' : 's'}, ${incidents} post-mortem${incidents === 1 ? '' : 's'}, ${discussions} PR/issue thread${discussions === 1 ? '' : 's'}, ${commits.informative} informative commit${commits.informative === 1 ? '' : 's'}, ${words.toLocaleString('en-US')} words. The knowledge index will have little to say; a model pass will not change that. Export PR threads (GitHub REST JSON into exports/) or write down decisions first.`,
    );
  }
  if (commits.seen >= 10 && commits.contentFree / commits.seen > 0.7) {
    warnings.push(`${commits.contentFree} of ${commits.seen} commits say nothing ("fix", "wip", merges, bumps) and are left out.`);
  }
  if (!commits.fromGit && commits.seen === 0) warnings.push('No commit history: this folder is not in a git repository and no commit export was found.');
  if (!symbols) warnings.push('No structural index yet: entities cannot be linked to symbols until `tenure index` has run.');
  return { thin, warnings };
}

/** What a model pass would cost: extraction counted from the real prompts (minus cached calls), the rest from the dry run. */
async function costEstimate(chat: ChatModel, run: DryRun, db: Db | undefined, options: SurveyOptions): Promise<CostEstimate> {
  const runner = new LlmRunner(chat, new HashingEmbedder(), db ? { calls: new SqliteCallStore(db) } : {});
  let input = 0;
  let output = 0;
  let extract = 0;
  let cachedExtract = 0;
  for (const c of run.chunks) {
    const messages = extractMessages({ text: c.text, doc: { kind: c.kind, title: c.title, ...(c.ref ? { ref: c.ref } : {}) }, ...(c.heading ? { heading: c.heading } : {}) });
    if (db && (await runner.isCached({ task: 'extract-graph', promptVersion: PROMPT_VERSIONS.extract, messages }))) {
      cachedExtract++;
      continue;
    }
    extract++;
    input += messagesTokens(messages);
    output += Math.min(4000, 200 + Math.round(0.9 * c.tokens));
  }
  const summarizeOverhead = messagesTokens(summarizeMessages({ name: '', type: '', descriptions: [] }));
  let summarize = 0;
  for (const e of run.graph.entities.values()) {
    if (e.descriptions.length < 2) continue;
    summarize++;
    input += summarizeOverhead + e.descriptions.reduce((n, d) => n + estimateTokens(d) + 2, 0);
    output += 180;
  }
  for (const r of run.graph.relationships.values()) {
    if (r.descriptions.length < 2) continue;
    summarize++;
    input += summarizeOverhead + r.descriptions.reduce((n, d) => n + estimateTokens(d) + 2, 0);
    output += 150;
  }
  const reportOverhead = messagesTokens(reportMessages({ level: 0, entities: [], relationships: [] }));
  for (const c of run.reportable) {
    let ctx = 0;
    for (const n of c.nodes) ctx += estimateTokens(run.graph.entities.get(run.keys[n]!)!.description) + 12;
    input += reportOverhead + Math.min(6000, ctx * 2);
    output += 900;
  }
  // Entities and reports are embedded (chunks are ranked by full-text search).
  const embeddingTokens = options.embedderIsModel ? [...run.graph.entities.values()].reduce((n, e) => n + estimateTokens(e.description) + 8, 0) + run.reportable.length * 500 : 0;
  const dollars = options.price ? (input / 1e6) * options.price.input + (output / 1e6) * options.price.output : undefined;
  return {
    model: chat.id,
    calls: { extract, summarize, report: run.reportable.length, total: extract + summarize + run.reportable.length },
    cachedExtract,
    inputTokens: input,
    outputTokens: output,
    embeddingTokens,
    ...(dollars !== undefined ? { dollars } : {}),
    note: 'Extraction is counted exactly (prompt sizes from the real chunks, minus cached calls); summaries and reports are estimated from an offline dry run of the graph, so expect ±50%. Retries and repairs add to it; the token budget caps it.',
  };
}

export async function surveyKnowledge(root: string, db: Db | undefined, options: SurveyOptions = {}): Promise<Survey> {
  const t0 = performance.now();
  const set = await collectSources(root, options.sources ?? {});
  // A database without the structural tables yet has no symbols to name.
  const names = db ? await phraseNames(db).catch(() => []) : [];
  const symbols = db ? await linkableSymbolCount(db).catch(() => 0) : 0;
  const run = dryRun(set.documents, new Vocabulary(names), options);
  const { thin, warnings } = corpusWarnings(run, set.commits, symbols);
  const estimate = options.chat && options.chat.provider !== 'offline' ? await costEstimate(options.chat, run, db, options) : undefined;
  return {
    documents: { total: set.documents.length, byKind: run.byKind, words: run.words, tokens: run.tokens, bytes: run.bytes },
    commits: set.commits,
    skipped: set.skipped,
    chunks: run.chunks.length,
    graph: { entities: run.graph.entities.size, relationships: run.graph.relationships.size, communities: run.reportable.length },
    thin,
    warnings,
    ...(estimate ? { estimate } : {}),
    ms: performance.now() - t0,
  };
}

export function renderSurvey(s: Survey): string {
  const kinds = DOC_KINDS.filter((k) => s.documents.byKind[k]).map((k) => `${KIND_WORDS[k]} ${s.documents.byKind[k]}`);
  const lines = [
    `Documents: ${s.documents.total} (${kinds.join(', ') || 'none'}); ${s.documents.words.toLocaleString('en-US')} words, ${s.documents.tokens.toLocaleString('en-US')} tokens, ${s.chunks} chunks.`,
    `Commits: ${s.commits.seen} seen${s.commits.fromGit ? ' (git log)' : ''}, ${s.commits.informative} informative, ${s.commits.contentFree} content-free (left out).`,
    `Offline dry run: ${s.graph.entities} entities, ${s.graph.relationships} relationships, ${s.graph.communities} communities to report on.`,
  ];
  if (s.skipped.length) lines.push(`Skipped: ${s.skipped.slice(0, 5).map((x) => `${x.path} (${x.reason})`).join('; ')}${s.skipped.length > 5 ? `; … ${s.skipped.length - 5} more` : ''}`);
  for (const w of s.warnings) lines.push(`Warning: ${w}`);
  if (s.estimate) {
    const e = s.estimate;
    lines.push(
      `Model pass with ${e.model}: about ${e.calls.total.toLocaleString('en-US')} calls (${e.calls.extract} extraction${e.cachedExtract ? ` + ${e.cachedExtract} already cached` : ''}, ${e.calls.summarize} description merges, ${e.calls.report} community reports), ~${e.inputTokens.toLocaleString('en-US')} input and ~${e.outputTokens.toLocaleString('en-US')} output tokens${e.embeddingTokens ? `, ~${e.embeddingTokens.toLocaleString('en-US')} embedding tokens` : ''}${e.dollars !== undefined ? `, about $${e.dollars.toFixed(2)}` : ''}.`,
      e.note,
    );
  } else {
    lines.push('Offline pass: no model calls, no cost. Name a model (`--model`) to see what a model pass would cost.');
  }
  return lines.join('\n');
}

const KIND_WORDS: Record<DocKind, string> = {
  adr: 'decision records',
  postmortem: 'post-mortems',
  rfc: 'RFCs',
  design: 'design docs',
  pr: 'PR threads',
  issue: 'issues',
  commit: 'informative commits',
  readme: 'READMEs',
  changelog: 'changelogs',
  doc: 'other docs',
};
