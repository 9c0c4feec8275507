import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';

export class ChapsGateway implements PaymentGateway {
  readonly rail = 'chaps' as const;

  async submit(instruction: Instruction): Promise<Receipt> {
    return { instructionId: instruction.id, reference: `chaps-${instruction.id}`, acceptedAt: new Date() };
  }
}
