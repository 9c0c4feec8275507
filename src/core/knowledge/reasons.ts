import { rootOf, stem } from '../../shared/stem.js';
import { STOP_WORDS } from '../../shared/stopWords.js';
import { identifierWords } from '../linking/names.js';
import { plain, sentences } from './text.js';

/*
 * Reason finding: within one document, which sentences say *why* — ranked
 * by how much they explain (the section they sit in; causal and constraint
 * clauses; numbers with units; the reply that rejects an alternative) and by
 * how tightly they are tied to the symbol (its name as code and as prose,
 * its literal value, its file and folder, its neighbours). Front matter,
 * titles, status and date lines, code blocks, tables and link lists are
 * never candidates. Pure: the callers read the text and the ties.
 */

/** What ties a sentence to the symbol asked about. */
export interface Ties {
  /** Code forms, matched as whole words with their case: `RetryPolicy.MAX_ATTEMPTS`, `MAX_ATTEMPTS`. */
  readonly names: readonly string[];
  /** Prose forms as runs of `matchStem` words: [maximum, attempt], [retry, policy]. */
  readonly phrases: readonly (readonly string[])[];
  /** The literal value as written in prose: "3", "three", "90 seconds", "90-second". */
  readonly values: readonly string[];
  /** Its file's base name and stem, its folder. */
  readonly places: readonly string[];
  /** Names of its class, members, callers and what it uses: a weaker tie. */
  readonly neighbours: readonly string[];
  /** Names by which a document reaches it only weakly (a concept spanning it and others): a tie, weaker than its own name. */
  readonly weakNames?: readonly string[];
}

export type SectionKind = 'decision' | 'context' | 'consequence' | 'alternative' | 'other';

/** One candidate sentence of a document, with where it sits. */
export interface Candidate {
  readonly text: string;
  /** Character offsets in the document text. */
  readonly start: number;
  readonly end: number;
  readonly section: SectionKind;
  /** The heading it sits under, as written. */
  readonly heading?: string;
  /** Index of its paragraph (sentences of one paragraph share it). */
  readonly paragraph: number;
  /** For a list item: the index (in the candidate list) of the sentence that introduces the list ("…, with the following benefits:"). */
  readonly leadIn?: number;
  /** It is in an item of a list (each item is a paragraph of its own). */
  readonly item?: true;
  /** It sits in a section whose heading says it explains ("Why …", "Rationale", "Motivation"), or in one of its subsections. */
  readonly why?: boolean;
}

export interface RankedSentence extends Candidate {
  readonly score: number;
  /** How much it explains, whatever it is about. */
  readonly explains: number;
  /** How tightly it is tied to the symbol (0: not at all). */
  readonly tie: number;
  /** What tied it, for the answer: "names it", "its value 3", "its file". */
  readonly tiedBy?: string;
  /** It states a constraint with a number (a limit, an SLA, a window). */
  readonly constraint: boolean;
  /** It names other code (a code span that is not one of the symbol's names) and not the symbol: most likely about that code. */
  readonly aboutOther?: boolean;
  /** What the score was made of, kept for the fitted ranker (sentenceRanker.ts). */
  readonly signals: SentenceSignals;
}

/** The parts of a sentence's hand-set score, and what it is, before they are weighed. */
export interface SentenceSignals {
  /** Its own tie (not lent by its paragraph, its heading or its section). */
  readonly self: number;
  /** The tie lent by the sentences around it, its list's lead-in or its heading. */
  readonly lent: number;
  /** The tie its section gives it in a document about the symbol. */
  readonly sectionTie: number;
  /** The ways it is tied itself, one bit per TIE_KINDS entry. */
  readonly tieKinds: number;
  /** The explanation cues it holds, one bit per cue (CUE_COUNT of them). */
  readonly cues: number;
  readonly numbers: boolean;
  readonly words: number;
  readonly code: boolean;
  /** An item of a list of reasons, or a sentence after a warning. */
  readonly listed: boolean;
  /** It opens with a word pointing back ("This means …"). */
  readonly anaphor: boolean;
  /** It says what the symbol is, with its name as subject. */
  readonly defines: boolean;
  /** Its place among the document's candidates (0 the first) and how many there are. */
  readonly index: number;
  readonly of: number;
  /** The first candidate of its paragraph. */
  readonly opensParagraph: boolean;
}

// ---------------------------------------------------------------- document structure

const META_LINE = /^\s*(?:[-*+]\s*)?(?:\*\*|__)?(status|date|deciders?|authors?|technical story|supersedes|superseded[- ]by|tags?|owners?|reviewers?|created|updated|last[- ]updated|severity|date of incident|consulted|informed|approvers?|issue|jira|ticket|story|epic|pr|pull request|version|stage)(?:\*\*|__)?\s*:/i;
const RST_UNDERLINE = /^([=\-~^"'`#*+:.])\1{2,}\s*$/;
const RST_SKIP_DIRECTIVE = /^\s*\.\.\s+(code-block|code|sourcecode|literalinclude|image|figure|toctree|include|raw|csv-table|list-table|table|graphviz|mermaid|uml|contents)\s*::/i;
const SECTION_WORDS: readonly [SectionKind, RegExp][] = [
  ['alternative', /\b(alternatives?|considered options|options considered|rejected|options|pros and cons|other approaches|approaches considered)\b/i],
  ['consequence', /\b(consequences?|implications?|trade-?offs?|impact|results?|outcome of the decision|risks?|drawbacks?|positive|negative|neutral)\b/i],
  ['decision', /\b(decision|decided|resolution|proposal|proposed|solution|chosen|design|approach|specification|recommendation|what we do)\b/i],
  ['context', /\b(context|background|problem|motivation|rationale|why|summary|overview|abstract|root cause|introduction|goals?|requirements?)\b/i],
];
const LINK_SECTION = /^(references?|links?|see also|related( documents| work| issues| decisions)?|further reading|resources|sources|more information|appendix)$/i;
const META_SECTION = /^(status|date|change ?log|history|revisions?|authors?|deciders?|metadata|timeline|action items|attendees|licen[cs]es?|licen[cs]ing|copyright|legal|notices?)$/i;

const WHY_HEADING = /^(?:why\b|rationale\b|motivation\b|reasons?\b|reasoning\b)/i;

function sectionKind(heading: string): SectionKind {
  const h = heading.replace(/[#*_`:]/g, ' ').trim();
  for (const [kind, re] of SECTION_WORDS) if (re.test(h)) return kind;
  return 'other';
}

/** A markdown link reference definition (`[gw_api]: https://gateway-api.sigs.k8s.io "Gateway API"`): where a link goes, not prose. */
const LINK_DEFINITION = /^\[[^\]]+\]:\s*(?:<[^>]*>|\S+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?$/;

/** A line that is only links (a reference bullet, a URL, a link reference definition). */
function isLinkLine(line: string): boolean {
  const t = line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
  if (!t) return false;
  if (LINK_DEFINITION.test(t)) return true;
  const rest = t
    .replace(/!?\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]\[[^\]]*\]/g, '')
    .replace(/`[^`]*<[^>]+>`_+/g, '')
    .replace(/<?https?:\/\/\S+>?/g, '')
    .replace(/[\s,;:.–—()\-|]+/g, '');
  return rest.length < 4 && t.length > 0;
}

/**
 * The sentences of a text that may be quoted: its prose (front matter, headings, metadata lines, code and link
 * lists are never the quote), or, for a text with no prose (a code listing), its sentences that are not headings.
 */
export function quotableSentences(text: string): { readonly text: string; readonly start: number }[] {
  const prose = candidates(text).filter((s) => plain(s.text).length > 12);
  return prose.length ? prose : sentences(text).filter((s) => plain(s.text).length > 12 && !/^#{1,6}\s/.test(s.text));
}

/**
 * The prose sentences of a document, each with its section; everything that
 * is not prose (front matter, headings, metadata lines, code, tables, link
 * lists) left out. Markdown and reStructuredText.
 */
export function candidates(text: string): Candidate[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 1;
  }
  const keep = new Uint8Array(lines.length);
  const headingAt = new Map<number, string>();
  // Heading levels: markdown by its #s, reStructuredText by the order its underline characters first appear.
  const levelAt = new Map<number, number>();
  const rstLevels: string[] = [];
  let i = 0;
  // Front matter.
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, k) => k > 0 && /^(---|\.\.\.)\s*$/.test(l));
    if (end > 0) i = end + 1;
  }
  let fence: string | undefined;
  let indentedCodeFrom = -1;
  let section = 'other';
  let skipSection = false;
  // An HTML comment over several lines (a license header, often drawn with `~~~`): not prose, and what it draws is no code fence.
  let comment = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (comment) {
      if (line.includes('-->')) comment = false;
      continue;
    }
    if (!fence && /^\s*<!--/.test(line) && !line.includes('-->')) {
      comment = true;
      continue;
    }
    if (fence) {
      if (trimmed.startsWith(fence)) fence = undefined;
      continue;
    }
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      fence = f[1]!;
      continue;
    }
    // reStructuredText literal blocks: after "::" or a code directive, the indented lines are code.
    if (indentedCodeFrom >= 0) {
      if (!trimmed || /^\s/.test(line)) continue;
      indentedCodeFrom = -1;
    }
    if (RST_SKIP_DIRECTIVE.test(line) || /^::\s*$/.test(trimmed)) {
      indentedCodeFrom = i;
      continue;
    }
    if (/^\.\.\s/.test(trimmed)) {
      // Other directives (note, warning) hold prose in their indented body; comments and link targets do not.
      if (!/^\.\.\s+(note|warning|important|tip|hint|attention|caution|admonition|seealso)\s*::/i.test(trimmed)) continue;
    }
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const next = lines[i + 1];
    // A run of backticks or tildes under a line is a Markdown code fence unless it is as long as the line, as reStructuredText wants its underlines.
    const underline = next?.trim() ?? '';
    const rstHeading = next !== undefined && trimmed && !RST_UNDERLINE.test(line) && RST_UNDERLINE.test(next) && underline.length >= (/^[`~]/.test(underline) ? trimmed.length : Math.min(3, trimmed.length));
    if (h || rstHeading) {
      section = h ? h[2]! : trimmed;
      headingAt.set(i, section);
      if (h) levelAt.set(i, h[1]!.length);
      else {
        const ch = next!.trim()[0]!;
        if (!rstLevels.includes(ch)) rstLevels.push(ch);
        levelAt.set(i, rstLevels.indexOf(ch) + 1);
      }
      skipSection = LINK_SECTION.test(section.replace(/[*_`]/g, '').trim()) || META_SECTION.test(section.replace(/[*_`]/g, '').trim());
      if (rstHeading) i++;
      continue;
    }
    if (RST_UNDERLINE.test(line)) continue;
    if (skipSection) continue;
    if (!trimmed) continue;
    if (/^\s*\|/.test(line) || /^\s*[+][-=+]+[+]\s*$/.test(line)) continue;
    if (/^\s*<!--/.test(line) || /^\s*<\/?[a-z][^>]*>\s*$/i.test(line)) continue;
    if (META_LINE.test(line)) continue;
    // A thread's comment headers ("--- review comment by @x on path:6, 2024-03-19 ---") are metadata.
    if (/^---\s.*\s---\s*$/.test(trimmed)) continue;
    if (isLinkLine(line)) continue;
    // Markdown indented code (four spaces after a blank line, not a list continuation).
    if (/^( {4}|\t)/.test(line) && !lines[i - 1]?.trim() && !/^\s*([-*+]|\d+[.)])\s/.test(line.trim()) && lines.slice(Math.max(0, i - 3), i).every((l) => !/^\s*([-*+]|\d+[.)])\s/.test(l))) {
      if (/[;{}()=]\s*$|^\s+(def|class|func|import|return|public|private|const|let|var)\b/.test(line)) continue;
    }
    if (/::\s*$/.test(trimmed) && !/^\.\./.test(trimmed)) indentedCodeFrom = i;
    keep[i] = 1;
  }
  // Paragraphs of kept lines, then their sentences.
  const out: Candidate[] = [];
  let paragraph = 0;
  let leadIn: number | undefined;
  let heading: string | undefined;
  let kind: SectionKind = 'other';
  // A subsection without a telling heading ("### Delete state entry if amount is zero" under "## Decision") is part of its parent's section.
  const open: { level: number; kind: SectionKind; why: boolean }[] = [];
  let why = false;
  for (let k = 0; k < lines.length; ) {
    if (headingAt.has(k)) {
      leadIn = undefined;
      heading = headingAt.get(k);
      const level = levelAt.get(k) ?? 1;
      while (open.length && open[open.length - 1]!.level >= level) open.pop();
      const own = sectionKind(heading!);
      kind = own !== 'other' ? own : (open[open.length - 1]?.kind ?? 'other');
      // A section that says it explains ("Why a stateful resource might be deleted", "Rationale"), and its subsections.
      why = WHY_HEADING.test(heading!.replace(/[#*_`]/g, '').trim()) || (open[open.length - 1]?.why ?? false);
      open.push({ level, kind, why });
    }
    if (!keep[k]) {
      k++;
      continue;
    }
    let e = k;
    while (e + 1 < lines.length && keep[e + 1] && !headingAt.has(e + 1) && !/^\s*([-*+]|\d+[.)])\s/.test(lines[e + 1]!)) e++;
    const start = starts[k]!;
    const end = starts[e]! + lines[e]!.length;
    const body = text.slice(start, end);
    paragraph++;
    const isItem = /^\s*([-*+]|\d+[.)])\s/.test(lines[k]!);
    // A list belongs to the sentence that introduces it ("…, with the following benefits:") until a paragraph that is not an item, or a heading.
    if (!isItem) leadIn = undefined;
    for (const s of sentences(body, start)) {
      const t = plain(s.text);
      const words = t.split(/\s+/).filter(Boolean).length;
      if (words < 5 || t.length < 25) continue;
      // A line that is mostly code (an expression, a signature) is not a sentence.
      if (/^[`'"]?[\w.$]+\(.*\)[`'"]?;?$/.test(t) || /[{};]\s*$/.test(t) && !/[.!?]/.test(t.slice(0, -1))) continue;
      out.push({ text: s.text, start: s.start, end: s.end, section: kind, ...(heading ? { heading } : {}), paragraph, ...(isItem ? { item: true as const } : {}), ...(isItem && leadIn !== undefined ? { leadIn } : {}), ...(why ? { why: true } : {}) });
    }
    if (!isItem && /:\s*$/.test(body) && out.length && out[out.length - 1]!.paragraph === paragraph) leadIn = out.length - 1;
    k = e + 1;
  }
  return out;
}

// ---------------------------------------------------------------- explanation

interface Cue {
  readonly re: RegExp;
  readonly weight: number;
  readonly constraint?: boolean;
}

const CUES: readonly Cue[] = [
  { re: /\bbecause\b|\bsince (?:the|a|an|we|it|they|there|our|this|that|each|every)\b|,\s*since\b|\bdue to\b|\bas a result\b|\bcaused\b|\bthe reason\b|\bwhich is why\b|\bthat is why\b|\bthis is why\b|\bso that\b|\bin order to\b|\bsuch that\b/i, weight: 1.2 },
  { re: /\bto (?:avoid|prevent|ensure|guarantee|keep|allow|enable|support|reduce|limit|make sure|protect|preserve|stay|account for|accommodate|handle|cover|compensate)\b/i, weight: 0.8 },
  { re: /\botherwise\b(?![\s.,;:!)-]*$)|\b(?:would|will) (?:break|fail|cause|lead|mean|result|require|no longer)\b|\bwould be\b|\bleads? to\b|\bresults? in\b|\bwhich means\b|\bthis means\b|\bthat means\b|\btherefore\b|\bthus\b|\bin this way\b|\bthat way\b|\bhence\b|\bconsequently\b|, so\b|; so\b/i, weight: 0.9 },
  { re: /\bwe (?:decided|chose|choose|decide|will|use|allow|adopt|keep|opted|prefer|agreed|settled|went with|introduce|add|store|do not|don't|never|always|need|want|must|should|can)\b|\bdecided to\b|\bchose to\b|\bopted (?:for|to)\b|\bis (?:chosen|preferred|used) (?:because|for|to|as)\b/i, weight: 0.9 },
  { re: /\binstead of\b|\brather than\b|\bwhy not\b|\bwe considered\b|\bwas rejected\b|\brejected\b|\bnot chosen\b|\btrade-?off\b|\bdownside\b|\bdrawback\b|\bdisadvantage\b|\badvantage\b|\bbenefit\b|\bthe cost of\b|\bat the cost\b|\bin favou?r of\b|\bover the alternative\b|\btoo (?:slow|short|long|small|large|big|many|few|expensive|complex|risky)\b/i, weight: 0.9 },
  { re: /\bmust(?: not)?\b|\bshall\b|\bnever\b|\balways\b|\bat most\b|\bat least\b|\bno more than\b|\bno later than\b|\bno longer than\b|\bup to\b|\bwithin\b|\blimit(?:s|ed)?\b|\bmaximum\b|\bminimum\b|\bceiling\b|\bthreshold\b|\bdeadline\b|\bSLA\b|\bSLO\b|\bquota\b|\brequire[sd]?\b|\brequirement\b|\bguarantee[sd]?\b|\bcannot\b|\bcan't\b|\bcan not\b|\bnot allowed\b|\bforbidden\b|\bmandatory\b/i, weight: 0.7, constraint: true },
  // A condition and what follows from it: "If you implement a singleton pattern, you get some weird exceptions", "If this changes, …".
  { re: /^(?:but |and |so )?(?:if|when|once|unless)\b[^,;]{3,120},\s*(?:then\s+)?(?:you|we|it|this|that|they|there|the|a|an|every|each|all|nothing|no)\b[^,;]*?\b(?:get|gets|got|will|would|may|might|can|could|must|cannot|can't|won't|is|are|becomes?|fails?|breaks?|stops?|loses?)\b/i, weight: 0.7 },
  // A purpose stated as such: "for de-duplication purposes", "the purpose of", "is used to be able to store …".
  // Not "for the purposes of this ADR", "for purposes of …": that scopes a statement, it states no purpose.
  { re: /\b(?:is|are) (?:responsible|meant|designed|intended) (?:for|to)\b|\bfor (?!the\b)(?:[\w-]+ ){1,2}purposes?\b(?! of\b)|\bthe purpose (?:of (?:this|these|it|that)\b|is)\b|\b(?:is|are) used (?:to|for|so)\b|\bto be able to\b/i, weight: 0.9 },
  { re: /\bchosen option\b|\bdecision outcome\b|\bwe (?:went|go) with\b| so (?:that|there|it|we|the|no|nothing)\b/i, weight: 0.9 },
  { re: /\bas long as\b|\bwithout (?:having|needing) to\b|\bno need to\b|\bmakes? it (?:easier|possible|harder|simpler)\b|\beasier\b|\bsimpler\b|\bharder\b|\bawkward\b|\bambigu\w*\b|\berror-prone\b|\bconfus\w*\b|\bbrittle\b|\bfragile\b|\bflexib\w*\b|\bbackwards? compatib\w*\b|\bconcerns?\b|\bavoid(?:s|ed|ing)?\b|\bprevents?\b|\bensures?\b/i, weight: 0.6 },
  // A problem the design answers, said as what went or would go wrong ("causing the restore to be stuck indefinitely", "it also led to coupling", "vulnerable to", "there is no point in"): the Context of a decision is its reason.
  { re: /\bcaus(?:e|es|ing)\b|\bled to\b|\b(?:this|that|which) meant\b|\bmeaning (?:that|there|it|the|we)\b|\bvulnerable\b|\bunsafe\b|\binsecure\b|\bno point\b|\bpointless\b|\bstuck\b|\bindefinitely\b|\bsilently\b|\bcoupl(?:ed|ing)\b|\boverload\w*|\btoo much\b|\bslow(?:er|ly|s)?\b|\bcomplexity\b|\bexpensive\b|\bcostly\b|\bbottleneck\w*|\breject(?:s|ing)?\b|\babandons?\b|\bno (?:suitable|good) (?:way|opportunity|place)\b|\bunnecessar\w*|\bwasteful\b|\bredundant\b|\bwork-?arounds?\b|\bworks? around\b|\binefficien\w*|\binconsisten\w*|\bcollisions?\b|\breasonable\b/i, weight: 0.6 },
  { re: /\bhowever\b|\bnot (?:useful|suitable|possible|enough|sufficient|feasible|practical|scalable|ideal)\b|\bdo(?:es)?(?:n't| not) (?:work|scale)\b|\bimportant\b|\bcritical\b|\bcrucial\b|\bessential\b|\bnecessary\b|\bneeds? to\b|\bhas to\b|\bhave to\b|\bshould(?: not)?\b|\bproblem\b|\bissue\b|\bbug\b|\bfail(?:s|ed|ure)?\b|\bbreak(?:s|ing)?\b|\bbroke\b|\bduplicat\w*\b|\brace\b|\bdeadlock\b|\bleak\b|\bsecurity\b|\bperformance\b|\bcompatib\w*\b|\bconsisten\w*\b|\bsafe(?:ty|ly)?\b/i, weight: 0.5 },
];

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const UNIT = String.raw`(?:ms|milliseconds?|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|%|percent|kb|mb|gb|tb|kib|mib|gib|bytes?|bits?|attempts?|retries|tries|times|requests?|calls?|connections?|threads?|workers?|items?|entries|records?|rows?|characters?|chars|lines?|pages?|events?|messages?|blocks?|heights?|fields?|levels?|users?|instructions?)`;
const NUMBER_WITH_UNIT = new RegExp(String.raw`(?:\b\d[\d,._]*(?:\.\d+)?|\b(?:${[...NUMBER_WORDS.slice(1), ...TENS.filter(Boolean), 'hundred', 'thousand'].join('|')}))(?:[\s-]+)${UNIT}\b|\b\d+(?:\.\d+)?(?:ms|s|m|h|d|%|kb|mb|gb)\b`, 'i');

/** The cues that say why (a cause, a purpose, a consequence, a decision, an alternative, a condition), not merely a limit or a concern. */
const CAUSAL_CUES = CUES.filter((c) => c.weight >= 0.7 && !c.constraint);

/**
 * A code comment that only says what the symbol is ("MaxDenoms corresponds
 * to the maximum number of denoms a chain can allowlist", "Foo returns the
 * bar"): its subject is the symbol's name and it has no clause that says
 * why — no cause, purpose, consequence, decision or alternative, and no
 * limit stated with its number ("at most 3", "90 seconds"). The comment
 * names the symbol; it gives no reason for it.
 */
export function onlyDescribes(sentence: string, names: readonly string[]): boolean {
  const t = plain(sentence).replace(/^[`'"*]+/, '');
  if (!names.some((n) => n && t.startsWith(n) && !/[\w$]/.test(t.charAt(n.length)))) return false;
  const claim = t.replace(/\([^()]*\)/g, ' ');
  if (CAUSAL_CUES.some((c) => c.re.test(claim))) return false;
  if (isWarning(t)) return false;
  const limit = CUES.some((c) => c.constraint && c.re.test(claim)) && /\d/.test(claim);
  return !limit && !NUMBER_WITH_UNIT.test(claim);
}

/** Whether a text states a number with its unit ("240 seconds", "15-minute", "three attempts"). */
export function hasNumberWithUnit(text: string): boolean {
  return NUMBER_WITH_UNIT.test(plain(text));
}

function explanation(c: Candidate, threaded: boolean): { explains: number; constraint: boolean; cues: number; cueFlags: number; numbers: boolean; words: number; code: boolean } {
  // An aside in parentheses ("(at least)", "(see ADR-3)") is not the sentence's claim.
  const t = plain(c.text).replace(/\([^()]*\)/g, ' ');
  let cues = 0;
  let cueFlags = 0;
  let constraint = false;
  CUES.forEach((cue, k) => {
    if (cue.re.test(t)) {
      cues += cue.weight;
      cueFlags |= 1 << k;
      if (cue.constraint) constraint = true;
    }
  });
  const numbers = NUMBER_WITH_UNIT.test(t);
  if (numbers) cues += 0.6;
  if (c.why) cues += 0.6;
  const sectionWeight = threaded ? 0.8 : { decision: 1, context: 0.85, consequence: 0.8, alternative: 0.7, other: 0.55 }[c.section];
  let explains = (0.25 + Math.min(cues, 2.6)) * sectionWeight;
  // A question is not its own answer ("Why not two?"); the reply is.
  if (/\?\s*$/.test(t)) explains *= 0.35;
  const words = t.split(/\s+/).length;
  // A sentence that is mostly code (a config literal, an expression) explains little in words.
  // Code spans that are names (`RetryPolicy.MAX_ATTEMPTS`) are words here; literals and expressions are not.
  const code = (c.text.match(/``?[^`]+``?/g) ?? []).filter((m) => !/^``?[\w$.#:/()-]+``?$/.test(m)).reduce((n, m) => n + m.length, 0);
  if (code > c.text.length * 0.4) explains *= 0.5;
  if (words > 70) explains *= 0.7;
  if (words < 8) explains *= 0.7;
  return { explains, constraint: constraint && numbers, cues, cueFlags, numbers, words, code: code > c.text.length * 0.4 };
}

/** How many cues there are: a sentence's cue flags hold one bit per cue, in this order. */
export const CUE_COUNT = CUES.length;

// ---------------------------------------------------------------- ties

/** Text as a regular expression that matches it literally. */
export function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Words code abbreviates and prose spells out, as stems: both sides of a
 * comparison take the long form, so `StoredMonHostEnvVars` meets "a container
 * environment variable" and "the max size" meets `MAXIMUM_SIZE`. Only
 * abbreviations with one reading (not `auth`, `init`, `sec`, `doc`).
 */
const SPELLED_OUT: ReadonlyMap<string, string> = new Map(
  Object.entries({
    addr: 'address', app: 'application', arg: 'argument', attr: 'attribute', avg: 'average', cert: 'certificate', cfg: 'configuration',
    cmd: 'command', cnt: 'count', conf: 'configuration', config: 'configuration', conn: 'connection', ctx: 'context', db: 'database',
    desc: 'description', dest: 'destination', dir: 'directory', dst: 'destination', elem: 'element', env: 'environment', err: 'error',
    expr: 'expression', fn: 'function', fns: 'function', func: 'function', idx: 'index', img: 'image', impl: 'implementation',
    info: 'information', len: 'length', lib: 'library', max: 'maximum', mgr: 'manager', min: 'minimum', msg: 'message', num: 'number',
    obj: 'object', opt: 'option', param: 'parameter', perf: 'performance', pkg: 'package', prev: 'previous', prop: 'property', ptr: 'pointer',
    ref: 'reference', repo: 'repository', req: 'request', resp: 'response', seq: 'sequence', spec: 'specification', src: 'source',
    stat: 'statistic', str: 'string', svc: 'service', sys: 'system', tmp: 'temporary', tx: 'transaction', txs: 'transaction', util: 'utility',
    val: 'value', var: 'variable',
  }),
);

/** A word as the finder compares it: stemmed, and spelled out when code abbreviates it (`vars` → variable). */
export function matchStem(word: string): string {
  const s = stem(word.toLowerCase());
  return SPELLED_OUT.get(s) ?? s;
}

/** The words of a text as the finder compares them (`matchStem`), in order. */
export function stemmedWords(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).map(matchStem);
}

/** Words that say a title is a record's ("RFC", "Proposal", "Design doc"), not what it is about. */
const RECORD_WORDS = new Set(['adr', 'rfc', 'proposal', 'design', 'doc', 'document', 'record', 'decision', 'draft', 'enhancement', 'one', 'pager']);

/** What a title is about, in its words: less stop words, numbers and the words that say it is a record. */
export function topicWords(title: string): string[] {
  return (title.toLowerCase().match(/\p{L}[\p{L}\p{N}]*/gu) ?? []).filter((w) => w.length >= 2 && !STOP_WORDS.has(w) && !RECORD_WORDS.has(w));
}

/** The roots of a text's words (`rootOf`), in order: how a commit's subject and a record's title are compared. */
export function rootWords(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}[\p{L}\p{N}]*/gu) ?? []).map(rootOf);
}

/**
 * Whether a commit's subject, as its roots, says what a record's title is about, as the roots of its topic words:
 * every one of them (two at least), in order, in any of its forms (`sharding` for "shard", `partitioning` for
 * "partition"). Both sides rooted by the caller, once for all the pairs it compares.
 */
export function saysTitle(subject: readonly string[], title: readonly string[]): boolean {
  if (title.length < 2) return false;
  let k = 0;
  for (const w of subject) if (w === title[k] && ++k === title.length) return true;
  return false;
}

/** `saysTitle` of the texts themselves. */
export function subjectSaysTitle(subject: string, title: string): boolean {
  return saysTitle(rootWords(subject), topicWords(title).map(rootOf));
}

/** Whether the stemmed words hold the run, in order, side by side. */
export function containsRun(words: readonly string[], run: readonly string[]): boolean {
  if (!run.length || run.length > words.length) return false;
  outer: for (let i = 0; i + run.length <= words.length; i++) {
    for (let k = 0; k < run.length; k++) if (words[i + k] !== run[k]) continue outer;
    return true;
  }
  return false;
}

const OF_DETERMINERS = new Set(['the', 'all', 'a', 'an', 'each', 'every', 'its', 'their', 'this', 'these', 'those', 'ani', 'any', 'our', 'that']);

/** A two-word name said the other way round with "of": [toggl, state] in "the state of all toggles". Stemmed words. */
export function containsInverted(words: readonly string[], run: readonly string[]): boolean {
  if (run.length !== 2) return false;
  const [a, b] = run as [string, string];
  for (let i = 0; i + 2 < words.length; i++) {
    if (words[i] !== b || words[i + 1] !== 'of') continue;
    let k = i + 2;
    while (k < words.length && k < i + 4 && OF_DETERMINERS.has(words[k]!)) k++;
    if (words[k] === a) return true;
  }
  return false;
}

/** How much naming the symbol ties a sentence to it. */
const NAME_TIE = 2.5;

/** Which ways a sentence is tied to the symbol, one bit each (a sentence may be tied several ways). */
export const TIE_KINDS = ['name', 'nameAnyCase', 'weakName', 'phrase', 'partial', 'inverted', 'value', 'place', 'neighbour'] as const;
export type TieKind = (typeof TIE_KINDS)[number];
/** The bit of a sentence that writes the symbol's own name. */
export const NAME_BIT = 1 << TIE_KINDS.indexOf('name');

export interface TieMatcher {
  (text: string): { tie: number; tiedBy?: string; kinds?: number };
}

/** A matcher for one symbol's ties; built once per question, applied to every sentence. */
export function tieMatcher(ties: Ties): TieMatcher {
  const names = ties.names.filter((n) => n.length >= 3).map((n) => ({ n, re: new RegExp(`(?<![\\w$.])${escape(n)}(?![\\w$])`) }));
  // The name with other letter case (`GuEC2App` for GuEc2App): a code-shaped name of six or more characters only, and a little weaker than the name as written.
  const namesAnyCase = names.filter(({ n }) => n.length >= 6 && (/[A-Z]/.test(n.slice(1)) || /_/.test(n))).map(({ n }) => ({ n, re: new RegExp(`(?<![\\w$.])${escape(n)}(?![\\w$])`, 'i') }));
  const values = ties.values.map((v) => ({ v, re: new RegExp(`(?<![\\w.])${escape(v)}(?![\\w]|\\.\\d)`, 'i') }));
  const places = ties.places.filter((p) => p.length >= 3).map((p) => ({ p, re: new RegExp(`(?<![\\w])${escape(p)}(?![\\w])`) }));
  const weakNames = (ties.weakNames ?? []).filter((n) => n.length >= 3).map((n) => ({ n, re: new RegExp(`(?<![\\w$.])${escape(n)}(?![\\w$])`) }));
  const neighbours = ties.neighbours.filter((n) => n.length >= 4).map((n) => ({ n, re: new RegExp(`(?<![\\w$])${escape(n)}(?![\\w$])`) }));
  // Part of a long name written as prose ("the cached http client" for getAuthenticatedHttpClient): two or more of its words in a row, not its verb.
  const partial: string[][] = [];
  for (const p of ties.phrases) {
    const body = /^(get|set|is|has|creat|make|build|load|do|handl|on|to|with|new)$/.test(p[0] ?? '') ? p.slice(1) : p;
    for (let len = Math.min(body.length - 1, 3); len >= 2; len--) for (let i = 0; i + len <= body.length; i++) partial.push(body.slice(i, i + len));
  }
  return (text) => {
    let tie = 0;
    let tiedBy: string | undefined;
    let kinds = 0;
    const hit = (kind: TieKind, w: number, why: string) => {
      if (w > tie) tiedBy = why;
      tie = Math.max(tie, w) + Math.min(w, tie) * 0.25;
      kinds |= 1 << TIE_KINDS.indexOf(kind);
    };
    let named = false;
    for (const { n, re } of names) if (re.test(text)) { hit('name', n.includes('.') || n.includes('#') ? 3 : NAME_TIE, `names ${n}`); named = true; break; }
    if (!named) for (const { n, re } of namesAnyCase) if (re.test(text)) { hit('nameAnyCase', 2, `names ${n} (in other letter case)`); break; }
    const words = stemmedWords(text);
    if (!named) for (const { n, re } of weakNames) if (re.test(text)) { hit('weakName', 1.0, `names ${n}, which reaches it weakly`); break; }
    for (const p of ties.phrases) if (containsRun(words, p)) { hit('phrase', p.length > 1 ? 1.6 : 0.8, `names it as "${p.join(' ')}"`); break; }
    for (const p of partial) if (containsRun(words, p)) { hit('partial', 0.7, `names part of it: "${p.join(' ')}"`); break; }
    for (const p of [...ties.phrases, ...partial]) if (p.length === 2 && containsInverted(words, p)) { hit('inverted', 0.7, `names it the other way round: "${p[1]} of ${p[0]}"`); break; }
    for (const { v, re } of values) if (re.test(text)) { hit('value', 1.4, `states its value ${v}`); break; }
    for (const { p, re } of places) if (re.test(text)) { hit('place', 0.5, `names its file ${p}`); break; }
    for (const { n, re } of neighbours) if (re.test(text)) { hit('neighbour', 0.35, `names ${n}`); break; }
    return { tie, ...(tiedBy ? { tiedBy } : {}), kinds };
  };
}

// ---------------------------------------------------------------- ranking

export interface RankOptions {
  /** A thread or a commit: no sections; every comment is prose. */
  readonly threaded?: boolean;
  /** The document as a whole is about the symbol (it names it in its title, or it is the symbol's own docstring or commit): untied sentences count. */
  readonly focused?: boolean;
  /** The symbol's own comment (its doc comment, a comment inside its body): its sentences are about it, more surely than a document that names it in its title. */
  readonly own?: boolean;
  /** The decision record reaches the symbol only weakly (a concept spanning it and others): its Decision and Context sentences are about it a little. */
  readonly weaklyAbout?: boolean;
  /** The document names the symbol itself: its Decision sentences are about it, its Context a little. */
  readonly aboutIt?: boolean;
  /** The symbol's names as code: a sentence with one of them as its subject that says what it is ("`X` is an artificial entity") answers for it. */
  readonly names?: readonly string[];
  /** Links to a line of the symbol's code, as written (`…/author.ts#L9`): the sentence holding one names it, though its prose shows only the link's text. */
  readonly links?: readonly string[];
}

/** A lead-in that introduces reasons: "with the following benefits:", "for these reasons:", "because:". */
export const REASON_LIST = /\b(?:benefits?|advantages?|reasons?|motivations?|rationale|because|so that|in order to|why|pros|goals?|drivers?)\b[^:]*:\s*$/i;

/** "X is a …", "X are …", "X exists to …": a sentence that says what its subject is. */
const DEFINES = /^[`'"*]*[\w$.#]+[`'"*]*\s+(?:is|are|exists|serves)\s+(?:an?|the|used|meant|there|to|only|just|not)\b/;

/** A sentence whose subject points back to the one before it: "This method …", "These are …", "It is …", "In this way, …". */
const ANAPHOR = /^(?:(?:this|these|those|such)(?:\s+[\p{L}-]+)?\s+(?:is|are|was|were|will|would|can|cannot|must|should|has|have|makes?|means?|allows?|ensures?|lets?|gives?|keeps?|avoids?|prevents?)\b|(?:it|they)\s+(?:is|are|was|were|will|would|can|cannot|must|should|has|have|makes?|means?|allows?|ensures?|lets?|gives?|keeps?|avoids?|prevents?)\b|in this way\b|this way\b|that way\b)/iu;

/** A warning: a sentence in capitals ending in "!" ("DON'T JUST MODIFY THIS!!!"), or one opened by "Warning:", "Important:", "Caution:", "Do not …!". */
export function isWarning(sentence: string): boolean {
  const letters = sentence.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 8 && letters === letters.toUpperCase() && /!\s*$/.test(sentence)) return true;
  return /^(?:warning|important|caution|danger)\s*[:!]|^(?:do not|don't|never)\b.*!\s*$/i.test(sentence);
}

/** Every candidate sentence scored: explanation × (how tied it is, itself or through its paragraph and neighbours). Best first. */
export function rankSentences(list: readonly Candidate[], match: TieMatcher, options: RankOptions = {}): RankedSentence[] {
  const names = options.names ?? [];
  const links = options.links ?? [];
  const own = list.map((c) => {
    const tied = match(plain(c.text));
    const link = links.find((l) => c.text.includes(l));
    return link && tied.tie < NAME_TIE ? { tie: NAME_TIE, tiedBy: 'links to its line', kinds: (tied.kinds ?? 0) | NAME_BIT } : tied;
  });
  // A document is about the symbol only if its prose names it; a name inside a code block alone does not make its decision the symbol's.
  const aboutIt = !!options.aboutIt && own.some((o) => o.tie >= 1.4);
  const headingTies = new Map<string, number>();
  const out: RankedSentence[] = list.map((c, i) => {
    const { explains: own0, constraint, cues, cueFlags, numbers, words, code } = explanation(c, !!options.threaded);
    // The items of a list of reasons ("the following benefits:", "because:") are reasons, whatever their own wording.
    const listed = c.leadIn !== undefined && REASON_LIST.test(plain(list[c.leadIn]!.text));
    // The sentences after a warning in its paragraph ("DON'T JUST MODIFY THIS HASH BEHAVIOR!!! We use hashing for de-duplication purposes.") say why it warns.
    const warned = list.slice(Math.max(0, i - 2), i).some((w) => w.paragraph === c.paragraph && isWarning(plain(w.text)));
    const explains = listed || warned ? own0 + 0.6 * { decision: 1, context: 0.85, consequence: 0.8, alternative: 0.7, other: 0.55 }[c.section] : own0;
    const self = own[i]!;
    // A reason often follows the sentence that names the thing ("We allow at most three … `MAX_ATTEMPTS = 3`. Three attempts take …"): its paragraph and the next sentences lend it a share of their tie.
    let lent = 0;
    // A sentence that opens with a word pointing back ("These methods are responsible for …", "It is used to …", "In this way, …") is about what the sentences just before it name.
    const anaphor = ANAPHOR.test(plain(c.text));
    for (let k = Math.max(0, i - (anaphor ? 3 : 2)); k <= Math.min(list.length - 1, i + 1); k++) {
      if (k === i) continue;
      // The item before it in a list is another item (another change, option or consequence), not what this one is about.
      const sibling = c.item && list[k]!.item && list[k]!.paragraph !== c.paragraph;
      const share = anaphor && k < i && list[k]!.section === c.section ? 0.85 : list[k]!.paragraph === c.paragraph ? 0.55 : k < i && list[k]!.section === c.section && !sibling ? 0.3 : 0;
      lent = Math.max(lent, own[k]!.tie * share);
    }
    // An item of a list its lead-in introduces ("SettingToggle will allow …, with the following benefits:") is about what the lead-in names.
    const lead = c.leadIn !== undefined ? own[c.leadIn] : undefined;
    if (lead) lent = Math.max(lent, lead.tie * 0.6);
    // The heading it sits under names the symbol ("Changes to a resource's Logical ID"): its sentences are about it.
    if (c.heading) {
      let h = headingTies.get(c.heading);
      if (h === undefined) headingTies.set(c.heading, (h = match(plain(c.heading)).tie));
      lent = Math.max(lent, h * 0.5);
    }
    const sectionTie = aboutIt ? (c.section === 'decision' ? 0.6 : c.section === 'context' || c.section === 'consequence' ? 0.35 : 0) : options.weaklyAbout ? (c.section === 'decision' ? 0.15 : c.section === 'context' || c.section === 'consequence' ? 0.1 : 0) : 0;
    const tie = Math.max(self.tie, lent, sectionTie);
    const base = options.own ? 0.9 : options.focused ? 0.6 : 0.12;
    // A sentence of a Decision or Consequences section that names the symbol is the decision about it, whatever its wording.
    // Not a short mention with no clause of its own ("For example, `GuEC2App` and `GuLambdaApp` patterns."): that names it, and says nothing about it.
    const statement = cues > 0 || plain(c.text).split(/\s+/).length >= 9;
    // A sentence that says what the symbol is, with its name as the subject ("`GenericImportId` is an artificial entity."), answers for it.
    const defines = self.tie >= 2.5 && DEFINES.test(plain(c.text)) && names.some((n) => plain(c.text).replace(/^[`'"*]+/, '').startsWith(n));
    const decided = ((c.section === 'decision' || c.section === 'consequence') && self.tie >= 1.4 && statement) || defines ? explains + 0.5 : explains;
    const score = decided * (base + tie);
    const spans = [...c.text.matchAll(/`+([A-Za-z_$][\w$.#:]*)(?:\(\))?`+/g)].map((m) => m[1]!);
    const aboutOther = self.tie < 1 && spans.some((x) => !names.some((n) => n === x || n.endsWith(`.${x}`) || x.endsWith(`.${n}`)));
    const signals: SentenceSignals = { self: self.tie, lent, sectionTie, tieKinds: self.kinds ?? 0, cues: cueFlags, numbers, words, code, listed: listed || warned, anaphor, defines, index: i, of: list.length, opensParagraph: i === 0 || list[i - 1]!.paragraph !== c.paragraph };
    return { ...c, score, explains: decided, tie, ...(aboutOther ? { aboutOther } : {}), ...(self.tiedBy ? { tiedBy: self.tiedBy } : lent > 0 ? { tiedBy: 'next to a sentence that names it' } : {}), constraint, signals };
  });
  return out.sort((a, b) => b.score - a.score || a.start - b.start);
}

/** How much of a sentence's tie to the symbol counts after the first sentence of a source. */
const TAIL_TIE = 1.5;

/** The best sentences, best first: the top, and those close behind it that explain something (a sentence that explains little is passed over, not the end of the list). */
export function bestSentences(ranked: readonly RankedSentence[], max = 3): RankedSentence[] {
  const top = ranked[0];
  if (!top) return [];
  const chosen = [top];
  // Once the best sentence has tied the source to the symbol, the rest are chosen more by how much they explain:
  // its name repeated past a first mention adds little to a sentence's claim to be the reason. A sentence that
  // names other code and not the symbol is most likely about that code, and counts half.
  const capped = (r: RankedSentence) => (r.score - r.explains * Math.max(0, r.tie - TAIL_TIE)) * (r.aboutOther ? 0.5 : 1);
  const rest = ranked.slice(1).sort((a, b) => capped(b) - capped(a) || a.start - b.start);
  for (const r of rest) {
    if (chosen.length >= max) break;
    if (capped(r) < capped(top) * 0.2) break;
    if (r.explains < 0.5) continue;
    if (chosen.some((c) => c.start === r.start)) continue;
    chosen.push(r);
  }
  return chosen;
}

// ---------------------------------------------------------------- ties of a symbol

/** The number as prose: 3 → three, 90 → ninety. */
export function numberWords(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0) return undefined;
  if (n <= 20) return NUMBER_WORDS[n];
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? `-${NUMBER_WORDS[n % 10]}` : ''}`;
  if (n === 100) return 'one hundred';
  if (n === 1000) return 'one thousand';
  return undefined;
}

export interface Literal {
  /** The value as a number, after unit multipliers in the source (`90 * time.Second` → 90 with unit seconds). */
  readonly value: number;
  readonly unit?: 'ms' | 's' | 'min' | 'h' | 'bytes';
}

/** The forms a literal value takes in prose. */
export function valueForms(lit: Literal, name: string): string[] {
  const out = new Set<string>();
  const add = (n: number, unit?: string) => {
    const digits = Number.isInteger(n) ? String(n) : String(n);
    const words = numberWords(n);
    if (!unit) {
      // A bare small number ("3") is too common to tie alone unless it is not 0 or 1.
      if (n > 1) out.add(digits);
      if (words && n > 1) out.add(words);
      return;
    }
    for (const form of [digits, ...(words ? [words] : [])]) {
      out.add(`${form} ${unit}`);
      out.add(`${form}-${unit.replace(/s$/, '')}`);
    }
  };
  let unit = lit.unit;
  if (!unit) {
    if (/(?:^|_|[a-z])(MS|Ms|MILLIS|Millis|_MILLISECONDS|Milliseconds)$/.test(name)) unit = 'ms';
    else if (/(SECONDS|Seconds|SECS|Secs|_SEC|Sec|TIMEOUT_S)$/.test(name)) unit = 's';
    else if (/(MINUTES|Minutes|MINS|Mins)$/.test(name)) unit = 'min';
  }
  const v = lit.value;
  add(v);
  // A fraction is a share: 0.70 → "70%", "70 percent", "seventy percent".
  if (v > 0 && v < 1 && !unit) {
    const pct = Math.round(v * 10000) / 100;
    out.add(`${pct}%`);
    for (const form of [String(pct), ...(numberWords(pct) ? [numberWords(pct)!] : [])]) {
      out.add(`${form} percent`);
      out.add(`${form} per cent`);
    }
  }
  if (unit === 'ms') {
    add(v, 'ms');
    add(v, 'milliseconds');
    if (v % 1000 === 0) {
      add(v / 1000, 'seconds');
      add(v / 1000, 's');
    }
    if (v % 60000 === 0) add(v / 60000, 'minutes');
  } else if (unit === 's') {
    add(v, 'seconds');
    add(v, 's');
    if (v % 60 === 0) add(v / 60, 'minutes');
  } else if (unit === 'min') {
    add(v, 'minutes');
    if (v % 60 === 0) add(v / 60, 'hours');
  } else if (unit === 'h') add(v, 'hours');
  // Durations written the short way, as configuration and Go's time.Duration print them: "90s", "250ms", "5m", "1m30s", "2h".
  const perUnit = unit ? DURATION_MS[unit] : undefined;
  if (perUnit) for (const form of compactDurations(v * perUnit)) out.add(form);
  const words = identifierWords(name);
  // "MAX_ATTEMPTS = 3" → "3 attempts", "three attempts": the count with the thing counted.
  const counted = words.filter((w) => !/^(max|min|maximum|minimum|default|num|number|count|limit|size|total|n)$/.test(w)).pop();
  if (counted && !unit && v > 1) {
    const plural = counted.endsWith('s') ? counted : `${counted}s`;
    add(v, plural);
  }
  return [...out];
}

/** Milliseconds in one of a literal's units of time (a size in bytes is no duration). */
const DURATION_MS: Partial<Record<NonNullable<Literal['unit']>, number>> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000 };

/** A duration of `ms` milliseconds in its short written forms: 90000 → 90s, 1m30s; 300000 → 300s, 5m, 5m0s, 5min. */
function compactDurations(ms: number): string[] {
  if (!Number.isInteger(ms) || ms <= 0) return [];
  const out = [`${ms}ms`];
  if (ms % 1000) return out;
  const s = ms / 1000;
  out.push(`${s}s`);
  if (s >= 60) out.push(`${Math.floor(s / 60)}m${s % 60}s`);
  if (s % 60) return out;
  out.push(`${s / 60}m`, `${s / 60}min`);
  if (s % 3600 === 0) out.push(`${s / 3600}h`);
  return out;
}

/** A constant's literal value from its declaration line(s): `= 3`, `= 90 * time.Second`, `Duration.ofSeconds(90)`, `= 240_000`. */
export function literalOf(declaration: string): Literal | undefined {
  const d = declaration.replace(/\/\/.*$|#.*$/gm, '');
  const m = /(?:=|:=|:)\s*(?:\(?\s*)?(?:(?:int|long|float|double|Duration)\s*\(?\s*)?(\d[\d_]*(?:\.\d+)?)(?:[lLfFdD])?\s*(?:\*\s*(?:time\.)?(Millisecond|Second|Minute|Hour)\b)?/.exec(d);
  const go = /=\s*(?:time\.)?(Millisecond|Second|Minute|Hour)\s*\*\s*(\d[\d_]*)/.exec(d);
  const java = /Duration\.of(Millis|Seconds|Minutes|Hours)\(\s*(\d[\d_]*)L?\s*\)/.exec(d);
  const unitOf = (u: string | undefined): Literal['unit'] => (!u ? undefined : /^milli/i.test(u) ? 'ms' : /^sec/i.test(u) ? 's' : /^min/i.test(u) ? 'min' : 'h');
  if (java) return { value: Number(java[2]!.replace(/_/g, '')), unit: unitOf(java[1])! };
  if (go) return { value: Number(go[2]!.replace(/_/g, '')), unit: unitOf(go[1])! };
  if (!m) return undefined;
  const value = Number(m[1]!.replace(/_/g, ''));
  if (!Number.isFinite(value)) return undefined;
  const unit = unitOf(m[2]);
  return unit ? { value, unit } : { value };
}

/**
 * A constant's string value from its declaration line (`= "_"`, `= 'wip'`,
 * `: "oel_"`), when it is short enough to be written in prose (1–40
 * characters, one line).
 */
export function stringLiteralOf(declaration: string): string | undefined {
  const m = /(?:=|:=|:)\s*(?:[A-Za-z_][\w.]*\s*\(\s*)?(["'`])([^"'`\\\n]{1,40})\1/.exec(declaration);
  return m ? m[2] : undefined;
}

/**
 * The forms a string value takes in prose: quoted or as a code span
 * (`'_'`, `"wip"`, `` `wip` ``) — a short word alone ("wip", "_") is too common
 * to tie by itself; written bare only when it does not read as a word: six
 * or more characters, or with a character other than a letter (`oel_`,
 * `x-request-id`), and not only punctuation.
 */
export function stringValueForms(value: string): string[] {
  const out = new Set<string>();
  for (const q of ["'", '"', '`', '``', '“']) out.add(q === '“' ? `“${value}”` : `${q}${value}${q}`);
  if (/[\p{L}\p{N}]/u.test(value) && value.trim() === value && (value.length >= 6 || (/[^\p{L}]/u.test(value) && value.length >= 3))) out.add(value);
  return [...out];
}

/** Stemmed prose forms of a name: RetryPolicy → [retry, policy]; MAX_ATTEMPTS → [maximum, attempt]. */
export function proseForms(name: string): string[][] {
  const words = identifierWords(name).map(matchStem);
  return words.length >= 2 ? [words] : [];
}
