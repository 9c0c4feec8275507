import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeExecutable, ownPackageFile, toolEnv } from '../../enrichment/toolProcess.js';
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
  return ownPackageFile(ENTRY[indexer]);
}

export function indexerAvailable(indexer: ScipIndexer): boolean {
  return entryOf(indexer) !== undefined;
}

/**
 * Runs the indexer on the workspace and writes the index to `output`, from
 * Tenure's own install with the workspace's folders off PATH. scip-python is
 * given an empty environment file (`scratch`/environment.json): it then runs
 * no pip and no interpreter to list installed packages, which resolution does
 * not need (a symbol outside the workspace is external either way).
 */
export async function runScipIndexer(indexer: ScipIndexer, root: string, output: string, ctx: Pick<ResolverContext, 'signal' | 'log'>, timeoutMs = 30 * 60_000, scratch = path.dirname(output)): Promise<void> {
  const entry = entryOf(indexer);
  if (!entry) throw new ResolverUnavailableError(`scip:${indexer}`, `${indexer} is not installed with Tenure (npm dependency @sourcegraph/${indexer}); reinstall with \`npm ci\`.`);
  let args: string[];
  if (indexer === 'scip-typescript') {
    args = [entry, 'index', '--cwd', root, '--output', output, '--no-progress-bar', ...(fs.existsSync(path.join(root, 'tsconfig.json')) ? [] : ['--infer-tsconfig'])];
  } else {
    const environment = path.join(scratch, 'environment.json');
    fs.writeFileSync(environment, '[]');
    args = [entry, 'index', '--cwd', root, '--output', output, '--quiet', '--project-name', path.basename(root), '--project-version', '0', '--environment', environment];
  }
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    execFile(nodeExecutable(), ['--max-old-space-size=4096', ...args], { cwd: root, signal: ctx.signal, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: toolEnv(root) }, (err, _stdout, stderr) => {
      if (err) reject(new ResolverUnavailableError(`scip:${indexer}`, `${indexer} failed: ${(stderr || err.message).trim().split('\n').slice(-3).join(' | ')}`, { cause: err }));
      else resolve();
    });
  });
  ctx.log(`${indexer} indexed ${root} in ${Math.round(performance.now() - t)} ms`);
}

const LANGUAGES: Record<ScipIndexer, { languages: string[]; checker: string }> = {
  'scip-typescript': { languages: ['typescript', 'tsx', 'javascript'], checker: 'typescript' },
  'scip-python': { languages: ['python'], checker: 'python' },
};

/**
 * A resolver that runs the indexer when it starts, then reads its index like
 * any imported one. `firstPass`: offered to every pass, run only while most of
 * its languages' files lack type-checked resolution (EdgeResolver.firstPass).
 */
export function scipIndexerResolver(indexer: ScipIndexer, root: string, options: { readonly firstPass?: boolean } = {}): ScipResolver {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenure-scip-'));
  const out = path.join(dir, 'index.scip');
  return new ScipResolver(out, `scip:${indexer}`, {
    produce: (ctx) => runScipIndexer(indexer, root, out, ctx, undefined, dir),
    ...LANGUAGES[indexer],
    ...(options.firstPass ? { firstPass: true } : {}),
  });
}
