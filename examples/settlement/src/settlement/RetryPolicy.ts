/**
 * How often a failed settlement instruction is submitted again.
 * Three attempts: see docs/adr/0007-settlement-retries.md before changing it.
 */
export class RetryPolicy {
  static readonly MAX_ATTEMPTS = 3;

  constructor(private readonly baseDelayMs = 2_000) {}

  shouldRetry(attempt: number, error: Error): boolean {
    return attempt < RetryPolicy.MAX_ATTEMPTS && !(error instanceof DuplicateInstructionError);
  }

  nextDelay(attempt: number): number {
    return this.baseDelayMs * 2 ** (attempt - 1);
  }
}

export class DuplicateInstructionError extends Error {}
