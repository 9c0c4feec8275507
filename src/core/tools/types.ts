import type { z } from 'zod';
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
 * Every answer has two forms: `data`, JSON for programs (validated by the
 * tool's output schema), and `text`, a compact rendering for agents that
 * states tiers and lower bounds in words.
 */
export interface ToolResult {
  readonly data: unknown;
  readonly text: string;
}

export interface CliSpec {
  /** `what-breaks` */
  readonly command: string;
  readonly aliases: readonly string[];
  /** The input field filled by the positional argument, if any. */
  readonly positional?: string;
}

/**
 * One tool, defined once: the LM tool list in package.json, the MCP tool list
 * and the CLI commands are all generated from these entries.
 */
export interface ToolSpec<S extends z.ZodObject = z.ZodObject> {
  /** snake_case, as agents call it: `what_breaks`. */
  readonly name: string;
  readonly title: string;
  /** One line for people (CLI help, tool pickers). */
  readonly summary: string;
  /** For agents: when to call it and how to read the tiers in the answer. */
  readonly modelDescription: string;
  readonly input: S;
  readonly cli: CliSpec;
  /** Read-only tools never change the workspace; MCP and VS Code label them so. */
  readonly readOnly: boolean;
  run(ctx: ToolContext, input: z.infer<S>): Promise<ToolResult>;
}
