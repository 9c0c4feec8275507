import type { EnrichProgress } from '../core/structural/enrichment/enrich.js';
import type { EdgeTier } from '../core/model/tiers.js';
import type { UnreadLanguage } from '../core/structural/inventory/discover.js';
import { unreadLine } from '../core/structural/lookup.js';
import { formatCount } from './memoryQueries.js';

/*
 * What the status bar says, as plain functions of what the core reports: the
 * share of edges a type checker or a run confirmed, per language, and the
 * background enrichment's progress in files and symbols. No `vscode` import,
 * so they are tested in node (test/unit/vscode.status.test.ts).
 */

/** How the inventory's language ids are shown; tsx is TypeScript to a person. */
const LANGUAGE_NAMES: Readonly<Record<string, { readonly name: string; readonly short: string }>> = {
  typescript: { name: 'TypeScript', short: 'TS' },
  tsx: { name: 'TypeScript', short: 'TS' },
  javascript: { name: 'JavaScript', short: 'JS' },
  python: { name: 'Python', short: 'Py' },
  java: { name: 'Java', short: 'Java' },
  go: { name: 'Go', short: 'Go' },
};

export function languageName(id: string): { name: string; short: string } {
  return LANGUAGE_NAMES[id] ?? { name: id, short: id };
}

/** What the last enrichment said about one resolver (`vscode:typescript`): its state and, when it could not run, why. */
export interface ResolverState {
  readonly state: string;
  readonly languages: readonly string[];
  readonly message?: string;
}

export interface LanguageShare {
  /** "TypeScript" (typescript and tsx together). */
  readonly name: string;
  readonly short: string;
  readonly edges: number;
  /** Resolved or observed. */
  readonly confirmed: number;
  /** 0–100, rounded. */
  readonly percent: number;
  /** The resolver that speaks for it, if any ran, and what it last said. */
  readonly resolver?: { readonly source: string } & ResolverState;
}

/**
 * Per language (by the file each edge's site is in), the share a type
 * checker or a run confirmed, largest first; languages without an edge are
 * left out.
 */
export function languageShares(
  edgesByLanguage: Readonly<Record<string, Readonly<Partial<Record<EdgeTier, number>>>>>,
  resolvers: Readonly<Record<string, ResolverState>> = {},
): LanguageShare[] {
  const byName = new Map<string, { short: string; edges: number; confirmed: number; ids: string[] }>();
  for (const [id, tiers] of Object.entries(edgesByLanguage)) {
    const { name, short } = languageName(id);
    const edges = Object.values(tiers).reduce<number>((a, n) => a + (n ?? 0), 0);
    if (!edges) continue;
    const row = byName.get(name) ?? { short, edges: 0, confirmed: 0, ids: [] };
    row.edges += edges;
    row.confirmed += (tiers.resolved ?? 0) + (tiers.observed ?? 0);
    row.ids.push(id);
    byName.set(name, row);
  }
  return [...byName.entries()]
    .map(([name, r]) => {
      const source = Object.entries(resolvers).find(([, s]) => s.languages.some((l) => r.ids.includes(l)));
      return {
        name,
        short: r.short,
        edges: r.edges,
        confirmed: r.confirmed,
        percent: Math.round((r.confirmed / r.edges) * 100),
        ...(source ? { resolver: { source: source[0], ...source[1] } } : {}),
      };
    })
    .sort((a, b) => b.edges - a.edges || a.name.localeCompare(b.name));
}

/** "TS 82% · Py 0%": the status bar's text, three languages at most (the tooltip has them all). */
export function sharesText(shares: readonly LanguageShare[]): string {
  if (!shares.length) return '';
  const shown = shares.slice(0, 3).map((s) => `${s.short} ${s.percent}%`);
  return `resolved ${shown.join(' · ')}${shares.length > 3 ? ' …' : ''}`;
}

/** One tooltip line per language: its share and what its server said. */
export function sharesTooltip(shares: readonly LanguageShare[]): string[] {
  return shares.map((s) => {
    const base = `${s.name}: ${s.percent}% of ${formatCount(s.edges)} edges confirmed by a type checker or a run`;
    const r = s.resolver;
    if (!r) return `${base} (no language server in this editor speaks for it yet).`;
    if (r.state === 'unavailable') return `${base} — ${r.message ?? 'its language server is unavailable'}`;
    if (r.state === 'complete') return `${base} (${r.source}: up to date).`;
    return `${base} (${r.source}: ${r.state}${r.message ? `, ${r.message}` : ''}).`;
  });
}

/** The enrichment's display name of a resolver: `vscode:typescript` → "TypeScript". */
export function resolverName(source: string): string {
  const id = source.includes(':') ? source.slice(source.indexOf(':') + 1) : source;
  return languageName(id).name;
}

/**
 * "TypeScript: 37/41 files", then "TypeScript: 12/120 symbols" once the files
 * are done (implementation and reference questions about single symbols):
 * units are never counted as files.
 */
export function describeEnrichment(p: EnrichProgress): { text: string; label: string } {
  const name = resolverName(p.source);
  const files = p.files;
  if (files && files.done < files.total) {
    return { text: `${name} ${formatCount(files.done)}/${formatCount(files.total)} files`, label: `${name}: ${files.done} of ${files.total} files` };
  }
  const symbolsTotal = p.total - (files?.total ?? 0);
  const symbolsDone = Math.max(0, Math.min(symbolsTotal, p.done - (files?.done ?? 0)));
  if (symbolsTotal > 0) return { text: `${name} ${formatCount(symbolsDone)}/${formatCount(symbolsTotal)} symbols`, label: `${name}: ${symbolsDone} of ${symbolsTotal} symbols` };
  return { text: name, label: name };
}

/** The tooltip's line for files in languages Tenure does not read; none when there are none. */
export function unreadTooltip(unread: readonly UnreadLanguage[]): string {
  return unread.length ? `\n${unreadLine(unread)}` : '';
}
