import { attemptsTouching, episodeTotals } from '../core/episodic/store.js';
import { knowledgeTotals } from '../core/knowledge/status.js';
import { documentsNaming } from '../core/knowledge/store/links.js';
import { ruleCountsByStatus } from '../core/procedural/store.js';
import type { Db } from '../core/store/db.js';
import type { EdgeTier } from '../core/model/tiers.js';
import { LENS_KINDS, lensCounts, structuralTotals, symbolAt, type LensCounts } from '../core/structural/editorReads.js';
import type { UnreadLanguage } from '../core/structural/inventory/discover.js';
import { unreadLanguages } from '../core/structural/store.js';

/*
 * The cheap reads behind the editor's CodeLens, hover, "symbol at cursor" and
 * the sidebar, composed from each memory's own reads: never a language
 * server, never a model. No `vscode` import, so they are tested in node
 * (test/unit/vscode.memory.test.ts).
 */

export { LENS_KINDS };

export interface SymbolMemory extends LensCounts {
  /** Post-mortems linked (exact or strong) to it or its type. */
  readonly incidents: number;
  /** Decision records linked (exact or strong) to it or its type. */
  readonly decisions: number;
  /** Active episodes that touched it, and those whose outcome was a failure or a rejection. */
  readonly attempts: number;
  readonly failedAttempts: number;
}

/**
 * Memory counts for every lens-worthy symbol of one file, from the three
 * memories' own reads: its dependents (structural), the decisions and
 * incidents naming it or its type (knowledge), the attempts that touched it
 * (episodic) — a few queries whatever the number of symbols. `relPath` is
 * workspace-relative with `/`.
 */
export async function fileMemory(db: Db, relPath: string): Promise<SymbolMemory[]> {
  const counts = await lensCounts(db, relPath);
  if (!counts.length) return [];
  const docs = await documentsNaming(db, [...new Set(counts.flatMap((c) => [c.sid, ...(c.typeSid ? [c.typeSid] : [])]))]);
  const attempts = await attemptsTouching(db, [...new Set(counts.flatMap((c) => c.groupSids))]);
  return counts.map((c) => {
    const incidents = new Set<number>();
    const decisions = new Set<number>();
    for (const sid of [c.sid, ...(c.typeSid ? [c.typeSid] : [])]) {
      for (const x of docs.get(sid)?.incidents ?? []) incidents.add(x);
      for (const x of docs.get(sid)?.decisions ?? []) decisions.add(x);
    }
    const all = new Set<number>();
    const failed = new Set<number>();
    for (const sid of c.groupSids) {
      for (const x of attempts.get(sid)?.all ?? []) all.add(x);
      for (const x of attempts.get(sid)?.failed ?? []) failed.add(x);
    }
    return { ...c, incidents: incidents.size, decisions: decisions.size, attempts: all.size, failedAttempts: failed.size };
  });
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The compact line a CodeLens and a hover show: "≥ 12 callers · 1 incident ·
 * 2 failed attempts". Counts from the structural memory are lower bounds, so
 * they carry "≥"; the memories that are empty for this symbol say nothing.
 */
export function memoryLine(m: SymbolMemory): string {
  const parts: string[] = [];
  if (m.callers && m.callers === m.dependents) parts.push(`≥ ${plural(m.callers, 'caller')}`);
  else if (m.dependents) parts.push(`≥ ${plural(m.dependents, 'dependent')}${m.callers ? ` (${m.callers} calling)` : ''}`);
  else parts.push('no dependents found');
  if (m.incidents) parts.push(plural(m.incidents, 'incident'));
  if (m.decisions) parts.push(plural(m.decisions, 'decision'));
  if (m.failedAttempts) parts.push(plural(m.failedAttempts, 'failed attempt'));
  else if (m.attempts) parts.push(plural(m.attempts, 'past attempt'));
  return parts.join(' · ');
}

/** The same facts, spelled out for a screen reader and a tooltip. */
export function memoryTooltip(m: SymbolMemory): string {
  const lines = [
    `${m.qname}: at least ${plural(m.dependents, 'direct dependent')} in the index (${m.resolved} confirmed by a type checker or a run; the rest found by name). Dynamic call sites, DI wiring and callers outside the workspace are not counted.`,
  ];
  lines.push(m.incidents || m.decisions ? `Knowledge: ${plural(m.incidents, 'incident')} and ${plural(m.decisions, 'decision')} name it or its type.` : 'Knowledge: no indexed document names it or its type.');
  lines.push(m.attempts ? `Episodes: ${plural(m.attempts, 'earlier attempt')} touched it, ${m.failedAttempts} failed or were rejected.` : 'Episodes: no recorded attempt touched it.');
  return lines.join('\n');
}

export { symbolAt };

/* ---------------------------------------------------------------- sidebar */

/** "Today", "Yesterday", else the ISO date: the timeline's day groups, in local time. */
export function dayLabel(at: number, now: number): string {
  const day = (t: number) => {
    const d = new Date(t);
    return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  };
  const diff = Math.round((day(now) - day(at)) / 86_400_000);
  if (diff === 0) return 'Today';
  if (diff === 1) return 'Yesterday';
  const d = new Date(at);
  const iso = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return diff > 1 && diff < 7 ? `${WEEKDAYS[d.getDay()]} (${iso})` : iso;
}

// Plain tables, not Intl: the first Intl call in a host costs tens of milliseconds on the event loop.
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** 12345 → "12,345" without Intl. */
export function formatCount(n: number): string {
  const s = String(Math.trunc(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function groupByDay<T extends { startedAt: number }>(items: readonly T[], now: number): { label: string; items: T[] }[] {
  const out: { label: string; items: T[] }[] = [];
  for (const it of items) {
    const label = dayLabel(it.startedAt, now);
    const last = out[out.length - 1];
    if (last && last.label === label) last.items.push(it);
    else out.push({ label, items: [it] });
  }
  return out;
}

export interface MemoryTotals {
  readonly files: number;
  readonly symbols: number;
  readonly edges: number;
  readonly edgesByTier: Record<string, number>;
  /** By the language of each edge's site, then by tier (the status bar's "% resolved" per language). */
  readonly edgesByLanguage: Readonly<Record<string, Readonly<Partial<Record<EdgeTier, number>>>>>;
  readonly documents: number;
  readonly communities: number;
  readonly episodes: number;
  readonly failedEpisodes: number;
  readonly rules: Readonly<Partial<Record<string, number>>>;
  /** Source files in languages the inventory does not read, by language. */
  readonly unread: readonly UnreadLanguage[];
}

/** One row per memory for the status view and the status bar tooltip. */
export async function memoryTotals(db: Db): Promise<MemoryTotals> {
  const structural = await structuralTotals(db);
  const episodes = await episodeTotals(db);
  const knowledge = await knowledgeTotals(db);
  return {
    files: structural.files,
    symbols: structural.symbols,
    edges: structural.edges,
    edgesByTier: structural.edgesByTier,
    edgesByLanguage: structural.edgesByLanguage,
    documents: knowledge.documents,
    communities: knowledge.communities,
    episodes: episodes.episodes,
    failedEpisodes: episodes.failedEpisodes,
    rules: await ruleCountsByStatus(db),
    unread: await unreadLanguages(db),
  };
}

/** Share of edges a type checker or a run confirmed, as the status bar states it ("12% resolved"). */
export function resolvedShare(byTier: Readonly<Record<string, number>>): number {
  const total = Object.values(byTier).reduce((a, b) => a + b, 0);
  if (!total) return 0;
  return ((byTier['resolved'] ?? 0) + (byTier['observed'] ?? 0)) / total;
}
