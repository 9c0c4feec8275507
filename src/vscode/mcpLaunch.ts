/*
 * Whether the extension offers its MCP server to VS Code, and how it starts:
 * no vscode import, so it is tested in node (test/unit/vscode.mcp.test.ts).
 */

export type McpLaunch =
  | { readonly offered: true; readonly command: string; readonly args: readonly string[]; readonly cwd: string }
  | { readonly offered: false; readonly why: 'setting-off' | 'no-folder' | 'missing-build' };

/**
 * Off unless the setting asks for it: Copilot already has the same tools as
 * language-model tools, and an agent offered both sees every tool twice.
 */
export function mcpLaunch(o: { enabled: boolean; root: string | undefined; cli: string; cliExists: boolean; nodePath: string }): McpLaunch {
  if (!o.enabled) return { offered: false, why: 'setting-off' };
  if (!o.root) return { offered: false, why: 'no-folder' };
  if (!o.cliExists) return { offered: false, why: 'missing-build' };
  return { offered: true, command: o.nodePath, args: [o.cli, 'mcp', '--cwd', o.root], cwd: o.root };
}
