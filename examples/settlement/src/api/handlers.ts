import { createSettlementService } from '../di/wiring';
import type { Instruction } from '../settlement/Instruction';

const service = createSettlementService();

export async function postSettlement(body: Instruction) {
  return service.settle(body);
}

export async function postRetry(body: Instruction & { attempt: number }) {
  return service.retry(body, body.attempt);
}

const routes: Record<string, (body: any) => Promise<unknown>> = { postSettlement, postRetry };

export async function dispatch(route: string, body: unknown) {
  return routes[route](body);
}
