import * as fs from 'node:fs';
import * as path from 'node:path';
import { entitiesLinkedTo } from '../src/core/knowledge/store/links.js';
import type { LinkTier } from '../src/core/model/tiers.js';
import { openWorkspace } from '../src/core/workspace.js';
import { corpusRoot, loadCases, readCasesFile } from './knowledgeReasons.js';

/*
 * How often each link tier is right, on links judged by hand
 * (bench/knowledge-cases/link-judgements.json): each judged phrase's tier to
 * its symbol is read from the corpus's current index, so a change to the
 * linking rules is measured by running the knowledge bench (which builds the
 * indexes) and then this. A judged link the index no longer makes to that
 * symbol counts under "not linked to it".
 *
 *   node out/bench/linkPrecision.js [--sample=rules|check]
 */

interface Judgement {
  readonly sample: 'rules' | 'check';
  readonly corpus: string;
  readonly phrase: string;
  readonly symbol: string;
  readonly label: 'right' | 'wrong' | 'unclear';
  readonly wrongKind?: string;
  readonly why: string;
}

type Now = LinkTier | 'not linked to it';
const ORDER: readonly Now[] = ['exact', 'strong', 'weak', 'not linked to it'];

export interface TierCount {
  readonly tier: Now;
  right: number;
  wrong: number;
  unclear: number;
}

export async function linkPrecision(sample?: Judgement['sample']): Promise<{ counts: TierCount[]; missing: string[] }> {
  const judgements = readCasesFile<{ judgements: Judgement[] }>('link-judgements.json').judgements.filter((j) => !sample || j.sample === sample);
  const counts = new Map<Now, TierCount>(ORDER.map((t) => [t, { tier: t, right: 0, wrong: 0, unclear: 0 }]));
  const missing: string[] = [];
  for (const corpus of loadCases()) {
    const mine = judgements.filter((j) => j.corpus === corpus.id);
    if (!mine.length) continue;
    const { root, error } = corpusRoot(corpus);
    if (!root || !fs.existsSync(path.join(root, '.tenure', 'memory.db'))) {
      missing.push(`${corpus.id}: ${error ?? 'not indexed: run the knowledge bench first'}`);
      continue;
    }
    const ws = await openWorkspace(root);
    try {
      const linked = await entitiesLinkedTo(ws.db, [...new Set(mine.map((j) => j.symbol))]);
      for (const j of mine) {
        const tiers = linked.filter((l) => l.symbol_sid === j.symbol && l.name === j.phrase).map((l) => l.tier);
        // One phrase may be several entities (a component and a concept): the surest link counts.
        const now: Now = ORDER.find((t) => tiers.includes(t as LinkTier)) ?? 'not linked to it';
        counts.get(now)![j.label]++;
      }
    } finally {
      await ws.close();
    }
  }
  return { counts: [...counts.values()], missing };
}

async function main(): Promise<void> {
  const sample = /^--sample=(rules|check)$/.exec(process.argv.slice(2).find((a) => a.startsWith('--sample=')) ?? '')?.[1] as Judgement['sample'] | undefined;
  const { counts, missing } = await linkPrecision(sample);
  const lines = ['| tier now | links | right | wrong | unclear | right, of those judged |', '|---|---|---|---|---|---|'];
  for (const c of counts) {
    const n = c.right + c.wrong + c.unclear;
    if (!n) continue;
    lines.push(`| ${c.tier} | ${n} | ${c.right} | ${c.wrong} | ${c.unclear} | ${(c.right / Math.max(1, c.right + c.wrong)).toFixed(2)} |`);
  }
  process.stdout.write(`Links judged by hand${sample ? ` (sample ${sample})` : ''}, by the tier the current index gives them:\n${lines.join('\n')}\n`);
  for (const m of missing) process.stderr.write(`not measured: ${m}\n`);
  if (missing.length) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
