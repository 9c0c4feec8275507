import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceText } from '../../../repo/read.js';
import { ArtifactStore, type ArtifactSpec, type NewSymbol } from '../artifacts/store.js';
import type { ApplyResult } from '../../enrichment/store.js';
import { applyWorkspaceResolver } from '../../enrichment/workspaceResolver.js';
import { BytecodeResolver, type BytecodeInput } from './resolver.js';
import type { Workspace } from '../../../store/workspace.js';
import type { BytecodeAnalysis } from './analysis.js';
import { analyzeBytecode } from './link.js';
import { findBytecode, listFiles, loadClasses, type ArtifactFile, type BytecodeLayout, type LoadedArtifacts, type LoadProblem } from './load.js';
import type { SourceIndex } from './sourceIndex.js';

/**
 * Reads the JVM build output of a workspace into the structural memory:
 * symbols that exist only in bytecode join `symbols` (marked with what
 * generated them), and call edges and implementations read from the class
 * files upgrade the inventory's edges through the resolution store.
 * Incremental: nothing is read again while neither the class files nor the
 * Java sources changed.
 */

export interface BytecodeImportOptions {
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  /** Re-read even if nothing changed. */
  readonly force?: boolean;
  /** Use these folders and jars instead of looking in the usual places. */
  readonly layout?: BytecodeLayout;
}

export interface BytecodeImportReport {
  readonly unchanged: boolean;
  readonly layout: BytecodeLayout;
  readonly classFiles: number;
  readonly jars: number;
  readonly classes: { readonly source: number; readonly anonymous: number; readonly generated: number; readonly library: number };
  readonly generatedSymbols: number;
  readonly callSites: number;
  readonly applied: ApplyResult | null;
  readonly staleSources: readonly string[];
  readonly problems: readonly LoadProblem[];
  readonly ms: number;
  /** The linked model, for importers that build on it (AOT bean definitions, traces); absent when unchanged. */
  readonly analysis?: BytecodeAnalysis;
}

const FINGERPRINT_KEY = 'artifacts.bytecode.fingerprint';

export async function importBytecode(ws: Workspace, options: BytecodeImportOptions = {}): Promise<BytecodeImportReport> {
  const t0 = performance.now();
  const store = new ArtifactStore(ws.db);
  const layout = options.layout ?? findBytecode(ws.root);
  const { classFiles, jarFiles } = builtFiles(ws.root, layout);
  const empty = { source: 0, anonymous: 0, generated: 0, library: 0 };
  const previous = await store.artifacts('bytecode');
  // No build output now or before: nothing to link, and the Java symbols a link reads are not loaded.
  if (!classFiles.length && !jarFiles.length && !previous.length) {
    return { unchanged: true, layout, classFiles: 0, jars: 0, classes: empty, generatedSymbols: 0, callSites: 0, applied: null, staleSources: [], problems: [], ms: performance.now() - t0 };
  }
  const sources = await store.sourceFiles('java');
  const fingerprint = createHash('sha1')
    .update(JSON.stringify([classFiles.map((f) => [f.rel, f.size, f.mtimeMs]), jarFiles.map((f) => [f.rel, f.size, f.mtimeMs]), [...sources].map(([p, s]) => [p, s.hash, s.mtimeMs])]))
    .digest('hex');
  if (!options.force && (await store.meta(FINGERPRINT_KEY)) === fingerprint && (previous.length > 0 || classFiles.length + jarFiles.length === 0)) {
    return { unchanged: true, layout, classFiles: classFiles.length, jars: jarFiles.length, classes: empty, generatedSymbols: 0, callSites: 0, applied: null, staleSources: [], problems: [], ms: performance.now() - t0 };
  }

  const { loaded, index, analysis } = await linkBuilt(ws, layout, classFiles, jarFiles, (classes) =>
    options.log?.(`bytecode: read ${classFiles.length} class files and ${jarFiles.length} jars (${classes} classes) in ${Math.round(performance.now() - t0)} ms`),
  );

  const staleSources = staleSourcesOf(analysis, [...classFiles, ...jarFiles], sources);

  // Artifact rows: one per class file, one per jar. Symbols from a jar belong to the jar's row.
  const specs: ArtifactSpec[] = [
    ...classFiles.map((f): ArtifactSpec => ({ path: f.rel, language: 'jvm-class', kind: 'bytecode', format: 'class', location: f.rel, hash: loaded.hashes.get(f.rel) ?? null, size: f.size, mtimeMs: f.mtimeMs })),
    ...jarFiles.map((f): ArtifactSpec => ({
      path: f.rel, language: 'jvm-jar', kind: 'bytecode', format: 'jar', location: f.rel, hash: loaded.hashes.get(f.rel) ?? null, size: f.size, mtimeMs: f.mtimeMs,
      summary: { classes: loaded.jarClassCount.get(f.rel) ?? 0 },
    })),
  ];
  let symbolCount = 0;
  await ws.db.write(async (db) => {
    const ids = await ArtifactStore.replace(db, specs, previous.map((p) => p.path));
    const idByPath = new Map(specs.map((s, i) => [s.path, ids[i]!]));
    const symbols: NewSymbol[] = [];
    for (const g of analysis.generated) {
      const fileId = idByPath.get(g.artifact) ?? idByPath.get(g.artifact.split('!/')[0]!);
      if (fileId === undefined) continue;
      symbols.push({ sid: g.sid, name: g.name, qname: g.qname, kind: g.kind, parentSid: g.parentSid, derivedFrom: g.derivedFrom, origin: g.generator, line: g.line, fileId });
    }
    symbolCount = (await ArtifactStore.insertSymbols(db, symbols)).inserted;
    await ArtifactStore.setMeta(db, FINGERPRINT_KEY, fingerprint);
  });

  const input: BytecodeInput = { analysis, index, staleSources };
  const applied = await applyWorkspaceResolver(ws.db, ws.root, new BytecodeResolver(async () => input), {
    signal: options.signal,
    log: options.log,
    onUnavailable: (e) => options.log?.(`bytecode: ${(e as Error).message}`),
  });
  const report: BytecodeImportReport = {
    unchanged: false,
    layout,
    classFiles: classFiles.length,
    jars: jarFiles.length,
    classes: { source: analysis.counts.source, anonymous: analysis.counts.anonymous, generated: analysis.counts.generated, library: analysis.counts.library },
    generatedSymbols: symbolCount,
    callSites: analysis.calls.length,
    applied,
    staleSources: [...staleSources].sort(),
    problems: loaded.problems,
    ms: performance.now() - t0,
    analysis,
  };
  options.log?.(
    `bytecode: ${report.classes.source} source classes, ${report.classes.generated} generated, ${symbolCount} generated symbols, ${applied?.confirmed ?? 0} edges confirmed, ${applied?.refuted ?? 0} refuted, ${applied?.added ?? 0} added in ${Math.round(report.ms)} ms`,
  );
  return report;
}

/** A class file older than its source describes code that has since moved: the sources whose sites it would answer for. */
function staleSourcesOf(analysis: BytecodeAnalysis, built: readonly ArtifactFile[], sources: ReadonlyMap<string, { mtimeMs: number }>): Set<string> {
  const mtime = new Map(built.map((f) => [f.rel, f.mtimeMs]));
  const stale = new Set<string>();
  for (const t of analysis.types.values()) {
    if (!t.sourcePath || (t.status !== 'source' && t.status !== 'anonymous')) continue;
    const src = sources.get(t.sourcePath);
    const at = mtime.get(t.artifact) ?? mtime.get(t.artifact.split('!/')[0]!);
    if (src && at !== undefined && src.mtimeMs > at + 1000) stale.add(t.sourcePath);
  }
  return stale;
}

/** What the bytecode resolver needs, read from the workspace without writing (for the enrichment pass). */
export async function loadBytecodeInput(ws: Workspace): Promise<BytecodeInput | undefined> {
  const layout = findBytecode(ws.root);
  const { classFiles, jarFiles } = builtFiles(ws.root, layout);
  if (!classFiles.length && !jarFiles.length) return undefined;
  const { index, analysis } = await linkBuilt(ws, layout, classFiles, jarFiles);
  return { analysis, index, staleSources: staleSourcesOf(analysis, [...classFiles, ...jarFiles], await new ArtifactStore(ws.db).sourceFiles('java')) };
}

/** Reads `@Generated("…")` from generated sources the build left (target/generated-sources/annotations). */
function generatedSourceReader(root: string, dirs: readonly string[]): (internal: string, sourceFile: string | undefined) => string | undefined {
  return (internal, sourceFile) => {
    if (!sourceFile) return undefined;
    const pkgDir = internal.includes('/') ? internal.slice(0, internal.lastIndexOf('/')) : '';
    // The name comes from the class file: read only a regular file inside the workspace.
    for (const d of dirs) {
      const text = readWorkspaceText(root, path.join(root, d, pkgDir, sourceFile));
      if (text !== undefined) return text;
    }
    return undefined;
  };
}

/** Reads and links the workspace's class files without writing anything: the type model DI wiring and traces build on. */
export async function readBytecode(ws: Workspace, layout: BytecodeLayout = findBytecode(ws.root)): Promise<BytecodeAnalysis | undefined> {
  const { classFiles, jarFiles } = builtFiles(ws.root, layout);
  if (!classFiles.length && !jarFiles.length) return undefined;
  return (await linkBuilt(ws, layout, classFiles, jarFiles)).analysis;
}

/** The class files and jars a layout names, with size and mtime (jars that are gone are left out). */
function builtFiles(root: string, layout: BytecodeLayout): { classFiles: ArtifactFile[]; jarFiles: ArtifactFile[] } {
  const classFiles = listFiles(root, layout.classDirs, /\.class$/);
  const jarFiles = layout.jars.flatMap((j): ArtifactFile[] => {
    try {
      const st = fs.statSync(path.join(root, j));
      return [{ rel: j, abs: path.join(root, j), size: st.size, mtimeMs: Math.floor(st.mtimeMs) }];
    } catch {
      return [];
    }
  });
  return { classFiles, jarFiles };
}

/** Reads the class files and jars and links them to the workspace's Java sources. */
async function linkBuilt(
  ws: Workspace,
  layout: BytecodeLayout,
  classFiles: readonly ArtifactFile[],
  jarFiles: readonly ArtifactFile[],
  onLoaded?: (classes: number) => void,
): Promise<{ loaded: LoadedArtifacts; index: SourceIndex; analysis: BytecodeAnalysis }> {
  const loaded = loadClasses(ws.root, classFiles, jarFiles);
  onLoaded?.(loaded.classes.length);
  const index = await new ArtifactStore(ws.db).sourceIndex(['java']);
  return { loaded, index, analysis: analyzeBytecode(loaded.classes, index, { generatedSource: generatedSourceReader(ws.root, layout.generatedSourceDirs) }) };
}
