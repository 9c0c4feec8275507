import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexKnowledge, type KnowledgeIndexReport } from '../src/core/knowledge/pipeline.js';
import { knowledgeIndexed } from '../src/core/knowledge/quotes.js';
import { clearKnowledge } from '../src/core/knowledge/store/runs.js';
import { OpenAiChatModel } from '../src/core/llm/openai.js';
import { HashingEmbedder } from '../src/core/llm/offline.js';
import { StructuralIndexer } from '../src/core/structural/index/indexer.js';
import { declaredParametersOf, goReceiverType, isIndexed, locationOf, modulesAt, resolveOneSymbol, resolveSymbols } from '../src/core/structural/lookup.js';
import { askTool } from '../src/core/tools/ask.js';
import { tokens } from '../src/core/tools/budget.js';
import { fitWhy, whyIsThisTool } from '../src/core/tools/whyIsThis.js';
import { whyIsThis } from '../src/core/knowledge/why.js';
import type { SentenceModel } from '../src/core/knowledge/sentenceRanker.js';
import type { Workspace } from '../src/core/store/workspace.js';
import { openWorkspace } from '../src/core/workspace.js';
import { FakeOpenAi } from '../test/integration/knowledgeFakeOpenAi.js';
import { median, percentile, type Row } from './stats.js';

/*
 * Does why_is_this find the reason? Questions about named symbols of real
 * open-source repositories that keep their decision records beside their
 * code (bench/knowledge-cases/cases.json: the documents and the sentences
 * that hold each reason), answered by the catalog tool as an agent gets it,
 * offline and on the model path (the real openai client against a local
 * OpenAI-compatible server, test/integration/knowledgeFakeOpenAi.ts).
 *
 * Measured per set (tuning: looked at while the reason finder was written;
 * held-out: written from the repositories' own documents and committed before
 * the finder was run on them — the numbers that count), offline and model:
 *   evidence recall   needed sentences quoted in the text answer
 *   document cited    questions whose answer cites at least one of its documents; document recall: documents cited
 *   tokens            of the text answer (o200k), median and p90
 *   false certainty   documents shown at exact/strong for the symbol itself that are not the question's documents,
 *                     not judged related to it (a case's `related`), and do not name it verbatim
 *   no reason         questions with no recorded reason whose answer says so first
 *   ask reaches it    offline: `ask` with "Why does <name> work this way?" (the case's name, or for a
 *                     path:line case the symbol's name with its type or Go receiver) — is its subject
 *                     (first focus) the case's symbol, and is the symbol among its subjects
 *
 * The repositories are read from $TENURE_KNOWLEDGE_CORPORA/<id> (default
 * <tmp>/tenure-kbench/<id>): git clones at the commits the cases name, never
 * inside this repository. A corpus that is missing gets a row saying how to
 * place it.
 *
 *   node out/bench/knowledgeReasons.js [--model] [--only=id,id] [--set=tuning|held-out] [--keep-index | --reuse-index] [--answers] [--json]
 *
 * --keep-index answers from the index a previous offline run left in each
 * corpus (brought up to date incrementally) instead of rebuilding it;
 * --reuse-index answers from that index as it is, with no structural or
 * knowledge pass (minutes instead of many: only the answering code is
 * new), where its knowledge was extracted offline (one a --model run left
 * is built again offline first). Both are for trying a change to how
 * answers are found, never for the numbers reported.
 */

export interface Case {
  readonly id: string;
  readonly set: 'tuning' | 'held-out';
  readonly symbol: string;
  readonly documents?: readonly string[];
  readonly needed?: readonly string[];
  readonly noReason?: boolean;
  /**
   * Documents read and judged to be about the symbol, though no needed sentence is in them, each with the judgement:
   * shown at exact or strong they are not false certainty. The name test below cannot tell a document that names
   * the symbol in prose or by an annotation from one that merely shares its words.
   */
  readonly related?: Readonly<Record<string, string>>;
}

export interface CorpusCases {
  readonly id: string;
  readonly language: string;
  readonly repository: string;
  readonly commit: string;
  readonly documents: string;
  /** Paths the structural index leaves out (gitignore syntax), with why: a workaround, said so in the report. */
  readonly exclude?: readonly string[];
  readonly excludeWhy?: string;
  readonly cases: readonly Case[];
}

export interface CaseResult {
  readonly corpus: string;
  readonly id: string;
  readonly set: Case['set'];
  readonly path: 'offline' | 'model';
  readonly resolved: boolean;
  readonly error?: string;
  readonly needed: number;
  readonly quoted: number;
  readonly documents: number;
  readonly cited: number;
  readonly tokens: number;
  readonly falseCertain: readonly string[];
  readonly noReason?: boolean;
  readonly saidNoReason?: boolean;
  readonly firstLine: string;
  /** The whole text answer. */
  readonly answer: string;
  /** `ask` with a question naming the symbol: the question, and whether ask's subject (its first focus) is the case's symbol. */
  readonly ask?: { readonly question: string; readonly subject?: string; readonly reached: boolean; readonly inFocus: boolean; readonly error?: string };
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CORPORA_DIR = process.env['TENURE_KNOWLEDGE_CORPORA'] ?? path.join(os.tmpdir(), 'tenure-kbench');

/** A data file of the knowledge bench (bench/knowledge-cases/), parsed. */
export function readCasesFile<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'bench', 'knowledge-cases', name), 'utf8')) as T;
}

export function loadCases(): CorpusCases[] {
  return readCasesFile<{ corpora: CorpusCases[] }>('cases.json').corpora;
}

/** Lower-case words, markup dropped (a link's target too: an answer quotes a link as its text): how a needed sentence is compared with what an answer quotes. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']')
    .replace(/[`*_]/g, '')
    .replace(/[\u2018\u2019\u201c\u201d]/g, "'")
    .match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The quotations of an answer's text: what is between each pair of quote marks, and on each line the span from
 * its first quote mark to its last one before a citation (`" (line 35)`), a dash or the line's end — a quotation
 * that itself quotes (`on Google's "protocol buffers" (protobuf) syntax`) is one quotation, not three fragments.
 */
export function quotations(text: string): string[][] {
  const pairs = [...text.matchAll(/"([^"\n]{12,})"/g)].map((m) => m[1]!);
  const spans = [...text.matchAll(/"([^\n]{12,})"(?=[ \t]*(?:\(|—|$))/gm)].map((m) => m[1]!).filter((q) => q.includes('"'));
  return [...pairs, ...spans].map(words);
}

/** A needed sentence counts as quoted when one quotation holds at least 80% of its words in order (a cut quotation still counts). */
export function isQuoted(needed: string, quotes: readonly string[][]): boolean {
  const want = words(needed);
  if (!want.length) return false;
  return quotes.some((q) => {
    let i = 0;
    let hit = 0;
    for (const w of want) {
      const at = q.indexOf(w, i);
      if (at >= 0) {
        hit++;
        i = at + 1;
      }
    }
    return hit / want.length >= 0.8;
  });
}

async function structural(ws: Workspace, exclude: readonly string[] = []): Promise<void> {
  const indexer = await StructuralIndexer.create(ws, { exclude });
  try {
    await indexer.indexAll();
  } finally {
    await indexer.dispose();
  }
}

/**
 * The name a person would write for the case's symbol: as the case names it,
 * or, for a case given as path:line, the symbol's name with its type (a Go
 * method with its receiver type, a member with its class).
 */
function naturalName(ws: Workspace, c: Case, target: { name: string; qname: string; path: string; line: number }): string {
  if (!/:\d+$/.test(c.symbol)) return c.symbol;
  if (target.path.endsWith('.go')) {
    try {
      const line = fs.readFileSync(path.join(ws.root, target.path), 'utf8').split('\n')[target.line - 1] ?? '';
      const receiver = goReceiverType(line);
      if (receiver) return `${receiver}.${target.name}`;
    } catch {
      // the name alone
    }
    // A member with no receiver on its line (an interface's method, a struct's field) is written with its type.
    const segs = target.qname.split('.');
    return segs.length >= 3 ? `${segs[segs.length - 2]}.${target.name}` : target.name;
  }
  const segs = target.qname.split('.');
  const owner = segs[segs.length - 2];
  return owner && /^[A-Z]/.test(owner) ? `${owner}.${target.name}` : target.name;
}

/**
 * The name as a person would write it to be understood: the natural name, and when that names several symbols, with the
 * file the symbol is in ("execute in sessions-request.handler.js"; its path when other folders hold a file of that name).
 */
async function unambiguousName(ws: Workspace, natural: string, target: { name: string; path: string; line: number }): Promise<string> {
  const named = await resolveSymbols(ws.db, natural, { root: ws.root }).catch(() => []);
  if (named.length < 2) return natural;
  const base = path.basename(target.path);
  const file = (await modulesAt(ws.db, base, { root: ws.root })).length === 1 ? base : target.path;
  // Overloads in one file: the one meant, with its parameters as its declaration writes them ("transfer(DataFlowStartMessage request, DataSink sink)").
  if (named.filter((n) => n.path === target.path).length < 2) return `${natural} in ${file}`;
  const declared = declaredParametersOf(ws.root, target);
  return declared ? `${natural}(${declared.map((p) => p.join(' ')).join(', ')}) in ${file}` : `${natural} in ${file}`;
}

/** `ask` with one question built the same way for every case ("Why does <name> work this way?"): is its subject the case's symbol? */
async function askReaches(ws: Workspace, c: Case, target: { sid: string; name: string; qname: string; path: string; line: number }): Promise<NonNullable<CaseResult['ask']>> {
  const question = `Why does ${await unambiguousName(ws, naturalName(ws, c, target), target)} work this way?`;
  try {
    const r = await askTool.invoke({ workspace: ws }, { question });
    const focus = (r.data as { focus: { sid: string; qname: string }[] }).focus;
    return { question, ...(focus[0] ? { subject: focus[0].qname } : {}), reached: focus[0]?.sid === target.sid, inFocus: focus.some((f) => f.sid === target.sid) };
  } catch (e) {
    return { question, reached: false, inFocus: false, error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
}

/**
 * One question answered as the catalog tool answers it, and measured. With `model`, answered by the reason finder
 * with that sentence ranker (null: the hand-set score alone) and the tool's budget, without asking `ask`: how
 * bench/fitReasons.ts compares rankers on the same indexes.
 */
export async function ask(ws: Workspace, corpus: CorpusCases, c: Case, via: CaseResult['path'], model?: SentenceModel | null): Promise<CaseResult> {
  const base = { corpus: corpus.id, id: c.id, set: c.set, path: via, needed: c.needed?.length ?? 0, documents: c.documents?.length ?? 0, ...(c.noReason ? { noReason: true } : {}) };
  let name: string;
  let target: Awaited<ReturnType<typeof resolveOneSymbol>>;
  try {
    target = await resolveOneSymbol(ws.db, c.symbol, { root: ws.root });
    name = target.name;
  } catch (e) {
    return { ...base, resolved: false, error: e instanceof Error ? e.message.split('\n')[0]! : String(e), quoted: 0, cited: 0, tokens: 0, falseCertain: [], firstLine: '', answer: '' };
  }
  let r: Awaited<ReturnType<typeof whyIsThisTool.invoke>>;
  try {
    // Asked as the case writes it, as a person or agent would (a `path:line` keeps its line), once it is known to resolve to one symbol.
    if (model === undefined) r = await whyIsThisTool.invoke({ workspace: ws }, { symbol: c.symbol });
    else {
      const asked = locationOf(c.symbol);
      r = fitWhy(await whyIsThis(ws.db, target, 8, { root: ws.root, model, ...(asked ? { line: asked.line } : {}) }), 8);
    }
  } catch (e) {
    return { ...base, resolved: false, error: e instanceof Error ? e.message.split('\n')[0]! : String(e), quoted: 0, cited: 0, tokens: 0, falseCertain: [], firstLine: '', answer: '' };
  }
  const data = r.data as { why: { found: boolean }; documents: { where?: string; tier: string; relation: string; category: string; ref?: string; title: string }[] };
  const quotes = quotations(r.text);
  const quoted = (c.needed ?? []).filter((n) => isQuoted(n, quotes)).length;
  const cited = (c.documents ?? []).filter((d) => r.text.includes(d)).length;
  const expected = new Set([...(c.documents ?? []), ...Object.keys(c.related ?? {})]);
  // Unrelated: shown at exact/strong for the symbol itself, not one of the question's documents nor judged related, and not naming the symbol anywhere in its text.
  const namesIt = (where: string | undefined) => {
    if (!where) return true;
    try {
      return fs.readFileSync(path.join(ws.root, where), 'utf8').includes(name);
    } catch {
      return true;
    }
  };
  const falseCertain = data.documents
    .filter((d) => d.relation === 'self' && (d.tier === 'exact' || d.tier === 'strong') && !['docstring', 'commit'].includes(d.category) && !(d.where && expected.has(d.where)) && !namesIt(d.where))
    .map((d) => d.where ?? d.ref ?? d.title);
  return {
    ...base,
    resolved: true,
    quoted,
    cited,
    tokens: tokens(r.text),
    falseCertain,
    ...(c.noReason ? { saidNoReason: !data.why.found } : {}),
    firstLine: r.text.split('\n')[0]!,
    answer: r.text,
    ...(via === 'offline' && model === undefined ? { ask: await askReaches(ws, c, target) } : {}),
  };
}

export function corpusRoot(corpus: CorpusCases): { root?: string; error?: string } {
  const root = path.join(CORPORA_DIR, corpus.id);
  const how = `git clone ${corpus.repository} ${root} && git -C ${root} checkout ${corpus.commit}`;
  if (!fs.existsSync(path.join(root, '.git'))) return { error: `not at ${root}: ${how}` };
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    if (head !== corpus.commit) return { error: `${root} is at ${head.slice(0, 10)}, the cases at ${corpus.commit.slice(0, 10)}: git -C ${root} checkout ${corpus.commit}` };
  } catch {
    return { error: `${root} is not a git clone: ${how}` };
  }
  return { root };
}

export interface ReasonBench {
  readonly results: CaseResult[];
  readonly runs: { corpus: string; path: CaseResult['path']; status: KnowledgeIndexReport['status']; message?: string; documents: number; ms: number }[];
  readonly missing: { corpus: string; error: string }[];
}

export async function runReasonBench(options: { readonly model?: boolean; readonly only?: readonly string[]; readonly set?: Case['set']; readonly keepIndex?: boolean; readonly reuseIndex?: boolean; readonly log?: (m: string) => void } = {}): Promise<ReasonBench> {
  const log = options.log ?? (() => undefined);
  const out: ReasonBench = { results: [], runs: [], missing: [] };
  for (const corpus of loadCases()) {
    if (options.only && !options.only.includes(corpus.id)) continue;
    const cases = corpus.cases.filter((c) => !options.set || c.set === options.set);
    if (!cases.length) continue;
    const { root, error } = corpusRoot(corpus);
    if (!root) {
      out.missing.push({ corpus: corpus.id, error: error! });
      continue;
    }
    const kept = !!options.reuseIndex && !options.model && fs.existsSync(path.join(root, '.tenure'));
    if (!kept && (!options.keepIndex || options.model)) fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
    let ws = await openWorkspace(root);
    try {
      // A kept index answers as it is only if its knowledge was extracted offline: a --model run leaves the replayed model's, and these answers are the offline path's.
      // Only a whole index is kept: a run stopped part-way leaves a store with no structural index or no finished knowledge run, whose answers would be "not indexed".
      const known = kept ? await knowledgeIndexed(ws.db) : undefined;
      const whole = !!known && known.indexedAt !== undefined && (await isIndexed(ws.db));
      const reuse = whole && known!.extractedBy.every((x) => x === 'offline');
      if (kept && !reuse) {
        // Not cleared but removed: an offline pass defers to the model extractions a store keeps (they are the expensive part), so only a new store is offline throughout.
        log(`${corpus.id}: its index ${whole ? 'was built by a model' : 'is incomplete (a run stopped part-way)'}; built again offline from a new store`);
        await ws.close();
        fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
        ws = await openWorkspace(root);
      }
      if (!reuse) {
        log(`${corpus.id}: structural index`);
        await structural(ws, corpus.exclude);
        log(`${corpus.id}: knowledge index, offline`);
        const offline = await indexKnowledge(ws);
        out.runs.push({ corpus: corpus.id, path: 'offline', status: offline.status, ...(offline.message ? { message: offline.message } : {}), documents: offline.documents.total, ms: offline.ms });
      }
      for (const c of cases) out.results.push(await ask(ws, corpus, c, 'offline'));
      if (options.model) {
        log(`${corpus.id}: knowledge index, model path (loopback endpoint)`);
        const fake = await FakeOpenAi.start();
        try {
          await clearKnowledge(ws.db);
          const chat = new OpenAiChatModel({ model: 'bench-sim', apiKey: 'sk-bench', baseURL: fake.url });
          const model = await indexKnowledge(ws, { chat, embedder: new HashingEmbedder(), concurrency: 8 });
          out.runs.push({ corpus: corpus.id, path: 'model', status: model.status, ...(model.message ? { message: model.message } : {}), documents: model.documents.total, ms: model.ms });
          for (const c of cases) out.results.push(await ask(ws, corpus, c, 'model'));
        } finally {
          await fake.close();
        }
      }
    } finally {
      await ws.close();
    }
  }
  return out;
}

function ratio(n: number, d: number): string {
  return d ? `**${(n / d).toFixed(2)}** (${n} of ${d})` : 'n/a';
}

/** Table rows: one per set and path, then per corpus (held-out, offline). */
export function reasonRows(b: ReasonBench): Row[] {
  const rows: Row[] = [];
  const summarize = (label: string, list: readonly CaseResult[], targets: boolean): Row[] => {
    const withReason = list.filter((r) => !r.noReason);
    const needed = withReason.reduce((n, r) => n + r.needed, 0);
    const quoted = withReason.reduce((n, r) => n + r.quoted, 0);
    const docs = withReason.reduce((n, r) => n + r.documents, 0);
    const cited = withReason.reduce((n, r) => n + r.cited, 0);
    const anyCited = withReason.filter((r) => r.cited > 0).length;
    const toks = list.filter((r) => r.resolved).map((r) => r.tokens);
    const fc = list.reduce((n, r) => n + r.falseCertain.length, 0);
    const fcIn = list.filter((r) => r.falseCertain.length).length;
    const noReason = list.filter((r) => r.noReason);
    const said = noReason.filter((r) => r.saidNoReason).length;
    const unresolved = list.filter((r) => !r.resolved);
    const asked = list.filter((r) => r.ask);
    const t = (ok: boolean, text: string) => (targets ? `${text} ${ok ? '✓' : '✗'}` : '');
    return [
      [label, 'evidence recall (needed sentences quoted)', ratio(quoted, needed), t(needed > 0 && quoted / needed >= 0.8, '≥ 0.8')],
      [label, 'right document cited (questions citing one of their documents)', `${ratio(anyCited, withReason.length)}; document recall ${ratio(cited, docs)}`, t(withReason.length > 0 && anyCited / withReason.length >= 0.95, '≥ 0.95')],
      [label, 'tokens per answer, median / p90', `**${median(toks)}** / ${percentile(toks, 90)}`, t(median(toks) <= 800, 'median ≤ 800')],
      [label, 'unrelated documents at exact/strong for the symbol itself (not its documents, and not naming it)', `**${fc}**${fc ? ` in ${fcIn} answers` : ''}`, t(fc === 0, '0')],
      [label, 'no-reason questions answered "no recorded reason"', ratio(said, noReason.length), t(said === noReason.length, 'all')],
      ...(asked.length ? [[label, '`ask` reaches the named symbol (its subject is the case\'s symbol; "Why does <name> work this way?")', `${ratio(asked.filter((r) => r.ask!.reached).length, asked.length)}; among its subjects ${ratio(asked.filter((r) => r.ask!.inFocus).length, asked.length)}`, t(asked.every((r) => r.ask!.reached), 'all')] as Row] : []),
      ...(unresolved.length ? [[label, 'symbols not resolved', unresolved.map((r) => `${r.id}: ${r.error}`).join('; '), ''] as Row] : []),
    ];
  };
  for (const via of ['offline', 'model'] as const) {
    for (const set of ['held-out', 'tuning'] as const) {
      const list = b.results.filter((r) => r.path === via && r.set === set);
      if (list.length) rows.push(...summarize(`${set} questions (${list.length}), ${via}`, list, set === 'held-out'));
    }
  }
  for (const run of b.runs) rows.push([`${run.corpus} (${run.path})`, 'knowledge run', `${run.status}${run.message ? `: ${run.message}` : ''}; ${run.documents} documents in ${(run.ms / 1000).toFixed(1)} s`, '']);
  for (const m of b.missing) rows.push([m.corpus, 'not run', m.error, '']);
  return rows;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  const set = args.find((a) => a.startsWith('--set='))?.slice('--set='.length) as Case['set'] | undefined;
  if (set && set !== 'tuning' && set !== 'held-out') throw new Error(`--set is tuning or held-out, not ${set}`);
  const b = await runReasonBench({ model: args.includes('--model'), keepIndex: args.includes('--keep-index'), reuseIndex: args.includes('--reuse-index'), ...(only ? { only } : {}), ...(set ? { set } : {}), log: (m) => process.stderr.write(`[reasons] ${m}\n`) });
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify(b, null, 2) + '\n');
    return;
  }
  const rows = reasonRows(b);
  process.stdout.write(['| Questions | Measurement | Result | Target |', '|---|---|---|---|', ...rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`)].join('\n') + '\n');
  for (const r of b.results) process.stderr.write(`[reasons] ${r.path} ${r.set} ${r.id}: quoted ${r.quoted}/${r.needed}, cited ${r.cited}/${r.documents}, ${r.tokens} tokens${r.falseCertain.length ? `, exact/strong not its documents: ${r.falseCertain.join(', ')}` : ''}${r.noReason ? `, no reason said: ${r.saidNoReason}` : ''}${r.error ? `, ${r.error}` : ''}${r.ask ? `; ask "${r.ask.question}" → ${r.ask.reached ? 'reached' : `NOT reached (subject ${r.ask.subject ?? 'none'}${r.ask.error ? `: ${r.ask.error}` : ''})`}` : ''}\n    ${args.includes('--answers') ? r.answer.replace(/\n/g, '\n    ') : r.firstLine.slice(0, 240)}\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
