import * as fs from 'node:fs';
import * as path from 'node:path';
import { Matrix, solve } from 'ml-matrix';
import { knowledgeIndexed } from '../src/core/knowledge/quotes.js';
import { FEATURES, sentenceFeatures, type SentenceModel } from '../src/core/knowledge/sentenceRanker.js';
import { whyIsThis } from '../src/core/knowledge/why.js';
import { isIndexed, locationOf, resolveOneSymbol } from '../src/core/structural/lookup.js';
import { openWorkspace } from '../src/core/workspace.js';
import { ask, corpusRoot, isQuoted, loadCases, words, type CaseResult, type CorpusCases } from './knowledgeReasons.js';
import { median, percentile } from './stats.js';

/*
 * Fits the sentence ranker (src/core/knowledge/sentenceRanker.ts) on the
 * knowledge bench's tuning questions and chooses it by leave-one-corpus-out
 * cross-validation, on the indexes a tuning run left in each corpus
 * (`node out/bench/knowledgeReasons.js --set=tuning --keep-index` first).
 *
 *   1. Every sentence of every source the finder reaches for a tuning
 *      question, with its features; positive when it is one of the
 *      question's needed sentences (one holds 80% of the other's words in
 *      order, as the bench counts a quotation).
 *   2. For each corpus, a logistic model fitted on the other corpora's
 *      sentences (L2-penalised, by Newton's method: ml-logistic-regression
 *      has neither a penalty nor an intercept, and its fixed-step gradient
 *      is far slower on tens of thousands of rows).
 *   3. The corpus's questions answered with that model, as the catalog tool
 *      answers them (800 tokens), for each penalty and pair of thresholds
 *      (the probability a sentence after a source's first reason needs),
 *      beside the hand-set score: needed sentences quoted, documents
 *      cited, tokens, unrelated documents, no-reason answers.
 *   4. The setting that quotes the most, losing no no-reason answer, adding
 *      no unrelated document and keeping the median within 800 tokens (the
 *      right documents cited are printed beside it), is
 *      fitted on all tuning sentences and, with --write, written to
 *      src/core/knowledge/sentenceModel.ts.
 *
 *   node out/bench/fitReasons.js [--lambda=1,10] [--tail=0.005,0.01] [--only=id,id] [--write]
 */

interface Row {
  readonly corpus: string;
  readonly f: readonly number[];
  readonly y: 0 | 1;
  /** A kept negative stands for 1/NEGATIVE_SHARE of them. */
  readonly weight: number;
}

/**
 * The share of sentences that are not needed kept for the fit, chosen by a hash of the sentence so every run keeps the
 * same ones; each stands for the others, so the model's probabilities are those of all sentences. (Tens of thousands of
 * sentences per corpus, a handful of them needed: the Newton steps' cost is in the rows.)
 */
const NEGATIVE_SHARE = 0.25;

function kept(text: string): boolean {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000) / 1000 < NEGATIVE_SHARE;
}

interface Setting {
  readonly lambda: number;
  readonly tail: number;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');

function list(arg: string | undefined, fallback: number[]): number[] {
  return arg ? arg.split(',').map(Number) : fallback;
}

/** The sentences of every source reached for the corpus's tuning questions, labelled. */
async function collect(corpus: CorpusCases, root: string, log: (m: string) => void): Promise<Row[]> {
  const ws = await openWorkspace(root);
  const rows: Row[] = [];
  try {
    const known = await knowledgeIndexed(ws.db);
    if (known.indexedAt === undefined || !(await isIndexed(ws.db)) || !known.extractedBy.every((x) => x === 'offline')) {
      throw new Error(`${corpus.id}: no whole offline index at ${root}; run node out/bench/knowledgeReasons.js --set=tuning --keep-index --only=${corpus.id} first`);
    }
    for (const c of corpus.cases.filter((x) => x.set === 'tuning')) {
      let target;
      try {
        target = await resolveOneSymbol(ws.db, c.symbol, { root });
      } catch {
        continue;
      }
      const needed = (c.needed ?? []).map((n) => n);
      const asked = locationOf(c.symbol);
      await whyIsThis(ws.db, target, 8, {
        root,
        model: null,
        ...(asked ? { line: asked.line } : {}),
        onRanked: (_source, ranked, ctx) => {
          for (const s of ranked) {
            const said = [words(s.text)];
            const y = needed.some((n) => isQuoted(n, said)) ? 1 : 0;
            if (y || kept(`${c.id} ${s.start} ${s.text}`)) rows.push({ corpus: corpus.id, f: sentenceFeatures(s, ranked, ctx), y, weight: y ? 1 : 1 / NEGATIVE_SHARE });
          }
        },
      });
    }
  } finally {
    await ws.close();
  }
  log(`${corpus.id}: ${rows.length} sentences, ${rows.filter((r) => r.y).length} needed`);
  return rows;
}

/** L2-penalised logistic regression by Newton's method, on standardised features; the weights returned are on the raw features. */
export function fitLogistic(rows: readonly Row[], lambda: number): { weights: number[]; bias: number } {
  const d = FEATURES.length;
  const n = rows.length;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  const total = rows.reduce((s, r) => s + r.weight, 0);
  for (const r of rows) for (let k = 0; k < d; k++) mean[k]! += (r.weight * r.f[k]!) / total;
  for (const r of rows) for (let k = 0; k < d; k++) sd[k]! += (r.weight * (r.f[k]! - mean[k]!) ** 2) / total;
  for (let k = 0; k < d; k++) sd[k] = Math.sqrt(sd[k]!) || 1;
  // Column d is the intercept, not penalised.
  const x = rows.map((r) => {
    const z = new Float64Array(d + 1);
    for (let k = 0; k < d; k++) z[k] = (r.f[k]! - mean[k]!) / sd[k]!;
    z[d] = 1;
    return z;
  });
  const w = new Float64Array(d + 1);
  for (let iter = 0; iter < 25; iter++) {
    const h = Array.from({ length: d + 1 }, () => new Float64Array(d + 1));
    const g = new Float64Array(d + 1);
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      let z = 0;
      for (let k = 0; k <= d; k++) z += w[k]! * xi[k]!;
      const p = 1 / (1 + Math.exp(-z));
      const wi = rows[i]!.weight;
      const e = wi * (rows[i]!.y - p);
      const v = wi * Math.max(p * (1 - p), 1e-9);
      for (let a = 0; a <= d; a++) {
        const xa = xi[a]!;
        if (xa === 0) continue;
        g[a]! += e * xa;
        const ha = h[a]!;
        const vxa = v * xa;
        for (let b = a; b <= d; b++) ha[b]! += vxa * xi[b]!;
      }
    }
    for (let a = 0; a <= d; a++) for (let b = 0; b < a; b++) h[a]![b] = h[b]![a]!;
    for (let k = 0; k < d; k++) {
      g[k]! -= lambda * w[k]!;
      h[k]![k]! += lambda;
    }
    h[d]![d]! += 1e-6;
    const step = solve(new Matrix(h.map((row) => [...row])), Matrix.columnVector([...g])).to1DArray();
    let moved = 0;
    for (let k = 0; k <= d; k++) {
      w[k]! += step[k]!;
      moved = Math.max(moved, Math.abs(step[k]!));
    }
    if (moved < 1e-6) break;
  }
  const weights = Array.from({ length: d }, (_, k) => w[k]! / sd[k]!);
  const bias = w[d]! - weights.reduce((s, wk, k) => s + wk * mean[k]!, 0);
  return { weights, bias };
}

function modelOf(fit: { weights: number[]; bias: number }, s: Setting, fitted?: string): SentenceModel {
  return { features: [...FEATURES], weights: fit.weights, bias: fit.bias, tail: s.tail, ...(fitted ? { fitted } : {}) };
}

interface Tally {
  quoted: number;
  needed: number;
  cited: number;
  withReason: number;
  unrelated: number;
  noReason: number;
  saidNoReason: number;
  tokens: number[];
  byCorpus: Map<string, number>;
}

function tally(results: readonly CaseResult[]): Tally {
  const t: Tally = { quoted: 0, needed: 0, cited: 0, withReason: 0, unrelated: 0, noReason: 0, saidNoReason: 0, tokens: [], byCorpus: new Map() };
  for (const r of results) {
    if (r.resolved) t.tokens.push(r.tokens);
    t.unrelated += r.falseCertain.length;
    if (r.noReason) {
      t.noReason++;
      if (r.saidNoReason) t.saidNoReason++;
      continue;
    }
    t.quoted += r.quoted;
    t.needed += r.needed;
    t.withReason++;
    if (r.cited > 0) t.cited++;
    t.byCorpus.set(r.corpus, (t.byCorpus.get(r.corpus) ?? 0) + r.quoted);
  }
  return t;
}

function line(label: string, t: Tally): string {
  return `${label}: quoted ${t.quoted}/${t.needed} (${(t.quoted / Math.max(1, t.needed)).toFixed(3)}), right document ${t.cited}/${t.withReason}, median/p90 tokens ${median(t.tokens)}/${percentile(t.tokens, 90)}, unrelated ${t.unrelated}, no-reason ${t.saidNoReason}/${t.noReason}`;
}

function key(s: Setting): string {
  return `lambda=${s.lambda} tail=${s.tail}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const only = arg('only')?.split(',');
  const lambdas = list(arg('lambda'), [1, 10, 100]);
  const tails = list(arg('tail'), [0.005, 0.01, 0.02]);
  const log = (m: string) => process.stderr.write(`[fit] ${m}\n`);
  const corpora = loadCases().filter((c) => c.cases.some((x) => x.set === 'tuning') && (!only || only.includes(c.id)));
  const roots = new Map<string, string>();
  for (const c of corpora) {
    const { root, error } = corpusRoot(c);
    if (!root) throw new Error(error);
    roots.set(c.id, root);
  }
  const rows: Row[] = [];
  for (const c of corpora) rows.push(...(await collect(c, roots.get(c.id)!, log)));
  log(`${rows.length} sentences, ${rows.filter((r) => r.y).length} needed, ${FEATURES.length} features`);

  const settings: Setting[] = lambdas.flatMap((lambda) => tails.map((tail) => ({ lambda, tail })));
  // One model per corpus and penalty, fitted without that corpus.
  const folds = new Map<string, { weights: number[]; bias: number }>();
  for (const lambda of lambdas) {
    for (const c of corpora) folds.set(`${lambda} ${c.id}`, fitLogistic(rows.filter((r) => r.corpus !== c.id), lambda));
    log(`fitted ${corpora.length} folds at lambda ${lambda}`);
  }
  const results = new Map<string, CaseResult[]>([['hand', []], ...settings.map((s) => [key(s), []] as [string, CaseResult[]])]);
  for (const c of corpora) {
    const ws = await openWorkspace(roots.get(c.id)!);
    try {
      for (const q of c.cases.filter((x) => x.set === 'tuning')) {
        results.get('hand')!.push(await ask(ws, c, q, 'offline', null));
        for (const s of settings) results.get(key(s))!.push(await ask(ws, c, q, 'offline', modelOf(folds.get(`${s.lambda} ${c.id}`)!, s)));
      }
    } finally {
      await ws.close();
    }
    log(`${c.id}: answered`);
  }
  const hand = tally(results.get('hand')!);
  process.stdout.write(`${line('hand-set score', hand)}\n`);
  let best: { s: Setting; t: Tally } | undefined;
  for (const s of settings) {
    const t = tally(results.get(key(s))!);
    const ok = t.saidNoReason >= hand.saidNoReason && t.unrelated <= hand.unrelated && median(t.tokens) <= 800;
    process.stdout.write(`${line(`fitted, ${key(s)}`, t)}${ok ? '' : ' (refused)'}\n`);
    if (ok && (!best || t.quoted > best.t.quoted)) best = { s, t };
  }
  if (!best) {
    process.stdout.write('No setting keeps every no-reason answer and adds no unrelated document.\n');
    return;
  }
  process.stdout.write(`chosen: ${key(best.s)}\nper corpus (left out, quoted: hand → fitted):\n`);
  for (const c of corpora) process.stdout.write(`  ${c.id}: ${hand.byCorpus.get(c.id) ?? 0} → ${best.t.byCorpus.get(c.id) ?? 0}\n`);
  if (args.includes('--write')) {
    const all = fitLogistic(rows, best.s.lambda);
    const fitted = `logistic, L2 ${best.s.lambda}, on ${rows.length} sentences (${rows.filter((r) => r.y).length} needed) of ${corpora.length} tuning corpora; leave-one-corpus-out: ${best.t.quoted}/${best.t.needed} needed sentences quoted against ${hand.quoted} by the hand-set score`;
    const model = modelOf(all, best.s, fitted);
    const round = (v: number) => Math.round(v * 1e6) / 1e6;
    const data = { ...model, weights: model.weights.map(round), bias: round(model.bias) };
    const file = path.join(REPO_ROOT, 'src', 'core', 'knowledge', 'sentenceModel.ts');
    fs.writeFileSync(
      file,
      `/* Generated by bench/fitReasons.ts (--write): the fitted sentence ranker's weights, one per feature of sentenceRanker.ts FEATURES. */\nexport const SENTENCE_MODEL = ${JSON.stringify(data, null, 2)};\n`,
    );
    process.stdout.write(`written: ${path.relative(REPO_ROOT, file)}\n`);
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
