import { resolve } from './container';
import type { PaymentGateway } from '../gateways/PaymentGateway';
import { SettlementService } from '../settlement/SettlementService';
import { RetryPolicy } from '../settlement/RetryPolicy';
import { AuditLog } from '../settlement/AuditLog';
import '../gateways/SandboxGateway';

/** Production wires a concrete rail; everything else gets whatever the container holds. */
export function createSettlementService(): SettlementService {
  const gateway = resolve<PaymentGateway>('PAYMENT_GATEWAY');
  return new SettlementService(gateway, new RetryPolicy(), new AuditLog());
}
