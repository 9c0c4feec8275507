import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import { TOOLS } from '../core/tools/catalog.js';
import type { ToolContext } from '../core/tools/types.js';
import type { Workspace } from '../core/store/workspace.js';
import { GuardedStdioTransport } from './transport.js';

export const SERVER_NAME = 'tenure';

/**
 * The MCP front door: every catalog tool, over stdio, with its input and
 * output schemas and its annotations. Stdout carries protocol only; logs go
 * to stderr. Tool errors come back as tool results with isError, so the agent
 * reads why and what to do instead of a dead call.
 */
export interface McpServeOptions {
  /** Told which symbols were asked about (background enrichment confirms them first). */
  readonly queried?: (symbols: readonly string[]) => void;
  /** The workspace is not trusted: answers say what that leaves out. */
  readonly restricted?: boolean;
}

export function createMcpServer(workspace: Workspace, version: string, options: McpServeOptions = {}): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version }, { capabilities: { tools: {} } });
  const ctx: ToolContext = { workspace, ...(options.queried ? { queried: options.queried } : {}), ...(options.restricted ? { restricted: true } : {}) };
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.modelDescription,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.effects.readOnly,
          destructiveHint: false,
          idempotentHint: tool.effects.idempotent,
          // Tools read and write this workspace's memory only: no open world.
          openWorldHint: false,
        },
      },
      async (args: unknown) => {
        try {
          const result = await tool.invoke(ctx, args);
          return { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.data as Record<string, unknown> };
        } catch (e) {
          const reason = TenureError.is(e) ? e.reason : 'internal';
          return { isError: true, content: [{ type: 'text' as const, text: `${reason}: ${errorMessage(e)}` }] };
        }
      },
    );
  }
  return server;
}

export async function serveStdio(workspace: Workspace, version: string, options: McpServeOptions = {}): Promise<void> {
  const server = createMcpServer(workspace, version, options);
  const transport = new GuardedStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  transport.onerror = (e) => process.stderr.write(`tenure mcp: ${e.message}\n`);
  await server.connect(transport);
  // The SDK wraps onclose when it connects: wait on ours through it.
  await closed;
  await server.close();
}
