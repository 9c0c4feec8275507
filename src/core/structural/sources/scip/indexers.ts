import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ResolverUnavailableError, type ResolverContext } from '../../enrichment/types.js';
import { ScipResolver } from './resolver.js';

/*
 * Running a SCIP indexer headless, as a batch resolver beside the language
 * servers: scip-typescript and scip-python are npm packages. Measured against
 * the language servers in docs/correctness.md (recall per second).
 */

export type ScipIndexer = 'scip-typescript' | 'scip-python';

const ENTRY: Record<ScipIndexer, string> = {
  'scip-typescript': '@sourcegraph/scip-typescript/dist/src/main.js',
  'scip-python': '@sourcegraph/scip-python/index.js',
};

function entryOf(indexer: ScipIndexer): string | undefined {
  try {
    return require.resolve(ENTRY[indexer]);
  } catch {
    return undefined;
  }
}

export function indexerAvailable(indexer: ScipIndexer): boolean {
  return entryOf(indexer) !== undefined;
}

/** Runs the indexer on the workspace and writes the index to `output`. */
export async function runScipIndexer(indexer: ScipIndexer, root: string, output: string, ctx: Pick<ResolverContext, 'signal' | 'log'>, timeoutMs = 30 * 60_000): Promise<void> {
  const entry = entryOf(indexer);
  if (!entry) throw new ResolverUnavailableError(`scip:${indexer}`, `${indexer} is not installed (npm install --save-dev @sourcegraph/${indexer}).`);
  const args =
    indexer === 'scip-typescript'
      ? [entry, 'index', '--cwd', root, '--output', output, '--no-progress-bar', ...(fs.existsSync(path.join(root, 'tsconfig.json')) ? [] : ['--infer-tsconfig'])]
      : [entry, 'index', '--cwd', root, '--output', output, '--quiet', '--project-name', path.basename(root), '--project-version', '0'];
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--max-old-space-size=4096', ...args], { cwd: root, signal: ctx.signal, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (err) reject(new ResolverUnavailableError(`scip:${indexer}`, `${indexer} failed: ${(stderr || err.message).trim().split('\n').slice(-3).join(' | ')}`, { cause: err }));
      else resolve();
    });
  });
  ctx.log(`${indexer} indexed ${root} in ${Math.round(performance.now() - t)} ms`);
}

/** A resolver that runs the indexer when it starts, then reads its index like any imported one. */
export function scipIndexerResolver(indexer: ScipIndexer, root: string): ScipResolver {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tenure-scip-')), 'index.scip');
  return new ScipResolver(out, `scip:${indexer}`, (ctx) => runScipIndexer(indexer, root, out, ctx));
}
