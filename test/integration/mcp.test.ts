import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, copyExample } from '../helpers/fixtures';
import { spawnSync } from 'node:child_process';

describe('MCP server over stdio, driven by a real MCP client', () => {
  let ex: { root: string; cleanup: () => void };
  let client: Client;

  before(async () => {
    ex = copyExample();
    assert.equal(spawnSync(process.execPath, [CLI, 'index', ex.root]).status, 0);
    client = new Client({ name: 'tenure-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--no-index', '--cwd', ex.root], stderr: 'pipe' }));
  });
  after(async () => {
    await client.close();
    ex.cleanup();
  });

  it('lists the catalog tools with JSON schemas and read-only hints', async () => {
    const { tools } = await client.listTools();
    const wb = tools.find((t) => t.name === 'what_breaks');
    assert.ok(wb, tools.map((t) => t.name).join(','));
    assert.equal(wb.inputSchema.type, 'object');
    assert.deepEqual(wb.inputSchema.required, ['symbol']);
    assert.equal(wb.annotations?.readOnlyHint, true);
    assert.match(wb.description ?? '', /resolved .* inferred .* ambiguous .* dynamic/s);
  });

  it('answers what_breaks with tiered text and structured content', async () => {
    const r = await client.callTool({ name: 'what_breaks', arguments: { symbol: 'SettlementService.retry', depth: 1 } });
    assert.notEqual(r.isError, true);
    const text = (r.content as { type: string; text: string }[])[0]!.text;
    assert.match(text, /At least 4 dependents: 4 callers \(4 inferred\)/);
    const data = (r.structuredContent as { result: { dependents: { symbol: { qname: string }; tier: string }[] } }).result;
    assert.deepEqual(data.dependents.map((d) => `${d.symbol.qname} ${d.tier}`).sort(), [
      'AllocationService.redrive inferred',
      'NightlyBatch.run inferred',
      'SettlementService.settle inferred',
      'postRetry inferred',
    ]);
  });

  it('returns errors as tool results that say what to do', async () => {
    const r = await client.callTool({ name: 'what_breaks', arguments: { symbol: 'retry' } });
    assert.equal(r.isError, true);
    assert.match((r.content as { text: string }[])[0]!.text, /^symbol-ambiguous: "retry" matches 3 symbols/);
    const bad = await client.callTool({ name: 'what_breaks', arguments: { symbol: 'x', depth: 99 } });
    assert.equal(bad.isError, true);
  });
});
