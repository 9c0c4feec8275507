import { Command } from 'commander';
import { indexCommands } from './commands/index.js';
import { toolCommands } from './commands/tools.js';
import { resolveCommands } from './commands/resolve.js';
import { episodeCommands } from './commands/episodes.js';
import { knowledgeCommands } from './commands/knowledge.js';
import { importCommands } from './commands/import.js';
import { setupCommands } from './commands/setup.js';
import { teamCommands } from './commands/team.js';
import { RESTRICTED_ENV, VERSION, runProgram, type CommandGroup } from './context.js';

/** Command groups, one per area; each memory adds its own. */
const GROUPS: readonly CommandGroup[] = [indexCommands, toolCommands, episodeCommands, resolveCommands, knowledgeCommands, importCommands, setupCommands, teamCommands];

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('tenure')
    .description('The memory of a repository for AI coding agents and the people who work with them. Every answer carries its tier.')
    .version(VERSION)
    .option('-C, --cwd <dir>', 'workspace root (default: the nearest folder with .tenure, else the current folder)')
    .option('--restricted', `treat the workspace as untrusted, as VS Code's restricted mode does: start no language server, call no model, write no instruction file (also ${RESTRICTED_ENV}=1)`)
    .showHelpAfterError('(run `tenure --help` for usage)')
    // Set before subcommands are added: they inherit it, so usage errors exit 2 everywhere.
    .exitOverride();

  for (const register of GROUPS) register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  return runProgram(program, argv);
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
