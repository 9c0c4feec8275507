import { Yielder } from '../../shared/yielder.js';
import type { SymbolKind } from '../model/structural.js';
import type { SymbolRef } from '../model/symbolRef.js';
import { identifierWords, phraseTokens } from './names.js';
import { stem } from '../../shared/stem.js';

/*
 * The structural symbols as the linker sees them: by exact name, by the words
 * of their name (RetryPolicy → "retry policy"), by file, with the words of
 * where they live (their class, their folder and file) for context. Built
 * from the rows the structural memory supplies (structural/lookup.ts:
 * symbolIndexOf, loadSymbolIndex), so the linker reads no table itself.
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
  readonly bySid = new Map<string, IndexedSymbol>();
  readonly all: IndexedSymbol[] = [];
  private readonly docFreq = new Map<string, number>();
  // A file holds hundreds of symbols and names repeat (`__init__`, `get`): their words are worked out once each.
  private readonly pathWords = new Map<string, readonly string[]>();
  private readonly nameTokens = new Map<string, readonly string[]>();

  /** Built a page of rows at a time, giving the thread back between slices: a large repository has a million symbols. */
  static async fromPages(pages: AsyncIterable<readonly SymbolRow[]>): Promise<SymbolIndex> {
    const index = new SymbolIndex([]);
    const yielder = new Yielder();
    for await (const rows of pages) {
      for (const r of rows) {
        index.add(r);
        if (yielder.due()) await yielder.yield();
      }
    }
    return index;
  }

  constructor(rows: readonly SymbolRow[]) {
    for (const r of rows) this.add(r);
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

  private add(r: SymbolRow): void {
    const s: IndexedSymbol = {
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
    this.bySid.set(s.sid, s);
    if (r.kind === 'module') {
      this.modulesByPath.set(r.path, s);
      push(this.modulesByBasename, r.path.slice(r.path.lastIndexOf('/') + 1), s);
      return;
    }
    if (!LINKABLE.has(r.kind)) return;
    this.all.push(s);
    push(this.byName, r.name, s);
    push(this.byLowerName, r.name.toLowerCase(), s);
    push(this.byWords, s.words.join(' '), s);
    for (const w of new Set(s.words)) {
      push(this.byWord, w, s);
      this.docFreq.set(w, (this.docFreq.get(w) ?? 0) + 1);
    }
  }

  /** The module of a file given by its path relative to the workspace, or by a tail of it (`urls/base.py`). */
  moduleAt(rel: string): IndexedSymbol | undefined {
    const whole = this.modulesByPath.get(rel);
    if (whole) return whole;
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    return (this.modulesByBasename.get(base) ?? []).find((m) => m.path.endsWith('/' + rel));
  }

  get size(): number {
    return this.all.length;
  }

  /** How rare a name word is among the symbols: common words (get, service, data) weigh little. */
  idf(word: string): number {
    return Math.log(1 + this.all.length / (1 + (this.docFreq.get(word) ?? 0)));
  }

  /** Names usable as prose phrases by the offline extractor: types and constants. */
  phraseNames(): string[] {
    const out = new Set<string>();
    for (const s of this.all) {
      if (s.kind === 'class' || s.kind === 'interface' || s.kind === 'enum' || s.kind === 'type' || (s.kind === 'constant' || s.kind === 'field') && /^[A-Z][A-Z0-9_]+$/.test(s.name)) out.add(s.name);
    }
    return [...out].sort();
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
