import { openWorkspace } from '../core/workspace.js';
import { serveStdio } from './server.js';

/** Standalone entry (`node dist/mcp.js [root]`); `tenure mcp` is the usual way in. */
async function main(): Promise<void> {
  const root = process.argv[2] ?? process.cwd();
  const ws = await openWorkspace(root);
  try {
    await serveStdio(ws, '0.1.0');
  } finally {
    await ws.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`tenure mcp: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
