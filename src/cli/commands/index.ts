import { errorMessage } from '../../shared/errors.js';
import { timeLeft } from '../../shared/duration.js';
import { StructuralIndexer, type IndexReport } from '../../core/structural/index/indexer.js';
import { StructuralStore } from '../../core/structural/store.js';
import { indexArtifacts, renderArtifactsReport } from '../../core/structural/sources/bytecode/artifacts.js';
import { indexKnowledge } from '../../core/knowledge/pipeline.js';
import { knowledgeExitCode, renderKnowledgeIndexReport } from './knowledge.js';
import { keepFresh, type KeepFresh } from '../../core/session/headless.js';
import { Session } from '../../core/session/session.js';
import { openWorkspace } from '../../core/workspace.js';
import { serveStdio } from '../../mcp/server.js';
import { getStatus, renderStatus } from '../../core/structural/status.js';
import type { Command } from 'commander';
import type { Workspace } from '../../core/store/workspace.js';
import { VERSION, cwdOf, findRoot, positiveInt, renderIndexReport, restrictedOf, withWorkspace, type CommandGroup } from '../context.js';

/** index, status, watch, mcp: building and serving the memories. */
export const indexCommands: CommandGroup = (program) => {
  indexCommand(program);
  statusCommand(program);
  watchCommand(program);
  mcpCommand(program);
};

/** `tenure index`: the structural memory, then build output and the offline knowledge pass. */
function indexCommand(program: Command): void {
  program
    .command('index')
    .description('Index the workspace (incremental: unchanged files are not parsed again).')
    .argument('[dir]', 'workspace root')
    .option('--rebuild', 'drop the structural memory and index from scratch')
    .option('--json', 'print the report as JSON')
    .option('--workers <n>', 'parse workers', positiveInt)
    .option('--no-knowledge', 'skip the offline knowledge pass over documents and commit messages')
    .action(async (dir: string | undefined, opts: { rebuild?: boolean; json?: boolean; workers?: number; knowledge: boolean }) => {
      const root = findRoot(dir ?? cwdOf(program));
      await withWorkspace(root, async (ws) => {
        if (opts.rebuild) await new StructuralStore(ws.db).clear();
        // The indexer and its working set (every symbol of the workspace) are let go before the passes after it,
        // which read what they need from the store: held on, they were a third of a large index's peak memory.
        const report = await indexStructure(ws, opts);
        // Build output the source does not show: class files, jars, Spring AOT bean definitions.
        const artifacts = await indexArtifacts(ws, { log: (m: string) => process.stderr.write(`${m}\n`) });
        const artifactsLine = renderArtifactsReport(artifacts);
        // The knowledge memory's offline pass (no model, no cost) runs with every index.
        const knowledge = opts.knowledge ? await indexKnowledge(ws) : undefined;
        const lines = [renderIndexReport(report), artifactsLine, knowledge ? renderKnowledgeIndexReport(knowledge) : ''].filter(Boolean);
        process.stdout.write(opts.json ? JSON.stringify({ ...report, artifacts, ...(knowledge ? { knowledge } : {}) }, null, 2) + '\n' : lines.join('\n') + '\n');
        // The code index is kept either way; a knowledge run that stopped early is still not a success.
        if (knowledge && knowledgeExitCode(knowledge)) process.exitCode = knowledgeExitCode(knowledge);
      });
    });
}

/** The structural index brought up to date by an indexer of its own, with progress on a terminal. */
async function indexStructure(ws: Workspace, opts: { json?: boolean; workers?: number }): Promise<IndexReport> {
  const indexer = await StructuralIndexer.create(ws, opts.workers ? { workers: opts.workers } : {});
  try {
    let last = 0;
    const started = Date.now();
    let first: { at: number; done: number } | undefined;
    const report = await indexer.indexAll({
      onProgress: (done, total) => {
        if (opts.json || !process.stderr.isTTY || Date.now() - last <= 100) return;
        last = Date.now();
        // The rate is taken from the first file parsed on (the walk and unchanged files count as done at once).
        first ??= { at: last, done };
        const rate = (done - first.done) / Math.max(1, last - first.at);
        const eta = rate > 0 && last - started > 2000 ? `, reading files: ${timeLeft((total - done) / rate)}` : '';
        process.stderr.write(`\r\x1b[KIndexing ${done}/${total} files${eta}…`);
      },
    });
    if (!opts.json && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    return report;
  } finally {
    await indexer.dispose();
  }
}

/** `tenure status`: what the index holds. */
function statusCommand(program: Command): void {
  program
    .command('status')
    .description('What the index holds: files, symbols, edges by tier, skipped files, freshness.')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        const status = await getStatus(ws);
        process.stdout.write(opts.json ? JSON.stringify(status, null, 2) + '\n' : renderStatus(status) + '\n');
      });
    });
}

/** `tenure watch`: index, then keep the index fresh until stopped. */
function watchCommand(program: Command): void {
  program
    .command('watch')
    .description('Index, then keep the index up to date as files change, confirming edges with language servers in the background (Ctrl+C to stop).')
    .argument('[dir]', 'workspace root')
    .option('--no-enrich', 'do not start language servers (edges stay at their tree-sitter tier)')
    .action(async (dir: string | undefined, opts: { enrich: boolean }) => {
      const root = findRoot(dir ?? cwdOf(program));
      const ws = await openWorkspace(root);
      const log = (m: string) => process.stderr.write(`tenure watch: ${m}\n`);
      const session = new Session({
        workspace: ws,
        indexer: await StructuralIndexer.create(ws),
        debounceMs: 25,
        log: (level, m) => level === 'error' && log(m),
        onUpdate: (r) => process.stdout.write(`updated ${r.parsed} file(s), removed ${r.removed} in ${r.ms.toFixed(0)} ms\n`),
      });
      const report = await session.reindex();
      if (report) process.stdout.write(renderIndexReport(report) + '\nWatching for changes…\n');
      const fresh = await keepFresh(session, { enrich: opts.enrich && !restrictedOf(program), log, onReport: (line) => process.stdout.write(`${line}\n`) });
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await fresh.close();
      await session.dispose();
      await ws.close();
    });
}

/** `tenure mcp`: the tools over MCP on stdio, answering from what is stored while it indexes. */
function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('Serve the Tenure tools over MCP on stdio (indexes on start; --watch keeps the index fresh and confirms edges with language servers in the background).')
    .option('--watch', 'keep re-indexing changed files while serving, and enrich edges with language servers')
    .option('--no-index', 'serve the existing index without indexing first')
    .option('--no-enrich', 'with --watch: do not start language servers')
    .action(async (opts: { watch?: boolean; index: boolean; enrich: boolean }) => {
      const ws = await openWorkspace(findRoot(cwdOf(program)));
      const log = (m: string) => process.stderr.write(`tenure mcp: ${m}\n`);
      let session: Session | undefined;
      let fresh: KeepFresh | undefined;
      if (opts.index || opts.watch) {
        session = new Session({ workspace: ws, indexer: await StructuralIndexer.create(ws, { log }), debounceMs: 25, log: (level, m) => level !== 'debug' && log(m) });
        const s = session;
        // Index in the background: the server answers from what is stored meanwhile.
        void s
          .reindex()
          .then(async () => {
            if (opts.watch) fresh = await keepFresh(s, { enrich: opts.enrich && !restrictedOf(program), log, onReport: log });
          })
          .catch((e: unknown) => log(`indexing failed: ${errorMessage(e)}`));
      }
      try {
        await serveStdio(ws, VERSION, { queried: (symbols) => session?.prioritize({ symbols }), ...(restrictedOf(program) ? { restricted: true } : {}) });
      } finally {
        await fresh?.close();
        await session?.dispose();
        await ws.close();
      }
    });
}
