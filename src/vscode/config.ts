import * as vscode from 'vscode';

export const CONFIG_SECTION = 'tenure';

/**
 * Typed access to Tenure's settings. The only module that calls
 * `getConfiguration`, so a setting's name, type and default live in one place
 * (besides its declaration in package.json).
 */
export class Config {
  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(CONFIG_SECTION);
  }

  /** Index the workspace when the extension starts. */
  get indexOnStartup(): boolean {
    return this.cfg.get<boolean>('index.onStartup', true);
  }

  /** Parse worker threads; undefined lets the core choose from the CPU count. */
  get indexWorkers(): number | undefined {
    const n = this.cfg.get<number>('index.workers', 0);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  }

  /** Quiet time before a batch of changed files is re-indexed. */
  get updateDebounceMs(): number {
    const n = this.cfg.get<number>('index.updateDebounceMs', 50);
    return Number.isFinite(n) && n >= 0 ? Math.min(n, 10_000) : 50;
  }

  /** Offer Tenure's MCP server to VS Code (1.101 and later). */
  get mcpEnabled(): boolean {
    return this.cfg.get<boolean>('mcp.enabled', true);
  }

  /**
   * The Node.js that runs the MCP server. Machine-scoped in package.json and
   * listed as a restricted setting, so an untrusted workspace cannot point it at
   * a program of its choosing.
   */
  get mcpNodePath(): string {
    return this.cfg.get<string>('mcp.nodePath', 'node').trim() || 'node';
  }

  affects(e: vscode.ConfigurationChangeEvent, key: string): boolean {
    return e.affectsConfiguration(`${CONFIG_SECTION}.${key}`);
  }
}
