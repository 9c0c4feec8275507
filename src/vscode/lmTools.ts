import * as vscode from 'vscode';
import { z } from 'zod';
import type { ToolContext, ToolResult, ToolSpec } from '../core/tools/types.js';
import type { Workspace } from '../core/store/workspace.js';
import { TenureError, errorMessage } from '../shared/errors.js';

/**
 * Language-model tool names share one namespace across every installed
 * extension, so ours carry a prefix: catalog `what_breaks` is LM tool
 * `tenure_what_breaks`. scripts/manifest.mjs applies the same rule when it
 * writes `contributes.languageModelTools`; the two must agree or registration fails.
 */
export const LM_TOOL_PREFIX = 'tenure_';

export function lmToolName(spec: Pick<ToolSpec, 'name'>): string {
  return LM_TOOL_PREFIX + spec.name;
}

/** Appended to a tool's answer in an untrusted workspace, so the agent knows what it is missing and why. */
export const RESTRICTED_NOTE =
  'Restricted mode: this workspace is not trusted, so Tenure answered from its tree-sitter index and what is already stored — no language server confirmed any edge, no model read the workspace\'s text and no instruction file was written. Edges are at best inferred; ask the user to trust the folder for type-checked answers.';

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

/** Validates input with the tool's zod schema; the message names each bad field for the model. */
export function parseInput<S extends z.ZodObject>(spec: ToolSpec<S>, input: unknown): z.infer<S> {
  const parsed = spec.input.safeParse(input ?? {});
  if (!parsed.success) {
    throw new TenureError('invalid-input', `Invalid input for ${spec.name}: ${z.prettifyError(parsed.error)}`, parsed.error.issues);
  }
  return parsed.data;
}

/** Runs a catalog tool against the workspace, validated and cancellable: the one path commands and LM tools share. */
export async function runTool(host: ToolHost, spec: ToolSpec, input: unknown, token: vscode.CancellationToken): Promise<ToolResult> {
  const data = parseInput(spec, input);
  const workspace = await host.workspaceForQuery(token);
  const abort = abortSignalFor(token);
  const t0 = Date.now();
  try {
    const context: ToolContext = { ...(host.toolContextExtras?.() ?? {}), workspace, signal: abort.signal };
    const run = () => spec.run(context, data);
    const result = host.measure ? await host.measure(`tool ${spec.name}`, run) : await run();
    if (!spec.readOnly) host.memoryChanged?.(`tool ${spec.name}`);
    if (context.restricted === true && !/restricted mode/i.test(result.text)) {
      // Until a tool says it itself: the agent must know the answer is limited, and why.
      return { data: result.data, text: `${result.text}\n\n${RESTRICTED_NOTE}` };
    }
    host.log.info(`${spec.name} ${JSON.stringify(data)} answered in ${Date.now() - t0} ms`);
    return result;
  } finally {
    abort.dispose();
  }
}

/**
 * The JSON half of a result goes in a second text part holding only the JSON,
 * so a caller can parse it. Not a `LanguageModelDataPart`: in VS Code 1.100 the
 * host accepts data parts with image MIME types only and fails the whole
 * invocation ("Invalid MIME type") for application/json.
 */
function jsonPart(data: unknown): vscode.LanguageModelTextPart {
  return new vscode.LanguageModelTextPart(JSON.stringify(data));
}

export function toLmResult(result: ToolResult): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text), jsonPart(result.data)]);
}

class CatalogTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly spec: ToolSpec,
    private readonly host: ToolHost,
  ) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>,
  ): vscode.PreparedToolInvocation {
    const subject = typeof options.input?.['symbol'] === 'string' ? ` for \`${options.input['symbol']}\`` : '';
    // Read-only tools need no confirmation; a writing tool asks first.
    return this.spec.readOnly
      ? { invocationMessage: `Tenure: ${this.spec.title}${subject}` }
      : {
          invocationMessage: `Tenure: ${this.spec.title}${subject}`,
          confirmationMessages: { title: `Tenure: ${this.spec.title}`, message: this.spec.summary },
        };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    try {
      return toLmResult(await runTool(this.host, this.spec, options.input, token));
    } catch (e) {
      // The message reaches the model: it says what went wrong and what to do next.
      this.host.log.warn(`${this.spec.name} failed: ${errorMessage(e)}`);
      if (TenureError.is(e)) throw new Error(e.message, { cause: e });
      throw e;
    }
  }
}

export function registerLmTools(tools: readonly ToolSpec[], host: ToolHost): vscode.Disposable[] {
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
