import * as z from 'zod';
import { clockFromEnv } from '../episodic/clock.js';
import { EpisodeRecorder } from '../episodic/recorder.js';
import { defineTool } from './types.js';
import { optionsFor } from './whatHappenedBefore.js';

/*
 * record_conclusion: the one thing an agent may write — its own reading of
 * an outcome, stored as a conclusion (low confidence, decaying), never as an
 * outcome. There is deliberately no tool that records an outcome or
 * promotes a rule.
 */

export const RecordConclusionInput = z.object({
  conclusion: z.string().min(1).max(2000).describe('What you concluded, in one or two sentences: "the mappers must be regenerated before the tests run".'),
  symbol: z.string().max(2000).optional().describe('The symbol(s) it is about, comma-separated names or ids; default: the symbols the latest attempt touched.'),
  episode: z.number().int().min(1).optional().describe('The episode it is about (an id from what_happened_before); default: the latest one if it ended in the last 30 minutes.'),
});

const RecordConclusionOutput = z.object({
  id: z.number().int(),
  kind: z.literal('conclusion').describe('always a conclusion: an outcome is never recorded by an agent'),
  text: z.string(),
  episodeId: z.number().int().nullable(),
  symbols: z.array(z.object({ sid: z.string().nullable(), qname: z.string().nullable(), path: z.string().nullable() })),
  confidence: z.number(),
  halfLifeDays: z.number(),
  recordedAt: z.string(),
  notes: z.array(z.string()),
});

export const recordConclusionTool = defineTool({
  name: 'record_conclusion',
  title: 'Record my conclusion',
  summary: "Record the agent's own conclusion about an attempt (stored as a low-confidence, decaying conclusion, never as an outcome).",
  modelDescription:
    'Call this after a build, test or review outcome when you have concluded something a later attempt should know ("the mappers must be regenerated first", ' +
    '"AllocationService.redrive assumes at most three attempts"). It is stored as YOUR conclusion: low confidence, decaying with a half-life, shown apart from outcomes. ' +
    'It never records an outcome (outcomes come only from the build system, test reports, CI and reviews) and it never changes the instructions in AGENTS.md (a person promotes rules). ' +
    'Keep it factual and specific; name the symbol it is about.',
  input: RecordConclusionInput,
  output: RecordConclusionOutput,
  cli: { command: 'record-conclusion', aliases: ['conclude'], positional: 'conclusion' },
  effects: { readOnly: false, idempotent: false },
  budgetTokens: 200,
  async run(ctx, input) {
    const symbols = (input.symbol ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const clock = clockFromEnv();
    const recorder = new EpisodeRecorder({ workspace: ctx.workspace, clock, options: optionsFor(ctx) });
    const r = await recorder.recordConclusion({ text: input.conclusion, authorKind: 'agent', author: 'agent', symbols, episodeId: input.episode ?? null });
    const on = r.symbols.length ? ` about ${r.symbols.map((s) => s.qname ?? s.sid).join(', ')}` : '';
    const text =
      `Recorded conclusion #${r.id}${on}${r.episodeId ? ` on episode #${r.episodeId}` : ''} as the agent's own conclusion: confidence ${r.confidence}, halving every ${r.halfLifeDays} days. ` +
      `It is not an outcome and does not change AGENTS.md.${r.notes.length ? ` Notes: ${r.notes.join('; ')}.` : ''}`;
    return { data: { ...r, kind: 'conclusion' as const, text: input.conclusion, recordedAt: new Date(clock.now()).toISOString() }, text };
  },
});
