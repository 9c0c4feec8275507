import type { SymbolKind } from './structural.js';

/** A symbol as every answer shows it: its stable id and where it is. The one shape every memory and front door uses. */
export interface SymbolRef {
  readonly id: number;
  readonly sid: string;
  readonly name: string;
  readonly qname: string;
  readonly kind: SymbolKind;
  readonly path: string;
  readonly line: number;
}
