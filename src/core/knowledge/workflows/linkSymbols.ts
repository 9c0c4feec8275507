import * as fs from 'node:fs';
import * as path from 'node:path';
import { linkEntity } from '../../linking/link.js';
import type { SymbolIndex } from '../../linking/symbolIndex.js';
import { sha256 } from '../../llm/runner.js';
import type { LinkTier } from '../../model/tiers.js';
import { indexedFiles } from '../../structural/lookup.js';
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

export interface LinkInput extends GraphFreshness {
  readonly symbols: SymbolIndex;
}

/** A document as code may name it: by its file name, or by its handle (ADR-7, ADR-0007, RFC 12). */
interface Needle {
  readonly re: RegExp;
  readonly doc: number;
}

function needlesOf(docs: readonly { id: number; path: string | null; ref: string | null }[]): Needle[] {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const out: Needle[] = [];
  for (const d of docs) {
    if (d.path && !d.path.includes('#')) out.push({ re: new RegExp(`(?:^|[\\s\`'"(/])${esc(path.posix.basename(d.path))}\\b`), doc: d.id });
    if (d.ref && /^(ADR|RFC|INC)-\d+$/.test(d.ref)) {
      const [p, n] = d.ref.split('-');
      out.push({ re: new RegExp(`\\b${p}[- ]?0*${Number(n)}\\b`, 'i'), doc: d.id });
    }
  }
  return out;
}

/** The lines of one file that name a document, each with the symbol it sits in or just above. Pure. */
export function citationsIn(file: string, text: string, needles: readonly Needle[], symbols: readonly { sid: string; line: number; endLine: number }[]): CitationToWrite[] {
  if (!needles.some((n) => n.re.test(text))) return [];
  const out: CitationToWrite[] = [];
  text.split('\n').forEach((line, i) => {
    const ln = i + 1;
    for (const n of needles) {
      if (!n.re.test(line)) continue;
      // The innermost symbol around the line, else the first one starting just below it (a doc comment).
      const inside = symbols.filter((s) => s.line <= ln && s.endLine >= ln).sort((a, b) => a.endLine - a.line - (b.endLine - b.line))[0];
      const below = symbols.filter((s) => s.line > ln && s.line <= ln + 4).sort((a, b) => a.line - b.line)[0];
      const target = inside && (!below || inside.endLine - inside.line < 200) ? (below && /^\s*(\*|\/\/|#|\/\*\*?)/.test(line) ? below : inside) : below;
      out.push({ docId: n.doc, path: file, line: ln, sid: target?.sid ?? null, text: line.trim().slice(0, 300) });
    }
  });
  return out;
}

/** Comments and strings in the indexed code that name a document. */
async function findCitations(ctx: RunContext, index: SymbolIndex, files: readonly string[]): Promise<CitationToWrite[]> {
  const needles = needlesOf(await citableDocuments(ctx.db));
  if (!needles.length) return [];
  const bySymbolFile = new Map<string, { sid: string; line: number; endLine: number }[]>();
  for (const s of index.all) bySymbolFile.set(s.path, [...(bySymbolFile.get(s.path) ?? []), { sid: s.sid, line: s.line, endLine: s.endLine }]);
  const out: CitationToWrite[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(ctx.root, f), 'utf8');
    } catch {
      continue;
    }
    out.push(...citationsIn(f, text, needles, bySymbolFile.get(f) ?? []));
  }
  return out;
}

export async function linkSymbols(ctx: RunContext, input: LinkInput): Promise<WorkflowOutput<{ symbolsHash: string }>> {
  const { db } = ctx;
  const index = input.symbols;
  // Links depend on the graph, the symbols and the code's comments (citations): files' hashes cover all three sides of the code.
  const files = await indexedFiles(db);
  const byPath = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const symbolsHash = sha256(JSON.stringify([index.all.map((s) => s.sid).sort(), byPath.map((f) => [f.path, f.hash])]));
  if (input.graphUnchanged && (await lastSymbolsHash(db)) === symbolsHash) return { stats: { unchanged: 1 }, output: { symbolsHash } };
  // Identifiers the entity is related to (named in the same sentence, or related by the model): they tell apart
  // symbols that share a name. Not the whole chunk: a thread that names RetryPolicy.ts once does not make every
  // "max attempts" in it the TypeScript one.
  const context = await codeNeighbours(db);
  const links: LinkToWrite[] = [];
  const tiers: Record<LinkTier, number> = { exact: 0, strong: 0, weak: 0, unresolved: 0 };
  for (const e of await entitiesToLink(db)) {
    const link = linkEntity(index, { name: e.name, type: e.type, context: context.get(e.id) ?? [] });
    tiers[link.tier]++;
    if (!link.symbols.length) links.push({ entityId: e.id, tier: 'unresolved', sid: null, score: 0, reason: link.reason });
    for (const s of link.symbols) links.push({ entityId: e.id, tier: link.tier, sid: s.sid, score: link.score, reason: link.reason });
  }
  const citations = await findCitations(ctx, index, files.filter((f) => !f.skipped).map((f) => f.path));
  await db.write((w) => replaceLinks(w, links, citations));
  return { stats: { ...tiers, citations: citations.length, symbols: index.size }, output: { symbolsHash } };
}
