import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';

export class FedwireGateway implements PaymentGateway {
  readonly rail = 'fedwire' as const;

  async submit(instruction: Instruction): Promise<Receipt> {
    return { instructionId: instruction.id, reference: `fedwire-${instruction.id}`, acceptedAt: new Date() };
  }
}
