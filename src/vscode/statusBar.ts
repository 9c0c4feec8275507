import * as vscode from 'vscode';
import type { IndexCounts, SessionState } from '../core/session/session.js';
import { formatCount, resolvedShare, type MemoryTotals } from './memoryQueries.js';

/** The session's state, and the one state only the editor has: no folder open. */
export type IndexState = { readonly kind: 'no-folder' } | SessionState;

const fmt = formatCount;

export function describeCounts(c: IndexCounts): string {
  return `${fmt(c.files)} files · ${fmt(c.symbols)} symbols · ${fmt(c.edges)} edges`;
}

/**
 * The status bar item. Its accessibility label always starts with
 * "Tenure index" and states the same facts as the text in words; the e2e test
 * reads it.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tenure.index', vscode.StatusBarAlignment.Left, 0);
  private totals: MemoryTotals | undefined;
  private last: IndexState | undefined;

  constructor(private readonly restricted: () => boolean) {
    this.item.name = 'Tenure Index';
    this.item.command = 'workbench.view.extension.tenure';
  }

  /** The four memories' totals, shown in the tooltip and as tier coverage in the text. */
  setTotals(t: MemoryTotals): void {
    this.totals = t;
    if (this.last) this.show(this.last);
  }

  show(state: IndexState): void {
    this.last = state;
    const mode = this.restricted() ? ' (restricted mode: tree-sitter only)' : '';
    const r = render(state);
    let { text, tooltip } = r;
    const { label } = r;
    if (state.kind === 'ready') {
      const share = Math.round(resolvedShare(state.counts.edgesByTier ?? this.totals?.edgesByTier ?? {}) * 100);
      text = `${text} · ${share}% resolved`;
      const t = this.totals;
      if (t) {
        tooltip +=
          `\nTier coverage: ${share}% of edges confirmed by a type checker or a run; the rest are found by name (verify before acting).` +
          `\nKnowledge: ${t.documents ? `${fmt(t.documents)} documents, ${fmt(t.communities)} communities` : 'empty (Tenure: Index Knowledge)'}.` +
          `\nEpisodes: ${t.episodes ? `${fmt(t.episodes)} attempts, ${fmt(t.failedEpisodes)} failed or rejected` : 'none recorded yet'}.` +
          `\nRules: ${Object.entries(t.rules).map(([k, n]) => `${n} ${k}`).join(', ') || 'none learned yet'}.`;
      }
    }
    if (state.kind === 'no-folder') {
      this.item.hide();
      return;
    }
    this.item.text = text;
    this.item.tooltip = `${tooltip}${mode}\nClick to open the Tenure sidebar.`;
    this.item.accessibilityInformation = { label: `${label}${mode}`, role: 'button' };
    this.item.backgroundColor = state.kind === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
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
