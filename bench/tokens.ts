import * as path from 'node:path';
import { ManualClock } from '../src/core/episodic/clock.js';
import { DEFAULT_OPTIONS } from '../src/core/episodic/options.js';
import { importEpisodes } from '../src/core/episodic/seed.js';
import { indexKnowledge } from '../src/core/knowledge/pipeline.js';
import { refreshRules } from '../src/core/procedural/refresh.js';
import type { Workspace } from '../src/core/store/workspace.js';
import { StructuralIndexer } from '../src/core/structural/index/indexer.js';
import { indexArtifacts } from '../src/core/structural/sources/bytecode/artifacts.js';
import { tokens } from '../src/core/tools/budget.js';
import { TOOLS } from '../src/core/tools/catalog.js';
import type { Tool } from '../src/core/tools/types.js';
import { openWorkspace } from '../src/core/workspace.js';
import { prepareSettlement, prepareTsPackage, type Corpus } from './corpora.js';
import { fmtInt, median, verdict, type Row } from './stats.js';

/*
 * What an answer costs the agent that asks: tokens of the text answer and of
 * the structured content (o200k tokenizer) per tool, over many questions on
 * the example (all four memories filled) and on a large TypeScript package,
 * with the tools' default limits. The symbols asked about are the most
 * depended-upon ones (the answers that grow) and an even stride through the
 * rest; nothing is chosen by how its answer looks.
 */

const PER_CORPUS = 40;

interface Sample {
  readonly text: number;
  readonly data: number;
}

async function symbolsToAsk(ws: Workspace): Promise<{ sid: string; name: string; qname: string }[]> {
  const hubs = await ws.db.all<{ sid: string; name: string; qname: string }>(
    `SELECT s.sid, s.name, s.qname FROM symbols s JOIN edges e ON e.dst_id = s.id WHERE s.kind != 'module' AND s.origin IS NULL
     GROUP BY s.id ORDER BY count(*) DESC, s.id LIMIT ?`,
    [PER_CORPUS / 2],
  );
  const all = await ws.db.all<{ sid: string; name: string; qname: string }>(
    "SELECT sid, name, qname FROM symbols WHERE kind IN ('function', 'method', 'class', 'interface', 'field', 'constant') AND origin IS NULL ORDER BY id",
  );
  const stride = Math.max(1, Math.floor(all.length / (PER_CORPUS / 2)));
  const seen = new Set(hubs.map((h) => h.sid));
  const picked = [...hubs];
  for (let i = 0; i < all.length && picked.length < PER_CORPUS; i += stride) if (!seen.has(all[i]!.sid)) picked.push(all[i]!);
  return picked;
}

function inputFor(tool: Tool, s: { sid: string; name: string; qname: string }): Record<string, unknown> | undefined {
  switch (tool.name) {
    case 'what_breaks':
    case 'why_is_this':
    case 'what_happened_before':
      return { symbol: s.sid };
    case 'related_by_intent':
      return { phrase: s.name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase() };
    case 'ask':
      return { question: `I am about to change ${s.qname}. What breaks, why is it this way, has anyone tried this before?` };
    case 'search_knowledge':
      return { question: `Why is ${s.qname} the way it is?` };
    default:
      return undefined;
  }
}

async function measure(ws: Workspace): Promise<Map<string, Sample[]>> {
  const out = new Map<string, Sample[]>();
  const symbols = await symbolsToAsk(ws);
  for (const tool of TOOLS) {
    if (!tool.effects.readOnly) continue;
    const samples: Sample[] = [];
    for (const s of symbols) {
      const input = inputFor(tool, s);
      if (!input) continue;
      try {
        const r = await tool.invoke({ workspace: ws }, input);
        samples.push({ text: tokens(r.text), data: tokens(JSON.stringify(r.data)) });
      } catch {
        // A name that matches no symbol, or several, is an error answer: not what this row measures.
      }
    }
    out.set(tool.name, samples);
  }
  return out;
}

function rowsFor(label: string, samples: Map<string, Sample[]>): Row[] {
  const rows: Row[] = [];
  for (const tool of TOOLS) {
    const list = samples.get(tool.name);
    if (!list?.length) continue;
    const text = list.map((x) => x.text);
    const data = list.map((x) => x.data);
    const max = Math.max(...text);
    rows.push([
      label,
      `tokens: ${tool.name} (n=${list.length})`,
      `text p50 **${fmtInt(median(text))}** · max **${fmtInt(max)}**; structured p50 ${fmtInt(median(data))} · max ${fmtInt(Math.max(...data))}`,
      verdict(max <= tool.budgetTokens, `text ≤ ${fmtInt(tool.budgetTokens)}`),
    ]);
  }
  return rows;
}

async function prepared(c: Corpus, fill: (ws: Workspace) => Promise<void>): Promise<Row[]> {
  if (c.error || !c.root) return [[c.label, 'tokens per answer', `not run: ${c.error ?? 'no corpus'}`, '']];
  const ws = await openWorkspace(c.root);
  try {
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    await fill(ws);
    return rowsFor(c.label, await measure(ws));
  } finally {
    await ws.close();
  }
}

export async function tokenRows(repoRoot: string): Promise<Row[]> {
  const now = Date.parse('2026-11-30T12:00:00Z');
  const example = await prepared(prepareSettlement(repoRoot), async (ws) => {
    await indexArtifacts(ws, { log: () => undefined });
    await indexKnowledge(ws);
    const clock = new ManualClock(now);
    await importEpisodes(ws, path.join(ws.root, 'tenure-seed', 'episodes.json'), clock, DEFAULT_OPTIONS);
    await refreshRules(ws, DEFAULT_OPTIONS, clock);
  });
  const large = await prepared(prepareTsPackage(), async (ws) => {
    await indexKnowledge(ws);
  });
  return [...example, ...large];
}
