import { Command } from 'commander';
import { episodeCommands } from './commands/episodes.js';
import { VERSION, runProgram } from './context.js';

/*
 * A slim entry for the commands an agent or a CI script runs on every
 * attempt (`tenure run`, `tenure import junit`): the full CLI bundle loads
 * every memory (the knowledge memory's model clients, the MCP server) before
 * it parses its arguments; this one loads only the episodic and procedural
 * code. Bundled by scripts/build.mjs as dist/tenure-run.js; dist/cli.js hands
 * `run` over to it when present. Same commands, same options, same exit codes.
 */

export async function runMain(argv: string[]): Promise<number> {
  const program = new Command()
    .name('tenure')
    .version(VERSION)
    .option('-C, --cwd <dir>', 'workspace root (default: the nearest folder with .tenure, else the repository top level)')
    .showHelpAfterError('(run `tenure --help` for usage)')
    .exitOverride();
  episodeCommands(program);
  return runProgram(program, argv);
}

if (require.main === module) {
  void runMain(process.argv).then((code) => {
    process.exitCode = code;
  });
}
