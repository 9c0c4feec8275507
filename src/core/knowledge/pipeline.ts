import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Graph from 'graphology';
import { LlmError } from '../llm/errors.js';
import { HashingEmbedder, OFFLINE_MODEL_ID, OfflineChatModel } from '../llm/offline.js';
import { LlmRunner, estimateTokens, sha256, type Spend } from '../llm/runner.js';
import type { ChatModel, Embedder } from '../llm/types.js';
import { linkEntity } from '../linking/link.js';
import { SymbolIndex } from '../linking/symbolIndex.js';
import { loadSymbolIndex } from '../structural/lookup.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import { insertRows } from '../store/bulk.js';
import type { Db } from '../store/db.js';
import type { Workspace } from '../store/workspace.js';
import { chunkText, type ChunkOptions } from './chunk.js';
import { buildGraph, descriptionsKey, pairKey, type ChunkExtraction, type KnowledgeGraph } from './graph.js';
import { csrFromGraphology, hierarchicalLeiden } from './leiden.js';
import { OFFLINE_HANDLERS, Vocabulary, offlineExtract, type OfflineExtractInput } from './offline.js';
import { PROMPT_VERSIONS, extractMessages, reportMessages, summarizeMessages, type ReportInput } from './prompts.js';
import { Extraction, Report, Summary, type Finding } from './schemas.js';
import { collectSources, type DocKind, type SourceDocument, type SourceOptions } from './sources/documents.js';
import { wordCount } from './text.js';

/*
 * The knowledge pipeline: an ordered list of named workflows, each reading and
 * writing tables (Microsoft GraphRAG's shape):
 *
 *   load_documents          sources → kn_documents, kn_chunks (changed documents only)
 *   extract_graph           chunk → entities and relationships (model)        kn_extractions, per batch
 *   summarize_descriptions  many descriptions of one thing → one (model)      kn_summaries, per batch
 *   finalize_graph          the graph tables, rebuilt from the above (no model)
 *   link_symbols            entities → structural symbols, tiered; code citing documents
 *   cluster_graph           hierarchical Leiden (no model)                    kn_communities
 *   community_reports       bottom-up reports (model)                         kn_reports, per batch
 *   embed                   vectors for entities, reports, chunks             kn_embeddings, per batch
 *
 * Resumable: every model result is written as its batch completes and keyed
 * by content (chunk hash, description set, community content, text hash), so
 * a run that is killed or stops at its token budget is continued by running
 * again, re-spending at most the batch in flight — and every call is also in
 * llm_cache. Incremental: only changed documents are re-chunked; only chunks,
 * descriptions and communities whose content changed cost a model call; the
 * rest of the graph is rebuilt from stored results in milliseconds.
 */

export const WORKFLOWS = ['load_documents', 'extract_graph', 'summarize_descriptions', 'finalize_graph', 'link_symbols', 'cluster_graph', 'community_reports', 'embed'] as const;
export type WorkflowName = (typeof WORKFLOWS)[number];

export interface KnowledgeIndexOptions {
  /** Default: the offline model. */
  readonly chat?: ChatModel;
  /** Default: the offline hashing embedder. */
  readonly embedder?: Embedder;
  readonly sources?: SourceOptions;
  /** Use these documents instead of reading sources (tests; VS Code's live GitHub fetch). */
  readonly documents?: readonly SourceDocument[];
  readonly chunking?: ChunkOptions;
  readonly clustering?: { readonly maxClusterSize?: number; readonly resolution?: number; readonly seed?: number };
  /** Tokens (prompt + reply) this run may spend on model calls. Default: no limit. */
  readonly budgetTokens?: number;
  /** Model calls in flight. Default 4. */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  /** Items per written batch. Default: 4 × concurrency for model calls. */
  readonly batchSize?: number;
  /** Try again chunks whose extraction was dropped as invalid. */
  readonly retryDropped?: boolean;
  /** Merge relationship descriptions too (GraphRAG does). Default true. */
  readonly summarizeRelationships?: boolean;
  /** Embed chunk texts as well as entities and reports. Default false: search ranks chunks with SQLite FTS5 (BM25). */
  readonly embedChunks?: boolean;
  /** Largest report context in tokens. Default 6000. */
  readonly reportContextTokens?: number;
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  readonly onProgress?: (progress: { workflow: WorkflowName; done: number; total: number }) => void;
}

export interface WorkflowReport {
  readonly name: WorkflowName;
  readonly status: 'done' | 'stopped' | 'failed' | 'skipped';
  readonly ms: number;
  readonly stats: Record<string, number | string>;
}

export interface KnowledgeIndexReport {
  readonly runId: number;
  readonly mode: 'offline' | 'model';
  readonly model: string;
  readonly embedder: string;
  readonly status: 'done' | 'stopped' | 'failed';
  readonly message?: string;
  readonly documents: { total: number; added: number; changed: number; removed: number; unchanged: number; byKind: Partial<Record<DocKind, number>>; words: number };
  readonly chunks: number;
  readonly entities: number;
  readonly relationships: number;
  readonly communities: { total: number; levels: number; reported: number };
  readonly reports: { generated: number; reused: number; dropped: number };
  readonly links: Record<LinkTier, number>;
  readonly workflows: readonly WorkflowReport[];
  readonly spend: Spend;
  readonly ms: number;
}

interface Context {
  readonly ws: Workspace;
  readonly db: Db;
  readonly runner: LlmRunner;
  readonly options: KnowledgeIndexOptions;
  readonly runId: number;
  readonly batch: number;
  graph?: KnowledgeGraph;
  vocabulary?: Vocabulary;
  symbols?: SymbolIndex;
  docStats?: KnowledgeIndexReport['documents'];
  reportStats: { generated: number; reused: number; dropped: number };
  /** Content fingerprint of the graph this run built, and whether it equals the last completed run's. */
  graphHash?: string;
  graphUnchanged?: boolean;
  symbolsHash?: string;
}

export function offlineChatModel(): ChatModel {
  return new OfflineChatModel(OFFLINE_HANDLERS);
}

/**
 * Builds or updates the knowledge memory. With no model given it runs the
 * offline pass (no network, no key); with one, model calls go through the
 * runner's cache, budget, retries and validation.
 */
export async function indexKnowledge(ws: Workspace, options: KnowledgeIndexOptions = {}): Promise<KnowledgeIndexReport> {
  const t0 = performance.now();
  const chat = options.chat ?? offlineChatModel();
  const embedder = options.embedder ?? new HashingEmbedder();
  const mode = chat.provider === 'offline' ? 'offline' : 'model';
  const db = ws.db;
  const { lastID: runId } = await db.write((d) =>
    d.run('INSERT INTO kn_runs (started_at, mode, model, embedder, status, budget_tokens) VALUES (?, ?, ?, ?, ?, ?)', [Date.now(), mode, chat.id, embedder.id, 'running', options.budgetTokens ?? null]),
  );
  const runner = new LlmRunner(chat, embedder, {
    db,
    runId,
    ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.baseDelayMs !== undefined ? { baseDelayMs: options.baseDelayMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const ctx: Context = {
    ws,
    db,
    runner,
    options,
    runId,
    batch: options.batchSize ?? (mode === 'offline' ? 2000 : Math.max(1, (options.concurrency ?? 4) * 4)),
    reportStats: { generated: 0, reused: 0, dropped: 0 },
  };
  const steps: Record<WorkflowName, (c: Context) => Promise<Record<string, number | string>>> = {
    load_documents: loadDocuments,
    extract_graph: extractGraph,
    summarize_descriptions: summarizeDescriptions,
    finalize_graph: finalizeGraph,
    link_symbols: linkSymbols,
    cluster_graph: clusterGraph,
    community_reports: communityReports,
    embed: embed,
  };
  const workflows: WorkflowReport[] = [];
  let status: KnowledgeIndexReport['status'] = 'done';
  let message: string | undefined;
  for (const name of WORKFLOWS) {
    if (status !== 'done') {
      workflows.push({ name, status: 'skipped', ms: 0, stats: {} });
      continue;
    }
    const ws0 = performance.now();
    await db.write((d) => d.run('INSERT OR REPLACE INTO kn_workflows (run_id, name, status, started_at) VALUES (?, ?, ?, ?)', [runId, name, 'running', Date.now()]));
    let wStatus: WorkflowReport['status'] = 'done';
    let stats: Record<string, number | string> = {};
    try {
      stats = await steps[name](ctx);
    } catch (e) {
      if (LlmError.is(e, 'budget') || LlmError.is(e, 'cancelled')) {
        wStatus = 'stopped';
        status = 'stopped';
        message = LlmError.is(e, 'budget') ? `${e.message} Work done so far is stored; run again with a larger budget to continue.` : 'Cancelled; work done so far is stored.';
      } else {
        wStatus = 'failed';
        status = 'failed';
        message = `${name} failed: ${e instanceof Error ? e.message : String(e)}`;
      }
      stats = { ...stats, error: message };
    }
    const ms = performance.now() - ws0;
    workflows.push({ name, status: wStatus, ms, stats });
    await db.write((d) => d.run('UPDATE kn_workflows SET status = ?, finished_at = ?, stats = ? WHERE run_id = ? AND name = ?', [wStatus, Date.now(), JSON.stringify({ ...stats, ms: Math.round(ms) }), runId, name]));
    options.log?.(`knowledge ${name}: ${wStatus} in ${Math.round(ms)} ms ${JSON.stringify(stats)}`);
  }

  const counts = await db.get<{ docs: number; chunks: number; entities: number; rels: number; comms: number; levels: number }>(
    `SELECT (SELECT count(*) FROM kn_documents) AS docs, (SELECT count(*) FROM kn_chunks) AS chunks, (SELECT count(*) FROM kn_entities) AS entities,
            (SELECT count(*) FROM kn_relationships) AS rels, (SELECT count(*) FROM kn_communities) AS comms, (SELECT count(DISTINCT level) FROM kn_communities) AS levels`,
  );
  const linkRows = await db.all<{ tier: LinkTier; n: number }>('SELECT tier, count(DISTINCT entity_id) AS n FROM kn_links GROUP BY tier');
  const links = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  for (const r of linkRows) links[r.tier] = r.n;
  const reported = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_communities c WHERE EXISTS (SELECT 1 FROM kn_reports r WHERE r.content_hash = c.content_hash)');
  const report: KnowledgeIndexReport = {
    runId,
    mode,
    model: chat.id,
    embedder: embedder.id,
    status,
    ...(message ? { message } : {}),
    documents: ctx.docStats ?? { total: counts?.docs ?? 0, added: 0, changed: 0, removed: 0, unchanged: counts?.docs ?? 0, byKind: {}, words: 0 },
    chunks: counts?.chunks ?? 0,
    entities: counts?.entities ?? 0,
    relationships: counts?.rels ?? 0,
    communities: { total: counts?.comms ?? 0, levels: counts?.levels ?? 0, reported: reported?.n ?? 0 },
    reports: ctx.reportStats,
    links,
    workflows,
    spend: { ...runner.spend },
    ms: performance.now() - t0,
  };
  await db.write(async (d) => {
    await d.run('UPDATE kn_runs SET finished_at = ?, status = ?, spent_tokens = ?, message = ?, report = ? WHERE id = ?', [Date.now(), status, runner.spentTokens, message ?? null, JSON.stringify(report), runId]);
    if (status === 'done') {
      await d.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('knowledge.indexedAt', ?)", [String(Date.now())]);
      // Recorded only when every workflow finished: a later run may then skip the graph workflows when nothing changed.
      if (ctx.graphHash) await d.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('knowledge.graphHash', ?)", [ctx.graphHash]);
      if (ctx.symbolsHash) await d.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('knowledge.symbolsHash', ?)", [ctx.symbolsHash]);
    } else {
      await d.run("DELETE FROM meta WHERE key IN ('knowledge.graphHash', 'knowledge.symbolsHash')");
    }
  });
  return report;
}

/** insertRows, replacing rows with the same key: caches written by a run that another run already filled. */
async function replaceRows(db: Db, table: string, columns: readonly string[], rows: readonly (string | number | null)[][]): Promise<void> {
  if (!rows.length) return;
  const select = columns.map((_, i) => `value->>${i}`).join(', ');
  for (let i = 0; i < rows.length; i += 2000) {
    await db.run(`INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) SELECT ${select} FROM json_each(?)`, [JSON.stringify(rows.slice(i, i + 2000))]);
  }
}

function checkSignal(ctx: Context): void {
  if (ctx.options.signal?.aborted) throw new LlmError('cancelled', 'Cancelled.');
}

// ---------------------------------------------------------------- load_documents

function docHash(d: SourceDocument): string {
  return sha256(JSON.stringify([d.kind, d.title, d.ref ?? '', d.url ?? '', d.text, d.sections ?? []]));
}

async function loadDocuments(ctx: Context): Promise<Record<string, number | string>> {
  const { db, ws, options } = ctx;
  const set = options.documents ? { documents: [...options.documents], skipped: [], commits: { seen: 0, informative: 0, contentFree: 0, fromGit: false } } : collectSources(ws.root, options.sources ?? {});
  const known = new Map((await db.all<{ id: number; source: string; hash: string }>('SELECT id, source, hash FROM kn_documents')).map((r) => [r.source, r]));
  const seen = new Set<string>();
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  let chunks = 0;
  let words = 0;
  const byKind: Partial<Record<DocKind, number>> = {};
  const work: SourceDocument[] = [];
  for (const d of set.documents) {
    if (seen.has(d.source)) continue;
    seen.add(d.source);
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
    words += wordCount(d.text);
    const k = known.get(d.source);
    if (k && k.hash === docHash(d)) {
      unchanged++;
      continue;
    }
    if (k) changed++;
    else added++;
    work.push(d);
  }
  const removed = [...known.values()].filter((k) => !seen.has(k.source));
  const total = work.length;
  for (let i = 0; i < work.length; i += 200) {
    checkSignal(ctx);
    const slice = work.slice(i, i + 200);
    const prepared = slice.map((d) => ({ d, chunks: chunkText(d.text, options.chunking ?? {}), hash: docHash(d) }));
    await db.write(async (w) => {
      for (const { d, chunks: cs, hash } of prepared) {
        const old = known.get(d.source);
        if (old) await w.run('DELETE FROM kn_documents WHERE id = ?', [old.id]);
        const { lastID } = await w.run(
          'INSERT INTO kn_documents (source, kind, title, ref, path, url, author, created_at, hash, words, tokens, sections, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [d.source, d.kind, d.title, d.ref ?? null, d.path ?? null, d.url ?? null, d.author ?? null, d.createdAt ?? null, hash, wordCount(d.text), cs.reduce((n, c) => n + c.tokens, 0), d.sections ? JSON.stringify(d.sections) : null, Date.now()],
        );
        await insertRows(
          w,
          'kn_chunks',
          ['doc_id', 'ord', 'hash', 'text', 'start', 'end', 'line_start', 'line_end', 'tokens', 'heading'],
          cs.map((c) => [lastID, c.ord, sha256(c.text), c.text, c.start, c.end, c.lineStart, c.lineEnd, c.tokens, c.heading ?? null]),
        );
        chunks += cs.length;
      }
    });
    options.onProgress?.({ workflow: 'load_documents', done: Math.min(total, i + 200), total });
  }
  if (removed.length) {
    await db.write(async (w) => {
      for (const r of removed) await w.run('DELETE FROM kn_documents WHERE id = ?', [r.id]);
    });
  }
  ctx.docStats = { total: seen.size, added, changed, removed: removed.length, unchanged, byKind, words };
  return { documents: seen.size, added, changed, removed: removed.length, unchanged, chunksWritten: chunks, skippedFiles: set.skipped.length, informativeCommits: set.commits.informative };
}

// ---------------------------------------------------------------- extract_graph

function extractorId(ctx: Context): string {
  return ctx.runner.offline ? offlineExtractorId(ctx) : `${ctx.runner.model.id}/${PROMPT_VERSIONS.extract}`;
}

function offlineExtractorId(ctx: Context): string {
  return `${OFFLINE_MODEL_ID}/${PROMPT_VERSIONS.extract}#${ctx.vocabulary!.fingerprint()}`;
}

async function ensureVocabulary(ctx: Context): Promise<void> {
  if (ctx.vocabulary) return;
  const hasSymbols = await ctx.db.get<{ n: number }>('SELECT count(*) AS n FROM symbols');
  ctx.symbols = hasSymbols?.n ? await loadSymbolIndex(ctx.db) : new SymbolIndex([]);
  ctx.vocabulary = new Vocabulary(ctx.symbols.phraseNames());
}

interface PendingChunk {
  hash: string;
  text: string;
  heading: string | null;
  kind: string;
  title: string;
  ref: string | null;
}

async function runBatches<T, R>(
  ctx: Context,
  workflow: WorkflowName,
  items: readonly T[],
  call: (item: T) => Promise<R>,
  write: (done: { item: T; result: R }[]) => Promise<void>,
): Promise<void> {
  let done = 0;
  for (let i = 0; i < items.length; i += ctx.batch) {
    checkSignal(ctx);
    const slice = items.slice(i, i + ctx.batch);
    const settled = await Promise.allSettled(slice.map(call));
    const ok: { item: T; result: R }[] = [];
    let stop: unknown;
    settled.forEach((s, k) => {
      if (s.status === 'fulfilled') ok.push({ item: slice[k]!, result: s.value });
      else stop ??= s.reason;
    });
    // Whatever finished is kept, even when the batch stops the run.
    if (ok.length) await write(ok);
    done += slice.length;
    ctx.options.onProgress?.({ workflow, done, total: items.length });
    if (stop) throw stop;
  }
}

async function extractGraph(ctx: Context): Promise<Record<string, number | string>> {
  await ensureVocabulary(ctx);
  const { db, runner } = ctx;
  const extractor = extractorId(ctx);
  // Offline passes leave chunks a model has already read alone: a model's extraction is better than ours.
  const modelDone = runner.offline ? "OR EXISTS (SELECT 1 FROM kn_extractions y WHERE y.chunk_hash = c.hash AND y.status = 'ok' AND y.extractor NOT LIKE 'offline:%')" : '';
  const retry = ctx.options.retryDropped ? " AND x.status = 'ok'" : '';
  const pending = await db.all<PendingChunk>(
    `SELECT c.hash, min(c.text) AS text, min(c.heading) AS heading, min(d.kind) AS kind, min(d.title) AS title, min(d.ref) AS ref
     FROM kn_chunks c JOIN kn_documents d ON d.id = c.doc_id
     WHERE NOT (EXISTS (SELECT 1 FROM kn_extractions x WHERE x.chunk_hash = c.hash AND x.extractor = ?${retry}) ${modelDone})
     GROUP BY c.hash ORDER BY min(c.id)`,
    [extractor],
  );
  let dropped = 0;
  let cached = 0;
  const before = runner.spend.cachedCalls;
  await runBatches(
    ctx,
    'extract_graph',
    pending,
    async (c) => {
      const input: OfflineExtractInput = { text: c.text, doc: { kind: c.kind, title: c.title, ...(c.ref ? { ref: c.ref } : {}) }, ...(c.heading ? { heading: c.heading } : {}), vocabulary: ctx.vocabulary! };
      return runner.run({
        task: 'extract-graph',
        promptVersion: PROMPT_VERSIONS.extract,
        messages: runner.offline ? [] : extractMessages(input),
        input,
        schema: Extraction,
        maxOutputTokens: 4000,
      });
    },
    async (done) => {
      const now = Date.now();
      const rows: (string | number)[][] = [];
      for (const { item, result } of done) {
        rows.push([item.hash, extractor, result.ok ? 'ok' : 'dropped', result.ok ? JSON.stringify(result.value) : JSON.stringify({ error: result.error }), now]);
        if (result.ok) continue;
        dropped++;
        // The model's reply was dropped: the chunk still counts, read offline (and labelled so).
        const offline = offlineExtract({ text: item.text, doc: { kind: item.kind, title: item.title, ...(item.ref ? { ref: item.ref } : {}) }, vocabulary: ctx.vocabulary! });
        rows.push([item.hash, offlineExtractorId(ctx), 'ok', JSON.stringify(offline), now]);
      }
      await db.write((w) => replaceRows(w, 'kn_extractions', ['chunk_hash', 'extractor', 'status', 'result', 'created_at'], rows));
    },
  );
  cached = runner.spend.cachedCalls - before;
  // Offline extractions made with another vocabulary are stale; model extractions are kept as a cache.
  if (runner.offline) await db.write((w) => w.run("DELETE FROM kn_extractions WHERE extractor LIKE 'offline:%' AND extractor != ?", [extractor]));
  return { extractor, chunksExtracted: pending.length, fromCache: cached, dropped };
}

// ---------------------------------------------------------------- summarize_descriptions

async function loadGraph(ctx: Context): Promise<KnowledgeGraph> {
  const { db } = ctx;
  const extractor = extractorId(ctx);
  // Per chunk, the best extraction there is: this run's model; else another model's (an offline run never
  // overwrites a model's work); else the offline one (a model reply dropped as invalid falls back to it).
  const rows = await db.all<{ chunk_id: number; doc_id: number; extractor: string; result: string }>(
    `SELECT c.id AS chunk_id, c.doc_id, x.extractor, x.result FROM kn_chunks c
     JOIN kn_extractions x ON x.chunk_hash = c.hash AND x.status = 'ok'
     WHERE x.extractor = ?1 OR x.extractor = ?2 OR x.extractor NOT LIKE 'offline:%'
     ORDER BY c.id, CASE WHEN x.extractor = ?1 AND x.extractor NOT LIKE 'offline:%' THEN 0 WHEN x.extractor NOT LIKE 'offline:%' THEN 1 ELSE 2 END, x.created_at DESC`,
    [extractor, offlineExtractorId(ctx)],
  );
  const items: ChunkExtraction[] = [];
  let last = -1;
  for (const r of rows) {
    if (r.chunk_id === last) continue;
    last = r.chunk_id;
    // Validated with zod before it was stored; here only a shape check, so a damaged row is skipped, not trusted.
    const extraction = JSON.parse(r.result) as Extraction;
    if (!Array.isArray(extraction?.entities) || !Array.isArray(extraction.relationships)) continue;
    items.push({ chunkId: r.chunk_id, docId: r.doc_id, extraction, extractedBy: r.extractor.startsWith('offline:') ? 'offline' : r.extractor.replace(/\/[^/]*$/, '') });
  }
  const docs = await db.all<{ id: number; ref: string | null; title: string }>('SELECT id, ref, title FROM kn_documents');
  return buildGraph(items, docs.map((d) => ({ id: d.id, title: d.title, ...(d.ref ? { ref: d.ref } : {}) })));
}

async function summarizeDescriptions(ctx: Context): Promise<Record<string, number | string>> {
  await ensureVocabulary(ctx);
  const { db, runner } = ctx;
  const graph = await loadGraph(ctx);
  ctx.graph = graph;
  const summarizer = `${runner.model.id}/${PROMPT_VERSIONS.summarize}`;
  interface Job {
    key: string;
    name: string;
    type: string;
    descriptions: string[];
    apply: (text: string, by: string) => void;
  }
  const jobs: Job[] = [];
  for (const e of graph.entities.values()) {
    if (e.descriptions.length > 1) jobs.push({ key: descriptionsKey(e.name, e.descriptions), name: e.name, type: e.type, descriptions: e.descriptions, apply: (t, by) => ((e.description = t), (e.describedBy = by)) });
  }
  if (ctx.options.summarizeRelationships !== false) {
    for (const r of graph.relationships.values()) {
      if (r.descriptions.length > 1) {
        const name = `${graph.entities.get(r.a)!.name} — ${graph.entities.get(r.b)!.name}`;
        jobs.push({ key: descriptionsKey(name, r.descriptions), name, type: 'relationship', descriptions: r.descriptions, apply: (t, by) => ((r.description = t), (r.describedBy = by)) });
      }
    }
  }
  // Stored merges: this summariser's, or (offline) a model's.
  const stored = new Map<string, { summary: string; summarizer: string }>();
  const keys = [...new Set(jobs.map((j) => j.key))];
  for (let i = 0; i < keys.length; i += 5000) {
    const rows = await db.all<{ key: string; summary: string; summarizer: string }>(
      `SELECT key, summary, summarizer FROM kn_summaries WHERE key IN (SELECT value FROM json_each(?)) AND (summarizer = ? ${runner.offline ? "OR summarizer NOT LIKE 'offline:%'" : ''}) ORDER BY CASE WHEN summarizer LIKE 'offline:%' THEN 1 ELSE 0 END`,
      [JSON.stringify(keys.slice(i, i + 5000)), summarizer],
    );
    for (const r of rows) if (!stored.has(r.key)) stored.set(r.key, r);
  }
  const todo: Job[] = [];
  const queued = new Set<string>();
  for (const j of jobs) {
    const s = stored.get(j.key);
    if (s) j.apply(s.summary, s.summarizer.startsWith('offline:') ? 'offline' : s.summarizer.replace(/\/[^/]*$/, ''));
    else if (!queued.has(j.key)) {
      todo.push(j);
      queued.add(j.key);
    }
  }
  let dropped = 0;
  const byKey = new Map<string, Job[]>();
  for (const j of jobs) byKey.set(j.key, [...(byKey.get(j.key) ?? []), j]);
  const describedBy = runner.offline ? 'offline' : runner.model.id;
  await runBatches(
    ctx,
    'summarize_descriptions',
    todo,
    (j) =>
      runner.run({
        task: 'summarize-descriptions',
        promptVersion: PROMPT_VERSIONS.summarize,
        messages: runner.offline ? [] : summarizeMessages({ name: j.name, type: j.type, descriptions: j.descriptions }),
        input: { name: j.name, type: j.type, descriptions: j.descriptions },
        schema: Summary,
        maxOutputTokens: 500,
      }),
    async (done) => {
      const rows: (string | number)[][] = [];
      for (const { item, result } of done) {
        if (!result.ok) {
          dropped++;
          continue;
        }
        for (const j of byKey.get(item.key) ?? []) j.apply(result.value.description, describedBy);
        rows.push([item.key, summarizer, result.value.description, Date.now()]);
      }
      if (rows.length) await db.write((w) => replaceRows(w, 'kn_summaries', ['key', 'summarizer', 'summary', 'created_at'], rows));
    },
  );
  ctx.graphHash = graphFingerprint(graph);
  const last = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'knowledge.graphHash'");
  const entities = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_entities');
  ctx.graphUnchanged = last?.value === ctx.graphHash && (entities?.n ?? 0) > 0;
  return { entities: graph.entities.size, relationships: graph.relationships.size, merges: jobs.length, merged: todo.length - dropped, reused: jobs.length - todo.length, dropped, unchanged: ctx.graphUnchanged ? 1 : 0 };
}

/** Everything the graph tables hold, hashed: equal fingerprints mean the tables need not be rewritten. */
function graphFingerprint(graph: KnowledgeGraph): string {
  const h = createHash('sha256');
  for (const k of [...graph.entities.keys()].sort()) {
    const e = graph.entities.get(k)!;
    h.update(JSON.stringify([k, e.name, e.type, e.description, e.describedBy, [...e.extractedBy].sort(), e.docId ?? null, e.degree, e.docs.size, e.mentions.map((m) => [m.chunkId, m.description, m.extractedBy])]));
  }
  for (const k of [...graph.relationships.keys()].sort()) {
    const r = graph.relationships.get(k)!;
    h.update(JSON.stringify([k, r.description, r.describedBy, r.weight, r.sources.map((x) => [x.chunkId, x.description])]));
  }
  return h.digest('hex');
}

// ---------------------------------------------------------------- finalize_graph

async function finalizeGraph(ctx: Context): Promise<Record<string, number | string>> {
  const graph = ctx.graph ?? (await loadGraph(ctx));
  ctx.graph = graph;
  const { db } = ctx;
  if (ctx.graphUnchanged) return { entities: graph.entities.size, relationships: graph.relationships.size, unchanged: 1 };
  const keys = [...graph.entities.keys()].sort();
  const idOf = new Map(keys.map((k, i) => [k, i + 1]));
  const rels = [...graph.relationships.values()].sort((x, y) => (x.a === y.a ? (x.b < y.b ? -1 : 1) : x.a < y.a ? -1 : 1));
  const liveChunks = new Set((await db.all<{ id: number }>('SELECT id FROM kn_chunks')).map((r) => r.id));
  await db.write(async (w) => {
    await w.run('DELETE FROM kn_community_entities');
    await w.run('DELETE FROM kn_communities');
    await w.run('DELETE FROM kn_links');
    await w.run('DELETE FROM kn_relationship_sources');
    await w.run('DELETE FROM kn_relationships');
    await w.run('DELETE FROM kn_mentions');
    await w.run('DELETE FROM kn_entities');
    await insertRows(
      w,
      'kn_entities',
      ['id', 'key', 'name', 'type', 'description', 'described_by', 'extracted_by', 'mentions', 'docs', 'degree', 'doc_id'],
      keys.map((k) => {
        const e = graph.entities.get(k)!;
        return [idOf.get(k)!, k, e.name, e.type, e.description || e.name, e.describedBy, [...e.extractedBy].sort().join(','), e.mentions.length, e.docs.size, e.degree, e.docId ?? null];
      }),
    );
    const mentions: (string | number)[][] = [];
    for (const k of keys) for (const m of graph.entities.get(k)!.mentions) if (liveChunks.has(m.chunkId)) mentions.push([idOf.get(k)!, m.chunkId, m.description, m.extractedBy]);
    await insertRows(w, 'kn_mentions', ['entity_id', 'chunk_id', 'description', 'extracted_by'], mentions);
    await insertRows(
      w,
      'kn_relationships',
      ['id', 'source_id', 'target_id', 'description', 'weight', 'described_by'],
      rels.map((r, i) => [i + 1, idOf.get(r.a)!, idOf.get(r.b)!, r.description || `${graph.entities.get(r.a)!.name} — ${graph.entities.get(r.b)!.name}`, r.weight, r.describedBy]),
    );
    const sources: (string | number)[][] = [];
    rels.forEach((r, i) => {
      for (const s of r.sources) if (liveChunks.has(s.chunkId)) sources.push([i + 1, s.chunkId, s.description]);
    });
    await insertRows(w, 'kn_relationship_sources', ['relationship_id', 'chunk_id', 'description'], sources);
    await w.run("INSERT INTO kn_entities_fts(kn_entities_fts) VALUES ('rebuild')");
  });
  return { entities: keys.length, relationships: rels.length };
}

// ---------------------------------------------------------------- link_symbols

async function linkSymbols(ctx: Context): Promise<Record<string, number | string>> {
  await ensureVocabulary(ctx);
  const { db } = ctx;
  const index = ctx.symbols!;
  // Links depend on the graph, the symbols and the code's comments (citations): files' hashes cover all three sides of the code.
  const files = await db.all<{ path: string; hash: string | null }>('SELECT path, hash FROM files ORDER BY path');
  ctx.symbolsHash = sha256(JSON.stringify([index.all.map((s) => s.sid).sort(), files.map((f) => [f.path, f.hash])]));
  const last = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'knowledge.symbolsHash'");
  if (ctx.graphUnchanged && last?.value === ctx.symbolsHash) return { unchanged: 1 };
  const entities = await db.all<{ id: number; name: string; type: string }>('SELECT id, name, type FROM kn_entities ORDER BY id');
  // Identifiers the entity is related to (named in the same sentence, or related by the model): they tell apart
  // symbols that share a name. Not the whole chunk: a thread that names RetryPolicy.ts once does not make every
  // "max attempts" in it the TypeScript one.
  const co = await db.all<{ entity_id: number; other: string }>(
    `SELECT r.source_id AS entity_id, e2.name AS other FROM kn_relationships r JOIN kn_entities e2 ON e2.id = r.target_id WHERE e2.key LIKE 'code:%'
     UNION SELECT r.target_id AS entity_id, e2.name AS other FROM kn_relationships r JOIN kn_entities e2 ON e2.id = r.source_id WHERE e2.key LIKE 'code:%'`,
  );
  const context = new Map<number, string[]>();
  for (const r of co) context.set(r.entity_id, [...(context.get(r.entity_id) ?? []), r.other]);
  const rows: (string | number | null)[][] = [];
  const tiers: Record<LinkTier, number> = { exact: 0, strong: 0, weak: 0, unresolved: 0 };
  for (const e of entities) {
    const link = linkEntity(index, { name: e.name, type: e.type, context: context.get(e.id) ?? [] });
    tiers[link.tier]++;
    if (!link.symbols.length) rows.push([e.id, 'unresolved', null, 0, link.reason]);
    for (const s of link.symbols) rows.push([e.id, link.tier, s.sid, link.score, link.reason]);
  }
  const citations = await findCitations(ctx, index);
  await db.write(async (w) => {
    await w.run('DELETE FROM kn_links');
    await insertRows(w, 'kn_links', ['entity_id', 'tier', 'symbol_sid', 'score', 'reason'], rows);
    await w.run('DELETE FROM kn_citations');
    await insertRows(w, 'kn_citations', ['doc_id', 'path', 'line', 'symbol_sid', 'text'], citations);
  });
  return { ...tiers, citations: citations.length, symbols: index.size };
}

/** Comments and strings in code that name a document (its path, file name or handle), with the symbol they sit in or above. */
async function findCitations(ctx: Context, index: SymbolIndex): Promise<(string | number | null)[][]> {
  const { db, ws } = ctx;
  const docs = await db.all<{ id: number; path: string | null; ref: string | null; kind: string }>("SELECT id, path, ref, kind FROM kn_documents WHERE kind NOT IN ('commit')");
  const needles: { re: RegExp; doc: number }[] = [];
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const d of docs) {
    if (d.path && !d.path.includes('#')) needles.push({ re: new RegExp(`(?:^|[\\s\`'"(/])${esc(path.posix.basename(d.path))}\\b`), doc: d.id });
    if (d.ref && /^(ADR|RFC|INC)-\d+$/.test(d.ref)) {
      const [p, n] = d.ref.split('-');
      needles.push({ re: new RegExp(`\\b${p}[- ]?0*${Number(n)}\\b`, 'i'), doc: d.id });
    }
  }
  if (!needles.length) return [];
  const files = await db.all<{ path: string }>('SELECT path FROM files WHERE skip_reason IS NULL');
  const bySymbolFile = new Map<string, { sid: string; line: number; endLine: number }[]>();
  for (const s of index.all) {
    const list = bySymbolFile.get(s.path) ?? [];
    list.push({ sid: s.sid, line: s.line, endLine: s.endLine });
    bySymbolFile.set(s.path, list);
  }
  const out: (string | number | null)[][] = [];
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(ws.root, f.path), 'utf8');
    } catch {
      continue;
    }
    if (!needles.some((n) => n.re.test(text))) continue;
    const lines = text.split('\n');
    const symbols = bySymbolFile.get(f.path) ?? [];
    lines.forEach((line, i) => {
      const ln = i + 1;
      for (const n of needles) {
        if (!n.re.test(line)) continue;
        // The innermost symbol around the line, else the first one starting just below it (a doc comment).
        const inside = symbols.filter((s) => s.line <= ln && s.endLine >= ln).sort((a, b) => a.endLine - a.line - (b.endLine - b.line))[0];
        const below = symbols.filter((s) => s.line > ln && s.line <= ln + 4).sort((a, b) => a.line - b.line)[0];
        const target = inside && (!below || inside.endLine - inside.line < 200) ? (below && /^\s*(\*|\/\/|#|\/\*\*?)/.test(line) ? below : inside) : below;
        out.push([n.doc, f.path, ln, target?.sid ?? null, line.trim().slice(0, 300)]);
      }
    });
  }
  return out;
}

// ---------------------------------------------------------------- cluster_graph

async function clusterGraph(ctx: Context): Promise<Record<string, number | string>> {
  const { db, options } = ctx;
  if (ctx.graphUnchanged && (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_communities'))?.n) return { unchanged: 1 };
  const entities = await db.all<{ id: number; key: string; description: string }>('SELECT id, key, description FROM kn_entities ORDER BY key');
  const rels = await db.all<{ source_id: number; target_id: number; weight: number; description: string }>('SELECT source_id, target_id, weight, description FROM kn_relationships');
  if (!entities.length) {
    await db.write((w) => w.run('DELETE FROM kn_communities'));
    return { communities: 0 };
  }
  const graph = new Graph({ type: 'undirected', multi: false });
  const keyOf = new Map(entities.map((e) => [e.id, e.key]));
  for (const e of entities) graph.addNode(e.key);
  for (const r of rels) {
    const a = keyOf.get(r.source_id)!;
    const b = keyOf.get(r.target_id)!;
    if (a === b) continue;
    if (graph.hasEdge(a, b)) graph.updateEdgeAttribute(a, b, 'weight', (w: number | undefined) => (w ?? 0) + r.weight);
    else graph.addEdge(a, b, { weight: r.weight });
  }
  const { csr, keys } = csrFromGraphology(graph);
  // Warm start from the last partition, so an edit in one corner leaves the other communities (and their reports) alone.
  const previous = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'knowledge.partition'");
  let initialMembership: Int32Array | undefined;
  if (previous) {
    try {
      const prev = JSON.parse(previous.value) as Record<string, number>;
      let next = Math.max(0, ...Object.values(prev)) + 1;
      initialMembership = new Int32Array(keys.length);
      keys.forEach((k, i) => (initialMembership![i] = prev[k] ?? next++));
    } catch {
      initialMembership = undefined;
    }
  }
  const seed = options.clustering?.seed ?? 0xdeadbeef;
  const communities = hierarchicalLeiden(csr, {
    maxClusterSize: options.clustering?.maxClusterSize ?? 10,
    resolution: options.clustering?.resolution ?? 1,
    seed,
    ...(initialMembership ? { initialMembership } : {}),
    subSeed: (nodes) => Number.parseInt(sha256(`${seed}:${nodes.map((n) => keys[n]).join('\u0000')}`).slice(0, 8), 16),
  });
  const descriptions = new Map(entities.map((e) => [e.key, e.description]));
  const idByKey = new Map(entities.map((e) => [e.key, e.id]));
  // Each entity's relationships, so a community's internal ones are found from its members (not by scanning them all).
  const relsOf = new Map<string, { other: string; text: string }[]>();
  for (const r of rels) {
    const a = keyOf.get(r.source_id)!;
    const b = keyOf.get(r.target_id)!;
    const text = `${pairKey(a, b)}=${r.weight}:${r.description}`;
    relsOf.set(a, [...(relsOf.get(a) ?? []), { other: b, text }]);
    relsOf.set(b, [...(relsOf.get(b) ?? []), { other: a, text }]);
  }
  // Content hashes, children before parents.
  const hash = new Map<number, string>();
  const children = new Map<number, number[]>();
  for (const c of communities) if (c.parent >= 0) children.set(c.parent, [...(children.get(c.parent) ?? []), c.id]);
  for (const c of [...communities].sort((a, b) => b.level - a.level)) {
    const members = c.nodes.map((n) => keys[n]!).sort();
    const kids = children.get(c.id);
    const memberSet = new Set(members);
    const internal: string[] = [];
    if (!kids) {
      for (const m of members) for (const r of relsOf.get(m) ?? []) if (m < r.other && memberSet.has(r.other)) internal.push(r.text);
      internal.sort();
    }
    hash.set(c.id, sha256(JSON.stringify(kids ? ['parent', kids.map((k) => hash.get(k)!).sort(), members] : ['leaf', members.map((m) => [m, descriptions.get(m)]), internal])));
  }
  const level0: Record<string, number> = {};
  for (const c of communities) if (c.level === 0) for (const n of c.nodes) level0[keys[n]!] = c.id;
  await db.write(async (w) => {
    await w.run('DELETE FROM kn_community_entities');
    await w.run('DELETE FROM kn_communities');
    await insertRows(w, 'kn_communities', ['id', 'level', 'parent_id', 'content_hash', 'size'], communities.map((c) => [c.id + 1, c.level, c.parent >= 0 ? c.parent + 1 : null, hash.get(c.id)!, c.nodes.length]));
    const members: number[][] = [];
    for (const c of communities) for (const n of c.nodes) members.push([c.id + 1, idByKey.get(keys[n]!)!]);
    await insertRows(w, 'kn_community_entities', ['community_id', 'entity_id'], members);
    await w.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('knowledge.partition', ?)", [JSON.stringify(level0)]);
  });
  const levels = new Set(communities.map((c) => c.level)).size;
  return { communities: communities.length, levels, topLevel: communities.filter((c) => c.level === 0).length, largest: Math.max(...communities.map((c) => c.nodes.length)) };
}

// ---------------------------------------------------------------- community_reports

export interface StoredFinding {
  readonly summary: string;
  readonly explanation: string;
  /** Entity keys: stable across rebuilds of the graph. */
  readonly entityKeys: readonly string[];
  /** Relationship ends as "a\u0000b" keys. */
  readonly relationshipKeys: readonly string[];
}

async function communityReports(ctx: Context): Promise<Record<string, number | string>> {
  const { db, runner, options } = ctx;
  const reporter = `${runner.model.id}/${PROMPT_VERSIONS.report}`;
  const communities = await db.all<{ id: number; level: number; parent_id: number | null; content_hash: string; size: number }>('SELECT id, level, parent_id, content_hash, size FROM kn_communities ORDER BY level DESC, id');
  const maxLevel = Math.max(-1, ...communities.map((c) => c.level));
  const stats = ctx.reportStats;
  const contextTokens = options.reportContextTokens ?? 6000;
  const reports = new Map<string, { title: string; summary: string; rating: number; findings: StoredFinding[] }>();
  const loadStored = async (hashes: string[]) => {
    for (let i = 0; i < hashes.length; i += 5000) {
      const rows = await db.all<{ content_hash: string; title: string; summary: string; rating: number; findings: string; reporter: string }>(
        `SELECT content_hash, title, summary, rating, findings, reporter FROM kn_reports WHERE content_hash IN (SELECT value FROM json_each(?)) AND (reporter = ? ${runner.offline ? "OR reporter NOT LIKE 'offline:%'" : ''})
         ORDER BY CASE WHEN reporter LIKE 'offline:%' THEN 1 ELSE 0 END, created_at DESC`,
        [JSON.stringify(hashes.slice(i, i + 5000)), reporter],
      );
      for (const r of rows) if (!reports.has(r.content_hash)) reports.set(r.content_hash, { title: r.title, summary: r.summary, rating: r.rating, findings: JSON.parse(r.findings) as StoredFinding[] });
    }
  };
  await loadStored(communities.map((c) => c.content_hash));
  const childrenOf = new Map<number, typeof communities>();
  for (const c of communities) if (c.parent_id !== null) childrenOf.set(c.parent_id, [...(childrenOf.get(c.parent_id) ?? []), c]);

  for (let level = maxLevel; level >= 0; level--) {
    const todo = communities.filter((c) => c.level === level && c.size >= 2);
    const fresh = todo.filter((c) => !reports.has(c.content_hash));
    stats.reused += todo.length - fresh.length;
    const unique = [...new Map(fresh.map((c) => [c.content_hash, c])).values()];
    await runBatches(
      ctx,
      'community_reports',
      unique,
      async (c) => {
        const { input, entityKeys, relKeys } = await reportInput(db, c.id, (childrenOf.get(c.id) ?? []).map((k) => reports.get(k.content_hash)).filter((r): r is NonNullable<typeof r> => !!r), contextTokens);
        const result = await runner.run({
          task: 'community-report',
          promptVersion: PROMPT_VERSIONS.report,
          messages: runner.offline ? [] : reportMessages(input),
          input,
          schema: Report,
          maxOutputTokens: 2000,
        });
        return { result, entityKeys, relKeys };
      },
      async (done) => {
        const rows: (string | number)[][] = [];
        for (const { item, result: r } of done) {
          if (!r.result.ok) {
            stats.dropped++;
            continue;
          }
          const v = r.result.value;
          const findings: StoredFinding[] = v.findings.map((f: Finding) => ({
            summary: f.summary,
            explanation: f.explanation,
            entityKeys: f.entities.map((id) => r.entityKeys.get(id)).filter((k): k is string => !!k),
            relationshipKeys: f.relationships.map((id) => r.relKeys.get(id)).filter((k): k is string => !!k),
          }));
          reports.set(item.content_hash, { title: v.title, summary: v.summary, rating: v.rating, findings });
          rows.push([item.content_hash, reporter, v.title, v.summary, v.rating, v.rating_explanation, JSON.stringify(findings), Date.now()]);
          stats.generated++;
        }
        if (rows.length) await db.write((w) => replaceRows(w, 'kn_reports', ['content_hash', 'reporter', 'title', 'summary', 'rating', 'rating_explanation', 'findings', 'created_at'], rows));
      },
    );
  }
  // Full-text index over the reports of the current communities (unchanged graph, no new report: it is current).
  if (ctx.graphUnchanged && stats.generated === 0 && (await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_reports_fts'))?.n) {
    return { communities: communities.length, reported: communities.filter((c) => reports.has(c.content_hash)).length, generated: 0, reused: stats.reused, dropped: stats.dropped };
  }
  const current = await db.all<{ id: number; content_hash: string }>('SELECT id, content_hash FROM kn_communities');
  await db.write(async (w) => {
    await w.run('DELETE FROM kn_reports_fts');
    await insertRows(
      w,
      'kn_reports_fts',
      ['rowid', 'title', 'summary', 'findings'],
      current.filter((c) => reports.has(c.content_hash)).map((c) => {
        const r = reports.get(c.content_hash)!;
        return [c.id, r.title, r.summary, r.findings.map((f) => `${f.summary} ${f.explanation}`).join('\n')];
      }),
    );
  });
  return { communities: communities.length, reported: communities.filter((c) => reports.has(c.content_hash)).length, generated: stats.generated, reused: stats.reused, dropped: stats.dropped };
}

/** The report's input: entities and relationships by weight within the token budget, local ids 1.. so the report is stable across rebuilds. */
async function reportInput(
  db: Db,
  communityId: number,
  children: { title: string; summary: string; rating: number; findings: StoredFinding[] }[],
  budget: number,
): Promise<{ input: ReportInput; entityKeys: Map<number, string>; relKeys: Map<number, string> }> {
  const entities = await db.all<{ id: number; key: string; name: string; type: string; description: string; degree: number; docs: number }>(
    `SELECT e.id, e.key, e.name, e.type, e.description, e.degree, e.docs FROM kn_community_entities ce JOIN kn_entities e ON e.id = ce.entity_id WHERE ce.community_id = ? ORDER BY e.degree DESC, e.key`,
    [communityId],
  );
  const rels = await db.all<{ a: string; b: string; an: string; bn: string; description: string; weight: number }>(
    `SELECT ea.key AS a, eb.key AS b, ea.name AS an, eb.name AS bn, r.description, r.weight FROM kn_relationships r
     JOIN kn_community_entities ca ON ca.entity_id = r.source_id AND ca.community_id = ?
     JOIN kn_community_entities cb ON cb.entity_id = r.target_id AND cb.community_id = ?
     JOIN kn_entities ea ON ea.id = r.source_id JOIN kn_entities eb ON eb.id = r.target_id
     ORDER BY r.weight DESC, ea.key, eb.key`,
    [communityId, communityId],
  );
  const entityKeys = new Map<number, string>();
  const relKeys = new Map<number, string>();
  let used = 0;
  const inputEntities: ReportInput['entities'][number][] = [];
  for (const e of entities) {
    const cost = estimateTokens(e.description) + 12;
    if (used + cost > budget * 0.5 && inputEntities.length >= 3) break;
    used += cost;
    const id = inputEntities.length + 1;
    entityKeys.set(id, e.key);
    inputEntities.push({ id, name: e.name, type: e.type, description: e.description, degree: e.degree, docs: e.docs });
  }
  const inputRels: ReportInput['relationships'][number][] = [];
  for (const r of rels) {
    const cost = estimateTokens(r.description) + 12;
    if (used + cost > budget && inputRels.length >= 3) break;
    used += cost;
    const id = inputRels.length + 1;
    relKeys.set(id, pairKey(r.a, r.b));
    inputRels.push({ id, source: r.an, target: r.bn, description: r.description, weight: r.weight });
  }
  const input: ReportInput = {
    level: 0,
    entities: inputEntities,
    relationships: inputRels,
    ...(children.length ? { children: children.map((c) => ({ title: c.title, summary: c.summary, rating: c.rating, findings: c.findings.map((f) => ({ summary: f.summary, explanation: f.explanation, entities: [], relationships: [] })) })) } : {}),
  };
  return { input, entityKeys, relKeys };
}

// ---------------------------------------------------------------- embed

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeVector(s: string): Float32Array {
  const buf = Buffer.from(s, 'base64');
  const out = new Float32Array(buf.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

export function entityText(e: { name: string; type: string; description: string }): string {
  return `${e.name} (${e.type}): ${e.description}`;
}

export function reportText(r: { title: string; summary: string; findings: readonly { summary: string; explanation: string }[] }): string {
  return `${r.title}\n${r.summary}\n${r.findings.map((f) => `${f.summary}: ${f.explanation}`).join('\n')}`;
}

async function embed(ctx: Context): Promise<Record<string, number | string>> {
  const { db, runner, options } = ctx;
  const texts: string[] = [];
  for (const e of await db.all<{ name: string; type: string; description: string }>('SELECT name, type, description FROM kn_entities')) texts.push(entityText(e));
  const reports = await db.all<{ title: string; summary: string; findings: string }>(
    'SELECT r.title, r.summary, r.findings FROM kn_communities c JOIN kn_reports r ON r.content_hash = c.content_hash GROUP BY c.id',
  );
  for (const r of reports) texts.push(reportText({ title: r.title, summary: r.summary, findings: JSON.parse(r.findings) as StoredFinding[] }));
  if (options.embedChunks) for (const c of await db.all<{ text: string }>('SELECT text FROM kn_chunks')) texts.push(c.text);
  const embedderId = runner.embedder.id;
  const byHash = new Map<string, string>();
  for (const t of texts) byHash.set(sha256(t), t);
  const have = new Set<string>();
  const hashes = [...byHash.keys()];
  for (let i = 0; i < hashes.length; i += 5000) {
    for (const r of await db.all<{ hash: string }>('SELECT hash FROM kn_embeddings WHERE embedder = ? AND hash IN (SELECT value FROM json_each(?))', [embedderId, JSON.stringify(hashes.slice(i, i + 5000))])) have.add(r.hash);
  }
  const todo = hashes.filter((h) => !have.has(h));
  const size = runner.embedder.batchSize;
  const groups: string[][] = [];
  for (let i = 0; i < todo.length; i += size) groups.push(todo.slice(i, i + size));
  await runBatches(
    { ...ctx, batch: runner.offline ? 8 : Math.max(1, options.concurrency ?? 4) },
    'embed',
    groups,
    (group) => runner.embed(group.map((h) => byHash.get(h)!)),
    async (done) => {
      const rows: (string | number)[][] = [];
      for (const { item, result } of done) item.forEach((h, k) => rows.push([h, embedderId, result[k]!.length, encodeVector(result[k]!)]));
      await db.write((w) => replaceRows(w, 'kn_embeddings', ['hash', 'embedder', 'dims', 'vector'], rows));
    },
  );
  return { embedder: embedderId, texts: hashes.length, embedded: todo.length, reused: hashes.length - todo.length };
}

