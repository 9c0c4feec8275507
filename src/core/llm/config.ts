import { HashingEmbedder } from './offline.js';
import { OpenAiChatModel, OpenAiEmbedder, openAiOptionsFromEnv, type OpenAiOptions } from './openai.js';
import type { ChatModel, Embedder } from './types.js';

/*
 * Which model a run uses. Offline unless a model is named: a model-backed
 * pass costs money, so it runs only when asked. The key comes from the
 * environment (TENURE_OPENAI_API_KEY, then OPENAI_API_KEY) in the CLI and the
 * MCP server, and from SecretStorage in VS Code — never from a flag or a file
 * Tenure writes.
 */

export interface ModelSettings {
  /** A chat model name selects the OpenAI-compatible port; undefined means offline. */
  readonly model?: string;
  readonly embeddingModel?: string;
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly contextTokens?: number;
  readonly jsonMode?: boolean;
  readonly maxCompletionTokensParam?: boolean;
  readonly fetch?: typeof fetch;
}

/** Settings from flags, filled in from the environment. */
export function modelSettings(flags: ModelSettings, env: NodeJS.ProcessEnv = process.env): ModelSettings {
  const e = openAiOptionsFromEnv(env);
  const model = flags.model ?? undefined;
  return {
    ...flags,
    ...(model ? { model } : {}),
    ...(flags.baseURL ?? e.baseURL ? { baseURL: flags.baseURL ?? e.baseURL } : {}),
    ...(flags.apiKey ?? e.apiKey ? { apiKey: flags.apiKey ?? e.apiKey } : {}),
    ...(flags.embeddingModel ?? (model ? e.embeddingModel : undefined) ? { embeddingModel: flags.embeddingModel ?? e.embeddingModel } : {}),
  };
}

export function createChatModel(s: ModelSettings): ChatModel | undefined {
  if (!s.model) return undefined;
  const o: OpenAiOptions = {
    model: s.model,
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.baseURL ? { baseURL: s.baseURL } : {}),
    ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
    ...(s.contextTokens ? { contextTokens: s.contextTokens } : {}),
    ...(s.jsonMode !== undefined ? { jsonMode: s.jsonMode } : {}),
    ...(s.maxCompletionTokensParam ? { maxCompletionTokensParam: true } : {}),
    ...(s.fetch ? { fetch: s.fetch } : {}),
  };
  return new OpenAiChatModel(o);
}

export function createEmbedder(s: ModelSettings): Embedder {
  if (!s.embeddingModel) return new HashingEmbedder();
  return new OpenAiEmbedder({
    model: s.model ?? 'unused',
    embeddingModel: s.embeddingModel,
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.baseURL ? { baseURL: s.baseURL } : {}),
    ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
    ...(s.fetch ? { fetch: s.fetch } : {}),
  });
}

/** Whether a remote endpoint without a key is likely a mistake (OpenAI's own needs one; local servers do not). */
export function missingKey(s: ModelSettings): boolean {
  return !!s.model && !s.apiKey && (!s.baseURL || /api\.openai\.com|openai\.azure\.com/.test(s.baseURL));
}
