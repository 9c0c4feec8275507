import { Yielder } from '../../shared/yielder.js';
import type { SymbolKind } from '../model/structural.js';
import type { SymbolRef } from '../model/symbolRef.js';
import { identifierWords, phraseTokens } from './names.js';
import { stem } from '../../shared/stem.js';
import { push } from '../../shared/maps.js';

/*
 * The structural symbols as the linker sees them: by exact name, by the words
 * of their name (RetryPolicy → "retry policy"), by file, with the words of
 * where they live (their class, their folder and file) for context. Built
 * from the rows the structural memory supplies (structural/lookup.ts:
 * symbolSource), so the linker reads no table itself. At index and query
 * time it holds only the symbols the names being linked can reach (reachedBy),
 * with the word counts of all of them.
 */

export interface IndexedSymbol extends Omit<SymbolRef, 'id'> {
  readonly endLine: number;
  readonly parentName?: string;
  readonly parentSid?: string;
  /** Stemmed words of the name. */
  readonly words: readonly string[];
  /** Stemmed words of where it lives: its folders and file, and its enclosing type (`placeHas`). Shared by every symbol of the same file or type. */
  readonly pathWords: readonly string[];
  readonly parentWords: readonly string[];
}

/** Whether a stemmed word names where a symbol lives: one of its folders, its file or its enclosing type. */
export function placeHas(s: IndexedSymbol, word: string): boolean {
  return s.pathWords.includes(word) || s.parentWords.includes(word);
}

/** One symbol as the structural memory supplies it: where it is, and the type or namespace it is a member of. */
export interface SymbolRow extends Omit<SymbolRef, 'id'> {
  readonly end_line: number;
  readonly parent_name: string | null;
  readonly parent_sid: string | null;
}

const LINKABLE: ReadonlySet<SymbolKind> = new Set(['namespace', 'class', 'interface', 'enum', 'type', 'function', 'method', 'field', 'constant']);
const NO_WORDS: readonly string[] = [];
const PATH_NOISE = new Set(['src', 'lib', 'main', 'java', 'com', 'org', 'net', 'app', 'pkg', 'internal', 'index', 'ts', 'js', 'py', 'go', 'tsx', 'test', 'tests']);

export class SymbolIndex {
  readonly byName = new Map<string, IndexedSymbol[]>();
  /** By name in lower case: a name written in another letter case is looked up, not searched for among every symbol. */
  readonly byLowerName = new Map<string, IndexedSymbol[]>();
  readonly byWords = new Map<string, IndexedSymbol[]>();
  readonly byWord = new Map<string, IndexedSymbol[]>();
  readonly modulesByPath = new Map<string, IndexedSymbol>();
  /** Modules by their file's name: a path written from a subfolder (`base.py`, `urls/base.py`) is matched among these only. */
  private readonly modulesByBasename = new Map<string, IndexedSymbol[]>();
  /** The linkable symbols held (modules aside): every one, or, in an index of what a set of subjects reaches, those. */
  readonly all: IndexedSymbol[] = [];
  /** How many symbols have each word, and how many symbols there are: of the whole index, also when it holds only what subjects reach. */
  private readonly docFreq = new Map<string, number>();
  private total = 0;
  /** Whether docFreq and total were counted over the whole index before it was filled. */
  private counted = false;
  // A file holds hundreds of symbols and names repeat (`__init__`, `get`): their words are worked out once each.
  private readonly pathWords = new Map<string, readonly string[]>();
  private readonly nameTokens = new Map<string, readonly string[]>();

  /**
   * The symbols that linking these subjects can reach, with the word counts of
   * all of them: first every distinct name with its count (words counted, and
   * the names that may reach kept), then the rows of those names, each kept if
   * it reaches. Holds a few thousand symbols where the whole index holds a
   * million, and links the subjects as the whole index would.
   */
  static async reachedBy(reach: Reach, source: SymbolSource): Promise<SymbolIndex> {
    const index = new SymbolIndex([]);
    index.counted = true;
    const yielder = new Yielder();
    const names: string[] = [];
    index.total = await source.count();
    for await (const page of source.names(reach.nameFilter())) {
      for (const { name, n } of page) {
        const words = phraseTokens(name);
        for (const w of new Set(words)) if (reach.words.has(w)) index.docFreq.set(w, (index.docFreq.get(w) ?? 0) + n);
        if (reach.mayReach(name, words)) {
          names.push(name);
          index.nameTokens.set(name, words);
        }
        if (yielder.due()) await yielder.yield();
      }
    }
    // Most rows of a name that may reach do not: they are tested on their words before a symbol is made of them.
    const keep = (r: SymbolRow) => {
      if (r.kind === 'module' || reach.reaches({ name: r.name, words: index.tokensOf(r.name), pathWords: index.wordsOfPath(r.path), parentWords: r.parent_name ? index.tokensOf(r.parent_name) : NO_WORDS })) index.add(index.symbolOf(r));
    };
    for (const r of await source.modulesAt(reach.paths)) keep(r);
    for await (const rows of source.rowsNamed(names)) {
      for (const r of rows) {
        keep(r);
        if (yielder.due()) await yielder.yield();
      }
    }
    // Names shared by many symbols are worked out once each while filling; the cache is not needed to link.
    index.nameTokens.clear();
    return index;
  }

  constructor(rows: readonly SymbolRow[]) {
    for (const r of rows) this.add(this.symbolOf(r));
  }

  private wordsOfPath(rel: string): readonly string[] {
    let words = this.pathWords.get(rel);
    if (!words) {
      const folders = rel.split('/');
      const file = folders.pop() ?? '';
      const out = new Set<string>();
      for (const part of [...folders, file.replace(/\.\w+$/, '')]) for (const w of identifierWords(part)) if (!PATH_NOISE.has(w)) out.add(stem(w));
      this.pathWords.set(rel, (words = [...out]));
    }
    return words;
  }

  private tokensOf(name: string): readonly string[] {
    let tokens = this.nameTokens.get(name);
    if (!tokens) this.nameTokens.set(name, (tokens = phraseTokens(name)));
    return tokens;
  }

  private symbolOf(r: SymbolRow): IndexedSymbol {
    return {
      sid: r.sid,
      name: r.name,
      qname: r.qname,
      kind: r.kind,
      path: r.path,
      line: r.line,
      endLine: r.end_line,
      ...(r.parent_name ? { parentName: r.parent_name } : {}),
      ...(r.parent_sid ? { parentSid: r.parent_sid } : {}),
      words: this.tokensOf(r.name),
      // Shared lists, not a set per symbol: a large repository has a million symbols and far fewer files and types.
      pathWords: this.wordsOfPath(r.path),
      parentWords: r.parent_name ? this.tokensOf(r.parent_name) : NO_WORDS,
    };
  }

  private add(s: IndexedSymbol): void {
    if (s.kind === 'module') {
      this.modulesByPath.set(s.path, s);
      push(this.modulesByBasename, s.path.slice(s.path.lastIndexOf('/') + 1), s);
      return;
    }
    if (!LINKABLE.has(s.kind)) return;
    this.all.push(s);
    push(this.byName, s.name, s);
    push(this.byLowerName, s.name.toLowerCase(), s);
    push(this.byWords, s.words.join(' '), s);
    for (const w of new Set(s.words)) {
      push(this.byWord, w, s);
      if (!this.counted) this.docFreq.set(w, (this.docFreq.get(w) ?? 0) + 1);
    }
    if (!this.counted) this.total++;
  }

  /** The module of a file given by its path relative to the workspace, or by a tail of it (`urls/base.py`). */
  moduleAt(rel: string): IndexedSymbol | undefined {
    const whole = this.modulesByPath.get(rel);
    if (whole) return whole;
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    return (this.modulesByBasename.get(base) ?? []).find((m) => m.path.endsWith('/' + rel));
  }

  /** How many linkable symbols the whole index has (modules aside). */
  get size(): number {
    return this.total;
  }

  /** How rare a name word is among the symbols: common words (get, service, data) weigh little. */
  idf(word: string): number {
    return Math.log(1 + this.total / (1 + (this.docFreq.get(word) ?? 0)));
  }
}

/** What a set of subjects can reach, by name and by symbol (link.ts's LinkReach, which knows the linking rules). */
export interface Reach {
  /** The words the rules weigh: their counts over the whole index are kept. */
  readonly words: ReadonlySet<string>;
  /** Files named by path, whose modules are read. */
  readonly paths: readonly string[];
  /** Names that may reach, as a store can find them without splitting every name into words; undefined for every name. */
  nameFilter(): NameFilter | undefined;
  /** Whether some symbol of this name may be reached (its rows are then read). */
  mayReach(name: string, words: readonly string[]): boolean;
  /** Whether this symbol is reached (it is then held). */
  reaches(s: Pick<IndexedSymbol, 'name' | 'words' | 'pathWords' | 'parentWords'>): boolean;
}

/**
 * A superset of the names a few subjects may reach: the names themselves, the
 * same in lower case, and the names holding a fragment of a word, letter case
 * ignored (a name has a word only if it holds the word's stem less its last
 * letter: the stemmer takes off endings and may turn "ies" into "y").
 */
export interface NameFilter {
  readonly names: readonly string[];
  readonly lowerNames: readonly string[];
  readonly fragments: readonly string[];
}

/** Where an index of what subjects reach reads its symbols (the structural memory: structural/lookup.ts). */
export interface SymbolSource {
  /** How many linkable symbols there are. */
  count(): Promise<number>;
  /** Every distinct name of a linkable symbol (or every one the filter lets through), with how many symbols have it. */
  names(filter?: NameFilter): AsyncIterable<readonly { name: string; n: number }[]>;
  /** The linkable symbols of these names. */
  rowsNamed(names: readonly string[]): AsyncIterable<readonly SymbolRow[]>;
  /** The modules of files at these paths, or whose paths end with them (`urls/base.py`). */
  modulesAt(paths: readonly string[]): Promise<readonly SymbolRow[]>;
}

/** The kinds the linker links, modules aside (a SymbolSource's rows are of these). */
export const LINKABLE_KINDS: readonly SymbolKind[] = [...LINKABLE];

/** Whether a symbol's name is usable as a prose phrase by the offline extractor: a type's, or a constant's written in capitals. */
export function isPhraseName(kind: SymbolKind, name: string): boolean {
  return kind === 'class' || kind === 'interface' || kind === 'enum' || kind === 'type' || ((kind === 'constant' || kind === 'field') && /^[A-Z][A-Z0-9_]+$/.test(name));
}

