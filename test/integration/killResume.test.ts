import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkspace } from '../../src/core/workspace';
import { CLI, REPO_ROOT, copyExample, tempDir } from '../helpers/fixtures';
import { dumpDiff, dumpIndex, type IndexDump } from '../helpers/indexDump';
import { random, writeCorpus } from '../helpers/editCorpus';

/*
 * kill -9 at any moment loses nothing that was committed and damages
 * nothing: after each kill the database passes SQLite's integrity check,
 * the next run finishes, and what it leaves equals a clean run of the same
 * tree. `tenure index` is killed on a two-language corpus with zod's
 * TypeScript core beside it (so a run lasts seconds and kills land in the
 * parse, the resolution and the writes), `tenure knowledge index` on the
 * bundled example. TENURE_KILLS sets the number of kills of each (2 in the
 * suite; the reliability table in docs/reliability.md gives larger runs),
 * TENURE_KILL_SEED the seed.
 */
const KILLS = Number(process.env.TENURE_KILLS ?? 2);
const SEED = Number(process.env.TENURE_KILL_SEED ?? 7);
const ZOD = path.join(REPO_ROOT, 'node_modules', 'zod', 'src', 'v4', 'core');

function runTenure(args: string[]): { code: number | null; err: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, err: r.stderr ?? '', ms: Date.now() - t0 };
}

/** Starts `tenure …` and kills it with SIGKILL after `afterMs`; resolves whether it had already ended. */
function killAfter(args: string[], afterMs: number): Promise<{ endedFirst: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
    let ended = false;
    child.on('exit', () => {
      ended = true;
    });
    setTimeout(() => {
      const endedFirst = ended;
      if (!ended) child.kill('SIGKILL');
      child.on('close', () => resolve({ endedFirst }));
      if (ended) resolve({ endedFirst });
    }, afterMs);
  });
}

async function integrity(root: string): Promise<string> {
  const ws = await openWorkspace(root, { readonly: true });
  try {
    return (await ws.db.all<{ integrity_check: string }>('PRAGMA integrity_check')).map((r) => r.integrity_check).join('; ');
  } finally {
    await ws.close();
  }
}

async function structural(root: string): Promise<IndexDump> {
  const ws = await openWorkspace(root, { readonly: true });
  try {
    return await dumpIndex(ws.db);
  } finally {
    await ws.close();
  }
}

/** What a knowledge run leaves, as counts and stable keys (documents by source and hash, entities by name). */
async function knowledge(root: string): Promise<{ documents: string[]; chunks: number; entities: string[]; relationships: number; communities: number }> {
  const ws = await openWorkspace(root, { readonly: true });
  try {
    const docs = await ws.db.all<{ source: string; hash: string }>('SELECT source, hash FROM kn_documents ORDER BY source');
    const entities = await ws.db.all<{ name: string }>('SELECT name FROM kn_entities ORDER BY name');
    const n = async (table: string) => (await ws.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
    return { documents: docs.map((d) => `${d.source} ${d.hash}`), chunks: await n('kn_chunks'), entities: entities.map((e) => e.name), relationships: await n('kn_relationships'), communities: await n('kn_communities') };
  } finally {
    await ws.close();
  }
}

describe('kill -9 and resume (real processes, real SQLite)', function () {
  this.timeout(KILLS * 120_000 + 120_000);

  it(`tenure index killed ${KILLS} times at random moments: never corrupt, always resumes, ends equal to a clean index`, async () => {
    const clean = tempDir('tenure-kill-clean-');
    const ws = tempDir('tenure-kill-');
    try {
      writeCorpus(clean.root);
      fs.cpSync(ZOD, path.join(clean.root, 'zod'), { recursive: true });
      fs.cpSync(clean.root, ws.root, { recursive: true });
      const first = runTenure(['index', '--no-knowledge', clean.root]);
      assert.equal(first.code, 0, first.err);
      const reference = await structural(clean.root);
      assert.ok(reference.edges.length > 1000, `the corpus has edges (${reference.edges.length})`);
      const rand = random(SEED);
      let landed = 0;
      for (let k = 0; k < KILLS; k++) {
        // Half the kills hit a first index, half a rebuild over a complete one.
        const args = ['index', '--no-knowledge', ...(k % 2 ? ['--rebuild'] : []), ws.root];
        if (k % 2 === 0) fs.rmSync(path.join(ws.root, '.tenure'), { recursive: true, force: true });
        const at = 150 + Math.floor(rand() * first.ms);
        const { endedFirst } = await killAfter(args, at);
        if (!endedFirst) landed++;
        if (fs.existsSync(path.join(ws.root, '.tenure', 'memory.db'))) assert.equal(await integrity(ws.root), 'ok', `kill ${k} at ${at} ms (seed ${SEED})`);
        const resumed = runTenure(['index', '--no-knowledge', ws.root]);
        assert.equal(resumed.code, 0, `resume after kill ${k} at ${at} ms (seed ${SEED}): ${resumed.err}`);
        assert.deepEqual(dumpDiff(await structural(ws.root), reference), [], `kill ${k} at ${at} ms (seed ${SEED})`);
      }
      assert.ok(landed >= Math.ceil(KILLS / 2), `only ${landed} of ${KILLS} kills landed before the run ended`);
    } finally {
      clean.cleanup();
      ws.cleanup();
    }
  });

  it(`tenure knowledge index killed ${KILLS} times: never corrupt, always resumes, the same documents, chunks, entities and relationships as a clean run`, async () => {
    const clean = copyExample();
    const ex = copyExample();
    try {
      const first = runTenure(['knowledge', 'index', clean.root]);
      assert.equal(first.code, 0, first.err);
      const reference = await knowledge(clean.root);
      assert.ok(reference.entities.length > 20 && reference.relationships > 20, JSON.stringify({ entities: reference.entities.length, relationships: reference.relationships }));
      const rand = random(SEED + 1);
      for (let k = 0; k < KILLS; k++) {
        fs.rmSync(path.join(ex.root, '.tenure'), { recursive: true, force: true });
        const at = 150 + Math.floor(rand() * first.ms);
        await killAfter(['knowledge', 'index', ex.root], at);
        if (fs.existsSync(path.join(ex.root, '.tenure', 'memory.db'))) assert.equal(await integrity(ex.root), 'ok', `kill ${k} at ${at} ms (seed ${SEED})`);
        const resumed = runTenure(['knowledge', 'index', ex.root]);
        assert.equal(resumed.code, 0, `resume after kill ${k} at ${at} ms: ${resumed.err}`);
        const after = await knowledge(ex.root);
        // Communities come from Leiden over the same graph; a resumed run's may differ in numbering, so only their presence is compared.
        assert.deepEqual({ ...after, communities: after.communities > 0 }, { ...reference, communities: reference.communities > 0 }, `kill ${k} at ${at} ms (seed ${SEED})`);
      }
    } finally {
      clean.cleanup();
      ex.cleanup();
    }
  });
});
