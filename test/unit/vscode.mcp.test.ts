import * as assert from 'node:assert/strict';
import { mcpLaunch } from '../../src/vscode/mcpLaunch';

describe('the MCP server the extension offers VS Code', () => {
  const base = { root: '/w', cli: '/ext/dist/cli.js', cliExists: true, nodePath: 'node' };

  it('offers nothing unless the setting asks for it: Copilot has the same tools as language-model tools', () => {
    assert.deepEqual(mcpLaunch({ ...base, enabled: false }), { offered: false, why: 'setting-off' });
  });

  it('when asked, starts this build\'s CLI with the workspace root', () => {
    assert.deepEqual(mcpLaunch({ ...base, enabled: true }), { offered: true, command: 'node', args: ['/ext/dist/cli.js', 'mcp', '--cwd', '/w'], cwd: '/w' });
  });

  it('offers nothing without a folder or without the bundled CLI', () => {
    assert.deepEqual(mcpLaunch({ ...base, enabled: true, root: undefined }), { offered: false, why: 'no-folder' });
    assert.deepEqual(mcpLaunch({ ...base, enabled: true, cliExists: false }), { offered: false, why: 'missing-build' });
  });
});
