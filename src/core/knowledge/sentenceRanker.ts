import type { LinkTier } from '../model/tiers.js';
import { CUE_COUNT, TIE_KINDS, stemmedWords, type RankedSentence } from './reasons.js';
import type { DocKind } from './sources/document.js';
import type { ScopeRelation } from './whyScope.js';
import { plain } from './text.js';
import { SENTENCE_MODEL } from './sentenceModel.js';

/*
 * The fitted sentence ranker: how likely a sentence is the one that says
 * why, from what the hand-set score is made of (how much it explains, how it
 * is tied to the symbol, its section, its place) and from its source (a
 * decision record, a commit, the symbol's own comment; how surely it reaches
 * the symbol). A logistic model whose weights are data (sentenceModel.ts),
 * fitted on the knowledge bench's tuning questions by bench/fitReasons.ts and
 * chosen by leave-one-corpus-out cross-validation: ten rounds of hand-set cue
 * weights had stopped carrying over to code they were not set on, and a
 * sentence's claim to be the reason is a weighing of many weak signs.
 */

/** The source a sentence is ranked in, as the finder reached it. */
export interface SourceContext {
  readonly kind: DocKind;
  /** The symbol's own comment (doc comment or one in its body). */
  readonly own: boolean;
  readonly tier: LinkTier;
  readonly relation: ScopeRelation;
  readonly hops: 1 | 2;
  /** The options the hand-set ranking was given (reasons.ts RankOptions). */
  readonly focused: boolean;
  readonly aboutIt: boolean;
  readonly weaklyAbout: boolean;
  readonly threaded: boolean;
  /** The comment on or just above a line the question asked about. */
  readonly atLine: boolean;
  /** Stemmed words of the symbol's name, and of its file's and folder's names. */
  readonly nameWords: readonly string[];
  readonly placeWords: readonly string[];
}

export interface SentenceModel {
  /** The feature each weight belongs to (a model fitted on other features is refused). */
  readonly features: readonly string[];
  readonly weights: readonly number[];
  readonly bias: number;
  /** The probability a sentence after a source's first reason needs to be one too. */
  readonly tail: number;
  /** How it was fitted, said once for whoever reads the data. */
  readonly fitted?: string;
}

const SECTIONS = ['decision', 'context', 'consequence', 'alternative'] as const;
const KINDS: readonly DocKind[] = ['adr', 'rfc', 'design', 'postmortem', 'pr', 'issue', 'commit', 'readme', 'changelog'];

/** The features, in order: their names are the model's contract with the data. */
export const FEATURES: readonly string[] = [
  'hand',
  'handRel',
  'handRank',
  'explains',
  'tie',
  'self',
  'lent',
  'sectionTie',
  ...TIE_KINDS.map((k) => `tie:${k}`),
  ...Array.from({ length: CUE_COUNT }, (_, k) => `cue:${k}`),
  'numbers',
  'why',
  ...SECTIONS.map((s) => `section:${s}`),
  'question',
  'code',
  'words',
  'short',
  'long',
  'position',
  'first',
  'opensParagraph',
  'listed',
  'anaphor',
  'defines',
  'aboutOther',
  'constraint',
  'nameShare',
  'placeShare',
  'own',
  'focused',
  'aboutIt',
  'weaklyAbout',
  'threaded',
  'atLine',
  ...KINDS.map((k) => `kind:${k}`),
  'tier:exact',
  'tier:strong',
  'neighbour',
  'hops2',
  'candidates',
];

/** A sentence's features in its source (`ranked`: all of the source's sentences, scored by hand). */
export function sentenceFeatures(s: RankedSentence, ranked: readonly RankedSentence[], ctx: SourceContext): number[] {
  const sig = s.signals;
  const top = ranked[0]?.score ?? 0;
  const rank = ranked.indexOf(s);
  const words = new Set(stemmedWords(plain(s.text)));
  const share = (list: readonly string[]) => (list.length ? list.filter((w) => words.has(w)).length / list.length : 0);
  const f: number[] = [
    Math.log1p(s.score),
    top > 0 ? s.score / top : 0,
    1 / (1 + Math.max(0, rank)),
    s.explains,
    Math.min(s.tie, 3),
    Math.min(sig.self, 3),
    Math.min(sig.lent, 3),
    sig.sectionTie,
    ...TIE_KINDS.map((_, k) => (sig.tieKinds >> k) & 1),
    ...Array.from({ length: CUE_COUNT }, (_, k) => (sig.cues >> k) & 1),
    +sig.numbers,
    +!!s.why,
    ...SECTIONS.map((x) => +(s.section === x)),
    +/\?\s*$/.test(s.text),
    +sig.code,
    Math.log1p(sig.words) / 4,
    +(sig.words < 8),
    +(sig.words > 70),
    sig.of > 1 ? sig.index / (sig.of - 1) : 0,
    +(sig.index === 0),
    +sig.opensParagraph,
    +sig.listed,
    +sig.anaphor,
    +sig.defines,
    +!!s.aboutOther,
    +s.constraint,
    share(ctx.nameWords),
    share(ctx.placeWords),
    +ctx.own,
    +ctx.focused,
    +ctx.aboutIt,
    +ctx.weaklyAbout,
    +ctx.threaded,
    +ctx.atLine,
    ...KINDS.map((k) => +(ctx.kind === k && !ctx.own)),
    +(ctx.tier === 'exact'),
    +(ctx.tier === 'strong'),
    +(ctx.relation !== 'self'),
    +(ctx.hops === 2),
    Math.log1p(sig.of) / 5,
  ];
  return f;
}

function probability(model: SentenceModel, f: readonly number[]): number {
  let z = model.bias;
  for (let k = 0; k < f.length; k++) z += model.weights[k]! * f[k]!;
  return 1 / (1 + Math.exp(-z));
}

/** The model the finder uses: the fitted one, when it was fitted on these features. */
export function currentModel(): SentenceModel | undefined {
  return fits(SENTENCE_MODEL) ? SENTENCE_MODEL : undefined;
}

export function fits(model: SentenceModel | undefined): model is SentenceModel {
  return !!model && model.features.length === FEATURES.length && model.features.every((n, k) => n === FEATURES[k]) && model.weights.length === FEATURES.length;
}

/** The source's sentences scored by the model (score: the probability it is a reason), best first. */
export function rerank(ranked: readonly RankedSentence[], ctx: SourceContext, model: SentenceModel): RankedSentence[] {
  return ranked.map((s) => ({ ...s, score: probability(model, sentenceFeatures(s, ranked, ctx)) })).sort((a, b) => b.score - a.score || a.start - b.start);
}
