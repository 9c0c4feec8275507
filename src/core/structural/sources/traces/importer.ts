import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TenureError } from '../../../../shared/errors.js';
import { toPosixRelative } from '../../../../shared/paths.js';
import { readBytecode } from '../bytecode/importer.js';
import type { BytecodeAnalysis } from '../bytecode/analysis.js';
import { SourceText } from '../bytecode/sourceText.js';
import { ArtifactStore } from '../artifacts/store.js';
import type { ApplyResult } from '../../enrichment/store.js';
import { applyWorkspaceResolver } from '../../enrichment/workspaceResolver.js';
import { TraceResolver } from './resolver.js';
import type { Workspace } from '../../../store/workspace.js';
import { parseTraceExport } from './formats.js';
import { STALE_AFTER_KEY } from './model.js';
import { analyzeTraces, type TraceAnalysis } from './map.js';
import { routesFromBytecode, routesFromSource, type RouteTable } from './routes.js';

/**
 * `tenure import traces <file>`: reads an OTLP, Jaeger or Zipkin JSON export,
 * places its spans on symbols, and records the paths between them as
 * observed edges with the trace ids as evidence and the time they were last
 * seen. Re-importing the same file replaces what it gave; a file that cannot
 * be read changes nothing.
 */

export interface TraceImportOptions {
  readonly now?: number;
  readonly log?: (message: string) => void;
  readonly signal?: AbortSignal;
  readonly analysis?: BytecodeAnalysis;
  /** Days after which a path not seen again is shown as stale (stored for queries). */
  readonly staleAfterDays?: number;
}

export interface TraceImportReport {
  readonly location: string;
  readonly format: string;
  readonly stats: TraceAnalysis['stats'];
  readonly observations: number;
  readonly endpoints: number;
  readonly capturedAt: number;
  readonly warnings: readonly string[];
  readonly applied: ApplyResult | null;
  readonly ms: number;
  readonly spansPerSecond: number;
}

export async function importTraces(ws: Workspace, file: string, options: TraceImportOptions = {}): Promise<TraceImportReport> {
  const t0 = performance.now();
  const abs = path.resolve(ws.root, file);
  let text: string;
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new TenureError('invalid-input', `Cannot read ${abs}: ${(e as Error).message}`);
  }
  const rel = toPosixRelative(ws.root, abs);
  const where = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  const exp = parseTraceExport(text, where);
  if (!exp.spans.length) throw new TenureError('invalid-input', `${where}: no spans could be read.${exp.warnings.length ? ' ' + exp.warnings.slice(0, 3).join('; ') : ''} Nothing was imported.`);
  const store = new ArtifactStore(ws.db);
  const index = await store.sourceIndex(undefined, { withArtifacts: true });
  const routes = await routeTable(ws, options.analysis, index);
  const now = options.now ?? Date.now();
  const analysis = analyzeTraces(exp, index, routes, { now });
  const warnings = [...exp.warnings, ...analysis.warnings];
  await ws.db.write(async (db) => {
    const [fileId] = await ArtifactStore.replace(db, [
      {
        path: where, language: 'traces', kind: 'traces', format: exp.format, location: where, hash: createHash('sha1').update(text).digest('hex'), size: st.size, mtimeMs: st.mtimeMs,
        capturedAt: analysis.capturedAt, summary: { ...analysis.stats, observations: analysis.observations.length, warnings: warnings.slice(0, 50) },
      },
    ]);
    await ArtifactStore.insertSymbols(db, analysis.endpoints.map((e) => ({ ...e, fileId: fileId! })));
    await ArtifactStore.insertObservations(db, fileId!, analysis.observations);
    if (options.staleAfterDays !== undefined) await ArtifactStore.setMeta(db, STALE_AFTER_KEY, String(options.staleAfterDays));
  });
  const applied = await applyTraces(ws, options);
  const ms = performance.now() - t0;
  options.log?.(`traces: ${exp.spans.length} spans in ${analysis.stats.traces} traces (${exp.format}) → ${analysis.observations.length} observed paths, ${analysis.endpoints.length} endpoints without a symbol, in ${Math.round(ms)} ms`);
  return {
    location: where, format: exp.format, stats: analysis.stats, observations: analysis.observations.length, endpoints: analysis.endpoints.length,
    capturedAt: analysis.capturedAt, warnings, applied, ms, spansPerSecond: exp.spans.length / (ms / 1000),
  };
}

/** Routes and listeners: from class-file annotations when there are class files, and from the source for the rest. */
async function routeTable(ws: Workspace, analysis: BytecodeAnalysis | undefined, index: Awaited<ReturnType<ArtifactStore['sourceIndex']>>): Promise<RouteTable> {
  const bytecode = analysis ?? (await readBytecode(ws));
  const fromSource = routesFromSource(index, new SourceText(ws.root), index.all());
  if (!bytecode) return fromSource;
  const fromClasses = routesFromBytecode(bytecode.types.values());
  const covered = new Set([...fromClasses.routes, ...fromClasses.listeners].map((r) => r.sid));
  return {
    routes: [...fromClasses.routes, ...fromSource.routes.filter((r) => !covered.has(r.sid))],
    listeners: [...fromClasses.listeners, ...fromSource.listeners.filter((r) => !covered.has(r.sid))],
  };
}

/** Derives the observed edges of every imported export again (after a re-index, symbol rows may be new). */
export async function applyTraces(ws: Workspace, options: { signal?: AbortSignal; log?: (m: string) => void } = {}): Promise<ApplyResult | null> {
  const store = new ArtifactStore(ws.db);
  return applyWorkspaceResolver(ws.db, ws.root, new TraceResolver(async () => ({ observations: await store.observations() })), options);
}
