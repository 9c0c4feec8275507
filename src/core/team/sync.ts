import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  insertSharedConclusions,
  insertSharedEpisodes,
  localConclusionsAfter,
  localCountsAfter,
  localEpisodesAfter,
  type SharedEpisode,
} from '../episodic/store.js';
import { SHARED_TABLES, adoptRows, markShared, modelRunsAfter, rememberTeamBuilds, unsharedRows, type SharedTable, type TeamBuild } from '../knowledge/store/exchange.js';
import { adoptSharedRule, applySharedDecision, localDecisionsAfter, rulesMinedSince, type SharedDecision } from '../procedural/store.js';
import { git } from '../repo/git.js';
import { readWorkspaceText } from '../repo/read.js';
import type { Db } from '../store/db.js';
import { TENURE_DIR, type Workspace } from '../store/workspace.js';
import type { CiEnvironment } from './ci.js';
import { readConnection, URL_ENV, withoutPassword, type PasswordSources, type TeamConnection } from './config.js';
import { TeamError } from './errors.js';
import { repositoryIdentity } from './identity.js';
import { TeamDb, type TeamDbOptions } from './pg.js';
import type { Feed } from './schema.js';
import { FEED_START, TeamStore, conclusionFromFeed, decisionFromFeed, episodeFromFeed, ruleFromFeed, sharedRowFromFeed, type FeedCursor, type RepositoryAccess } from './store.js';
import { byCodeUnits } from '../../shared/order.js';

/*
 * Push and pull between a workspace's SQLite memories and the team store.
 * Idempotent and resumable by construction: a push sends rows in batches,
 * each its own server transaction that skips what is already there, and
 * moves its local cursor only after the server committed (a killed push
 * sends the last batch again, and the server skips it); a pull writes a
 * page of rows and its cursor in one local transaction (a killed pull
 * leaves neither). Nothing needs merging: episodes, conclusions and
 * decisions append with global ids; rules are re-mined from the episodes;
 * model answers are content-keyed.
 */

/** A workspace joined to its repository in the team store. */
export interface TeamSession {
  readonly ws: Workspace;
  readonly store: TeamStore;
  readonly connection: TeamConnection;
  readonly repo: RepositoryAccess;
  readonly user: string;
  /** Set when this process runs in CI: its episodes are pushed as CI's record. */
  readonly ci: CiEnvironment | null;
  close(): Promise<void>;
}

export interface OpenOptions extends PasswordSources, TeamDbOptions {
  /** Default: the workspace's connection file, else TENURE_TEAM_URL (CI). */
  readonly url?: string;
  readonly ci?: CiEnvironment | null;
}

/** This database's id in every team store: the rows it pushed are not pulled back, decisions get global ids. */
export async function cloneId(db: Db): Promise<string> {
  const row = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'team.clone'");
  if (row) return row.value;
  const id = `cl-${randomUUID()}`;
  await db.write((d) => d.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('team.clone', ?)", [id]));
  return (await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'team.clone'"))!.value;
}

/** The connection a workspace syncs with: its file, else (for CI, where there is no file) TENURE_TEAM_URL. */
export function configuredUrl(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readConnection(root, env)?.url ?? env[URL_ENV];
}

/** Opens the team store for a workspace: the server answers, its schema is this Tenure's, the repository is known and this login may read it. */
export async function openTeam(ws: Workspace, options: OpenOptions = {}): Promise<TeamSession> {
  const env = options.env ?? process.env;
  const saved = readConnection(ws.root, env);
  const url = options.url ?? saved?.url ?? env[URL_ENV];
  if (!url) throw new TeamError('not-connected', 'This workspace is not connected to a team store. Run `tenure team connect postgresql://user@host/db`.');
  const db = TeamDb.open(url, options);
  try {
    const store = new TeamStore(db);
    await store.checkSchema();
    const identity = await repositoryIdentity(ws.root);
    const repo = await store.findRepository(identity.rootCommit);
    if (!repo) throw new TeamError('not-registered', `This repository (first commit ${identity.rootCommit.slice(0, 12)}) is not in the team store yet. A member of tenure_admin registers it with \`tenure team connect <url> --register\`.`);
    if (!repo.access) throw new TeamError('denied', `This login has no access to ${repo.name} in the team store. Ask one of its admins: \`tenure team grant <your role> read|write\`.`);
    const user = await store.whoami();
    const clone = await cloneId(ws.db);
    const connection: TeamConnection = saved && saved.url === withoutPassword(url).url
      ? saved
      : { url: withoutPassword(url).url, repositoryId: repo.id, rootCommit: identity.rootCommit, remote: identity.remote, clone, connectedAt: Date.now() };
    return { ws, store, connection: { ...connection, clone }, repo, user, ci: options.ci ?? null, close: () => db.close() };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

// ---------------------------------------------------------------- local cursors

function scope(t: TeamSession): string {
  return `team.${createHash('sha256').update(`${t.connection.url}\u0000${t.repo.id}`).digest('hex').slice(0, 12)}`;
}

async function getMeta(db: Db, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))?.value;
}

function setMeta(db: Db, key: string, value: string): Promise<unknown> {
  return db.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
}

async function cursorOf(t: TeamSession, feed: Feed): Promise<FeedCursor> {
  const v = await getMeta(t.ws.db, `${scope(t)}.pull.${feed}`);
  return v ? (JSON.parse(v) as FeedCursor) : FEED_START;
}

async function numberOf(t: TeamSession, what: string): Promise<number> {
  return Number((await getMeta(t.ws.db, `${scope(t)}.push.${what}`)) ?? 0);
}

// ---------------------------------------------------------------- push

/** What one direction of a sync moved, per kind of shared memory. */
export interface SyncCounts {
  readonly episodes: number;
  readonly conclusions: number;
  readonly rules: number;
  readonly decisions: number;
  /** Model answers, per table (pushed, or adopted on pull). */
  readonly knowledge: Record<SharedTable, number>;
  readonly builds: number;
  readonly sources: number;
  readonly ms: number;
}

export interface PushReport extends SyncCounts {
  /** Episodes that claim to be CI's and stay local: only a CI login may push them. */
  readonly notCi: number;
}

export interface SyncProgress {
  (what: string, n: number): void;
}

const BATCH = 500;

async function gitEmail(root: string): Promise<string | null> {
  const r = await git(root, ['config', 'user.email']);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

function claimsCi(e: SharedEpisode): boolean {
  return e.actor === 'ci' || e.provenance.ci !== null;
}

export async function push(t: TeamSession, options: { progress?: SyncProgress; batch?: number } = {}): Promise<PushReport> {
  const t0 = performance.now();
  const { ws, store, repo } = t;
  const db = ws.db;
  const clone = t.connection.clone;
  const batch = options.batch ?? BATCH;
  if (repo.access === 'read') throw new TeamError('denied', `This login may only read ${repo.name} in the team store: nothing was pushed. Local work is kept; ask an admin for write access.`);
  const key = scope(t);
  const author = await gitEmail(ws.root);
  let episodes = 0;
  let notCi = 0;
  for (;;) {
    const after = await numberOf(t, 'episodes');
    const page = await localEpisodesAfter(db, after, batch);
    if (page.lastId === after) break;
    const list: SharedEpisode[] = [];
    for (const e of page.episodes) {
      const shared: SharedEpisode = { ...e, provenance: e.provenance ?? { origin: 'local', recordedBy: null, author: null, ci: null } };
      if (claimsCi(shared) && !repo.ci) notCi++;
      else list.push(shared);
    }
    episodes += await store.pushEpisodes(repo.id, clone, list, author);
    await db.write((d) => setMeta(d, `${key}.push.episodes`, String(page.lastId)));
    options.progress?.('episodes', episodes);
  }
  let conclusions = 0;
  for (;;) {
    const after = await numberOf(t, 'conclusions');
    const page = await localConclusionsAfter(db, after, batch);
    if (page.lastId === after) break;
    conclusions += await store.pushConclusions(repo.id, clone, page.conclusions);
    await db.write((d) => setMeta(d, `${key}.push.conclusions`, String(page.lastId)));
  }
  // Rules before the decisions on them, so a clone that pulls a decision knows its rule.
  const since = await numberOf(t, 'rules');
  const rules = await rulesMinedSince(db, since);
  for (let i = 0; i < rules.length; i += batch) await store.pushRules(repo.id, clone, rules.slice(i, i + batch));
  if (rules.length) await db.write((d) => setMeta(d, `${key}.push.rules`, String(Math.max(...rules.map((r) => r.minedAt)))));
  let decisions = 0;
  for (;;) {
    const after = await numberOf(t, 'decisions');
    const page = await localDecisionsAfter(db, after, clone, batch);
    if (page.lastId === after) break;
    if (page.decisions.length && repo.ci) {
      throw new TeamError('denied', 'This login writes as CI, and a rule decision is a person\'s act: push decisions from a person\'s login.');
    }
    decisions += await store.pushDecisions(repo.id, clone, page.decisions);
    await db.write((d) => setMeta(d, `${key}.push.decisions`, String(page.lastId)));
  }
  const knowledge = {} as Record<SharedTable, number>;
  for (const table of Object.keys(SHARED_TABLES) as SharedTable[]) {
    knowledge[table] = 0;
    for (;;) {
      const rows = await unsharedRows(db, table, batch);
      if (!rows.length) break;
      knowledge[table] += await store.pushShared(repo.id, clone, table, rows.map((r) => r.row));
      await db.write((d) => markShared(d, table, rows.map((r) => r.rowid)));
      options.progress?.(table, knowledge[table]);
    }
  }
  const runsAfter = await numberOf(t, 'builds');
  const runs = await modelRunsAfter(db, runsAfter);
  if (runs.length) {
    const head = await git(ws.root, ['rev-parse', '--verify', '-q', 'HEAD']);
    const branch = await git(ws.root, ['symbolic-ref', '--short', '-q', 'HEAD']);
    await store.pushBuilds(
      repo.id,
      clone,
      runs.map((r) => ({
        uid: `${clone}:run:${r.id}`,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        mode: 'model',
        model: r.model,
        embedder: r.embedder,
        spentTokens: r.spentTokens,
        head: head.code === 0 ? head.stdout.trim() : null,
        branch: t.ci?.branch ?? (branch.code === 0 ? branch.stdout.trim() : null),
        ci: repo.ci && t.ci ? { provider: t.ci.provider, pipelineUrl: t.ci.pipelineUrl, job: t.ci.job } : null,
      })),
    );
    await db.write((d) => setMeta(d, `${key}.push.builds`, String(Math.max(...runs.map((r) => r.id)))));
  }
  const sources = await pushSources(t);
  return { episodes, conclusions, rules: rules.length, decisions, knowledge, builds: runs.length, sources, notCi, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------- knowledge sources (export files)

const SOURCE_MAX_BYTES = 5 * 1024 * 1024;

function exportsDir(root: string): string {
  return path.join(root, TENURE_DIR, 'exports');
}

function listExports(root: string): { rel: string; abs: string }[] {
  const base = exportsDir(root);
  const out: { rel: string; abs: string }[] = [];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && e.name.endsWith('.json')) out.push({ abs, rel: path.relative(base, abs).split(path.sep).join('/') });
    }
  };
  walk(base);
  return out;
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

async function sharedSourceHashes(t: TeamSession): Promise<Record<string, string>> {
  return JSON.parse((await getMeta(t.ws.db, `${scope(t)}.sources`)) ?? '{}') as Record<string, string>;
}

/** Export files (fetched pull requests and issues) that changed since this clone last shared them. */
async function pushSources(t: TeamSession): Promise<number> {
  const known = await sharedSourceHashes(t);
  const changed: { path: string; hash: string; content: string }[] = [];
  for (const f of listExports(t.ws.root)) {
    const content = readWorkspaceText(t.ws.root, f.abs, SOURCE_MAX_BYTES);
    if (content === undefined) continue;
    const hash = sha256(content);
    if (known[f.rel] !== hash) changed.push({ path: f.rel, hash, content });
  }
  for (let i = 0; i < changed.length; i += 50) await t.store.pushSources(t.repo.id, t.connection.clone, changed.slice(i, i + 50));
  if (changed.length) {
    for (const c of changed) known[c.path] = c.hash;
    await t.ws.db.write((d) => setMeta(d, `${scope(t)}.sources`, JSON.stringify(known)));
  }
  return changed.length;
}

/** A shared path is a plain relative path under .tenure/exports: nothing from the server writes outside it. */
function safeExportPath(root: string, rel: string): string | null {
  if (!rel || rel.includes('\0') || path.isAbsolute(rel) || rel.split(/[\\/]/).some((s) => s === '..' || s === '')) return null;
  if (!rel.endsWith('.json')) return null;
  return path.join(exportsDir(root), ...rel.split('/'));
}

// ---------------------------------------------------------------- pull

export interface PullReport extends SyncCounts {
  /** Rows read from the server, all feeds. */
  readonly rows: number;
}

const PAGE = 2000;

/** Pulls every feed, page by page; each page and its cursor commit together. */
export async function pull(t: TeamSession, options: { progress?: SyncProgress; page?: number; now?: number } = {}): Promise<PullReport> {
  const t0 = performance.now();
  const { ws, store, repo } = t;
  const db = ws.db;
  const clone = t.connection.clone;
  const key = scope(t);
  const page = options.page ?? PAGE;
  const now = options.now ?? Date.now();
  let rows = 0;
  const counts = { episodes: 0, conclusions: 0, rules: 0, decisions: 0, builds: 0, sources: 0 };
  const knowledge = Object.fromEntries(Object.keys(SHARED_TABLES).map((k) => [k, 0])) as Record<SharedTable, number>;

  const drain = async (feed: Feed, apply: (d: Db, rows: readonly Record<string, unknown>[]) => Promise<void>) => {
    for (;;) {
      const cursor = await cursorOf(t, feed);
      const p = await store.feed(feed, repo.id, clone, cursor, page);
      if (p.cursor.txid === cursor.txid && p.cursor.seq === cursor.seq) return;
      rows += p.rows.length;
      await db.write(async (d) => {
        await apply(d, p.rows);
        await setMeta(d, `${key}.pull.${feed}`, JSON.stringify(p.cursor));
      });
      options.progress?.(feed, rows);
    }
  };

  await drain('episodes', async (d, r) => {
    counts.episodes += await insertSharedEpisodes(d, r.map(episodeFromFeed), now);
  });
  await drain('conclusions', async (d, r) => {
    counts.conclusions += await insertSharedConclusions(d, r.map(conclusionFromFeed));
  });
  await drain('rules', async (d, r) => {
    for (const rule of r.map(ruleFromFeed)) {
      await adoptSharedRule(d, rule, now);
      counts.rules++;
    }
  });
  // A decision whose rule this clone has not seen yet waits in meta and is tried again on the next pull.
  await drain('rule_events', async (d, r) => {
    const pending = JSON.parse((await getMeta(d, `${key}.pendingDecisions`)) ?? '[]') as SharedDecision[];
    const waiting: SharedDecision[] = [];
    for (const dec of [...pending, ...r.map(decisionFromFeed)].sort((a, b) => a.at - b.at || byCodeUnits(a.uid, b.uid))) {
      if (await applySharedDecision(d, dec)) counts.decisions++;
      else if (!(await d.get('SELECT 1 FROM rule_events WHERE uid = ?', [dec.uid]))) waiting.push(dec);
    }
    await setMeta(d, `${key}.pendingDecisions`, JSON.stringify(waiting));
  });
  for (const table of Object.keys(SHARED_TABLES) as SharedTable[]) {
    await drain(table, async (d, r) => {
      await adoptRows(d, table, r.map((x) => sharedRowFromFeed(table, x)));
      knowledge[table] += r.length;
    });
  }
  await drain('kn_builds', async (d, r) => {
    const builds: TeamBuild[] = r.map((b) => ({
      uid: String(b['uid']),
      finishedAt: Number(b['finished_at']),
      model: String(b['model']),
      recordedBy: String(b['recorded_by']),
      branch: (b['branch'] as string | null) ?? null,
      head: (b['head'] as string | null) ?? null,
      ci: (b['ci'] as TeamBuild['ci']) ?? null,
    }));
    await rememberTeamBuilds(d, builds);
    counts.builds += builds.length;
  });
  await drain('kn_sources', async (d, r) => {
    const known = JSON.parse((await getMeta(d, `${key}.sources`)) ?? '{}') as Record<string, string>;
    for (const s of r) {
      const rel = String(s['path']);
      const target = safeExportPath(ws.root, rel);
      // A file this clone has is its own (it may be newer); only missing ones are written.
      if (!target || fs.existsSync(target)) continue;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, String(s['content']));
      known[rel] = String(s['hash']);
      counts.sources++;
    }
    await setMeta(d, `${key}.sources`, JSON.stringify(known));
  });
  return { ...counts, knowledge, rows, ms: performance.now() - t0 };
}

/** Whether a pull brought anything the derived memories must follow: rules to re-mine, a knowledge graph to re-assemble. */
export function pullChanged(r: PullReport): { readonly rules: boolean; readonly knowledge: boolean } {
  const kn = Object.values(r.knowledge).some((n) => n > 0) || r.sources > 0;
  return { rules: r.episodes > 0 || r.rules > 0 || r.decisions > 0, knowledge: kn };
}

export interface SyncReport {
  readonly push: PushReport | null;
  readonly pull: PullReport;
}

/** Push what this clone has, then pull what the others have. A read-only login only pulls. */
export async function sync(t: TeamSession, options: { progress?: SyncProgress } = {}): Promise<SyncReport> {
  const pushed = t.repo.access === 'read' ? null : await push(t, options);
  const pulled = await pull(t, options);
  return { push: pushed, pull: pulled };
}

/** What is waiting to be pushed. */
export async function pendingPush(t: TeamSession): Promise<{ readonly episodes: number; readonly conclusions: number }> {
  return localCountsAfter(t.ws.db, await numberOf(t, 'episodes'), await numberOf(t, 'conclusions'));
}

export async function recordSyncTime(t: TeamSession, at: number): Promise<void> {
  await t.ws.db.write((d) => setMeta(d, `${scope(t)}.lastSync`, String(at)));
}

export async function lastSyncTime(t: TeamSession): Promise<number | undefined> {
  const v = await getMeta(t.ws.db, `${scope(t)}.lastSync`);
  return v ? Number(v) : undefined;
}

/** The last successful sync of a workspace with whatever store it is connected to, without connecting (status lines). */
export async function lastSyncOf(db: Db): Promise<number | undefined> {
  const rows = await db.all<{ value: string }>("SELECT value FROM meta WHERE key LIKE 'team.%.lastSync'");
  const times = rows.map((r) => Number(r.value)).filter(Number.isFinite);
  return times.length ? Math.max(...times) : undefined;
}
