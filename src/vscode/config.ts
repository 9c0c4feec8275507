import * as vscode from 'vscode';
import { optionsFromSettings, type MemoryOptions } from '../core/episodic/options.js';

export const CONFIG_SECTION = 'tenure';

/**
 * Typed access to Tenure's settings. The only module that calls
 * `getConfiguration`, so a setting's name, type and default live in one place
 * (besides its declaration in package.json).
 */
export class Config implements vscode.Disposable {
  /** First among the listeners (Config is created before anything that reads it), so no one reads a stale value. */
  private readonly listener = vscode.workspace.onDidChangeConfiguration((e) => {
    if (this.affects(e, 'episodes') || this.affects(e, 'rules')) this.memo = undefined;
  });

  dispose(): void {
    this.listener.dispose();
  }

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
    return this.cfg.get<boolean>('mcp.enabled', false);
  }

  /**
   * The Node.js that runs the MCP server. Machine-scoped in package.json and
   * listed as a restricted setting, so an untrusted workspace cannot point it at
   * a program of its choosing.
   */
  get mcpNodePath(): string {
    return this.cfg.get<string>('mcp.nodePath', 'node').trim() || 'node';
  }

  /** Index what the editor holds for open files with unsaved edits, so CodeLens and hovers follow the text as typed. */
  get indexUnsaved(): boolean {
    return this.cfg.get<boolean>('index.unsavedChanges', true);
  }

  get codeLensEnabled(): boolean {
    return this.cfg.get<boolean>('editor.codeLens', true);
  }

  get hoverEnabled(): boolean {
    return this.cfg.get<boolean>('editor.hover', true);
  }

  /** offline (default, no model, no cost) or openai (an OpenAI-compatible endpoint; key in SecretStorage). */
  get knowledgeProvider(): 'offline' | 'openai' | 'vscode-lm' {
    const v = this.cfg.get<string>('knowledge.provider', 'offline');
    return v === 'openai' || v === 'vscode-lm' ? v : 'offline';
  }

  /** Type-checked enrichment in the background through the language servers VS Code already runs. */
  get enrichmentEnabled(): boolean {
    return this.cfg.get<boolean>('enrichment.enabled', true);
  }

  get knowledgeModel(): string {
    return this.cfg.get<string>('knowledge.model', '').trim();
  }

  /** Machine-scoped and a restricted setting: a workspace cannot point Tenure at an endpoint of its choosing. */
  get knowledgeBaseUrl(): string {
    return this.cfg.get<string>('knowledge.baseUrl', '').trim();
  }

  private memo: MemoryOptions | undefined;

  /**
   * The episodic and procedural options (tenure.episodes.*, tenure.rules.*),
   * validated by the core. Read once and kept until one of them changes:
   * each `inspect` costs the host about a millisecond, and every
   * tool call and panel asks for them.
   */
  memoryOptions(warn: (message: string) => void = () => undefined): MemoryOptions {
    if (this.memo) return this.memo;
    const cfg = vscode.workspace.getConfiguration();
    this.memo = optionsFromSettings((key) => {
      const i = cfg.inspect(key);
      return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    }, warn);
    return this.memo;
  }


  affects(e: vscode.ConfigurationChangeEvent, key: string): boolean {
    return e.affectsConfiguration(`${CONFIG_SECTION}.${key}`);
  }
}
