import type { PaymentGateway } from './PaymentGateway';
import type { Instruction, Receipt } from '../settlement/Instruction';

export class TargetTwoGateway implements PaymentGateway {
  readonly rail = 'target2' as const;

  async submit(instruction: Instruction): Promise<Receipt> {
    return { instructionId: instruction.id, reference: `target2-${instruction.id}`, acceptedAt: new Date() };
  }
}
