import type { Instruction, Receipt } from '../settlement/Instruction';

/** A payment rail that accepts settlement instructions. */
export interface PaymentGateway {
  readonly rail: Instruction['rail'];
  submit(instruction: Instruction): Promise<Receipt>;
}
