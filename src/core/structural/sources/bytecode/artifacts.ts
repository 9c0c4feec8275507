import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../../../../shared/errors.js';
import { applyDi, importAotFiles, wiringInput, type BeansImportReport } from '../di/importer.js';
import { ArtifactStore } from '../artifacts/store.js';
import type { ApplyResult } from '../../enrichment/store.js';
import { applyTraces } from '../traces/importer.js';
import type { Workspace } from '../../../store/workspace.js';
import { importBytecode, loadBytecodeInput, type BytecodeImportReport } from './importer.js';
import { BytecodeResolver } from './resolver.js';
import { DiResolver } from '../di/resolver.js';
import { TraceResolver } from '../traces/resolver.js';
import type { EdgeResolver } from '../../enrichment/types.js';
import { findBytecode, listFiles } from './load.js';

/**
 * What `tenure index` does after the inventory: read the build output it finds
 * in the usual places (class files, jars, Spring AOT sources), and derive the
 * edges of previously imported artifacts again (DI wiring, traces: their
 * edges fall back when the files they touch are re-indexed, and come back
 * here). Incremental: nothing is re-read while nothing changed.
 */

export interface IndexArtifactsOptions {
  readonly log?: (message: string) => void;
  readonly signal?: AbortSignal;
  /** Read everything again. */
  readonly force?: boolean;
}

export interface ArtifactsIndexReport {
  readonly bytecode: Omit<BytecodeImportReport, 'analysis'>;
  readonly aot: readonly (Omit<BeansImportReport, 'wiring'> & { readonly wiring: number })[];
  readonly relinked: { readonly actuator: ApplyResult | null; readonly aot: ApplyResult | null; readonly traces: ApplyResult | null } | null;
  readonly problems: readonly string[];
  readonly ms: number;
}

const RELINK_KEY = 'artifacts.relinkedAt';

export async function indexArtifacts(ws: Workspace, options: IndexArtifactsOptions = {}): Promise<ArtifactsIndexReport> {
  const t0 = performance.now();
  const problems: string[] = [];
  const layout = findBytecode(ws.root);
  // A repository with no Java and no build output hears nothing about class files it never had.
  const javaHere = layout.classDirs.length > 0 || layout.jars.length > 0 || !!(await ws.db.get("SELECT 1 FROM files WHERE language = 'java' LIMIT 1"));
  const bytecode = await importBytecode(ws, { ...options, layout, ...(javaHere ? {} : { log: () => undefined }) });
  for (const p of bytecode.problems) problems.push(`${p.artifact}: ${p.message}`);

  // Spring AOT output in the usual places: one artifact per folder, re-read when its files change.
  const store = new ArtifactStore(ws.db);
  const known = new Map((await store.artifacts('beans')).filter((a) => a.format === 'spring-aot').map((a) => [a.path, a]));
  const aot: ArtifactsIndexReport['aot'][number][] = [];
  let aotChanged = false;
  for (const dir of layout.aotSourceDirs) {
    const files = listFiles(ws.root, [dir], /\.java$/);
    if (!files.length) continue;
    const listing = createHash('sha1').update(JSON.stringify(files.map((f) => [f.rel, f.size, f.mtimeMs]))).digest('hex');
    const prev = known.get(dir);
    known.delete(dir);
    if (!options.force && prev && (prev.summary as { listing?: string } | null)?.listing === listing && !bytecode.analysis) continue;
    try {
      const r = await importAotFiles(ws, dir, files.map((f) => f.abs), { ...options, ...(bytecode.analysis ? { analysis: bytecode.analysis } : {}) });
      await ws.db.write((db) => db.run(`UPDATE artifacts SET summary = json_set(COALESCE(summary, '{}'), '$.listing', ?) WHERE file_id = (SELECT id FROM files WHERE path = ?)`, [listing, dir]).then(() => undefined));
      aot.push({ ...r, wiring: r.wiring.length });
      aotChanged = true;
    } catch (e) {
      problems.push(`${dir}: ${errorMessage(e)}`);
    }
  }
  // AOT folders that are gone (a clean build): their wiring goes with them.
  const gone = [...known.keys()].filter((p) => !path.isAbsolute(p) && !fs.existsSync(path.join(ws.root, p)));
  if (gone.length) await ws.db.write((db) => ArtifactStore.replace(db, [], gone).then(() => undefined));

  // Facts kept by symbol id are derived again whenever the structural memory changed since the last time.
  const stamp = (await ws.db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.indexedAt'"))?.value ?? '0';
  let relinked: ArtifactsIndexReport['relinked'] = null;
  if (options.force || !bytecode.unchanged || aotChanged || gone.length || (await store.meta(RELINK_KEY)) !== stamp) {
    relinked = {
      actuator: await applyDi(ws, 'di:actuator', options),
      aot: await applyDi(ws, 'di:aot', options),
      traces: await applyTraces(ws, options),
    };
    await ws.db.write((db) => ArtifactStore.setMeta(db, RELINK_KEY, stamp));
  }
  const { analysis: _analysis, ...bytecodeReport } = bytecode;
  void _analysis;
  return { bytecode: bytecodeReport, aot, relinked, problems, ms: performance.now() - t0 };
}

/** One line for `tenure index`: what the build output added. */
export function renderArtifactsReport(r: ArtifactsIndexReport): string {
  const b = r.bytecode;
  const parts: string[] = [];
  if (b.classFiles || b.jars) {
    parts.push(
      b.unchanged
        ? `class files unchanged (${b.classFiles} class files, ${b.jars} jars)`
        : `${b.classFiles} class files and ${b.jars} jars read: ${b.classes.source} classes linked to source, ${b.classes.generated} generated, ${b.generatedSymbols} symbols that exist only in bytecode; edges ${b.applied?.confirmed ?? 0} confirmed, ${b.applied?.refuted ?? 0} refuted, ${b.applied?.added ?? 0} added`,
    );
    if (b.staleSources.length) parts.push(`${b.staleSources.length} source file(s) newer than their classes (rebuild for bytecode edges there)`);
  }
  for (const a of r.aot) parts.push(`Spring AOT ${a.location}: ${a.beans} beans, ${a.wiring} wired injection points`);
  if (r.problems.length) parts.push(`${r.problems.length} problem(s): ${r.problems.slice(0, 3).join('; ')}${r.problems.length > 3 ? '; …' : ''}`);
  return parts.length ? `Build output: ${parts.join('; ')}.` : '';
}

/**
 * The four artifact resolvers, for the enrichment pass (issue 3): bytecode
 * (workspace and Java file units), DI wiring from AOT output and from actuator
 * exports, and traces (workspace units). Each reads what `indexArtifacts` and
 * the imports stored; none writes.
 */
export function artifactResolvers(ws: Workspace): EdgeResolver[] {
  const store = new ArtifactStore(ws.db);
  return [
    new BytecodeResolver(() => loadBytecodeInput(ws)),
    new DiResolver('di:aot', () => wiringInput(ws, 'di:aot')),
    new DiResolver('di:actuator', () => wiringInput(ws, 'di:actuator')),
    new TraceResolver(async () => ({ observations: await store.observations() })),
  ];
}

/** The artifact resolvers that have something to read here (so a workspace without Java or imports lists none). */
export async function availableArtifactResolvers(ws: Workspace): Promise<EdgeResolver[]> {
  const kinds = await ws.db.all<{ kind: string; format: string }>('SELECT DISTINCT kind, format FROM artifacts');
  const has = (kind: string, format?: string) => kinds.some((k) => k.kind === kind && (!format || k.format === format));
  const wanted = new Set<string>();
  if (has('bytecode')) wanted.add('bytecode');
  if (has('beans', 'spring-aot')) wanted.add('di:aot');
  if (has('beans', 'actuator-beans')) wanted.add('di:actuator');
  if (has('traces')) wanted.add('traces');
  return artifactResolvers(ws).filter((r) => wanted.has(r.source));
}
