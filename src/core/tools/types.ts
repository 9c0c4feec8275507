import type * as z from 'zod';
import { TenureError } from '../../shared/errors.js';
import type { MemoryOptions } from '../episodic/options.js';
import type { Workspace } from '../store/workspace.js';

/** What every front door hands a tool: the workspace's memories and a way to stop. */
export interface ToolContext {
  readonly workspace: Workspace;
  readonly signal?: AbortSignal;
  /**
   * The workspace is not trusted (VS Code restricted mode): a tool must not
   * start a language server, call a model on workspace text or write
   * instruction files, and should say in its answer why it is limited.
   */
  readonly restricted?: boolean;
  /**
   * A long-lived host (the extension, `tenure mcp --watch`) that enriches in
   * the background hears which symbols were just asked about, to have a type
   * checker confirm their edges first.
   */
  readonly queried?: (symbols: readonly string[]) => void;
  /** The episodic and procedural options as the host read them (VS Code settings); else read from the workspace's files. */
  readonly memoryOptions?: MemoryOptions;
}

/**
 * Every answer has two forms: `text`, a compact rendering for agents that
 * states tiers and lower bounds in words, and `data`, the same items as JSON
 * (with ids, so an agent can ask for more), validated by the tool's output
 * schema.
 */
export interface ToolResult<T = unknown> {
  readonly data: T;
  readonly text: string;
}

export interface CliSpec {
  /** `what-breaks` */
  readonly command: string;
  readonly aliases: readonly string[];
  /** The input field filled by the positional argument, if any. */
  readonly positional?: string;
}

/** MCP tool annotations (and the VS Code confirmation policy): what calling the tool does to the world. */
export interface ToolEffects {
  /** Reads the memories only. */
  readonly readOnly: boolean;
  /** Calling it twice with the same input leaves the memories as calling it once. */
  readonly idempotent: boolean;
}

/** One tool as written: typed input and output. */
export interface ToolDefinition<I extends z.ZodObject, O extends z.ZodType> {
  /** snake_case, as agents call it: `what_breaks`. */
  readonly name: string;
  readonly title: string;
  /** One line for people (CLI help, tool pickers). */
  readonly summary: string;
  /** For agents: when to call it and how to read the tiers in the answer. */
  readonly modelDescription: string;
  readonly input: I;
  readonly output: O;
  readonly cli: CliSpec;
  readonly effects: ToolEffects;
  /** Tokens the text answer stays within at the default limit. */
  readonly budgetTokens: number;
  run(ctx: ToolContext, input: z.infer<I>): Promise<ToolResult<z.infer<O>>>;
}

/**
 * One tool as the front doors see it: the LM tool list in package.json, the
 * MCP tool list and the CLI commands are all generated from these entries,
 * and every front door calls `invoke`, so input is validated once, here.
 */
export interface Tool extends Omit<ToolDefinition<z.ZodObject, z.ZodType>, 'run'> {
  invoke(ctx: ToolContext, input: unknown): Promise<ToolResult>;
}

/** The one check of a tool's input, for every front door: the message names each bad field, which is what an agent needs to ask again. */
export function parseToolInput<I extends z.ZodObject>(tool: { readonly name: string; readonly input: I }, raw: unknown): z.infer<I> {
  const parsed = tool.input.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
  throw new TenureError('invalid-input', `Invalid input for ${tool.name}: ${problems}`, parsed.error.issues);
}

/** Appended to an answer in an untrusted workspace, so the agent knows what it is missing and why. */
export const RESTRICTED_NOTE =
  "Restricted mode: this workspace is not trusted, so Tenure answered from its tree-sitter index and what is already stored — no language server confirmed any edge, no model read the workspace's text and no instruction file was written. Edges are at best inferred; ask the user to trust the folder for type-checked answers.";

export function defineTool<I extends z.ZodObject, O extends z.ZodType>(def: ToolDefinition<I, O>): Tool {
  const { run, ...spec } = def;
  return {
    ...spec,
    async invoke(ctx, raw) {
      const result = await run(ctx, parseToolInput(def, raw));
      return ctx.restricted ? { data: result.data, text: `${result.text}\n\n${RESTRICTED_NOTE}` } : result;
    },
  };
}
