import type { LlmRunner } from '../../llm/runner.js';
import type { CallStore, ChatModel, Embedder } from '../../llm/types.js';
import type { Db } from '../../store/db.js';
import type { ChunkOptions } from '../chunk.js';
import type { SourceDocument } from '../sources/document.js';
import type { SourceOptions } from '../sources/documents.js';

/*
 * What the knowledge workflows share. Each workflow is a function of the run
 * context and its own typed input, reads and writes tables through the
 * knowledge store, and returns its stats and what later workflows need (as
 * Microsoft GraphRAG's workflows do, over its table provider and run state).
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
  readonly clustering?: ClusteringOptions;
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
  /** Where model answers are cached and calls logged. Default: this workspace's SQLite store; a team store puts its own in front. */
  readonly calls?: CallStore;
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  readonly onProgress?: (progress: Progress) => void;
}

export interface ClusteringOptions {
  readonly maxClusterSize?: number;
  readonly resolution?: number;
  readonly seed?: number;
}

export interface Progress {
  readonly workflow: WorkflowName;
  readonly done: number;
  readonly total: number;
}

/** What every workflow of one run reads: the database, the model middleware, and how the run is paced. */
export interface RunContext {
  readonly root: string;
  readonly db: Db;
  readonly runner: LlmRunner;
  readonly runId: number;
  /** Items per written batch of model calls. */
  readonly batch: number;
  /** Model calls in flight (embedding batches go this many at a time). */
  readonly concurrency: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

export type WorkflowStats = Record<string, number | string>;

export interface WorkflowOutput<Out> {
  /** Logged, stored with the run and reported; never read by another workflow. */
  readonly stats: WorkflowStats;
  readonly output: Out;
}

/** Whether the graph this run built equals the last completed run's: then its tables are current and the graph workflows may skip. */
export interface GraphFreshness {
  readonly graphUnchanged: boolean;
}
