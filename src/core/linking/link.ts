import type { LinkTier } from '../model/tiers.js';
import { TYPE_KINDS } from '../model/structural.js';
import { isCodeShaped, phraseTokens, segments } from './names.js';
import { placeHas, type IndexedSymbol, type NameFilter, type Reach, type SymbolIndex } from './symbolIndex.js';
import { isTestPath } from '../../shared/paths.js';

/*
 * Entity → symbols, with a tier that says how far to trust the link:
 *   exact       the name appears verbatim and denotes exactly one symbol
 *   strong      a normalised phrase clearly denotes one symbol ("the settlement service" → SettlementService),
 *               or a verbatim name shared by several symbols is narrowed to one by the passage naming its class
 *   weak        a concept spanning several symbols: the set is returned, the agent verifies
 *   unresolved  no symbol: kept and returned, never forced onto the nearest name
 * Documents, decisions, incidents, people and organisations are never matched
 * to code by resemblance: they reach code through the things they mention.
 */

export interface LinkedSymbol {
  readonly sid: string;
  readonly qname: string;
  readonly kind: string;
  readonly path: string;
  readonly line: number;
}

export interface Link {
  readonly tier: LinkTier;
  /** Empty when unresolved. */
  readonly symbols: readonly LinkedSymbol[];
  /** 0..1: how well the name fits the symbols. */
  readonly score: number;
  readonly reason: string;
}

export interface LinkSubject {
  readonly name: string;
  readonly type: string;
  /** Other names in the passages that mention it (co-mentioned identifiers), used to tell apart symbols sharing a name. */
  readonly context?: readonly string[];
}

export interface LinkOptions {
  /** A weak set larger than this is not a link but noise: unresolved. Default 12. */
  readonly maxWeak?: number;
}

const NOT_CODE = new Set(['person', 'organization', 'event', 'document', 'decision', 'incident']);

function linked(s: IndexedSymbol): LinkedSymbol {
  return { sid: s.sid, qname: s.qname, kind: s.kind, path: s.path, line: s.line };
}

function unresolved(reason: string): Link {
  return { tier: 'unresolved', symbols: [], score: 0, reason };
}

/** Drops members whose enclosing type is in the set too: the concept spans the type. */
function topLevel(list: readonly IndexedSymbol[]): IndexedSymbol[] {
  const sids = new Set(list.map((s) => s.sid));
  return list.filter((s) => !s.parentSid || !sids.has(s.parentSid));
}

function sortSymbols(list: readonly IndexedSymbol[]): IndexedSymbol[] {
  return [...list].sort((a, b) => a.qname.localeCompare(b.qname) || a.path.localeCompare(b.path));
}

function endsWith(haystack: readonly string[], needle: readonly string[], caseInsensitive = false): boolean {
  if (needle.length > haystack.length) return false;
  const off = haystack.length - needle.length;
  return needle.every((n, i) => (caseInsensitive ? haystack[off + i]!.toLowerCase() === n.toLowerCase() : haystack[off + i] === n));
}

function qualifiedSegments(s: IndexedSymbol): string[] {
  return segments(s.qname);
}

/** Among same-named symbols, the ones whose class or file the passage also names. */
function narrowByContext(candidates: readonly IndexedSymbol[], context: readonly string[] | undefined): IndexedSymbol[] {
  if (!context?.length) return [];
  const names = new Set<string>();
  for (const c of context) for (const seg of segments(c)) names.add(seg);
  return candidates.filter((s) => (s.parentName && names.has(s.parentName)) || names.has(s.path.split('/').pop()!.replace(/\.\w+$/, '')));
}

/** What every rule below reads: the index, the subject, its name as written and as code. */
interface Naming {
  readonly index: SymbolIndex;
  readonly subject: LinkSubject;
  /** The name, trimmed of quotes. */
  readonly raw: string;
  /** The name without a trailing `()`. */
  readonly code: string;
  readonly maxWeak: number;
}

/** A subject's name as the rules read it: trimmed of quotes; a file path (relative, with forward slashes), else code without a trailing `()`. */
function nameOf(subject: LinkSubject): { raw: string; path: string } | { raw: string; code: string } | undefined {
  const raw = subject.name.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  if (!raw) return undefined;
  if (/\/|\\/.test(raw) && /\.\w{1,5}$/.test(raw)) return { raw, path: raw.replace(/\\/g, '/').replace(/^\.\//, '') };
  return { raw, code: raw.replace(/\(\)$/, '') };
}

export function linkEntity(index: SymbolIndex, subject: LinkSubject, options: LinkOptions = {}): Link {
  const name = nameOf(subject);
  if (!name) return unresolved('empty name');
  if (index.size === 0) return unresolved('the structural index is empty (run `tenure index`)');
  if ('path' in name) return byFilePath(index, name.path);
  const n: Naming = { index, subject, raw: name.raw, code: name.code, maxWeak: options.maxWeak ?? 12 };
  return byIdentifier(n) ?? byWordWrittenAsCode(n) ?? byPhrase(n);
}

/**
 * What linking a set of subjects can look up, rule by rule: a name, a name in
 * lower case, the words of a name, a word of a concept, a file path. An index
 * of only the symbols these reach links the subjects as the whole index
 * would, given the whole index's word counts: a repository's million symbols
 * need not be held to link its documents' two thousand names.
 */
export class LinkReach implements Reach {
  /** byIdentifier's and byWordWrittenAsCode's names. */
  private readonly names = new Set<string>();
  /** byIdentifier's last segments in lower case. */
  private readonly lowerNames = new Set<string>();
  /** bySameWords' and byQualifyingPlace's phrases: a subject's words and every tail of them. */
  private readonly phrases = new Set<string>();
  /** asConcept's phrases (two words or more), by each of their words. */
  private readonly concepts = new Map<string, (readonly string[])[]>();
  /** Every word a rule may weigh (idf): the whole index's counts of these are all the reached index needs. */
  readonly words = new Set<string>();
  /** byFilePath's paths. */
  readonly paths: string[] = [];

  constructor(subjects: Iterable<LinkSubject>) {
    const conceptKeys = new Set<string>();
    for (const subject of subjects) {
      const name = nameOf(subject);
      if (!name) continue;
      if ('path' in name) {
        this.paths.push(name.path);
        continue;
      }
      const { code } = name;
      const codeShaped = isCodeShaped(code);
      // A person or a document that is not written as code reaches no symbol (byPhrase).
      if (NOT_CODE.has(subject.type) && !codeShaped) continue;
      this.names.add(code);
      if (codeShaped) {
        const last = segments(code).pop()!;
        this.names.add(last);
        this.lowerNames.add(last.toLowerCase());
      }
      const tokens = phraseTokens(code);
      for (const t of tokens) this.words.add(t);
      for (let k = 0; k < tokens.length; k++) this.phrases.add(tokens.slice(k).join(' '));
      if (tokens.length >= 2 && !conceptKeys.has(tokens.join(' '))) {
        conceptKeys.add(tokens.join(' '));
        for (const t of new Set(tokens)) {
          const list = this.concepts.get(t);
          if (list) list.push(tokens);
          else this.concepts.set(t, [tokens]);
        }
      }
    }
  }

  /**
   * The names a few subjects may reach, for the store to find by text: past a
   * handful of words, one pass over every name costs less than testing each
   * name for every word (a document pass links thousands of names).
   */
  nameFilter(): NameFilter | undefined {
    if (this.words.size > MAX_FILTER_WORDS) return undefined;
    // Names with no word (all filler) are found by name only; a word of one or two letters is held whole.
    return { names: [...this.names], lowerNames: [...this.lowerNames], fragments: [...this.words].map((w) => (w.length > 2 ? w.slice(0, -1) : w)) };
  }

  /**
   * Whether a symbol of this name (with these words) may be reached: by its
   * name, by its words, or as part of a concept that may have the rest of its
   * words in the symbol's place. Decided once per name; `reaches` decides per symbol.
   */
  mayReach(name: string, words: readonly string[]): boolean {
    return this.byName(name, words) || words.some((w) => this.concepts.get(w)?.some((tokens) => fitsConcept(words, tokens)));
  }

  /** Whether linking these subjects reaches the symbol. */
  reaches(s: Pick<IndexedSymbol, 'name' | 'words' | 'pathWords' | 'parentWords'>): boolean {
    if (this.byName(s.name, s.words)) return true;
    // A word may be in hundreds of concepts: the symbol's words and place are looked up in a set, not searched for in lists.
    let words: Set<string> | undefined;
    const inPlace = (t: string) => (words ??= new Set([...s.pathWords, ...s.parentWords])).has(t);
    return s.words.some((w) => this.concepts.get(w)?.some((tokens) => fitsConcept(s.words, tokens, inPlace)));
  }

  private byName(name: string, words: readonly string[]): boolean {
    return this.names.has(name) || this.lowerNames.has(name.toLowerCase()) || this.phrases.has(words.join(' '));
  }
}

/** The most words a subject set may have for its names to be found by text (LinkReach.nameFilter). */
const MAX_FILTER_WORDS = 16;

/**
 * asConcept's test of a symbol whose name has a word of the concept: every
 * word of the concept is in its name or its place (untested when the place is
 * not known), and the name's other words are not most of it.
 */
function fitsConcept(words: readonly string[], tokens: readonly string[], inPlace?: (token: string) => boolean): boolean {
  if (inPlace && !tokens.every((t) => words.includes(t) || inPlace(t))) return false;
  // The words the phrase does not cover must not be most of the name: "retry" should not reach `retryParked`'s class via its job.
  return words.filter((w) => !tokens.includes(w)).length <= tokens.length;
}

/** A file path names its module. */
function byFilePath(index: SymbolIndex, rel: string): Link {
  const mod = index.moduleAt(rel);
  return mod ? { tier: 'exact', symbols: [linked(mod)], score: 1, reason: `names the file ${mod.path}` } : unresolved(`names a file (${rel}) that is not in the index`);
}

/**
 * A code-shaped name (`SettlementService.retry`, `MAX_ATTEMPTS`): the symbols
 * of that name, narrowed by its qualifier, else by the passage. Undefined for
 * a name no symbol has, whose words are tried next (retry_policy → RetryPolicy).
 */
function byIdentifier({ index, subject, code, maxWeak }: Naming): Link | undefined {
  if (!isCodeShaped(code)) return undefined;
  const segs = segments(code);
  const last = segs[segs.length - 1]!;
  const named = index.byName.get(last) ?? [];
  if (segs.length > 1) {
    const q = named.filter((s) => endsWith(qualifiedSegments(s), segs) || endsWith([...segments(s.path.replace(/\.\w+$/, '')), ...qualifiedSegments(s)], segs));
    if (q.length === 1) return { tier: 'exact', symbols: [linked(q[0]!)], score: 1, reason: `names \`${code}\` verbatim; one symbol has that name` };
    if (q.length > 1) return weakSet(q, `\`${code}\` is written verbatim but ${q.length} symbols have that qualified name`, 0.9, maxWeak);
    const ci = (index.byLowerName.get(last.toLowerCase()) ?? []).filter((s) => endsWith(qualifiedSegments(s), segs, true));
    if (ci.length === 1) return { tier: 'strong', symbols: [linked(ci[0]!)], score: 0.9, reason: `\`${code}\` matches ${ci[0]!.qname} up to letter case` };
    // The qualifier may be a class that is not a symbol here; the member alone may still be unique.
    if (named.length === 0) return unresolved(`names \`${code}\`, which is not in the structural index`);
  }
  if (named.length === 1) {
    if (segs.length === 1) return { tier: 'exact', symbols: [linked(named[0]!)], score: 1, reason: `names \`${code}\` verbatim; one symbol has that name` };
    const reason = `\`${last}\` names one symbol (${named[0]!.qname}), though the text qualifies it as \`${code}\``;
    return qualifierFits(named[0]!, segs.slice(0, -1))
      ? { tier: 'strong', symbols: [linked(named[0]!)], score: 0.8, reason }
      : weakSet(named, `${reason}, which is neither its class nor its place — verify`, 0.6, maxWeak);
  }
  if (named.length > 1) {
    const narrowed = narrowByContext(named, subject.context);
    if (narrowed.length === 1) return { tier: 'strong', symbols: [linked(narrowed[0]!)], score: 0.85, reason: `\`${last}\` names ${named.length} symbols; the passage also names ${narrowed[0]!.parentName ?? narrowed[0]!.path}, so ${narrowed[0]!.qname}` };
    return weakSet(named, `\`${last}\` names ${named.length} symbols`, 0.7, maxWeak);
  }
  return undefined;
}

/**
 * Whether a qualifier the symbol's own name does not carry still points at it: a word of the qualifier is in its
 * name, its class or its place (`collapsibleRef.open` for CollapsibleAdvanced.open, `DataArrayRolling.min_periods`
 * for Rolling.min_periods, `runtime/feature.Feature`). One that names none of them is another library's type or a
 * path (`React.Component`, `sdk.Msg`, `docs/adr`): of 29 such links judged by hand, 16 were wrong, and this test
 * keeps 12 of the 13 right ones and 2 of the 16 wrong.
 */
function qualifierFits(s: IndexedSymbol, qualifier: readonly string[]): boolean {
  return qualifier.flatMap((q) => phraseTokens(q)).some((t) => s.words.includes(t) || placeHas(s, t));
}

/** A one-word name written as code (`Injectable`) and shared by no other symbol is named verbatim. */
function byWordWrittenAsCode({ index, subject, code, maxWeak }: Naming): Link | undefined {
  if (subject.type !== 'component' || isCodeShaped(code) || !/^[A-Za-z_$][\w$]*$/.test(code) || !/[A-Z_$]/.test(code)) return undefined;
  const named = index.byName.get(code) ?? [];
  if (named.length === 1) return { tier: 'exact', symbols: [linked(named[0]!)], score: 1, reason: `names \`${code}\` verbatim; one symbol has that name` };
  if (named.length > 1) {
    const narrowed = narrowByContext(named, subject.context);
    if (narrowed.length === 1) return { tier: 'strong', symbols: [linked(narrowed[0]!)], score: 0.85, reason: `\`${code}\` names ${named.length} symbols; the passage also names ${narrowed[0]!.parentName ?? narrowed[0]!.path}` };
    return weakSet(named, `\`${code}\` names ${named.length} symbols`, 0.7, maxWeak);
  }
  return undefined;
}

/** A name as prose ("the settlement service"): the symbols whose names have its words, then a qualifier their place supplies, then a concept over several. */
function byPhrase(n: Naming): Link {
  const { subject, code, raw } = n;
  const codeButMissing = isCodeShaped(code);
  if (NOT_CODE.has(subject.type) && !codeButMissing) {
    return unresolved(`a ${subject.type}: reaches code only through what it mentions, never by resemblance`);
  }
  // `"status": "error`, `conditions[?(@.type`: a piece of JSON or a path expression caught as a phrase names no symbol.
  if (/["{}]|\[\?|@\./.test(raw)) return unresolved(`"${raw}" is a fragment of data or markup, not a name`);
  const tokens = phraseTokens(code);
  if (!tokens.length) return unresolved('no content words to match');
  const same = bySameWords(n, tokens, codeButMissing);
  if (same) return same;
  if (tokens.length < 2) return unresolved(`"${raw}" is one common word; no symbol is named by it clearly enough`);
  const placed = byQualifyingPlace(n, tokens);
  if (placed) return placed;
  const concept = asConcept(n, tokens);
  if (concept) return concept;
  if (subject.type === 'constraint') return unresolved('a constraint that no symbol names: kept, because it bears on the code through the documents that state it');
  return unresolved(`no symbol's name or place holds the words of "${raw}"`);
}

/** The symbols whose names have exactly the phrase's words. */
function bySameWords({ index, subject, code, raw, maxWeak }: Naming, tokens: readonly string[], codeButMissing: boolean): Link | undefined {
  const same = (index.byWords.get(tokens.join(' ')) ?? []).filter((s) => tokens.length > 1 || subject.type === 'component' || TYPE_KINDS.has(s.kind));
  if (!same.length) return undefined;
  if (codeButMissing) {
    // An identifier that is not in the code but whose words are: a different name for something, not the same name.
    return weakSet(same, `\`${code}\` is not a symbol here, but ${same.length === 1 ? same[0]!.qname + ' has' : same.length + ' symbols have'} the same words`, 0.6, maxWeak);
  }
  const types = same.filter((s) => TYPE_KINDS.has(s.kind));
  if (same.length === 1 && tokens.length > 1) return proseLink(same[0]!, 0.9, `"${raw}" is ${same[0]!.qname} written as prose`, maxWeak, tokens);
  if (types.length === 1 && tokens.length > 1) return proseLink(types[0]!, 0.85, `"${raw}" is the ${types[0]!.kind} ${types[0]!.qname} written as prose (${same.length - 1} member${same.length > 2 ? 's' : ''} share the words)`, maxWeak, tokens);
  if (same.length > 1) {
    const narrowed = narrowByContext(same, subject.context);
    if (narrowed.length === 1) return proseLink(narrowed[0]!, 0.8, `"${raw}" names ${same.length} symbols; the passage also names ${narrowed[0]!.parentName ?? narrowed[0]!.path}, so ${narrowed[0]!.qname}`, maxWeak);
  }
  if (tokens.length > 1 || subject.type === 'component') return weakSet(same, `"${raw}" matches the names of ${same.length} symbols`, 0.7, maxWeak);
  return undefined;
}

/** A qualifier the symbol's place supplies: "settlement retry policy" → RetryPolicy in src/settlement. */
function byQualifyingPlace({ index, raw, maxWeak }: Naming, tokens: readonly string[]): Link | undefined {
  for (let k = 1; k < tokens.length; k++) {
    const head = tokens.slice(0, k);
    const tail = tokens.slice(k);
    if (tail.length < 2 && k < tokens.length - 1) continue;
    const hits = (index.byWords.get(tail.join(' ')) ?? []).filter((s) => head.every((h) => placeHas(s, h)));
    const preferred = hits.filter((s) => TYPE_KINDS.has(s.kind));
    const pick = preferred.length === 1 ? preferred : hits;
    if (pick.length === 1 && (tail.length > 1 || TYPE_KINDS.has(pick[0]!.kind))) {
      return proseLink(pick[0]!, 0.8, `"${raw}": ${pick[0]!.qname}, in ${pick[0]!.parentName ?? pick[0]!.path}, supplies "${head.join(' ')}"`, maxWeak);
    }
  }
  return undefined;
}

/** A concept spanning several symbols: every phrase word is in the symbol's name or place, and one is in its name. */
function asConcept({ index, raw, maxWeak }: Naming, tokens: readonly string[]): Link | undefined {
  const weight = tokens.reduce((n, t) => n + index.idf(t), 0);
  const scored: { s: IndexedSymbol; score: number }[] = [];
  const pool = new Set<IndexedSymbol>();
  for (const t of tokens) for (const s of index.byWord.get(t) ?? []) pool.add(s);
  for (const s of pool) {
    // In the pool, a word of the phrase is in the name.
    if (!fitsConcept(s.words, tokens, (t) => placeHas(s, t))) continue;
    const nameWords = new Set(s.words);
    const score = tokens.reduce((n, t) => n + (nameWords.has(t) ? index.idf(t) : 0.6 * index.idf(t)), 0) / weight;
    scored.push({ s, score });
  }
  if (!scored.length) return undefined;
  const set = topLevel(scored.map((x) => x.s));
  const score = Math.max(...scored.map((x) => x.score)) * 0.7;
  return weakSet(set, `"${raw}" is a concept spread over ${set.length} symbol${set.length === 1 ? '' : 's'} whose names and places hold its words`, score, maxWeak);
}

/**
 * A phrase that denotes one symbol: strong, unless the symbol is test code or the phrase is two words. A document's
 * prose ("the test suite", "resource limits", "exclude namespaces") means a test's helper far less often than a phrase
 * of the same words means the thing itself: in a sample of 41 prose links judged by hand (one per corpus of the
 * knowledge bench), 6 of the 15 wrong were to test code. Of 60 two-word phrases that were one symbol's words in a
 * second sample (131 links, three per corpus), 27 meant something else ("restore data", "query data", "git repo");
 * of 20 phrases of three words or more, 3. Weak there, to verify.
 */
function proseLink(s: IndexedSymbol, score: number, reason: string, maxWeak: number, words?: readonly string[]): Link {
  if (isTestPath(s.path)) return weakSet([s], `${reason}, but ${s.path} is test code, which prose rarely means — verify`, 0.6, maxWeak);
  if (words && words.length < 3) return weakSet([s], `${reason}, but two words are as often plain prose ("restore data", "base url") — verify`, 0.65, maxWeak);
  return { tier: 'strong', symbols: [linked(s)], score, reason };
}

function weakSet(list: readonly IndexedSymbol[], reason: string, score: number, maxWeak: number): Link {
  const sorted = sortSymbols(list);
  if (sorted.length > maxWeak) return unresolved(`${reason}: ${sorted.length} symbols is too broad to be a link`);
  return { tier: 'weak', symbols: sorted.map(linked), score, reason };
}
