import { resolveOneSymbol } from '../structural/lookup.js';
import { WhatBreaksInput, renderWhatBreaks, whatBreaks } from '../structural/impact/whatBreaks.js';
import { askToolSpec } from '../compose/ask.js';
import { recordConclusionTool, whatHappenedBeforeTool } from './episodic.js';
import { relatedByIntentTool, searchKnowledgeTool, whyIsThisTool } from './knowledge.js';
import { renderRulesBlock } from '../model/rules.js';
import { rulesForChangeTo } from '../procedural/hints.js';
import type { ToolSpec } from './types.js';

/*
 * The one tool catalog. package.json's languageModelTools, the MCP server's
 * tool list and the CLI's commands are all generated from this list; a test
 * fails when package.json drifts from it.
 */

const TIERS_FOR_AGENTS =
  'Every edge carries a tier: resolved (a type checker or compiler confirmed it — safe to act on), observed (seen in a real execution), ' +
  'inferred (name match only — verify before acting), ambiguous (several candidates share the name; all are listed, none chosen), ' +
  'dynamic (target computed at run time; recorded, never dropped). Counts are lower bounds: read the "not seen" list before concluding nothing else breaks.';

export const whatBreaksTool: ToolSpec<typeof WhatBreaksInput> = {
  name: 'what_breaks',
  title: 'What breaks if I change this?',
  summary: 'Dependents of a symbol (callers, references, implementers, overriders), grouped by tier, with a lower-bound summary.',
  modelDescription:
    'Call this BEFORE changing, renaming, removing or changing the signature of a function, method, class, interface or field, to learn what depends on it in this repository: ' +
    'callers, references, instantiations, subclasses and implementers, overriding methods, calls through interfaces that may dispatch to it, and dynamic call sites. ' +
    'Input: a symbol name (`SettlementService.retry`, `retry`), a symbol id, or `path/file.ts:42`; optional depth (default 2). If the name matches several symbols the tool lists them and you must ask again with one of the ids. ' +
    'The answer ends with the learned rules a change there triggers (e.g. a generator to run before the tests), each with its standing. ' +
    TIERS_FOR_AGENTS,
  input: WhatBreaksInput,
  cli: { command: 'what-breaks', aliases: ['impact'], positional: 'symbol' },
  readOnly: true,
  async run(ctx, input) {
    const { db, root } = ctx.workspace;
    const target = await resolveOneSymbol(db, input.symbol, { root });
    ctx.queried?.([target.sid]);
    const result = await whatBreaks(db, target, input.depth);
    // How work is done here when this changes: rules whose trigger (a path, this symbol) the change touches.
    const rules = await rulesForChangeTo(db, target);
    return { data: { ...result, rules }, text: [renderWhatBreaks(result), ...renderRulesBlock(rules)].join('\n') };
  },
};

export const TOOLS: readonly ToolSpec[] = [
  whatBreaksTool as unknown as ToolSpec,
  whatHappenedBeforeTool as unknown as ToolSpec,
  whyIsThisTool as unknown as ToolSpec,
  relatedByIntentTool as unknown as ToolSpec,
  searchKnowledgeTool as unknown as ToolSpec,
  askToolSpec(() => TOOLS) as unknown as ToolSpec,
  recordConclusionTool as unknown as ToolSpec,
];

export function findTool(name: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.name === name || t.cli.command === name || t.cli.aliases.includes(name));
}
