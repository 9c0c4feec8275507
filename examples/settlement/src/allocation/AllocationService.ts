import { SettlementService } from '../settlement/SettlementService';
import type { Instruction } from '../settlement/Instruction';

export class AllocationService {
  constructor(private readonly settlement: SettlementService) {}

  async allocate(block: Instruction[]): Promise<number> {
    let settled = 0;
    for (const instruction of block) {
      await this.settlement.settle(instruction);
      settled++;
    }
    return settled;
  }

  /** Re-drives one failed allocation leg from its last attempt. */
  async redrive(instruction: Instruction, lastAttempt: number): Promise<void> {
    await this.settlement.retry(instruction, lastAttempt + 1);
  }
}
