import * as vscode from 'vscode';
import type { IndexCounts, SessionState } from '../core/session/session.js';
import type { EnrichProgress } from '../core/structural/enrichment/enrich.js';
import { formatCount, resolvedShare, type MemoryTotals } from './memoryQueries.js';
import { describeEnrichment, languageShares, sharesText, sharesTooltip, unreadTooltip, type ResolverState } from './statusText.js';

/** The session's state, and the one state only the editor has: no folder open. */
export type IndexState = { readonly kind: 'no-folder' } | SessionState;

const fmt = formatCount;

export function describeCounts(c: IndexCounts): string {
  return `${fmt(c.files)} files · ${fmt(c.symbols)} symbols · ${fmt(c.edges)} edges`;
}

/** The command both items run: a quick pick with what can be done now (stop indexing or enrichment, open the sidebar, the log). */
export const STATUS_MENU_COMMAND = 'tenure.statusMenu';

/**
 * The status bar item. Its accessibility label always starts with
 * "Tenure index" and states the same facts as the text in words; the e2e test
 * reads it. Beside it, while background enrichment runs, a second item shows
 * its progress (files, then symbols); both open the same menu, where the work
 * can be stopped — no notification toast for work nobody asked for.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tenure.index', vscode.StatusBarAlignment.Left, 0);
  private readonly enrichment = vscode.window.createStatusBarItem('tenure.enrichment', vscode.StatusBarAlignment.Left, -1);
  private totals: MemoryTotals | undefined;
  private resolvers: Readonly<Record<string, ResolverState>> = {};
  private last: IndexState | undefined;
  private enrichmentTimer: NodeJS.Timeout | undefined;
  private enrichmentRunning = false;

  constructor(private readonly restricted: () => boolean) {
    this.item.name = 'Tenure Index';
    this.item.command = STATUS_MENU_COMMAND;
    this.enrichment.name = 'Tenure Enrichment';
    this.enrichment.command = STATUS_MENU_COMMAND;
  }

  /** What each editor language server last said (`vscode:typescript` → complete, `vscode:python` → unavailable, why). */
  setResolvers(states: Readonly<Record<string, ResolverState>>): void {
    this.resolvers = states;
    if (this.last) this.show(this.last);
  }

  /** A pass started: the progress item appears after `delayMs`, so a one-file pass after a save does not flash. */
  enrichmentStarted(delayMs = 1000): void {
    this.enrichmentRunning = true;
    this.enrichment.text = '$(sync~spin) Tenure: confirming edges';
    this.enrichment.tooltip = 'Tenure is confirming edges with the language servers VS Code runs, in the background (it waits while you type). Click to stop.';
    this.enrichment.accessibilityInformation = { label: 'Tenure enrichment: confirming edges with the language servers', role: 'button' };
    if (this.enrichmentTimer) clearTimeout(this.enrichmentTimer);
    this.enrichmentTimer = setTimeout(() => {
      this.enrichmentTimer = undefined;
      if (this.enrichmentRunning) this.enrichment.show();
    }, delayMs);
  }

  enrichmentProgress(p: EnrichProgress): void {
    const d = describeEnrichment(p);
    this.enrichment.text = `$(sync~spin) Tenure: ${d.text}`;
    this.enrichment.accessibilityInformation = { label: `Tenure enrichment: ${d.label}`, role: 'button' };
    this.enrichment.tooltip = `Tenure is confirming edges with the language servers VS Code runs: ${d.label}${p.current ? ` (now ${p.current})` : ''}. It waits while you type. Click to stop this pass.`;
  }

  enrichmentEnded(): void {
    this.enrichmentRunning = false;
    if (this.enrichmentTimer) clearTimeout(this.enrichmentTimer);
    this.enrichmentTimer = undefined;
    this.enrichment.hide();
  }

  get enriching(): boolean {
    return this.enrichmentRunning;
  }

  /** The four memories' totals, shown in the tooltip and as tier coverage in the text. */
  setTotals(t: MemoryTotals): void {
    this.totals = t;
    if (this.last) this.show(this.last);
  }

  /** The index item's words (its accessibility label), for the menu's placeholder. */
  summary(): string {
    return this.item.accessibilityInformation?.label ?? 'Tenure';
  }

  show(state: IndexState): void {
    this.last = state;
    const mode = this.restricted() ? ' (restricted mode: tree-sitter only)' : '';
    const r = render(state);
    let { text, tooltip } = r;
    let { label } = r;
    if (state.kind === 'ready') {
      const share = Math.round(resolvedShare(state.counts.edgesByTier ?? this.totals?.edgesByTier ?? {}) * 100);
      // Per language once the totals are read: each language's server finishes on its own, and its share moves then.
      const shares = this.totals ? languageShares(this.totals.edgesByLanguage, this.resolvers) : [];
      text = shares.length ? `${text} · ${sharesText(shares)}` : `${text} · ${share}% resolved`;
      if (shares.length) label += `; resolved: ${shares.map((s) => `${s.name} ${s.percent}%`).join(', ')}`;
      const t = this.totals;
      if (t) {
        tooltip +=
          `\nTier coverage: ${share}% of edges confirmed by a type checker or a run; the rest are found by name (verify before acting).` +
          (shares.length ? `\n${sharesTooltip(shares).map((l) => `  ${l}`).join('\n')}` : '') +
          `\nKnowledge: ${t.documents ? `${fmt(t.documents)} documents, ${fmt(t.communities)} communities` : 'empty (Tenure: Index Knowledge)'}.` +
          `\nEpisodes: ${t.episodes ? `${fmt(t.episodes)} attempts, ${fmt(t.failedEpisodes)} failed or rejected` : 'none recorded yet'}.` +
          `\nRules: ${Object.entries(t.rules).map(([k, n]) => `${n} ${k}`).join(', ') || 'none learned yet'}.` +
          unreadTooltip(t.unread);
      }
    }
    if (state.kind === 'no-folder') {
      this.item.hide();
      return;
    }
    this.item.text = text;
    this.item.tooltip = `${tooltip}${mode}\nClick for Tenure's menu (sidebar, stop, log).`;
    this.item.accessibilityInformation = { label: `${label}${mode}`, role: 'button' };
    this.item.backgroundColor = state.kind === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    if (this.enrichmentTimer) clearTimeout(this.enrichmentTimer);
    this.item.dispose();
    this.enrichment.dispose();
  }
}

function render(state: IndexState): { text: string; label: string; tooltip: string } {
  switch (state.kind) {
    case 'no-folder':
      return { text: '', label: 'Tenure index: no folder open', tooltip: '' };
    case 'starting':
      return { text: '$(sync~spin) Tenure', label: 'Tenure index starting', tooltip: 'Tenure is opening its memory database.' };
    case 'indexing': {
      const of = state.total ? `${fmt(state.done)}/${fmt(state.total)}` : '…';
      return {
        text: `$(sync~spin) Tenure ${of}`,
        label: `Tenure indexing: ${state.done} of ${state.total} files`,
        tooltip: `Tenure is indexing: ${state.done} of ${state.total} files parsed.`,
      };
    }
    case 'updating': {
      const c = state.counts ? ` ${describeCounts(state.counts)}` : '';
      return {
        text: `$(sync~spin) Tenure${c}`,
        label: `Tenure index updating ${state.files} files`,
        tooltip: `Tenure is re-indexing ${state.files} changed files.`,
      };
    }
    case 'ready':
      return {
        text: `$(database) Tenure ${describeCounts(state.counts)}`,
        label: `Tenure index ready: ${state.counts.files} files, ${state.counts.symbols} symbols, ${state.counts.edges} edges`,
        tooltip: `Tenure's structural memory: ${describeCounts(state.counts)}.${tierLine(state.counts)}`,
      };
    case 'cancelled':
      return {
        text: '$(circle-slash) Tenure',
        label: 'Tenure index cancelled',
        tooltip: 'Indexing was cancelled; answers cover only what was indexed. Run "Tenure: Re-index Workspace" to finish.',
      };
    case 'failed':
      return {
        text: '$(error) Tenure',
        label: `Tenure index failed: ${state.message}`,
        tooltip: `Indexing failed: ${state.message}`,
      };
  }
}

function tierLine(c: IndexCounts): string {
  const tiers = Object.entries(c.edgesByTier ?? {}).filter(([, n]) => n > 0);
  return tiers.length ? `\nEdges by tier: ${tiers.map(([t, n]) => `${t} ${fmt(n)}`).join(', ')}.` : '';
}
