import { phraseNames } from '../structural/lookup.js';
import { LlmError } from '../llm/errors.js';
import { HashingEmbedder } from '../llm/offline.js';
import { LlmRunner, type Spend } from '../llm/runner.js';
import type { LinkTier } from '../model/tiers.js';
import type { Workspace } from '../store/workspace.js';
import type { KnowledgeGraph } from './graph.js';
import { Vocabulary, offlineChatModel } from './offline.js';
import { SqliteCallStore } from './store/calls.js';
import { communityTotals } from './store/communities.js';
import { documentTotals } from './store/documents.js';
import { graphTotals } from './store/graph.js';
import { linkTiers } from './store/links.js';
import { finishRun, finishWorkflow, startRun, startWorkflow } from './store/runs.js';
import { clusterGraph } from './workflows/clusterGraph.js';
import { communityReports, type ReportCounts } from './workflows/communityReports.js';
import { embed } from './workflows/embed.js';
import { extractGraph } from './workflows/extractGraph.js';
import { finalizeGraph } from './workflows/finalizeGraph.js';
import { linkSymbols } from './workflows/linkSymbols.js';
import { loadDocuments, type DocumentStats } from './workflows/loadDocuments.js';
import { summarizeDescriptions } from './workflows/summarizeDescriptions.js';
import { WORKFLOWS, type KnowledgeIndexOptions, type RunContext, type WorkflowName, type WorkflowStats } from './workflows/types.js';

/*
 * The knowledge pipeline: an ordered list of named workflows, each reading
 * and writing tables (Microsoft GraphRAG's shape; one module a workflow under
 * workflows/):
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
 * the model-call cache. Incremental: only changed documents are re-chunked;
 * only chunks, descriptions and communities whose content changed cost a
 * model call; the rest of the graph is rebuilt from stored results in
 * milliseconds. This file keeps the order, the loop and the run's record.
 */

export interface WorkflowReport {
  readonly name: WorkflowName;
  readonly status: 'done' | 'stopped' | 'failed' | 'skipped';
  readonly ms: number;
  readonly stats: WorkflowStats;
}

export interface KnowledgeIndexReport {
  readonly runId: number;
  readonly mode: 'offline' | 'model';
  readonly model: string;
  readonly embedder: string;
  readonly status: 'done' | 'stopped' | 'failed';
  readonly message?: string;
  readonly documents: DocumentStats;
  readonly chunks: number;
  readonly entities: number;
  readonly relationships: number;
  readonly communities: { total: number; levels: number; reported: number };
  readonly reports: ReportCounts;
  readonly links: Record<LinkTier, number>;
  readonly workflows: readonly WorkflowReport[];
  readonly spend: Spend;
  readonly ms: number;
}

/** What workflows hand on to later ones, besides the tables they write (GraphRAG's run state). */
interface RunState {
  documents?: DocumentStats;
  graph?: KnowledgeGraph;
  graphHash?: string;
  graphUnchanged: boolean;
  symbolsHash?: string;
  readonly reports: ReportCounts;
}

interface Step {
  readonly name: WorkflowName;
  run(ctx: RunContext, state: RunState): Promise<WorkflowStats>;
}

/** The offline vocabulary made of the symbols' names: read once a run, by the first workflow that needs it. */
function vocabularyOnce(ctx: RunContext): () => Promise<Vocabulary> {
  let loaded: Promise<Vocabulary> | undefined;
  return () => (loaded ??= phraseNames(ctx.db).then((names) => new Vocabulary(names)));
}

/** The pipeline: each step names its workflow, picks the workflow's input from the options and the state, and keeps its output. */
function pipeline(options: KnowledgeIndexOptions, vocabulary: () => Promise<Vocabulary>): readonly Step[] {
  const steps: Record<WorkflowName, Step['run']> = {
    load_documents: async (ctx, state) => {
      const r = await loadDocuments(ctx, { ...(options.documents ? { documents: options.documents } : {}), sources: options.sources ?? {}, chunking: options.chunking ?? {} });
      state.documents = r.output.documents;
      return r.stats;
    },
    extract_graph: async (ctx) => (await extractGraph(ctx, { vocabulary: await vocabulary(), retryDropped: options.retryDropped ?? false })).stats,
    summarize_descriptions: async (ctx, state) => {
      const r = await summarizeDescriptions(ctx, { vocabulary: await vocabulary(), summarizeRelationships: options.summarizeRelationships !== false });
      Object.assign(state, r.output);
      return r.stats;
    },
    finalize_graph: async (ctx, state) => (await finalizeGraph(ctx, { graph: state.graph!, graphUnchanged: state.graphUnchanged })).stats,
    link_symbols: async (ctx, state) => {
      const r = await linkSymbols(ctx, { graphUnchanged: state.graphUnchanged });
      state.symbolsHash = r.output.symbolsHash;
      return r.stats;
    },
    cluster_graph: async (ctx, state) => (await clusterGraph(ctx, { clustering: options.clustering ?? {}, graphUnchanged: state.graphUnchanged })).stats,
    community_reports: async (ctx, state) => (await communityReports(ctx, { contextTokens: options.reportContextTokens ?? 6000, counts: state.reports, graphUnchanged: state.graphUnchanged })).stats,
    embed: async (ctx) => (await embed(ctx, { embedChunks: options.embedChunks ?? false })).stats,
  };
  return WORKFLOWS.map((name) => ({ name, run: steps[name] }));
}

/** How a workflow ended when it threw: a budget or a cancellation stops the run cleanly (work so far is stored); anything else fails it. */
function ending(name: WorkflowName, e: unknown): { status: 'stopped' | 'failed'; message: string } {
  if (LlmError.is(e, 'budget')) return { status: 'stopped', message: `${e.message} Work done so far is stored; run again with a larger budget to continue.` };
  if (LlmError.is(e, 'cancelled')) return { status: 'stopped', message: 'Cancelled; work done so far is stored.' };
  return { status: 'failed', message: `${name} failed: ${e instanceof Error ? e.message : String(e)}` };
}

/** Runs the steps in order, each recorded as it starts and ends; after one stops or fails, the rest are skipped. */
async function runWorkflows(
  ctx: RunContext,
  state: RunState,
  steps: readonly Step[],
  log: ((message: string) => void) | undefined,
): Promise<{ workflows: WorkflowReport[]; status: KnowledgeIndexReport['status']; message?: string }> {
  const { db, runId } = ctx;
  const workflows: WorkflowReport[] = [];
  let status: KnowledgeIndexReport['status'] = 'done';
  let message: string | undefined;
  for (const step of steps) {
    if (status !== 'done') {
      workflows.push({ name: step.name, status: 'skipped', ms: 0, stats: {} });
      continue;
    }
    const w0 = performance.now();
    await startWorkflow(db, runId, step.name);
    let wStatus: WorkflowReport['status'] = 'done';
    let stats: WorkflowStats = {};
    try {
      stats = await step.run(ctx, state);
    } catch (e) {
      const end = ending(step.name, e);
      wStatus = status = end.status;
      message = end.message;
      stats = { error: message };
    }
    const ms = performance.now() - w0;
    workflows.push({ name: step.name, status: wStatus, ms, stats });
    await finishWorkflow(db, runId, step.name, wStatus, { ...stats, ms: Math.round(ms) });
    log?.(`knowledge ${step.name}: ${wStatus} in ${Math.round(ms)} ms ${JSON.stringify(stats)}`);
  }
  return { workflows, status, ...(message ? { message } : {}) };
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
  const runId = await startRun(db, { mode, model: chat.id, embedder: embedder.id, budgetTokens: options.budgetTokens ?? null });
  const runner = new LlmRunner(chat, embedder, {
    calls: options.calls ?? new SqliteCallStore(db),
    runId,
    ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.baseDelayMs !== undefined ? { baseDelayMs: options.baseDelayMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const ctx: RunContext = {
    root: ws.root,
    db,
    runner,
    runId,
    batch: options.batchSize ?? (mode === 'offline' ? 2000 : Math.max(1, (options.concurrency ?? 4) * 4)),
    concurrency,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
  const state: RunState = { graphUnchanged: false, reports: { generated: 0, reused: 0, dropped: 0 } };
  const { workflows, status, message } = await runWorkflows(ctx, state, pipeline(options, vocabularyOnce(ctx)), options.log);

  const docs = await documentTotals(db);
  const graph = await graphTotals(db);
  const communities = await communityTotals(db);
  const report: KnowledgeIndexReport = {
    runId,
    mode,
    model: chat.id,
    embedder: embedder.id,
    status,
    ...(message ? { message } : {}),
    documents: state.documents ?? { total: docs.documents, added: 0, changed: 0, removed: 0, unchanged: docs.documents, byKind: {}, words: 0 },
    chunks: docs.chunks,
    entities: graph.entities,
    relationships: graph.relationships,
    communities: { total: communities.total, levels: communities.levels, reported: communities.reported },
    reports: state.reports,
    links: await linkTiers(db),
    workflows,
    spend: { ...runner.spend },
    ms: performance.now() - t0,
  };
  // Fingerprints are recorded only when every workflow finished: a later run may then skip the graph workflows when nothing changed.
  await finishRun(db, runId, {
    status,
    spentTokens: runner.spentTokens,
    message: message ?? null,
    report,
    ...(state.graphHash ? { graphHash: state.graphHash } : {}),
    ...(state.symbolsHash ? { symbolsHash: state.symbolsHash } : {}),
  });
  return report;
}
