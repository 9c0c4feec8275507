import { stem } from '../../shared/stem.js';
import { LlmError } from './errors.js';
import type { ChatModel, ChatRequest, ChatResponse, Embedder } from './types.js';
import { fnv1a } from '../../shared/hash.js';

/*
 * The offline default: no network, no key, deterministic. The chat model
 * answers each task from the request's structured input with a handler the
 * caller supplies (extraction by names and phrases, extractive summaries and
 * reports); the embedder hashes words and character n-grams into a fixed
 * vector. Results made this way are labelled `offline` wherever they are shown.
 */

export type OfflineHandler = (input: unknown) => unknown;

export const OFFLINE_MODEL_ID = 'offline:tenure-1';

export class OfflineChatModel implements ChatModel {
  readonly provider = 'offline' as const;
  readonly id = OFFLINE_MODEL_ID;
  readonly contextTokens = 1_000_000;

  constructor(private readonly handlers: Readonly<Record<string, OfflineHandler>>) {}

  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    if (signal?.aborted) throw new LlmError('cancelled', 'Cancelled.');
    const handler = this.handlers[request.task];
    if (!handler) throw new LlmError('bad-request', `The offline model has no handler for task ${request.task}.`);
    return { text: JSON.stringify(handler(request.input)), usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Hashed bag of words and character 3- to 5-grams (the "hashing trick"),
 * signed to cancel collisions on average, L2-normalised. Close in meaning only
 * as far as close in spelling: "retry policy" is near "retries" and
 * "RetryPolicy", not near "backoff".
 */
export class HashingEmbedder implements Embedder {
  readonly provider = 'offline' as const;
  readonly id: string;
  readonly batchSize = 1024;

  constructor(readonly dimensions = 384) {
    this.id = `offline:hash-ngram-${dimensions}`;
  }

  vector(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      v[h % this.dimensions]! += h & 0x80000000 ? -weight : weight;
    };
    // Split camelCase and snake_case so identifiers share features with prose.
    const words = (text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().match(WORD) ?? []).map(stem);
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (STOP.has(w)) continue;
      add(`w:${w}`, 1);
      if (i + 1 < words.length && !STOP.has(words[i + 1]!)) add(`b:${w} ${words[i + 1]}`, 0.7);
      const padded = `^${w}$`;
      for (let n = 3; n <= 5; n++) for (let k = 0; k + n <= padded.length; k++) add(`g:${padded.slice(k, k + n)}`, 0.25);
    }
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
    const norm = Math.sqrt(s);
    if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[] }> {
    if (signal?.aborted) throw new LlmError('cancelled', 'Cancelled.');
    return { vectors: texts.map((t) => this.vector(t)) };
  }
}


const STOP = new Set(
  'a an and are as at be been but by can could did do does for from had has have how i if in into is it its of on or our so than that the their them then there these they this those to us was we were what when where which while who why will with would you your'.split(
    ' ',
  ),
);

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
