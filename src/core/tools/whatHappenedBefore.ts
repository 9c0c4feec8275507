import * as z from 'zod';
import { withoutHidden } from '../../shared/hiddenText.js';
import { clockFromEnv } from '../episodic/clock.js';
import { whatHappenedBefore, type ConclusionView, type HistoryEntry, type HistoryResult } from '../episodic/history.js';
import type { EpisodeProvenance } from '../episodic/model.js';
import { loadOptions, type MemoryOptions } from '../episodic/options.js';
import { rulesForChangeTo } from '../procedural/hints.js';
import { resolveOneSymbol } from '../structural/lookup.js';
import { clip, fitToBudget, moreLine } from './budget.js';
import { Omitted, RuleView, SymbolView, ruleView, rulesBlock, symbolView, symbolWords } from './present.js';
import { defineTool, type ToolContext } from './types.js';

/*
 * what_happened_before: earlier attempts on a symbol and its neighbourhood,
 * most relevant first, each with the outcome the build system decided (high
 * confidence, never decaying) and, apart, the conclusions someone drew
 * (low confidence, decaying) — within an agent's budget.
 */

export const WhatHappenedBeforeInput = z.object({
  symbol: z.string().min(1).max(1000).describe('The symbol you are about to change: a name (`SettlementService.retry`), a symbol id, or `path/file.ts:42`.'),
  limit: z.number().int().min(1).max(50).default(8).describe('How many earlier attempts to list, most relevant first. Default 8.'),
});

/** Options for a tool call: the front door's (VS Code passes its settings as `memoryOptions`), else the workspace's .vscode/settings.json. */
export function optionsFor(ctx: ToolContext): MemoryOptions {
  return ctx.memoryOptions ?? loadOptions(ctx.workspace.root);
}

export const ConclusionOut = z.object({
  id: z.number().int(),
  text: z.string(),
  by: z.string().describe("whose reading it is: an agent's or a person's — never an outcome"),
  confidence: z.string().describe('initial → now, after decay'),
});

const AttemptView = z.object({
  episode: z.number().int(),
  at: z.string(),
  age: z.string(),
  kind: z.string(),
  status: z.string().describe('the outcome, decided by the build system, a test report, CI or a reviewer (high confidence)'),
  exitCode: z.number().int().nullable(),
  command: z.string().nullable(),
  link: z.string().describe('how the attempt relates to the symbol'),
  intent: z.string().optional(),
  evidence: z.string().optional().describe('what the outcome rests on: failing tests, error lines'),
  evidenceSource: z.string().optional().describe('who decided the outcome: build-system, junit, ci, review'),
  stale: z.string().optional().describe('the code it touched has changed since: the lesson may no longer apply'),
  from: z.string().optional().describe('where the episode came from when not from this clone: CI (which system, which branch) or a teammate through the team store'),
  conclusions: z.array(ConclusionOut),
});

const WhatHappenedBeforeOutput = z.object({
  target: SymbolView,
  summary: z.string(),
  attempts: z.array(AttemptView),
  conclusions: z.array(ConclusionOut).describe('conclusions about it not tied to a listed attempt'),
  archived: z.number().int().describe('lessons about code that has changed or gone since, not listed'),
  rules: z.array(RuleView),
  notSeen: z.array(z.string()),
  omitted: Omitted,
});
type WhatHappenedBeforeOutput = z.infer<typeof WhatHappenedBeforeOutput>;

const RELATION_WORDS: Record<string, string> = {
  member: 'its member',
  container: 'its container',
  caller: 'its dependent',
  callee: 'its dependency',
};

export function linkWords(l: HistoryEntry['link']): string {
  if (l.relation === 'self') return 'touched the symbol itself';
  if (l.relation === 'same-file') return `touched ${l.qname ? `${l.qname} in ` : ''}the same file (${l.path})`;
  return `touched ${RELATION_WORDS[l.relation] ?? l.relation} ${l.qname ?? l.path}${l.edgeTier ? ` (${l.edgeTier} edge)` : ''}`;
}

export function conclusionOut(c: ConclusionView): z.infer<typeof ConclusionOut> {
  const by = c.authorKind === 'agent' ? (c.author === 'agent' ? "the agent's own conclusion" : `${c.author}'s (agent) own conclusion`) : `${c.author}'s note (person)`;
  const from = c.team ? ` from the team store (written by ${c.team.recordedBy ?? 'a teammate'})` : '';
  return { id: c.id, text: clip(withoutHidden(c.text), 240), by: `${by}${from}`, confidence: `${c.confidence.initial.toFixed(2)} → ${c.confidence.now.toFixed(2)} after ${c.age.replace(/ ago$/, '')} (half-life ${c.confidence.halfLifeDays} d)` };
}

export function conclusionWords(c: z.infer<typeof ConclusionOut>): string {
  return `conclusion — ${c.by}, NOT an outcome; confidence ${c.confidence}: "${c.text}"`;
}

export function attemptView(e: HistoryEntry): z.infer<typeof AttemptView> {
  const ep = e.episode;
  const o = e.outcome;
  return {
    episode: ep.id,
    at: ep.at.slice(0, 10),
    age: ep.age,
    kind: o.kind,
    status: o.status,
    exitCode: o.exitCode,
    command: ep.command,
    link: linkWords(e.link),
    ...(ep.intent ? { intent: clip(ep.intent, 160) } : {}),
    ...(o.evidence ? { evidence: clip(withoutHidden(o.evidence).split('\n').slice(0, 3).join(' | '), 240), evidenceSource: o.source } : {}),
    ...(ep.provenance ? { from: provenanceWords(ep.provenance, ep.branch) } : {}),
    ...(e.drift.stale ? { stale: `changed since${e.drift.similarity !== null ? ` (similarity ${e.drift.similarity})` : ''}${e.drift.symbolsGone.length ? `; gone: ${e.drift.symbolsGone.slice(0, 3).join(', ')}` : ''}` } : {}),
    conclusions: e.conclusions.slice(0, 2).map(conclusionOut),
  };
}

export function presentHistory(r: HistoryResult, rules: readonly RuleView[], limit: number): WhatHappenedBeforeOutput {
  const attempts = r.entries.slice(0, limit).map(attemptView);
  const conclusions = r.conclusions.slice(0, Math.max(1, Math.ceil(limit / 3))).map(conclusionOut);
  const shownRules = rules.slice(0, 5);
  const omitted: Record<string, number> = {};
  if (r.entries.length > attempts.length) omitted['attempts'] = r.entries.length - attempts.length;
  if (r.conclusions.length > conclusions.length) omitted['conclusions'] = r.conclusions.length - conclusions.length;
  if (rules.length > shownRules.length) omitted['rules'] = rules.length - shownRules.length;
  return { target: symbolView(r.target), summary: r.summary, attempts, conclusions, archived: r.counts.archived, rules: shownRules, notSeen: [...r.notSeen], omitted };
}

function status(a: z.infer<typeof AttemptView>): string {
  const s = a.status === 'success' ? 'succeeded' : a.status === 'failure' ? 'FAILED' : a.status.toUpperCase();
  return `${a.kind} ${s}${a.exitCode !== null ? ` (exit ${a.exitCode})` : ''}`;
}

/** "recorded by CI (GitHub Actions) on main", "recorded by bob@example.com on feature/x (team store)". */
export function provenanceWords(p: EpisodeProvenance, branch: string | null): string {
  const on = branch ? ` on ${branch}` : '';
  if (p.ci) return `recorded by CI (${CI_WORDS[p.ci.provider]})${on}${p.ci.pipelineUrl ? `, ${p.ci.pipelineUrl}` : ''}`;
  return `recorded by ${p.author ?? p.recordedBy ?? 'a teammate'}${on} (team store)`;
}

const CI_WORDS: Record<NonNullable<EpisodeProvenance['ci']>['provider'], string> = { 'github-actions': 'GitHub Actions', 'gitlab-ci': 'GitLab CI', jenkins: 'Jenkins' };

export function attemptLines(a: z.infer<typeof AttemptView>, prefix: string): string[] {
  const lines = [`${prefix}#${a.episode} · ${a.age} (${a.at}) · ${status(a)}${a.command ? ` · \`${a.command}\`` : ''} — ${a.link}${a.from ? ` · ${a.from}` : ''}`];
  if (a.intent) lines.push(`   intent: ${a.intent}`);
  if (a.evidence) lines.push(`   evidence (${a.evidenceSource}, high confidence): ${a.evidence}`);
  for (const c of a.conclusions) lines.push(`   ${conclusionWords(c)}`);
  if (a.stale) lines.push(`   ⚠ the code it touched has ${a.stale}: the lesson may no longer apply`);
  return lines;
}

export function renderWhatHappenedBefore(a: WhatHappenedBeforeOutput): string {
  const lines = [`what_happened_before ${symbolWords(a.target)}`, a.summary];
  a.attempts.forEach((x, i) => lines.push(...attemptLines(x, `${i + 1}. `)));
  if (a.omitted['attempts']) lines.push(moreLine(a.omitted['attempts'], 'attempts', a.attempts.length + a.omitted['attempts']));
  if (a.conclusions.length) {
    lines.push(`conclusions about it not tied to a listed attempt (${a.conclusions.length + (a.omitted['conclusions'] ?? 0)}):`);
    for (const c of a.conclusions) lines.push(`  - ${conclusionWords(c)}`);
  }
  lines.push(...rulesBlock(a.rules, a.omitted['rules'] ?? 0));
  if (a.archived) lines.push(`archived: ${a.archived} lesson${a.archived === 1 ? '' : 's'} about code that has changed or gone since (\`tenure episodes list --archived\`).`);
  lines.push(`not seen: ${a.notSeen.join('; ')}.`);
  return lines.join('\n');
}

const BUDGET = 800;

export const whatHappenedBeforeTool = defineTool({
  name: 'what_happened_before',
  title: 'What happened before when this was changed?',
  summary: 'Earlier attempts on a symbol and its neighbourhood, ranked, with their outcomes (decided by the build system) and any conclusions (marked as such, decayed).',
  modelDescription:
    'Call this BEFORE changing a symbol to learn what happened on earlier attempts in this repository: changes to the symbol, its members, its callers and callees and its file, each with its age, ' +
    'the command that ran (build, test, lint, generate), the outcome and its evidence (failing tests, error lines), and the rules a change there triggers. ' +
    'Outcomes were decided by the build system, a test report, CI or a reviewer: high confidence, they never decay — take a recorded failure seriously. ' +
    "Conclusions are an agent's or a person's own reading of an outcome: low confidence, decaying with a half-life; they are labelled as conclusions, never as outcomes. " +
    'Attempts on code that has changed a lot since are flagged, and archived lessons are counted apart. No history is not evidence of safety. ' +
    'Input: a symbol name (`SettlementService.retry`), a symbol id or `path/file.ts:42`; optional limit.',
  input: WhatHappenedBeforeInput,
  output: WhatHappenedBeforeOutput,
  cli: { command: 'what-happened-before', aliases: ['history'], positional: 'symbol' },
  effects: { readOnly: true, idempotent: true },
  budgetTokens: BUDGET,
  async run(ctx, input) {
    const { db, root } = ctx.workspace;
    const target = await resolveOneSymbol(db, input.symbol, { root });
    const result = await whatHappenedBefore(db, target, input.limit, { clock: clockFromEnv(), options: optionsFor(ctx), root });
    const rules = (await rulesForChangeTo(db, target)).map(ruleView);
    return fitToBudget((limit) => presentHistory(result, rules, limit), renderWhatHappenedBefore, input.limit, BUDGET);
  },
});
