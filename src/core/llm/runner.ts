import { nodeCrypto } from '../../shared/nodeCrypto.js';
import { countTokens } from '../../shared/tokens.js';
import type * as z from 'zod';
import { LlmError } from './errors.js';
import type { CallStore, ChatMessage, ChatModel, Embedder, Usage } from './types.js';

/*
 * The middleware every model call goes through, whatever the port:
 *   cache      by (model, task, prompt version, content hash), in the call store
 *   budget     a token budget per run; a call that would exceed it is not made
 *   concurrency at most N calls in flight
 *   retry      exponential backoff with jitter; the server's Retry-After wins
 *   time limit per attempt (a stalled call is abandoned and retried)
 *   validation the reply is parsed as JSON and checked with zod; one repair
 *              attempt, then the reply is dropped and recorded (llm_rejects),
 *              never stored invalid
 *   cost log   one ledger row per real call (the call store)
 * The offline model skips cache, budget and cost log (it is free and
 * deterministic) but its output is validated like any other.
 */

export interface RunnerOptions {
  /** Cache and cost log live here; without one nothing is cached. */
  readonly calls?: CallStore;
  readonly runId?: number;
  /** Total tokens (prompt + reply) this runner may spend. Default: no limit. */
  readonly budgetTokens?: number;
  /** Calls in flight at once. Default 4. */
  readonly concurrency?: number;
  /** Attempts per call, including the first. Default 5. */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** A Retry-After longer than this fails the call instead of waiting. Default 120 s. */
  readonly maxRetryAfterMs?: number;
  /** Time limit per attempt. Default 120 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  /** Whether to read the cache (writing always happens). Default true. */
  readonly useCache?: boolean;
}

export interface TaskCall<T> {
  readonly task: string;
  readonly promptVersion: string;
  readonly messages: readonly ChatMessage[];
  readonly input: unknown;
  readonly schema: z.ZodType<T>;
  readonly maxOutputTokens: number;
  readonly json?: boolean;
}

export type TaskOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly cached: boolean; readonly repaired: boolean }
  | { readonly ok: false; readonly error: string };

export interface Spend {
  calls: number;
  cachedCalls: number;
  retries: number;
  repaired: number;
  dropped: number;
  inputTokens: number;
  outputTokens: number;
}

export function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

export function estimateTokens(text: string): number {
  // The tokenizer is exact for OpenAI models and a fair estimate for others; very long texts are estimated by length.
  return text.length > 200_000 ? approxTokens(text) : countTokens(text);
}

/**
 * Tokens by length (four characters each, a slight overestimate for English
 * prose and code): for packing decisions on a query path, where the
 * tokenizer's first use (it builds its tables) would hold the thread.
 */
/**
 * What a call cost, in tokens: the server's count when it is believable,
 * else our own count of what was sent and received. A server that reports
 * nothing, zero, a negative number or garbage does not make a call free —
 * the budget would never stop a run that pays by the token.
 */
export function trustedUsage(reported: Usage | undefined, counted: Usage): Usage {
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  const input = reported && ok(reported.inputTokens) && reported.inputTokens > 0 ? reported.inputTokens : counted.inputTokens;
  const output = reported && ok(reported.outputTokens) && (reported.outputTokens > 0 || counted.outputTokens === 0) ? reported.outputTokens : counted.outputTokens;
  return { inputTokens: Math.max(input, 0), outputTokens: Math.max(output, 0) };
}

export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function messagesTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 2);
}

/** JSON from a model reply: tolerates code fences and prose around one object. */
export function parseJsonReply(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
    if (fenced) {
      try {
        return JSON.parse(fenced[1]!);
      } catch {
        // fall through
      }
    }
    const start = trimmed.indexOf('{');
    const end = trimmed.lastIndexOf('}');
    if (start >= 0 && end > start) return JSON.parse(trimmed.slice(start, end + 1));
    throw new SyntaxError('the reply holds no JSON object');
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }
  release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('cancelled', 'Cancelled.'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LlmError('cancelled', 'Cancelled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class LlmRunner {
  readonly spend: Spend = { calls: 0, cachedCalls: 0, retries: 0, repaired: 0, dropped: 0, inputTokens: 0, outputTokens: 0 };
  private reserved = 0;
  private readonly gate: Semaphore;

  constructor(
    readonly model: ChatModel,
    readonly embedder: Embedder,
    private readonly options: RunnerOptions = {},
  ) {
    this.gate = new Semaphore(Math.max(1, options.concurrency ?? 4));
  }

  get offline(): boolean {
    return this.model.provider === 'offline';
  }

  get budgetTokens(): number {
    return this.options.budgetTokens ?? Infinity;
  }

  get spentTokens(): number {
    return this.spend.inputTokens + this.spend.outputTokens;
  }

  /** Tokens left under the budget, counting calls in flight. */
  get remainingTokens(): number {
    return this.budgetTokens - this.spentTokens - this.reserved;
  }

  cacheKey(call: Pick<TaskCall<unknown>, 'task' | 'promptVersion' | 'messages'>): string {
    const content = sha256(JSON.stringify(call.messages));
    return sha256(JSON.stringify([this.model.id, call.task, call.promptVersion, content]));
  }

  /** Whether the cache already holds an answer for this call (for cost estimates). */
  async isCached(call: Pick<TaskCall<unknown>, 'task' | 'promptVersion' | 'messages'>): Promise<boolean> {
    if (this.offline || !this.options.calls) return false;
    return (await this.options.calls.cached(this.cacheKey(call))) !== undefined;
  }

  /** One task call through the whole middleware. Throws only for budget, auth, cancellation and exhausted retries. */
  async run<T>(call: TaskCall<T>): Promise<TaskOutcome<T>> {
    if (this.offline) {
      const reply = await this.model.chat({ ...call, json: call.json ?? true }, this.options.signal);
      const parsed = call.schema.safeParse(parseJsonReply(reply.text));
      if (!parsed.success) {
        // A bug in an offline handler, not a model whim: say so loudly.
        throw new Error(`offline ${call.task} produced output that fails its schema: ${describeIssues(parsed.error)}`);
      }
      return { ok: true, value: parsed.data, cached: false, repaired: false };
    }
    const key = this.cacheKey(call);
    const calls = this.options.calls;
    if (calls && this.options.useCache !== false) {
      const hit = await calls.cached(key);
      if (hit) {
        const parsed = call.schema.safeParse(hit.output);
        if (parsed.success) {
          this.spend.cachedCalls++;
          return { ok: true, value: parsed.data, cached: true, repaired: false };
        }
      }
    }
    const first = await this.call(call.task, call.messages, call.input, call.maxOutputTokens, call.promptVersion, call.json ?? true);
    let problem: string;
    try {
      const parsed = call.schema.safeParse(parseJsonReply(first.text));
      if (parsed.success) {
        await this.store(key, call, parsed.data, first.usage);
        return { ok: true, value: parsed.data, cached: false, repaired: false };
      }
      problem = describeIssues(parsed.error);
    } catch (e) {
      problem = `not JSON (${e instanceof Error ? e.message : String(e)})`;
    }
    // One repair attempt: show the model its reply and what is wrong with it.
    const repairMessages: ChatMessage[] = [
      ...call.messages,
      { role: 'assistant', content: first.text.slice(0, 8000) },
      {
        role: 'user',
        content: `Your reply could not be used: ${problem}. Reply again with only one JSON object that follows the required format exactly — no prose, no code fences.`,
      },
    ];
    const second = await this.call(call.task, repairMessages, call.input, call.maxOutputTokens, call.promptVersion, call.json ?? true);
    try {
      const parsed = call.schema.safeParse(parseJsonReply(second.text));
      if (parsed.success) {
        this.spend.repaired++;
        await this.store(key, call, parsed.data, second.usage);
        await this.setCallStatus(second.callId, 'repaired');
        return { ok: true, value: parsed.data, cached: false, repaired: true };
      }
      problem = `${problem}; after repair: ${describeIssues(parsed.error)}`;
    } catch (e) {
      problem = `${problem}; after repair: not JSON (${e instanceof Error ? e.message : String(e)})`;
    }
    this.spend.dropped++;
    await this.reject(key, call.task, problem, second.text, second.callId);
    this.options.log?.(`${call.task}: dropped an invalid reply (${problem})`);
    return { ok: false, error: problem };
  }

  /** Embeds texts through retry, budget and cost log. */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.embedder.provider === 'offline') return (await this.embedder.embed(texts, this.options.signal)).vectors;
    const estimate = texts.reduce((n, t) => n + estimateTokens(t), 0);
    const r = await this.withRetries('embed', estimate, async (signal) => {
      const e = await this.embedder.embed(texts, signal);
      return { value: e.vectors, usage: trustedUsage(e.usage, { inputTokens: estimate, outputTokens: 0 }) };
    }, this.embedder.id);
    return r.value;
  }

  private async call(task: string, messages: readonly ChatMessage[], input: unknown, maxOutputTokens: number, promptVersion: string, json: boolean): Promise<{ text: string; usage: Usage; callId: number | undefined }> {
    const estimate = messagesTokens(messages) + maxOutputTokens;
    const r = await this.withRetries(task, estimate, async (signal) => {
      const reply = await this.model.chat({ task, promptVersion, messages, input, json, maxOutputTokens }, signal);
      const usage = trustedUsage(reply.usage, { inputTokens: messagesTokens(messages), outputTokens: estimateTokens(reply.text) });
      return { value: { text: reply.text, usage }, usage };
    }, this.model.id);
    return { ...r.value, callId: r.callId };
  }

  private async withRetries<T>(task: string, estimate: number, fn: (signal: AbortSignal) => Promise<{ value: T; usage: Usage }>, modelId: string): Promise<{ value: T; callId: number | undefined }> {
    const maxAttempts = Math.max(1, this.options.maxAttempts ?? 5);
    const runSignal = this.options.signal;
    if (estimate > this.remainingTokens) {
      throw new LlmError('budget', `The token budget (${fmt(this.budgetTokens)}) would be exceeded: ${fmt(this.spentTokens)} spent, ${fmt(this.reserved)} in flight, this call needs about ${fmt(estimate)}.`);
    }
    this.reserved += estimate;
    await this.gate.acquire();
    const t0 = performance.now();
    let attempt = 0;
    try {
      for (;;) {
        attempt++;
        if (runSignal?.aborted) throw new LlmError('cancelled', 'Cancelled.');
        const ac = new AbortController();
        const onAbort = () => ac.abort();
        runSignal?.addEventListener('abort', onAbort, { once: true });
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          ac.abort();
        }, this.options.timeoutMs ?? 120_000);
        try {
          const r = await fn(ac.signal);
          this.spend.calls++;
          this.spend.inputTokens += r.usage.inputTokens;
          this.spend.outputTokens += r.usage.outputTokens;
          const callId = await this.logCall(task, modelId, 'ok', attempt, r.usage, performance.now() - t0);
          return { value: r.value, callId };
        } catch (raw) {
          let e = LlmError.is(raw) ? raw : new LlmError('connection', raw instanceof Error ? raw.message : String(raw), { cause: raw });
          if (timedOut && (e.kind === 'cancelled' || e.kind === 'timeout')) e = new LlmError('timeout', `No reply within ${this.options.timeoutMs ?? 120_000} ms.`, { cause: raw });
          else if (runSignal?.aborted) e = new LlmError('cancelled', 'Cancelled.', { cause: raw });
          const wait = e.options.retryAfterMs;
          const maxWait = this.options.maxRetryAfterMs ?? 120_000;
          if (!e.retryable || attempt >= maxAttempts || (wait !== undefined && wait > maxWait)) {
            const why = wait !== undefined && wait > maxWait ? ` (the server asked to wait ${Math.round(wait / 1000)} s, more than the ${Math.round(maxWait / 1000)} s limit)` : e.retryable ? ` after ${attempt} attempts` : '';
            await this.logCall(task, modelId, 'failed', attempt, { inputTokens: 0, outputTokens: 0 }, performance.now() - t0, e.message + why);
            throw e.retryable ? new LlmError(e.kind, `${e.message}${why}`, e.options) : e;
          }
          const backoff = Math.min(this.options.maxDelayMs ?? 30_000, (this.options.baseDelayMs ?? 500) * 2 ** (attempt - 1));
          const delay = wait !== undefined ? wait : backoff / 2 + Math.random() * (backoff / 2);
          this.spend.retries++;
          this.options.log?.(`${task}: ${e.kind}${wait !== undefined ? `, server asked to wait ${Math.round(wait)} ms` : ''}; retry ${attempt}/${maxAttempts - 1} in ${Math.round(delay)} ms`);
          await sleep(delay, runSignal);
        } finally {
          clearTimeout(timer);
          runSignal?.removeEventListener('abort', onAbort);
        }
      }
    } finally {
      this.reserved -= estimate;
      this.gate.release();
    }
  }

  private async store(key: string, call: TaskCall<unknown>, value: unknown, usage: Usage): Promise<void> {
    await this.options.calls?.remember({ key, task: call.task, model: this.model.id, promptVersion: call.promptVersion, output: value, usage });
  }

  private async logCall(task: string, model: string, status: 'ok' | 'failed', attempts: number, usage: Usage, ms: number, error?: string): Promise<number | undefined> {
    return this.options.calls?.logCall({ runId: this.options.runId ?? null, task, model, status, attempts, usage, ms: Math.round(ms), error: error ?? null });
  }

  private async setCallStatus(callId: number | undefined, status: 'repaired' | 'dropped'): Promise<void> {
    if (callId === undefined) return;
    await this.options.calls?.setCallStatus(callId, status);
  }

  private async reject(key: string, task: string, error: string, output: string, callId: number | undefined): Promise<void> {
    const calls = this.options.calls;
    if (!calls) return;
    await calls.reject({ runId: this.options.runId ?? null, key, task, model: this.model.id, error, output: output.slice(0, 20_000) });
    await this.setCallStatus(callId, 'dropped');
  }
}

function fmt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'unlimited';
}
