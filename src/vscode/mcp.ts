import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { mcpLaunch } from './mcpLaunch.js';

/** Must match `contributes.mcpServerDefinitionProviders[].id` in package.json. */
export const MCP_PROVIDER_ID = 'tenure.mcp';

/* The MCP provider API arrived in VS Code 1.101; engines says ^1.100, so it is typed here and feature-detected. */
interface McpStdioServerDefinitionLike {
  cwd?: vscode.Uri;
}
type McpStdioServerDefinitionCtor = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => McpStdioServerDefinitionLike;
interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinitionLike[]>;
}
type RegisterMcp = (id: string, provider: McpServerDefinitionProvider) => vscode.Disposable;

export interface McpHost {
  readonly extensionPath: string;
  readonly version: string;
  /** The workspace root the server serves, or undefined when no folder is open. */
  root(): string | undefined;
  enabled(): boolean;
  nodePath(): string;
  readonly log: vscode.LogOutputChannel;
}

/** True when `version` (VS Code's, e.g. 1.100.3 or 1.101.0-insider) is at least major.minor. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

/**
 * The API, when this VS Code has it in its stable form. 1.100 carries an earlier
 * proposal under the same name that wants a different contribution point
 * (`modelContextServerCollections`), so the version is checked as well as the function.
 * Reading a missing or proposal-gated member must not throw at activation.
 */
function mcpApi(): { register: RegisterMcp; Stdio: McpStdioServerDefinitionCtor } | undefined {
  if (!atLeast(vscode.version, 1, 101)) return undefined;
  try {
    const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterMcp };
    const Stdio = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
    if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Stdio !== 'function') return undefined;
    return { register: lm.registerMcpServerDefinitionProvider.bind(vscode.lm), Stdio };
  } catch {
    return undefined;
  }
}

/**
 * Offers Tenure's stdio MCP server (`node dist/cli.js mcp --cwd <root>`) to
 * VS Code's MCP client, so agents that speak MCP in VS Code get the same tools.
 * Returns the registration plus a `refresh` to call when settings change.
 */
export function registerMcpProvider(host: McpHost): { disposable: vscode.Disposable; refresh(): void } | undefined {
  const api = mcpApi();
  if (!api) {
    host.log.info(`VS Code ${vscode.version} has no MCP server provider API (1.101+); the MCP server is not offered here. Run \`tenure mcp\` from a terminal instead.`);
    return undefined;
  }
  const changed = new vscode.EventEmitter<void>();
  const cli = path.join(host.extensionPath, 'dist', 'cli.js');
  const provider: McpServerDefinitionProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const launch = mcpLaunch({ enabled: host.enabled(), root: host.root(), cli, cliExists: fs.existsSync(cli), nodePath: host.nodePath() });
      if (launch.offered === false) {
        if (launch.why === 'missing-build') host.log.warn(`MCP server not offered: ${cli} is missing from this build.`);
        return [];
      }
      const def = new api.Stdio('Tenure', launch.command, [...launch.args], {}, host.version);
      def.cwd = vscode.Uri.file(launch.cwd);
      return [def];
    },
  };
  let registration: vscode.Disposable;
  try {
    registration = api.register(MCP_PROVIDER_ID, provider);
  } catch (e) {
    changed.dispose();
    host.log.warn(`Could not offer the MCP server: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  host.log.info('Offered the Tenure MCP server to VS Code.');
  return { disposable: vscode.Disposable.from(registration, changed), refresh: () => changed.fire() };
}
