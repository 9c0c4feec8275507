import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { fetchGitHubThreads } from '../core/knowledge/sources/github.js';
import { githubRepoOf } from '../core/repo/github.js';
import { LlmError } from '../core/llm/errors.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../core/llm/types.js';

/*
 * The knowledge memory's ports inside VS Code:
 *   - VsCodeChatModel: the core's ChatModel over VS Code's language-model API
 *     (the user's Copilot models; no key). Using a model needs the user's
 *     consent, which VS Code asks for on the first request: so a model is only
 *     selected and called from a user action (a command), never on activation.
 *   - fetchGitHubThreadsWithVsCodeAuth: recent PR and issue threads of the
 *     workspace's GitHub repository through VS Code's GitHub sign-in, written
 *     as exports the knowledge sources read (.tenure/exports/github).
 * Cache, retry, budget and validation stay in the core's runner.
 */

export const KNOWLEDGE_JUSTIFICATION =
  'Tenure reads your decision records, post-mortems, PR threads and commit messages to build a knowledge graph of why the code is the way it is.';

/** vscode.lm has no system role: the system prompt is sent first, as a user message marked as instructions. */
function toVsCodeMessages(request: ChatRequest): vscode.LanguageModelChatMessage[] {
  return request.messages.map((m) =>
    m.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(m.content)
      : vscode.LanguageModelChatMessage.User(m.role === 'system' ? `Instructions for this task:\n${m.content}` : m.content),
  );
}

/** VS Code's model errors as the core's kinds, so the runner retries what can be retried. */
export function classifyVsCodeError(e: unknown): LlmError {
  if (LlmError.is(e)) return e;
  if (e instanceof vscode.CancellationError) return new LlmError('cancelled', 'Cancelled.', { cause: e });
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name) {
      return new LlmError('refused', `VS Code did not allow Tenure to use this language model (${e.message}). Run the command again and allow access, or choose the offline pass.`, { cause: e });
    }
    if (e.code === vscode.LanguageModelError.Blocked.name) return new LlmError('rate-limited', `The language model is not available right now (quota or rate limit): ${e.message}`, { cause: e });
    if (e.code === vscode.LanguageModelError.NotFound.name) return new LlmError('bad-request', `The language model is no longer available: ${e.message}`, { cause: e });
    return new LlmError('server', `The language model failed: ${e.message}`, { cause: e });
  }
  return new LlmError('server', `The language model failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

export class VsCodeChatModel implements ChatModel {
  readonly provider = 'vscode' as const;
  readonly id: string;
  readonly contextTokens: number;

  constructor(
    private readonly model: vscode.LanguageModelChat,
    private readonly justification = KNOWLEDGE_JUSTIFICATION,
  ) {
    // The id is part of every cache key: vendor and family keep it stable across VS Code sessions.
    this.id = `vscode:${model.vendor}/${model.family}${model.version ? `@${model.version}` : ''}`;
    this.contextTokens = model.maxInputTokens;
  }

  get name(): string {
    return this.model.name;
  }

  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const messages = toVsCodeMessages(request);
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.model.sendRequest(messages, { justification: this.justification }, cts.token);
      let text = '';
      for await (const part of response.text) text += part;
      let usage: ChatResponse['usage'];
      try {
        const counts = await Promise.all([...messages.map((m) => this.model.countTokens(m, cts.token)), this.model.countTokens(text, cts.token)]);
        const output = counts.pop() ?? 0;
        usage = { inputTokens: counts.reduce((a, b) => a + b, 0), outputTokens: output };
      } catch {
        usage = undefined; // the runner estimates
      }
      return usage ? { text, usage } : { text };
    } catch (e) {
      if (signal?.aborted) throw new LlmError('cancelled', 'Cancelled.', { cause: e });
      throw classifyVsCodeError(e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }
}

/**
 * The user's choice of language model for a knowledge pass. Call from a user
 * action only: the first request to a model asks the user for consent. With a
 * family configured, the first model of that family; else a quick pick when
 * several are offered. Undefined when none is available or the user cancels.
 */
export async function pickKnowledgeChatModel(options: { family?: string; vendor?: string } = {}): Promise<VsCodeChatModel | undefined> {
  if (typeof vscode.lm?.selectChatModels !== 'function') return undefined;
  const selector: vscode.LanguageModelChatSelector = { vendor: options.vendor ?? 'copilot', ...(options.family ? { family: options.family } : {}) };
  const models = await vscode.lm.selectChatModels(selector);
  if (!models.length) return undefined;
  if (models.length === 1 || options.family) return new VsCodeChatModel(models[0]!);
  const picked = await vscode.window.showQuickPick(
    models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family}`, detail: `up to ${m.maxInputTokens.toLocaleString()} input tokens`, model: m })),
    { title: 'Tenure: language model for the knowledge index', placeHolder: 'Extraction, description merges and community reports use this model' },
  );
  return picked ? new VsCodeChatModel(picked.model) : undefined;
}

/** Whether this extension may already send requests to the model without a consent prompt (undefined: not yet asked). */
export function canSendWithoutPrompt(context: vscode.ExtensionContext, model: vscode.LanguageModelChat): boolean | undefined {
  return context.languageModelAccessInformation?.canSendRequest(model);
}

/**
 * Recent pull requests and issues of the workspace's GitHub repository, with
 * their comments and reviews, fetched with VS Code's GitHub sign-in (asked
 * for here, from a user action) and written to .tenure/exports/github, where
 * the knowledge sources read them. Returns the number of threads written.
 */
export async function fetchGitHubThreadsWithVsCodeAuth(root: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<{ repo: string; written: number } | undefined> {
  const repo = await githubRepoOf(root);
  if (!repo) {
    void vscode.window.showWarningMessage('Tenure: this folder has no GitHub remote (origin), so there is no repository to read pull requests from.');
    return undefined;
  }
  const session = await vscode.authentication.getSession('github', ['repo'], { createIfNone: true });
  const files = await fetchGitHubThreads({ owner: repo.owner, repo: repo.name, token: session.accessToken, ...(options.limit ? { limit: options.limit } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  const dir = path.join(root, '.tenure', 'exports', 'github');
  for (const f of files) {
    const file = path.join(dir, f.file);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(f.json, null, 2));
  }
  return { repo: `${repo.owner}/${repo.name}`, written: files.length };
}
