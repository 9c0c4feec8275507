import { z } from 'zod';
import { clockFromEnv } from '../episodic/clock.js';
import { loadOptions, type MemoryOptions } from '../episodic/options.js';
import { EpisodeRecorder } from '../episodic/recorder.js';
import { rulesForChangeTo } from '../procedural/hints.js';
import type { ToolContext, ToolSpec } from './types.js';
import { resolveOneSymbol } from '../structural/lookup.js';
import { WhatHappenedBeforeInput, renderWhatHappenedBefore, whatHappenedBefore } from '../episodic/history.js';

/*
 * Catalog entries of the episodic memory: what_happened_before (read-only)
 * and record_conclusion (the one thing an agent may write: its own reading,
 * stored as a conclusion, never as an outcome). There is deliberately no
 * tool that records an outcome or promotes a rule.
 */

/** Options for a tool call: the front door's (VS Code passes its settings as `memoryOptions`), else the workspace's .vscode/settings.json. */
export function optionsFor(ctx: ToolContext): MemoryOptions {
  return ctx.memoryOptions ?? loadOptions(ctx.workspace.root);
}

export const whatHappenedBeforeTool: ToolSpec<typeof WhatHappenedBeforeInput> = {
  name: 'what_happened_before',
  title: 'What happened before when this was changed?',
  summary: 'Earlier attempts on a symbol and its neighbourhood, ranked, with their outcomes (decided by the build system) and any conclusions (marked as such, decayed).',
  modelDescription:
    'Call this BEFORE changing a symbol to learn what happened on earlier attempts in this repository: changes to the symbol, its members, its callers and callees and its file, each with its age, ' +
    'the command that ran (build, test, lint, generate), the outcome and its evidence (failing tests, error lines), and the rules a change there triggers. ' +
    'Outcomes were decided by the build system, a test report, CI or a reviewer: high confidence, they never decay — take a recorded failure seriously. ' +
    "Conclusions are an agent's or a person's own reading of an outcome: low confidence, decaying with a half-life; they are labelled as conclusions, never as outcomes. " +
    'Attempts on code that has changed a lot since are flagged, and archived lessons are listed apart. No history is not evidence of safety. ' +
    'Input: a symbol name (`SettlementService.retry`), a symbol id or `path/file.ts:42`; optional limit.',
  input: WhatHappenedBeforeInput,
  cli: { command: 'what-happened-before', aliases: ['history'], positional: 'symbol' },
  readOnly: true,
  async run(ctx, input) {
    const { db, root } = ctx.workspace;
    const target = await resolveOneSymbol(db, input.symbol, { root });
    const result = await whatHappenedBefore(db, target, input.limit, { clock: clockFromEnv(), options: optionsFor(ctx), root, rulesFor: (t) => rulesForChangeTo(db, t) });
    return { data: result, text: renderWhatHappenedBefore(result) };
  },
};

export const RecordConclusionInput = z.object({
  conclusion: z.string().min(1).max(2000).describe('What you concluded, in one or two sentences: "the mappers must be regenerated before the tests run".'),
  symbol: z.string().optional().describe('The symbol(s) it is about, comma-separated names or ids; default: the symbols the latest attempt touched.'),
  episode: z.number().int().min(1).optional().describe('The episode it is about (an id from what_happened_before); default: the latest one if it ended in the last 30 minutes.'),
});

export const recordConclusionTool: ToolSpec<typeof RecordConclusionInput> = {
  name: 'record_conclusion',
  title: 'Record my conclusion',
  summary: "Record the agent's own conclusion about an attempt (stored as a low-confidence, decaying conclusion, never as an outcome).",
  modelDescription:
    'Call this after a build, test or review outcome when you have concluded something a later attempt should know ("the mappers must be regenerated first", ' +
    '"AllocationService.redrive assumes at most three attempts"). It is stored as YOUR conclusion: low confidence, decaying with a half-life, shown apart from outcomes. ' +
    'It never records an outcome (outcomes come only from the build system, test reports, CI and reviews) and it never changes the instructions in AGENTS.md (a person promotes rules). ' +
    'Keep it factual and specific; name the symbol it is about.',
  input: RecordConclusionInput,
  cli: { command: 'record-conclusion', aliases: ['conclude'], positional: 'conclusion' },
  readOnly: false,
  async run(ctx, input) {
    const symbols = (input.symbol ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    {
      const recorder = new EpisodeRecorder({ workspace: ctx.workspace, clock: clockFromEnv(), options: optionsFor(ctx) });
      const r = await recorder.recordConclusion({ text: input.conclusion, authorKind: 'agent', author: 'agent', symbols, episodeId: input.episode ?? null });
      const on = r.symbols.length ? ` about ${r.symbols.map((s) => s.qname ?? s.sid).join(', ')}` : '';
      const text =
        `Recorded conclusion #${r.id}${on}${r.episodeId ? ` on episode #${r.episodeId}` : ''} as the agent's own conclusion: confidence ${r.confidence}, halving every ${r.halfLifeDays} days. ` +
        `It is not an outcome and does not change AGENTS.md.${r.notes.length ? ` Notes: ${r.notes.join('; ')}.` : ''}`;
      return { data: { ...r, kind: 'conclusion', recordedAt: new Date(clockFromEnv().now()).toISOString(), decays: `halves every ${r.halfLifeDays} days` }, text };
    }
  },
};
