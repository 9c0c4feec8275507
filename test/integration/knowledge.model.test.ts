import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { PROMPT_VERSIONS, extractMessages } from '../../src/core/knowledge/prompts';
import { Extraction } from '../../src/core/knowledge/schemas';
import { LlmError } from '../../src/core/llm/errors';
import { HashingEmbedder } from '../../src/core/llm/offline';
import { OpenAiChatModel, OpenAiEmbedder } from '../../src/core/llm/openai';
import { LlmRunner, type TaskCall } from '../../src/core/llm/runner';
import { SqliteCallStore } from '../../src/core/knowledge/store/calls';
import { askKnowledge } from '../../src/core/knowledge/globalSearch';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whyIsThis } from '../../src/core/knowledge/why';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { CLI, REPO_ROOT, copyExample, tempDir } from '../helpers/fixtures';
import { FakeOpenAi, recorded } from './knowledgeFakeOpenAi';

/*
 * The model path, through the real `openai` client, against an
 * OpenAI-compatible server on 127.0.0.1 that replays recorded responses:
 * 429 with Retry-After, a stall, truncated and prose replies, 401, 503; then
 * whole pipeline runs — cached, budgeted, resumable after a kill.
 */

const ADR = fs.readFileSync(path.join(REPO_ROOT, 'examples', 'settlement', 'docs', 'adr', '0007-settlement-retries.md'), 'utf8');

function extractCall(text = ADR): TaskCall<Extraction> {
  const input = { text, doc: { kind: 'adr', title: 'ADR-0007: Cap settlement retries at three attempts', ref: 'ADR-0007' } };
  return { task: 'extract-graph', promptVersion: PROMPT_VERSIONS.extract, messages: extractMessages(input), input, schema: Extraction, maxOutputTokens: 4000 };
}

describe('knowledge: the model path through the openai client', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: Workspace;
  let cleanup: () => void;

  beforeEach(async () => {
    fake = await FakeOpenAi.start();
    const d = tempDir();
    cleanup = d.cleanup;
    ws = await openWorkspace(d.root);
  });
  afterEach(async () => {
    await ws.close();
    await fake.close();
    cleanup();
  });

  function runner(options: { timeoutMs?: number; concurrency?: number; maxAttempts?: number; budgetTokens?: number; model?: string } = {}) {
    const chat = new OpenAiChatModel({ model: options.model ?? 'gpt-4o-mini', apiKey: 'sk-test', baseURL: fake.url, timeoutMs: options.timeoutMs ?? 10_000 });
    return new LlmRunner(chat, new HashingEmbedder(), {
      calls: new SqliteCallStore(ws.db),
      baseDelayMs: 20,
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
      ...(options.budgetTokens ? { budgetTokens: options.budgetTokens } : {}),
    });
  }

  async function calls() {
    return ws.db.all<{ task: string; status: string; attempts: number; input_tokens: number; output_tokens: number; error: string | null }>('SELECT task, status, attempts, input_tokens, output_tokens, error FROM llm_calls ORDER BY id');
  }

  it('parses a recorded extraction and logs its cost', async () => {
    fake.enqueue({ reply: recorded('completion-extract-adr-0007') });
    const r = await runner().run(extractCall());
    assert.ok(r.ok);
    assert.equal(r.value.entities.find((e) => e.name === 'Northwind Clearing recall SLA')?.type, 'constraint');
    assert.equal(fake.requests[0]!.body.model, 'gpt-4o-mini');
    assert.deepEqual(fake.requests[0]!.body.response_format, { type: 'json_object' });
    assert.deepEqual(await calls(), [{ task: 'extract-graph', status: 'ok', attempts: 1, input_tokens: 1302, output_tokens: 612, error: null }]);
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    fake.enqueue({ reply: recorded('rate-limited') }, { reply: recorded('completion-extract-adr-0007') });
    const r = await runner().run(extractCall());
    assert.ok(r.ok);
    assert.equal(fake.requests.length, 2);
    const gap = fake.requests[1]!.at - fake.requests[0]!.at;
    assert.ok(gap >= 950, `retried after ${gap} ms; Retry-After said 1 s`);
    assert.equal((await calls())[0]!.attempts, 2);
  });

  it('fails at once when Retry-After is longer than it will wait', async () => {
    fake.enqueue({ reply: recorded('rate-limited-long') });
    await assert.rejects(runner().run(extractCall()), (e: unknown) => LlmError.is(e, 'rate-limited') && /asked to wait 3600 s/.test((e as Error).message));
    assert.equal(fake.requests.length, 1);
  });

  it('abandons a stalled call at the time limit and retries it', async () => {
    fake.enqueue({ reply: { stallMs: 5000 } }, { reply: recorded('completion-extract-adr-0007') });
    const t0 = Date.now();
    const r = await runner({ timeoutMs: 400 }).run(extractCall());
    assert.ok(r.ok);
    assert.ok(Date.now() - t0 < 3000, 'did not wait for the stall');
    assert.equal(fake.requests.length, 2);
    assert.equal((await calls())[0]!.attempts, 2);
  });

  it('repairs truncated JSON with one more call that shows the model its reply and the problem', async () => {
    fake.enqueue({ reply: recorded('completion-truncated-json') }, { reply: recorded('completion-extract-adr-0007') });
    const r = await runner().run(extractCall());
    assert.ok(r.ok && r.repaired);
    const repair = fake.requests[1]!.body.messages!;
    assert.equal(repair.at(-2)!.role, 'assistant');
    assert.match(repair.at(-2)!.content, /^\{"entities": \[\{"name": "RetryPolicy.MAX_ATTEMPTS"/);
    assert.match(repair.at(-1)!.content, /could not be used: not JSON/);
    assert.deepEqual((await calls()).map((c) => c.status), ['ok', 'repaired']);
    assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM llm_cache'))!.n, 1);
  });

  it('drops and records a reply still invalid after the repair; nothing invalid is stored', async () => {
    fake.enqueue({ reply: recorded('completion-prose'), times: 2 });
    const r = await runner().run(extractCall());
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /not JSON.*after repair: not JSON/);
    const rejects = await ws.db.all<{ task: string; output: string }>('SELECT task, output FROM llm_rejects');
    assert.equal(rejects.length, 1);
    assert.match(rejects[0]!.output, /^Sure! Here are the entities/);
    assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM llm_cache'))!.n, 0);
    assert.deepEqual((await calls()).map((c) => c.status), ['ok', 'dropped']);
  });

  it('does not retry a refused key, and says what to do', async () => {
    fake.enqueue({ reply: recorded('unauthorized') });
    await assert.rejects(runner().run(extractCall()), (e: unknown) => LlmError.is(e, 'auth') && /TENURE_OPENAI_API_KEY/.test((e as Error).message));
    assert.equal(fake.requests.length, 1);
  });

  it('retries a 503 with backoff up to the attempt limit', async () => {
    fake.enqueue({ reply: recorded('overloaded'), times: 5 });
    await assert.rejects(runner({ maxAttempts: 3 }).run(extractCall()), (e: unknown) => LlmError.is(e, 'server') && /after 3 attempts/.test((e as Error).message));
    assert.equal(fake.requests.length, 3);
    assert.deepEqual((await calls()).map((c) => `${c.status}/${c.attempts}`), ['failed/3']);
  });

  it('caches by content, model and prompt version', async () => {
    const a = runner();
    assert.ok((await a.run(extractCall())).ok);
    const again = await a.run(extractCall());
    assert.ok(again.ok && again.cached);
    assert.equal(fake.requests.length, 1, 'same content, model and prompt version: from the cache');
    assert.ok((await a.run({ ...extractCall(), promptVersion: 'extract-2' })).ok);
    assert.equal(fake.requests.length, 2, 'a new prompt version is a new call');
    assert.ok((await runner({ model: 'gpt-4.1-mini' }).run(extractCall())).ok);
    assert.equal(fake.requests.length, 3, 'another model is a new call');
    assert.ok((await a.run(extractCall(ADR + '\nOne more line.'))).ok);
    assert.equal(fake.requests.length, 4, 'other content is a new call');
  });

  it('refuses a call the token budget cannot pay for, before sending it', async () => {
    await assert.rejects(runner({ budgetTokens: 1000 }).run(extractCall()), (e: unknown) => LlmError.is(e, 'budget'));
    assert.equal(fake.requests.length, 0);
  });

  it('keeps at most the concurrency cap in flight', async () => {
    fake.delayMs = 60;
    const r = runner({ concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => r.run(extractCall(`${ADR}\n${i}`))));
    assert.ok(results.every((x) => x.ok));
    assert.equal(fake.requests.length, 8);
    assert.equal(fake.maxInFlight, 2);
  });
});

describe('knowledge: a model-backed pipeline run on examples/settlement', function () {
  this.timeout(120_000);
  let fake: FakeOpenAi;
  let ex: { root: string; cleanup: () => void };

  beforeEach(async () => {
    fake = await FakeOpenAi.start();
    ex = copyExample();
    const ws = await openWorkspace(ex.root);
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    await ws.close();
  });
  afterEach(async () => {
    await fake.close();
    ex.cleanup();
  });

  const models = () => ({
    chat: new OpenAiChatModel({ model: 'sim-1', apiKey: 'sk-test', baseURL: fake.url }),
    embedder: new OpenAiEmbedder({ model: 'sim-1', embeddingModel: 'sim-embed', apiKey: 'sk-test', baseURL: fake.url }),
  });
  const uniqueChunks = async (ws: Workspace) => (await ws.db.get<{ n: number }>('SELECT count(DISTINCT hash) AS n FROM kn_chunks'))!.n;

  it('runs all six steps through the endpoint, answers why_is_this from the model graph, and spends nothing the second time', async () => {
    fake.enqueue({ match: (r) => r.task === 'extract' && r.body.messages!.some((m) => m.content.includes('Northwind Clearing, our settlement partner')), reply: recorded('completion-extract-adr-0007') });
    const ws = await openWorkspace(ex.root);
    try {
      const report = await indexKnowledge(ws, models());
      assert.equal(report.status, 'done', report.message);
      assert.equal(report.mode, 'model');
      assert.equal(fake.count('extract'), await uniqueChunks(ws));
      assert.ok(fake.count('summarize') > 0 && fake.count('report') > 0 && fake.count('embed') > 0);
      assert.equal(report.spend.calls, fake.requests.length);

      const target = await resolveOneSymbol(ws.db, 'RetryPolicy.MAX_ATTEMPTS', { root: ex.root });
      const why = await whyIsThis(ws.db, target, 10);
      const adr = why.items.find((i) => i.document.ref === 'ADR-0007')!;
      assert.equal(adr.tier, 'exact');
      assert.equal(adr.extractedBy, 'openai:sim-1');
      const sla = why.constraints.find((c) => c.name === 'Northwind Clearing recall SLA')!;
      assert.equal(sla.tier, 'unresolved');
      assert.equal(sla.extractedBy, 'openai:sim-1');
      assert.ok(why.extractedBy.includes('openai:sim-1'));

      const before = fake.requests.length;
      const again = await indexKnowledge(ws, models());
      assert.equal(again.status, 'done');
      assert.equal(fake.requests.length, before, 'nothing changed: no call');
      assert.equal(again.reports.generated, 0);

      // An offline pass afterwards keeps what the model extracted.
      const offline = await indexKnowledge(ws);
      assert.equal(offline.workflows.find((w) => w.name === 'extract_graph')!.stats['chunksExtracted'], 0);
      const whyAfter = await whyIsThis(ws.db, target, 10);
      assert.equal(whyAfter.items.find((i) => i.document.ref === 'ADR-0007')!.extractedBy, 'openai:sim-1');

      // Global search with the model: map over reports, then reduce.
      const asked = await askKnowledge(ws.db, 'What are the recurring failure modes in settlement?', { chat: models().chat, mode: 'global' });
      assert.equal(asked.answeredBy, 'openai:sim-1');
      assert.match(asked.answer, /duplicates payments/);
      assert.ok(fake.count('map') >= 1 && fake.count('reduce') === 1);
    } finally {
      await ws.close();
    }
  });

  it('a chunk whose reply is dropped as invalid still counts: read offline, labelled so, the drop recorded', async () => {
    const adr5 = (r: { task: string; body: { messages?: { content: string }[] } }) => r.task === 'extract' && r.body.messages!.some((m) => m.content.includes('The nightly batch dispatches steps by name'));
    fake.enqueue({ match: adr5, reply: recorded('completion-prose'), times: 2 });
    const ws = await openWorkspace(ex.root);
    try {
      const report = await indexKnowledge(ws, models());
      assert.equal(report.status, 'done');
      assert.equal(report.spend.dropped, 1);
      assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM llm_rejects'))!.n, 1);
      const why = await whyIsThis(ws.db, await resolveOneSymbol(ws.db, 'NightlyBatch.runStep', { root: ex.root }), 10);
      const adr = why.items.find((i) => i.document.ref === 'ADR-0005')!;
      assert.ok(adr, why.items.map((i) => i.document.ref).join(', '));
      assert.equal(adr.extractedBy, 'offline');
    } finally {
      await ws.close();
    }
  });

  it('stops cleanly at the token budget and the next run finishes without paying twice', async () => {
    const ws = await openWorkspace(ex.root);
    try {
      const stopped = await indexKnowledge(ws, { ...models(), budgetTokens: 16_000 });
      assert.equal(stopped.status, 'stopped');
      assert.match(stopped.message!, /token budget .* would be exceeded.*run again with a larger budget/);
      assert.equal(stopped.workflows.find((w) => w.name === 'extract_graph')!.status, 'stopped');
      assert.equal(stopped.workflows.find((w) => w.name === 'community_reports')!.status, 'skipped');
      const kept = (await ws.db.get<{ n: number }>("SELECT count(*) AS n FROM kn_extractions WHERE status = 'ok'"))!.n;
      assert.ok(kept >= 1 && kept < (await uniqueChunks(ws)), `${kept} extractions kept`);
      assert.ok(stopped.spend.inputTokens + stopped.spend.outputTokens <= 16_000);

      const resumed = await indexKnowledge(ws, models());
      assert.equal(resumed.status, 'done', resumed.message);
      assert.equal(fake.count('extract'), await uniqueChunks(ws), 'every chunk extracted exactly once across both runs');
    } finally {
      await ws.close();
    }
  });

  it('a model run that fails or stops early exits non-zero from the CLI and says what to do (refused key, an endpoint that stays down, the token budget)', async () => {
    const env = { ...process.env, TENURE_OPENAI_API_KEY: 'sk-test', OPENAI_API_KEY: '' };
    const run = (extra: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'knowledge', 'index', ex.root, '--model', 'sim-1', '--base-url', fake.url, '--concurrency', '1', '--yes', ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => resolve({ code, out }));
      });
    fake.enqueue({ reply: recorded('unauthorized'), times: 1000 });
    const refused = await run([]);
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.out, /Knowledge run failed: .*\nWhat to do: /s);
    await fake.close();
    fake = await FakeOpenAi.start();
    fake.enqueue({ reply: recorded('overloaded'), times: 1000 });
    const down = await run([]);
    assert.equal(down.code, 1, down.out);
    assert.match(down.out, /Knowledge run (failed|stopped early): .*\nWhat to do: /s);
    await fake.close();
    fake = await FakeOpenAi.start();
    const budget = await run(['--budget', '16000']);
    assert.equal(budget.code, 1, budget.out);
    assert.match(budget.out, /Knowledge run stopped early: .*token budget.*\nWhat to do: /s);
    const finished = await run([]);
    assert.equal(finished.code, 0, finished.out);
  });

  it('a killed run resumes re-spending at most one batch', async () => {
    const env = { ...process.env, TENURE_OPENAI_API_KEY: 'sk-test', OPENAI_API_KEY: '' };
    const args = [CLI, 'knowledge', 'index', ex.root, '--model', 'sim-1', '--base-url', fake.url, '--concurrency', '1', '--yes', '--json'];
    const batch = 4; // 4 × concurrency
    fake.delayMs = 100;
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    const killed = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    fake.onAnswered = (r) => {
      if (r.task === 'extract' && fake.count('extract') === 6) child.kill('SIGKILL');
    };
    await killed;
    fake.onAnswered = undefined;
    fake.delayMs = 0;
    const firstRun = fake.count('extract');
    assert.ok(firstRun >= 6 && firstRun <= 7, `${firstRun} extraction calls before the kill`);

    const second = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    second.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    assert.equal(code, 0, out);
    assert.equal((JSON.parse(out) as { status: string }).status, 'done');
    const ws = await openWorkspace(ex.root);
    try {
      const chunks = await uniqueChunks(ws);
      const respent = fake.count('extract') - chunks;
      assert.ok(respent >= 0 && respent <= batch, `re-spent ${respent} extraction calls (batch ${batch})`);
    } finally {
      await ws.close();
    }
  });

  it('after editing one document, only its chunks are extracted again and only the communities it reaches are re-reported', async () => {
    const ws = await openWorkspace(ex.root);
    try {
      const first = await indexKnowledge(ws, models());
      assert.equal(first.status, 'done');
      const [extract0, report0] = [fake.count('extract'), fake.count('report')];
      fs.appendFileSync(path.join(ex.root, 'docs', 'adr', '0003-payment-gateways-behind-one-interface.md'), '\n## Addendum\n\nThe `SandboxGateway` also rejects instructions above 1m in staging.\n');
      const second = await indexKnowledge(ws, models());
      assert.equal(second.status, 'done');
      const adrChunks = (await ws.db.get<{ n: number }>("SELECT count(*) AS n FROM kn_chunks c JOIN kn_documents d ON d.id = c.doc_id WHERE d.path LIKE 'docs/adr/0003%'"))!.n;
      assert.ok(fake.count('extract') - extract0 <= adrChunks, `${fake.count('extract') - extract0} extraction calls for a document of ${adrChunks} chunks`);
      const rereported = fake.count('report') - report0;
      assert.ok(rereported < first.communities.reported, `${rereported} of ${first.communities.reported} communities re-reported`);
      assert.ok(second.reports.reused > 0);
    } finally {
      await ws.close();
    }
  });
});
