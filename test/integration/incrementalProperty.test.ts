import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { REPO_ROOT, tempDir } from '../helpers/fixtures';
import { dumpDiff, dumpIndex, indexAndDump, type IndexDump } from '../helpers/indexDump';
import { editOf, random, writeCorpus } from '../helpers/editCorpus';

/**
 * Incremental equals full: random edits to the files of a corpus, each
 * indexed incrementally (and now and then by a new indexer that loads its
 * working set from the database, as the next process does), compared after
 * every step with a fresh index of the same tree: files, symbols, sites,
 * import targets, edges with their tiers and the sites they resolve.
 *
 * The corpus: the two-language fixture of editCorpus (barrels and
 * `__init__.py` re-exports) beside zod's TypeScript core (`src/v4/core`, a dependency,
 * so present wherever the suite runs) — and Django's sources with
 * TENURE_PROPERTY_DJANGO=<path to the django package>.
 * TENURE_PROPERTY_EDITS sets the number of edits (50 by default; 200 for the issue).
 * Both indexers get a parse budget of a minute: on a loaded machine a file skipped for its time budget would show as a difference that is not one.
 */
const EDITS = Number(process.env.TENURE_PROPERTY_EDITS ?? 50);
const ZOD = path.join(REPO_ROOT, 'node_modules', 'zod', 'src', 'v4', 'core');

function sources(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'tests' && e.name !== '__pycache__' && e.name !== 'locales') walk(p);
      } else if (ext.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** One random change to a real source file: a line dropped or doubled, a function that uses a name the file already uses, or the original back. */
function mutate(text: string, original: string, ts: boolean, next: () => number, step: number): string {
  const lines = text.split('\n');
  const r = next();
  const pick = () => Math.floor(next() * lines.length);
  if (r < 0.15) return original;
  if (r < 0.45) {
    // Lines with imports and exports first: that is where incremental indexing goes wrong.
    const marked = lines.map((l, i) => (/\b(import|export|from)\b/.test(l) ? i : -1)).filter((i) => i >= 0);
    const i = marked.length && next() < 0.6 ? marked[Math.floor(next() * marked.length)]! : pick();
    lines.splice(i, 1);
    return lines.join('\n');
  }
  if (r < 0.6) {
    const i = pick();
    lines.splice(i, 0, lines[i]!);
    return lines.join('\n');
  }
  const names = [...new Set(text.match(/\b[A-Za-z_][A-Za-z0-9_]{3,}\b/g) ?? [])];
  const name = names[Math.floor(next() * names.length)] ?? 'missing';
  return ts
    ? `${text}\nexport function tenureProbe${step}(): unknown {\n  return ${name}(${step});\n}\n`
    : `${text}\n\ndef tenure_probe_${step}():\n    return ${name}(${step})\n`;
}

async function fresh(root: string): Promise<IndexDump> {
  fs.rmSync(path.join(root, '.tenure'), { recursive: true, force: true });
  return indexAndDump(root);
}

describe('incremental equals full (property test)', () => {
  it(`${EDITS} random edits of a real corpus, each indexed incrementally, leave the index a fresh one makes after every step`, async function () {
    this.timeout(EDITS * 30_000 + 120_000);
    const work = tempDir('tenure-prop-');
    const mirror = tempDir('tenure-prop-fresh-');
    let ws: Workspace | undefined;
    let indexer: StructuralIndexer | undefined;
    try {
      const fixture = writeCorpus(path.join(work.root, 'fixture'));
      const copy = (from: string, to: string) => fs.cpSync(from, path.join(work.root, to), { recursive: true, filter: (src) => !src.includes('__pycache__') });
      assert.ok(fs.existsSync(ZOD), `zod's sources at ${ZOD} (a dependency)`);
      copy(ZOD, 'zod');
      const django = process.env.TENURE_PROPERTY_DJANGO;
      if (django) copy(django, 'django');
      const editable = [
        ...fixture.filter((r) => /\/m\d+\./.test(r)).map((r) => `fixture/${r}`),
        ...sources(path.join(work.root, 'zod'), /\.ts$/).map((p) => path.relative(work.root, p).split(path.sep).join('/')),
        ...(django ? sources(path.join(work.root, 'django'), /\.py$/).map((p) => path.relative(work.root, p).split(path.sep).join('/')) : []),
      ];
      const originals = new Map(editable.map((rel) => [rel, fs.readFileSync(path.join(work.root, rel), 'utf8')]));
      fs.cpSync(work.root, mirror.root, { recursive: true });
      const seed = Number(process.env.TENURE_PROPERTY_SEED ?? Date.now() % 100000);
      const next = random(seed);

      ws = await openWorkspace(work.root);
      indexer = await StructuralIndexer.create(ws, { workers: 1, parseBudgetMs: 60_000 });
      await indexer.indexAll();
      let edgesCompared = 0;
      for (let step = 1; step <= EDITS; step++) {
        const rel = editable[Math.floor(next() * editable.length)]!;
        const abs = path.join(work.root, rel);
        const gone = !fs.existsSync(abs);
        let what: string;
        if (gone) {
          fs.writeFileSync(abs, originals.get(rel)!);
          what = 'recreated';
        } else if (next() < 0.06) {
          fs.rmSync(abs);
          what = 'deleted';
        } else if (rel.startsWith('fixture/')) {
          fs.writeFileSync(abs, editOf(rel.slice('fixture/'.length), Math.floor(next() * 6)));
          what = 'variant';
        } else {
          fs.writeFileSync(abs, mutate(fs.readFileSync(abs, 'utf8'), originals.get(rel)!, rel.endsWith('.ts'), next, step));
          what = 'mutated';
        }
        // The same tree beside it, indexed from nothing.
        if (fs.existsSync(abs)) fs.copyFileSync(abs, path.join(mirror.root, rel));
        else fs.rmSync(path.join(mirror.root, rel), { force: true });
        // Every tenth step a new indexer: its working set comes from the database alone, as another process's does.
        if (step % 10 === 0) {
          await indexer.dispose();
          indexer = await StructuralIndexer.create(ws, { workers: 1, parseBudgetMs: 60_000 });
        }
        await indexer.updateFiles([abs]);
        const incremental = await dumpIndex(ws.db);
        const full = await fresh(mirror.root);
        edgesCompared += full.edges.length;
        assert.equal(incremental.duplicateSiteIds, 0, `step ${step}: no site id held by two sites`);
        assert.deepEqual(dumpDiff(incremental, full), [], `seed ${seed}, step ${step}: ${rel} ${what}`);
      }
      assert.ok(edgesCompared > EDITS * 200, `edges compared: ${edgesCompared}`);
    } finally {
      await indexer?.dispose();
      await ws?.close();
      work.cleanup();
      mirror.cleanup();
    }
  });
});
