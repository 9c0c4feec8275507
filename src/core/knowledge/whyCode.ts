import * as path from 'node:path';
import { readWorkspaceText } from '../repo/read.js';
import { folderOf, isTestPath } from '../../shared/paths.js';
import { identifierWords, isCodeShaped, segments } from '../linking/names.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';
import { callSitesOf } from '../structural/lookup.js';
import { documentRef, invisibleIn, type DocumentRef } from './quotes.js';
import { literalOf, proseForms, stringLiteralOf, stringValueForms, valueForms, type Ties } from './reasons.js';
import { commentsAtLine, placeAgainst, symbolText, type CodeNote } from './sources/codeNotes.js';
import { filesOfCommits, historyOfLines } from './sources/lineHistory.js';
import { commitDocumentsBySha } from './store/documents.js';
import { quote } from './text.js';
import { aboutItself, addPassage, reached, type Anchor, type Reached, type ScopeRelation, type ScopeSymbol } from './whyScope.js';

/*
 * Reasons found outside the knowledge graph: the symbol's own doc comment and
 * comments (and its class's doc comment), and the commits that last changed
 * its lines (git blame); and the ties by which a sentence is tied to the
 * symbol (its names as code and prose, its literal value, its file).
 */

// ---------------------------------------------------------------- ties and code

/** The symbol's declaration and notes, read from its file; undefined when the file cannot be read. */
export function readSymbolText(root: string, file: string, line: number, endLine: number, body: boolean, at?: number): ReturnType<typeof symbolText> | undefined {
  const text = readWorkspaceText(root, path.join(root, file), 4 << 20);
  return text === undefined ? undefined : symbolText(text, file, line, endLine, { body, ...(at !== undefined ? { at } : {}) });
}

/** The declaration of a symbol that holds a value (a constant, field, variable, property or enum member), else undefined. */
export function valueDeclaration(target: Pick<SymbolRef, 'kind'>, declaration: string | undefined): string | undefined {
  return declaration && /field|constant|variable|property|enum/.test(target.kind) ? declaration : undefined;
}

/** Call sites read: a helper called from more places than this is a utility, not one setting's. */
const CALL_SITES = 12;

/** A call of the symbol, with the lines of the file it is in. */
interface CallRead {
  readonly path: string;
  readonly line: number;
  readonly col: number;
  /** The symbol that calls it, and the line it is declared on. */
  readonly caller: string;
  readonly callerLine: number;
  readonly lines: readonly string[];
}

/** The first CALL_SITES calls of a symbol, and whether it has more. */
export interface Calls {
  readonly calls: readonly CallRead[];
  readonly more: boolean;
}

/**
 * The first CALL_SITES calls of a function or method (resolved, observed or inferred; by file and line), each with
 * its file's lines, and whether it has more. Read once for what its callers pass it and what they say of it.
 */
export async function callsOf(db: Db, root: string, target: SymbolRef): Promise<Calls> {
  if (!/function|method|constructor/.test(target.kind)) return { calls: [], more: false };
  const sites = await callSitesOf(db, target, CALL_SITES + 1);
  const texts = new Map<string, string[] | undefined>();
  const calls: CallRead[] = [];
  for (const s of sites.slice(0, CALL_SITES)) {
    if (!texts.has(s.path)) texts.set(s.path, readWorkspaceText(root, path.join(root, s.path))?.split('\n'));
    const lines = texts.get(s.path);
    if (lines) calls.push({ ...s, lines });
  }
  return { calls, more: sites.length > CALL_SITES };
}

/**
 * The string literals its callers pass it, as written at each call (`_get_mode_value_from_envvar("SAM_BUILD_MODE",
 * choices=["debug"])` passes SAM_BUILD_MODE and debug), with the first place each is passed. A helper that reads a
 * setting by a name its caller gives is about that setting; the documents speak of the setting. Read from the
 * call's line and the two after it, up to the call's closing parenthesis; a helper with more than CALL_SITES calls
 * gives none.
 */
export function literalsPassedTo({ calls, more }: Calls): { value: string; at: string }[] {
  if (more) return [];
  const out = new Map<string, string>();
  for (const s of calls) {
    const from = (s.lines[s.line - 1] ?? '').slice(s.col);
    const open = from.indexOf('(');
    if (open < 0) continue;
    const call = argumentsText([from.slice(open + 1), ...s.lines.slice(s.line, s.line + 2)].join('\n'));
    for (const m of call.matchAll(/(["'`])([^"'`\\\n]{1,80})\1/g)) if (!out.has(m[2]!)) out.set(m[2]!, `${s.path}:${s.line}`);
  }
  return [...out].map(([value, at]) => ({ value, at }));
}

/**
 * The comments its callers write at a call of it that name it (`// Use LookupTLSSecretInsecure instead of
 * LookupTLSSecret since Gateway API uses its own mechanism …` over the call), as sources: why the code calls this
 * and not something else is a reason for what it is. Only a comment on the call's line or just above it, inside
 * the caller (never the caller's doc comment), that names it as written (a comment there that names nothing may
 * be about the whole statement), outside test code (a test's comment says what it expects, not why), and only for
 * a name that is code-shaped (a comment saying "get" or "run" names nothing). Strong: the index matched the call
 * to it, by name or better.
 */
export function callerComments(target: SymbolRef, { calls }: Calls, docs: Map<number, Reached>, next: () => number): void {
  if (!isCodeShaped(target.name)) return;
  const names = new RegExp(`(?<![\\w$])${target.name.replace(/[$]/g, '\\$&')}(?![\\w$])`);
  const seen = new Set<string>();
  for (const c of calls) {
    // (A call of itself is in its own body, whose comments are its own sources already.)
    if (isTestPath(c.path) || c.caller === target.qname) continue;
    for (const note of commentsAtLine(c.lines, c.path, c.line)) {
      const key = `${c.path}#L${note.line}`;
      // A comment above the caller's own declaration is its doc comment: about the caller (a wrapper often has the
      // name it calls: `// GetTxCmd returns the root tx command …` over `func GetTxCmd() … { return cli.GetTxCmd() }`).
      if (note.line <= c.callerLine || seen.has(key) || !names.test(note.text)) continue;
      seen.add(key);
      const id = next();
      const document: DocumentRef = { id, source: key, kind: 'doc', title: `comment at its call in ${c.caller}`, path: c.path };
      const anchor: Anchor = { entity: target.name, entityType: 'code', tier: 'strong', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `a comment at its call in ${c.caller} (${c.path}:${c.line}) names it` };
      docs.set(id, noteReached(document, note, anchor, 'comment at a call'));
    }
  }
}

/** The text of a call's arguments: up to the parenthesis that closes the call (or all of it, when it does not close). */
function argumentsText(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return text.slice(0, i);
      depth--;
    }
  }
  return text;
}

/** Ties of the symbol: its names as code and prose, its literal value, its file and folder, its neighbours. */
export function tiesOf(target: SymbolRef, scope: readonly ScopeSymbol[], declaration: string | undefined): Ties {
  const segs = segments(target.qname);
  const names = new Set<string>([target.qname]);
  if (segs.length >= 2) names.add(segs.slice(-2).join('.'));
  const phrases: string[][] = [];
  if (isCodeShaped(target.name) || /[A-Z_]/.test(target.name) && target.name.length >= 5) names.add(target.name);
  phrases.push(...proseForms(target.name));
  // What a getter or setter is about, as the code and the documents name it: SetTotalEscrowForDenom → TotalEscrowForDenom, totalEscrowForDenom (a state key).
  const words = identifierWords(target.name);
  if (words.length > 2 && /^(get|set|is|has|load|save|store|put|read|write|update|delete|remove)$/.test(words[0]!) && /^[a-z]+[A-Z]|^[A-Z][a-z]+[A-Z]/.test(target.name)) {
    const body = target.name.slice(words[0]!.length);
    names.add(body);
    names.add(body[0]!.toLowerCase() + body.slice(1));
  }
  if (segs.length >= 2) phrases.push(...proseForms(`${segs[segs.length - 2]}_${target.name}`));
  const values: string[] = [];
  // A value's declaration: its number (with a unit), else its string, as prose writes them.
  const valued = valueDeclaration(target, declaration);
  const lit = valued ? literalOf(valued) : undefined;
  if (lit) values.push(...valueForms(lit, target.name));
  const str = valued && !lit ? stringLiteralOf(valued) : undefined;
  if (str !== undefined) values.push(...stringValueForms(str));
  const base = path.posix.basename(target.path);
  const places = [base, ...(base.replace(/\.\w+$/, '') !== target.name ? [base.replace(/\.\w+$/, '')] : [])];
  // (Not the types it extends: a document about the symbol that also names its base class speaks of the base there —
  // winery's ID system, whose sentence on `DefinitionsChildId` took the lead from "`GenericImportId` is an artificial
  // entity". A document reached through the base type is tied by its name all the same, as its anchor.)
  const neighbours = scope.filter((s) => s.relation !== 'self' && s.relation !== 'supertype').map((s) => segments(s.qname).pop()!).filter((n) => n && n !== target.name && (isCodeShaped(n) || n.length >= 6));
  return { names: [...names], phrases, values, places, neighbours: [...new Set(neighbours)] };
}

/** The neighbours whose doc comments are read with the symbol's: its class, the member it overrides, the type it extends or implements. */
export const NOTED_RELATIONS: ReadonlySet<ScopeRelation> = new Set(['container', 'overrides', 'supertype']);

const NOTE_OF: Partial<Record<ScopeRelation, string>> = { self: 'of', container: 'on its class,', overrides: 'of what it overrides,', supertype: 'of the type it extends or implements,' };

export function noteTitle(note: CodeNote, qname: string, relation: ScopeRelation): string {
  const what = note.kind === 'docstring' ? 'doc comment' : note.tag ? `${note.tag} comment` : 'comment';
  return `${what} ${NOTE_OF[relation] ?? 'of'} ${qname}`;
}

/** The symbol's own notes, its class's and those of the members it overrides, as sources. */
export function codeSources(root: string, target: SymbolRef, scope: readonly ScopeSymbol[], ranges: Ranges, docs: Map<number, Reached>, next: () => number, at?: number): { declaration?: string } {
  const index = ranges.get(target.sid);
  const line = target.line;
  const endLine = index?.endLine ?? target.line;
  const own = readSymbolText(root, target.path, line, endLine, true, at);
  const add = (note: CodeNote, sym: { qname: string; path: string }, relation: ScopeRelation) => {
    const id = next();
    const place = relation === 'self' && at !== undefined ? placeAgainst(note, at) : undefined;
    const title = place ? `${note.tag ? `${note.tag} comment` : 'comment'} ${place} line ${at} of ${sym.qname}` : noteTitle(note, sym.qname, relation);
    const document: DocumentRef = { id, source: `${sym.path}#L${note.line}`, kind: 'doc', title, path: sym.path };
    const anchor: Anchor = { entity: sym.qname, entityType: 'code', tier: 'exact', symbol: { sid: relation === 'self' ? target.sid : (scope.find((s) => s.qname === sym.qname)?.sid ?? ''), qname: sym.qname }, relation, reason: `${note.kind === 'docstring' ? 'its doc comment' : 'a comment in it'} at ${sym.path}:${note.line}` };
    const r = noteReached(document, note, anchor, note.kind === 'docstring' ? 'docstring' : 'code comment');
    if (place) r.atLine = at;
    docs.set(id, r);
  };
  for (const note of own?.notes ?? []) add(note, target, 'self');
  // A class and its constructor are one answer: the constructor's doc comment ("Creates a reader. It is not thread-safe because …") is about the class.
  for (const ctor of constructorsOf(target, scope)) {
    const r = ranges.get(ctor.sid);
    if (!r) continue;
    const notes = readSymbolText(root, r.path, r.line, r.endLine, false);
    // (A short class's own reading holds the comments inside it already.)
    for (const note of notes?.notes ?? []) if (note.kind === 'docstring' && !own?.notes.some((o) => o.line === note.line)) add(note, { qname: ctor.qname, path: r.path }, 'self');
  }
  // The doc comments of its class, of the members it overrides and of the types it extends (the contract it implements).
  for (const s of scope) {
    const c = NOTED_RELATIONS.has(s.relation) ? ranges.get(s.sid) : undefined;
    if (!c) continue;
    const notes = readSymbolText(root, c.path, c.line, c.endLine, false);
    for (const note of notes?.notes ?? []) if (note.kind === 'docstring') add(note, { qname: s.qname, path: c.path }, s.relation);
  }
  return own ? { declaration: own.declaration } : {};
}

/** A comment in the code as a source reached by `anchor` (its tier and relation), its text to rank and cite by line. */
function noteReached(document: DocumentRef, note: CodeNote, anchor: Anchor, extractedBy: string): Reached {
  const r = reached(document, anchor.tier, anchor.relation, [extractedBy]);
  r.anchors.push(anchor);
  const lineOf = (offset: number) => note.line + (note.text.slice(0, offset).match(/\n/g)?.length ?? 0);
  r.text = { body: note.text, threaded: false, cite: (offset) => ({ line: lineOf(offset) }) };
  const first = note.text.split('\n\n')[0]!;
  addPassage(r, { document, quote: quote(first, 280), ...invisibleIn(first), line: note.line });
  return r;
}

/** Whether a comment is about one line (`placeAgainst`: on it, or ending at most two lines above it). */
export function isAtLine(note: Pick<CodeNote, 'line' | 'endLine'>, at: number): boolean {
  return placeAgainst(note, at) !== undefined;
}

/** The constructors among a class's members: named as the class (Java, C#), `constructor` (TypeScript), `__init__` (Python). */
export function constructorsOf(target: SymbolRef, scope: readonly ScopeSymbol[]): ScopeSymbol[] {
  if (!/class|struct/.test(target.kind)) return [];
  return scope.filter((s) => s.relation === 'member' && [target.name, 'constructor', '__init__', '<init>'].includes(segments(s.qname).pop() ?? ''));
}

export type Ranges = ReadonlyMap<string, { readonly path: string; readonly line: number; readonly endLine: number }>;

/** A commit that last wrote some of a symbol's lines, by what it says it did: its subject line. */
export interface ChangeSubject {
  readonly sha: string;
  readonly subject: string;
}

/** A pull request a commit that last wrote some of the symbol's lines came from, with that commit. */
export interface PullRequestOfLines {
  /** "PR #1234" */
  readonly pr: string;
  readonly sha: string;
  /** How many of the symbol's lines the commit last wrote, of how many git blame gave. */
  readonly lines: number;
  readonly of: number;
  /** The commit's message links to it; it is not the pull request the commit came from. */
  readonly linked?: true;
}

/** The commits that last changed the symbol's lines, as sources (merged with their stored commit documents). */
export async function historySources(db: Db, root: string, target: SymbolRef, ranges: Ranges, docs: Map<number, Reached>, next: () => number): Promise<{ commits: number; informative: number; pullRequests: PullRequestOfLines[]; subjects: ChangeSubject[] }> {
  const range = ranges.get(target.sid);
  const commits = await historyOfLines(root, target.path, target.line, Math.max(target.line, range?.endLine ?? target.line));
  const informative = commits.filter((c) => c.informative);
  const stored = await commitDocumentsBySha(db, informative.map((c) => c.sha));
  const shown = informative.slice(0, 5);
  const filesOf = await filesOfCommits(root, shown.map((c) => c.sha));
  for (const c of shown) {
    const row = stored.get(c.sha);
    const bulk = bulkChange(c.message, filesOf.get(c.sha)?.length ?? 0, target);
    const tier = bulk ? 'weak' : 'exact';
    const anchor: Anchor = { entity: `commit ${c.sha.slice(0, 7)}`, entityType: 'history', tier, symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `last changed ${c.lines} of its lines (git blame)${c.pr ? `; from ${c.pr}` : ''}${bulk ? `; ${bulk}` : ''}` };
    const existing = row ? docs.get(row.doc_id) : undefined;
    if (existing) {
      aboutItself(existing, anchor);
      existing.extractedBy.add('git blame');
      continue;
    }
    const document: DocumentRef = row ? documentRef(row) : { id: next(), source: `git:${c.sha}`, kind: 'commit', title: c.message.split('\n')[0]!.slice(0, 200), ref: `commit ${c.sha.slice(0, 7)}` };
    const r = reached(document, tier, 'self', ['git blame']);
    r.anchors.push(anchor);
    const body = c.message;
    r.text = { body, threaded: true, cite: () => ({}) };
    addPassage(r, { document, quote: quote(body.split('\n')[0]!, 280), ...invisibleIn(body.split('\n')[0]!) });
    docs.set(document.id, r);
  }
  // The pull requests the commits came from or link to (most lines first): a document that names one, or that one
  // added, is about the change that wrote these lines.
  const pullRequests: PullRequestOfLines[] = [];
  const lines = commits.reduce((n, c) => n + c.lines, 0);
  for (const c of commits) {
    const named = [...(c.pr ? [{ pr: c.pr }] : []), ...c.links.map((pr) => ({ pr, linked: true as const }))];
    for (const p of named) if (!pullRequests.some((q) => q.pr === p.pr)) pullRequests.push({ ...p, sha: c.sha, lines: c.lines, of: lines });
  }
  const subjects = shown.map((c) => ({ sha: c.sha, subject: c.message.split('\n')[0]! }));
  return { commits: commits.length, informative: informative.length, pullRequests, subjects };
}

/** Files a commit may change and still be about the symbol whose lines it wrote, when its message does not name it. */
const BULK_FILES = 50;

/**
 * Why a commit that wrote the symbol's lines is weak for it, or undefined
 * when it is not: it changed many files at once (an import of a tree, a
 * rename across the repository, a formatter run) and its message names
 * neither the symbol nor its file, so the message is about all of them (a
 * folder named is the neighbourhood, not the symbol). git blame is still
 * right that it wrote these lines.
 */
export function bulkChange(message: string, files: number, target: Pick<SymbolRef, 'name' | 'path'>): string | undefined {
  if (files < BULK_FILES) return undefined;
  const text = message.toLowerCase();
  const base = path.posix.basename(target.path).replace(/\.\w+$/, '').toLowerCase();
  const words = identifierWords(target.name).join(' ').toLowerCase();
  const names = [target.name.toLowerCase(), base, words].filter((n) => n.length >= 3);
  if (names.some((n) => text.includes(n))) return undefined;
  return `it changed ${files} files at once and its message names nothing of it: about all of them, verify`;
}

/**
 * A commit found because its message names the symbol, not because it
 * changed the symbol's lines, that changed nothing in the symbol's folder:
 * its message speaks of the name in passing, or of another symbol that has
 * it (`math.MaxInt` of Go's standard library for a repository's own
 * `libs/math.MaxInt`). It is weak for the symbol — to verify — not exact or
 * strong, and cannot lead the answer. Commits git cannot show are left as
 * they are.
 */
export async function commitsAway(root: string, target: SymbolRef, docs: Map<number, Reached>): Promise<number> {
  const named = [...docs.values()].filter((r) => r.document.kind === 'commit' && r.relation === 'self' && r.hops === 1 && (r.tier === 'exact' || r.tier === 'strong') && !r.anchors.some((a) => a.entityType === 'history'));
  const shaOf = (r: Reached) => /^[^:]*:([0-9a-f]{7,40})$/.exec(r.document.source)?.[1];
  const shas = named.map(shaOf).filter((s): s is string => !!s);
  if (!shas.length) return 0;
  const files = await filesOfCommits(root, shas);
  const folder = folderOf(target.path);
  let demoted = 0;
  for (const r of named) {
    const changed = files.get(shaOf(r) ?? '');
    if (!changed) continue;
    if (changed.some((f) => (folder === '' ? !f.includes('/') : f.startsWith(`${folder}/`)))) continue;
    r.tier = 'weak';
    const why = `"${r.anchors.find((a) => a.relation === 'self')?.entity ?? target.name}" names it, but the commit changed nothing in ${folder === '' ? 'its folder' : `${folder}/`} — perhaps another symbol of the name; verify`;
    r.anchors.splice(0, r.anchors.length, ...r.anchors.map((a): Anchor => (a.relation === 'self' ? { ...a, entityType: 'search', tier: 'weak', reason: why } : a)));
    demoted++;
  }
  return demoted;
}
