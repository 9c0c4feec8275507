import { estimateTokens } from '../../llm/runner.js';
import { pairKey } from '../graph.js';
import { PROMPT_VERSIONS, reportMessages, type ReportInput } from '../prompts.js';
import { Report, type Finding } from '../schemas.js';
import {
  communitiesBottomUp,
  reportContext,
  reportIndexSize,
  replaceReportIndex,
  saveReports,
  storedReports,
  type CommunityRow,
  type ReportContext,
  type StoredFinding,
  type StoredReport,
} from '../store/communities.js';
import { runBatches } from './batches.js';
import type { GraphFreshness, RunContext, WorkflowOutput } from './types.js';

/*
 * community_reports: a report per community of two or more entities (a
 * model, or the offline reporter), bottom-up — a parent's report is written
 * from its children's — keyed by community content, so an unchanged
 * community keeps its report without a model call → kn_reports, a batch at a
 * time, and the full-text index over the current communities' reports.
 */

export interface ReportCounts {
  generated: number;
  reused: number;
  dropped: number;
}

export interface ReportsInput extends GraphFreshness {
  /** Largest report context in tokens. */
  readonly contextTokens: number;
  /** Counted as reports are written, so a run stopped by its budget still says how many it wrote. */
  readonly counts: ReportCounts;
}

/** The report's input: entities and relationships by weight within the token budget, local ids 1.. so the report is stable across rebuilds. Pure. */
export function reportInput(context: ReportContext, children: readonly StoredReport[], budget: number): { input: ReportInput; entityKeys: Map<number, string>; relKeys: Map<number, string> } {
  const entityKeys = new Map<number, string>();
  const relKeys = new Map<number, string>();
  let used = 0;
  const entities: ReportInput['entities'][number][] = [];
  for (const e of context.entities) {
    const cost = estimateTokens(e.description) + 12;
    if (used + cost > budget * 0.5 && entities.length >= 3) break;
    used += cost;
    const id = entities.length + 1;
    entityKeys.set(id, e.key);
    entities.push({ id, name: e.name, type: e.type, description: e.description, degree: e.degree, docs: e.docs });
  }
  const relationships: ReportInput['relationships'][number][] = [];
  for (const r of context.relationships) {
    const cost = estimateTokens(r.description) + 12;
    if (used + cost > budget && relationships.length >= 3) break;
    used += cost;
    const id = relationships.length + 1;
    relKeys.set(id, pairKey(r.a, r.b));
    relationships.push({ id, source: r.an, target: r.bn, description: r.description, weight: r.weight });
  }
  const input: ReportInput = {
    level: 0,
    entities,
    relationships,
    ...(children.length ? { children: children.map((c) => ({ title: c.title, summary: c.summary, rating: c.rating, findings: c.findings.map((f) => ({ summary: f.summary, explanation: f.explanation, entities: [], relationships: [] })) })) } : {}),
  };
  return { input, entityKeys, relKeys };
}

/** A finding as stored: the report's local ids turned back into entity and relationship keys. */
function storedFinding(f: Finding, entityKeys: ReadonlyMap<number, string>, relKeys: ReadonlyMap<number, string>): StoredFinding {
  return {
    summary: f.summary,
    explanation: f.explanation,
    entityKeys: f.entities.map((id) => entityKeys.get(id)).filter((k): k is string => !!k),
    relationshipKeys: f.relationships.map((id) => relKeys.get(id)).filter((k): k is string => !!k),
  };
}

export async function communityReports(ctx: RunContext, input: ReportsInput): Promise<WorkflowOutput<Record<string, never>>> {
  const { db, runner } = ctx;
  const counts = input.counts;
  const reporter = `${runner.model.id}/${PROMPT_VERSIONS.report}`;
  const communities = await communitiesBottomUp(db);
  const maxLevel = Math.max(-1, ...communities.map((c) => c.level));
  const reports = await storedReports(db, communities.map((c) => c.content_hash), reporter, runner.offline);
  const childrenOf = new Map<number, CommunityRow[]>();
  for (const c of communities) if (c.parent_id !== null) childrenOf.set(c.parent_id, [...(childrenOf.get(c.parent_id) ?? []), c]);

  for (let level = maxLevel; level >= 0; level--) {
    const todo = communities.filter((c) => c.level === level && c.size >= 2);
    const fresh = todo.filter((c) => !reports.has(c.content_hash));
    counts.reused += todo.length - fresh.length;
    const unique = [...new Map(fresh.map((c) => [c.content_hash, c])).values()];
    await runBatches(
      ctx,
      'community_reports',
      unique,
      async (c) => {
        const children = (childrenOf.get(c.id) ?? []).map((k) => reports.get(k.content_hash)).filter((r): r is StoredReport => !!r);
        const { input: call, entityKeys, relKeys } = reportInput(await reportContext(db, c.id), children, input.contextTokens);
        const result = await runner.run({ task: 'community-report', promptVersion: PROMPT_VERSIONS.report, messages: runner.offline ? [] : reportMessages(call), input: call, schema: Report, maxOutputTokens: 2000 });
        return { result, entityKeys, relKeys };
      },
      async (done) => {
        const rows: Parameters<typeof saveReports>[1][number][] = [];
        for (const { item, result: r } of done) {
          if (!r.result.ok) {
            counts.dropped++;
            continue;
          }
          const v = r.result.value;
          const report: StoredReport = { title: v.title, summary: v.summary, rating: v.rating, findings: v.findings.map((f) => storedFinding(f, r.entityKeys, r.relKeys)) };
          reports.set(item.content_hash, report);
          rows.push({ contentHash: item.content_hash, reporter, report, ratingExplanation: v.rating_explanation });
          counts.generated++;
        }
        if (rows.length) await db.write((w) => saveReports(w, rows));
      },
    );
  }
  const stats = { communities: communities.length, reported: communities.filter((c) => reports.has(c.content_hash)).length, generated: counts.generated, reused: counts.reused, dropped: counts.dropped };
  // Unchanged graph and no new report: the full-text index is current.
  if (input.graphUnchanged && counts.generated === 0 && (await reportIndexSize(db))) return { stats, output: {} };
  await db.write((w) =>
    replaceReportIndex(
      w,
      communities.filter((c) => reports.has(c.content_hash)).map((c) => ({ communityId: c.id, report: reports.get(c.content_hash)! })),
    ),
  );
  return { stats, output: {} };
}
