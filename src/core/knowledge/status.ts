import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';

/* What the knowledge memory holds, what it cost, and which communities it found. */

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
  const rows = <T>(sql: string, params: (string | number)[] = []) => db.all<T>(sql, params);
  const at = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'knowledge.indexedAt'");
  const docs = await rows<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM kn_documents GROUP BY kind ORDER BY n DESC');
  const ents = await rows<{ type: string; n: number }>('SELECT type, count(*) AS n FROM kn_entities GROUP BY type ORDER BY n DESC');
  const comm = await rows<{ level: number; n: number }>('SELECT level, count(*) AS n FROM kn_communities GROUP BY level ORDER BY level');
  const reported = await db.get<{ n: number }>('SELECT count(*) AS n FROM kn_communities c WHERE EXISTS (SELECT 1 FROM kn_reports r WHERE r.content_hash = c.content_hash)');
  const reporters = await rows<{ reporter: string; n: number }>('SELECT r.reporter, count(DISTINCT c.id) AS n FROM kn_communities c JOIN kn_reports r ON r.content_hash = c.content_hash GROUP BY r.reporter');
  const links = await rows<{ tier: LinkTier; n: number }>('SELECT tier, count(DISTINCT entity_id) AS n FROM kn_links GROUP BY tier');
  const by = await rows<{ extracted_by: string; n: number }>('SELECT extracted_by, count(*) AS n FROM kn_entities GROUP BY extracted_by');
  const runs = await rows<{ id: number; mode: string; model: string; status: string; started_at: number; spent_tokens: number; message: string | null }>(
    'SELECT id, mode, model, status, started_at, spent_tokens, message FROM kn_runs ORDER BY id DESC LIMIT 5',
  );
  const spend = await rows<{ model: string; task: string; calls: number; i: number; o: number; failed: number; dropped: number; repaired: number }>(
    `SELECT model, task, count(*) AS calls, sum(input_tokens) AS i, sum(output_tokens) AS o, sum(status = 'failed') AS failed, sum(status = 'dropped') AS dropped, sum(status = 'repaired') AS repaired
     FROM llm_calls GROUP BY model, task ORDER BY model, task`,
  );
  const rejects = await db.get<{ n: number }>('SELECT count(*) AS n FROM llm_rejects');
  const cache = await db.get<{ n: number }>('SELECT count(*) AS n FROM llm_cache');
  const counts = await db.get<{ chunks: number; rels: number }>('SELECT (SELECT count(*) FROM kn_chunks) AS chunks, (SELECT count(*) FROM kn_relationships) AS rels');
  const linkCounts = Object.fromEntries(LINK_TIERS.map((t) => [t, 0])) as Record<LinkTier, number>;
  for (const l of links) linkCounts[l.tier] = l.n;
  const extractedBy: Record<string, number> = {};
  for (const r of by) for (const x of r.extracted_by.split(',')) extractedBy[x] = (extractedBy[x] ?? 0) + r.n;
  return {
    indexedAt: at ? new Date(Number(at.value)).toISOString() : null,
    documents: Object.fromEntries(docs.map((d) => [d.kind, d.n])),
    chunks: counts?.chunks ?? 0,
    entities: Object.fromEntries(ents.map((e) => [e.type, e.n])),
    relationships: counts?.rels ?? 0,
    communities: { byLevel: Object.fromEntries(comm.map((c) => [c.level, c.n])), reported: reported?.n ?? 0 },
    reports: { byReporter: Object.fromEntries(reporters.map((r) => [r.reporter, r.n])) },
    links: linkCounts,
    extractedBy,
    lastRuns: runs.map((r) => ({ id: r.id, mode: r.mode, model: r.model, status: r.status, startedAt: new Date(r.started_at).toISOString(), spentTokens: r.spent_tokens, message: r.message })),
    spend: spend.map((s) => ({ model: s.model, task: s.task, calls: s.calls, inputTokens: s.i ?? 0, outputTokens: s.o ?? 0, failed: s.failed ?? 0, dropped: s.dropped ?? 0, repaired: s.repaired ?? 0 })),
    rejects: rejects?.n ?? 0,
    cache: { entries: cache?.n ?? 0 },
  };
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
