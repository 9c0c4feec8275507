import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import type { NewEpisode } from '../src/core/episodic/model.js';
import { insertEpisode, touchesOn } from '../src/core/episodic/store.js';
import type { Workspace } from '../src/core/store/workspace.js';
import { TeamDb } from '../src/core/team/pg.js';
import { setupTeamStore } from '../src/core/team/setup.js';
import { TeamStore } from '../src/core/team/store.js';
import { cloneId, pull, sync, type TeamSession } from '../src/core/team/sync.js';
import { openWorkspace } from '../src/core/workspace.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { fmtInt, fmtMs, percentile, type Row } from './stats.js';

/*
 * The team store at scale, against a real PostgreSQL started for the run
 * (the test helper's own cluster, stopped after): 100 repositories holding
 * 1 M episodes and 50 k documents' model extractions, generated on the
 * server; then a first pull of the largest repository into a fresh clone
 * (rows per second), the same question asked of the team store and of the
 * clone's SQLite (latency), bytes per episode on the server, and 20 clients
 * syncing at once (each records a few attempts, then syncs; p50/p95).
 * TENURE_BENCH_TEAM_EPISODES scales the episode count down for a quick run.
 */

const REPOS = 100;
const CLIENTS = 20;

function scratch(name: string): string {
  const dir = path.join(os.tmpdir(), 'tenure-bench', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Episodes generated on the server: two touches each, a fifth of them failures with evidence, fingerprints as long as real ones. */
function generateEpisodes(repo: string, from: number, count: number): string {
  return `
  INSERT INTO tenure.episodes (repo_id, clone, uid, started_at, ended_at, source, actor, command, command_key, command_kind, cwd, branch, head,
    diff_files, diff_added, diff_removed, touch_basis, outcome_kind, outcome_status, outcome_source, exit_code, evidence, tests, touches, touched_sids, author)
  SELECT ${repo}, 'cl-bench-writer', 'ep-' || ${repo} || '-' || g, t, t + 30000, 'run', 'agent', 'npm test', 'npm test', 'test', '.', 'main', md5(g::text) || left(md5((g + 1)::text), 8),
    2, 12, 3, 'working-tree diff since the previous test run', 'test',
    CASE WHEN g % 5 = 0 THEN 'failure' ELSE 'success' END, 'build-system', CASE WHEN g % 5 = 0 THEN 1 ELSE 0 END,
    CASE WHEN g % 5 = 0 THEN '1 of 40 tests failed: AllocationService › redrive re-submits a failed leg at most three times — expected 3, got ' || (g % 9) END,
    CASE WHEN g % 5 = 0 THEN jsonb_build_object('total', 40, 'skipped', 0, 'reports', jsonb_build_array('reports/junit.xml'), 'failing', jsonb_build_array(jsonb_build_object('suite', 'AllocationService', 'name', 'redrive', 'status', 'failed', 'message', 'expected 3', 'file', null))) END,
    jsonb_build_array(
      jsonb_build_object('path', 'src/m' || (g % 300) || '.ts', 'sid', 'ts src/m' || (g % 300) || '.ts/C' || (g % 7) || '#run().', 'qname', 'C' || (g % 7) || '.run', 'kind', 'method', 'lines', 4, 'change', 'modified', 'fingerprint', repeat(md5(g::text), 6), 'fresh', true),
      jsonb_build_object('path', 'src/m' || ((g + 1) % 300) || '.ts', 'sid', 'ts src/m' || ((g + 1) % 300) || '.ts/D#apply().', 'qname', 'D.apply', 'kind', 'method', 'lines', 2, 'change', 'modified', 'fingerprint', repeat(md5((g + 7)::text), 6), 'fresh', false)),
    ARRAY['ts src/m' || (g % 300) || '.ts/C' || (g % 7) || '#run().', 'ts src/m' || ((g + 1) % 300) || '.ts/D#apply().'],
    'dev' || (g % 20) || '@example.com'
  FROM generate_series(${from}, ${from + count - 1}) g, LATERAL (SELECT 1700000000000::bigint + g::bigint * 60000 AS t) x`;
}

/** Model extractions for documents (one chunk each), about the size a model's reply for a chunk is. */
function generateExtractions(repo: string, count: number): string {
  return `
  INSERT INTO tenure.kn_extractions (repo_id, clone, chunk_hash, extractor, status, result, created_at)
  SELECT ${repo}, 'cl-bench-writer', md5(${repo} || '-' || g), 'openai:gpt-4o-mini/extract-1', 'ok',
    jsonb_build_object('entities', (SELECT jsonb_agg(jsonb_build_object('name', 'Entity ' || (g * 7 + k) % 5000, 'type', 'concept', 'description', repeat('A description of what the document says about it. ', 3))) FROM generate_series(1, 6) k),
                       'relationships', (SELECT jsonb_agg(jsonb_build_object('source', 'Entity ' || (g * 7 + k) % 5000, 'target', 'Entity ' || (g * 7 + k + 1) % 5000, 'description', 'relates because the text says so', 'strength', 5)) FROM generate_series(1, 4) k))::text,
    1700000000000
  FROM generate_series(1, ${count}) g`;
}

function plain(at: number, sid: string): NewEpisode {
  return {
    startedAt: at,
    endedAt: at + 1000,
    source: 'run',
    actor: 'agent',
    intent: null,
    command: 'npm test',
    commandKind: 'test',
    cwd: '.',
    branch: 'main',
    head: null,
    commitMessage: null,
    diff: { files: 1, added: 3, removed: 1 },
    touchBasis: 'bench',
    touches: [{ path: 'src/m1.ts', sid, qname: 'C1.run', kind: 'method', lines: 3, change: 'modified', fingerprint: 'f'.repeat(192), fresh: true }],
    outcome: { kind: 'test', status: 'success', source: 'build-system', confidence: 'high', exitCode: 0, evidence: null },
    tests: null,
  };
}

/** A clone's session on a repository, without a git checkout: the benchmark names the repository itself. */
async function session(ws: Workspace, url: string, repo: number): Promise<TeamSession> {
  const db = TeamDb.open(url, { maxConnections: 2, statementTimeoutMs: 600_000 });
  const store = new TeamStore(db);
  const clone = await cloneId(ws.db);
  return {
    ws,
    store,
    connection: { url, repositoryId: repo, rootCommit: `root-${repo}`, remote: null, clone, connectedAt: Date.now() },
    repo: { id: repo, name: `bench/${repo}`, access: 'write', ci: false },
    user: 'bench',
    ci: null,
    close: () => db.close(),
  };
}

/** 100 repositories and their episodes and extractions, written on the server by the superuser (no client round trips). */
async function generate(su: Client, n: { big: number; perRepo: number; docsBig: number; docsPer: number }): Promise<{ ids: string[]; size: { ep: string; n: string; kn: string; k: string }; ms: number }> {
  const t0 = performance.now();
  const ids = (await su.query<{ id: string }>(`INSERT INTO tenure.repositories (root_commit, name) SELECT 'root-' || g, 'bench/' || g FROM generate_series(1, ${REPOS}) g RETURNING id`)).rows.map((r) => r.id);
  await su.query(`INSERT INTO tenure.access (repo_id, role_name, level) SELECT id, 'bench', 'write' FROM tenure.repositories`);
  await su.query('GRANT tenure_member TO bench');
  await su.query(generateEpisodes(ids[0]!, 1, n.big));
  await su.query(generateExtractions(ids[0]!, n.docsBig));
  for (const id of ids.slice(1)) {
    await su.query(generateEpisodes(id, 1, n.perRepo));
    await su.query(generateExtractions(id, n.docsPer));
  }
  await su.query('VACUUM ANALYZE');
  const ms = performance.now() - t0;
  const size = (await su.query<{ ep: string; n: string; kn: string; k: string }>(
    `SELECT (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'tenure.episodes'::regclass) AS ep,
            (SELECT count(*) FROM tenure.episodes) AS n,
            pg_total_relation_size('tenure.kn_extractions') AS kn, (SELECT count(*) FROM tenure.kn_extractions) AS k`,
  )).rows[0]!;
  return { ids, size, ms };
}

export async function teamBenchRows(_repoRoot: string, log: (m: string) => void = (m) => process.stderr.write(`[bench] ${m}\n`)): Promise<Row[]> {
  const total = Number(process.env['TENURE_BENCH_TEAM_EPISODES'] ?? 1_000_000);
  const documents = Math.round(total / 20);
  const big = Math.round(total / 10);
  const perRepo = Math.floor((total - big) / (REPOS - 1));
  const docsBig = Math.round(documents / 10);
  const docsPer = Math.floor((documents - docsBig) / (REPOS - 1));
  const label = `team store: ${REPOS} repositories, ${fmtInt(total)} episodes, ${fmtInt(documents)} documents`;
  const server = await startPostgres({ conf: ['shared_buffers = 512MB', 'work_mem = 64MB', 'maintenance_work_mem = 256MB', 'max_wal_size = 4GB', 'checkpoint_timeout = 30min'] });
  const rows: Row[] = [];
  const dirs: string[] = [];
  try {
    const admin = new Client({ connectionString: server.url() });
    await admin.connect();
    await admin.query('CREATE ROLE bench LOGIN');
    await admin.query('CREATE DATABASE team');
    await admin.end();
    const setupDb = TeamDb.open(server.url(server.superuser, 'team'), { statementTimeoutMs: 0 });
    await setupTeamStore(setupDb);
    await setupDb.close();
    const su = new Client({ connectionString: server.url(server.superuser, 'team') });
    // A failed statement is thrown where it was awaited; the server going away at the end is not a crash of the benchmark.
    su.on('error', () => undefined);
    await su.connect();
    let generated: { ids: string[]; size: { ep: string; n: string; kn: string; k: string }; ms: number };
    try {
      generated = await generate(su, { big, perRepo, docsBig, docsPer });
    } finally {
      await su.end().catch(() => undefined);
    }
    const { ids, size, ms: genMs } = generated;
    const episodes = Number(size.n);
    log(`team: generated ${fmtInt(episodes)} episodes and ${fmtInt(Number(size.k))} extractions in ${fmtMs(genMs)}`);
    rows.push([label, 'server: bytes per episode (table, TOAST and indexes, 8 hash partitions)', `**${fmtInt(Number(size.ep) / episodes)} B** (${(Number(size.ep) / 2 ** 30).toFixed(2)} GiB for ${fmtInt(episodes)}); extractions ${fmtInt(Number(size.kn) / Number(size.k))} B each`, '']);

    const url = server.url('bench', 'team');
    // First pull of the largest repository into a fresh clone.
    const dir = scratch('team-first-pull');
    dirs.push(dir);
    const ws = await openWorkspace(dir);
    const t = await session(ws, url, Number(ids[0]));
    const p = await pull(t);
    const secs = p.ms / 1000;
    rows.push([label, `first pull of the largest repository (${fmtInt(big)} episodes, ${fmtInt(docsBig)} documents) into a new clone`, `**${fmtInt(p.rows / secs)} rows/s** (${fmtInt(p.rows)} rows in ${fmtMs(p.ms)}; ${fmtInt(p.episodes)} episodes, ${fmtInt(p.knowledge.kn_extractions)} extractions)`, '']);

    // The same question of the team store and of the clone's SQLite.
    const remote: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < 200; i++) {
      const sid = `ts src/m${i % 300}.ts/C${i % 7}#run().`;
      let s = performance.now();
      await t.store.episodesTouching(Number(ids[0]), [sid], 50);
      remote.push(performance.now() - s);
      s = performance.now();
      await touchesOn(ws.db, [sid], `src/m${i % 300}.ts`);
      local.push(performance.now() - s);
    }
    rows.push([label, 'episodes touching a symbol (200 symbols): team store vs the clone\'s SQLite after the pull', `team store p50 ${fmtMs(percentile(remote, 50))} / p95 ${fmtMs(percentile(remote, 95))} · local p50 ${fmtMs(percentile(local, 50))} / p95 ${fmtMs(percentile(local, 95))}`, 'answers read local']);
    await t.close();
    await ws.close();

    // 20 clients on 20 repositories: a first pull each, all at once; then rounds of record-and-sync, all at once.
    const clients = await Promise.all(
      ids.slice(1, 1 + CLIENTS).map(async (id, i) => {
        const d = scratch(`team-client-${i}`);
        dirs.push(d);
        const w = await openWorkspace(d);
        return { ws: w, team: await session(w, url, Number(id)) };
      }),
    );
    const firstPulls = await Promise.all(clients.map((c) => pull(c.team)));
    const firstRows = firstPulls.reduce((n, r) => n + r.rows, 0);
    const firstMs = Math.max(...firstPulls.map((r) => r.ms));
    rows.push([label, `${CLIENTS} first pulls at once (${fmtInt(perRepo)} episodes each)`, `${fmtInt(firstRows / (firstMs / 1000))} rows/s in all; slowest client ${fmtMs(firstMs)}`, '']);
    const latencies: number[] = [];
    const ROUNDS = 5;
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        clients.map(async (c, i) => {
          await c.ws.db.write(async (d) => {
            for (let k = 0; k < 5; k++) await insertEpisode(d, plain(Date.now() + k, `ts src/m${i}.ts/C1#run().`), 'npm test', Date.now());
          });
          const s = performance.now();
          await sync(c.team);
          latencies.push(performance.now() - s);
        }),
      );
    }
    rows.push([label, `${CLIENTS} clients syncing at once (${ROUNDS} rounds; each pushes 5 new episodes and pulls)`, `**p50 ${fmtMs(percentile(latencies, 50))} / p95 ${fmtMs(percentile(latencies, 95))}** per sync`, '']);
    for (const c of clients) {
      await c.team.close();
      await c.ws.close();
    }
  } catch (e) {
    const logFile = path.join(path.dirname(server.dataDir), 'server.log');
    const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => /ERROR|FATAL|PANIC/.test(l)).slice(-5).join('\n') : '';
    throw new Error(`${e instanceof Error ? e.message : String(e)}${tail ? `\nserver log:\n${tail}` : ''}`, { cause: e });
  } finally {
    await server.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  void teamBenchRows('').then((rows) => {
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
  });
}
