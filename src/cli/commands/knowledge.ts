import * as fs from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { TenureError } from '../../shared/errors.js';
import { fetchGitHubThreads } from '../../core/knowledge/sources/github.js';
import { indexKnowledge, type KnowledgeIndexReport } from '../../core/knowledge/pipeline.js';
import { renderSurvey, surveyKnowledge } from '../../core/knowledge/sources/survey.js';
import type { SourceOptions } from '../../core/knowledge/sources/documents.js';
import { createChatModel, createEmbedder, missingKey, modelSettings, type ModelSettings } from '../../core/llm/config.js';
import { LINK_TIERS } from '../../core/model/tiers.js';
import { askKnowledge, type AskMode } from '../../core/knowledge/globalSearch.js';
import { presentSearch, renderSearch } from '../../core/tools/searchKnowledge.js';
import { knowledgeStatus, renderKnowledgeStatus } from '../../core/knowledge/status.js';
import { loadReports } from '../../core/knowledge/store/communities.js';
import { clearKnowledge } from '../../core/knowledge/store/runs.js';
import { StructuralIndexer } from '../../core/structural/index/indexer.js';
import { isIndexed } from '../../core/structural/lookup.js';
import { Workspace, TENURE_DIR } from '../../core/store/workspace.js';
import type { ChatModel } from '../../core/llm/types.js';
import { openWorkspace } from '../../core/workspace.js';
import { confirm, cwdOf, findRoot, positiveInt, refuseInRestricted, withWorkspace, type CommandGroup } from '../context.js';
import { teamModelCalls } from './team.js';

/*
 * `tenure knowledge survey|index|ask|status|communities|fetch-github`: the
 * knowledge memory for people. Offline unless a model is named; a model pass
 * shows the survey's cost estimate and runs only after a yes.
 */

interface ModelFlags {
  model?: string;
  baseUrl?: string;
  embeddingModel?: string;
  timeout?: number;
  jsonMode?: boolean;
  maxCompletionTokens?: boolean;
}

function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--model <name>', 'chat model on an OpenAI-compatible endpoint (key from TENURE_OPENAI_API_KEY or OPENAI_API_KEY); default: offline, no model')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama (default: TENURE_OPENAI_BASE_URL, else OpenAI)')
    .option('--embedding-model <name>', 'embedding model on the same endpoint (default: offline hashed n-gram vectors)')
    .option('--timeout <ms>', 'time limit per model call before it is retried (default 120000)', positiveInt)
    .option('--no-json-mode', 'do not ask the endpoint for response_format json_object (some local servers reject it)')
    .option('--max-completion-tokens', 'send max_completion_tokens instead of max_tokens (newer OpenAI models)');
}

interface SourceFlags {
  include?: string[];
  exclude?: string[];
  exports?: string[];
  git?: boolean;
}

function addSourceOptions(cmd: Command): Command {
  const collect = (v: string, prev: string[] = []) => [...prev, v];
  return cmd
    .option('--include <glob>', 'documents to read, gitignore syntax, repeatable (default: *.md *.markdown *.mdx *.txt *.rst *.adoc)', collect)
    .option('--exclude <glob>', 'documents to leave out, on top of .gitignore, repeatable', collect)
    .option('--exports <dir>', 'folders whose *.json are GitHub exports, repeatable (default: exports/ export/ .github-export/ github-export/ tickets/)', collect)
    .option('--no-git', 'do not read commit messages from git log');
}

function sourcesFrom(flags: SourceFlags): SourceOptions {
  return {
    ...(flags.include?.length ? { include: flags.include } : {}),
    ...(flags.exclude?.length ? { exclude: flags.exclude } : {}),
    ...(flags.exports?.length ? { exports: flags.exports } : {}),
    ...(flags.git === false ? { git: false } : {}),
  };
}

function settingsFrom(flags: ModelFlags): ModelSettings {
  return modelSettings({
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
    ...(flags.embeddingModel ? { embeddingModel: flags.embeddingModel } : {}),
    ...(flags.timeout ? { timeoutMs: flags.timeout } : {}),
    ...(flags.jsonMode === false ? { jsonMode: false } : {}),
    ...(flags.maxCompletionTokens ? { maxCompletionTokensParam: true } : {}),
  });
}

function dollars(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a price ≥ 0 in dollars per million tokens');
  return n;
}

/** One line per workflow and the totals: what `tenure index` and `tenure knowledge index` print. */
export function renderKnowledgeIndexReport(r: KnowledgeIndexReport): string {
  const d = r.documents;
  const lines = [
    `Knowledge memory (${r.mode === 'offline' ? 'offline, no model' : r.model}): ${d.total} documents (${d.added} new, ${d.changed} changed, ${d.removed} removed, ${d.unchanged} unchanged), ${r.chunks} chunks; ${r.entities} entities, ${r.relationships} relationships; ${r.communities.total} communities on ${r.communities.levels} level${r.communities.levels === 1 ? '' : 's'} (${r.reports.generated} reports written, ${r.reports.reused} reused); links: ${LINK_TIERS.map((t) => `${t} ${r.links[t]}`).join(', ')} — in ${(r.ms / 1000).toFixed(2)} s.`,
  ];
  if (r.mode === 'model') {
    const s = r.spend;
    lines.push(`Model calls: ${s.calls} (${s.cachedCalls} answered from the cache, ${s.retries} retries, ${s.repaired} repaired, ${s.dropped} dropped as invalid); ${s.inputTokens.toLocaleString('en-US')} input + ${s.outputTokens.toLocaleString('en-US')} output tokens.`);
  }
  if (r.status !== 'done') lines.push(`Knowledge run ${r.status === 'failed' ? 'failed' : 'stopped early'}: ${r.message ?? r.status}`, `What to do: ${nextStep(r)}`);
  return lines.join('\n');
}

/** What a person does about a run that did not finish: the budget, a cancellation, or a failure to report. */
function nextStep(r: KnowledgeIndexReport): string {
  if (r.status === 'stopped' && /budget/i.test(r.message ?? '')) return 'run `tenure knowledge index` again with a larger --budget; work done so far is kept and not paid for twice.';
  if (r.status === 'stopped') return 'run `tenure knowledge index` again to continue where it stopped; work done so far is kept.';
  return 'run `tenure knowledge index` again (work done so far is kept); if it fails the same way, run it with --rebuild, and report the message above with `tenure knowledge status`.';
}

/** A knowledge run that did not finish is not a success: the exit code says so, for scripts and CI. */
export function knowledgeExitCode(r: KnowledgeIndexReport): number {
  return r.status === 'done' ? 0 : 1;
}

type IndexFlags = ModelFlags & SourceFlags & { budget?: number; concurrency?: number; maxClusterSize?: number; retryDropped?: boolean; rebuild?: boolean; yes?: boolean; json?: boolean };

/** Links need the symbols: without a structural index, build it first (seconds). */
async function ensureStructuralIndex(ws: Workspace, quiet: boolean): Promise<void> {
  if (await isIndexed(ws.db)) return;
  if (!quiet) process.stderr.write('No structural index yet; indexing the code first…\n');
  const indexer = await StructuralIndexer.create(ws);
  try {
    await indexer.indexAll();
  } finally {
    await indexer.dispose();
  }
}

/** A model pass spends tokens: show the survey's estimate and go on only after a yes (or --yes). */
async function approveModelPass(root: string, ws: Workspace, chat: ChatModel, settings: ModelSettings, opts: IndexFlags): Promise<boolean> {
  const survey = await surveyKnowledge(root, ws.db, { chat, embedderIsModel: !!settings.embeddingModel, sources: sourcesFrom(opts) });
  process.stderr.write(renderSurvey(survey) + '\n');
  if (opts.budget) process.stderr.write(`Token budget for this run: ${opts.budget.toLocaleString('en-US')}.\n`);
  if (opts.yes) return true;
  if (!process.stdin.isTTY) throw new TenureError('invalid-input', 'A model pass spends tokens: read the estimate above, then run again with --yes (or --budget to cap it).');
  if (await confirm('Run the model pass? [y/N] ')) return true;
  process.stderr.write('Nothing spent.\n');
  return false;
}

async function runIndex(root: string, opts: IndexFlags): Promise<void> {
  const settings = settingsFrom(opts);
  if (missingKey(settings)) {
    throw new TenureError('invalid-input', `--model ${settings.model} needs an API key for ${settings.baseURL ?? 'OpenAI'}: set TENURE_OPENAI_API_KEY (or OPENAI_API_KEY), or point --base-url at a local server.`);
  }
  const chat = createChatModel(settings);
  const embedder = createEmbedder(settings);
  await withWorkspace(root, async (ws) => {
    await ensureStructuralIndex(ws, !!opts.json);
    if (chat && !(await approveModelPass(root, ws, chat, settings, opts))) return;
    if (opts.rebuild) await clearKnowledge(ws.db);
    let last = 0;
    const ac = new AbortController();
    const onSigint = () => ac.abort();
    process.once('SIGINT', onSigint);
    // A model pass in a workspace connected to a team store asks the team's cache first and shares its answers after.
    const team = chat ? await teamModelCalls(ws) : undefined;
    try {
      const report = await indexKnowledge(ws, {
        ...(team ? { calls: team.calls } : {}),
        sources: sourcesFrom(opts),
        ...(chat ? { chat } : {}),
        embedder,
        ...(opts.budget ? { budgetTokens: opts.budget } : {}),
        ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
        ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
        ...(opts.maxClusterSize ? { clustering: { maxClusterSize: opts.maxClusterSize } } : {}),
        ...(opts.retryDropped ? { retryDropped: true } : {}),
        signal: ac.signal,
        log: chat && !opts.json ? (m) => process.stderr.write(`${m}\n`) : () => undefined,
        onProgress: ({ workflow, done, total }) => {
          if (!opts.json && process.stderr.isTTY && Date.now() - last > 100) {
            last = Date.now();
            process.stderr.write(`\r\x1b[K${workflow} ${done}/${total}`);
          }
        },
      });
      if (!opts.json && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : renderKnowledgeIndexReport(report) + '\n');
      if (knowledgeExitCode(report)) process.exitCode = knowledgeExitCode(report);
    } finally {
      await team?.finish();
      process.removeListener('SIGINT', onSigint);
    }
  });
}

/** `tenure knowledge survey` */
function surveyCommand(program: Command, knowledge: Command): void {
  addSourceOptions(addModelOptions(
    knowledge
      .command('survey')
      .description('What the corpus holds (documents by kind, words, informative commits) and what indexing it would cost, before anything is spent.')
      .argument('[dir]', 'workspace root')
      .option('--price-in <dollars>', 'price per million input tokens, for a cost estimate', dollars)
      .option('--price-out <dollars>', 'price per million output tokens', dollars)
      .option('--json', 'print as JSON'),
  )).action(async (dir: string | undefined, opts: ModelFlags & SourceFlags & { json?: boolean; priceIn?: number; priceOut?: number }) => {
    const root = findRoot(dir ?? cwdOf(program));
    const settings = settingsFrom(opts);
    const chat = createChatModel(settings);
    const dbFile = Workspace.dbPath(root);
    const ws = fs.existsSync(dbFile) ? await openWorkspace(root) : undefined;
    try {
      const survey = await surveyKnowledge(root, ws?.db, {
        sources: sourcesFrom(opts),
        ...(chat ? { chat } : {}),
        embedderIsModel: !!settings.embeddingModel,
        ...(opts.priceIn !== undefined || opts.priceOut !== undefined ? { price: { input: opts.priceIn ?? 0, output: opts.priceOut ?? 0 } } : {}),
      });
      process.stdout.write(opts.json ? JSON.stringify(survey, null, 2) + '\n' : renderSurvey(survey) + '\n');
    } finally {
      await ws?.close();
    }
  });
}

/** `tenure knowledge index` */
function indexCommand(program: Command, knowledge: Command): void {
  addSourceOptions(addModelOptions(
    knowledge
      .command('index')
      .description('Build or update the knowledge memory: offline by default; with --model, after showing the cost estimate.')
      .argument('[dir]', 'workspace root')
      .option('--budget <tokens>', 'most tokens (prompt + reply) this run may spend; it stops cleanly there and the next run continues', positiveInt)
      .option('--concurrency <n>', 'model calls in flight (default 4)', positiveInt)
      .option('--max-cluster-size <n>', 'communities larger than this are split one level down (default 10)', positiveInt)
      .option('--retry-dropped', 'try again the chunks whose extraction was dropped as invalid')
      .option('--rebuild', 'rebuild the knowledge graph from the documents (model answers stay cached)')
      .option('-y, --yes', 'run a model pass without asking')
      .option('--json', 'print the report as JSON'),
  )).action((dir: string | undefined, opts: IndexFlags) => {
    // Offline indexing reads the repository as data; a model would be sent its text.
    if (opts.model) refuseInRestricted(program, 'a model pass over the workspace\'s text');
    return runIndex(findRoot(dir ?? cwdOf(program)), opts);
  });
}

/** `tenure knowledge ask` */
function askCommand(program: Command, knowledge: Command): void {
  addModelOptions(
    knowledge
      .command('ask')
      .description('Ask the documents: global search (map-reduce over community reports) for corpus-wide questions, local search around named things.')
      .argument('<question>', 'the question')
      .addOption(new Option('--mode <mode>', 'global, local, or auto (picks from the question)').choices(['auto', 'global', 'local']).default('auto'))
      .option('--level <n>', 'community level for global search (0 = broadest; default: all levels, ranked)', (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
        return n;
      })
      .option('--max-reports <n>', 'community reports read at most (default 24)', positiveInt)
      .option('--budget <tokens>', 'most tokens this question may spend', positiveInt)
      .option('--json', 'print the full answer as JSON'),
  ).action(async (question: string, opts: ModelFlags & { mode: AskMode; level?: number; maxReports?: number; budget?: number; json?: boolean }) => {
    const settings = settingsFrom(opts);
    if (missingKey(settings)) throw new TenureError('invalid-input', `--model ${settings.model} needs an API key: set TENURE_OPENAI_API_KEY (or OPENAI_API_KEY), or point --base-url at a local server.`);
    const chat = createChatModel(settings);
    const embedder = settings.embeddingModel ? createEmbedder(settings) : undefined;
    await withWorkspace(cwdOf(program), async (ws) => {
      const r = await askKnowledge(ws.db, question, {
        mode: opts.mode,
        ...(chat ? { chat } : {}),
        ...(embedder ? { embedders: [embedder] } : {}),
        ...(opts.level !== undefined ? { level: opts.level } : {}),
        ...(opts.maxReports ? { maxReports: opts.maxReports } : {}),
        ...(opts.budget ? { budgetTokens: opts.budget } : {}),
      });
      process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderSearch(presentSearch(r, 8)) + '\n');
    });
  });
}

/** `tenure knowledge status` */
function statusCommand(program: Command, knowledge: Command): void {
  knowledge
    .command('status')
    .description('What the knowledge memory holds, what it cost (model calls and tokens by task), and the last runs.')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        const s = await knowledgeStatus(ws.db);
        process.stdout.write(opts.json ? JSON.stringify(s, null, 2) + '\n' : renderKnowledgeStatus(s) + '\n');
      });
    });
}

/** `tenure knowledge communities` */
function communitiesCommand(program: Command, knowledge: Command): void {
  knowledge
    .command('communities')
    .description('The communities Leiden found, with their reports: title, size, importance.')
    .option('--level <n>', 'only this level', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(async (opts: { level?: number; json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        const reports = (await loadReports(ws.db, opts.level)).sort((a, b) => a.level - b.level || b.rating - a.rating);
        if (opts.json) {
          process.stdout.write(JSON.stringify(reports, null, 2) + '\n');
          return;
        }
        if (!reports.length) {
          process.stdout.write('No community reports yet: run `tenure knowledge index`.\n');
          return;
        }
        for (const r of reports) {
          process.stdout.write(`#${r.communityId} level ${r.level}, ${r.size} entities, importance ${r.rating} (${r.reporter.startsWith('offline:') ? 'offline' : r.reporter.replace(/\/[^/]*$/, '')}): ${r.title}\n  ${r.summary.slice(0, 300)}\n`);
        }
      });
    });
}

/** `tenure knowledge fetch-github` */
function fetchGitHubCommand(program: Command, knowledge: Command): void {
  knowledge
    .command('fetch-github')
    .description('Fetch recent pull requests and issues with their comments and reviews into .tenure/exports/github (token from GITHUB_TOKEN or GH_TOKEN).')
    .argument('<repo>', 'owner/name')
    .option('--limit <n>', 'threads to fetch, newest first (default 50)', positiveInt)
    .option('--api-base <url>', 'GitHub API base (GitHub Enterprise: https://host/api/v3)')
    .action(async (repo: string, opts: { limit?: number; apiBase?: string }) => {
      const m = /^([\w.-]+)\/([\w.-]+)$/.exec(repo);
      if (!m) throw new TenureError('invalid-input', `Expected owner/name, got "${repo}".`);
      const root = findRoot(cwdOf(program));
      const token = process.env['GITHUB_TOKEN'] ?? process.env['GH_TOKEN'];
      const files = await fetchGitHubThreads({ owner: m[1]!, repo: m[2]!, ...(token ? { token } : {}), ...(opts.limit ? { limit: opts.limit } : {}), ...(opts.apiBase ? { apiBase: opts.apiBase } : {}) });
      const dir = path.join(root, TENURE_DIR, 'exports', 'github');
      for (const f of files) {
        const file = path.join(dir, f.file);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify(f.json, null, 2));
      }
      process.stdout.write(`Wrote ${files.length} threads to ${path.relative(process.cwd(), dir) || dir}. Run \`tenure knowledge index\` to read them.\n`);
    });
}

export const knowledgeCommands: CommandGroup = (program) => {
  const knowledge = program.command('knowledge').description('The knowledge memory: what the documents hold, indexing them (offline or with a model), and asking them.');
  for (const add of [surveyCommand, indexCommand, askCommand, statusCommand, communitiesCommand, fetchGitHubCommand]) add(program, knowledge);
};
