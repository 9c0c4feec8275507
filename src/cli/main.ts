import * as v8 from 'node:v8';
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

/**
 * How far V8 lets the heap grow past what the last full collection kept. Left
 * to itself it allows up to four times that when the program allocates fast,
 * as resolving a large index does: short-lived objects promoted before they
 * die pile up, and a 32,000-file index peaked at three to four times its live
 * working set. Read at every collection, so it can be set once the process
 * runs; this process is ours (the extension host's is not, and is left alone).
 */
const HEAP_GROWING_PERCENT = 50;

export async function main(argv: string[]): Promise<number> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const program = buildProgram();
  return runProgram(program, argv);
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
