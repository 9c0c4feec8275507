import * as fs from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceText } from '../../../repo/read.js';
import { fileURLToPath } from 'node:url';
import type { Index, PositionEncoding } from '@c4312/scip';
import type { Loc } from '../../enrichment/types.js';

/*
 * Reads a SCIP index (scip-typescript, scip-python, scip-java,
 * rust-analyzer, …) with the generated protobuf types of @c4312/scip
 * (@bufbuild/protobuf), and keeps what resolution needs: where each symbol
 * is defined, every reference occurrence per document, and the
 * implementation relationships.
 */

export interface ScipOccurrence {
  readonly at: Loc;
  readonly symbol: string;
  /** The occurrence's ReadAccess / WriteAccess role, where the indexer records one. */
  readonly role?: 'read' | 'write';
}

export interface ScipDocument {
  /** Workspace-relative path. */
  readonly path: string;
  readonly language: string;
  readonly references: readonly ScipOccurrence[];
  /** Symbols defined here that implement or override others: [implementer, base] pairs of SCIP symbols. */
  readonly implementations: readonly (readonly [string, string])[];
}

export interface ScipIndexData {
  readonly tool: string;
  readonly documents: ReadonlyMap<string, ScipDocument>;
  /** Global (non-local) symbol → definition location in the workspace. */
  readonly definitions: ReadonlyMap<string, Loc>;
  /** Documents left out and why (outside the workspace). */
  readonly skipped: readonly string[];
}

/** Languages as the inventory names them, from a SCIP document's language or its extension. */
function inventoryLanguage(scipLanguage: string, rel: string): string {
  const l = scipLanguage.toLowerCase();
  if (l === 'typescriptreact' || rel.endsWith('.tsx')) return 'tsx';
  if (l.startsWith('typescript') || /\.[mc]?ts$/.test(rel)) return 'typescript';
  if (l.startsWith('javascript') || /\.[mc]?jsx?$/.test(rel)) return 'javascript';
  if (l === 'python' || rel.endsWith('.py')) return 'python';
  if (l === 'java' || rel.endsWith('.java')) return 'java';
  if (l === 'go' || rel.endsWith('.go')) return 'go';
  return l || path.extname(rel).slice(1);
}

function isLocal(symbol: string): boolean {
  return symbol.startsWith('local ');
}

type Scip = typeof import('@c4312/scip');

/**
 * The protobuf types, loaded on first use: every command of the full CLI holds this reader, few read a SCIP
 * index, and building the types' registry took about a tenth of a second of every start.
 */
function scip(): Scip & { fromBinary: typeof import('@bufbuild/protobuf').fromBinary } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { fromBinary } = require('@bufbuild/protobuf') as typeof import('@bufbuild/protobuf');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { ...(require('@c4312/scip') as Scip), fromBinary };
}

export function readScipIndex(file: string, workspaceRoot: string): ScipIndexData {
  const { fromBinary, IndexSchema, PositionEncoding, SymbolRole } = scip();
  const index: Index = fromBinary(IndexSchema, fs.readFileSync(file));
  const root = path.resolve(workspaceRoot);
  let projectRoot = root;
  try {
    if (index.metadata?.projectRoot) projectRoot = fileURLToPath(index.metadata.projectRoot);
  } catch {
    projectRoot = root;
  }
  const toWorkspace = (relativePath: string): string | undefined => {
    const abs = path.resolve(projectRoot, relativePath);
    let rel = path.relative(root, abs);
    // An index made on another machine (CI): trust its relative paths when they exist here.
    if ((rel.startsWith('..') || path.isAbsolute(rel)) && fs.existsSync(path.join(root, relativePath))) rel = relativePath;
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  };

  const documents = new Map<string, ScipDocument>();
  const definitions = new Map<string, Loc>();
  const modules = new Set<string>();
  const skipped: string[] = [];
  for (const doc of index.documents) {
    const rel = toWorkspace(doc.relativePath);
    if (!rel) {
      skipped.push(doc.relativePath);
      continue;
    }
    const conv = columnConverter(PositionEncoding, doc.positionEncoding, doc.text || undefined, () => readWorkspaceText(root, path.join(root, rel)));
    const refs: ScipOccurrence[] = [];
    for (const occ of doc.occurrences) {
      if (!occ.symbol || occ.range.length < 3) continue;
      const line = occ.range[0]!;
      const at: Loc = { path: rel, line: line + 1, col: conv(line, occ.range[1]!) };
      const symbol = isLocal(occ.symbol) ? `${rel}#${occ.symbol}` : occ.symbol;
      if (occ.symbolRoles & SymbolRole.Definition) {
        // An empty definition range is a module (scip-python's `pkg.m/__init__:` at 0:0): it names no
        // symbol of the file, and taken as a position it would hit the file's first statement.
        if (occ.range.length === 3 && occ.range[1] === occ.range[2]) modules.add(symbol);
        else if (!definitions.has(symbol)) definitions.set(symbol, at);
      } else if (!(occ.symbolRoles & SymbolRole.Import)) {
        const role = occ.symbolRoles & SymbolRole.WriteAccess ? 'write' : occ.symbolRoles & SymbolRole.ReadAccess ? 'read' : undefined;
        refs.push({ at, symbol, ...(role ? { role } : {}) });
      }
    }
    const impls: [string, string][] = [];
    for (const info of doc.symbols) {
      for (const rel2 of info.relationships) {
        if (rel2.isImplementation && rel2.symbol && info.symbol !== rel2.symbol) impls.push([info.symbol, rel2.symbol]);
      }
    }
    documents.set(rel, { path: rel, language: inventoryLanguage(doc.language, rel), references: refs, implementations: impls });
  }
  for (const m of modules) definitions.delete(m);
  return { tool: index.metadata?.toolInfo?.name ?? 'scip', documents, definitions, skipped };
}

/**
 * SCIP columns are in the document's position encoding; the inventory counts
 * UTF-16 code units. ASCII lines need no conversion, others are converted
 * with the line's text.
 */
function columnConverter(PositionEncoding: Scip['PositionEncoding'], encoding: PositionEncoding, text: string | undefined, readText: () => string | undefined): (line: number, col: number) => number {
  if (encoding === PositionEncoding.UTF16CodeUnitOffsetFromLineStart || encoding === PositionEncoding.UnspecifiedPositionEncoding) return (_l, c) => c;
  let lines: string[] | undefined;
  return (line, col) => {
    if (!lines) {
      // The path comes from the index: read only a regular file inside the workspace.
      lines = (text ?? readText() ?? '').split(/\r?\n/);
    }
    const s = lines[line];
    if (s === undefined || /^[\x00-\x7f]*$/.test(s)) return col;
    if (encoding === PositionEncoding.UTF8CodeUnitOffsetFromLineStart) return Buffer.from(s, 'utf8').subarray(0, col).toString('utf8').length;
    return [...s].slice(0, col).join('').length;
  };
}
