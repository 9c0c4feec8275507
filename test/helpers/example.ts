import * as path from 'node:path';
import { ManualClock, type Clock } from '../../src/core/episodic/clock';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options';
import { importEpisodes } from '../../src/core/episodic/seed';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { whyIsThis, type WhyIsThisResult } from '../../src/core/knowledge/why';
import { refreshRules } from '../../src/core/procedural/refresh';
import type { Workspace } from '../../src/core/store/workspace';
import { StructuralIndexer, type IndexReport } from '../../src/core/structural/index/indexer';
import { indexArtifacts } from '../../src/core/structural/sources/bytecode/artifacts';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { openWorkspace } from '../../src/core/workspace';
import { copyExample, tempDir, write } from './fixtures';
import { gitRepo } from './prereq';

export interface FilledExample {
  readonly root: string;
  readonly ws: Workspace;
  close(): Promise<void>;
}

/** Indexes a folder's structural memory, as `tenure index --no-knowledge` does without the build output. */
export async function indexStructure(ws: Workspace): Promise<IndexReport> {
  const indexer = await StructuralIndexer.create(ws);
  try {
    return await indexer.indexAll();
  } finally {
    await indexer.dispose();
  }
}

/** A temporary folder holding the files given (path → text), its structural memory indexed. */
export async function indexedFiles(files: Readonly<Record<string, string>>): Promise<FilledExample & { readonly report: IndexReport }> {
  const t = tempDir();
  for (const [rel, text] of Object.entries(files)) write(t.root, rel, text);
  const ws = await openWorkspace(t.root);
  const report = await indexStructure(ws);
  return {
    root: t.root,
    ws,
    report,
    close: async () => {
      await ws.close();
      t.cleanup();
    },
  };
}

/** A short design document in markdown: a title and a Context section holding `body`. */
export function designDoc(title: string, body: string): string {
  return [`# ${title}`, '', '## Context', '', body, ''].join('\n');
}

/** A decision record in markdown, numbered and accepted, with its sections in order (`{ Context: …, Decision: … }`). */
export function decisionRecord(n: number, title: string, sections: Record<string, string>): string {
  return [`# ${n}. ${title}`, '', '## Status', '', 'Accepted', '', ...Object.entries(sections).flatMap(([heading, body]) => [`## ${heading}`, '', body, ''])].join('\n');
}

/** Indexes a fixture's offline knowledge memory; a knowledge run that does not finish closes it and fails the test's setup. */
async function withKnowledge(fx: FilledExample): Promise<FilledExample> {
  const report = await indexKnowledge(fx.ws, {});
  if (report.status !== 'done') {
    await fx.close();
    throw new Error(`the knowledge run ended ${report.status}: ${report.message ?? ''}`);
  }
  return fx;
}

/** A temporary folder holding the files given, its structural memory and its offline knowledge memory indexed; a knowledge run that does not finish fails the test's setup. */
export async function knowledgeIndexedFiles(files: Readonly<Record<string, string>>): Promise<FilledExample> {
  return withKnowledge(await indexedFiles(files));
}

/**
 * A git repository whose files and commits `build` writes (with the `git` it is given, in `root`), its structural
 * and offline knowledge memory indexed; the test is skipped where git cannot create a repository.
 */
export async function knowledgeIndexedRepo(ctx: Mocha.Context, prefix: string, build: (git: (...args: string[]) => string, root: string) => void): Promise<FilledExample> {
  const t = tempDir(prefix);
  let ws: Workspace | undefined;
  const close = async () => {
    await ws?.close();
    t.cleanup();
  };
  try {
    build(gitRepo(ctx, t.root), t.root);
    ws = await openWorkspace(t.root);
    await indexStructure(ws);
  } catch (e) {
    await close();
    throw e;
  }
  return withKnowledge({ root: t.root, ws, close });
}

/** why_is_this for the one symbol `name` resolves to, as the catalog asks it (eight sources, the fixture's history read). */
export async function whyOf(fx: FilledExample, name: string): Promise<WhyIsThisResult> {
  const target = await resolveOneSymbol(fx.ws.db, name, { root: fx.root });
  return whyIsThis(fx.ws.db, target, 8, { root: fx.root });
}

/**
 * A copy of examples/settlement with the memories a test asks for filled:
 * the structural index always; the build output (class files, DI wiring,
 * traces), the offline knowledge pass and the seeded episodes with their
 * rules on request, at the clock given (default: the system clock).
 */
export async function filledExample(fill: { artifacts?: boolean; knowledge?: boolean; episodes?: boolean; clock?: Clock } = {}): Promise<FilledExample> {
  const ex = copyExample();
  const ws = await openWorkspace(ex.root);
  try {
    await indexStructure(ws);
    if (fill.artifacts) await indexArtifacts(ws, { log: () => undefined });
    if (fill.knowledge) await indexKnowledge(ws);
    if (fill.episodes) {
      const clock = fill.clock ?? new ManualClock(Date.now());
      await importEpisodes(ws, path.join(ex.root, 'tenure-seed', 'episodes.json'), clock, DEFAULT_OPTIONS);
      await refreshRules(ws, DEFAULT_OPTIONS, clock);
    }
  } catch (e) {
    await ws.close();
    ex.cleanup();
    throw e;
  }
  return {
    root: ex.root,
    ws,
    async close() {
      await ws.close();
      ex.cleanup();
    },
  };
}
