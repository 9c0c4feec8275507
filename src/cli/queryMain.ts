import { toolCommands } from './commands/tools.js';
import { runProgram, tenureProgram } from './context.js';

/*
 * A slim entry for the queries an agent runs from a shell again and again
 * (`tenure what-breaks`, `why`, `history`, `ask`, …: the catalog's tools):
 * the full CLI bundle also loads indexing, enrichment, the model clients, the
 * MCP server and the team store before it parses its arguments. Bundled by
 * scripts/build.mjs as dist/tenure-query.js; dist/cli.js hands the catalog's
 * commands to it. Same commands, same options, same exit codes.
 */

export async function queryMain(argv: string[]): Promise<number> {
  const program = tenureProgram();
  toolCommands(program);
  return runProgram(program, argv);
}

if (require.main === module) {
  void queryMain(process.argv).then((code) => {
    process.exitCode = code;
  });
}
