import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TenureError } from '../../../../shared/errors.js';
import { filesUnder, toPosixRelative } from '../../../../shared/paths.js';
import { readBytecode } from '../bytecode/importer.js';
import type { BytecodeAnalysis } from '../bytecode/analysis.js';
import { SourceText } from '../bytecode/sourceText.js';
import { ArtifactStore, type ArtifactSpec, type WiringRow } from '../artifacts/store.js';
import type { ApplyResult } from '../../enrichment/store.js';
import { applyWorkspaceResolver } from '../../enrichment/workspaceResolver.js';
import { DiResolver, type DiInput, type DiSource } from './resolver.js';
import { SourceIndex } from '../bytecode/sourceIndex.js';
import type { Workspace } from '../../../store/workspace.js';
import { fetchActuatorBeans, looksLikeActuatorBeans, parseActuatorBeans, parseJson } from './actuator.js';
import { parseAotFiles, type AotFile } from './aot.js';
import type { BeanExport } from './model.js';
import { BytecodeTypeModel, SourceTypeModel, type DiTypeModel } from './typeModel.js';
import { computeWiring } from './wiring.js';

/**
 * `tenure import beans <file|url|dir>`: reads an actuator beans export (a
 * saved file or a running application's URL) or Spring AOT output (a folder
 * or files), works out which bean fills which injection point, stores the
 * wiring, and records the wired implementations through the resolution store.
 * Re-importing the same file or URL replaces what it gave before. A file that
 * cannot be read changes nothing.
 */

export interface BeansImportOptions {
  /** Profile(s) the wiring holds for, when the export does not say. */
  readonly profile?: string;
  readonly signal?: AbortSignal;
  readonly log?: (message: string) => void;
  /** The linked class files, when the caller has them already. */
  readonly analysis?: BytecodeAnalysis;
  readonly timeoutMs?: number;
}

export interface BeansImportReport {
  readonly format: BeanExport['format'];
  readonly location: string;
  readonly beans: number;
  readonly wiring: readonly WiringRow[];
  readonly profiles: readonly string[];
  readonly capturedAt: number;
  /** Where injection points and types came from: class files or source declarations. */
  readonly typeModel: string;
  readonly warnings: readonly string[];
  readonly applied: ApplyResult | null;
}

function beansLabel(format: string, capturedAt: number | null): string {
  const day = capturedAt ? new Date(capturedAt).toISOString().slice(0, 10) : 'unknown date';
  return format === 'actuator-beans' ? `actuator beans of ${day}` : `Spring AOT output of ${day}`;
}

export async function importBeans(ws: Workspace, input: string, options: BeansImportOptions = {}): Promise<BeansImportReport> {
  if (/^https?:\/\//i.test(input)) {
    const { text, at } = await fetchActuatorBeans(input, { ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    const exp = parseActuatorBeans(parseJson(text, input), input);
    const spec: ArtifactSpec = { path: input, language: 'spring-beans', kind: 'beans', format: exp.format, location: input, hash: sha1(text), size: text.length, mtimeMs: at, capturedAt: at };
    return applyBeans(ws, exp, spec, options);
  }
  const abs = path.resolve(ws.root, input);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new TenureError('invalid-input', `No such file or folder: ${abs}`);
  }
  const rel = toPosixRelative(ws.root, abs);
  const where = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  if (st.isDirectory() || abs.endsWith('.java')) {
    const files = st.isDirectory() ? filesUnder(abs, '.java') : [abs];
    return importAotFiles(ws, where, files, options);
  }
  const text = fs.readFileSync(abs, 'utf8');
  const doc = parseJson(text, where);
  if (!looksLikeActuatorBeans(doc)) {
    throw new TenureError('invalid-input', `${where} is JSON but not an actuator beans export (expected "contexts" → "<id>" → "beans", as GET /actuator/beans returns). Nothing was imported.`);
  }
  const exp = parseActuatorBeans(doc, where);
  const spec: ArtifactSpec = { path: where, language: 'spring-beans', kind: 'beans', format: exp.format, location: where, hash: sha1(text), size: st.size, mtimeMs: st.mtimeMs, capturedAt: Math.floor(st.mtimeMs) };
  return applyBeans(ws, exp, spec, options);
}

/** Spring AOT sources in a folder (or given files), as one artifact. */
export async function importAotFiles(ws: Workspace, where: string, files: readonly string[], options: BeansImportOptions = {}): Promise<BeansImportReport> {
  const aot: AotFile[] = [];
  let newest = 0;
  let size = 0;
  const hash = createHash('sha1');
  for (const f of files.slice().sort()) {
    const text = fs.readFileSync(f, 'utf8');
    const st = fs.statSync(f);
    newest = Math.max(newest, Math.floor(st.mtimeMs));
    size += st.size;
    hash.update(f).update(text);
    aot.push({ path: toPosixRelative(ws.root, f), text });
  }
  const parsed = parseAotFiles(aot);
  if (!parsed.beans.length) {
    throw new TenureError('invalid-input', `${where}: no Spring AOT bean definitions (*__BeanDefinitions.java with get…BeanDefinition() methods) found.${parsed.warnings.length ? ' ' + parsed.warnings.join('; ') : ''}`);
  }
  const exp: BeanExport = { format: 'spring-aot', beans: parsed.beans, profiles: [], warnings: parsed.warnings };
  const spec: ArtifactSpec = { path: where, language: 'spring-aot', kind: 'beans', format: 'spring-aot', location: where, hash: hash.digest('hex'), size, mtimeMs: newest, capturedAt: newest };
  return applyBeans(ws, exp, spec, options);
}

async function applyBeans(ws: Workspace, exp: BeanExport, spec: ArtifactSpec, options: BeansImportOptions): Promise<BeansImportReport> {
  const store = new ArtifactStore(ws.db);
  const profiles = exp.profiles.length ? exp.profiles : options.profile ? options.profile.split(',').map((p) => p.trim()).filter(Boolean) : [];
  const withProfiles: BeanExport = { ...exp, profiles };
  const analysis = options.analysis ?? (await readBytecode(ws));
  let model: DiTypeModel;
  if (analysis && analysis.types.size) model = new BytecodeTypeModel(analysis.types);
  else model = new SourceTypeModel(await store.sourceIndex(['java']), await store.inheritance(), new SourceText(ws.root));
  const capturedAt = spec.capturedAt ?? Date.now();
  const label = beansLabel(exp.format, capturedAt);
  const { rows, warnings } = computeWiring(withProfiles, model, label);
  const allWarnings = [...exp.warnings, ...warnings];
  if (!rows.length) allWarnings.push(`no bean of a workspace class receives another bean (${exp.beans.length} beans read; are the application's classes indexed?)`);
  await ws.db.write(async (db) => {
    const [fileId] = await ArtifactStore.replace(db, [{ ...spec, profile: profiles.join(',') || null, summary: { beans: exp.beans.length, wiring: rows.length, typeModel: model.description, warnings: allWarnings.slice(0, 50) } }]);
    await ArtifactStore.insertWiring(db, fileId!, rows);
  });
  const applied = await applyDi(ws, exp.format === 'actuator-beans' ? 'di:actuator' : 'di:aot', options);
  options.log?.(`beans: ${exp.beans.length} beans from ${spec.location}, ${rows.length} wired injection points (${model.description}), ${applied?.implementations ?? 0} wired implementations recorded`);
  return { format: exp.format, location: spec.location, beans: exp.beans.length, wiring: rows, profiles, capturedAt, typeModel: model.description, warnings: allWarnings, applied };
}

/** Applies every stored wiring of one kind as implementation facts (again after re-indexing: they are re-derived, not kept). */
export async function applyDi(ws: Workspace, source: DiSource, options: { signal?: AbortSignal; log?: (m: string) => void } = {}): Promise<ApplyResult | null> {
  return applyWorkspaceResolver(ws.db, ws.root, new DiResolver(source, () => wiringInput(ws, source)), options);
}

/**
 * The stored wiring of one kind, with the Java symbols it names. The symbols
 * are read only when there is wiring: a workspace with no bean export or AOT
 * output (most, and every large one without Spring) would otherwise load
 * every Java symbol after each index for nothing.
 */
export async function wiringInput(ws: Workspace, source: DiSource): Promise<DiInput> {
  const store = new ArtifactStore(ws.db);
  const format = source === 'di:actuator' ? 'actuator-beans' : 'spring-aot';
  const rows = (await store.wiring()).filter((w) => w.format === format);
  return { rows, index: rows.length ? await store.sourceIndex(['java'], { withArtifacts: true }) : new SourceIndex([]) };
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
