import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, copyExample, tempDir } from '../helpers/fixtures';

/*
 * `tenure setup <client>` writes each agent's MCP configuration, and the
 * server it names really starts and answers: the test reads the file the way
 * the client does and starts what it says, with a real MCP client.
 */

function tenure(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The server entry as the client reads its file. */
function serverOf(client: string, file: string): { command: string; args: string[] } {
  const text = fs.readFileSync(file, 'utf8');
  if (client === 'codex') {
    const section = text.slice(text.indexOf('[mcp_servers.tenure]'));
    const command = /^command = "([^"]+)"$/m.exec(section)![1]!;
    const args = JSON.parse(/^args = (\[.*\])$/m.exec(section)![1]!) as string[];
    return { command, args };
  }
  const json = JSON.parse(text) as { servers?: Record<string, { command: string; args: string[] }>; mcpServers?: Record<string, { command: string; args: string[] }> };
  return (json.servers ?? json.mcpServers)!['tenure']!;
}

const FILES: Record<string, (root: string, home: string) => string> = {
  vscode: (r) => path.join(r, '.vscode', 'mcp.json'),
  'claude-code': (r) => path.join(r, '.mcp.json'),
  cursor: (r) => path.join(r, '.cursor', 'mcp.json'),
  windsurf: (_r, h) => path.join(h, '.codeium', 'windsurf', 'mcp_config.json'),
  codex: (_r, h) => path.join(h, '.codex', 'config.toml'),
  gemini: (r) => path.join(r, '.gemini', 'settings.json'),
};

describe('tenure setup <client>', function () {
  this.timeout(180_000);
  let ex: { root: string; cleanup: () => void };
  let home: { root: string; cleanup: () => void };

  before(() => {
    ex = copyExample();
    home = tempDir('tenure-home-');
    assert.equal(spawnSync(process.execPath, [CLI, 'index', ex.root, '--no-knowledge'], { encoding: 'utf8' }).status, 0);
  });
  after(() => {
    ex.cleanup();
    home.cleanup();
  });

  for (const client of Object.keys(FILES)) {
    it(`${client}: writes a configuration whose server starts and answers, keeping other servers`, async () => {
      const file = FILES[client]!(ex.root, home.root);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const other = client === 'codex' ? '[mcp_servers.other]\ncommand = "other-server"\n' : JSON.stringify(client === 'vscode' ? { servers: { other: { command: 'other-server' } } } : { mcpServers: { other: { command: 'other-server' } } });
      fs.writeFileSync(file, other);
      const r = tenure(['setup', client, '--yes', '--cwd', ex.root], ex.root, { HOME: home.root });
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^\+.*tenure/m, 'the diff is shown');
      assert.match(fs.readFileSync(file, 'utf8'), /other-server/, 'the other server is kept');
      const server = serverOf(client, file);
      assert.ok(path.isAbsolute(server.command) && path.isAbsolute(server.args[0]!), 'absolute paths: nothing looked up on PATH');
      assert.deepEqual(server.args.slice(1), ['mcp', '--watch', '--cwd', ex.root]);
      const mcp = new Client({ name: `setup-${client}`, version: '1.0.0' });
      await mcp.connect(new StdioClientTransport({ command: server.command, args: server.args, stderr: 'pipe' }));
      try {
        const { tools } = await mcp.listTools();
        assert.ok(tools.length >= 7, tools.map((t) => t.name).join(','));
        const a = await mcp.callTool({ name: 'what_breaks', arguments: { symbol: 'SettlementService.retry', depth: 1 } });
        assert.match((a.content as { text: string }[])[0]!.text, /At least 4 dependents/);
      } finally {
        await mcp.close();
      }
      assert.match(tenure(['setup', client, '--yes', '--cwd', ex.root], ex.root, { HOME: home.root }).out, /already set up/);
    });
  }

  it('adds the agent instructions only with a person in a terminal (or a script that says so)', () => {
    const refused = tenure(['setup', 'claude-code', '--instructions', '--yes', '--cwd', ex.root], ex.root, { HOME: home.root });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /the instructions file needs a person's approval in a terminal/);
    assert.equal(fs.existsSync(path.join(ex.root, 'CLAUDE.md')), false);
    const ok = tenure(['setup', 'claude-code', '--instructions', '--yes', '--cwd', ex.root], ex.root, { HOME: home.root, TENURE_APPROVE_WITHOUT_TERMINAL: '1' });
    assert.equal(ok.code, 0, ok.err);
    assert.match(fs.readFileSync(path.join(ex.root, 'CLAUDE.md'), 'utf8'), /<!-- BEGIN TENURE -->\n## Tenure: the memory of this repository\n[\s\S]*call `what_breaks`[\s\S]*<!-- END TENURE -->/);
  });

  it('refuses an unknown client with the list of known ones', () => {
    const r = tenure(['setup', 'notepad', '--cwd', ex.root], ex.root, { HOME: home.root });
    assert.equal(r.code, 2);
    assert.match(r.err, /Unknown client "notepad". One of: vscode, claude-code, cursor, windsurf, codex, gemini/);
  });
});
