import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, copyExample } from '../helpers/fixtures';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { openWorkspace } from '../../src/core/workspace';

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
    const data = r.structuredContent as { dependents: { symbol: { qname: string }; tier: string }[] };
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

/** `tenure mcp --watch`: the long-lived headless host enriches in the background with the servers it starts. */
describe('tenure mcp --watch confirms edges with language servers in the background (real servers)', function () {
  this.timeout(180_000);
  let ex: { root: string; cleanup: () => void };
  let client: Client;
  type Answer = { dependents: { symbol: { qname: string }; tier: string; source: string }[] };
  const ask = async (): Promise<Answer> => {
    const r = await client.callTool({ name: 'what_breaks', arguments: { symbol: 'SettlementService.retry', depth: 1 } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    return r.structuredContent as Answer;
  };
  const tiers = (a: Answer) => a.dependents.map((d) => `${d.symbol.qname} ${d.tier} ${d.source}`).sort();
  /** Asks until `ok` holds: indexing, the watcher and enrichment run on their own clocks. */
  const until = async (ok: (a: Answer) => boolean, what: string): Promise<Answer> => {
    const deadline = Date.now() + 150_000;
    let last: Answer | undefined;
    for (;;) {
      try {
        last = await ask();
        if (ok(last)) return last;
      } catch {
        // Not indexed yet: the symbol is unknown until the first index lands.
      }
      if (Date.now() > deadline) throw new Error(`${what}: timed out; last answer ${JSON.stringify(last && tiers(last))}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  before(async () => {
    ex = copyExample();
    client = new Client({ name: 'tenure-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--watch', '--cwd', ex.root], stderr: 'pipe' }));
  });
  after(async () => {
    // Closing stdin ends the server, which shuts its language servers down.
    await client.close();
    ex.cleanup();
  });

  it('upgrades the callers to resolved with the server named, drops them to their inventory tier after an edit, and confirms them again', async () => {
    const resolved = await until((a) => a.dependents.length === 4 && a.dependents.every((d) => d.tier === 'resolved'), 'first enrichment');
    assert.deepEqual(tiers(resolved), [
      'AllocationService.redrive resolved lsp:typescript',
      'NightlyBatch.run resolved lsp:typescript',
      'SettlementService.settle resolved lsp:typescript',
      'postRetry resolved lsp:typescript',
    ]);

    // An edit of the caller's file: its edge may no longer hold, so it must not stay resolved. The answer shows
    // it at the inventory's tier until the language server has read the edited text again; on a loaded machine
    // that re-check can land between two polls, so the proof is the fall itself or a re-check of the edited
    // bytes recorded after the edit (lsp.resolution.test.ts follows the fall step by step).
    const handlers = path.join(ex.root, 'src', 'api', 'handlers.ts');
    const edited = fs.readFileSync(handlers, 'utf8') + '\n// edited\n';
    const editedHash = createHash('sha1').update(edited).digest('hex');
    const editedAt = Date.now();
    fs.writeFileSync(handlers, edited);
    const reader = await openWorkspace(ex.root, { readonly: true });
    const recheckedEdit = async (): Promise<boolean> => {
      const row = await reader.db.get<{ n: number }>(
        `SELECT count(*) AS n FROM resolution_files r JOIN files f ON f.id = r.file_id
         WHERE f.path = 'src/api/handlers.ts' AND r.source = 'lsp:typescript' AND f.hash = ? AND r.hash = ? AND r.at >= ?`,
        [editedHash, editedHash, editedAt],
      );
      return (row?.n ?? 0) > 0;
    };
    try {
      const deadline = Date.now() + 150_000;
      for (;;) {
        const a = await ask().catch(() => undefined);
        const post = a?.dependents.find((d) => d.symbol.qname === 'postRetry');
        if (post && post.tier !== 'resolved') {
          assert.equal(post.tier, 'inferred', JSON.stringify(tiers(a!)));
          break;
        }
        if (await recheckedEdit()) break;
        if (Date.now() > deadline) throw new Error(`fall back after the edit: timed out; last answer ${JSON.stringify(a && tiers(a))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await reader.close();
    }

    const again = await until((a) => a.dependents.length === 4 && a.dependents.every((d) => d.tier === 'resolved'), 'enrichment after the edit');
    assert.equal(again.dependents.find((d) => d.symbol.qname === 'postRetry')?.source, 'lsp:typescript');
  });
});
