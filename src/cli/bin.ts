import * as path from 'node:path';

/*
 * The `tenure` command. `tenure run` is what an agent or a CI script runs on
 * every attempt, so it goes to the slim bundle (dist/tenure-run.js: the
 * episodic and procedural commands, about a fifth of the code to load);
 * everything else goes to the full CLI (dist/tenure-main.js). Both are loaded
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

function launch(): void {
  const slim = commandOf(process.argv.slice(2)) === 'run';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const entry = require(path.join(__dirname, slim ? 'tenure-run.js' : 'tenure-main.js')) as { runMain?: (argv: string[]) => Promise<number>; main?: (argv: string[]) => Promise<number> };
  const start = slim ? entry.runMain! : entry.main!;
  void start(process.argv).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) launch();
