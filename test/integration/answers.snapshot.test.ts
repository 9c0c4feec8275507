import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../src/core/episodic/clock';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options';
import { importEpisodes } from '../../src/core/episodic/seed';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { refreshRules } from '../../src/core/procedural/refresh';
import type { Workspace } from '../../src/core/store/workspace';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { indexArtifacts } from '../../src/core/structural/sources/bytecode/artifacts';
import { tokens } from '../../src/core/tools/budget';
import { findTool } from '../../src/core/tools/catalog';
import { openWorkspace } from '../../src/core/workspace';
import { REPO_ROOT, copyExample } from '../helpers/fixtures';

/*
 * Golden snapshots of what agents read: the text answer of every tool on
 * examples/settlement with all four memories filled, at a fixed "now". A
 * change to an answer shows up in review as a diff of these files;
 * `npm run update-snapshots` rewrites them (review the diff line by line).
 * Each answer must also fit its tool's token budget, and its structured
 * content must pass the tool's output schema and name the same symbols.
 */

const SNAPSHOTS = path.join(REPO_ROOT, 'test', 'snapshots', 'answers');
const update = process.env['UPDATE_SNAPSHOTS'] === '1' || process.env['UPDATE_SNAPSHOTS'] === 'true';
const NOW = '2026-11-30T12:00:00Z';

const CASES: readonly { readonly tool: string; readonly name: string; readonly input: Record<string, unknown> }[] = [
  { tool: 'what_breaks', name: 'SettlementService.retry', input: { symbol: 'SettlementService.retry' } },
  { tool: 'what_breaks', name: 'RetryPolicy.MAX_ATTEMPTS', input: { symbol: 'RetryPolicy.MAX_ATTEMPTS' } },
  { tool: 'what_breaks', name: 'PaymentGateway.submit-depth-1', input: { symbol: 'PaymentGateway.submit', depth: 1 } },
  { tool: 'what_breaks', name: 'SettlementService.retry-limit-2', input: { symbol: 'SettlementService.retry', limit: 2 } },
  { tool: 'why_is_this', name: 'RetryPolicy.MAX_ATTEMPTS', input: { symbol: 'RetryPolicy.MAX_ATTEMPTS' } },
  { tool: 'why_is_this', name: 'SettlementService.retry', input: { symbol: 'SettlementService.retry' } },
  { tool: 'what_happened_before', name: 'AllocationService.redrive', input: { symbol: 'AllocationService.redrive' } },
  { tool: 'what_happened_before', name: 'SettlementService.retry', input: { symbol: 'SettlementService.retry' } },
  { tool: 'related_by_intent', name: 'settlement-retries', input: { phrase: 'settlement retries' } },
  { tool: 'related_by_intent', name: 'the-partner-SLA', input: { phrase: 'the partner SLA' } },
  { tool: 'search_knowledge', name: 'recurring-failure-modes', input: { question: 'What are the recurring failure modes in settlement?' } },
  { tool: 'ask', name: 'retry-policy-question', input: { question: 'I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?' } },
  { tool: 'ask', name: 'retry-policy-question-with-symbol', input: { question: 'I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?', symbol: 'SettlementService.retry' } },
  { tool: 'record_conclusion', name: 'redrive', input: { conclusion: 'AllocationService.redrive assumes at most three attempts.', symbol: 'AllocationService.redrive' } },
];

/** Dates read from file times on this machine (an export's capture date) say nothing about the answer. */
function stable(text: string): string {
  const today = Date.now();
  return text.replace(/\b(\d{4}-\d\d-\d\d)\b/g, (d) => (Math.abs(Date.parse(d) - today) < 3 * 86_400_000 ? '<file date>' : d));
}

describe('agent-facing answers on examples/settlement (golden snapshots)', function () {
  this.timeout(120_000);
  let ex: { root: string; cleanup: () => void };
  let ws: Workspace;
  const saved = process.env['TENURE_NOW'];

  before(async () => {
    process.env['TENURE_NOW'] = NOW;
    ex = copyExample();
    ws = await openWorkspace(ex.root);
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    await indexArtifacts(ws, { log: () => undefined });
    await indexKnowledge(ws);
    const clock = new ManualClock(Date.parse(NOW));
    await importEpisodes(ws, path.join(ex.root, 'tenure-seed', 'episodes.json'), clock, DEFAULT_OPTIONS);
    await refreshRules(ws, DEFAULT_OPTIONS, clock);
    fs.mkdirSync(SNAPSHOTS, { recursive: true });
  });
  after(async () => {
    if (saved === undefined) delete process.env['TENURE_NOW'];
    else process.env['TENURE_NOW'] = saved;
    await ws.close();
    ex.cleanup();
  });

  for (const c of CASES) {
    it(`${c.tool} ${c.name}`, async () => {
      const tool = findTool(c.tool)!;
      const r = await tool.invoke({ workspace: ws }, c.input);
      const text = stable(r.text);
      const file = path.join(SNAPSHOTS, `${c.tool}.${c.name}.txt`);
      if (update || !fs.existsSync(file)) fs.writeFileSync(file, `${text}\n`);
      assert.equal(`${text}\n`, fs.readFileSync(file, 'utf8'), `${path.relative(REPO_ROOT, file)} differs: run \`npm run update-snapshots\` and review the diff`);
      assert.ok(tokens(r.text) <= tool.budgetTokens, `${tokens(r.text)} tokens, over the ${tool.budgetTokens}-token budget`);
      tool.output.parse(r.data);
      // The structured answer carries what the text shows, no more: every symbol it names is in the text.
      const named = JSON.stringify(r.data).match(/"qname":"([^"]+)"/g) ?? [];
      for (const q of named) {
        const qname = JSON.parse(`{${q}}`).qname as string;
        assert.ok(r.text.includes(qname), `the structured answer names ${qname}, the text does not`);
      }
    });
  }
});
