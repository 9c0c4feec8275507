import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, copyExample, tempDir } from '../helpers/fixtures';

/*
 * Install as a new user does, away from the clone: `npm pack`, then the
 * README's install line into an empty prefix, then `tenure setup
 * claude-code` — and the MCP server that configuration names answers. The
 * clone is on no PATH and no registry name is used.
 */

describe('installing from the packed file into a clean prefix', function () {
  this.timeout(600_000);

  it('gives a tenure command whose `setup claude-code` configuration starts a working MCP server', async () => {
    const scratch = tempDir('tenure-install-');
    const ex = copyExample();
    try {
      const pack = spawnSync('npm', ['pack', '--pack-destination', scratch.root, '--silent'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(pack.status, 0, pack.stderr);
      const tgz = path.join(scratch.root, pack.stdout.trim().split('\n').pop()!);
      const prefix = path.join(scratch.root, 'prefix');
      const env = { ...process.env, PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: scratch.root, npm_config_prefix: prefix };
      const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tgz], { cwd: scratch.root, encoding: 'utf8', env });
      assert.equal(install.status, 0, install.stderr.slice(-2000));
      const bin = path.join(prefix, 'bin', 'tenure');
      assert.ok(fs.existsSync(bin), 'the tenure command is installed');
      const run = (...args: string[]) => spawnSync(bin, args, { cwd: ex.root, encoding: 'utf8', env });
      assert.equal(run('index', ex.root, '--no-knowledge').status, 0);
      const setup = run('setup', 'claude-code', '--yes', '--cwd', ex.root);
      assert.equal(setup.status, 0, setup.stderr);
      const server = (JSON.parse(fs.readFileSync(path.join(ex.root, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['tenure']!;
      assert.ok(server.args[0]!.startsWith(prefix), `the configuration names the installed CLI: ${server.args[0]}`);
      const mcp = new Client({ name: 'install-test', version: '1.0.0' });
      await mcp.connect(new StdioClientTransport({ command: server.command, args: server.args, env: env as Record<string, string>, stderr: 'pipe' }));
      try {
        const a = await mcp.callTool({ name: 'what_breaks', arguments: { symbol: 'SettlementService.retry', depth: 1 } });
        assert.match((a.content as { text: string }[])[0]!.text, /At least 4 dependents/);
      } finally {
        await mcp.close();
      }
    } finally {
      ex.cleanup();
      scratch.cleanup();
    }
  });
});
