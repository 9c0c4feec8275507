import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../store/workspace.js';
import type { Clock } from './clock.js';
import { fingerprints, similarity, symbolsBySid } from './fingerprint.js';
import type { MemoryOptions } from './options.js';
import { activeEpisodes, activeTouches, archiveConclusionsOf, archiveEpisodes } from './store.js';
import { OUTCOME_WEIGHT, recencyFactor } from './weighting.js';

/*
 * Eviction archives, it never deletes: an episode whose symbols are gone,
 * or whose code has changed beyond the similarity threshold since (a lesson
 * from two architectures ago points the agent the wrong way), and the
 * lowest-weight episodes beyond the size cap. Archived episodes stay
 * queryable and are shown apart, labelled as archived.
 */

export interface EvictionReport {
  readonly checked: number;
  readonly archived: readonly { readonly id: number; readonly reason: string }[];
  readonly byReason: { readonly symbolsGone: number; readonly codeChanged: number; readonly filesGone: number; readonly sizeCap: number };
  readonly skipped: string | null;
  readonly dryRun: boolean;
  readonly ms: number;
}

export async function evictEpisodes(ws: Workspace, options: MemoryOptions, clock: Clock, opts: { dryRun?: boolean } = {}): Promise<EvictionReport> {
  const t0 = performance.now();
  const db = ws.db;
  const now = clock.now();
  const indexed = ((await db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? 0) > 0;
  const touches = await activeTouches(db);
  const byEpisode = new Map<number, typeof touches>();
  for (const t of touches) {
    let list = byEpisode.get(t.episode_id);
    if (!list) byEpisode.set(t.episode_id, (list = []));
    list.push(t);
  }
  const archived: { id: number; reason: string }[] = [];
  const byReason = { symbolsGone: 0, codeChanged: 0, filesGone: 0, sizeCap: 0 };
  let skipped: string | null = null;
  if (!indexed) {
    // Without an index every symbol would look gone: never archive on that evidence.
    skipped = 'the workspace is not indexed: drift cannot be measured, only the size cap applies (run `tenure index`)';
  } else {
    const sids = [...new Set(touches.filter((t) => t.sid).map((t) => t.sid!))];
    const current = await symbolsBySid(db, sids);
    const prints = await fingerprints(db, ws.root, [...current.values()].filter((s) => touches.some((t) => t.sid === s.sid && t.fingerprint)));
    const fileExists = new Map<string, boolean>();
    const exists = (rel: string) => {
      if (!fileExists.has(rel)) fileExists.set(rel, fs.existsSync(path.join(ws.root, rel)));
      return fileExists.get(rel)!;
    };
    for (const [id, list] of byEpisode) {
      const symbolTouches = list.filter((t) => t.sid);
      if (!symbolTouches.length) {
        if (list.every((t) => !exists(t.path))) {
          archived.push({ id, reason: `files gone: ${[...new Set(list.map((t) => t.path))].slice(0, 3).join(', ')}` });
          byReason.filesGone++;
        }
        continue;
      }
      const gone = symbolTouches.filter((t) => !current.has(t.sid!));
      if (gone.length === symbolTouches.length) {
        archived.push({ id, reason: `symbols gone: ${gone.slice(0, 3).map((t) => t.qname ?? t.sid).join(', ')}${gone.length > 3 ? ', …' : ''}` });
        byReason.symbolsGone++;
        continue;
      }
      const sims: number[] = [];
      for (const t of symbolTouches) {
        if (!current.has(t.sid!)) sims.push(0);
        else if (t.fingerprint && prints.has(t.sid!)) sims.push(similarity(t.fingerprint, prints.get(t.sid!)!));
      }
      if (!sims.length) continue;
      const sim = sims.reduce((a, b) => a + b, 0) / sims.length;
      if (sim < options.archiveSimilarity) {
        archived.push({ id, reason: `code changed since: structural similarity ${sim.toFixed(2)} (threshold ${options.archiveSimilarity})${gone.length ? `; gone: ${gone.map((t) => t.qname).join(', ')}` : ''}` });
        byReason.codeChanged++;
      }
    }
  }
  // Size cap: the lowest-weight active episodes beyond it, oldest successes first.
  const active = await activeEpisodes(db);
  const already = new Set(archived.map((a) => a.id));
  const remaining = active.filter((e) => !already.has(e.id));
  const over = remaining.length - options.maxActiveEpisodes;
  if (over > 0) {
    const weight = (e: (typeof active)[number]) => OUTCOME_WEIGHT[e.status] * recencyFactor(now - e.startedAt, options);
    const lowest = [...remaining].sort((a, b) => weight(a) - weight(b) || a.startedAt - b.startedAt).slice(0, over);
    for (const e of lowest) archived.push({ id: e.id, reason: `size cap: more than ${options.maxActiveEpisodes} active episodes; lowest weight archived` });
    byReason.sizeCap = lowest.length;
  }
  if (!opts.dryRun) {
    await db.write(async (d) => {
      await archiveEpisodes(d, archived, now);
      await archiveConclusionsOf(d, archived.map((a) => a.id), now);
      await d.run("INSERT INTO meta (key, value) VALUES ('episodic.lastEvictionAt', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [String(now)]);
    });
  }
  return { checked: byEpisode.size, archived, byReason, skipped, dryRun: !!opts.dryRun, ms: performance.now() - t0 };
}

/** Eviction at most once per interval: recording calls this after each outcome. */
export async function maybeEvict(ws: Workspace, options: MemoryOptions, clock: Clock): Promise<EvictionReport | null> {
  const last = await ws.db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'episodic.lastEvictionAt'");
  if (last && clock.now() - Number(last.value) < options.evictionIntervalHours * 3_600_000) return null;
  return evictEpisodes(ws, options, clock);
}

