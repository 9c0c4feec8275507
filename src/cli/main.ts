import { limitHeapGrowth } from './heap.js';
import type { Command } from 'commander';
import { indexCommands } from './commands/index.js';
import { toolCommands } from './commands/tools.js';
import { resolveCommands } from './commands/resolve.js';
import { episodeCommands } from './commands/episodes.js';
import { knowledgeCommands } from './commands/knowledge.js';
import { importCommands } from './commands/import.js';
import { setupCommands } from './commands/setup.js';
import { teamCommands } from './commands/team.js';
import { runProgram, tenureProgram, type CommandGroup } from './context.js';

/** Command groups, one per area; each memory adds its own. */
const GROUPS: readonly CommandGroup[] = [indexCommands, toolCommands, episodeCommands, resolveCommands, knowledgeCommands, importCommands, setupCommands, teamCommands];

export function buildProgram(): Command {
  const program = tenureProgram();
  for (const register of GROUPS) register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  limitHeapGrowth();
  const program = buildProgram();
  return runProgram(program, argv);
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
