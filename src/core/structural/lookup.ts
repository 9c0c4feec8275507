import * as path from 'node:path';
import { readWorkspaceFile } from '../repo/read.js';
import { TenureError } from '../../shared/errors.js';
import { nodeCrypto } from '../../shared/nodeCrypto.js';
import { looksLikeSymbolId } from '../model/symbolId.js';
import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';
import { LINKABLE_KINDS, SymbolIndex, isPhraseName, type Reach, type SymbolRow, type SymbolSource } from '../linking/symbolIndex.js';
import { CALLABLE_KINDS, TYPE_KINDS, type SymbolKind } from '../model/structural.js';
import type { UnreadLanguage } from './inventory/discover.js';
import { READ_LANGUAGE_NAMES, languageForPath, unreadLanguageForPath } from './inventory/languages.js';
import { unreadLanguages } from './store.js';
import { declaredParameters, sameParameters, writtenParameters } from './parameters.js';
import { push } from '../../shared/maps.js';

/*
 * The symbol namespace, the seam where the memories meet: what a person or
 * agent typed resolved to symbols, and the symbols as the linker indexes
 * them. The other memories reach the structural memory through this module
 * only (eslint.config.mjs: SEAM).
 */

const SELECT = `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.end_line, s.origin FROM symbols s JOIN files f ON f.id = s.file_id`;

type Row = SymbolRef & { end_line: number; origin: string | null };

function ref(r: Row): SymbolRef {
  return { id: r.id, sid: r.sid, name: r.name, qname: r.qname, kind: r.kind, path: r.path, line: r.line };
}

/** `a.b.C.m` and `a/b.C#m().` both become [a, b, C, m]; a computed name stays one segment (`Buffer.[Symbol.iterator]`). */
function segments(text: string): string[] {
  const computed: string[] = [];
  return text
    .replace(/\[[^\]]*\]/g, (m) => `\u0000${computed.push(m) - 1}\u0000`)
    .replace(/\(\S*?\)/g, '')
    .split(/[.#/:]+|::/)
    .map((s) => s.replace(/`/g, '').replace(/\u0000(\d+)\u0000/g, (_, i: string) => computed[Number(i)]!))
    .filter(Boolean);
}

export interface ResolveOptions {
  readonly root: string;
}

/**
 * What a person or agent typed → the symbols it denotes. Accepts a full
 * symbol id, a dotted name (`SettlementService.retry`, `retry`), the name
 * of one overload with its parameters (`transfer(DataFlowStartMessage,
 * DataSink)`), a `path:line` location, or a file path. Several matches are an error that
 * lists them all: Tenure never picks one silently.
 */
export async function resolveSymbols(db: Db, text: string, options: ResolveOptions): Promise<SymbolRef[]> {
  const query = text.trim();
  if (!query) throw new TenureError('invalid-input', 'No symbol given. Pass a name such as `SettlementService.retry`, a symbol id, or `path/file.ts:42`.');
  if (!(await isIndexed(db))) throw new TenureError('not-indexed', 'This workspace has not been indexed yet. Run `tenure index` (or wait for the first index in VS Code), then ask again.');

  if (looksLikeSymbolId(query)) {
    const rows = await db.all<Row>(`${SELECT} WHERE s.sid = ?`, [query]);
    if (rows.length) return rows.map(ref);
  }

  const loc = locationOf(query);
  if (loc) {
    const rel = toRel(loc.path, options.root);
    const line = loc.line;
    const rows = await db.all<Row>(
      `${SELECT} WHERE f.path = ? AND s.kind != 'module' AND s.line <= ? AND s.end_line >= ? ORDER BY (s.end_line - s.line) ASC LIMIT 1`,
      [rel, line, line],
    );
    if (rows.length) return rows.map(ref);
    const mod = await moduleAtPath(db, rel);
    if (mod.length) return mod;
    throw new TenureError('symbol-not-found', `No indexed file ${rel}. Check the path (relative to the workspace root) or run \`tenure index\`.${await unreadNote(db, rel)}`);
  }

  // `transfer(DataFlowStartMessage, DataSink)`: the name, then the overloads that take those parameters.
  const written = writtenParameters(query);
  if (written) {
    const named = await resolveSymbols(db, written.name, options);
    if (named.length < 2) return named;
    const taking = withParameters(named, written.parameters, options.root);
    return taking.length ? taking : named;
  }

  const rel = toRel(query, options.root);
  const asFile = await moduleAtPath(db, rel);
  if (asFile.length) return asFile;
  // A file name or the end of a path (`sessions-request.handler.js`, `i18n/index.js`): the file's module, before its dots are read as a name's.
  if (isFileName(query)) {
    const files = await modulesEndingWith(db, rel);
    if (files.length) return files;
  }

  const segs = segments(query);
  const name = segs[segs.length - 1];
  if (!name) throw new TenureError('invalid-input', `Cannot read a symbol name from "${query}".`);
  const rows = await db.all<Row>(`${SELECT} WHERE s.name = ?`, [name]);
  const matches = rows.filter((r) => endsWith(segments(r.qname), segs) || endsWith([...segments(r.path.replace(/\.\w+$/, '')), ...segments(r.qname)], segs));
  const nonModule = matches.filter((m) => m.kind !== 'module');
  let found = nonModule.length ? nonModule : matches;
  // A name people type means the declared symbol, not code generated beside it (a bridge, a record accessor): those stay reachable by id.
  const declared = found.filter((m) => m.origin === null);
  if (declared.length && declared.length < found.length) found = declared;
  found = await exactFirst(db, found, segs);
  if (found.length) return found.map(ref);
  // Go indexes a method under its package (`types.CalculateBlockProvision`); people write it with its receiver type (`Minter.CalculateBlockProvision`).
  const byReceiver = goMethodsByReceiver(rows, segs, options.root);
  if (byReceiver.length) return byReceiver.map(ref);

  const like = await db.all<Row>(`${SELECT} WHERE s.name LIKE ? AND s.kind != 'module' LIMIT 8`, [`%${name}%`]);
  const hint = like.length ? ` Did you mean: ${like.map((l) => `${l.qname} (${l.path}:${l.line})`).join(', ')}?` : '';
  throw new TenureError('symbol-not-found', `No symbol matches "${query}" in the index.${hint}${await unreadNote(db)}`, { suggestions: like.map(ref) });
}

/** A file name or path as people write one: it ends with the extension of a language the inventory reads. */
export function isFileName(text: string): boolean {
  return /^[\w./@-]+\.\w+$/.test(text) && !!languageForPath(text);
}

/**
 * The modules of the files a path names: the file at that path (relative to
 * the workspace, or absolute inside it), else every file whose path ends
 * with it at a folder boundary (`index.js` → `src/i18n/index.js` and the
 * others; `i18n/index.js` → that one).
 */
export async function modulesAt(db: Db, written: string, options: ResolveOptions): Promise<SymbolRef[]> {
  const rel = toRel(written, options.root);
  const whole = await moduleAtPath(db, rel);
  return whole.length ? whole : modulesEndingWith(db, rel);
}

/** The module of the file at this workspace-relative path. */
async function moduleAtPath(db: Db, rel: string): Promise<SymbolRef[]> {
  return (await db.all<Row>(`${SELECT} WHERE f.path = ? AND s.kind = 'module'`, [rel])).map(ref);
}

/** The modules of the files whose paths end with this one at a folder boundary. */
async function modulesEndingWith(db: Db, rel: string): Promise<SymbolRef[]> {
  const tail = `/${rel}`;
  return (await db.all<Row>(`${SELECT} WHERE s.kind = 'module' AND substr(f.path, -?) = ? ORDER BY f.path`, [tail.length, tail])).map(ref);
}

/** A `path:line` or `path:line:col` as people type it, else undefined. */
export function locationOf(text: string): { path: string; line: number } | undefined {
  const m = /^(.+?):(\d+)(?::\d+)?$/.exec(text.trim());
  return m ? { path: m[1]!, line: Number(m[2]) } : undefined;
}

/**
 * What a "not found" cannot rule out: the workspace's files in languages the
 * inventory does not read. Said only where such files exist (for a path, only
 * when that file is one of them).
 */
export async function unreadNote(db: Db, rel?: string): Promise<string> {
  if (rel !== undefined) {
    const language = unreadLanguageForPath(rel);
    return language ? ` ${rel} is ${language}, a language Tenure does not index (it reads ${READ_LANGUAGE_NAMES}).` : '';
  }
  const unread = await unreadLanguages(db);
  if (!unread.length) return '';
  return ` This workspace also has ${describeUnread(unread)}, which Tenure does not index: a symbol defined there is in no answer.`;
}

/** "1,204 Rust files (.rs) and 12 C files (.c, .h)". */
export function describeUnread(unread: readonly UnreadLanguage[], most = 3): string {
  const parts = unread.slice(0, most).map((u) => `${u.files.toLocaleString('en-US')} ${u.language} file${u.files === 1 ? '' : 's'} (${u.extensions.join(', ')})`);
  const rest = unread.slice(most).reduce((n, u) => n + u.files, 0);
  if (rest) parts.push(`${rest.toLocaleString('en-US')} in ${unread.length - most} more language${unread.length - most === 1 ? '' : 's'}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0]!;
}

/** The line every report of the index ends with where such files exist (CLI index and status, the editor's status bar); '' where none do. */
export function unreadLine(unread: readonly UnreadLanguage[]): string {
  return unread.length ? `Not read: ${describeUnread(unread)}. Tenure's structural memory reads ${READ_LANGUAGE_NAMES}; what these files define is in no answer.` : '';
}

/** Like resolveSymbols, but exactly one symbol or an error listing the candidates. */
export async function resolveOneSymbol(db: Db, text: string, options: ResolveOptions): Promise<SymbolRef> {
  const found = await resolveSymbols(db, text, options);
  if (found.length === 1) return found[0]!;
  const list = found.slice(0, 20).map((f) => `  ${f.qname} (${f.kind}, ${f.path}:${f.line})  id: ${f.sid}`).join('\n');
  // Overloads share one qualified name: their parameters tell them apart.
  // (Not same-named symbols of other kinds or other files: alfa's `Diagnostic` class and another package's namespace.)
  const overloads = found.length > 1 && found.every((f) => f.qname === found[0]!.qname && f.path === found[0]!.path && CALLABLE_KINDS.has(f.kind));
  throw new TenureError(
    'symbol-ambiguous',
    `"${text}" matches ${found.length} symbols; Tenure will not pick one. Ask again with ${overloads ? `the parameters of the overload you mean (\`${found[0]!.name}(String, int)\`), ` : ''}a qualified name, a path:line, or one of these ids:\n${list}${found.length > 20 ? `\n  … and ${found.length - 20} more` : ''}`,
    { candidates: found },
  );
}

/**
 * Among names that all end with what was typed, the ones it spells in full
 * win: `Node` means the top-level `Node`, not `Checks.Node`, where both
 * exist (the name inside its module, or with its module or package, is the
 * full name). A symbol and a part of it that bears its name are one answer:
 * the symbol (partsOfOthers).
 */
async function exactFirst(db: Db, found: Row[], segs: readonly string[]): Promise<Row[]> {
  if (found.length < 2) return found;
  const ids = new Set(found.map((f) => f.id));
  const parents = await db.all<{ id: number; file_id: number; parent_id: number | null; pkind: string | null; pqname: string | null }>(
    'SELECT s.id, s.file_id, s.parent_id, p.kind AS pkind, p.qname AS pqname FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id WHERE s.id IN (SELECT value FROM json_each(?))',
    [JSON.stringify([...ids])],
  );
  const byId = new Map(parents.map((p) => [p.id, p]));
  const parts = await partsOfOthers(db, found, byId);
  const wholes = found.filter((f) => !parts.has(f.id));
  const typed = segs.join('.');
  const exact = wholes.filter((f) => {
    const full = segments(f.qname).join('.');
    if (full === typed) return true;
    // The name inside its module: the qualified name less the module's (Python module, Java package, Go package).
    const mod = moduleQualifier(f.qname, byId.get(f.id));
    return mod !== undefined && full.startsWith(mod + '.') && full.slice(mod.length + 1) === typed;
  });
  return exact.length ? exact : wholes;
}

/** A TypeScript declaration file (`index.d.ts`, `.d.mts`, `.d.cts`): types for code that lives elsewhere. */
const DECLARATION_FILE = /\.d\.[cm]?tsx?$/;
const IMPLEMENTATION_EXTENSIONS = ['.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts'];

/**
 * The matches that are part of another match under its name, so that the two
 * are one answer (the other): a class's own constructor (Java names it after
 * the class), and a declaration file's typing of an implementation (`export
 * const Toggle: any` in index.d.ts, for the `Toggle` that index.js beside it
 * defines, or imports or re-exports from the file that defines it, a few
 * re-exports deep). Same-named symbols with no such tie stay apart.
 */
async function partsOfOthers(db: Db, found: readonly Row[], placement: ReadonlyMap<number, { file_id: number; parent_id: number | null }>): Promise<Set<number>> {
  const ids = new Set(found.map((f) => f.id));
  const parts = new Set(found.filter((f) => f.kind === 'constructor' && ids.has(placement.get(f.id)?.parent_id ?? -1)).map((f) => f.id));
  for (const n of found) if (mergedNamespace(n, found, placement)) parts.add(n.id);
  const implementations = found.filter((f) => !DECLARATION_FILE.test(f.path) && placement.has(f.id));
  if (!implementations.length) return parts;
  const implFiles = new Set(implementations.map((f) => placement.get(f.id)!.file_id));
  for (const d of found) {
    if (!DECLARATION_FILE.test(d.path) || parts.has(d.id)) continue;
    const stem = d.path.replace(DECLARATION_FILE, '');
    const beside = await db.all<{ id: number }>(`SELECT id FROM files WHERE path IN (SELECT value FROM json_each(?))`, [JSON.stringify(IMPLEMENTATION_EXTENSIONS.map((e) => stem + e))]);
    // The files the declared name is reached through: the implementation beside it, then what it imports or re-exports the name from.
    const reached = new Set(beside.map((b) => b.id));
    let frontier = [...reached];
    for (let hop = 0; hop < 4 && frontier.length && ![...reached].some((f) => implFiles.has(f)); hop++) {
      const next = await db.all<{ target_file_id: number }>(
        `SELECT DISTINCT target_file_id FROM imports WHERE file_id IN (SELECT value FROM json_each(?)) AND target_file_id IS NOT NULL AND (name = ? OR local = ?)`,
        [JSON.stringify(frontier), d.name, d.name],
      );
      frontier = next.map((n) => n.target_file_id).filter((f) => !reached.has(f));
      for (const f of frontier) reached.add(f);
    }
    if (implementations.some((m) => reached.has(placement.get(m.id)!.file_id))) parts.add(d.id);
  }
  return parts;
}

/** What TypeScript merges a namespace of the same name into: the declaration whose statics the namespace holds. */
const MERGES_NAMESPACES: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'type', 'enum', 'function']);

/**
 * A TypeScript namespace declared beside a class, interface, type, enum or function of its name, in its file and
 * scope (`export class Err` and `export namespace Err` in err.ts; `type Trilean` and `namespace Trilean`): one
 * entity to the language and to people, who ask about it by the one name. The declaration answers for both.
 */
function mergedNamespace(n: Row, found: readonly Row[], placement: ReadonlyMap<number, { file_id: number; parent_id: number | null }>): boolean {
  if (n.kind !== 'namespace') return false;
  const at = placement.get(n.id);
  return !!at && found.some((o) => o !== n && MERGES_NAMESPACES.has(o.kind) && o.qname === n.qname && placement.get(o.id)?.file_id === at.file_id && placement.get(o.id)?.parent_id === at.parent_id);
}

/** The receiver type of a Go method declaration line: `func (m *Minter) Calc(` → Minter; `func (k Keeper[T]) Get(` → Keeper. */
export function goReceiverType(line: string): string | undefined {
  return /^\s*func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)/.exec(line)?.[1];
}

/**
 * Go methods named `Type.Method` as typed: the symbols named Method whose
 * declaration's receiver is Type, and whose package agrees with anything
 * typed before the type (`types.Minter.Calc`). Read from the source line,
 * so the structural ids stay as they are.
 */
function goMethodsByReceiver(rows: readonly Row[], segs: readonly string[], root: string): Row[] {
  if (segs.length < 2) return [];
  const type = segs[segs.length - 2]!;
  const before = segs.slice(0, -2);
  const out: Row[] = [];
  const linesOf = fileLines(root);
  for (const r of rows) {
    if (!r.path.endsWith('.go') || r.kind === 'module') continue;
    // What precedes the type must be the end of the package path (`types`, `mint/types`).
    if (before.length && !endsWith([...segments(r.path.replace(/\/[^/]*$/, '')), ...segments(r.qname).slice(0, -1)], before) && !endsWith(segments(r.qname).slice(0, -1), before)) continue;
    const line = linesOf(r.path)?.[r.line - 1];
    if (line && goReceiverType(line) === type) out.push(r);
  }
  return out;
}

/** The lines of workspace files (4 MB at most), each file read once: for the few declarations a lookup reads in the source. */
function fileLines(root: string): (rel: string) => string[] | undefined {
  const files = new Map<string, string[] | undefined>();
  return (rel) => {
    if (!files.has(rel)) {
      const read = readWorkspaceFile(root, path.join(root, rel), 4 * 1024 * 1024);
      files.set(rel, read.ok ? read.bytes.toString('utf8').split('\n') : undefined);
    }
    return files.get(rel);
  };
}

/**
 * The parameters a symbol's declaration takes, as its source writes them (`parameters.ts`), or undefined where none can
 * be read. From its first line: a signature may wrap over several lines (annotations above it are skipped by the name).
 */
export function declaredParametersOf(root: string, s: Pick<SymbolRef, 'name' | 'path' | 'line'>, linesOf = fileLines(root)): string[][] | undefined {
  const declaration = linesOf(s.path)?.slice(s.line - 1, s.line + 11).join('\n');
  return declaration === undefined ? undefined : declaredParameters(declaration, s.name);
}

/** The symbols among `named` whose declaration takes the parameters written. */
function withParameters(named: readonly SymbolRef[], parameters: readonly string[][], root: string): SymbolRef[] {
  const linesOf = fileLines(root);
  return named.filter((s) => {
    const declared = declaredParametersOf(root, s, linesOf);
    return declared !== undefined && sameParameters(parameters, declared);
  });
}

/** The dotted prefix of a qualified name that names its module, when the symbol sits directly in one. */
function moduleQualifier(qname: string, placement: { pkind: string | null; pqname: string | null } | undefined): string | undefined {
  if (!placement) return undefined;
  if (placement.pkind === 'module') {
    const dot = qname.lastIndexOf('.');
    return dot > 0 ? qname.slice(0, dot) : undefined;
  }
  return undefined;
}

function endsWith(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length > haystack.length) return false;
  const off = haystack.length - needle.length;
  return needle.every((n, i) => haystack[off + i] === n);
}

function toRel(p: string, root: string): string {
  const abs = path.isAbsolute(p) ? p : path.join(root, p);
  return path.relative(root, abs).split(path.sep).join('/');
}

/** The symbol with this id, if the index has it (the first, when generated code shares it). */
export async function symbolBySid(db: Db, sid: string): Promise<SymbolRef | undefined> {
  const row = await db.get<Row>(`${SELECT} WHERE s.sid = ? LIMIT 1`, [sid]);
  return row ? ref(row) : undefined;
}

/**
 * Symbols (modules and constructors aside) whose name contains any of the
 * words, letter case ignored, each with the name of the type or namespace it
 * is a member of: the candidates for a question's phrases, at most `limit`.
 */
export async function symbolsNamedLike(db: Db, words: readonly string[], limit = 5000): Promise<(SymbolRef & { container: string | null })[]> {
  if (!words.length) return [];
  return db.all<SymbolRef & { container: string | null }>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, p.name AS container
       FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id AND p.kind != 'module'
      WHERE s.kind NOT IN ('module', 'constructor') AND (${words.map(() => "lower(s.name) LIKE ? ESCAPE '\\'").join(' OR ')}) LIMIT ?`,
    // The words are the asker's: % and _ in them are letters, not wildcards.
    [...words.map((w) => containing(w.toLowerCase())), limit],
  );
}

/** A LIKE pattern (with ESCAPE '\\') for text holding these characters as written: % and _ in them are letters, not wildcards. */
function containing(text: string): string {
  return `%${text.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
}

/** A symbol as the linker indexes it: with its file and the type or namespace it is a member of. */
/** The innermost symbol (not a module) whose declaration spans a line of a file: what a person at that line, or a link to it, points at. */
export async function innermostSymbolAt(db: Db, relPath: string, line: number): Promise<SymbolRef | undefined> {
  return db.get<SymbolRef>(`${SELECT} WHERE f.path = ? AND s.kind != 'module' AND s.line <= ? AND s.end_line >= ? ORDER BY (s.end_line - s.line) ASC LIMIT 1`, [relPath, line, line]);
}

const LINKER_SELECT = `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, s.end_line, p.name AS parent_name, p.sid AS parent_sid
       FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id AND p.kind != 'module'`;
const LINKABLE_IN = `(${LINKABLE_KINDS.map((k) => `'${k}'`).join(', ')})`;
/**
 * A symbol the linker may link to: of a linkable kind, and not a namespace merged into the declaration of its name
 * beside it (mergedNamespace), so that a document's `Err` names one symbol, the class, not two.
 */
const LINKABLE = (s: string) =>
  `${s}.kind IN ${LINKABLE_IN} AND NOT (${s}.kind = 'namespace' AND EXISTS (SELECT 1 FROM symbols o WHERE o.file_id = ${s}.file_id AND o.name = ${s}.name AND o.parent_id IS ${s}.parent_id AND o.kind IN (${[...MERGES_NAMESPACES].map((k) => `'${k}'`).join(', ')})))`;
/** Bound parameters per statement: SQLite's default limit is 32,766; a page of names or ids stays far below it. */
const NAMES_PER_QUERY = 500;

/** The structural memory as a source of the symbols a set of link subjects reaches (SymbolIndex.reachedBy). */
export function symbolSource(db: Db, pageSize = 5000): SymbolSource {
  return {
    count: () => linkableSymbolCount(db),
    async *names(filter) {
      // A filter is a superset, tested by SQLite on every row (LIKE ignores ASCII letter case, as the linker's words do).
      const where = filter ? ` AND (${[...filter.names.map(() => 'name = ?'), ...filter.lowerNames.map(() => 'lower(name) = ?'), ...filter.fragments.map(() => "name LIKE ? ESCAPE '\\'")].join(' OR ') || 'false'})` : '';
      const params = filter ? [...filter.names, ...filter.lowerNames, ...filter.fragments.map(containing)] : [];
      for (let after = ''; ; ) {
        const page = await db.all<{ name: string; n: number }>(
          `SELECT name, count(*) AS n FROM symbols s WHERE name > ? AND ${LINKABLE('s')}${where} GROUP BY name ORDER BY name LIMIT ?`,
          [after, ...params, pageSize],
        );
        if (!page.length) return;
        yield page;
        if (page.length < pageSize) return;
        after = page[page.length - 1]!.name;
      }
    },
    async *rowsNamed(names) {
      for (let i = 0; i < names.length; i += NAMES_PER_QUERY) {
        const batch = names.slice(i, i + NAMES_PER_QUERY);
        yield await db.all<SymbolRow>(`${LINKER_SELECT} WHERE s.name IN (${batch.map(() => '?').join(', ')}) AND ${LINKABLE('s')} ORDER BY s.id`, batch);
      }
    },
    async modulesAt(paths) {
      if (!paths.length) return [];
      // One read of the file list, matched by file name: a LIKE per path would scan every symbol once per path.
      const wanted = new Map<string, string[]>();
      for (const rel of new Set(paths)) push(wanted, rel.slice(rel.lastIndexOf('/') + 1), rel);
      const ids: number[] = [];
      for (const f of await db.all<{ id: number; path: string }>('SELECT id, path FROM files')) {
        if (wanted.get(f.path.slice(f.path.lastIndexOf('/') + 1))?.some((rel) => f.path === rel || f.path.endsWith('/' + rel))) ids.push(f.id);
      }
      const out: SymbolRow[] = [];
      for (let i = 0; i < ids.length; i += NAMES_PER_QUERY) {
        const batch = ids.slice(i, i + NAMES_PER_QUERY);
        out.push(...(await db.all<SymbolRow>(`${LINKER_SELECT} WHERE s.file_id IN (${batch.map(() => '?').join(', ')}) AND s.kind = 'module' ORDER BY s.id`, batch)));
      }
      return out;
    },
  };
}

/** The linker's index of the symbols linking these subjects can reach, with the whole index's word counts. */
export async function reachedSymbolIndex(db: Db, reach: Reach): Promise<SymbolIndex> {
  return SymbolIndex.reachedBy(reach, symbolSource(db));
}

/** Names usable as prose phrases by the offline extractor (types, and constants written in capitals), sorted, each once. */
export async function phraseNames(db: Db): Promise<string[]> {
  const rows = await db.all<{ name: string; kind: SymbolKind }>("SELECT DISTINCT name, kind FROM symbols WHERE kind IN ('class', 'interface', 'enum', 'type', 'constant', 'field')");
  return [...new Set(rows.filter((r) => isPhraseName(r.kind, r.name)).map((r) => r.name))].sort();
}

/** How many symbols the linker can link (modules aside): a scan of every symbol, so kept until the file changes (a question asks it several times). */
export async function linkableSymbolCount(db: Db): Promise<number> {
  return db.cached('structural.linkableSymbols', async () => (await db.get<{ n: number }>(`SELECT count(*) AS n FROM symbols s WHERE ${LINKABLE('s')}`))?.n ?? 0);
}

/** How many linkable symbols have this name: whether a name as written in a document denotes one symbol. */
export async function linkableSymbolsNamed(db: Db, name: string): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT count(*) AS n FROM symbols s WHERE name = ? AND ${LINKABLE('s')}`, [name]))?.n ?? 0;
}

/** These symbols, with where each ends (a sid shared by generated code: the last of them). */
export async function symbolsBySid(db: Db, sids: readonly string[]): Promise<Map<string, SymbolRef & { endLine: number }>> {
  const out = new Map<string, SymbolRef & { endLine: number }>();
  const unique = [...new Set(sids)];
  for (let i = 0; i < unique.length; i += NAMES_PER_QUERY) {
    const batch = unique.slice(i, i + NAMES_PER_QUERY);
    for (const r of await db.all<Row>(`${SELECT} WHERE s.sid IN (${batch.map(() => '?').join(', ')}) ORDER BY s.id`, batch)) out.set(r.sid, { ...ref(r), endLine: r.end_line });
  }
  return out;
}

/** The linkable symbols of one file, with their line ranges: where a line of it sits. */
export async function symbolSpansIn(db: Db, rel: string): Promise<{ sid: string; line: number; endLine: number }[]> {
  return db.all(`SELECT s.sid, s.line, s.end_line AS endLine FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.kind IN ${LINKABLE_IN} ORDER BY s.id`, [rel]);
}

/**
 * A fingerprint of every symbol id, in sid order, read a page at a time: it
 * moves when any symbol is added, removed or renamed, from source or from an
 * imported artifact.
 */
export async function symbolIdsFingerprint(db: Db, pageSize = 20_000): Promise<string> {
  const hash = nodeCrypto().createHash('sha256');
  for (let after = { sid: '', id: Number.MIN_SAFE_INTEGER }; ; ) {
    const page = await db.all<{ sid: string; id: number }>('SELECT sid, id FROM symbols WHERE (sid, id) > (?, ?) ORDER BY sid, id LIMIT ?', [after.sid, after.id, pageSize]);
    for (const r of page) hash.update(r.sid).update('\n');
    if (page.length < pageSize) return hash.digest('hex');
    after = page[page.length - 1]!;
  }
}

// ---------------------------------------------------------------- reads other memories make through the seam

/** Whether an index has run: files are stored, or a full index found none it reads (a repository of Rust alone has been indexed, with nothing in it). */
export async function isIndexed(db: Db): Promise<boolean> {
  if ((await db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n) return true;
  return !!(await db.get<{ n: number }>("SELECT count(*) AS n FROM meta WHERE key IN ('structural.walkSkips', 'structural.unread')"))?.n;
}

export interface IndexedFile {
  readonly path: string;
  /** Of the content the index read; null when it was not read. */
  readonly hash: string | null;
  /** The inventory left it out (too large, binary, generated…). */
  readonly skipped: boolean;
}

/** Every file the structural memory knows, in the order it first indexed them. */
export async function indexedFiles(db: Db): Promise<IndexedFile[]> {
  const rows = await db.all<{ path: string; hash: string | null; skip_reason: string | null }>('SELECT path, hash, skip_reason FROM files ORDER BY id');
  return rows.map((r) => ({ path: r.path, hash: r.hash, skipped: r.skip_reason !== null }));
}

/** The qualified name of each of these symbol ids that is indexed. */
export async function qnamesOf(db: Db, sids: readonly string[]): Promise<Map<string, string>> {
  if (!sids.length) return new Map();
  const rows = await db.all<{ sid: string; qname: string }>('SELECT sid, qname FROM symbols WHERE sid IN (SELECT value FROM json_each(?)) ORDER BY id', [JSON.stringify(sids)]);
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.sid)) out.set(r.sid, r.qname);
  return out;
}

export interface NeighbourSymbol {
  readonly sid: string;
  readonly qname: string;
}

/** The supertypes of these types, transitively (never the types themselves). */
export async function supertypes(db: Db, types: readonly number[]): Promise<number[]> {
  const out: number[] = [];
  const seen = new Set(types);
  let frontier = [...types];
  while (frontier.length) {
    const rows = await db.all<{ dst_id: number }>(
      `SELECT DISTINCT dst_id FROM edges INDEXED BY edges_src WHERE src_id IN (SELECT value FROM json_each(?)) AND kind IN ('extends','implements') AND tier != 'ambiguous' AND dst_id IS NOT NULL`,
      [JSON.stringify(frontier)],
    );
    frontier = [];
    for (const r of rows) {
      if (seen.has(r.dst_id)) continue;
      seen.add(r.dst_id);
      out.push(r.dst_id);
      frontier.push(r.dst_id);
    }
  }
  return out;
}

/** A member of a base type that a member overrides or implements, and the proof when a type checker gave one. */
export interface BaseMember {
  readonly id: number;
  readonly sid: string;
  readonly qname: string;
  readonly proof?: { readonly source: string; readonly reason: string };
}

/**
 * The members a member overrides or implements: those of its name in its
 * type's supertypes (by the inheritance edges that are not ambiguous), and
 * those a type checker proved it implements (implementations table), with
 * that proof.
 */
export async function baseMembersOf(db: Db, target: SymbolRef, parentId: number): Promise<BaseMember[]> {
  const [proven, supers] = await Promise.all([
    db.all<{ id: number; sid: string; qname: string; source: string; reason: string }>(
      `SELECT s.id, s.sid, s.qname, i.source, i.reason FROM implementations i JOIN symbols s ON s.id = i.base_id WHERE i.impl_id = ? AND i.base_id != i.impl_id`,
      [target.id],
    ),
    supertypes(db, [parentId]),
  ]);
  const named = supers.length
    ? await db.all<{ id: number; sid: string; qname: string }>(`SELECT id, sid, qname FROM symbols WHERE name = ? AND parent_id IN (SELECT value FROM json_each(?))`, [target.name, JSON.stringify(supers)])
    : [];
  const out = new Map<number, BaseMember>();
  for (const b of named) out.set(b.id, { id: b.id, sid: b.sid, qname: b.qname });
  for (const b of proven) out.set(b.id, { id: b.id, sid: b.sid, qname: b.qname, proof: { source: b.source, reason: b.reason } });
  out.delete(target.id);
  return [...out.values()];
}

export interface SymbolNeighbours {
  readonly members: readonly NeighbourSymbol[];
  /** The enclosing type. */
  readonly container?: NeighbourSymbol;
  /** For a method or field: the members of its name it overrides or implements in its type's supertypes. */
  readonly overrides: readonly NeighbourSymbol[];
  /** For a type: the types it extends or implements, directly (not through an ambiguous edge). */
  readonly supertypes: readonly NeighbourSymbol[];
  /** What the symbol and its members use directly (calls, instantiations, references that are not dynamic), with the edge's tier and the used symbol's type. */
  readonly uses: readonly (NeighbourSymbol & { readonly tier: string; readonly container?: NeighbourSymbol })[];
}

/** The kinds of member that can override one of a base type. */
const OVERRIDING_KINDS: ReadonlySet<string> = new Set(['method', 'function', 'field']);

/** Where a symbol is called (resolved, observed or inferred calls), by file and line: at most `limit`. */
export async function callSitesOf(db: Db, target: SymbolRef, limit: number): Promise<{ path: string; line: number; col: number; caller: string; callerLine: number }[]> {
  return db.all<{ path: string; line: number; col: number; caller: string; callerLine: number }>(
    `SELECT DISTINCT f.path, e.line, e.col, s.qname AS caller, s.line AS callerLine FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols s ON s.id = e.src_id
     WHERE e.dst_id = ? AND e.kind = 'call' AND e.tier IN ('resolved', 'observed', 'inferred') ORDER BY f.path, e.line LIMIT ?`,
    [target.id, limit],
  );
}

/**
 * The names a symbol's own code writes at its use sites (calls, reads, writes, references; resolved or not), at
 * most `limit`: the vocabulary of its body, as its authors spelled it.
 */
export async function namesUsedBy(db: Db, target: SymbolRef, limit = 200): Promise<string[]> {
  const rows = await db.all<{ name: string }>('SELECT DISTINCT name FROM edges WHERE src_id = ? ORDER BY name LIMIT ?', [target.id, limit]);
  return rows.map((r) => r.name);
}

/** A symbol's members, its enclosing type, what it overrides, the types it extends, and the symbols it uses through one edge (at most `limit`, by name). */
export async function neighboursOf(db: Db, target: SymbolRef, limit = 40): Promise<SymbolNeighbours> {
  const members = await db.all<{ id: number; sid: string; qname: string }>("SELECT id, sid, qname FROM symbols WHERE parent_id = ? AND kind != 'module'", [target.id]);
  const container = await db.get<NeighbourSymbol & { id: number }>("SELECT p.id, p.sid, p.qname FROM symbols s JOIN symbols p ON p.id = s.parent_id WHERE s.id = ? AND p.kind != 'module'", [target.id]);
  const overrides = container && OVERRIDING_KINDS.has(target.kind) ? await baseMembersOf(db, target, container.id) : [];
  const supers = TYPE_KINDS.has(target.kind)
    ? await db.all<NeighbourSymbol>(
        `SELECT DISTINCT d.sid, d.qname FROM edges e JOIN symbols d ON d.id = e.dst_id WHERE e.src_id = ? AND e.kind IN ('extends', 'implements') AND e.tier != 'ambiguous' ORDER BY d.qname LIMIT ?`,
        [target.id, limit],
      )
    : [];
  const uses = await db.all<{ sid: string; qname: string; tier: string; psid: string | null; pqname: string | null }>(
    `SELECT DISTINCT d.sid, d.qname, e.tier, p.sid AS psid, p.qname AS pqname FROM edges e JOIN symbols d ON d.id = e.dst_id
     LEFT JOIN symbols p ON p.id = d.parent_id AND p.kind != 'module'
     WHERE e.src_id IN (SELECT value FROM json_each(?)) AND e.kind IN ('call', 'instantiate', 'reference') AND e.tier IN ('resolved', 'observed', 'inferred')
     ORDER BY d.qname LIMIT ?`,
    [JSON.stringify([target.id, ...members.map((m) => m.id)]), limit],
  );
  return {
    members: members.map((m) => ({ sid: m.sid, qname: m.qname })),
    ...(container ? { container: { sid: container.sid, qname: container.qname } } : {}),
    overrides: overrides.map((b) => ({ sid: b.sid, qname: b.qname })),
    supertypes: supers.map((t) => ({ sid: t.sid, qname: t.qname })),
    uses: uses.map((u) => ({ sid: u.sid, qname: u.qname, tier: u.tier, ...(u.psid && u.pqname ? { container: { sid: u.psid, qname: u.pqname } } : {}) })),
  };
}
