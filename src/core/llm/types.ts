/*
 * The model ports. The core calls models only through these two interfaces;
 * implementations: OpenAI-compatible HTTP (openai.ts), VS Code's language
 * model API (src/vscode/knowledgeModel.ts) and the offline deterministic
 * default (offline.ts). Cache, retry, budget, concurrency and validation are
 * middleware around them (runner.ts), the same for every implementation.
 */

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ChatRequest {
  /** The task, e.g. `extract-graph`: names the cost-log rows and selects the offline handler. */
  readonly task: string;
  /** Bumped whenever the prompt or the output schema changes, so cached answers are not reused across versions. */
  readonly promptVersion: string;
  readonly messages: readonly ChatMessage[];
  /** The structured input the prompt was built from; the offline model answers from it rather than from prose. */
  readonly input: unknown;
  /** Ask for a JSON object reply (response_format json_object where the endpoint supports it). */
  readonly json: boolean;
  readonly maxOutputTokens: number;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ChatResponse {
  readonly text: string;
  /** As reported by the endpoint; undefined when it reports none (then estimated). */
  readonly usage?: Usage;
}

export type Provider = 'offline' | 'openai' | 'vscode';

export interface ChatModel {
  /** `provider:model`, e.g. `openai:gpt-4o-mini`, `offline:tenure-1`. Part of every cache key. */
  readonly id: string;
  readonly provider: Provider;
  /** Tokens the model accepts in one request (prompt + reply), for sizing contexts. */
  readonly contextTokens: number;
  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

export interface Embedder {
  /** `provider:model`, e.g. `offline:hash-ngram-256`. Vectors from different ids are never compared. */
  readonly id: string;
  readonly provider: Provider;
  readonly dimensions: number;
  /** Largest batch sent in one call. */
  readonly batchSize: number;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[]; usage?: Usage }>;
}

/*
 * Where the runner keeps what model calls cost and return: the answer cache
 * (by content key) and the call ledger. A port, so the llm layer holds no SQL:
 * the knowledge memory implements it on SQLite (it owns the tables), a team
 * store on PostgreSQL will implement the same few operations.
 */

export interface CachedAnswer {
  /** sha256 of (model, task, prompt version, messages). */
  readonly key: string;
  readonly task: string;
  readonly model: string;
  readonly promptVersion: string;
  /** The validated output, as JSON-compatible data. */
  readonly output: unknown;
  readonly usage: Usage;
}

export type CallStatus = 'ok' | 'repaired' | 'dropped' | 'failed';

export interface CallRecord {
  readonly runId: number | null;
  readonly task: string;
  readonly model: string;
  readonly status: CallStatus;
  readonly attempts: number;
  readonly usage: Usage;
  readonly ms: number;
  readonly error: string | null;
}

/** A reply that failed validation even after the repair attempt: kept for inspection, never used. */
export interface RejectedReply {
  readonly runId: number | null;
  readonly key: string;
  readonly task: string;
  readonly model: string;
  readonly error: string;
  readonly output: string;
}

export interface CallStore {
  /** The stored output under this key, undefined when there is none. */
  cached(key: string): Promise<{ readonly output: unknown } | undefined>;
  /** Stores (or replaces) an answer. */
  remember(answer: CachedAnswer): Promise<void>;
  /** Adds a ledger row; its id lets a later repair or drop amend the status. */
  logCall(call: CallRecord): Promise<number>;
  setCallStatus(callId: number, status: Extract<CallStatus, 'repaired' | 'dropped'>): Promise<void>;
  reject(reply: RejectedReply): Promise<void>;
}
