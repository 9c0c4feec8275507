export interface Instruction {
  readonly id: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly counterparty: string;
  readonly rail: 'swift' | 'sepa' | 'fedwire' | 'chaps' | 'target2' | 'sandbox';
}

export interface Receipt {
  readonly instructionId: string;
  readonly reference: string;
  readonly acceptedAt: Date;
}
