import type { PaymentGateway } from './PaymentGateway';
import { SwiftGateway } from './SwiftGateway';
import { SepaGateway } from './SepaGateway';
import { FedwireGateway } from './FedwireGateway';
import { ChapsGateway } from './ChapsGateway';
import { TargetTwoGateway } from './TargetTwoGateway';

/** The production rails, constructed directly; the sandbox rail comes from the container. */
export function productionGateways(): PaymentGateway[] {
  return [new SwiftGateway(), new SepaGateway(), new FedwireGateway(), new ChapsGateway(), new TargetTwoGateway()];
}
