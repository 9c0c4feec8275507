import * as vscode from 'vscode';
import { tokens } from '../core/tools/budget.js';
import type { Tool, ToolContext, ToolResult } from '../core/tools/types.js';
import type { Workspace } from '../core/store/workspace.js';
import { TenureError, errorMessage } from '../shared/errors.js';

/**
 * Language-model tool names share one namespace across every installed
 * extension, so ours carry a prefix: catalog `what_breaks` is LM tool
 * `tenure_what_breaks`. scripts/manifest.mjs applies the same rule when it
 * writes `contributes.languageModelTools`; the two must agree or registration fails.
 */
export const LM_TOOL_PREFIX = 'tenure_';

export function lmToolName(spec: Pick<Tool, 'name'>): string {
  return LM_TOOL_PREFIX + spec.name;
}

/** What a tool needs from the extension: the workspace once its first index has settled. */
export interface ToolHost {
  workspaceForQuery(token: vscode.CancellationToken): Promise<Workspace>;
  readonly log: vscode.LogOutputChannel;
  /** Trust, settings and hooks a tool needs beside the workspace. */
  toolContextExtras?(): Omit<ToolContext, 'workspace' | 'signal'>;
  measure?<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Called after a tool that writes (record_conclusion), so views refresh. */
  memoryChanged?(what: string): void;
}

/** An AbortSignal that follows a CancellationToken, for the core (which knows no vscode). */
export function abortSignalFor(token: vscode.CancellationToken | undefined): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  if (!token) return { signal: ac.signal, dispose: () => undefined };
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  return { signal: ac.signal, dispose: () => sub.dispose() };
}

/** Runs a catalog tool against the workspace, cancellable: the one path commands and LM tools share (the tool validates its input). */
export async function runTool(host: ToolHost, tool: Tool, input: unknown, token: vscode.CancellationToken): Promise<ToolResult> {
  const workspace = await host.workspaceForQuery(token);
  const abort = abortSignalFor(token);
  const t0 = Date.now();
  try {
    const context: ToolContext = { ...(host.toolContextExtras?.() ?? {}), workspace, signal: abort.signal };
    const run = () => tool.invoke(context, input);
    const result = host.measure ? await host.measure(`tool ${tool.name}`, run) : await run();
    if (!tool.effects.readOnly) host.memoryChanged?.(`tool ${tool.name}`);
    host.log.info(`${tool.name} ${JSON.stringify(input)} answered in ${Date.now() - t0} ms`);
    return result;
  } finally {
    abort.dispose();
  }
}

/**
 * What Copilot receives: the text answer, and the structured answer as a
 * second part only when both fit the tool's budget — the model pays for every
 * token, and the text already carries the items with their ids. (A second
 * text part, not a `LanguageModelDataPart`: VS Code 1.100 accepts data parts
 * with image MIME types only.)
 */
export function toLmResult(tool: Pick<Tool, 'budgetTokens'>, result: ToolResult): vscode.LanguageModelToolResult {
  const parts = [new vscode.LanguageModelTextPart(result.text)];
  const json = JSON.stringify(result.data);
  if (tokens(result.text) + tokens(json) <= tool.budgetTokens) parts.push(new vscode.LanguageModelTextPart(json));
  return new vscode.LanguageModelToolResult(parts);
}

/**
 * A writing tool's confirmation shows what will be written — every field the
 * agent filled in, quoted — beside what the tool does, so the person approves
 * the words and not a description of them.
 */
export function confirmationMessage(tool: Pick<Tool, 'summary'>, input: Record<string, unknown>): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.appendText(tool.summary);
  md.appendMarkdown('\n\n');
  const fields = Object.entries(input).filter(([, v]) => v !== undefined && v !== '');
  if (!fields.length) md.appendText('(no input given)');
  for (const [key, value] of fields) {
    md.appendMarkdown(`**${key}**: `);
    md.appendText(typeof value === 'string' ? value : JSON.stringify(value));
    md.appendMarkdown('  \n');
  }
  return md;
}

class CatalogTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly spec: Tool,
    private readonly host: ToolHost,
  ) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>,
  ): vscode.PreparedToolInvocation {
    const subject = typeof options.input?.['symbol'] === 'string' ? ` for \`${options.input['symbol']}\`` : '';
    // Read-only tools need no confirmation; a writing tool asks first.
    return this.spec.effects.readOnly
      ? { invocationMessage: `Tenure: ${this.spec.title}${subject}` }
      : {
          invocationMessage: `Tenure: ${this.spec.title}${subject}`,
          confirmationMessages: { title: `Tenure: ${this.spec.title}`, message: confirmationMessage(this.spec, options.input ?? {}) },
        };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    try {
      return toLmResult(this.spec, await runTool(this.host, this.spec, options.input, token));
    } catch (e) {
      // The message reaches the model: it says what went wrong and what to do next.
      this.host.log.warn(`${this.spec.name} failed: ${errorMessage(e)}`);
      if (TenureError.is(e)) throw new Error(e.message, { cause: e });
      throw e;
    }
  }
}

export function registerLmTools(tools: readonly Tool[], host: ToolHost): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== 'function') {
    host.log.warn('This VS Code has no language-model tool API; Tenure tools are not offered to Copilot.');
    return [];
  }
  const out: vscode.Disposable[] = [];
  for (const spec of tools) {
    try {
      out.push(vscode.lm.registerTool(lmToolName(spec), new CatalogTool(spec, host)));
    } catch (e) {
      host.log.error(`Cannot register LM tool ${lmToolName(spec)}: ${errorMessage(e)} (is package.json out of date? run \`node scripts/manifest.mjs\`)`);
    }
  }
  host.log.info(`Registered ${out.length} language-model tools: ${tools.map(lmToolName).join(', ')}`);
  return out;
}
