import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexArtifacts } from '../../src/core/structural/sources/bytecode/artifacts';
import { importBeans } from '../../src/core/structural/sources/di/importer';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { importTraces } from '../../src/core/structural/sources/traces/importer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { copyExample } from './fixtures';
import { buildExampleJava, classFilesUnder, javap } from './java';
import { parseJavap } from './javap';

/*
 * SPEC's fifteen-minute check on examples/settlement: `ClearingRail` has six
 * implementations, one (`InstantRail`) reached only through Spring's
 * injection; ask who calls `ClearingRail.submit` and count, against ground
 * truth that does not come from Tenure: the JDK's `javap` for every call the
 * compiler wrote, the beans export for what the container wired, and the
 * trace for what ran by reflection.
 */

export const INTERFACE = 'com.acme.clearing.ClearingRail';
export const FAMILY = ['ClearingRail', 'SepaRail', 'ChapsRail', 'FedwireRail', 'SwiftRail', 'TargetTwoRail', 'InstantRail'].map((c) => `com.acme.clearing.${c}.submit`);

export interface ExampleOptions {
  /** Build the Java service and read its class files (and the AOT output) through `indexArtifacts`. */
  readonly bytecode?: boolean;
  readonly aot?: boolean;
  readonly actuator?: boolean;
  readonly traces?: boolean;
  readonly staleAfterDays?: number;
  readonly now?: number;
}

export interface JavaExample {
  readonly ws: Workspace;
  readonly root: string;
  readonly classes: string | undefined;
  readonly timings: Record<string, number>;
  cleanup(): Promise<void>;
}

/** A private copy of the example, built and imported as asked. */
export async function javaExample(options: ExampleOptions = {}): Promise<JavaExample> {
  const ex = copyExample();
  const timings: Record<string, number> = {};
  let classes: string | undefined;
  let t = performance.now();
  if (options.bytecode) {
    classes = buildExampleJava(ex.root).classes;
    timings.javac = performance.now() - t;
    // What Spring's AOT processing writes during the build.
    if (options.aot) fs.cpSync(path.join(ex.root, 'artifacts', 'spring-aot'), path.join(ex.root, 'java', 'target', 'spring-aot', 'main', 'sources'), { recursive: true });
  }
  const ws = await openWorkspace(ex.root);
  const indexer = await StructuralIndexer.create(ws);
  t = performance.now();
  await indexer.indexAll();
  timings.index = performance.now() - t;
  await indexer.dispose();
  if (options.bytecode) {
    t = performance.now();
    await indexArtifacts(ws);
    timings.artifacts = performance.now() - t;
  }
  if (options.actuator) {
    t = performance.now();
    await importBeans(ws, 'artifacts/actuator-beans.json', { profile: 'prod' });
    timings.beans = performance.now() - t;
  }
  if (options.traces) {
    t = performance.now();
    await importTraces(ws, 'artifacts/traces.otlp.jsonl', { staleAfterDays: options.staleAfterDays ?? 36_500, ...(options.now ? { now: options.now } : {}) });
    timings.traces = performance.now() - t;
  }
  return {
    ws,
    root: ex.root,
    classes,
    timings,
    cleanup: async () => {
      await ws.close();
      ex.cleanup();
    },
  };
}

export async function ask(ws: Workspace, symbol: string, depth = 1): Promise<WhatBreaksResult> {
  return whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), depth);
}

/** "caller → callee" pairs: the direct callers (and method references) of the interface method and of each implementation. */
export async function answerPairs(ws: Workspace): Promise<Set<string>> {
  const pairs = new Set<string>();
  for (const target of FAMILY) {
    const r = await ask(ws, target, 1);
    for (const d of r.dependents) {
      if (d.distance !== 1 || (d.kind !== 'call' && d.kind !== 'reference')) continue;
      pairs.add(`${d.symbol.qname} → ${target}`);
    }
  }
  return pairs;
}

/**
 * Ground truth, none of it from Tenure: every call and method reference into
 * the family that `javap` shows in the compiled classes (a lambda body counts
 * for the method that contains it); the calls the container routes to the
 * wired bean (the beans export: settlementProcessor and replayJob get
 * instantRail for their ClearingRail); and the reflective call the replay job
 * makes, which only a run shows (the trace).
 */
export function truthPairs(classesDir: string): Set<string> {
  const files = classFilesUnder(classesDir).filter((f) => f.includes(`${path.sep}clearing${path.sep}`));
  const classes = parseJavap(javap(['-v', '-p', ...files]));
  const family = new Set(FAMILY.map((q) => q.replace(/\.submit$/, '').replace(/\./g, '/')));
  const pairs = new Set<string>();
  const viaInterface = new Map<string, string>();
  for (const c of classes) {
    for (const m of c.methods) {
      const caller = `${c.thisClass.replace(/\//g, '.')}.${/^lambda\$(.+)\$\d+$/.exec(m.name)?.[1] ?? m.name}`;
      for (const ins of m.instructions) {
        let target: string | undefined;
        if (ins.op === 'invokedynamic') {
          const bsm = c.bootstraps[Number(/^#(\d+):/.exec(ins.target)![1])];
          const impl = bsm?.args[1]?.replace(/"/g, '');
          target = impl ? /^REF_\w+ (.+):/.exec(impl)?.[1] : undefined;
        } else if (ins.op.startsWith('invoke')) target = ins.target.split(':')[0];
        if (!target) continue;
        const owner = target.slice(0, target.lastIndexOf('.'));
        if (!family.has(owner) || !target.endsWith('.submit')) continue;
        const callee = target.replace(/\//g, '.');
        pairs.add(`${caller} → ${callee}`);
        if (callee === `${INTERFACE}.submit`) viaInterface.set(caller, callee);
      }
    }
  }
  for (const consumer of ['com.acme.clearing.SettlementProcessor', 'com.acme.clearing.ReplayJob']) {
    for (const caller of viaInterface.keys()) if (caller.startsWith(consumer + '.')) pairs.add(`${caller} → com.acme.clearing.InstantRail.submit`);
  }
  pairs.add('com.acme.clearing.ReplayJob.replayByName → com.acme.clearing.SepaRail.submit');
  return pairs;
}

export function precisionRecall(answer: ReadonlySet<string>, truth: ReadonlySet<string>): { precision: number; recall: number; missed: string[]; wrong: string[] } {
  const hit = [...answer].filter((p) => truth.has(p));
  return {
    precision: answer.size ? hit.length / answer.size : 1,
    recall: truth.size ? hit.length / truth.size : 1,
    missed: [...truth].filter((p) => !answer.has(p)).sort(),
    wrong: [...answer].filter((p) => !truth.has(p)).sort(),
  };
}
