import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LspClient, LspTimeoutError } from '../../src/core/structural/sources/lsp/client';
import { LspCodeIntel } from '../../src/core/structural/sources/lsp/codeIntel';
import { commandServer } from '../../src/core/structural/sources/lsp/servers';
import { CodeIntelResolver } from '../../src/core/structural/enrichment/codeIntelResolver';
import { EnrichmentPass } from '../../src/core/structural/enrichment/enrich';
import { ResolverUnavailableError } from '../../src/core/structural/enrichment/types';
import { REPO_ROOT, tempDir } from '../helpers/fixtures';
import { ask, edgeTier, indexedFixture } from './lsp.helpers';

const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'resolution', 'fake-lsp.js');

function fake(mode: string, log?: string) {
  return commandServer('typescript', ['typescript', 'tsx', 'javascript'], [process.execPath, FAKE, mode, ...(log ? [log] : [])]);
}

describe('language-server client: timeouts, crashes, missing servers', function () {
  this.timeout(60_000);
  const signal = new AbortController().signal;
  let tmp: { root: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir();
    fs.writeFileSync(path.join(tmp.root, 'a.ts'), 'export const a = 1;\n');
  });
  afterEach(() => tmp.cleanup());

  it('times out a request that never answers and cancels it on the server', async () => {
    const log = path.join(tmp.root, 'server.log');
    const client = new LspClient(fake('hang', log), { root: tmp.root, requestTimeoutMs: 300 });
    try {
      const t = Date.now();
      await assert.rejects(client.request('textDocument/definition', { textDocument: { uri: 'file:///x' }, position: { line: 0, character: 0 } }, signal), LspTimeoutError);
      assert.ok(Date.now() - t < 3000);
      await new Promise((r) => setTimeout(r, 200));
      assert.match(fs.readFileSync(log, 'utf8'), /\$\/cancelRequest/);
      assert.equal(client.stats.timeouts, 1);
    } finally {
      await client.dispose();
    }
  });

  it('restarts a crashed server with backoff, then gives up with a clear message', async () => {
    const client = new LspClient(fake('crash'), { root: tmp.root, maxRestarts: 2, backoffMs: 50 });
    try {
      const req = () => client.request('textDocument/definition', {}, signal);
      await assert.rejects(req(), /exited/);
      await assert.rejects(req(), /exited/);
      assert.equal(client.status.restarts, 1);
      await assert.rejects(req(), /exited/);
      await assert.rejects(req(), (e: unknown) => ResolverUnavailableError.is(e) && /not available \(the server exited \(code 3\)/.test((e as Error).message));
      assert.equal(client.status.state, 'unavailable');
    } finally {
      await client.dispose();
    }
  });

  it('a server that does not initialize in time is unavailable, not a hang', async () => {
    const client = new LspClient(fake('slowinit'), { root: tmp.root, readyTimeoutMs: 500, maxRestarts: 0 });
    await assert.rejects(client.ensureStarted(), (e: unknown) => ResolverUnavailableError.is(e));
    await client.dispose();
  });

  it('a missing server degrades the answer with a message; the query still answers', async () => {
    const fx = await indexedFixture('ts');
    try {
      const missing = commandServer('typescript', ['typescript'], ['tenure-no-such-language-server']);
      const resolver = new CodeIntelResolver(new LspCodeIntel(missing, { root: fx.root }));
      const r = await new EnrichmentPass(fx.ws.db, [resolver], { root: fx.root }).run();
      assert.equal(r.resolvers[0]!.state, 'unavailable');
      assert.match(r.resolvers[0]!.message!, /tenure-no-such-language-server was not found/);
      const answer = await ask(fx.ws, 'PaymentGateway.submit');
      assert.deepEqual(answer.dependents.map((d) => d.tier), ['inferred', 'inferred']);
      assert.ok(answer.notSeen.some((n) => /lsp:typescript \(tenure-no-such-language-server was not found/.test(n)), answer.notSeen.join('\n'));
      await resolver.dispose();
    } finally {
      await fx.close();
    }
  });

  it('a server that crashes on every request leaves the graph as the inventory built it', async () => {
    const fx = await indexedFixture('ts');
    try {
      const resolver = new CodeIntelResolver(new LspCodeIntel(fake('crash'), { root: fx.root, maxRestarts: 1, backoffMs: 20 }));
      const r = await new EnrichmentPass(fx.ws.db, [resolver], { root: fx.root }).run();
      assert.equal(r.resolvers[0]!.state, 'unavailable');
      assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
      const n = await fx.ws.db.get<{ n: number }>("SELECT count(*) AS n FROM edges WHERE tier = 'resolved'");
      assert.equal(n!.n, 0);
      await resolver.dispose();
    } finally {
      await fx.close();
    }
  });
});
