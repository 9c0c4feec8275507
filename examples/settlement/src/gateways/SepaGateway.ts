import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';

export class SepaGateway implements PaymentGateway {
  readonly rail = 'sepa' as const;

  async submit(instruction: Instruction): Promise<Receipt> {
    return { instructionId: instruction.id, reference: `sepa-${instruction.id}`, acceptedAt: new Date() };
  }
}
