import { openWorkspace } from '../../src/core/workspace';
import { openTeam, pull, push } from '../../src/core/team/sync';

/*
 * A push or a pull in a process of its own, for the test that kills it with
 * SIGKILL part-way through: small batches and pages so it is mid-way for a
 * while. Prints "batch" to stdout after each one.
 */

async function main(): Promise<void> {
  const [root, mode] = process.argv.slice(2) as [string, 'push' | 'pull'];
  const ws = await openWorkspace(root);
  const team = await openTeam(ws);
  const progress = () => process.stdout.write('batch\n');
  if (mode === 'push') await push(team, { batch: 20, progress });
  else await pull(team, { page: 20, progress });
  await team.close();
  await ws.close();
  process.stdout.write('done\n');
}

void main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
