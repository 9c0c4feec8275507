import { stem } from '../../shared/stem.js';
import { OfflineChatModel, type OfflineHandler } from '../llm/offline.js';
import type { ChatModel } from '../llm/types.js';
import { FILLER, entityKey, identifierWords, isCodeShaped } from '../linking/names.js';
import type { ExtractInput, LocalInput, MapInput, ReduceInput, ReportInput, SummarizeInput } from './prompts.js';
import type { EntityType, Extraction, Finding, MapPoints, Report } from './schemas.js';
import { quotableSentences } from './reasons.js';
import { plain, quote, sentences } from './text.js';
import { FNV_OFFSET, fnv1a } from '../../shared/hash.js';

/*
 * The offline model: deterministic answers to each task without a language
 * model. Extraction finds what can be found by form — code spans and
 * identifiers, names of this workspace's symbols written as prose ("the retry
 * policy"), document handles (ADR-0007, INC-2041, PR #142), proper names,
 * constraint phrases (an SLA, a deadline, a limit) and emphasised terms — and
 * relates the things named in one sentence, with that sentence as the
 * description. Summaries, reports and answers are extractive: sentences from
 * the documents, chosen and ordered, never written. Everything made here is
 * labelled `offline`.
 */

// ---------------------------------------------------------------- vocabulary

/** Names of this workspace's types and constants, as a reader would write them in prose. */
export class Vocabulary {
  private readonly byFirst = new Map<string, { tokens: string[]; display: string }[]>();
  readonly size: number;

  constructor(names: readonly string[]) {
    const seen = new Set<string>();
    for (const name of names) {
      const words = identifierWords(name);
      // One word ("Instruction", "retry") would match ordinary prose everywhere; phrases of two to five words do not.
      if (words.length < 2 || words.length > 5) continue;
      const tokens = words.map(stem);
      const key = tokens.join(' ');
      if (seen.has(key)) continue;
      seen.add(key);
      let list = this.byFirst.get(tokens[0]!);
      if (!list) this.byFirst.set(tokens[0]!, (list = []));
      list.push({ tokens, display: words.join(' ') });
    }
    for (const list of this.byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
    this.size = seen.size;
  }

  /** Longest matches of known phrases among word tokens. */
  match(words: readonly { w: string; s: string; start: number; end: number }[]): { start: number; end: number; from: number; to: number }[] {
    const out: { start: number; end: number; from: number; to: number }[] = [];
    for (let i = 0; i < words.length; i++) {
      const candidates = this.byFirst.get(words[i]!.s);
      if (!candidates) continue;
      for (const c of candidates) {
        if (i + c.tokens.length > words.length) continue;
        let ok = true;
        for (let k = 1; k < c.tokens.length; k++) {
          if (words[i + k]!.s !== c.tokens[k]) {
            ok = false;
            break;
          }
        }
        if (ok) {
          out.push({ start: words[i]!.start, end: words[i + c.tokens.length - 1]!.end, from: i, to: i + c.tokens.length });
          i += c.tokens.length - 1;
          break;
        }
      }
    }
    return out;
  }

  /** A stable fingerprint, part of the offline extractor's id: new symbols mean new phrases. */
  fingerprint(): string {
    let h = FNV_OFFSET;
    const all = [...this.byFirst.values()].flat().map((c) => c.tokens.join(' ')).sort();
    for (const s of all) h = fnv1a(s, h);
    return h.toString(16).padStart(8, '0');
  }
}

export interface OfflineExtractInput extends ExtractInput {
  readonly vocabulary?: Vocabulary;
}

// ---------------------------------------------------------------- extraction

const DOC_TYPES: Record<string, EntityType> = {
  adr: 'decision',
  rfc: 'decision',
  design: 'decision',
  postmortem: 'incident',
  pr: 'document',
  issue: 'document',
  commit: 'document',
  readme: 'document',
  changelog: 'document',
  doc: 'document',
};

const ACRONYM_STOP = new Set(
  'I A OK PR PRS ID IDS API APIS URL URLS UTC GMT ADR RFC INC SLA SLAS SLO SLOS TODO FIXME NOTE NB JSON HTTP HTTPS CI CD QA UI UX PM AM EOD ETA FAQ TBD TL DR IMO FYI ASAP N NA AND OR NOT IF THE WIP LGTM NIT YAML XML CSV SQL CLI SDK MB GB KB MS USD EUR GBP JPY CHF CAD AUD SEV P0 P1 P2 P3 T0'.split(' '),
);
const CAPITAL_STOP = new Set(
  'The A An This That These Those We Our Us They Their It Its If When While Where Why What Which Who How Then Than But And Or So Also Each Every No Not Yes One Two Three Four Five Six Seven Eight Nine Ten For From With Without After Before During Because Since Until Once As At By In On Of To Into Over Under Between Both Either Neither All Any Some Most Many Few More Less Status Context Decision Consequences Summary Timeline Impact Root Cause Action Items Resolution Detection Background Notes Alternatives Option Options Pros Cons Accepted Proposed Rejected Superseded Deprecated Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December Lessons Learned Follow Ups Follow-ups Owner Owners Date Review Reviews Comment Commit Merged Approved Here There Please Thanks Thank Do Does Did Is Are Was Were Be Been Has Have Had Will Would Should Could Can May Might Must Let Lets Note See Use Using Add Adds Added Fix Fixes Fixed Remove Removes Removed Change Changes Changed Update Updates Updated Keep Make Makes Made Only Just Even Still Now Today Yesterday Tomorrow First Second Third Last Next New Old Same Other Another Such Very Too Up Down Out Off Again Further Any Everyone Nobody Someone Anyone'.split(
    ' ',
  ),
);
const ORG_CUES = /\b(Clearing|Bank|Banking|Payments?|Partners?|Ltd|Limited|Inc|Corp|Corporation|LLC|GmbH|Group|Exchange|Capital|Securities|Holdings|Trust|Authority|Agency|Council|Commission|Foundation|Institute|University|Team)\b/;
const PERSON_CUE = /\b(?:authors?|deciders?|owners?|by|reviewers?|approvers?|assignees?|reporters?|on-call|cc)\b[:\s]*(?:[A-Z][a-z]+ [A-Z][a-z]+(?: \([^)]*\))?,\s*)*$/i;
const PERSON_LINE = /\b(?:authors?|deciders?|owners?|reviewers?|approvers?|attendees?)\s*:/i;
// Quantifiers end a constraint's name too: "at least one window" names no window ("least one window" was a constraint).
const MODIFIER_STOP = new Set('same this that new old other another each every any some such own one least most more less fewer only'.split(' '));
const STRONG_CONSTRAINT = new Set(['sla', 'slo', 'deadline', 'cutoff', 'cut-off', 'regulation', 'quota', 'ola', 'sli']);
const WEAK_CONSTRAINT = new Set(['window', 'limit', 'requirement', 'agreement', 'contract', 'obligation', 'ceiling', 'cap', 'budget', 'threshold', 'rule', 'invariant']);
const CONSTRAINT_SIGNAL = /\b(must|must not|shall|never|always|at most|at least|no more than|no later than|within|required|mandatory|contractual|regulat\w*|\d+\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|%))\b/i;
const VERBISH = new Set(
  'is are was were be been being has have had do does did will would should could can may might must shall allow allows allowed give gives gave take takes took make makes made mean means meant need needs needed require requires required keep keeps kept let lets get gets got set sets cause causes caused fit fits hit hits said says see sees seen breach breaches breached exceed exceeds exceeded meet meets met miss missed misses stay stays stayed run runs ran'.split(
    ' ',
  ),
);

interface Word {
  readonly w: string;
  /** stemmed lower case */
  readonly s: string;
  readonly start: number;
  readonly end: number;
}

function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)) {
    const w = m[0].replace(/['’]s$/, '').replace(/['’]$/, '');
    out.push({ w, s: stem(w.toLowerCase()), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

interface Mention {
  readonly name: string;
  readonly type: EntityType;
  readonly key: string;
}

/** A code span's content as an entity name, or undefined when it is not a name (a number, an expression, a command). */
function codeName(span: string): string | undefined {
  let s = span.trim().replace(/^[@]/, '');
  s = s.replace(/\(.*\)$/, '').replace(/<[^>]*>$/, '');
  const lead = /^[A-Za-z_$][\w$]*(?:(?:\.|#|::|\/)[A-Za-z_$][\w$-]*)*/.exec(s)?.[0];
  if (!lead) return undefined;
  if (lead.length < 3 || lead.length > 120) return undefined;
  // `npm test`, `git log`: a command, not a name — unless the whole span is one identifier.
  if (lead !== s && /^\s+[\w-]/.test(s.slice(lead.length))) return undefined;
  if (!/[A-Z_.#/]|::/.test(lead) && !/[a-z][A-Z]/.test(lead)) return /^[a-z]+[A-Z]\w*$/.test(lead) || lead.includes('_') ? lead : undefined;
  return lead;
}

const IDENT_IN_PROSE = [
  /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?:\.[A-Za-z_]\w*)*(?:\(\))?/g, // PascalCase, optionally qualified
  /\b[a-z]+(?:[A-Z][a-z0-9]*)+(?:\(\))?/g, // lowerCamel
  /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, // UPPER_SNAKE
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b(?:\(\))?/g, // snake_case
  /\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+\(\)/g, // a.b() calls
];

const FILE_PATH = /(?<![\w/.-])(?:[\w.-]+\/)+[\w.-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|java|kt|go|rs|rb|cs|cpp|c|h|hpp|swift|scala|php|sql|ya?ml|json|toml|xml|md|proto|gradle|sh)\b|\b[A-Za-z_][\w-]*\.(?:ts|tsx|py|java|go|rs|kt|rb|cs)\b/g;

const DOC_REF = /\b(ADR|RFC|INC|INCIDENT)[- ]?(\d{1,6})\b|\b(?:PR|pull request|issue)\s*#?(\d{1,6})\b|(?<![\w/&])#(\d{1,6})\b/gi;

function docRefName(m: RegExpMatchArray): string {
  if (m[1]) return `${m[1].toUpperCase() === 'INCIDENT' ? 'INC' : m[1].toUpperCase()}-${m[2]}`;
  const n = m[3] ?? m[4];
  return /^issue/i.test(m[0]) ? `issue #${n}` : `PR #${n}`;
}

/** A name short enough to be one: long titles are cut at a word. */
function shortName(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= 120) return t;
  const cut = t.slice(0, 117);
  return `${cut.slice(0, Math.max(60, cut.lastIndexOf(' ')))}…`;
}

type AddMention = (name: string, type: EntityType) => void;

/** Code spans, links, file paths, identifiers and document handles in a sentence; returns the prose with all of them blanked out. */
function mentionCode(sentence: string, docKey: string, docType: EntityType, add: AddMention): string {
  // Code spans, then identifiers in prose, with code spans blanked out.
  let prose = sentence;
  for (const m of sentence.matchAll(/`([^`\n]+)`/g)) {
    const name = codeName(m[1]!);
    if (name) add(name, 'component');
    prose = prose.slice(0, m.index) + ' '.repeat(m[0].length) + prose.slice(m.index + m[0].length);
  }
  // Links: keep the text, drop the target.
  prose = prose.replace(/\]\([^)]*\)/g, (x) => ' '.repeat(x.length)).replace(/https?:\/\/\S+/g, (x) => ' '.repeat(x.length));
  // File paths first (src/settlement/RetryPolicy.ts), blanked so their parts are not read as identifiers.
  prose = prose.replace(FILE_PATH, (x) => {
    add(x, 'component');
    return ' '.repeat(x.length);
  });
  for (const re of IDENT_IN_PROSE) for (const m of prose.matchAll(re)) if (isCodeShaped(m[0].replace(/\(\)$/, ''))) add(m[0], 'component');
  for (const m of prose.matchAll(DOC_REF)) {
    const name = docRefName(m);
    add(name, entityKey(name) === docKey ? docType : /^(ADR|RFC)/.test(name) ? 'decision' : /^INC/.test(name) ? 'incident' : 'document');
  }
  return prose;
}

/** Proper names (runs of capitalised words, possessives) and acronyms, outside the words already taken. */
function mentionProperNames(words: readonly Word[], taken: Uint8Array, prose: string, sentence: string, add: AddMention): void {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (taken[i]) continue;
    if (/^[A-Z]{2,6}\d?$/.test(w.w) && !ACRONYM_STOP.has(w.w)) {
      add(w.w, 'system');
      continue;
    }
    if (!/^[A-Z][a-z]/.test(w.w) || CAPITAL_STOP.has(w.w) || isCodeShaped(w.w)) continue;
    let j = i + 1;
    while (j < words.length && /^[A-Z][a-z]/.test(words[j]!.w) && !CAPITAL_STOP.has(words[j]!.w) && !taken[j] && words[j]!.start - words[j - 1]!.end <= 1 && !isCodeShaped(words[j]!.w)) j++;
    const sentenceStart = w.start === words[0]!.start;
    const possessive = /['’]s$/.test(prose.slice(w.start, w.end + 2).replace(/\s.*/, ''));
    if (j - i >= 2 || possessive) {
      const name = words.slice(i, j).map((x) => x.w).join(' ');
      const before = prose.slice(Math.max(0, w.start - 40), w.start);
      const type: EntityType = ORG_CUES.test(name) || possessive ? 'organization' : PERSON_CUE.test(before) || /^[A-Z][a-z]+ [A-Z][a-z]+$/.test(name) && /,\s*$|\(\s*$|^\s*$/.test(before.slice(-3)) && PERSON_LINE.test(sentence) ? 'person' : 'concept';
      if (!(sentenceStart && j - i === 1)) add(name, type);
    }
    i = j - 1;
  }
}

/** Constraint phrases: "Northwind's 15-minute recall SLA", "the settlement cut-off". */
function mentionConstraints(words: readonly Word[], sentence: string, add: AddMention): void {
  for (let i = 0; i < words.length; i++) {
    const cue = words[i]!.s.replace(/-/g, '') === 'cutoff' ? 'cutoff' : words[i]!.s;
    const strong = STRONG_CONSTRAINT.has(cue);
    if (!strong && !(WEAK_CONSTRAINT.has(cue) && CONSTRAINT_SIGNAL.test(sentence))) continue;
    let k = i;
    while (k > 0 && i - k < 3) {
      const prev = words[k - 1]!;
      const lower = prev.w.toLowerCase();
      if (FILLER.has(lower) || VERBISH.has(lower) || MODIFIER_STOP.has(lower) || CAPITAL_STOP.has(prev.w) && /^[A-Z]/.test(prev.w) && k - 1 === 0) break;
      if (words[k]!.start - prev.end > 2) break;
      k--;
    }
    // A proper name the phrase starts inside belongs to it whole: "Northwind Clearing's … SLA".
    while (k > 0 && i - k < 6 && /^[A-Z][a-z]/.test(words[k]!.w) && /^[A-Z][a-z]/.test(words[k - 1]!.w) && !CAPITAL_STOP.has(words[k - 1]!.w) && words[k]!.start - words[k - 1]!.end <= 1) k--;
    if (k === i && !strong) continue;
    add(words.slice(k, i + 1).map((x) => x.w).join(' '), 'constraint');
  }
}

/** Emphasised terms, but not section labels. */
function mentionEmphasis(sentence: string, add: AddMention): void {
  for (const m of sentence.matchAll(/\*\*([^*\n]{3,60})\*\*/g)) {
    const t = m[1]!.trim().replace(/[.:]$/, '');
    if (t.split(/\s+/).length <= 6 && !/^(status|context|decision|consequences|note|warning|summary)$/i.test(t)) add(t, 'concept');
  }
}

/** What one sentence names, in the order found (the order decides which description an entity first gets). */
function mentionsIn(sentence: string, vocabulary: Vocabulary | undefined, docKey: string, docType: EntityType): Mention[] {
  const mentions = new Map<string, Mention>();
  const add: AddMention = (name, type) => {
    const clean = name.trim().replace(/\(\)$/, '');
    if (clean.length < 2 || clean.length > 120) return;
    const key = entityKey(clean);
    // The document naming itself adds nothing: it is related to everything in it anyway.
    if (!key || key === docKey) return;
    if (!mentions.has(key)) mentions.set(key, { name: clean, type, key });
  };
  const prose = mentionCode(sentence, docKey, docType, add);
  const words = wordsOf(prose.replace(/[*_~]/g, ' '));
  // Names of the workspace's types and constants written as prose: "the retry policy".
  const taken = new Uint8Array(words.length);
  for (const m of vocabulary?.match(words) ?? []) {
    add(prose.slice(m.start, m.end).replace(/\s+/g, ' '), 'component');
    for (let k = m.from; k < m.to; k++) taken[k] = 1;
  }
  mentionProperNames(words, taken, prose, sentence, add);
  mentionConstraints(words, sentence, add);
  mentionEmphasis(sentence, add);
  return [...mentions.values()].filter((m) => m.key !== docKey);
}

export function offlineExtract(raw: unknown): Extraction {
  const input = raw as OfflineExtractInput;
  const text = input.text;
  const docType = DOC_TYPES[input.doc.kind] ?? 'document';
  const docName = shortName(input.doc.ref ?? input.doc.title);
  const docKey = entityKey(docName);
  const entities = new Map<string, { name: string; type: EntityType; description: string }>();
  const relationships = new Map<string, { source: string; target: string; description: string; weight: number }>();
  const firstSentence = sentences(text).find((s) => plain(s.text).length > 20);
  entities.set(docKey, {
    name: docName,
    type: docType,
    description: `${input.doc.ref ? `${input.doc.ref}: ` : ''}${input.doc.title}${firstSentence ? ` — ${quote(firstSentence.text, 300)}` : ''}`,
  });

  const relate = (a: Mention, b: Mention, description: string, weight: number) => {
    if (a.key === b.key) return;
    const [x, y] = a.key < b.key ? [a, b] : [b, a];
    const k = `${x.key}\u0000${y.key}`;
    const r = relationships.get(k);
    if (r) r.weight += weight;
    else relationships.set(k, { source: x.name, target: y.name, description, weight });
  };

  const docMention: Mention = { name: docName, type: docType, key: docKey };
  for (const s of sentences(text)) {
    const sentence = s.text;
    if (/^\s*(```|~~~)/.test(sentence)) continue;
    const description = quote(sentence, 400);
    if (description.length < 3) continue;
    const list = mentionsIn(sentence, input.vocabulary, docKey, docType);
    for (const m of list) {
      if (!entities.has(m.key)) entities.set(m.key, { name: m.name, type: m.type, description });
      relate(docMention, m, description, 1);
    }
    // Things named in one sentence are related by that sentence.
    const capped = list.slice(0, 8);
    for (let a = 0; a < capped.length; a++) for (let b = a + 1; b < capped.length; b++) relate(capped[a]!, capped[b]!, description, 2);
  }
  return {
    entities: [...entities.values()].slice(0, 400),
    relationships: [...relationships.values()].slice(0, 800).map((r) => ({ ...r, weight: Math.min(10, r.weight) })),
  };
}

// ---------------------------------------------------------------- summaries

/** Stems of texts seen recently: the same report findings and chunks are matched against every question. */
const stemsSeen = new Map<string, Set<string>>();

function contentStems(text: string): Set<string> {
  let stems = stemsSeen.get(text);
  if (stems) return stems;
  stems = new Set(wordsOf(text).map((w) => w.s).filter((s) => s.length > 2 && !FILLER.has(s)));
  if (stemsSeen.size >= 5000) stemsSeen.clear();
  stemsSeen.set(text, stems);
  return stems;
}

function overlap(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n / Math.sqrt(a.size * b.size);
}

/** Extractive merge: distinct sentences, the most central first chosen, kept in source order, about `max` characters. */
export function extractiveMerge(texts: readonly string[], max = 600): string {
  const seen = new Set<string>();
  const units: { text: string; order: number; stems: Set<string> }[] = [];
  for (const t of texts) {
    for (const s of sentences(t)) {
      const q = plain(s.text);
      const norm = q.toLowerCase().replace(/\W+/g, ' ').trim();
      if (!norm || seen.has(norm)) continue;
      seen.add(norm);
      units.push({ text: q, order: units.length, stems: contentStems(q) });
    }
  }
  const joined = units.map((u) => u.text).join(' ');
  if (joined.length <= max) return joined;
  const scored = units.map((u) => ({ u, score: units.reduce((n, v) => (v === u ? n : n + overlap(u.stems, v.stems)), 0) }));
  scored.sort((a, b) => b.score - a.score || a.u.order - b.u.order);
  const chosen: typeof units = [];
  let length = 0;
  for (const { u } of scored) {
    if (length && length + u.text.length > max) continue;
    chosen.push(u);
    length += u.text.length + 1;
  }
  return chosen.sort((a, b) => a.order - b.order).map((u) => u.text).join(' ');
}

export function offlineSummarize(raw: unknown): { description: string } {
  const input = raw as SummarizeInput;
  return { description: extractiveMerge(input.descriptions) || input.name };
}

// ---------------------------------------------------------------- reports

const TYPE_WEIGHT: Partial<Record<EntityType, number>> = { decision: 3, incident: 3, constraint: 3, component: 2, document: 1 };

/** The children's titles within about 1,500 characters, and how many more: a parent of hundreds of communities stays a summary. */
function subCommunities(titles: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const t of titles) {
    if (shown.length && length + t.length > 1500) break;
    shown.push(t);
    length += t.length + 2;
  }
  return `Sub-communities: ${shown.join('; ')}${titles.length > shown.length ? `; and ${titles.length - shown.length} more` : ''}.`;
}

export function offlineReport(raw: unknown): Report {
  const input = raw as ReportInput;
  const rank = [...input.entities].sort((a, b) => (TYPE_WEIGHT[b.type as EntityType] ?? 1) * (1 + b.degree) - (TYPE_WEIGHT[a.type as EntityType] ?? 1) * (1 + a.degree) || a.name.localeCompare(b.name));
  const top = rank.slice(0, 3).map((e) => e.name);
  const shortTop = top.map((t) => shortName(t).slice(0, 80));
  const title = shortTop.length === 1 ? shortTop[0]! : `${shortTop.slice(0, -1).join(', ')} and ${shortTop[shortTop.length - 1]}`;
  const kinds = (t: string) => input.entities.filter((e) => e.type === t).length;
  const [decisions, incidents, constraints] = [kinds('decision'), kinds('incident'), kinds('constraint')];
  const held = [decisions && `${decisions} decision${decisions > 1 ? 's' : ''}`, incidents && `${incidents} incident${incidents > 1 ? 's' : ''}`, constraints && `${constraints} constraint${constraints > 1 ? 's' : ''}`].filter(Boolean);
  const lead = rank[0];
  const summaryParts = [
    `${input.entities.length} entities${held.length ? `, among them ${held.join(', ')}` : ''}.`,
    ...(lead ? [`${lead.name} (${lead.type}): ${quote(lead.description, 300)}`] : []),
    ...(input.children?.length ? [subCommunities(input.children.map((c) => c.title))] : []),
  ];
  const findings: Finding[] = [];
  const rels = [...input.relationships].sort((a, b) => b.weight - a.weight || a.id - b.id);
  const usedText = new Set<string>();
  for (const r of rels) {
    if (findings.length >= 6) break;
    const text = quote(r.description, 500);
    if (usedText.has(text)) continue;
    usedText.add(text);
    const ids = input.entities.filter((e) => e.name === r.source || e.name === r.target).map((e) => e.id);
    findings.push({ summary: `${r.source} — ${r.target}`, explanation: text, entities: ids, relationships: [r.id] });
  }
  for (const c of input.children ?? []) {
    if (findings.length >= 8) break;
    const f = c.findings[0];
    if (f && !usedText.has(f.explanation)) findings.push({ ...f, summary: `${c.title}: ${f.summary}` });
  }
  if (!findings.length && lead) findings.push({ summary: lead.name, explanation: quote(lead.description, 500), entities: [lead.id], relationships: [] });
  const docs = Math.max(0, ...input.entities.map((e) => e.docs));
  const rating = Math.min(10, Math.round((2 + 2 * Math.log2(1 + input.entities.length) / 2 + (decisions || incidents || constraints ? 3 : 0) + Math.min(2, docs / 2)) * 10) / 10);
  return {
    title: title || `Community of ${input.entities.length} entities`,
    summary: summaryParts.join(' '),
    rating,
    rating_explanation: `offline: rated by size (${input.entities.length} entities), reach (up to ${docs} documents per entity) and what it holds${held.length ? ` (${held.join(', ')})` : ''}`,
    findings: findings.length ? findings : [{ summary: title || 'community', explanation: summaryParts.join(' '), entities: [], relationships: [] }],
  };
}

// ---------------------------------------------------------------- search answers

/** Share of the question's content words found in a text: `coverage(question)(text)`, the question's words taken once. */
export function coverage(question: string): (text: string) => number {
  const q = contentStems(question);
  return (text) => {
    if (!q.size) return 0;
    const t = contentStems(text);
    let n = 0;
    for (const x of q) if (t.has(x)) n++;
    return n / q.size;
  };
}

export function offlineMap(raw: unknown): MapPoints {
  const input = raw as MapInput;
  const points: MapPoints['points'] = [];
  const covered = coverage(input.question);
  for (const r of input.reports) {
    for (const f of r.findings) {
      const c = covered(`${r.title} ${f.summary} ${f.explanation}`);
      if (c <= 0) continue;
      points.push({ description: `${f.summary}: ${f.explanation}`, score: Math.round(100 * c * (0.5 + r.rating / 20)), reports: [r.id] });
    }
  }
  points.sort((a, b) => b.score - a.score);
  return { points: points.slice(0, 10) };
}

export function offlineReduce(raw: unknown): { answer: string } {
  const input = raw as ReduceInput;
  if (!input.points.length) return { answer: 'The community reports hold nothing that matches the question (offline search matches words, not meaning).' };
  const lines = input.points.slice(0, 8).map((p) => `- ${p.description} [reports ${p.reports.join(', ')}]`);
  return { answer: `Offline answer (extractive, no model): the passages from the community reports that best match the question.\n${lines.join('\n')}` };
}

export function offlineLocal(raw: unknown): { answer: string } {
  const input = raw as LocalInput;
  const candidates: { text: string; score: number; cite: string }[] = [];
  const covered = coverage(input.question);
  for (const c of input.chunks) {
    // What the answer quotes is prose, as a quotation of a source is: a title, front matter or a metadata line answers nothing.
    for (const s of quotableSentences(c.text)) {
      const q = plain(s.text);
      const score = covered(q);
      if (score > 0) candidates.push({ text: q, score, cite: `[source ${c.id}]` });
    }
  }
  for (const r of input.relationships) {
    const score = covered(r.description);
    if (score > 0) candidates.push({ text: r.description, score: score * 0.9, cite: `(${r.source} — ${r.target})` });
  }
  candidates.sort((a, b) => b.score - a.score);
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of candidates) {
    if (lines.length >= 8) break;
    const k = c.text.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    lines.push(`- "${quote(c.text, 300)}" ${c.cite}`);
  }
  if (!lines.length) return { answer: 'Nothing in the documents around these entities matches the question (offline search matches words, not meaning).' };
  return { answer: `Offline answer (extractive, no model): the sentences near the matching entities that best match the question.\n${lines.join('\n')}` };
}

export const OFFLINE_HANDLERS: Readonly<Record<string, OfflineHandler>> = {
  'extract-graph': offlineExtract,
  'summarize-descriptions': offlineSummarize,
  'community-report': offlineReport,
  'global-map': offlineMap,
  'global-reduce': offlineReduce,
  'local-answer': offlineLocal,
};

/** The offline model with this memory's handlers: the default when no model is configured. */
export function offlineChatModel(): ChatModel {
  return new OfflineChatModel(OFFLINE_HANDLERS);
}
