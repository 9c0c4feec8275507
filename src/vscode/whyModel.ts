import { clockFromEnv } from '../core/episodic/clock.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import type { SymbolRef } from '../core/model/symbolRef.js';
import { whatBreaks } from '../core/structural/impact/whatBreaks.js';
import { whatHappenedBefore } from '../core/episodic/history.js';
import { rulesForChangeTo } from '../core/procedural/hints.js';
import { whyIsThis } from '../core/knowledge/why.js';
import type { Workspace } from '../core/store/workspace.js';
import { errorMessage } from '../shared/errors.js';
import type { MemoryPart, WhyView } from '../webview/protocol.js';
import { memoryTotals } from './memoryQueries.js';

/*
 * "Why is this?": one answer composed from the four memories for one symbol,
 * each part answered by the memory able to answer it and labelled with it.
 * A memory that is empty in this repository says so and says how to fill it;
 * one that fails says why, and the other parts still answer. No `vscode`
 * import: the panel (whyPanel.ts) only renders what this returns.
 */

export interface WhyOptions {
  readonly memoryOptions: MemoryOptions;
  readonly restricted: boolean;
  readonly depth?: number;
}

async function part<T>(fn: () => Promise<{ status: 'answered' | 'empty'; data: T; hint?: string }>): Promise<MemoryPart<T>> {
  try {
    return await fn();
  } catch (e) {
    return { status: 'unavailable', data: null, hint: errorMessage(e) };
  }
}

export async function composeWhy(ws: Workspace, target: SymbolRef, opts: WhyOptions): Promise<WhyView> {
  const db = ws.db;
  const totals = await memoryTotals(db);
  const structural = await part(async () => {
    const r = await whatBreaks(db, target, opts.depth ?? 2);
    return { status: r.dependents.length || r.implementers.length || r.dynamicSites.length || r.dispatches.length ? 'answered' : 'empty', data: r };
  });
  const knowledge = await part(async () => {
    const r = await whyIsThis(db, target, 8);
    if (!totals.documents) {
      return {
        status: 'empty' as const,
        data: r,
        hint: 'The knowledge memory is empty in this repository: no decision record, post-mortem, pull-request export or commit message has been indexed. Run "Tenure: Index Knowledge" (offline, no model and no cost) to read docs/, ADRs, post-mortems and the git history.',
      };
    }
    return {
      status: r.items.length || r.constraints.length ? ('answered' as const) : ('empty' as const),
      data: r,
      ...(r.items.length || r.constraints.length ? {} : { hint: `None of the ${totals.documents} indexed documents names ${target.qname} or its type. That is not a reason to think there is none: the reason may live in a document Tenure has not read.` }),
    };
  });
  const episodic = await part(async () => {
    const r = await whatHappenedBefore(db, target, 8, { clock: clockFromEnv(), options: opts.memoryOptions, root: ws.root, rulesFor: (t) => rulesForChangeTo(db, t) });
    if (!totals.episodes) {
      return {
        status: 'empty' as const,
        data: r,
        hint: 'No attempt has been recorded in this repository yet. Tenure records builds and tests you run in the integrated terminal (and `tenure run -- <command>` anywhere); "Tenure: Import Episodes…" reads an exported episode file.',
      };
    }
    return {
      status: r.entries.length ? ('answered' as const) : ('empty' as const),
      data: r,
      ...(r.entries.length ? {} : { hint: `None of the ${totals.episodes} recorded attempts touched ${target.qname} or its neighbourhood. No history is not evidence of safety.` }),
    };
  });
  const rules = episodic.data?.rules ?? [];
  const ruleCount = Object.values(totals.rules).reduce((a, b) => a + b, 0);
  const procedural: MemoryPart<typeof rules> = {
    status: rules.length ? 'answered' : episodic.status === 'unavailable' ? 'unavailable' : 'empty',
    data: rules,
    ...(rules.length
      ? {}
      : {
          hint: ruleCount
            ? `None of the ${ruleCount} learned rules is triggered by a change to ${target.qname}.`
            : 'No rule has been learned yet: rules are mined from recorded attempts (an ordering that keeps succeeding, a change that keeps failing) and promoted into AGENTS.md only after you approve the diff.',
        }),
  };
  return { target, restricted: opts.restricted, structural, knowledge, episodic, procedural, generatedAt: Date.now() };
}
