import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';
import { Injectable } from '../di/container';

/**
 * The gateway used outside production. Nobody constructs it: the container
 * builds it when the `PAYMENT_GATEWAY` token is resolved (see di/wiring.ts).
 */
@Injectable('PAYMENT_GATEWAY')
export class SandboxGateway implements PaymentGateway {
  readonly rail = 'sandbox' as const;
  private failuresLeft = 2;

  async submit(instruction: Instruction): Promise<Receipt> {
    if (this.failuresLeft-- > 0) throw new Error('sandbox: simulated timeout');
    return { instructionId: instruction.id, reference: `sbx-${instruction.id}`, acceptedAt: new Date() };
  }
}
