import * as z from 'zod';
import type { TriggeredRule } from '../core/model/rules.js';
import type { SymbolRef } from '../core/model/symbolRef.js';
import type { WhatBreaksResult } from '../core/structural/impact/result.js';
import type { HistoryResult } from '../core/episodic/history.js';
import type { WhyIsThisResult } from '../core/knowledge/why.js';
import type { MemoryPart } from '../core/compose/ask.js';

/*
 * The messages between Tenure's webview panels and the extension host. The
 * host validates every message a webview sends with these schemas and drops
 * what does not parse (a webview is a browser page: treat its messages as
 * input). The webview imports only the types, so zod stays out of its bundle.
 */

const RelPath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.includes('\0') && !/^([a-zA-Z]:)?[\\/]/.test(p) && !p.split(/[\\/]/).includes('..'), 'a workspace-relative path');

export const FromWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('open'), path: RelPath, line: z.number().int().min(1).max(10_000_000), col: z.number().int().min(0).max(100_000).optional() }),
  z.object({ type: z.literal('openUrl'), url: z.string().max(2048).regex(/^https?:\/\//) }),
  z.object({ type: z.literal('setDepth'), depth: z.number().int().min(1).max(6) }),
  z.object({ type: z.literal('showImpact'), symbol: z.string().min(1).max(2000) }),
  z.object({ type: z.literal('showWhy'), symbol: z.string().min(1).max(2000) }),
  z.object({ type: z.literal('runCommand'), command: z.enum(['tenure.indexKnowledge', 'tenure.importEpisodes', 'tenure.reindex', 'tenure.showOutput']) }),
  z.object({ type: z.literal('cspViolation'), directive: z.string().max(200), blocked: z.string().max(500) }),
  z.object({ type: z.literal('rendered'), view: z.enum(['impact', 'why']), stats: z.record(z.string(), z.number()) }),
]);
export type FromWebview = z.infer<typeof FromWebview>;

export type { MemoryPart };

export interface WhyView {
  readonly target: SymbolRef;
  readonly restricted: boolean;
  readonly structural: MemoryPart<WhatBreaksResult>;
  readonly knowledge: MemoryPart<WhyIsThisResult>;
  readonly episodic: MemoryPart<HistoryResult>;
  readonly procedural: MemoryPart<readonly TriggeredRule[]>;
  readonly generatedAt: number;
}

export interface ImpactView {
  readonly result: WhatBreaksResult;
  readonly restricted: boolean;
  readonly generatedAt: number;
}

/** What the host posts to a panel. */
export type ToWebview =
  | { readonly type: 'loading'; readonly symbol: string }
  | { readonly type: 'impact'; readonly view: ImpactView }
  | { readonly type: 'why'; readonly view: WhyView }
  | { readonly type: 'error'; readonly message: string; readonly symbol?: string };

/** What a panel keeps in `vscode.setState` so that it comes back after a reload. */
export interface PanelState {
  readonly symbol?: string;
  readonly depth?: number;
  readonly hiddenTiers?: readonly string[];
  /** The impact tree groups each hop by file (default) or by tier. */
  readonly groupBy?: 'file' | 'tier';
}

export const PanelStateSchema = z.object({
  symbol: z.string().min(1).max(2000).optional(),
  depth: z.number().int().min(1).max(6).optional(),
  hiddenTiers: z.array(z.string().max(20)).max(10).optional(),
  groupBy: z.enum(['file', 'tier']).optional(),
});
