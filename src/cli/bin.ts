import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * The `tenure` command. What an agent runs on every attempt goes to a slim
 * bundle: `tenure run` to dist/tenure-run.js (the episodic and procedural
 * commands, about a fifth of the code to load), the catalog's queries
 * (`what-breaks`, `why`, `ask`, …) to dist/tenure-query.js (about two thirds:
 * no indexing, enrichment, model clients, MCP server or team store).
 * Everything else goes to the full CLI (dist/tenure-main.js). All are loaded
 * by path, so this launcher stays a few lines of JavaScript to start.
 */

/** The subcommand named on the command line, skipping global options (`-C <dir>`, `--cwd <dir>`). */
export function commandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (a === '-C' || a === '--cwd') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return undefined;
}

type Entry = { file: string; start: 'runMain' | 'queryMain' | 'main' };

/** Which bundle runs a command: the slim ones for `run` and the catalog's queries, the full CLI for the rest. */
export function entryFor(command: string | undefined, queryCommands: readonly string[]): Entry {
  if (command === 'run') return { file: 'tenure-run.js', start: 'runMain' };
  if (command !== undefined && queryCommands.includes(command)) return { file: 'tenure-query.js', start: 'queryMain' };
  return { file: 'tenure-main.js', start: 'main' };
}

/** The catalog's command names, written by the build beside this file; none (the full CLI for all) when absent. */
function queryCommands(): string[] {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'query-commands.json'), 'utf8')) as string[];
  } catch {
    return [];
  }
}

function launch(): void {
  let entry = entryFor(commandOf(process.argv.slice(2)), queryCommands());
  if (!fs.existsSync(path.join(__dirname, entry.file))) entry = { file: 'tenure-main.js', start: 'main' };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bundle = require(path.join(__dirname, entry.file)) as Record<Entry['start'], ((argv: string[]) => Promise<number>) | undefined>;
  void bundle[entry.start]!(process.argv).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) launch();
