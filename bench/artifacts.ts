import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseClassFile } from '../src/core/structural/sources/bytecode/classFile.js';
import { analyzeBytecode } from '../src/core/structural/sources/bytecode/link.js';
import type { LoadedClass } from '../src/core/structural/sources/bytecode/analysis.js';
import { SourceIndex } from '../src/core/structural/sources/bytecode/sourceIndex.js';
import { ZipArchive } from '../src/core/structural/sources/bytecode/zip.js';
import { ArtifactStore } from '../src/core/structural/sources/artifacts/store.js';
import { parseTraceExport } from '../src/core/structural/sources/traces/formats.js';
import { analyzeTraces } from '../src/core/structural/sources/traces/map.js';
import { importTraces } from '../src/core/structural/sources/traces/importer.js';
import { routesFromSource } from '../src/core/structural/sources/traces/routes.js';
import { SourceText } from '../src/core/structural/sources/bytecode/sourceText.js';
import { answerPairs, javaExample, precisionRecall, truthPairs } from '../test/helpers/fifteen.js';
import { jdkAvailable } from '../test/helpers/java.js';
import { fmtInt, median, type Row } from './stats.js';

/*
 * Benchmark rows for issue 7 (bytecode, DI wiring, traces). Each function
 * returns rows `[corpus, measurement, result, target]` like bench/run.ts's;
 * they are not wired into run.ts here. Run alone:
 *
 *   npm run build && node -e "require('./out/bench/artifacts.js').artifactRows().then(r => console.log(r.map(x => x.join(' | ')).join('\n')))"
 */


const RUNS = 5;
const JARS = ['/usr/share/java/guava.jar', '/usr/share/java/commons-collections4.jar'];

/** Class files per second on a large Debian jar: reading the zip and parsing every class; then also linking them all as workspace classes. */
export function bytecodeRows(jar = JARS.find((j) => fs.existsSync(j))): Row[] {
  if (!jar) return [['Debian jar', 'class files per second', `not measured: none of ${JARS.join(', ')} is installed (apt-get install -y libguava-java libcommons-collections4-java)`, '']];
  const label = `${path.basename(jar)} (${(fs.statSync(jar).size / 1024 / 1024).toFixed(1)} MB)`;
  const parseMs: number[] = [];
  const linkMs: number[] = [];
  let count = 0;
  let invokes = 0;
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const zip = new ZipArchive(fs.readFileSync(jar), jar);
    const classes: LoadedClass[] = [];
    invokes = 0;
    for (const e of zip.entries) {
      if (!e.name.endsWith('.class')) continue;
      const info = parseClassFile(zip.read(e));
      for (const m of info.methods) invokes += m.invokes.length;
      classes.push({ info, artifact: `${jar}!/${e.name}`, fromJar: false });
    }
    const t1 = performance.now();
    // As if the jar were this workspace's build output with no sources: every class and member becomes a generated symbol, every call a fact.
    analyzeBytecode(classes, new SourceIndex([]));
    const t2 = performance.now();
    count = classes.length;
    parseMs.push(t1 - t0);
    linkMs.push(t2 - t0);
  }
  const perSec = (ms: number) => fmtInt(Math.round(count / (ms / 1000)));
  return [
    [label, `class files per second: read jar + parse (${fmtInt(count)} classes, ${fmtInt(invokes)} call sites; median of ${RUNS})`, `**${perSec(median(parseMs))}/s** (${median(parseMs).toFixed(0)} ms)`, ''],
    [label, 'class files per second: read + parse + link (every class as generated build output)', `**${perSec(median(linkMs))}/s** (${median(linkMs).toFixed(0)} ms)`, ''],
  ];
}

/** Trace spans per second: the example's export replicated to `spans` spans (new trace ids), parsed and mapped; then imported whole into SQLite. */
export async function traceRows(spans = 100_000): Promise<Row[]> {
  if (!jdkAvailable().ok) return [['settlement traces', 'spans per second', 'not measured: no JDK to build the example', '']];
  const ex = await javaExample({ bytecode: true });
  try {
    const lines = fs.readFileSync(path.join(ex.root, 'artifacts', 'traces.otlp.jsonl'), 'utf8').trim().split('\n');
    const perCopy = parseTraceExport(lines.join('\n'), 'x').spans.length;
    const copies = Math.ceil(spans / perCopy);
    const big: string[] = [];
    for (let i = 0; i < copies; i++) {
      const tag = i.toString(16).padStart(8, '0');
      for (const l of lines) big.push(l.replace(/"traceId":"(\w{24})\w{8}"/g, `"traceId":"$1${tag}"`));
    }
    const text = big.join('\n');
    const file = path.join(ex.root, 'big-traces.jsonl');
    fs.writeFileSync(file, text);
    const store = new ArtifactStore(ex.ws.db);
    const index = await store.sourceIndex(undefined, { withArtifacts: true });
    const routes = routesFromSource(index, new SourceText(ex.root), index.all());
    const mapMs: number[] = [];
    let n = 0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const exp = parseTraceExport(text, 'big');
      analyzeTraces(exp, index, routes, { now: Date.now() });
      mapMs.push(performance.now() - t0);
      n = exp.spans.length;
    }
    const t0 = performance.now();
    const report = await importTraces(ex.ws, file);
    const importMs = performance.now() - t0;
    const mb = (text.length / 1024 / 1024).toFixed(1);
    return [
      [`settlement traces ×${fmtInt(copies)} (${fmtInt(n)} spans, ${mb} MB OTLP JSON lines)`, 'spans per second: parse + map to symbols (median of 3)', `**${fmtInt(Math.round(n / (median(mapMs) / 1000)))}/s** (${median(mapMs).toFixed(0)} ms)`, ''],
      [`settlement traces ×${fmtInt(copies)}`, 'spans per second: `tenure import traces` whole (read, map, store, apply edges)', `**${fmtInt(Math.round(n / (importMs / 1000)))}/s** (${importMs.toFixed(0)} ms, ${report.observations} observed paths)`, ''],
    ];
  } finally {
    await ex.cleanup();
  }
}

/** The fifteen-minute check: precision and recall of "who calls ClearingRail.submit" against javap, the beans export and the trace. */
export async function fifteenRows(): Promise<Row[]> {
  if (!jdkAvailable().ok) return [['settlement (Java)', 'fifteen-minute check', 'not measured: no JDK (javac, javap) on PATH', '']];
  const full = await javaExample({ bytecode: true, aot: true, actuator: true, traces: true });
  const bare = await javaExample({});
  try {
    const truth = truthPairs(full.classes!);
    const withArtifacts = precisionRecall(await answerPairs(full.ws), truth);
    const inventory = precisionRecall(await answerPairs(bare.ws), truth);
    const f = (s: typeof inventory) => `precision **${s.precision.toFixed(2)}**, recall **${s.recall.toFixed(2)}**${s.missed.length ? ` (missed ${s.missed.length}: ${s.missed.map((m) => m.replace(/com\.acme\.clearing\./g, '')).join('; ')})` : ''}`;
    const t = full.timings;
    return [
      ['settlement (Java, 6 implementations, 1 DI-wired)', `fifteen-minute check, inventory only (tree-sitter), ${truth.size} true caller→callee pairs`, f(inventory), ''],
      ['settlement (Java, 6 implementations, 1 DI-wired)', 'fifteen-minute check with class files + actuator beans + AOT + traces', f(withArtifacts), 'precision 1.00, recall 1.00'],
      ['settlement (Java)', 'artifact import time', `class files + AOT ${t.artifacts?.toFixed(0)} ms, actuator beans ${t.beans?.toFixed(0)} ms, traces ${t.traces?.toFixed(0)} ms (inventory ${t.index?.toFixed(0)} ms)`, ''],
    ];
  } finally {
    await full.cleanup();
    await bare.cleanup();
  }
}

export async function artifactRows(): Promise<Row[]> {
  return [...bytecodeRows(), ...(await traceRows()), ...(await fifteenRows())];
}
