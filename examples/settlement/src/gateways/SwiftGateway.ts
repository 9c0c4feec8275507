import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';

export class SwiftGateway implements PaymentGateway {
  readonly rail = 'swift' as const;

  async submit(instruction: Instruction): Promise<Receipt> {
    return { instructionId: instruction.id, reference: `swift-${instruction.id}`, acceptedAt: new Date() };
  }
}
