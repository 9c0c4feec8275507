import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI, copyExample } from '../helpers/fixtures';

/*
 * The MCP server over raw stdio, as a broken or hostile client drives it: a
 * line that is not JSON, a request before `initialize`, a frame far over any
 * real request, an oversized argument. Each gets a JSON-RPC error or a tool
 * error that says what is wrong, and the server keeps answering.
 */

interface Rpc {
  readonly id?: number | string | null;
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

class RawClient {
  private buffer = '';
  private readonly waiting: ((m: Rpc) => void)[] = [];
  private readonly queue: Rpc[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      this.buffer += d;
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const m = JSON.parse(line) as Rpc;
        const w = this.waiting.shift();
        if (w) w(m);
        else this.queue.push(m);
      }
    });
    this.exited = new Promise((r) => child.on('exit', (code) => r(code)));
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  next(timeoutMs = 20_000): Promise<Rpc> {
    const q = this.queue.shift();
    if (q) return Promise.resolve(q);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no answer from the server')), timeoutMs);
      this.waiting.push((m) => {
        clearTimeout(t);
        resolve(m);
      });
    });
  }

  async request(id: number, method: string, params: unknown = {}): Promise<Rpc> {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return this.next();
  }
}

describe('the MCP server survives its input (raw stdio)', function () {
  this.timeout(120_000);
  let ex: { root: string; cleanup: () => void };
  let c: RawClient;

  before(() => {
    ex = copyExample();
    assert.equal(spawnSync(process.execPath, [CLI, 'index', ex.root, '--no-knowledge'], { encoding: 'utf8' }).status, 0);
    c = new RawClient(spawn(process.execPath, [CLI, 'mcp', '--no-index', '--cwd', ex.root], { stdio: 'pipe' }));
  });
  after(async () => {
    c.child.stdin.end();
    assert.equal(await c.exited, 0, 'the server ends cleanly when its client closes stdin');
    ex.cleanup();
  });

  it('answers a line that is not JSON with a parse error (-32700)', async () => {
    c.write('this is not json\n');
    const m = await c.next();
    assert.equal(m.error?.code, -32700);
    assert.equal(m.id, null);
  });

  it('answers JSON that is not JSON-RPC with an invalid-request error (-32600), with its id', async () => {
    c.write(`${JSON.stringify({ id: 7, hello: 'world' })}\n`);
    const m = await c.next();
    assert.equal(m.error?.code, -32600);
    assert.equal(m.id, 7);
  });

  it('refuses tools/call before initialize', async () => {
    const m = await c.request(1, 'tools/call', { name: 'what_breaks', arguments: { symbol: 'SettlementService.retry' } });
    assert.equal(m.error?.code, -32002);
    assert.match(m.error!.message, /send "initialize" before "tools\/call"/);
  });

  it('drops a frame over the limit with an error and keeps serving', async () => {
    c.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'x'.repeat(6 * 1024 * 1024)}"}}\n`);
    const m = await c.next();
    assert.equal(m.error?.code, -32600);
    assert.match(m.error!.message, /Request too large/);
    const init = await c.request(3, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    assert.ok(init.result, JSON.stringify(init));
    c.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const list = await c.request(4, 'tools/list');
    assert.ok(((list.result as { tools: unknown[] }).tools ?? []).length >= 7);
  });

  it('bounds what reaches a query: a 100,000-character symbol is refused by name, not by SQLite', async () => {
    const m = await c.request(5, 'tools/call', { name: 'what_breaks', arguments: { symbol: 'A'.repeat(100_000) } });
    const text = JSON.stringify(m);
    assert.doesNotMatch(text, /SQLITE|LIKE or GLOB pattern too complex/);
    assert.match(text, /symbol/i);
    const ok = await c.request(6, 'tools/call', { name: 'what_breaks', arguments: { symbol: 'SettlementService.retry', depth: 1 } });
    assert.match(JSON.stringify(ok), /At least 4 dependents/);
  });
});
