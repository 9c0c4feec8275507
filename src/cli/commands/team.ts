import { InvalidArgumentError, type Command } from 'commander';
import { clockFromEnv, describeAge } from '../../core/episodic/clock.js';
import { loadOptions } from '../../core/episodic/options.js';
import { sharedEpisodeCounts } from '../../core/episodic/store.js';
import { indexKnowledge } from '../../core/knowledge/pipeline.js';
import { sharedTotals } from '../../core/knowledge/store/exchange.js';
import type { CallStore } from '../../core/llm/types.js';
import { refreshRules } from '../../core/procedural/refresh.js';
import { openTeamModelCalls } from '../../core/session/teamSync.js';
import { isIndexed } from '../../core/structural/lookup.js';
import type { Workspace } from '../../core/store/workspace.js';
import { detectCi } from '../../core/team/ci.js';
import { connectionFile, readConnection, redact, URL_ENV } from '../../core/team/config.js';
import { connectWorkspace, disconnectWorkspace } from '../../core/team/connect.js';
import { TeamError } from '../../core/team/errors.js';
import { TeamDb } from '../../core/team/pg.js';
import { setupTeamStore } from '../../core/team/setup.js';
import type { Access } from '../../core/team/store.js';
import { configuredUrl, lastSyncTime, openTeam, pendingPush, pull, pullChanged, push, recordSyncTime, sync, type PullReport, type TeamSession } from '../../core/team/sync.js';
import { pushLine } from './teamCi.js';
import { cwdOf, findRoot, withWorkspace, type CommandGroup } from '../context.js';

/*
 * `tenure team …`: the team store for people and CI. `setup` (a database
 * admin, once), `connect <url>` (each clone, once), then `sync` — or nothing,
 * since `tenure watch` and `tenure mcp --watch` sync on their own, and
 * `tenure run` in CI pushes its outcome. `grant` and `revoke` are a
 * repository admin's.
 */

function say(s: string): void {
  process.stdout.write(`${s}\n`);
}

function warn(s: string): void {
  process.stderr.write(`tenure: ${s}\n`);
}

/** What follows a pull that brought something: rules re-mined here, the knowledge graph re-assembled from the team's model answers (offline, no model call). */
export async function afterPull(ws: Workspace, r: PullReport, log: (s: string) => void = warn): Promise<void> {
  const changed = pullChanged(r);
  if (changed.rules) await refreshRules(ws, loadOptions(ws.root), clockFromEnv());
  if (changed.knowledge) {
    if (!(await isIndexed(ws.db))) {
      log('the team\'s knowledge answers are here; run `tenure index` to index the code and assemble the knowledge graph from them');
      return;
    }
    const k = await indexKnowledge(ws);
    log(`knowledge graph assembled from the team's model answers: ${k.entities} entities, ${k.relationships} relationships, ${k.communities.total} communities (${k.status})`);
  }
}

export function pullLine(p: PullReport): string {
  const kn = Object.values(p.knowledge).reduce((a, b) => a + b, 0);
  return `pulled ${p.episodes} episodes, ${p.conclusions} conclusions, ${p.rules} rules, ${p.decisions} decisions, ${kn} model answers, ${p.builds} model passes, ${p.sources} export files (${p.rows} rows) in ${Math.round(p.ms)} ms`;
}

async function withTeam<T>(program: Command, fn: (t: TeamSession) => Promise<T>): Promise<T> {
  return withWorkspace(findRoot(cwdOf(program)), async (ws) => {
    const t = await openTeam(ws, { ci: detectCi() });
    try {
      return await fn(t);
    } finally {
      await t.close();
    }
  });
}

function access(value: string): Access {
  if (value !== 'read' && value !== 'write' && value !== 'admin') throw new InvalidArgumentError('read, write or admin');
  return value;
}

export const teamCommands: CommandGroup = (program) => {
  const team = program.command('team').description('Share episodes, conclusions, rules and knowledge (with its model-call cache) through a PostgreSQL team store.');

  team
    .command('setup')
    .description('Create or update the team store in a PostgreSQL database (run once, as a role that may create roles and schemas).')
    .argument('<postgresql-url>', 'postgresql://admin@host:5432/db?sslmode=verify-full (password from PGPASSWORD, TENURE_TEAM_PASSWORD or a pgpass file)')
    .option('--admin <role...>', 'logins that may register repositories (members of tenure_admin)')
    .action(async (url: string, opts: { admin?: string[] }) => {
      const db = TeamDb.open(url);
      try {
        const r = await setupTeamStore(db, { admins: opts.admin ?? [] });
        say(r.applied.length ? `Team store ready: applied ${r.applied.join(', ')}.` : 'Team store already up to date.');
        if (r.admins.length) say(`${r.admins.join(', ')} may register repositories (tenure_admin).`);
        say('Next, in a clone: `tenure team connect <url> --register` (an admin, once per repository), then `tenure team grant <role> read|write|admin` for the others.');
      } finally {
        await db.close();
      }
    });

  team
    .command('connect')
    .description('Connect this workspace to a team store and pull what the team has (the URL is kept in your configuration, never its password).')
    .argument('<postgresql-url>', 'postgresql://you@host:5432/db?sslmode=verify-full&sslrootcert=ca.pem')
    .option('--register', 'register this repository if the team store does not know it yet (members of tenure_admin)')
    .option('--no-pull', 'connect without pulling now')
    .action(async (url: string, opts: { register?: boolean; pull: boolean }) => {
      await withWorkspace(findRoot(cwdOf(program)), async (ws) => {
        const r = await connectWorkspace(ws, url, { ...(opts.register ? { register: true } : {}) });
        say(`Connected ${ws.root} to ${r.repository.name} in ${redact(r.url)} as ${r.user} (${r.access}${r.ci ? ', writes as CI' : ''})${r.repository.registered ? '; registered the repository' : ''}.`);
        say(`Connection kept in ${r.file}.`);
        if (r.passwordDropped) warn('the URL carried a password: it was used once and not stored. Give it with TENURE_TEAM_PASSWORD or PGPASSWORD, or a pgpass file, for later syncs.');
        if (r.vectors !== 'installed') say(`Vectors: kept in a plain table (pgvector is ${r.vectors === 'available' ? 'available but not installed' : 'not installed'} on the server); similarity search runs in each clone.`);
        if (!opts.pull) return;
        const t = await openTeam(ws, { url, ci: detectCi() });
        try {
          const s = await sync(t);
          if (s.push) say(pushLine(s.push));
          say(pullLine(s.pull));
          await afterPull(ws, s.pull);
          await recordSyncTime(t, Date.now());
        } finally {
          await t.close();
        }
      });
    });

  team
    .command('disconnect')
    .description('Stop syncing this workspace (its memories stay as they are).')
    .action(async () => {
      await withWorkspace(findRoot(cwdOf(program)), async (ws) => {
        say(disconnectWorkspace(ws) ? 'Disconnected: this workspace no longer syncs.' : 'This workspace was not connected.');
      });
    });

  team
    .command('status')
    .description('The team connection: repository, access, what is waiting to be pushed, when it last synced, what the team store holds.')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      const root = findRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const saved = readConnection(root);
        const url = configuredUrl(root);
        const local = await sharedEpisodeCounts(ws.db);
        const knowledge = await sharedTotals(ws.db);
        if (!url) {
          if (opts.json) return say(JSON.stringify({ connected: false, local, knowledge }, null, 2));
          return say('Not connected to a team store. `tenure team connect postgresql://you@host/db` shares this clone\'s episodes, rules and knowledge with the team.');
        }
        let t: TeamSession;
        try {
          t = await openTeam(ws, { ci: detectCi() });
        } catch (e) {
          if (!TeamError.is(e, 'unreachable')) throw e;
          if (opts.json) return say(JSON.stringify({ connected: true, reachable: false, url: redact(url), message: e.message, local, knowledge }, null, 2));
          say(`Team store ${redact(url)}: unreachable (${e.message})`);
          say(`Local work continues: ${local.local} episodes recorded here; they are pushed at the next sync.`);
          return;
        }
        try {
          const [pending, totals, last, vectors, build] = await Promise.all([pendingPush(t), t.store.totals(t.repo.id), lastSyncTime(t), t.store.vectorSupport(), t.store.latestBuild(t.repo.id)]);
          const status = { connected: true, reachable: true, url: redact(t.connection.url), file: saved ? connectionFile(root) : `${URL_ENV} (environment)`, repository: t.repo, user: t.user, ci: t.ci, pending, lastSync: last ?? null, local, knowledge, team: totals, vectors, latestModelPass: build ?? null };
          if (opts.json) return say(JSON.stringify(status, null, 2));
          say(`Team store ${status.url}: ${t.repo.name} (repository ${t.repo.id}) as ${t.user} — ${t.repo.access}${t.repo.ci ? ', writes as CI' : ''}.`);
          say(`Last sync: ${last ? `${describeAge(Date.now() - last)} (${new Date(last).toISOString()})` : 'never'}; waiting to be pushed: ${pending.episodes} episodes, ${pending.conclusions} conclusions.`);
          say(`Here: ${local.local} episodes recorded in this clone, ${local.team} from the team (${local.ci} by CI).`);
          say(`Team store: ${totals['episodes']} episodes, ${totals['conclusions']} conclusions, ${totals['rules']} rules, ${totals['rule_events']} decisions; knowledge: ${totals['kn_extractions']} extractions, ${totals['kn_summaries']} descriptions, ${totals['kn_reports']} reports, ${totals['kn_embeddings']} vectors, ${totals['llm_cache']} cached model answers, ${totals['llm_calls']} model calls logged.`);
          if (build) say(`Latest model pass: ${String(build['model'])} by ${String(build['recorded_by'])}${build['branch'] ? ` on ${String(build['branch'])}` : ''}, ${describeAge(Date.now() - Number(build['finished_at']))}.`);
          say(`Vectors: ${vectors === 'installed' ? 'pgvector installed' : 'plain table (pgvector not installed on the server); similarity search runs in each clone'}.`);
        } finally {
          await t.close();
        }
      });
    });

  for (const verb of ['push', 'pull', 'sync'] as const) {
    team
      .command(verb)
      .description(
        verb === 'push'
          ? 'Send what this clone recorded and the model answers it paid for (idempotent: a second push sends nothing twice).'
          : verb === 'pull'
            ? 'Bring in what the team recorded; re-mine rules and re-assemble the knowledge graph from the team\'s model answers.'
            : 'Push, then pull.',
      )
      .option('--json', 'print the report as JSON')
      .action(async (opts: { json?: boolean }) => {
        await withTeam(program, async (t) => {
          const pushed = verb === 'pull' ? null : await push(t);
          const pulled = verb === 'push' ? null : await pull(t);
          if (pulled) await afterPull(t.ws, pulled, opts.json ? () => undefined : warn);
          await recordSyncTime(t, Date.now());
          if (opts.json) return say(JSON.stringify({ push: pushed, pull: pulled }, null, 2));
          if (pushed) say(pushLine(pushed));
          if (pulled) say(pullLine(pulled));
        });
      });
  }

  team
    .command('grant')
    .description('Give a PostgreSQL role read, write or admin access to this repository (admins of the repository).')
    .argument('<role>', 'a PostgreSQL role (a login, or a group role whose members get the access)')
    .argument('<access>', 'read | write | admin', access)
    .option('--ci', 'the role writes as CI: its episodes are CI outcomes (it cannot approve rules)')
    .action(async (role: string, level: Access, opts: { ci?: boolean }) => {
      await withTeam(program, async (t) => {
        await t.store.grant(t.repo.id, role, level, !!opts.ci);
        say(`${role} now has ${level} access to ${t.repo.name}${opts.ci ? ' and writes as CI' : ''}.`);
      });
    });

  team
    .command('revoke')
    .description('Take a role\'s access to this repository away (admins of the repository).')
    .argument('<role>')
    .action(async (role: string) => {
      await withTeam(program, async (t) => {
        await t.store.revoke(t.repo.id, role);
        say(`${role} has no access to ${t.repo.name} any more.`);
      });
    });

  team
    .command('access')
    .description('Who has access to this repository (admins of the repository).')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withTeam(program, async (t) => {
        const list = await t.store.accessOf(t.repo.id);
        if (opts.json) return say(JSON.stringify(list, null, 2));
        for (const a of list) say(`${a.role.padEnd(24)} ${a.access.padEnd(6)}${a.ci ? ' ci' : '   '}  granted by ${a.grantedBy} ${a.grantedAt.slice(0, 10)}`);
      });
    });
};

/** For a model pass (`tenure knowledge index --model …`) in a connected workspace: the team's model-call cache first, its answers shared after. */
export async function teamModelCalls(ws: Workspace): Promise<{ calls: CallStore; finish(): Promise<void> } | undefined> {
  const team = await openTeamModelCalls(ws, { trusted: true, log: warn });
  if (!team) return undefined;
  return {
    calls: team.calls,
    async finish() {
      const hits = team.teamHits();
      if (hits) warn(`${hits} model answers came from the team's cache (not paid again)`);
      const r = await team.finish();
      if (r) warn(`team store: ${pushLine(r)}`);
    },
  };
}
