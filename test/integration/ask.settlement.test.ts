import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { systemClock } from '../../src/core/episodic/clock';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options';
import { importEpisodes } from '../../src/core/episodic/seed';
import { LINK_TIERS } from '../../src/core/model/tiers';
import { KNOWLEDGE_EMPTY } from '../../src/core/compose/ask';
import { linkByName } from '../../src/core/compose/link';
import type { AskOutput } from '../../src/core/tools/ask';
import { refreshRules } from '../../src/core/procedural/refresh';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { findTool } from '../../src/core/tools/catalog';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { CLI, copyExample } from '../helpers/fixtures';

/*
 * SPEC.md's closing question on examples/settlement, with its recorded
 * history (examples/settlement/tenure-seed): every part of the answer comes
 * from the memory able to produce it, labelled with its tier.
 */

const QUESTION = 'I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?';

describe('ask on the settlement scenario', function () {
  this.timeout(120_000);
  let ex: { root: string; cleanup: () => void };
  let ws: Workspace;
  const ask = async (input: { question: string; symbol?: string }) => {
    const tool = findTool('ask')!;
    const r = await tool.invoke({ workspace: ws }, input);
    return { data: r.data as AskOutput, text: r.text };
  };
  const part = (r: AskOutput, memory: string) => r.parts.find((p) => p.memory === memory)!;

  before(async () => {
    ex = copyExample();
    ws = await openWorkspace(ex.root);
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    const report = await importEpisodes(ws, path.join(ex.root, 'tenure-seed', 'episodes.json'), systemClock, DEFAULT_OPTIONS);
    assert.equal(report.imported, 20);
    await refreshRules(ws, DEFAULT_OPTIONS, systemClock);
  });
  after(async () => {
    await ws.close();
    ex.cleanup();
  });

  it('what_breaks ends with the rules a change to the symbol triggers, with their standing', async () => {
    const tool = findTool('what_breaks')!;
    const r = await tool.invoke({ workspace: ws }, { symbol: 'SettlementService.retry', depth: 1 });
    assert.match(r.text, /rules a change here triggers \(1\) — procedural memory; the status is the rule's standing:\n {2}- \[rule 1 · proposed\] When files under `src\/settlement\/` change, run `npm run gen:mappers` before `npm test`\./);
    const rules = (r.data as { rules: { id: number; status: string; matched: string }[] }).rules;
    assert.deepEqual(rules.map((x) => `${x.id} ${x.status} ${x.matched}`), ['1 proposed src/settlement/**']);
    // A symbol outside the trigger gets no rule.
    const other = await tool.invoke({ workspace: ws }, { symbol: 'postRetry', depth: 1 });
    assert.deepEqual((other.data as { rules: unknown[] }).rules, []);
    assert.doesNotMatch(other.text, /rules a change here triggers/);
  });

  it('imports the seed once: a second import changes nothing', async () => {
    const again = await importEpisodes(ws, path.join(ex.root, 'tenure-seed', 'episodes.json'), systemClock, DEFAULT_OPTIONS);
    assert.deepEqual([again.imported, again.skipped], [0, 20]);
  });

  it('refuses an episode file that names a symbol ambiguously, and imports nothing from it', async () => {
    const file = path.join(ex.root, 'bad-episodes.json');
    fs.writeFileSync(file, JSON.stringify({ format: 'tenure-episodes', version: 1, episodes: [{ id: 'ok', at: '-1d', command: 'npm test', outcome: { status: 'success' } }, { id: 'bad', at: '-1d', touched: [{ symbol: 'retry' }], outcome: { status: 'failure' } }] }));
    const before = (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n;
    await assert.rejects(importEpisodes(ws, file, systemClock, DEFAULT_OPTIONS), /episode "bad" \(#2\): "retry" matches \d+ symbols .*; add "path" or use a symbol id/);
    assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n, before);
  });

  it('answers about a named symbol from every memory, each part with its tier', async () => {
    const { data, text } = await ask({ question: QUESTION, symbol: 'SettlementService.retry' });
    assert.deepEqual(data.linkedBy, ['symbol argument']);
    assert.deepEqual(data.focus.map((f) => `${f.qname} ${f.tier}`), ['SettlementService.retry exact']);
    assert.deepEqual(data.parts.map((p) => p.memory), ['structural', 'knowledge', 'episodic', 'procedural']);

    const structural = part(data, 'structural');
    assert.equal(structural.status, 'answered');
    assert.equal(structural.tier, 'inferred', 'tree-sitter edges only: the weakest tier relied on is inferred');
    // Six callers, and the route table that holds postRetry as a value (a reference, two hops out).
    assert.deepEqual(structural.tiers, { inferred: 7, 'dynamic sites': 1 });
    assert.match(structural.summary, /At least 7 dependents within 2 hops \(4 direct\)/);

    const knowledge = part(data, 'knowledge');
    assert.equal(knowledge.status, 'empty', 'nothing indexed into the knowledge memory yet');
    assert.equal(knowledge.tier, 'none');
    assert.match(knowledge.summary, new RegExp(KNOWLEDGE_EMPTY));

    const episodic = part(data, 'episodic');
    assert.equal(episodic.status, 'answered');
    assert.equal(episodic.tier, 'high', 'outcomes decided by the build system');
    assert.ok(episodic.tiers['outcome: high']! >= 3, JSON.stringify(episodic.tiers));
    assert.ok(episodic.tiers['conclusion: low']! >= 2, JSON.stringify(episodic.tiers));
    assert.match(episodic.summary, /failed or rejected\. Most relevant: 3 months ago, test failure — 3 of 41 tests failed: AllocationService › redrive re-submits a failed leg at most three times/);
    assert.match(text, /conclusion — the agent's own conclusion, NOT an outcome; confidence 0\.30 → 0\.00/);
    assert.match(text, /conclusion — dana's note \(person\), NOT an outcome; confidence 0\.70 → 0\.[45]\d/);

    const procedural = part(data, 'procedural');
    assert.equal(procedural.status, 'answered');
    assert.equal(procedural.tier, 'proposed', 'proven by the episodes, not yet approved by a person');
    assert.match(text, /\[rule 1 · proposed\] When files under `src\/settlement\/` change, run `npm run gen:mappers` before `npm test`\. \(7\/8 attempts held; triggered by src\/settlement\/\*\*/);

    assert.match(text, /\[structural — what breaks · edge tiers inferred 7, dynamic sites 1; weakest relied on: inferred; a lower bound\]/);
    assert.match(text, /\[knowledge — why it is this way · empty\]/);
    assert.match(text, /\[episodic — what happened before · outcomes high confidence \(build system, never decay\); conclusions low, decaying\]/);
    assert.match(text, /\[procedural — how it is done here · rule standing proposed 1\]/);
  });

  it('links the question\'s concept to symbols with link tiers when no symbol is given', async () => {
    const { data, text } = await ask({ question: QUESTION });
    assert.deepEqual(data.phrases, ['settlement retry policy']);
    const tiers = Object.fromEntries(data.links.map((l) => [l.qname, l.tier]));
    assert.equal(tiers['RetryPolicy'], 'strong', '"retry policy" is its whole name');
    assert.equal(tiers['SettlementService.retry'], 'weak', 'a guess by name: returned as part of a set, to verify');
    assert.ok(data.links.every((l) => (LINK_TIERS as readonly string[]).includes(l.tier)));
    assert.equal(data.focus[0]!.qname, 'RetryPolicy');
    assert.ok(data.focus.some((f) => f.qname === 'SettlementService.retry'));
    assert.equal(part(data, 'episodic').tier, 'high');
    assert.match(text, /review rejected — touched its member RetryPolicy\.shouldRetry/);
    assert.equal(part(data, 'procedural').tier, 'proposed');
  });

  it('reads an identifier the question names as that symbol, not also as words to guess other symbols by', async () => {
    const named = await linkByName(ws.db, 'Why does RetryPolicy.nextDelay grow?', ws.root);
    assert.deepEqual(named.links.map((l) => [l.symbol.qname, l.tier]), [['RetryPolicy.nextDelay', 'exact']], 'not also RetryPolicy by the words "retry policy"');
    const said = await linkByName(ws.db, 'Why does the retry policy back off?', ws.root);
    assert.ok(said.links.some((l) => l.symbol.qname === 'RetryPolicy' && l.tier === 'strong'), 'the same words written as words still link it');
  });

  it('adds the knowledge memory\'s reasons, with link tiers, once it is indexed', async () => {
    const r = spawnSync(process.execPath, [CLI, 'knowledge', 'index', '--cwd', ex.root], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const { data, text } = await ask({ question: QUESTION, symbol: 'SettlementService.retry' });
    const knowledge = part(data, 'knowledge');
    assert.equal(knowledge.status, 'answered');
    assert.ok((LINK_TIERS as readonly string[]).includes(knowledge.tier), knowledge.tier);
    assert.ok((knowledge.tiers['exact'] ?? 0) + (knowledge.tiers['strong'] ?? 0) > 0, JSON.stringify(knowledge.tiers));
    assert.ok((knowledge.tiers['unresolved'] ?? 0) > 0, 'a constraint no symbol denotes (the partner SLA) is kept');
    assert.match(text, /ADR-0007/);
  });

  it('is the same answer over MCP and the CLI, and an agent can record a conclusion but not an outcome', async () => {
    const client = new Client({ name: 'tenure-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--no-index', '--cwd', ex.root], stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of ['ask', 'what_happened_before', 'record_conclusion']) assert.ok(names.includes(n), names.join(','));
      assert.equal(tools.find((t) => t.name === 'record_conclusion')!.annotations?.readOnlyHint, false);
      assert.ok(!names.some((n) => /promote|outcome/.test(n)), 'no tool promotes a rule or records an outcome');

      const a = await client.callTool({ name: 'ask', arguments: { question: QUESTION, symbol: 'SettlementService.retry' } });
      assert.notEqual(a.isError, true);
      const data = a.structuredContent as AskOutput;
      assert.deepEqual(data.parts.map((p) => `${p.memory} ${p.status}`).filter((s) => !s.startsWith('knowledge')), ['structural answered', 'episodic answered', 'procedural answered']);

      const h = await client.callTool({ name: 'what_happened_before', arguments: { symbol: 'AllocationService.redrive' } });
      assert.notEqual(h.isError, true);
      const before = (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n;
      const c = await client.callTool({ name: 'record_conclusion', arguments: { conclusion: 'redrive must follow RetryPolicy.MAX_ATTEMPTS', symbol: 'AllocationService.redrive' } });
      assert.notEqual(c.isError, true, JSON.stringify(c.content));
      assert.match((c.content as { text: string }[])[0]!.text, /as the agent's own conclusion: confidence 0\.3, halving every 14 days\. It is not an outcome and does not change AGENTS\.md/);
      assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n, before, 'no episode, no outcome');
    } finally {
      await client.close();
    }
    const cli = spawnSync(process.execPath, [CLI, 'history', 'AllocationService.redrive', '--cwd', ex.root], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /agent.s own conclusion, NOT an outcome; confidence 0\.30 → 0\.30 .*"redrive must follow RetryPolicy\.MAX_ATTEMPTS"/);
  });
});
