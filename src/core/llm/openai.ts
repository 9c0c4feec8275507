import OpenAI from 'openai';
import { LlmError, retryAfterMs } from './errors.js';
import type { ChatModel, ChatRequest, ChatResponse, Embedder, Usage } from './types.js';

/*
 * The OpenAI-compatible port: any endpoint that speaks /chat/completions and
 * /embeddings (OpenAI, Azure OpenAI's v1 surface, Ollama, vLLM, LM Studio,
 * llama.cpp server). The client's own retries are off: retry, backoff and
 * Retry-After are handled once for every port by the runner.
 */

export interface OpenAiOptions {
  /** Chat model name as the endpoint knows it, e.g. `gpt-4o-mini`, `llama3.1:8b`. */
  readonly model: string;
  /** Embedding model name; undefined leaves embeddings to the offline embedder. */
  readonly embeddingModel?: string;
  readonly apiKey?: string;
  /** e.g. `http://127.0.0.1:11434/v1` for Ollama. Default: OpenAI's. */
  readonly baseURL?: string;
  /** Per-request time limit; a stalled request fails with kind `timeout` and is retried by the runner. Default 120 s. */
  readonly timeoutMs?: number;
  /** Context window of the chat model in tokens. Default 128k. */
  readonly contextTokens?: number;
  /** Ask for `response_format: json_object`. Some local servers reject it; default true. */
  readonly jsonMode?: boolean;
  /** Send `max_completion_tokens` (newer OpenAI models) instead of `max_tokens`. Default false. */
  readonly maxCompletionTokensParam?: boolean;
  /** For tests and proxies. */
  readonly fetch?: typeof fetch;
}

/** Settings from the environment, for the CLI and the MCP server. The key never comes from a file Tenure writes. */
export function openAiOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): { apiKey?: string; baseURL?: string; model?: string; embeddingModel?: string } {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v.trim() !== '')?.trim();
  const apiKey = pick('TENURE_OPENAI_API_KEY', 'OPENAI_API_KEY');
  const baseURL = pick('TENURE_OPENAI_BASE_URL', 'OPENAI_BASE_URL');
  const model = pick('TENURE_OPENAI_MODEL');
  const embeddingModel = pick('TENURE_OPENAI_EMBEDDING_MODEL');
  return { ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}), ...(embeddingModel ? { embeddingModel } : {}) };
}

function client(o: OpenAiOptions): OpenAI {
  return new OpenAI({
    // Local servers (Ollama, LM Studio) need no key, but the client insists on one.
    apiKey: o.apiKey ?? 'not-needed',
    ...(o.baseURL ? { baseURL: o.baseURL } : {}),
    maxRetries: 0,
    timeout: o.timeoutMs ?? 120_000,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
}

/** Maps the client's errors to LlmError kinds. */
export function classifyOpenAiError(e: unknown): LlmError {
  if (LlmError.is(e)) return e;
  if (e instanceof OpenAI.APIConnectionTimeoutError) return new LlmError('timeout', `The model endpoint did not answer in time: ${e.message}`, { cause: e });
  if (e instanceof OpenAI.APIUserAbortError) return new LlmError('cancelled', 'Cancelled.', { cause: e });
  if (e instanceof OpenAI.APIConnectionError) return new LlmError('connection', `Cannot reach the model endpoint: ${e.message}`, { cause: e });
  if (e instanceof OpenAI.APIError) {
    const status = e.status;
    const wait = retryAfterMs(e.headers);
    const opts = { status, cause: e, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
    if (status === 429) return new LlmError('rate-limited', `Rate limited by the model endpoint (429): ${e.message}`, opts);
    if (status === 401 || status === 403) return new LlmError('auth', `The model endpoint refused the key (${status}): ${e.message}. Set TENURE_OPENAI_API_KEY (or OPENAI_API_KEY).`, opts);
    if (status !== undefined && status >= 500) return new LlmError('server', `The model endpoint failed (${status}): ${e.message}`, opts);
    if (status === 408 || status === 409) return new LlmError('server', `The model endpoint asked to retry (${status}): ${e.message}`, opts);
    return new LlmError('bad-request', `The model endpoint rejected the request (${status ?? 'no status'}): ${e.message}`, opts);
  }
  if ((e as { name?: string }).name === 'AbortError') return new LlmError('cancelled', 'Cancelled.', { cause: e });
  return new LlmError('connection', `Model call failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

export class OpenAiChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly id: string;
  readonly contextTokens: number;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiOptions) {
    this.id = `openai:${options.model}`;
    this.contextTokens = options.contextTokens ?? 128_000;
    this.client = client(options);
  }

  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const limit = this.options.maxCompletionTokensParam ? { max_completion_tokens: request.maxOutputTokens } : { max_tokens: request.maxOutputTokens };
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: this.options.model,
          messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
          temperature: 0,
          ...limit,
          ...(request.json && this.options.jsonMode !== false ? { response_format: { type: 'json_object' as const } } : {}),
        },
        signal ? { signal } : {},
      );
      const choice = completion.choices?.[0];
      if (!choice) throw new LlmError('server', 'The model endpoint returned no choices.');
      if (choice.finish_reason === 'content_filter') throw new LlmError('refused', 'The provider filtered the reply (content_filter).');
      const text = choice.message?.content ?? '';
      const usage: Usage | undefined = completion.usage
        ? { inputTokens: completion.usage.prompt_tokens ?? 0, outputTokens: completion.usage.completion_tokens ?? 0 }
        : undefined;
      return usage ? { text, usage } : { text };
    } catch (e) {
      throw classifyOpenAiError(e);
    }
  }
}

export class OpenAiEmbedder implements Embedder {
  readonly provider = 'openai' as const;
  readonly id: string;
  readonly batchSize = 64;
  dimensions = 0;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiOptions & { embeddingModel: string }) {
    this.id = `openai:${options.embeddingModel}`;
    this.client = client(options);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[]; usage?: Usage }> {
    try {
      const r = await this.client.embeddings.create({ model: this.options.embeddingModel, input: [...texts], encoding_format: 'float' }, signal ? { signal } : {});
      const vectors = [...r.data].sort((a, b) => a.index - b.index).map((d) => normalise(Float32Array.from(d.embedding)));
      if (vectors.length !== texts.length) throw new LlmError('server', `The endpoint returned ${vectors.length} embeddings for ${texts.length} texts.`);
      this.dimensions = vectors[0]?.length ?? this.dimensions;
      return r.usage ? { vectors, usage: { inputTokens: r.usage.prompt_tokens ?? 0, outputTokens: 0 } } : { vectors };
    } catch (e) {
      throw classifyOpenAiError(e);
    }
  }
}

export function normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const norm = Math.sqrt(s);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
