/**
 * Typed errors. Callers match on `reason`, never on message text, so messages
 * can be reworded freely. Every message says what to do next.
 */
export type TenureErrorReason =
  | 'not-indexed'
  | 'symbol-not-found'
  | 'symbol-ambiguous'
  | 'invalid-input'
  | 'store-unavailable'
  | 'store-corrupt'
  | 'parse-failed'
  | 'cancelled'
  | 'io';

export class TenureError extends Error {
  override readonly name = 'TenureError';
  constructor(
    readonly reason: TenureErrorReason,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static is(value: unknown, reason?: TenureErrorReason): value is TenureError {
    return value instanceof TenureError && (reason === undefined || value.reason === reason);
  }
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
