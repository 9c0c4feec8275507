import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { ManualClock } from '../../src/core/episodic/clock';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options';
import { importEpisodes } from '../../src/core/episodic/seed';
import { allConclusions, allEpisodeIds, insertEpisode, loadEpisodes } from '../../src/core/episodic/store';
import type { NewEpisode } from '../../src/core/episodic/model';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { SqliteCallStore } from '../../src/core/knowledge/store/calls';
import { HashingEmbedder } from '../../src/core/llm/offline';
import { OpenAiChatModel } from '../../src/core/llm/openai';
import { applySectionChange, planSectionChange } from '../../src/core/procedural/promotion';
import { refreshRules } from '../../src/core/procedural/refresh';
import { listRules, ruleByKey } from '../../src/core/procedural/store';
import type { Workspace } from '../../src/core/store/workspace';
import { startTeamSync } from '../../src/core/team/autoSync';
import { PgCallStore, TieredCallStore } from '../../src/core/team/calls';
import { connectWorkspace } from '../../src/core/team/connect';
import { TeamError } from '../../src/core/team/errors';
import { normaliseRemote } from '../../src/core/team/identity';
import { TeamDb } from '../../src/core/team/pg';
import { setupTeamStore } from '../../src/core/team/setup';
import { TeamStore, episodeFromFeed } from '../../src/core/team/store';
import { openTeam, pull, pullChanged, push, sync, type TeamSession } from '../../src/core/team/sync';
import { whatHappenedBeforeTool } from '../../src/core/tools/whatHappenedBefore';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { openWorkspace } from '../../src/core/workspace';
import { indexStructure } from '../helpers/example';
import { CLI, REPO_ROOT, copyExample, tempDir } from '../helpers/fixtures';
import { withPostgres } from '../helpers/postgres';
import { FakeOpenAi } from './knowledgeFakeOpenAi';

/*
 * The team store against a real PostgreSQL started for this suite: two
 * clones and a CI run of one repository share episodes, conclusions, rules
 * and knowledge; a second developer's why_is_this answers from the team's
 * model pass without a model call; a push and a pull killed with SIGKILL
 * lose and double nothing; a read-only role cannot write; a developer
 * cannot forge CI's outcome; an unreachable server leaves local work going
 * and a later sync catches up.
 */

const ROLES = ['alice', 'bob', 'ci_bot', 'reader', 'carol'];

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd, encoding: 'utf8' });
}

/** A clone's workspace: its folder, its memories, its own user configuration (where the connection is kept). */
interface Clone {
  readonly root: string;
  readonly ws: Workspace;
  readonly env: NodeJS.ProcessEnv;
}

describe('team store on PostgreSQL', function () {
  this.timeout(120_000);
  const pg = withPostgres(this);
  const tmp = tempDir('tenure-team-');
  let origin: string;
  let url: (user: string) => string;
  const clones: Clone[] = [];
  const savedEnv = { ...process.env };

  async function makeClone(name: string, user: string): Promise<Clone> {
    const root = path.join(tmp.root, name);
    gitIn(tmp.root, 'clone', '-q', origin, root);
    const env = { ...process.env, TENURE_CONFIG_HOME: path.join(tmp.root, `config-${name}`) };
    const ws = await openWorkspace(root);
    await indexStructure(ws);
    const c = { root, ws, env };
    clones.push(c);
    void user;
    return c;
  }

  /** Opens the team as a clone's user does: its configuration file names the URL. */
  async function team(c: Clone): Promise<TeamSession> {
    process.env['TENURE_CONFIG_HOME'] = c.env['TENURE_CONFIG_HOME'];
    return openTeam(c.ws, { env: c.env });
  }

  async function withTeam<T>(c: Clone, fn: (t: TeamSession) => Promise<T>): Promise<T> {
    const t = await team(c);
    try {
      return await fn(t);
    } finally {
      await t.close();
    }
  }

  before(async function () {
    this.timeout(120_000);
    const server = pg();
    const admin = new Client({ connectionString: server.url() });
    await admin.connect();
    for (const r of ROLES) await admin.query(`CREATE ROLE ${r} LOGIN`);
    await admin.query('CREATE DATABASE team');
    await admin.end();
    url = (user) => server.url(user, 'team');
    const db = TeamDb.open(server.url(server.superuser, 'team'));
    await setupTeamStore(db, { admins: ['alice'] });
    // Setup again: idempotent.
    assert.deepEqual((await setupTeamStore(db)).applied, []);
    await db.close();

    const ex = copyExample();
    origin = path.join(tmp.root, 'origin');
    fs.cpSync(ex.root, origin, { recursive: true });
    ex.cleanup();
    gitIn(origin, 'init', '-q', '-b', 'main');
    gitIn(origin, 'add', '-A');
    gitIn(origin, 'commit', '-qm', 'settlement');
  });

  after(async () => {
    for (const c of clones) await c.ws.close().catch(() => undefined);
    process.env = savedEnv;
    tmp.cleanup();
  });

  it('names a repository by its remote however it is spelled', () => {
    assert.equal(normaliseRemote('git@github.com:Acme/settlement.git'), 'github.com/Acme/settlement');
    assert.equal(normaliseRemote('https://user@GitHub.com/Acme/settlement/'), 'github.com/Acme/settlement');
    assert.equal(normaliseRemote('ssh://git@github.com:22/Acme/settlement.git'), 'github.com/Acme/settlement');
  });

  let a: Clone;
  let b: Clone;

  it('two clones and CI share episodes, conclusions and rules', async () => {
    a = await makeClone('a', 'alice');
    const clock = new ManualClock(Date.now());
    await importEpisodes(a.ws, path.join(a.root, 'tenure-seed', 'episodes.json'), clock, DEFAULT_OPTIONS);
    await refreshRules(a.ws, DEFAULT_OPTIONS, clock);
    process.env['TENURE_CONFIG_HOME'] = a.env['TENURE_CONFIG_HOME'];
    // Nobody may use a repository the store does not know; only tenure_admin may register it.
    await assert.rejects(connectWorkspace(a.ws, url('bob'), { register: true, env: a.env }), (e: unknown) => TeamError.is(e, 'denied'));
    const conn = await connectWorkspace(a.ws, url('alice'), { register: true, env: a.env });
    assert.equal(conn.access, 'admin');
    assert.equal(conn.vectors, 'absent');
    await withTeam(a, async (t) => {
      await t.store.grant(t.repo.id, 'bob', 'write', false);
      await t.store.grant(t.repo.id, 'carol', 'write', false);
      await t.store.grant(t.repo.id, 'reader', 'read', false);
      await t.store.grant(t.repo.id, 'ci_bot', 'write', true);
      const r = await push(t);
      assert.equal(r.episodes, (await allEpisodeIds(a.ws.db, { includeArchived: true })).length);
      assert.ok(r.conclusions > 0 && r.rules > 0);
      // The same push again sends nothing twice.
      const again = await push(t);
      assert.equal(again.episodes, 0);
      assert.equal(again.conclusions, 0);
    });

    b = await makeClone('b', 'bob');
    process.env['TENURE_CONFIG_HOME'] = b.env['TENURE_CONFIG_HOME'];
    await connectWorkspace(b.ws, url('bob'), { env: b.env });
    await withTeam(b, async (t) => {
      const r = await pull(t);
      assert.ok(pullChanged(r).rules);
    });
    await refreshRules(b.ws, DEFAULT_OPTIONS, clock);
    const episodesOf = async (c: Clone) => (await loadEpisodes(c.ws.db, await allEpisodeIds(c.ws.db, { includeArchived: true }))).map((e) => e.uid).sort();
    assert.deepEqual(await episodesOf(b), await episodesOf(a));
    assert.deepEqual((await allConclusions(b.ws.db)).map((c) => c.text).sort(), (await allConclusions(a.ws.db)).map((c) => c.text).sort());
    assert.deepEqual((await listRules(b.ws.db)).map((r) => `${r.key} ${r.successes}/${r.failures}`).sort(), (await listRules(a.ws.db)).map((r) => `${r.key} ${r.successes}/${r.failures}`).sort());
    const pulled = (await loadEpisodes(b.ws.db, await allEpisodeIds(b.ws.db)))[0]!;
    assert.equal(pulled.provenance?.origin, 'team');
    assert.equal(pulled.provenance?.recordedBy, 'alice');

    // A person's promotion in one clone reaches the other as an event, with who approved it.
    const proposed = (await listRules(a.ws.db)).find((r) => r.status === 'proposed');
    assert.ok(proposed, 'the seed proves a rule');
    const plan = await planSectionChange(a.ws, { promote: [proposed.id] });
    await applySectionChange(a.ws, plan, { approver: 'Alice <alice@example.com>', via: 'test' }, clock);
    await withTeam(a, async (t) => assert.equal((await push(t)).decisions, 1));
    await withTeam(b, (t) => pull(t));
    const there = await ruleByKey(b.ws.db, proposed.key);
    assert.equal(there?.status, 'promoted');
    assert.match(there!.reason ?? '', /Alice <alice@example.com> \(team store login alice\)/);

    // CI: `tenure run` in GitHub Actions records CI's outcome with the pipeline and the changed symbols, and pushes it.
    const c = await makeClone('ci', 'ci_bot');
    fs.appendFileSync(path.join(c.root, 'src/settlement/SettlementService.ts'), '\nexport const CI_MARK = 1;\n');
    gitIn(c.root, 'commit', '-qam', 'a change under test');
    await indexStructure(c.ws);
    await c.ws.close();
    const ciEnv = {
      ...process.env,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_REPOSITORY: 'acme/settlement',
      GITHUB_RUN_ID: '4242',
      GITHUB_JOB: 'test',
      GITHUB_REF_NAME: 'main',
      TENURE_TEAM_URL: url('ci_bot'),
      TENURE_CONFIG_HOME: path.join(tmp.root, 'config-ci'),
    };
    const run = spawnSync(process.execPath, [CLI, 'run', '--', 'node', '-e', 'process.exit(1)'], { cwd: c.root, env: ciEnv, encoding: 'utf8' });
    assert.equal(run.status, 1, 'tenure run exits with the command\'s code');
    assert.match(run.stderr, /recorded as GitHub Actions's outcome \(https:\/\/github\.example\/acme\/settlement\/actions\/runs\/4242\)/);
    assert.match(run.stderr, /team store: pushed 1 episodes/);
    await withTeam(b, (t) => pull(t));
    const ciEpisode = (await loadEpisodes(b.ws.db, await allEpisodeIds(b.ws.db))).find((e) => e.provenance?.ci);
    assert.ok(ciEpisode, 'the CI run reached the other clone');
    assert.equal(ciEpisode.provenance?.recordedBy, 'ci_bot');
    assert.equal(ciEpisode.actor, 'ci');
    assert.equal(ciEpisode.branch, 'main');
    assert.ok(ciEpisode.touches.some((x) => x.path === 'src/settlement/SettlementService.ts'), 'the changed symbols come from the commit under test');
    const answer = await whatHappenedBeforeTool.invoke({ workspace: b.ws }, { symbol: 'SettlementService' });
    assert.match(answer.text, /recorded by CI \(GitHub Actions\) on main, https:\/\/github\.example\/acme\/settlement\/actions\/runs\/4242/);
    assert.match(answer.text, /recorded by \S+ on [^ ]+ \(team store\)/, 'a teammate\'s attempts say whose they are');
  });

  it('a read-only role cannot write, and a developer cannot forge a CI outcome', async () => {
    const r = await makeClone('reader', 'reader');
    process.env['TENURE_CONFIG_HOME'] = r.env['TENURE_CONFIG_HOME'];
    await connectWorkspace(r.ws, url('reader'), { env: r.env });
    await withTeam(r, async (t) => {
      assert.equal(t.repo.access, 'read');
      await assert.rejects(push(t), (e: unknown) => TeamError.is(e, 'denied'));
      // Past the client's own check, the server refuses too (row-level security).
      const some = (await loadEpisodes(b.ws.db, await allEpisodeIds(b.ws.db))).slice(0, 1).map((e) => ({ ...e, uid: 'ep-reader-attempt', provenance: { origin: 'local' as const, recordedBy: null, author: null, ci: null } }));
      await assert.rejects(t.store.pushEpisodes(t.repo.id, 'x', some, null), (e: unknown) => TeamError.is(e, 'denied'));
      assert.ok((await pull(t)).rows > 0, 'reading works');
    });
    await withTeam(b, async (t) => {
      const base = (await loadEpisodes(b.ws.db, await allEpisodeIds(b.ws.db)))[0]!;
      const forged = { ...base, uid: 'ep-forged', actor: 'ci' as const, provenance: { origin: 'local' as const, recordedBy: null, author: null, ci: { provider: 'github-actions' as const, pipelineUrl: 'https://github.example/x', job: 'test' } } };
      await assert.rejects(t.store.pushEpisodes(t.repo.id, 'x', [forged], null), (e: unknown) => TeamError.is(e, 'denied'));
      const asCiActor = { ...base, uid: 'ep-forged-2', actor: 'ci' as const, provenance: { origin: 'local' as const, recordedBy: null, author: null, ci: null } };
      await assert.rejects(t.store.pushEpisodes(t.repo.id, 'x', [asCiActor], null), (e: unknown) => TeamError.is(e, 'denied'));
      // Nor can anyone write as someone else: the server stamps the writer.
      const q = t.store.db;
      await assert.rejects(
        q.query("INSERT INTO tenure.conclusions (repo_id, uid, at, author, author_kind, text, confidence, half_life_days, recorded_by) VALUES ($1, 'cn-x', 0, 'x', 'person', 'x', 0.5, 10, 'alice')", [t.repo.id]),
        (e: unknown) => TeamError.is(e, 'denied'),
      );
      // A local episode that claims to be CI's stays local when a developer pushes.
      await b.ws.db.write((d) => insertEpisode(d, { ...plainEpisode(), actor: 'ci' }, null, Date.now()));
      const p = await push(t);
      assert.equal(p.notCi, 1);
      assert.equal(p.episodes, 0);
    });
    // And CI cannot approve a rule: promotion stays a person's act.
    const ciDb = TeamDb.open(url('ci_bot'));
    try {
      const s = new TeamStore(ciDb);
      const repo = (await withTeam(b, async (t) => t.repo.id));
      await assert.rejects(s.pushDecisions(repo, 'x', [{ uid: 'ci-approval', ruleKey: 'k', at: 0, event: 'promoted', actor: 'ci', detail: null, recordedBy: null }]), (e: unknown) => TeamError.is(e, 'denied'));
    } finally {
      await ciDb.close();
    }
  });

  it("a second developer's why_is_this answers from the team's model pass without a model call", async () => {
    const fake = await FakeOpenAi.start();
    try {
      const chat = () => new OpenAiChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: fake.url, timeoutMs: 10_000 });
      await withTeam(a, async (t) => {
        const calls = new TieredCallStore(new SqliteCallStore(a.ws.db), new PgCallStore(t));
        const r = await indexKnowledge(a.ws, { chat: chat(), embedder: new HashingEmbedder(), calls, baseDelayMs: 10 });
        assert.equal(r.status, 'done');
        const p = await push(t);
        assert.ok(p.knowledge.kn_extractions > 0 && p.knowledge.kn_reports > 0 && p.builds === 1, JSON.stringify(p));
        // The model-call cache was written through to the team as the pass ran.
        assert.ok((await t.store.totals(t.repo.id))['llm_cache']! > 0);
      });
      const paid = fake.requests.length;
      assert.ok(paid > 0);

      const d = await makeClone('d', 'carol');
      process.env['TENURE_CONFIG_HOME'] = d.env['TENURE_CONFIG_HOME'];
      await connectWorkspace(d.ws, url('carol'), { env: d.env });
      await withTeam(d, async (t) => {
        const r = await pull(t);
        assert.ok(pullChanged(r).knowledge);
      });
      // The offline pass over the team's answers: the graph as the model described it, no request.
      await indexKnowledge(d.ws);
      assert.equal(fake.requests.length, paid, 'no model call for the second developer');
      const why = await whyIsThisTool.invoke({ workspace: d.ws }, { symbol: 'RetryPolicy.MAX_ATTEMPTS' });
      assert.match(why.text, /gpt-4o-mini/);
      assert.match(why.text, /Source: team knowledge index, built just now with gpt-4o-mini by alice on main/);

      // A model pass of their own with the same model: every answer from the team's cache.
      await withTeam(d, async (t) => {
        const calls = new TieredCallStore(new SqliteCallStore(d.ws.db), new PgCallStore(t));
        const r = await indexKnowledge(d.ws, { chat: chat(), embedder: new HashingEmbedder(), calls, baseDelayMs: 10 });
        assert.equal(r.status, 'done');
      });
      // Every extraction and merged description comes from the team's cache; a community whose content came out
      // different here (the clone's own offline pass ran first) may get a report of its own.
      const again = fake.requests.slice(paid).map((r) => r.task);
      assert.deepEqual(again.filter((t) => t !== 'report'), [], 'the model pass is paid once per team');
      assert.ok(again.length <= 3, `at most a few community reports again, not a pass: ${again.join(', ')}`);
    } finally {
      await fake.close();
    }
  });

  it('kill -9 during push and pull, then sync again: nothing lost, nothing doubled', async () => {
    const e = await makeClone('e', 'carol');
    process.env['TENURE_CONFIG_HOME'] = e.env['TENURE_CONFIG_HOME'];
    await connectWorkspace(e.ws, url('carol'), { env: e.env });
    await withTeam(e, (t) => pull(t));
    await e.ws.db.write(async (d) => {
      for (let i = 0; i < 600; i++) await insertEpisode(d, { ...plainEpisode(), startedAt: Date.now() + i, endedAt: Date.now() + i }, null, Date.now());
    });
    const child = path.join(REPO_ROOT, 'out', 'test', 'integration', 'teamChild.js');
    const killMidway = (root: string, mode: 'push' | 'pull', env: NodeJS.ProcessEnv) =>
      new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, [child, root, mode], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let batches = 0;
        let err = '';
        p.stderr.on('data', (x: Buffer) => (err += x.toString()));
        p.stdout.on('data', (x: Buffer) => {
          batches += x.toString().split('batch').length - 1;
          if (batches >= 3) p.kill('SIGKILL');
        });
        p.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(batches) : reject(new Error(`the ${mode} finished before it was killed (${code}): ${err}`))));
      });
    assert.ok((await killMidway(e.root, 'push', e.env)) >= 3);
    const serverCount = async () => withTeam(e, async (t) => (await t.store.totals(t.repo.id))['episodes']!);
    const partial = await serverCount();
    await withTeam(e, (t) => sync(t));
    const full = await serverCount();
    assert.ok(full > partial, 'the killed push stopped part-way');
    const localHere = (await allEpisodeIds(e.ws.db, { includeArchived: true })).length;
    assert.equal(full, localHere, 'every episode on the server, once');

    const f = await makeClone('f', 'carol');
    process.env['TENURE_CONFIG_HOME'] = f.env['TENURE_CONFIG_HOME'];
    await connectWorkspace(f.ws, url('carol'), { env: f.env });
    await f.ws.close();
    await killMidway(f.root, 'pull', f.env);
    const fws = await openWorkspace(f.root);
    (f as { ws: Workspace }).ws = fws;
    await withTeam(f, (t) => pull(t));
    const uids = (await loadEpisodes(fws.db, await allEpisodeIds(fws.db, { includeArchived: true }))).map((x) => x.uid);
    assert.equal(new Set(uids).size, uids.length, 'no episode twice');
    assert.equal(uids.length, full);
  });

  it('an unreachable server: local work continues and a later sync catches up', async () => {
    const server = pg();
    let status = '';
    server.kill();
    await new Promise((r) => setTimeout(r, 300));
    process.env['TENURE_CONFIG_HOME'] = b.env['TENURE_CONFIG_HOME'];
    await assert.rejects(openTeam(b.ws, { env: b.env, connectTimeoutMs: 1000 }), (e: unknown) => TeamError.is(e, 'unreachable'));
    const handle = startTeamSync(b.ws, { trusted: true, env: b.env, connectTimeoutMs: 1000, onStatus: (s) => (status = s.state.kind) });
    const offline = await handle.syncNow();
    assert.equal(offline, undefined);
    assert.equal(status, 'offline');
    // Local work: an attempt recorded while the server is down.
    await b.ws.db.write((d) => insertEpisode(d, { ...plainEpisode(), uid: 'ep-offline-work' }, null, Date.now()));
    await server.start();
    const report = await handle.syncNow();
    await handle.dispose();
    assert.equal(status, 'idle');
    assert.equal(report?.push?.episodes, 1);
    const restricted = startTeamSync(b.ws, { trusted: false, env: b.env });
    assert.equal(restricted.status.state.kind, 'off');
    assert.equal(await restricted.syncNow(), undefined, 'restricted mode never syncs');
    await withTeam(a, async (t) => {
      await pull(t);
    });
    assert.ok((await loadEpisodes(a.ws.db, await allEpisodeIds(a.ws.db))).some((x) => x.uid === 'ep-offline-work'), 'the other clone catches up');
  });

  it('a pulled row is the row pushed', async () => {
    await withTeam(a, async (t) => {
      const page = await t.store.feed('episodes', t.repo.id, 'nobody', { txid: '0', seq: '0' }, 5);
      const e = episodeFromFeed(page.rows[0]!);
      assert.equal(e.provenance.origin, 'team');
      assert.ok(e.uid && e.outcome.status);
    });
  });
});

function plainEpisode(): NewEpisode {
  const now = Date.now();
  return {
    startedAt: now,
    endedAt: now + 10,
    source: 'run',
    actor: 'person',
    intent: null,
    command: 'npm test',
    commandKind: 'test',
    cwd: '.',
    branch: 'main',
    head: null,
    commitMessage: null,
    diff: { files: 0, added: 0, removed: 0 },
    touchBasis: null,
    touches: [],
    outcome: { kind: 'test', status: 'success', source: 'build-system', confidence: 'high', exitCode: 0, evidence: null },
    tests: null,
  };
}
