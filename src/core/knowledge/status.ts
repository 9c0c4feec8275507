import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import { byCodeUnits } from '../../shared/order.js';
import { callTotals } from './store/calls.js';
import { communityOverview, communityTotals, communityCount, type CommunityOverview } from './store/communities.js';
import { documentCount, documentListing, documentTotals, knowledgeTablesExist, type DocumentListing } from './store/documents.js';
import { entitiesByExtractor, graphTotals } from './store/graph.js';
import { linkTiers } from './store/links.js';
import { indexedAt, recentRuns } from './store/runs.js';

/* What the knowledge memory holds, what it cost, and which communities it found: for the CLI, the status view and the sidebar. */

export interface KnowledgeStatus {
  readonly indexedAt: string | null;
  readonly documents: Record<string, number>;
  readonly chunks: number;
  readonly entities: Record<string, number>;
  readonly relationships: number;
  readonly communities: { readonly byLevel: Record<number, number>; readonly reported: number };
  readonly reports: { readonly byReporter: Record<string, number> };
  readonly links: Record<LinkTier, number>;
  readonly extractedBy: Record<string, number>;
  readonly lastRuns: readonly { id: number; mode: string; model: string; status: string; startedAt: string; spentTokens: number; message: string | null }[];
  readonly spend: readonly { model: string; task: string; calls: number; inputTokens: number; outputTokens: number; failed: number; dropped: number; repaired: number }[];
  readonly rejects: number;
  readonly cache: { readonly entries: number };
}

export async function knowledgeStatus(db: Db): Promise<KnowledgeStatus> {
  const at = await indexedAt(db);
  const docs = await documentTotals(db);
  const graph = await graphTotals(db);
  const communities = await communityTotals(db);
  const calls = await callTotals(db);
  const extractedBy: Record<string, number> = {};
  for (const r of await entitiesByExtractor(db)) for (const x of r.extractedBy.split(',')) extractedBy[x] = (extractedBy[x] ?? 0) + r.n;
  return {
    indexedAt: at !== undefined ? new Date(at).toISOString() : null,
    documents: Object.fromEntries(docs.byKind.map((d) => [d.kind, d.n])),
    chunks: docs.chunks,
    entities: Object.fromEntries(graph.byType.map((e) => [e.type, e.n])),
    relationships: graph.relationships,
    communities: { byLevel: Object.fromEntries(communities.byLevel.map((c) => [c.level, c.n])), reported: communities.reported },
    reports: { byReporter: Object.fromEntries(communities.byReporter.map((r) => [r.reporter, r.n])) },
    links: await linkTiers(db),
    extractedBy,
    lastRuns: (await recentRuns(db, 5)).map((r) => ({ ...r, startedAt: new Date(r.startedAt).toISOString() })),
    spend: calls.spend,
    rejects: calls.rejects,
    cache: { entries: calls.cacheEntries },
  };
}

export interface KnowledgeOverview {
  /** Epoch ms of the last completed run; null before one. */
  readonly indexedAt: number | null;
  readonly documents: readonly DocumentListing[];
  readonly communities: readonly CommunityOverview[];
  /** Entities per link tier (tiers without any left out). */
  readonly links: Record<string, number>;
}

/** What the knowledge memory holds, for the sidebar: documents by kind, communities with their report titles. */
export async function knowledgeOverview(db: Db): Promise<KnowledgeOverview> {
  // A database without the knowledge tables (an older Tenure's, opened read-only) holds nothing.
  if (!(await knowledgeTablesExist(db))) return { indexedAt: null, documents: [], communities: [], links: {} };
  const at = await indexedAt(db);
  const tiers = await linkTiers(db);
  return {
    indexedAt: at ?? null,
    documents: await documentListing(db),
    communities: await communityOverview(db),
    // Tiers by name, as the sidebar has always listed them.
    links: Object.fromEntries(Object.entries(tiers).filter(([, n]) => n > 0).sort(([a], [b]) => byCodeUnits(a, b))),
  };
}

export interface KnowledgeTotals {
  readonly documents: number;
  readonly communities: number;
}

/** The knowledge memory's line of the status view: 0 and 0 when it is empty or absent. */
export async function knowledgeTotals(db: Db): Promise<KnowledgeTotals> {
  return { documents: await documentCount(db), communities: await communityCount(db) };
}

export function renderKnowledgeStatus(s: KnowledgeStatus): string {
  if (!s.indexedAt && !Object.keys(s.documents).length) return 'The knowledge memory is empty. Run `tenure knowledge survey` to see what the documents hold, then `tenure index` (offline) or `tenure knowledge index --model <name>`.';
  const list = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  const lines = [
    `Knowledge memory, indexed ${s.indexedAt ?? 'partly (last run did not finish)'}`,
    `Documents: ${list(s.documents)}; ${s.chunks} chunks.`,
    `Entities: ${list(s.entities)}; ${s.relationships} relationships. Extracted by: ${list(s.extractedBy)}.`,
    `Links to symbols: ${LINK_TIERS.map((t) => `${t} ${s.links[t]}`).join(', ')} (entities per tier).`,
    `Communities: ${Object.entries(s.communities.byLevel).map(([l, n]) => `level ${l}: ${n}`).join(', ') || 'none'}; ${s.communities.reported} with reports (${list(s.reports.byReporter)}).`,
  ];
  if (s.spend.length) {
    lines.push('Model spend (all runs):');
    for (const x of s.spend) lines.push(`  ${x.model} ${x.task}: ${x.calls} calls, ${x.inputTokens.toLocaleString('en-US')} in / ${x.outputTokens.toLocaleString('en-US')} out tokens${x.failed ? `, ${x.failed} failed` : ''}${x.repaired ? `, ${x.repaired} repaired` : ''}${x.dropped ? `, ${x.dropped} dropped` : ''}`);
  }
  if (s.rejects) lines.push(`Invalid model replies dropped and recorded: ${s.rejects} (table llm_rejects).`);
  lines.push(`Cached model answers: ${s.cache.entries}.`);
  for (const r of s.lastRuns.slice(0, 3)) lines.push(`Run ${r.id} (${r.startedAt}): ${r.mode} ${r.model}, ${r.status}${r.spentTokens ? `, ${r.spentTokens.toLocaleString('en-US')} tokens` : ''}${r.message ? ` — ${r.message}` : ''}`);
  return lines.join('\n');
}
