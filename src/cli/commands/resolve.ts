import * as fs from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { ScipResolver } from '../../core/structural/sources/scip/resolver.js';
import { scipIndexerResolver, type ScipIndexer } from '../../core/structural/sources/scip/indexers.js';
import { EnrichmentPass, describeProgress, describeResolverReport, type EnrichProgress, type EnrichReport } from '../../core/structural/enrichment/enrich.js';
import { headlessResolvers } from '../../core/structural/enrichment/headless.js';
import type { EdgeResolver } from '../../core/structural/enrichment/types.js';
import { StructuralIndexer } from '../../core/structural/index/indexer.js';
import { isIndexed } from '../../core/structural/lookup.js';
import { ResolutionStore } from '../../core/structural/enrichment/store.js';
import type { Workspace } from '../../core/store/workspace.js';
import { cwdOf, positiveInt, refuseInRestricted, withWorkspace, type CommandGroup } from '../context.js';

/** `go=gopls serve` → ['go', ['gopls', 'serve']] */
function serverOption(value: string, previous: Record<string, string[]> = {}): Record<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected LANGUAGE=COMMAND, e.g. go=gopls');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1).split(/\s+/).filter(Boolean) };
}

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function renderEnrichReport(r: EnrichReport): string {
  const lines = [`Enrichment finished in ${(r.ms / 1000).toFixed(1)} s.`];
  for (const x of r.resolvers) {
    lines.push(`  ${describeResolverReport(x)}`);
    for (const n of x.notes.slice(0, 5)) lines.push(`    note: ${n}`);
  }
  return lines.join('\n');
}

async function ensureIndexed(ws: Workspace): Promise<void> {
  if (await isIndexed(ws.db)) return;
  const indexer = await StructuralIndexer.create(ws);
  try {
    await indexer.indexAll();
  } finally {
    await indexer.dispose();
  }
}

/** Progress on a terminal as one line rewritten in place; in a log, a line every 10 s (a long pass shows it is alive and when it should end). */
function progressPrinter(json: boolean | undefined): { progress(p: EnrichProgress): void; log(m: string): void; done(): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) process.stderr.write('\r\x1b[K');
    drawn = false;
  };
  return {
    progress(p) {
      if (json) return;
      if (tty) {
        process.stderr.write(`\r\x1b[K${describeProgress(p)}`.slice(0, process.stderr.columns ?? 120));
        drawn = true;
      } else if (Date.now() - last > 10_000 && p.done > 0) {
        last = Date.now();
        process.stderr.write(`${describeProgress({ ...p, current: undefined })}\n`);
      }
    },
    log(m) {
      if (json) return;
      clear();
      process.stderr.write(`${m}\n`);
    },
    done: clear,
  };
}

async function runPass(ws: Workspace, resolvers: EdgeResolver[], opts: { json?: boolean; budget?: number; files?: string[]; force?: boolean; dispatch?: boolean; firstPass?: 'auto' | 'always' | 'never' }): Promise<void> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const out = progressPrinter(opts.json);
  try {
    const pass = new EnrichmentPass(ws.db, resolvers, {
      root: ws.root,
      signal: ac.signal,
      log: (m) => out.log(m),
      onProgress: (p) => out.progress(p),
      ...(opts.budget ? { budgetMs: opts.budget * 1000 } : {}),
      ...(opts.files ? { files: opts.files } : {}),
      ...(opts.force ? { force: true } : {}),
      ...(opts.dispatch === false ? { dispatch: false } : {}),
      ...(opts.firstPass ? { firstPass: opts.firstPass } : {}),
    });
    const report = await pass.run();
    out.done();
    const stats = await new ResolutionStore(ws.db).stats();
    process.stdout.write(opts.json ? JSON.stringify({ ...report, stats }, null, 2) + '\n' : `${renderEnrichReport(report)}\nGraph: ${stats.edges.resolved} resolved edges (${stats.edges.upgraded} confirmed inventory edges, ${stats.edges.added} found only by resolvers), ${stats.edges.refutations} refuted inventory edges, ${stats.edges.implementations} proven implementations.\n`);
    // A pass stopped by its budget or Ctrl+C kept what it confirmed, but it did not finish: not a success.
    const stopped = report.resolvers.filter((r) => r.state === 'partial' || r.state === 'cancelled');
    if (stopped.length) {
      if (!opts.json) process.stderr.write(`Enrichment stopped early (${stopped.map((r) => `${r.source}: ${r.message ?? r.state}`).join('; ')}). What to do: run \`tenure enrich\` again; it resumes where this pass stopped.\n`);
      process.exitCode = 1;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    for (const r of resolvers) await r.dispose().catch(() => undefined);
  }
}

/** enrich, import scip: the resolvers that upgrade the structural memory's edges. */
export const resolveCommands: CommandGroup = (program) => {
  program
    .command('enrich')
    .description(
      'Upgrade edges with type-checked resolution. A first pass over a workspace without resolved edges runs the TypeScript compiler (and scip-python for Python) over every file at once; language servers (typescript-language-server, pyright; gopls, jdtls on PATH) answer for what changed since. Resumable; Ctrl+C stops between files.',
    )
    .option('--only <ids>', 'only these servers (comma-separated: typescript,python,go,java)', list)
    .option('--server <lang=command>', 'language server command for a language (repeatable), e.g. go=gopls', serverOption)
    .option('--scip <file>', 'also import this SCIP index (default: index.scip at the workspace root, if present)')
    .option('--indexer <name>', 'run a SCIP indexer headless instead of the compiler and language servers: scip-typescript or scip-python')
    .option('--no-first-pass', 'ask the language servers file by file even where most files lack resolved edges')
    .option('--no-lsp', 'do not start language servers: the first pass (TypeScript compiler, scip-python) only, over every file not yet resolved')
    .option('--use-workspace-typescript', "run the workspace's own node_modules/typescript in the language server instead of Tenure's (it executes code from the repository; off by default, never read from the repository)")
    .option('--no-dispatch', 'skip implementation requests for interface and base methods')
    .option('--files <paths>', 'only these files (comma-separated, workspace-relative)', list)
    .option('--force', 're-resolve files already enriched at their current content')
    .option('--budget <seconds>', 'stop after this long; the next run resumes', positiveInt)
    .option('--timeout <ms>', 'per-request time limit for language servers', positiveInt)
    .option('--memory <mb>', 'memory cap per language server (and for the compiler)', positiveInt)
    .option('--json', 'print the report as JSON')
    .action(
      async (opts: {
        only?: string[];
        server?: Record<string, string[]>;
        scip?: string;
        indexer?: string;
        firstPass: boolean;
        lsp: boolean;
        useWorkspaceTypescript?: boolean;
        dispatch: boolean;
        files?: string[];
        force?: boolean;
        budget?: number;
        timeout?: number;
        memory?: number;
        json?: boolean;
      }) => {
        refuseInRestricted(program, 'starting language servers, the compiler and SCIP indexers');
        await withWorkspace(cwdOf(program), async (ws) => {
          await ensureIndexed(ws);
          const resolvers: EdgeResolver[] = [];
          const scip = opts.scip ? path.resolve(opts.scip) : path.join(ws.root, 'index.scip');
          if (opts.scip || fs.existsSync(scip)) resolvers.push(new ScipResolver(scip));
          if (opts.indexer) {
            if (opts.indexer !== 'scip-typescript' && opts.indexer !== 'scip-python') throw new InvalidArgumentError('--indexer must be scip-typescript or scip-python');
            resolvers.push(scipIndexerResolver(opts.indexer as ScipIndexer, ws.root));
          } else {
            const all = await headlessResolvers(ws.db, {
              root: ws.root,
              ...(opts.server ? { servers: opts.server } : {}),
              ...(opts.only ? { only: opts.only } : {}),
              ...(opts.timeout ? { requestTimeoutMs: opts.timeout } : {}),
              ...(opts.memory ? { memoryCapMb: opts.memory } : {}),
              ...(opts.firstPass === false ? { firstPass: false } : {}),
              ...(opts.useWorkspaceTypescript ? { useWorkspaceTypescript: true } : {}),
              log: (m) => {
                if (!opts.json) process.stderr.write(`${m}\n`);
              },
            });
            resolvers.push(...(opts.lsp ? all : all.filter((r) => r.firstPass)));
          }
          const { firstPass, ...rest } = opts;
          await runPass(ws, resolvers, { ...rest, firstPass: !opts.lsp ? 'always' : firstPass ? 'auto' : 'never' });
        });
      },
    );

  // `import` is shared by the memories (episodes import JUnit reports): join it if it exists.
  const imp = program.commands.find((c) => c.name() === 'import') ?? program.command('import').description('Import facts produced by other tools into the memories.');
  imp
    .command('scip')
    .description('Read a SCIP index (scip-typescript, scip-python, scip-java, rust-analyzer, …) into resolved edges.')
    .argument('<file>', 'the index (index.scip)')
    .option('--json', 'print the report as JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        await ensureIndexed(ws);
        await runPass(ws, [new ScipResolver(path.resolve(file))], { ...opts, force: true });
      });
    });
};
