import type { PaymentGateway } from '../gateways/PaymentGateway';
import { Instruction, Receipt } from './Instruction';
import { RetryPolicy } from './RetryPolicy';
import { AuditLog } from './AuditLog';

export class SettlementService {
  constructor(
    private readonly gateway: PaymentGateway,
    private readonly policy: RetryPolicy,
    private readonly audit: AuditLog,
  ) {}

  async settle(instruction: Instruction): Promise<Receipt> {
    this.audit.record('settle', instruction.id);
    return this.retry(instruction, 1);
  }

  /** Submits the instruction, retrying transient failures as the policy allows. */
  async retry(instruction: Instruction, attempt: number): Promise<Receipt> {
    try {
      return await this.gateway.submit(instruction);
    } catch (error) {
      if (!this.policy.shouldRetry(attempt, error as Error)) throw error;
      await sleep(this.policy.nextDelay(attempt));
      this.audit.record('retry', instruction.id);
      return this.retry(instruction, attempt + 1);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
