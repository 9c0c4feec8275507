import * as fs from 'node:fs';
import * as z from 'zod';
import { TenureError } from '../../shared/errors.js';
import { resolveSymbols } from '../structural/lookup.js';
import type { Workspace } from '../store/workspace.js';
import { classifyCommand } from './classify.js';
import { parseInstant, type Clock } from './clock.js';
import { evidenceFrom } from './recorder.js';
import { fingerprints, symbolsBySid } from './fingerprint.js';
import { COMMAND_KINDS, OUTCOME_STATUSES, type NewEpisode, type Touch } from './model.js';
import type { MemoryOptions } from './options.js';
import { allConclusions, allEpisodeIds, archiveEpisodes, hasConclusion, hasEpisode, insertConclusion, insertEpisode, loadEpisodes, type NewConclusion } from './store.js';

/*
 * Episode files: a readable, reproducible JSON form of episodes and
 * conclusions, for seeding an example (examples/settlement/tenure-seed),
 * moving history between clones, and backups people can read. Symbols are
 * named as people name them (`SettlementService.retry`) or by id, and are
 * resolved against the index at import; times are ISO dates or ages
 * ("-95d") relative to the import, so a seeded history always reads as
 * recent as it was written. Import is idempotent: an episode's id is kept.
 */

const Instant = z.union([z.string(), z.number()]);

const TouchSpec = z.object({
  symbol: z.string().optional(),
  path: z.string().optional(),
  lines: z.number().int().min(0).optional(),
  change: z.enum(['modified', 'added', 'deleted']).optional(),
  /** false: changed before an earlier episode of another kind in the same attempt (e.g. before the generator ran). */
  fresh: z.boolean().default(true),
});

const ConclusionSpec = z.object({
  id: z.string().optional(),
  at: Instant.optional(),
  author: z.string().default('agent'),
  authorKind: z.enum(['agent', 'person']).default('agent'),
  text: z.string().min(1),
  confidence: z.number().min(0).max(1).optional(),
  halfLifeDays: z.number().positive().optional(),
  symbols: z.array(z.string()).optional(),
});

const EpisodeSpec = z.object({
  id: z.string().min(1),
  at: Instant,
  durationMs: z.number().int().min(0).default(0),
  source: z.enum(['run', 'terminal', 'task', 'junit', 'import', 'github', 'git']).default('import'),
  actor: z.enum(['agent', 'person', 'ci']).nullable().default(null),
  intent: z.string().nullable().default(null),
  command: z.string().nullable().default(null),
  kind: z.enum(COMMAND_KINDS as unknown as [string, ...string[]]).nullable().optional(),
  exitCode: z.number().int().nullable().default(null),
  branch: z.string().nullable().default(null),
  commit: z.object({ sha: z.string().optional(), message: z.string().optional() }).nullable().default(null),
  touched: z.array(TouchSpec).default([]),
  outcome: z.object({
    kind: z.enum(['build', 'test', 'lint', 'generate', 'other', 'review', 'ci', 'commit']).optional(),
    status: z.enum(OUTCOME_STATUSES as unknown as [string, ...string[]]),
    source: z.enum(['build-system', 'test-report', 'ci', 'review', 'git']).default('build-system'),
    evidence: z.string().nullable().default(null),
  }),
  tests: z
    .object({
      total: z.number().int().min(0),
      skipped: z.number().int().min(0).default(0),
      failing: z.array(z.object({ suite: z.string().nullable().default(null), name: z.string(), status: z.enum(['failed', 'error']).default('failed'), message: z.string().nullable().default(null), file: z.string().nullable().default(null) })).default([]),
    })
    .nullable()
    .default(null),
  conclusions: z.array(ConclusionSpec).default([]),
  archived: z.object({ at: Instant, reason: z.string() }).nullable().optional(),
});

export const EpisodeFile = z.object({
  format: z.literal('tenure-episodes'),
  version: z.literal(1),
  description: z.string().optional(),
  episodes: z.array(EpisodeSpec).default([]),
  conclusions: z.array(ConclusionSpec).default([]),
});
export type EpisodeFile = z.infer<typeof EpisodeFile>;

export interface ImportReport {
  readonly imported: number;
  readonly skipped: number;
  readonly conclusions: number;
  readonly notes: readonly string[];
}

async function resolveTouch(ws: Workspace, t: z.infer<typeof TouchSpec>, where: string): Promise<Omit<Touch, 'fingerprint'>[]> {
  if (t.symbol) {
    let found;
    try {
      found = await resolveSymbols(ws.db, t.symbol, { root: ws.root });
    } catch (e) {
      if (TenureError.is(e, 'symbol-not-found')) throw new TenureError('invalid-input', `${where}: ${(e as Error).message}`, undefined, { cause: e });
      throw e;
    }
    const inPath = t.path ? found.filter((f) => f.path === t.path) : found;
    if (inPath.length !== 1) {
      throw new TenureError('invalid-input', `${where}: "${t.symbol}"${t.path ? ` in ${t.path}` : ''} matches ${inPath.length} symbols (${found.map((f) => `${f.qname} ${f.path}`).join('; ')}); add "path" or use a symbol id.`);
    }
    const s = inPath[0]!;
    return [{ path: s.path, sid: s.sid, qname: s.qname, kind: s.kind, lines: t.lines ?? 1, change: t.change ?? 'modified', fresh: t.fresh }];
  }
  if (t.path) return [{ path: t.path, sid: null, qname: null, kind: null, lines: t.lines ?? 1, change: t.change ?? 'modified', fresh: t.fresh }];
  throw new TenureError('invalid-input', `${where}: a touch needs "symbol" or "path".`);
}

function readEpisodeFile(file: string): EpisodeFile {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new TenureError('invalid-input', `${file} is not a readable JSON file: ${(e as Error).message}`, undefined, { cause: e });
  }
  const parsed = EpisodeFile.safeParse(json);
  if (!parsed.success) throw new TenureError('invalid-input', `${file} is not a Tenure episode file: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

type EpisodeSpec = z.infer<typeof EpisodeSpec>;
type ConclusionSpec = z.infer<typeof ConclusionSpec>;

interface PreparedEpisode {
  readonly ep: NewEpisode;
  readonly key: string | null;
  readonly conclusions: readonly ConclusionSpec[];
  readonly archived: { readonly at: number; readonly reason: string } | null;
}

/** One episode of the file as it will be written, its symbols resolved (fingerprints come later, for all at once). */
async function prepareEpisode(ws: Workspace, e: EpisodeSpec, where: string, now: number): Promise<PreparedEpisode> {
  const uid = `seed:${e.id}`;
  const touches: Omit<Touch, 'fingerprint'>[] = [];
  for (const t of e.touched) touches.push(...(await resolveTouch(ws, t, where)));
  const startedAt = parseInstant(e.at, now);
  const c = e.command ? classifyCommand(e.command) : null;
  const kind = (e.kind ?? c?.kind ?? null) as NewEpisode['commandKind'];
  const status = e.outcome.status as NewEpisode['outcome']['status'];
  const tests: NewEpisode['tests'] = e.tests
    ? {
        total: e.tests.total,
        failed: e.tests.failing.filter((f) => f.status === 'failed').length,
        errors: e.tests.failing.filter((f) => f.status === 'error').length,
        skipped: e.tests.skipped,
        reports: [],
        failing: e.tests.failing,
      }
    : null;
  return {
    key: c?.key ?? null,
    conclusions: e.conclusions,
    archived: e.archived ? { at: parseInstant(e.archived.at, now), reason: e.archived.reason } : null,
    ep: {
      uid,
      startedAt,
      endedAt: startedAt + e.durationMs,
      source: e.source,
      actor: e.actor,
      intent: e.intent,
      command: e.command,
      commandKind: kind,
      cwd: '.',
      branch: e.branch,
      head: e.commit?.sha ?? null,
      commitMessage: e.commit?.message ?? null,
      diff: { files: new Set(touches.map((t) => t.path)).size, added: touches.reduce((n, t) => n + t.lines, 0), removed: 0 },
      touchBasis: 'imported from an episode file',
      touches: touches.map((t) => ({ ...t, fingerprint: null })),
      outcome: {
        kind: (e.outcome.kind ?? kind ?? 'other') as NewEpisode['outcome']['kind'],
        status,
        source: e.outcome.source,
        confidence: 'high',
        exitCode: e.exitCode,
        evidence: e.outcome.evidence ?? (tests ? evidenceFrom(undefined, tests, status) : null),
      },
      tests,
    },
  };
}

/**
 * A conclusion of the file as it will be written: at its own time (an age
 * counts back from `now`) or else `at`, with the configured confidence and
 * half-life for its author unless it names its own.
 */
function newConclusion(c: ConclusionSpec, episodeId: number | null, when: { readonly now: number; readonly at: number }, symbols: NewConclusion['symbols'], options: MemoryOptions): NewConclusion {
  const person = c.authorKind === 'person';
  return {
    ...(c.id ? { uid: `seed:${c.id}` } : {}),
    episodeId,
    at: c.at !== undefined ? parseInstant(c.at, when.now) : when.at,
    author: c.author,
    authorKind: c.authorKind,
    text: c.text,
    confidence: c.confidence ?? (person ? options.personConclusionConfidence : options.agentConclusionConfidence),
    halfLifeDays: c.halfLifeDays ?? (person ? options.personConclusionHalfLifeDays : options.conclusionHalfLifeDays),
    symbols,
  };
}

/** Imports an episode file. Episodes already present (same id) are skipped, so importing twice changes nothing. */
export async function importEpisodes(ws: Workspace, file: string, clock: Clock, options: MemoryOptions): Promise<ImportReport> {
  const data = readEpisodeFile(file);
  const indexed = (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? 0;
  if (!indexed) throw new TenureError('not-indexed', 'Index the workspace first (`tenure index`): episodes name symbols, and symbols are resolved against the index.');
  const now = clock.now();
  const notes: string[] = [];
  let skipped = 0;
  const prepared: PreparedEpisode[] = [];
  for (const [i, e] of data.episodes.entries()) {
    if (await hasEpisode(ws.db, { uid: `seed:${e.id}` })) skipped++;
    else prepared.push(await prepareEpisode(ws, e, `episode "${e.id}" (#${i + 1})`, now));
  }
  // Fingerprints describe the code as it is now: the seed says these attempts were made on it.
  const sids = [...new Set(prepared.flatMap((p) => p.ep.touches.filter((t) => t.sid && t.change !== 'deleted').map((t) => t.sid!)))];
  const prints = await fingerprints(ws.db, ws.root, [...(await symbolsBySid(ws.db, sids)).values()]);
  const conclusionSymbols = async (list: readonly string[] | undefined) => {
    const out: { sid: string | null; qname: string | null; path: string | null }[] = [];
    for (const s of list ?? []) {
      try {
        for (const f of await resolveSymbols(ws.db, s, { root: ws.root })) out.push({ sid: f.sid, qname: f.qname, path: f.path });
      } catch {
        notes.push(`conclusion symbol "${s}" is not in the index: kept as text`);
        out.push({ sid: null, qname: s, path: null });
      }
    }
    return out;
  };
  let conclusions = 0;
  await ws.db.write(async (db) => {
    for (const p of prepared) {
      const ep = { ...p.ep, touches: p.ep.touches.map((t) => ({ ...t, fingerprint: t.sid ? (prints.get(t.sid) ?? null) : null })) };
      const { id } = await insertEpisode(db, ep, p.key, now);
      if (p.archived) await archiveEpisodes(db, [{ id, reason: p.archived.reason }], p.archived.at);
      for (const c of p.conclusions) {
        const symbols = c.symbols ? await conclusionSymbols(c.symbols) : ep.touches.filter((t) => t.sid).map((t) => ({ sid: t.sid, qname: t.qname, path: t.path }));
        await insertConclusion(db, newConclusion(c, id, { now, at: ep.endedAt }, symbols, options));
        conclusions++;
      }
    }
    for (const c of data.conclusions) {
      if (c.id && (await hasConclusion(db, `seed:${c.id}`))) continue;
      await insertConclusion(db, newConclusion(c, null, { now, at: now }, await conclusionSymbols(c.symbols), options));
      conclusions++;
    }
  });
  return { imported: prepared.length, skipped, conclusions, notes };
}

/** Every episode and conclusion, archived ones included, as an episode file (symbols by id, times as ISO dates). */
export async function exportEpisodes(ws: Workspace): Promise<EpisodeFile> {
  const episodes = await loadEpisodes(ws.db, await allEpisodeIds(ws.db, { includeArchived: true }));
  const conclusions = await allConclusions(ws.db);
  const iso = (t: number) => new Date(t).toISOString();
  const conclusionSpec = (c: (typeof conclusions)[number]) => ({
    id: c.uid.replace(/^seed:/, ''),
    at: iso(c.at),
    author: c.author,
    authorKind: c.authorKind,
    text: c.text,
    confidence: c.confidence,
    halfLifeDays: c.halfLifeDays,
    symbols: c.symbols.map((s) => s.sid ?? s.qname ?? '').filter(Boolean),
  });
  return {
    format: 'tenure-episodes',
    version: 1,
    description: `Exported from ${ws.root} on ${iso(Date.now())}`,
    episodes: episodes.map((e) => ({
      id: e.uid.replace(/^seed:/, ''),
      at: iso(e.startedAt),
      durationMs: e.endedAt - e.startedAt,
      source: e.source,
      actor: e.actor,
      intent: e.intent,
      command: e.command,
      kind: e.commandKind,
      exitCode: e.outcome.exitCode,
      branch: e.branch,
      commit: e.head ? { sha: e.head, ...(e.commitMessage ? { message: e.commitMessage } : {}) } : null,
      touched: e.touches.map((t) => ({ ...(t.sid ? { symbol: t.sid } : {}), path: t.path, lines: t.lines, change: t.change, fresh: t.fresh })),
      outcome: { kind: e.outcome.kind, status: e.outcome.status, source: e.outcome.source, evidence: e.outcome.evidence },
      tests: e.tests ? { total: e.tests.total, skipped: e.tests.skipped, failing: e.tests.failing.map((f) => ({ ...f })) } : null,
      conclusions: conclusions.filter((c) => c.episodeId === e.id).map(conclusionSpec),
      archived: e.archivedAt ? { at: iso(e.archivedAt), reason: e.archiveReason ?? 'archived' } : null,
    })),
    conclusions: conclusions.filter((c) => c.episodeId === null).map(conclusionSpec),
  };
}
