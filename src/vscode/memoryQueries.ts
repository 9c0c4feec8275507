import type { Db } from '../core/store/db.js';
import type { SymbolKind } from '../core/model/structural.js';
import { attemptsTouching, episodeTotals } from '../core/episodic/store.js';
import { ruleCountsByStatus } from '../core/procedural/store.js';
import { knowledgeTotals } from '../core/knowledge/status.js';
import { documentsNaming } from '../core/knowledge/store/links.js';
import type { SymbolRef } from '../core/model/symbolRef.js';

/*
 * The cheap reads behind the editor's CodeLens, hover, "symbol at cursor" and
 * the sidebar: a few aggregate SQL queries each, never a language server,
 * never a model. No `vscode` import, so they are tested in node
 * (test/unit/vscode.memoryQueries.test.ts).
 */

/** Kinds that get a CodeLens and a hover line. */
export const LENS_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'enum', 'function', 'method']);
const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'enum', 'type']);

export interface SymbolMemory {
  readonly id: number;
  readonly sid: string;
  readonly name: string;
  readonly qname: string;
  readonly kind: SymbolKind;
  /** 1-based. */
  readonly line: number;
  readonly endLine: number;
  /** Distinct direct dependents (for a type: of it and its members), dynamic sites excluded: a lower bound. */
  readonly dependents: number;
  /** Of those, the ones only a type checker or a run confirmed. */
  readonly resolved: number;
  /** Call sites computed at run time in files that reach it (counted apart, never as callers). */
  readonly callers: number;
  /** Post-mortems linked (exact or strong) to it or its type. */
  readonly incidents: number;
  /** Decision records linked (exact or strong) to it or its type. */
  readonly decisions: number;
  /** Active episodes that touched it, and those whose outcome was a failure or a rejection. */
  readonly attempts: number;
  readonly failedAttempts: number;
}

const inList = (ids: readonly (number | string)[]): string => JSON.stringify(ids);

async function hasTable(db: Db, name: string): Promise<boolean> {
  return !!(await db.get("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [name]));
}

/**
 * Memory counts for every lens-worthy symbol of one file, in five queries
 * whatever the number of symbols. `relPath` is workspace-relative with `/`.
 */
export async function fileMemory(db: Db, relPath: string): Promise<SymbolMemory[]> {
  const syms = await db.all<{ id: number; sid: string; name: string; qname: string; kind: SymbolKind; line: number; end_line: number; parent_id: number | null; origin: string | null }>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, s.line, s.end_line, s.parent_id, s.origin FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE f.path = ? AND s.kind != 'module' ORDER BY s.line`,
    [relPath],
  );
  if (!syms.length) return [];
  const shown = syms.filter((s) => LENS_KINDS.has(s.kind) && s.origin === null);
  if (!shown.length) return [];
  // A type stands for itself and its members: changing it breaks users of either.
  const members = new Map<number, number[]>();
  for (const s of syms) {
    if (s.parent_id !== null) {
      const list = members.get(s.parent_id) ?? [];
      list.push(s.id);
      members.set(s.parent_id, list);
    }
  }
  const groupOf = (s: { id: number; kind: string }): number[] => (TYPE_KINDS.has(s.kind) ? [s.id, ...(members.get(s.id) ?? [])] : [s.id]);
  const allIds = [...new Set(shown.flatMap(groupOf))];

  const edges = await db.all<{ dst_id: number; src_id: number; tier: string; kind: string }>(
    `SELECT e.dst_id, e.src_id, e.tier, e.kind FROM edges e JOIN symbols s ON s.id = e.src_id
     WHERE e.dst_id IN (SELECT value FROM json_each(?)) AND e.tier != 'dynamic' AND s.kind != 'module'`,
    [inList(allIds)],
  );
  const byDst = new Map<number, { src: number; tier: string; kind: string }[]>();
  for (const e of edges) {
    const list = byDst.get(e.dst_id) ?? [];
    list.push({ src: e.src_id, tier: e.tier, kind: e.kind });
    byDst.set(e.dst_id, list);
  }

  // Knowledge: documents linked to the symbol or its enclosing type, by kind.
  const parentSid = new Map<number, string>();
  for (const s of shown) {
    if (s.parent_id !== null) {
      const p = syms.find((x) => x.id === s.parent_id);
      if (p && TYPE_KINDS.has(p.kind)) parentSid.set(s.id, p.sid);
    }
  }
  const sids = [...new Set([...shown.map((s) => s.sid), ...parentSid.values()])];
  const docsBySid = await documentsNaming(db, sids);

  // Episodes: attempts that touched the symbol (for a type: it or its members).
  const groupSids = new Set<string>();
  for (const s of shown) for (const id of groupOf(s)) {
    const m = syms.find((x) => x.id === id);
    if (m) groupSids.add(m.sid);
  }
  const attemptsBySid = await attemptsTouching(db, [...groupSids]);

  const sidOf = new Map(syms.map((s) => [s.id, s.sid]));
  return shown.map((s) => {
    const group = groupOf(s);
    const own = new Set(group);
    const dependents = new Map<number, string>();
    let callers = 0;
    const callerSet = new Set<number>();
    for (const id of group) {
      for (const e of byDst.get(id) ?? []) {
        if (own.has(e.src)) continue;
        const prev = dependents.get(e.src);
        if (!prev || rank(e.tier) < rank(prev)) dependents.set(e.src, e.tier);
        if (e.kind === 'call' && !callerSet.has(e.src)) {
          callerSet.add(e.src);
          callers++;
        }
      }
    }
    const docs = [docsBySid.get(s.sid), parentSid.has(s.id) ? docsBySid.get(parentSid.get(s.id)!) : undefined];
    const incidents = new Set<number>();
    const decisions = new Set<number>();
    for (const d of docs) {
      for (const x of d?.incidents ?? []) incidents.add(x);
      for (const x of d?.decisions ?? []) decisions.add(x);
    }
    const all = new Set<number>();
    const failed = new Set<number>();
    for (const id of group) {
      const a = attemptsBySid.get(sidOf.get(id)!);
      for (const x of a?.all ?? []) all.add(x);
      for (const x of a?.failed ?? []) failed.add(x);
    }
    return {
      id: s.id,
      sid: s.sid,
      name: s.name,
      qname: s.qname,
      kind: s.kind,
      line: s.line,
      endLine: s.end_line,
      dependents: dependents.size,
      resolved: [...dependents.values()].filter((t) => t === 'resolved' || t === 'observed').length,
      callers,
      incidents: incidents.size,
      decisions: decisions.size,
      attempts: all.size,
      failedAttempts: failed.size,
    };
  });
}

const TIER_RANK: Record<string, number> = { resolved: 0, observed: 1, inferred: 2, ambiguous: 3, dynamic: 4 };
function rank(tier: string): number {
  return TIER_RANK[tier] ?? 5;
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

/**
 * The symbol a person means at a position: the symbol a use site there refers
 * to (the index knows which `retry` a call names), else a symbol declared on
 * that line whose name is the word, else the innermost symbol around it.
 * `line` is 1-based, `col` 0-based, as the index stores them.
 */
export async function symbolAt(db: Db, relPath: string, line: number, col: number, word: string | undefined): Promise<SymbolRef | undefined> {
  const file = await db.get<{ id: number }>('SELECT id FROM files WHERE path = ?', [relPath]);
  if (!file) return undefined;
  const select = 'SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id';
  if (word) {
    const uses = await db.all<SymbolRef & { col: number; tier: string }>(
      `${select} JOIN edges e ON e.dst_id = s.id WHERE e.file_id = ? AND e.line = ? AND s.name = ? AND e.tier != 'ambiguous' ORDER BY abs(e.col - ?) LIMIT 1`,
      [file.id, line, word, col],
    );
    if (uses[0]) return strip(uses[0]);
    const declared = await db.get<SymbolRef>(`${select} WHERE s.file_id = ? AND s.line = ? AND s.name = ? AND s.kind != 'module' LIMIT 1`, [file.id, line, word]);
    if (declared) return declared;
  }
  const around = await db.get<SymbolRef>(
    `${select} WHERE s.file_id = ? AND s.kind != 'module' AND s.line <= ? AND s.end_line >= ? ORDER BY (s.end_line - s.line) ASC LIMIT 1`,
    [file.id, line, line],
  );
  return around;
}

function strip(r: SymbolRef): SymbolRef {
  return { id: r.id, sid: r.sid, name: r.name, qname: r.qname, kind: r.kind, path: r.path, line: r.line };
}

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
  readonly documents: number;
  readonly communities: number;
  readonly episodes: number;
  readonly failedEpisodes: number;
  readonly rules: Readonly<Partial<Record<string, number>>>;
}

/** One row per memory for the status view and the status bar tooltip. */
export async function memoryTotals(db: Db): Promise<MemoryTotals> {
  const n = async (sql: string, table: string): Promise<number> => ((await hasTable(db, table)) ? ((await db.get<{ n: number }>(sql))?.n ?? 0) : 0);
  const tiers = await db.all<{ tier: string; n: number }>('SELECT tier, count(*) AS n FROM edges GROUP BY tier');
  const episodes = await episodeTotals(db);
  const knowledge = await knowledgeTotals(db);
  return {
    files: await n('SELECT count(*) AS n FROM files WHERE skip_reason IS NULL', 'files'),
    symbols: await n("SELECT count(*) AS n FROM symbols WHERE kind != 'module'", 'symbols'),
    edges: tiers.reduce((a, t) => a + t.n, 0),
    edgesByTier: Object.fromEntries(tiers.map((t) => [t.tier, t.n])),
    documents: knowledge.documents,
    communities: knowledge.communities,
    episodes: episodes.episodes,
    failedEpisodes: episodes.failedEpisodes,
    rules: await ruleCountsByStatus(db),
  };
}

/** Share of edges a type checker or a run confirmed, as the status bar states it ("12% resolved"). */
export function resolvedShare(byTier: Readonly<Record<string, number>>): number {
  const total = Object.values(byTier).reduce((a, b) => a + b, 0);
  if (!total) return 0;
  return ((byTier['resolved'] ?? 0) + (byTier['observed'] ?? 0)) / total;
}
