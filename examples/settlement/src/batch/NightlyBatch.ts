import { SettlementService } from '../settlement/SettlementService';
import type { Instruction } from '../settlement/Instruction';

type Step = 'settle' | 'retry';

export class NightlyBatch {
  constructor(private readonly service: SettlementService) {}

  async run(pending: Instruction[], failed: Instruction[]): Promise<void> {
    for (const i of pending) await this.service.settle(i);
    for (const i of failed) await this.service.retry(i, 2);
  }

  /** Steps named in the batch configuration file are dispatched by name. */
  async runStep(step: Step, instruction: Instruction): Promise<void> {
    await (this.service as any)[step](instruction, 1);
  }
}
