import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { TenureError, errorMessage } from '../shared/errors.js';
import { StructuralIndexer, type IndexReport } from '../core/structural/indexer.js';
import { watchWorkspace } from '../core/structural/watch.js';
import { TOOLS } from '../core/tools/catalog.js';
import { Workspace, TENURE_DIR } from '../core/workspace.js';
import { serveStdio } from '../mcp/server.js';
import { getStatus, renderStatus } from '../core/query/status.js';

const VERSION = '0.1.0';

/** Exit codes, documented in README. */
export const EXIT = { ok: 0, failure: 1, usage: 2, notIndexed: 3 } as const;

function exitCodeFor(e: unknown): number {
  if (TenureError.is(e, 'not-indexed') || TenureError.is(e, 'store-unavailable') || TenureError.is(e, 'store-corrupt')) return EXIT.notIndexed;
  if (TenureError.is(e, 'invalid-input')) return EXIT.usage;
  return EXIT.failure;
}

/** The workspace root: --cwd, else the nearest folder above that has a .tenure folder, else the current folder. */
function findRoot(cwd: string | undefined): string {
  if (cwd) return path.resolve(cwd);
  let dir = process.cwd();
  for (;;) {
    if (fs.existsSync(path.join(dir, TENURE_DIR))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return n;
}

function renderIndexReport(r: IndexReport): string {
  const mb = r.bytes / 1024 / 1024;
  const lines = [
    `Indexed ${r.files} files (${mb.toFixed(1)} MB) in ${(r.ms / 1000).toFixed(2)} s: ${r.parsed} parsed, ${r.unchanged} unchanged, ${r.removed} removed, ${r.skipped.length} skipped.`,
    `Structural memory: ${r.symbols} symbols, ${r.sites} use sites, ${r.edges} edges.`,
  ];
  if (r.skipped.length) {
    lines.push('Skipped (not in the index):');
    for (const s of r.skipped.slice(0, 10)) lines.push(`  ${s.path}: ${s.reason}`);
    if (r.skipped.length > 10) lines.push(`  … and ${r.skipped.length - 10} more (tenure status --json lists them all)`);
  }
  return lines.join('\n');
}

async function withWorkspace<T>(cwd: string | undefined, fn: (ws: Workspace) => Promise<T>, readonly = false): Promise<T> {
  const ws = await Workspace.open(findRoot(cwd), { readonly });
  try {
    return await fn(ws);
  } finally {
    await ws.close();
  }
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('tenure')
    .description('The memory of a repository for AI coding agents and the people who work with them. Every answer carries its tier.')
    .version(VERSION)
    .option('-C, --cwd <dir>', 'workspace root (default: the nearest folder with .tenure, else the current folder)')
    .showHelpAfterError('(run `tenure --help` for usage)')
    // Set before subcommands are added: they inherit it, so usage errors exit 2 everywhere.
    .exitOverride();

  program
    .command('index')
    .description('Index the workspace (incremental: unchanged files are not parsed again).')
    .argument('[dir]', 'workspace root')
    .option('--rebuild', 'drop the structural memory and index from scratch')
    .option('--json', 'print the report as JSON')
    .option('--workers <n>', 'parse workers', positiveInt)
    .action(async (dir: string | undefined, opts: { rebuild?: boolean; json?: boolean; workers?: number }) => {
      const root = findRoot(dir ?? program.opts<{ cwd?: string }>().cwd);
      await withWorkspace(root, async (ws) => {
        // Only the derived structural tables are dropped; nothing else in the database is touched.
        if (opts.rebuild) await ws.db.write((db) => db.run('DELETE FROM files').then(() => undefined));
        const indexer = await StructuralIndexer.create(ws, opts.workers ? { workers: opts.workers } : {});
        try {
          let last = 0;
          const report = await indexer.indexAll({
            onProgress: (done, total) => {
              if (!opts.json && process.stderr.isTTY && Date.now() - last > 100) {
                last = Date.now();
                process.stderr.write(`\rIndexing ${done}/${total} files…`);
              }
            },
          });
          if (!opts.json && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
          process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : renderIndexReport(report) + '\n');
        } finally {
          await indexer.dispose();
        }
      });
    });

  program
    .command('status')
    .description('What the index holds: files, symbols, edges by tier, skipped files, freshness.')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withWorkspace(program.opts<{ cwd?: string }>().cwd, async (ws) => {
        const status = await getStatus(ws);
        process.stdout.write(opts.json ? JSON.stringify(status, null, 2) + '\n' : renderStatus(status) + '\n');
      });
    });

  program
    .command('watch')
    .description('Index, then keep the index up to date as files change (Ctrl+C to stop).')
    .argument('[dir]', 'workspace root')
    .action(async (dir: string | undefined) => {
      const root = findRoot(dir ?? program.opts<{ cwd?: string }>().cwd);
      const ws = await Workspace.open(root);
      const indexer = await StructuralIndexer.create(ws);
      const report = await indexer.indexAll();
      process.stdout.write(renderIndexReport(report) + '\nWatching for changes…\n');
      const handle = watchWorkspace(
        indexer,
        (r) => {
          if (r.parsed || r.removed) process.stdout.write(`updated ${r.parsed} file(s), removed ${r.removed} in ${r.ms.toFixed(0)} ms\n`);
        },
        (e) => process.stderr.write(`tenure watch: ${errorMessage(e)}\n`),
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      handle.close();
      await indexer.dispose();
      await ws.close();
    });

  program
    .command('mcp')
    .description('Serve the Tenure tools over MCP on stdio (indexes on start; --watch keeps the index fresh).')
    .option('--watch', 'keep re-indexing changed files while serving')
    .option('--no-index', 'serve the existing index without indexing first')
    .action(async (opts: { watch?: boolean; index: boolean }) => {
      const ws = await Workspace.open(findRoot(program.opts<{ cwd?: string }>().cwd));
      const log = (m: string) => process.stderr.write(`tenure mcp: ${m}\n`);
      let indexer: StructuralIndexer | undefined;
      let handle: { close(): void } | undefined;
      if (opts.index || opts.watch) {
        indexer = await StructuralIndexer.create(ws, { log });
        // Index in the background: the server answers from what is stored meanwhile.
        void indexer.indexAll().then(
          () => {
            if (opts.watch && indexer) handle = watchWorkspace(indexer, () => undefined, (e) => log(errorMessage(e)));
          },
          (e: unknown) => log(`indexing failed: ${errorMessage(e)}`),
        );
      }
      try {
        await serveStdio(ws, VERSION);
      } finally {
        handle?.close();
        await indexer?.dispose();
        await ws.close();
      }
    });

  // One command per catalog tool, same names and inputs as the LM and MCP tools.
  for (const tool of TOOLS) {
    const cmd = program.command(tool.cli.command).description(tool.summary).option('--json', 'print the full answer as JSON');
    for (const alias of tool.cli.aliases) cmd.alias(alias);
    const shape = tool.input.shape as Record<string, { description?: string; def?: { type?: string } }>;
    if (tool.cli.positional) cmd.argument(`<${tool.cli.positional}>`, shape[tool.cli.positional]?.description ?? '');
    for (const [key, field] of Object.entries(shape)) {
      if (key === tool.cli.positional) continue;
      const isNumber = JSON.stringify((field as { toJSONSchema?: () => unknown }).toJSONSchema?.() ?? {}).includes('"integer"') || JSON.stringify((field as { toJSONSchema?: () => unknown }).toJSONSchema?.() ?? {}).includes('"number"');
      const opt = new Option(`--${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} <value>`, field.description ?? '');
      if (isNumber) opt.argParser(positiveInt);
      cmd.addOption(opt);
    }
    cmd.action(async (...args: unknown[]) => {
      const opts = args[tool.cli.positional ? 1 : 0] as Record<string, unknown> & { json?: boolean };
      const raw: Record<string, unknown> = {};
      if (tool.cli.positional) raw[tool.cli.positional] = args[0];
      for (const key of Object.keys(shape)) if (key !== tool.cli.positional && opts[key] !== undefined) raw[key] = opts[key];
      const parsed = tool.input.safeParse(raw);
      if (!parsed.success) throw new TenureError('invalid-input', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      await withWorkspace(program.opts<{ cwd?: string }>().cwd, async (ws) => {
        const result = await tool.run({ workspace: ws }, parsed.data);
        process.stdout.write(opts.json ? JSON.stringify(result.data, null, 2) + '\n' : result.text + '\n');
      }, true);
    });
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return EXIT.ok;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage;
    process.stderr.write(`tenure: ${errorMessage(e)}\n`);
    return exitCodeFor(e);
  }
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
