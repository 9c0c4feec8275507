import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { countTokens } from '../src/shared/tokens.js';
import { indexKnowledge, type KnowledgeIndexReport } from '../src/core/knowledge/pipeline.js';
import { surveyKnowledge } from '../src/core/knowledge/sources/survey.js';
import { OpenAiChatModel, OpenAiEmbedder } from '../src/core/llm/openai.js';
import { resolveOneSymbol } from '../src/core/structural/lookup.js';
import { whyIsThis } from '../src/core/knowledge/why.js';
import { relatedByIntent } from '../src/core/knowledge/intent.js';
import { StructuralIndexer } from '../src/core/structural/index/indexer.js';
import { type Workspace } from '../src/core/store/workspace.js';
import { openWorkspace } from '../src/core/workspace.js';
import { FakeOpenAi } from '../test/integration/knowledgeFakeOpenAi.js';
import { BENCH_DIR } from './corpora.js';
import { corpusBytes } from './knowledgeCorpus.js';
import { fmtMs, median, percentile, type Row } from './stats.js';

/*
 * Knowledge memory benchmark rows:
 *   - the offline pipeline on examples/settlement and on a larger real corpus
 *     (the markdown that ships in this repository's npm dependencies:
 *     READMEs, changelogs, guides), fresh and re-run with nothing changed;
 *   - why_is_this and related_by_intent latency;
 *   - model calls and tokens per MB of documents on the model path, measured
 *     through the real openai client against a loopback endpoint (calls and
 *     prompt tokens are exact — they are ours; reply tokens depend on the
 *     model and come from the survey's estimate), beside the survey's own
 *     estimate of the calls, to show how far to trust it.
 *
 *   node out/bench/knowledge.js [--no-write]    writes docs/knowledge-bench.md
 * bench/run.ts can add the rows with `await knowledgeBenchRows(REPO_ROOT)`.
 */


const NPM_DOCS = path.join(BENCH_DIR, 'npm-docs');

/** The markdown shipped in node_modules (not tests, not licences), copied into a scratch folder. */
export function prepareNpmDocs(repoRoot: string): { root: string; files: number; bytes: number } {
  fs.rmSync(NPM_DOCS, { recursive: true, force: true });
  const from = path.join(repoRoot, 'node_modules');
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name === 'test' || e.name === 'tests' || e.name === '.bin') continue;
        walk(abs, r);
      } else if (e.isFile() && e.name.toLowerCase().endsWith('.md') && !/^licen[cs]e/i.test(e.name)) {
        const to = path.join(NPM_DOCS, r);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(abs, to);
        files++;
        bytes += fs.statSync(abs).size;
      }
    }
  };
  walk(from, '');
  return { root: NPM_DOCS, files, bytes };
}

function prepareSettlement(repoRoot: string): string {
  const to = path.join(BENCH_DIR, 'knowledge-settlement');
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(path.join(repoRoot, 'examples', 'settlement'), to, { recursive: true, filter: (s) => !s.includes(`${path.sep}.tenure`) });
  return to;
}

async function structural(ws: Workspace): Promise<void> {
  const indexer = await StructuralIndexer.create(ws);
  try {
    await indexer.indexAll();
  } finally {
    await indexer.dispose();
  }
}

function phases(r: KnowledgeIndexReport): string {
  return r.workflows.map((w) => `${w.name.replace(/_/g, ' ')} ${fmtMs(w.ms)}`).join(' · ');
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

async function offlineRows(label: string, root: string, bytes: number, withStructural: boolean, queries: boolean): Promise<Row[]> {
  fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
  const ws = await openWorkspace(root);
  try {
    if (withStructural) await structural(ws);
    const fresh = await indexKnowledge(ws, { sources: { git: false } });
    const noop = await indexKnowledge(ws, { sources: { git: false } });
    const rows: Row[] = [
      [label, 'knowledge corpus', `${fresh.documents.total} documents, ${mb(bytes)}, ${fresh.chunks} chunks → ${fresh.entities.toLocaleString('en-US')} entities, ${fresh.relationships.toLocaleString('en-US')} relationships, ${fresh.communities.total} communities on ${fresh.communities.levels} levels`, ''],
      [label, 'offline knowledge index, fresh', `**${fmtMs(fresh.ms)}** · ${(bytes / 1e6 / (fresh.ms / 1000)).toFixed(2)} MB/s (${phases(fresh)})`, ''],
      [label, 'offline knowledge index, nothing changed', `**${fmtMs(noop.ms)}** (${phases(noop)})`, ''],
    ];
    if (queries) {
      const symbols = await ws.db.all<{ sid: string }>("SELECT sid FROM symbols WHERE kind NOT IN ('module', 'constructor') ORDER BY sid");
      for (const s of symbols.slice(0, 5)) await whyIsThis(ws.db, await resolveOneSymbol(ws.db, s.sid, { root }), 8);
      const why: number[] = [];
      for (const s of symbols) {
        const t = performance.now();
        await whyIsThis(ws.db, await resolveOneSymbol(ws.db, s.sid, { root }), 8);
        why.push(performance.now() - t);
      }
      const phrases = ['retry policy', 'settlement retries', 'the partner SLA', 'max attempts', 'payment gateway', 'duplicate instruction handling', 'nightly batch', 'dependency injection'];
      const intent: number[] = [];
      for (const p of phrases) {
        const t = performance.now();
        await relatedByIntent(ws.db, p);
        intent.push(performance.now() - t);
      }
      rows.push([label, `why_is_this (every symbol, n=${why.length})`, `p50 **${fmtMs(median(why))}** · p95 **${fmtMs(percentile(why, 95))}** · max ${fmtMs(Math.max(...why))}`, '']);
      rows.push([label, `related_by_intent (n=${intent.length} phrases)`, `p50 **${fmtMs(median(intent))}** · p95 ${fmtMs(percentile(intent, 95))}`, '']);
    }
    return rows;
  } finally {
    await ws.close();
  }
}

async function modelRows(label: string, root: string, bytes: number, withStructural: boolean): Promise<Row[]> {
  fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
  const fake = await FakeOpenAi.start();
  const ws = await openWorkspace(root);
  try {
    if (withStructural) await structural(ws);
    const chat = new OpenAiChatModel({ model: 'bench-sim', apiKey: 'sk-bench', baseURL: fake.url });
    const survey = await surveyKnowledge(root, ws.db, { chat, embedderIsModel: true, sources: { git: false } });
    const t = performance.now();
    const r = await indexKnowledge(ws, { chat, embedder: new OpenAiEmbedder({ model: 'bench-sim', embeddingModel: 'bench-embed', apiKey: 'sk-bench', baseURL: fake.url }), sources: { git: false }, concurrency: 8 });
    const ms = performance.now() - t;
    const chatRequests = fake.requests.filter((q) => q.task !== 'embed');
    const promptTokens = chatRequests.reduce((n, q) => n + (q.body.messages ?? []).reduce((m, x) => m + countTokens(x.content) + 4, 2), 0);
    const embedTokens = fake.requests.filter((q) => q.task === 'embed').reduce((n, q) => n + (q.body.input ?? []).reduce((m, x) => m + countTokens(x), 0), 0);
    const perMB = (n: number) => Math.round(n / (bytes / 1e6)).toLocaleString('en-US');
    const est = survey.estimate!;
    return [
      [
        label,
        'model path: calls and tokens per MB of documents',
        `**${perMB(chatRequests.length)} calls/MB** (${fake.count('extract')} extraction, ${fake.count('summarize')} merges, ${fake.count('report')} reports; ${r.status}) · **${perMB(promptTokens)} prompt tokens/MB** (measured on the requests sent) · ~${perMB(est.outputTokens)} reply tokens/MB (estimated) · ${perMB(embedTokens)} embedding tokens/MB`,
        '',
      ],
      [label, 'survey estimate vs calls made', `estimated ${est.calls.total} calls (${est.calls.extract} + ${est.calls.summarize} + ${est.calls.report}) vs ${chatRequests.length} made; ${est.inputTokens.toLocaleString('en-US')} vs ${promptTokens.toLocaleString('en-US')} prompt tokens`, ''],
      [label, 'model path wall time against a loopback endpoint', `${fmtMs(ms)} (pipeline overhead only: the endpoint answers at once; a real model adds its latency per call ÷ concurrency 8)`, ''],
    ];
  } finally {
    await ws.close();
    await fake.close();
  }
}

export async function knowledgeBenchRows(repoRoot: string): Promise<Row[]> {
  const rows: Row[] = [];
  const settlement = prepareSettlement(repoRoot);
  const sBytes = await corpusBytes(settlement);
  rows.push(...(await offlineRows('examples/settlement', settlement, sBytes, true, true)));
  rows.push(...(await modelRows('examples/settlement', settlement, sBytes, true)));
  const npm = prepareNpmDocs(repoRoot);
  const label = `npm package docs (${npm.files} markdown files from node_modules)`;
  rows.push(...(await offlineRows(label, npm.root, npm.bytes, false, false)));
  rows.push(...(await modelRows(label, npm.root, npm.bytes, false)));
  rows.push(['(process)', 'peak RSS of the knowledge benchmark', `${Math.round(process.resourceUsage().maxRSS / 1024)} MB`, '']);
  return rows;
}

async function main(): Promise<void> {
  const repoRoot = path.resolve(__dirname, '..', '..');
  const t = performance.now();
  const rows = await knowledgeBenchRows(repoRoot);
  const md = [
    '# Knowledge memory benchmarks',
    '',
    `- **Machine**: ${os.cpus()[0]?.model.trim()}, ${os.availableParallelism?.() ?? os.cpus().length} cores, Node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end (other work shares the cores: times are upper bounds)`,
    `- **Date**: ${new Date().toISOString().slice(0, 10)}`,
    `- **Command**: \`npx tsc -p . && node out/bench/knowledge.js\` (took ${((performance.now() - t) / 1000).toFixed(0)} s)`,
    '',
    '| Corpus | Measurement | Result | Target |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`),
    '',
    'Offline runs use no model (extraction by names and phrases, extractive reports, hashed n-gram vectors). The model path runs the real `openai` client against an',
    'OpenAI-compatible server on 127.0.0.1 that answers at once (test/integration/knowledgeFakeOpenAi.ts), so its numbers are the pipeline\'s own: how many calls',
    'and prompt tokens a corpus costs, not a model\'s speed. The npm docs corpus is the markdown of this repository\'s installed dependencies, so it varies with the lockfile.',
    '',
  ].join('\n');
  process.stdout.write(md);
  if (!process.argv.includes('--no-write')) {
    const out = path.join(repoRoot, 'docs', 'knowledge-bench.md');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, md);
    process.stderr.write(`[knowledge] wrote ${path.relative(repoRoot, out)}\n`);
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
