import * as z from 'zod';
import { EDGE_TIERS } from '../model/tiers.js';
import { rulesForChangeTo } from '../procedural/hints.js';
import { dependentTotal, dispatchTotal, type Dependent, type DependencyKind, type WhatBreaksResult } from '../structural/impact/result.js';
import { whatBreaks } from '../structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../structural/lookup.js';
import { clip, fitToBudget, moreLine } from './budget.js';
import { EdgeTier, Omitted, RuleView, SymbolView, edgeTierHeading, ruleView, rulesBlock, symbolView, symbolWords } from './present.js';
import { defineTool } from './types.js';

/*
 * what_breaks: the structural memory's answer to "what depends on this?",
 * within an agent's budget. Direct dependents first, grouped by tier and by
 * file; then what they reach; then implementations, dispatches and dynamic
 * sites; the lower-bound sentence first of all, and the rules last.
 */

/** Dependents an answer lists unless asked for more. */
export const DEFAULT_LIMIT = 30;
/** Candidates an answer shows per ambiguous site. */
export const CANDIDATES_SHOWN = 6;
/** The largest limit an answer takes. */
const MAX_LIMIT = 500;

export const WhatBreaksInput = z.object({
  symbol: z.string().min(1).max(1000).describe('The symbol to change: a name (`SettlementService.retry`, `retry`), a symbol id, or `path/file.ts:42`.'),
  depth: z.number().int().min(1).max(10).default(2).describe('How many hops of dependents to follow (1 = direct dependents only). Default 2.'),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe(`Most dependents to list (default ${DEFAULT_LIMIT}); the counts always cover all of them.`),
});

const DependentView = z.object({
  symbol: SymbolView,
  relation: z.string().describe('how it depends: calls, reads, writes, references, instantiates, imports, extends, implements, overrides, member'),
  tier: EdgeTier,
  distance: z.number().int().describe('1 = direct'),
  via: z.string().optional().describe('for distance > 1: the dependent it reaches the target through'),
  site: z.string().describe('path:line of the (first) use'),
  sites: z.number().int().describe('use sites in this dependent'),
  source: z.string().describe('what produced the edge: tree-sitter, lsp:typescript, scip, bytecode, traces, …'),
  reason: z.string(),
  candidates: z.array(z.string()).optional().describe('ambiguous: every symbol the site may mean'),
});

const CallView = z.object({ symbol: SymbolView, site: z.string(), tier: EdgeTier, source: z.string().optional(), through: z.string().optional(), resolution: z.string().optional(), use: z.enum(['call', 'read', 'write']).optional(), reason: z.string().optional() });

const WhatBreaksOutput = z.object({
  target: SymbolView,
  depth: z.number().int(),
  summary: z.string().describe('the answer in one sentence, stated as a lower bound'),
  counts: z.object({
    dependents: z.number().int().describe('every dependent, listed or not'),
    direct: z.number().int(),
    unlisted: z.number().int().optional().describe('dependents past the limit (ambiguous ones, and every one of a hop that starts past it): counted in these numbers, not read (the impact panel lists them)'),
    byTier: z.record(z.string(), z.number().int()),
    byKind: z.record(z.string(), z.number().int()),
    implementations: z.number().int(),
    dispatches: z.number().int(),
    dynamicSites: z.number().int(),
  }),
  dependents: z.array(DependentView),
  implementations: z.array(CallView),
  dispatches: z.array(CallView),
  dynamicSites: z.array(CallView),
  notSeen: z.array(z.string()),
  recursion: z.array(z.string()).optional().describe('path:line where the target calls itself: recursion, not a dependent'),
  rules: z.array(RuleView),
  omitted: Omitted.describe('how many items of each list are not shown; ask again with a larger limit'),
});
type WhatBreaksOutput = z.infer<typeof WhatBreaksOutput>;

const RELATION: Record<DependencyKind, string> = {
  call: 'calls',
  instantiate: 'instantiates',
  reference: 'references',
  import: 'imports',
  extends: 'extends',
  implements: 'implements',
  read: 'reads',
  write: 'writes',
  overrides: 'overrides',
  member: 'uses a member of',
};

function dependentView(d: Dependent): z.infer<typeof DependentView> {
  const at = d.sites[0]!;
  return {
    symbol: symbolView(d.symbol),
    relation: RELATION[d.kind],
    tier: d.tier,
    distance: d.distance,
    ...(d.distance > 1 && d.via.name ? { via: d.via.name } : {}),
    site: `${at.path}:${at.line}`,
    sites: d.sites.length,
    source: d.provenance.source,
    reason: d.provenance.reason,
    ...(d.candidates?.length ? { candidates: d.candidates.slice(0, CANDIDATES_SHOWN).map((c) => c.qname) } : {}),
  };
}

/** The structured answer at a limit: the same items the text shows. */
export function presentWhatBreaks(r: WhatBreaksResult, rules: readonly RuleView[], limit: number): WhatBreaksOutput {
  const side = Math.max(3, Math.ceil(limit / 3));
  const dependents = r.dependents.slice(0, limit).map(dependentView);
  const implementations = r.implementers.slice(0, side).map((i) => ({ symbol: symbolView(i.symbol), site: `${i.symbol.path}:${i.symbol.line}`, tier: i.tier, source: i.provenance.source, reason: i.provenance.reason }));
  const dispatches = r.dispatches.slice(0, side).map((d) => ({ symbol: symbolView(d.caller), site: `${d.site.path}:${d.site.line}`, tier: d.tier, source: d.provenance.source, through: d.through.qname, resolution: d.resolution, ...(d.kind !== 'call' ? { use: d.kind } : {}) }));
  const dynamicSites = r.dynamicSites.slice(0, side).map((d) => ({ symbol: symbolView(d.owner), site: `${d.site.path}:${d.site.line}`, tier: 'dynamic' as const, reason: d.reason }));
  const shownRules = rules.slice(0, 5);
  const omitted: Record<string, number> = {};
  const note = (what: string, all: number, shown: number) => {
    if (all > shown) omitted[what] = all - shown;
  };
  const total = dependentTotal(r);
  note('dependents', total, dependents.length);
  note('implementations', r.implementers.length, implementations.length);
  note('dispatches', dispatchTotal(r), dispatches.length);
  note('dynamicSites', r.dynamicSites.length, dynamicSites.length);
  note('rules', rules.length, shownRules.length);
  return {
    target: symbolView(r.target),
    depth: r.depth,
    summary: r.summary,
    counts: {
      dependents: total,
      direct: r.counts.direct,
      ...(r.unlisted ? { unlisted: r.unlisted.count } : {}),
      byTier: Object.fromEntries(Object.entries(r.counts.byTier).filter(([, n]) => n > 0)),
      byKind: r.counts.byKind as Record<string, number>,
      implementations: r.implementers.length,
      dispatches: dispatchTotal(r),
      dynamicSites: r.dynamicSites.length,
    },
    dependents,
    implementations,
    dispatches,
    dynamicSites,
    notSeen: [...r.notSeen],
    ...(r.recursion.length ? { recursion: r.recursion.map((x) => `${x.path}:${x.line}`) } : {}),
    rules: shownRules,
    omitted,
  };
}

/** Items of one tier, grouped by the file they are in when several share one: the path is said once. */
function byFile(items: readonly z.infer<typeof DependentView>[], indent: string): string[] {
  const files = new Map<string, z.infer<typeof DependentView>[]>();
  for (const d of items) {
    const file = d.site.slice(0, d.site.lastIndexOf(':'));
    files.set(file, [...(files.get(file) ?? []), d]);
  }
  const out: string[] = [];
  for (const [file, list] of files) {
    if (list.length === 1) {
      out.push(`${indent}- ${dependentLine(list[0]!, list[0]!.site)}`);
      continue;
    }
    out.push(`${indent}${file}`);
    for (const d of list) out.push(`${indent}  - ${dependentLine(d, `L${d.site.slice(d.site.lastIndexOf(':') + 1)}`)}`);
  }
  return out;
}

function dependentLine(d: z.infer<typeof DependentView>, at: string): string {
  const more = d.sites > 1 ? ` (+${d.sites - 1} sites)` : '';
  const via = d.via ? ` ${d.relation} ${d.via}` : ` ${d.relation} it`;
  const cands = d.candidates?.length ? `; candidates: ${d.candidates.join(', ')}` : '';
  return `${d.symbol.qname}${via} at ${at}${more} — ${clip(d.reason, 180)}${cands}`;
}

/** " — wired by DI: <the wiring>" when a container wires the implementation. */
function wiredBy(reason: string | undefined): string {
  if (!reason || !/the container wires it|reached through/.test(reason)) return '';
  return ` — wired by DI: ${reason.split(/the container wires it \([^)]*\): |reached through /).pop()}`;
}

export function renderWhatBreaks(a: WhatBreaksOutput): string {
  const lines = [`what_breaks ${symbolWords(a.target)}, depth ${a.depth}`, a.summary];
  const direct = a.dependents.filter((d) => d.distance === 1);
  const further = a.dependents.filter((d) => d.distance > 1);
  if (direct.length) {
    lines.push(`direct dependents (${a.counts.direct}):`);
    for (const tier of EDGE_TIERS) {
      const group = direct.filter((d) => d.tier === tier);
      if (!group.length) continue;
      lines.push(`  ${edgeTierHeading(tier, group.length)}`);
      lines.push(...byFile(group, '    '));
    }
  }
  if (further.length) {
    lines.push(`through those (${a.counts.dependents - a.counts.direct}) — the weakest tier on the path:`);
    for (const d of further) lines.push(`  - ${d.symbol.qname} ${d.relation} ${d.via ?? 'it'} — ${d.site} [${d.tier}, ${d.distance} hops]`);
  }
  if (a.omitted['dependents']) {
    const all = a.dependents.length + a.omitted['dependents'];
    lines.push(`  ${moreLine(a.omitted['dependents'], 'dependents', Math.min(all, MAX_LIMIT))}${all > MAX_LIMIT ? ` (the impact panel lists all ${all})` : ''}`);
  }
  if (a.recursion?.length) lines.push(`recursion — it calls itself at ${a.recursion.join(', ')} (not a dependent)`);
  if (a.implementations.length) {
    lines.push(`implementations (${a.counts.implementations}):`);
    for (const i of a.implementations) lines.push(`  - ${i.symbol.qname} (${i.tier}${i.tier === 'resolved' ? `, ${i.source}` : ''}) at ${i.site}${wiredBy(i.reason)}`);
    if (a.omitted['implementations']) lines.push(`  … ${a.omitted['implementations']} more implementations`);
  }
  const resolved = a.dispatches.filter((d) => d.resolution === 'resolved');
  const unresolved = a.dispatches.filter((d) => d.resolution !== 'resolved');
  const through = (list: typeof a.dispatches) => [...new Set(list.map((d) => d.through))].join(', ');
  // Reads and writes of a property reach an implementing field or accessor the way calls reach an override.
  const uses = (list: typeof a.dispatches) => (list.every((d) => !d.use) ? 'calls' : list.every((d) => d.use) ? 'reads and writes' : 'uses');
  if (resolved.length) {
    lines.push(`reached by resolved dispatch (${resolved.length}) — ${uses(resolved)} resolved to ${through(resolved)}, which a type checker proves this implements; the receiver's runtime type decides:`);
    for (const d of resolved) lines.push(`  - ${d.symbol.qname} at ${d.site} — ${d.source}`);
  }
  if (unresolved.length) {
    lines.push(`unresolved dispatch (${unresolved.length}) — ${uses(unresolved)} through ${through(unresolved)}; the receiver's runtime type decides:`);
    for (const d of unresolved) lines.push(`  - ${d.symbol.qname} at ${d.site} [${d.tier} ${d.use ?? 'call'}]`);
  }
  if (a.omitted['dispatches']) lines.push(`  … ${a.omitted['dispatches']} more calls through a base method`);
  if (a.dynamicSites.length) {
    lines.push(edgeTierHeading('dynamic', a.counts.dynamicSites));
    for (const d of a.dynamicSites) lines.push(`  - ${d.symbol.qname} at ${d.site} — ${d.reason}`);
    if (a.omitted['dynamicSites']) lines.push(`  … ${a.omitted['dynamicSites']} more dynamic sites`);
  }
  lines.push(...rulesBlock(a.rules, a.omitted['rules'] ?? 0));
  return lines.join('\n');
}

const TIERS_FOR_AGENTS =
  'Every edge carries a tier: resolved (a type checker or compiler confirmed it — safe to act on), observed (seen in a real execution), ' +
  'inferred (name match only — verify before acting), ambiguous (several candidates share the name; all are listed, none chosen), ' +
  'dynamic (target computed at run time; recorded, never dropped). Counts are lower bounds: read the "not seen" list before concluding nothing else breaks.';

const BUDGET = 1200;

export const whatBreaksTool = defineTool({
  name: 'what_breaks',
  title: 'What breaks if I change this?',
  summary: 'Dependents of a symbol (callers, references, implementers, overriders), grouped by tier, with a lower-bound summary.',
  modelDescription:
    'Call this BEFORE changing, renaming, removing or changing the signature of a function, method, class, interface or field, to learn what depends on it in this repository: ' +
    'callers, references, instantiations, subclasses and implementers, overriding methods, calls through interfaces that may dispatch to it, and dynamic call sites. ' +
    'Input: a symbol name (`SettlementService.retry`, `retry`), a symbol id, or `path/file.ts:42`; optional depth (default 2) and limit. If the name matches several symbols the tool lists them and you must ask again with one of the ids. ' +
    'The answer ends with the learned rules a change there triggers (e.g. a generator to run before the tests), each with its standing. ' +
    TIERS_FOR_AGENTS,
  input: WhatBreaksInput,
  output: WhatBreaksOutput,
  cli: { command: 'what-breaks', aliases: ['impact'], positional: 'symbol' },
  effects: { readOnly: true, idempotent: true },
  budgetTokens: BUDGET,
  async run(ctx, input) {
    const { db, root } = ctx.workspace;
    const target = await resolveOneSymbol(db, input.symbol, { root });
    ctx.queried?.([target.sid]);
    // The answer lists at most `limit` dependents: ambiguous ones past them are counted, not read.
    const result = await whatBreaks(db, target, input.depth, { list: input.limit, candidates: CANDIDATES_SHOWN });
    // How work is done here when this changes: rules whose trigger (a path, this symbol) the change touches.
    const rules = (await rulesForChangeTo(db, target)).map(ruleView);
    return fitToBudget((limit) => presentWhatBreaks(result, rules, limit), renderWhatBreaks, input.limit, BUDGET);
  },
});
