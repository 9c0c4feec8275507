/**
 * Model-call failures, classified once so the retry middleware never reads
 * message text. `retryable` says whether trying again can help; `retryAfterMs`
 * carries the server's own wait (Retry-After) when it gave one.
 */
export type LlmErrorKind =
  | 'rate-limited' // 429
  | 'server' // 5xx
  | 'timeout' // no reply within the time limit (a stalled stream or server)
  | 'connection' // refused, reset, DNS
  | 'auth' // 401/403: wrong or missing key
  | 'bad-request' // 400/404/422: the request itself is wrong (model name, parameters)
  | 'refused' // the model or its provider declined (content filter, no consent)
  | 'budget' // the run's token budget would be exceeded
  | 'cancelled';

export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly options: { retryAfterMs?: number; status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }

  get retryable(): boolean {
    return this.kind === 'rate-limited' || this.kind === 'server' || this.kind === 'timeout' || this.kind === 'connection';
  }

  static is(e: unknown, kind?: LlmErrorKind): e is LlmError {
    return e instanceof LlmError && (kind === undefined || e.kind === kind);
  }
}

/**
 * Reads a server's wait from response headers: `retry-after-ms` (OpenAI,
 * Azure), then `retry-after` as seconds or as an HTTP date. Undefined when
 * absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
