import * as path from 'node:path';
import { readWorkspaceText } from '../../repo/read.js';
import { LinkReach, linkEntity } from '../../linking/link.js';
import { sha256 } from '../../llm/runner.js';
import type { LinkTier } from '../../model/tiers.js';
import { indexedFiles, reachedSymbolIndex, symbolIdsFingerprint, symbolSpansIn } from '../../structural/lookup.js';
import { citableDocuments } from '../store/documents.js';
import { codeNeighbours, entitiesToLink } from '../store/graph.js';
import { replaceLinks, type CitationToWrite, type LinkToWrite } from '../store/links.js';
import { lastSymbolsHash } from '../store/runs.js';
import type { GraphFreshness, RunContext, WorkflowOutput } from './types.js';

/*
 * link_symbols: every entity → the structural symbols it denotes, with a
 * link tier (kn_links), and the code comments that cite a document
 * (kn_citations). Skipped when neither the graph nor the code changed.
 */

/**
 * The documents code may name, by their file name (`0007-retry.md`, after a
 * space, quote, backtick, parenthesis or slash, ending at a word boundary) or
 * by their handle (ADR-7, ADR-0007, RFC 12, an annotation `@ADR(7)`), looked up in one pass over a
 * text: each place a name can start is checked against the names that start
 * with its first characters, and handles are found by one expression. A
 * regular expression per document, run over every file, made the cost
 * documents × code bytes.
 */
export class Needles {
  /** First characters of a file name → the names starting with them and their needle's index. */
  private readonly byPrefix = new Map<string, { name: string; index: number }[]>();
  /** `ADR-7` → needle indices. */
  private readonly byHandle = new Map<string, number[]>();
  /** Needle index → document id, in the order the documents came. */
  readonly docs: number[] = [];
  /** The lengths of the keys (a name shorter than PREFIX is its own key). */
  private readonly keyLengths = new Set<number>();
  /**
   * The places a name can start (after a space, quote, backtick, parenthesis
   * or slash, on one of the names' first characters), found by the regular
   * expression engine: a loop over every character in script cost more than
   * the rest of the pass.
   */
  private readonly starts: RegExp;

  constructor(docs: readonly { id: number; path: string | null; ref: string | null }[]) {
    const firstChars = new Set<number>();
    for (const d of docs) {
      if (d.path && !d.path.includes('#')) {
        const name = path.posix.basename(d.path);
        if (name) {
          const key = name.slice(0, PREFIX);
          this.keyLengths.add(key.length);
          firstChars.add(name.charCodeAt(0));
          const list = this.byPrefix.get(key) ?? [];
          list.push({ name, index: this.docs.length });
          this.byPrefix.set(key, list);
          this.docs.push(d.id);
        }
      }
      if (d.ref && /^(ADR|RFC|INC)-\d+$/.test(d.ref)) {
        const [p, n] = d.ref.split('-');
        const key = `${p}-${Number(n)}`;
        this.byHandle.set(key, [...(this.byHandle.get(key) ?? []), this.docs.length]);
        this.docs.push(d.id);
      }
    }
    const unit = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
    this.starts = new RegExp(`(?<=^|[${[...BEFORE_NAME].map(unit).join('')}])[${[...firstChars].map(unit).join('')}]`, 'g');
  }

  get size(): number {
    return this.docs.length;
  }

  /** The needles a line (or any text) names, each once, in needle order. */
  matches(text: string): number[] {
    const hit = new Set<number>();
    if (this.byPrefix.size) {
      for (const m of text.matchAll(this.starts)) {
        const p = m.index;
        for (const k of this.keyLengths) {
          for (const { name, index } of this.byPrefix.get(text.slice(p, p + k)) ?? []) {
            if (text.startsWith(name, p) && wordBoundary(text, p + name.length)) hit.add(index);
          }
        }
      }
    }
    if (this.byHandle.size) {
      for (const m of text.matchAll(HANDLE)) {
        for (const index of this.byHandle.get(`${(m[1] ?? m[3])!.toUpperCase()}-${Number(m[2] ?? m[4])}`) ?? []) hit.add(index);
      }
    }
    return [...hit].sort((a, b) => a - b);
  }
}

/** How many leading characters of a document's file name key the lookup (shorter names are keyed whole). */
const PREFIX = 3;
/** Where a file name may start: after whitespace, a quote, a backtick, a parenthesis or a slash. */
const BEFORE_NAME = new Set([...' \t\n\r\v\f`\'"(/'].map((c) => c.charCodeAt(0)));
/**
 * A handle as prose writes it (ADR-7, ADR-0007, adr 7, RFC12), or as code
 * annotates with it: an annotation or attribute taking the number, `@ADR(19)`,
 * `@ADR(value = 19)`, `[ADR(19)]` (the `@` or `[` and the closing parenthesis
 * required, so a call such as `rfc(3)` in a sentence is not one).
 */
const HANDLE = /\b(ADR|RFC|INC)[- ]?0*(\d+)\b|(?<=[@[])(ADR|RFC|INC)\(\s*(?:value\s*=\s*)?0*(\d+)\s*\)/gi;

function isWord(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** A regular expression's `\b` at position i. */
function wordBoundary(text: string, i: number): boolean {
  const before = i > 0 && isWord(text.charCodeAt(i - 1));
  const after = i < text.length && isWord(text.charCodeAt(i));
  return before !== after;
}

/** The lines of one file that name a document, each with the symbol it sits in or just above. Pure. */
export function citationsIn(file: string, text: string, needles: Needles, symbols: readonly { sid: string; line: number; endLine: number }[]): CitationToWrite[] {
  const out: CitationToWrite[] = [];
  // Most files cite nothing: one scan of the whole text decides before it is split into lines.
  if (!needles.matches(text).length) return out;
  let ln = 0;
  for (const line of text.split('\n')) {
    ln++;
    const hits = needles.matches(line);
    if (!hits.length) continue;
    // The innermost symbol around the line, else the first one starting just below it (a doc comment, or an annotation or decorator: `@ADR(19)`).
    const inside = symbols.filter((s) => s.line <= ln && s.endLine >= ln).sort((a, b) => a.endLine - a.line - (b.endLine - b.line))[0];
    const below = symbols.filter((s) => s.line > ln && s.line <= ln + 4).sort((a, b) => a.line - b.line)[0];
    const target = inside && (!below || inside.endLine - inside.line < 200) ? (below && /^\s*(\*|\/\/|#|\/\*\*?|@[A-Za-z]|\[[A-Za-z][\w.]*\()/.test(line) ? below : inside) : below;
    for (const index of hits) out.push({ docId: needles.docs[index]!, path: file, line: ln, sid: target?.sid ?? null, text: line.trim().slice(0, 300) });
  }
  return out;
}

/** Comments and strings in the indexed code that name a document: each file read once, scanned once for every document. */
async function findCitations(ctx: RunContext, files: readonly string[]): Promise<CitationToWrite[]> {
  const needles = new Needles(await citableDocuments(ctx.db));
  if (!needles.size) return [];
  const out: CitationToWrite[] = [];
  for (const f of files) {
    const text = readWorkspaceText(ctx.root, path.join(ctx.root, f));
    // Most files cite nothing: their symbols are not read.
    if (text === undefined || !needles.matches(text).length) continue;
    out.push(...citationsIn(f, text, needles, await symbolSpansIn(ctx.db, f)));
  }
  return out;
}

export async function linkSymbols(ctx: RunContext, input: GraphFreshness): Promise<WorkflowOutput<{ symbolsHash: string }>> {
  const { db } = ctx;
  // Links depend on the graph, the symbols and the code's comments (citations): files' hashes cover all three sides of the code.
  const files = await indexedFiles(db);
  const byPath = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const symbolsHash = sha256(JSON.stringify([await symbolIdsFingerprint(db), byPath.map((f) => [f.path, f.hash])]));
  if (input.graphUnchanged && (await lastSymbolsHash(db)) === symbolsHash) return { stats: { unchanged: 1 }, output: { symbolsHash } };
  // Identifiers the entity is related to (named in the same sentence, or related by the model): they tell apart
  // symbols that share a name. Not the whole chunk: a thread that names RetryPolicy.ts once does not make every
  // "max attempts" in it the TypeScript one.
  const context = await codeNeighbours(db);
  const subjects = (await entitiesToLink(db)).map((e) => ({ id: e.id, name: e.name, type: e.type, context: context.get(e.id) ?? [] }));
  // Only the symbols these names can reach are read: a repository's million symbols are not held to link its documents.
  const index = await reachedSymbolIndex(db, new LinkReach(subjects));
  const links: LinkToWrite[] = [];
  const tiers: Record<LinkTier, number> = { exact: 0, strong: 0, weak: 0, unresolved: 0 };
  for (const e of subjects) {
    const link = linkEntity(index, e);
    tiers[link.tier]++;
    if (!link.symbols.length) links.push({ entityId: e.id, tier: 'unresolved', sid: null, score: 0, reason: link.reason });
    for (const s of link.symbols) links.push({ entityId: e.id, tier: link.tier, sid: s.sid, score: link.score, reason: link.reason });
  }
  const citations = await findCitations(ctx, files.filter((f) => !f.skipped).map((f) => f.path));
  await db.write((w) => replaceLinks(w, links, citations));
  return { stats: { ...tiers, citations: citations.length, symbols: index.size, symbolsRead: index.all.length }, output: { symbolsHash } };
}
