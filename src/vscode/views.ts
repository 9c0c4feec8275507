import * as vscode from 'vscode';
import { describeAge } from '../core/episodic/clock.js';
import { conclusionsFor, loadEpisodes } from '../core/episodic/store.js';
import { decayedConfidence } from '../core/episodic/model.js';
import { RULE_STATUS_MEANING, type RuleStatus } from '../core/model/rules.js';
import type { Rule } from '../core/procedural/model.js';
import { listRules } from '../core/procedural/store.js';
import type { Workspace } from '../core/store/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { recentEpisodes, type TimelineEpisode } from '../core/episodic/store.js';
import { knowledgeOverview, type KnowledgeOverview } from '../core/knowledge/status.js';
import { formatCount, groupByDay, memoryTotals, resolvedShare, type MemoryTotals } from './memoryQueries.js';
import type { IndexState } from './statusBar.js';
import { describeTeamSync } from '../core/session/teamSync.js';
import type { TeamSyncStatus } from '../core/team/autoSync.js';

/*
 * The Tenure sidebar: index status, the episode timeline, the knowledge
 * memory and the learned rules. Each view reads SQLite when it is shown and
 * when a memory changes; an empty memory returns no rows, so the view's
 * welcome content (package.json `viewsWelcome`) says plainly that it is
 * empty and how to fill it.
 */

export interface ViewsHost {
  readonly log: vscode.LogOutputChannel;
  workspaceIfReady(): Workspace | undefined;
  indexState(): IndexState;
  readonly restricted: boolean;
  readonly onDidChangeMemory: vscode.Event<void>;
  readonly onDidChangeState: vscode.Event<void>;
  /** The team store's sync, when the extension runs one. */
  teamStatus(): TeamSyncStatus | undefined;
}

export const VIEW_IDS = { status: 'tenure.status', timeline: 'tenure.timeline', knowledge: 'tenure.knowledge', rules: 'tenure.rules' } as const;

type Node = vscode.TreeItem & { children?: Node[] };

function item(label: string, opts: Partial<vscode.TreeItem> & { children?: Node[] } = {}): Node {
  const t = new vscode.TreeItem(label, opts.children?.length ? (opts.collapsibleState ?? vscode.TreeItemCollapsibleState.Expanded) : vscode.TreeItemCollapsibleState.None) as Node;
  Object.assign(t, opts);
  return t;
}

abstract class View implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  protected readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Promise<Node[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  protected readonly subs: vscode.Disposable[] = [];
  /** Rows last shown, for tests and the accessibility of the status line. */
  lastRows: string[] = [];

  constructor(protected readonly host: ViewsHost) {
    this.subs.push(host.onDidChangeMemory(() => this.refresh()));
  }

  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.roots = undefined;
      this.changed.fire(undefined);
    }, 200);
  }

  getTreeItem(n: Node): vscode.TreeItem {
    return n;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n) return n.children ?? [];
    this.roots ??= this.build().catch((e: unknown) => {
      this.host.log.warn(`${this.constructor.name}: ${errorMessage(e)}`);
      return [item(`Could not read the memory: ${errorMessage(e)}`, { iconPath: new vscode.ThemeIcon('error') })];
    });
    const roots = await this.roots;
    this.lastRows = flatten(roots);
    return roots;
  }

  protected abstract build(): Promise<Node[]>;

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
    for (const s of this.subs.splice(0)) s.dispose();
  }
}

function flatten(nodes: readonly Node[], depth = 0): string[] {
  return nodes.flatMap((n) => [`${'  '.repeat(depth)}${typeof n.label === 'string' ? n.label : (n.label?.label ?? '')}${n.description ? ` — ${String(n.description)}` : ''}`, ...flatten(n.children ?? [], depth + 1)]);
}

const fmt = formatCount;

/* ---------------------------------------------------------------- status */

export class StatusView extends View {
  totals: MemoryTotals | undefined;

  constructor(host: ViewsHost) {
    super(host);
    this.subs.push(host.onDidChangeState(() => this.refresh()));
  }

  protected async build(): Promise<Node[]> {
    const state = this.host.indexState();
    const ws = this.host.workspaceIfReady();
    const rows: Node[] = [];
    const stateText: Record<IndexState['kind'], string> = {
      'no-folder': 'No folder is open',
      starting: 'Opening the memory database…',
      indexing: 'Indexing…',
      updating: 'Re-indexing changed files…',
      ready: 'Up to date',
      cancelled: 'Indexing was cancelled — answers cover what was indexed',
      failed: 'Indexing failed',
    };
    const icon = state.kind === 'ready' ? 'pass' : state.kind === 'failed' ? 'error' : state.kind === 'cancelled' ? 'circle-slash' : 'sync~spin';
    rows.push(
      item('Index', {
        description: state.kind === 'indexing' ? `${state.done}/${state.total} files` : state.kind === 'failed' ? state.message : stateText[state.kind],
        iconPath: new vscode.ThemeIcon(icon),
        command: { command: 'tenure.showOutput', title: 'Show Log' },
        tooltip: 'Click for the log (Output › Tenure).',
      }),
    );
    if (this.host.restricted) {
      rows.push(item('Restricted mode', { description: 'tree-sitter only: no language server, no model, no instruction file', iconPath: new vscode.ThemeIcon('shield'), tooltip: 'This folder is not trusted. Trust it (Manage Workspace Trust) to let Tenure confirm edges with language servers and index knowledge with a model.', command: { command: 'workbench.trust.manage', title: 'Manage Workspace Trust' } }));
    }
    const team = this.host.teamStatus();
    const teamRow = team ? describeTeamSync(team, Date.now()) : undefined;
    if (teamRow) rows.push(item('Team', { description: teamRow.description, tooltip: teamRow.tooltip, iconPath: new vscode.ThemeIcon(teamRow.healthy ? 'organization' : 'warning') }));
    if (!ws) return state.kind === 'no-folder' ? [] : rows;
    const t = await memoryTotals(ws.db);
    this.totals = t;
    if (!t.files && state.kind === 'ready') return [];
    const share = resolvedShare(t.edgesByTier);
    rows.push(
      item('Structural', {
        description: `${fmt(t.files)} files · ${fmt(t.symbols)} symbols · ${fmt(t.edges)} edges · ${Math.round(share * 100)}% resolved`,
        iconPath: new vscode.ThemeIcon('type-hierarchy'),
        collapsibleState: vscode.TreeItemCollapsibleState.Collapsed,
        children: ['resolved', 'observed', 'inferred', 'ambiguous', 'dynamic'].map((tier) => item(tier, { description: `${fmt(t.edgesByTier[tier] ?? 0)} edges`, iconPath: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor(TIER_THEME_COLOUR[tier]!)) })),
      }),
      item('Knowledge', {
        description: t.documents ? `${fmt(t.documents)} documents · ${fmt(t.communities)} communities` : 'empty — run "Tenure: Index Knowledge"',
        iconPath: new vscode.ThemeIcon('book'),
        ...(t.documents ? {} : { command: { command: 'tenure.indexKnowledge', title: 'Index Knowledge' } }),
      }),
      item('Episodes', {
        description: t.episodes ? `${fmt(t.episodes)} attempts · ${fmt(t.failedEpisodes)} failed or rejected` : 'none recorded yet — run a build or test in the terminal',
        iconPath: new vscode.ThemeIcon('history'),
      }),
      item('Rules', {
        description: Object.keys(t.rules).length ? Object.entries(t.rules).map(([k, n]) => `${n} ${k}`).join(' · ') : 'none learned yet',
        iconPath: new vscode.ThemeIcon('checklist'),
      }),
    );
    return rows;
  }
}

export const TIER_THEME_COLOUR: Record<string, string> = {
  resolved: 'charts.green',
  observed: 'charts.blue',
  inferred: 'charts.yellow',
  ambiguous: 'charts.orange',
  dynamic: 'charts.purple',
};

/* ---------------------------------------------------------------- timeline */

const OUTCOME_ICON: Record<string, [string, string | undefined]> = {
  success: ['pass', 'testing.iconPassed'],
  failure: ['error', 'testing.iconFailed'],
  rejected: ['circle-slash', 'editorWarning.foreground'],
  cancelled: ['debug-stop', undefined],
  recorded: ['record', undefined],
};

export class TimelineView extends View {
  episodes: TimelineEpisode[] = [];

  protected async build(): Promise<Node[]> {
    const ws = this.host.workspaceIfReady();
    if (!ws) return [];
    this.episodes = await recentEpisodes(ws.db, 300);
    const now = Date.now();
    const groups = groupByDay(this.episodes, now);
    return groups.map((g) =>
      item(g.label, {
        description: `${g.items.length} attempt${g.items.length === 1 ? '' : 's'}${g.items.some((e) => e.status === 'failure' || e.status === 'rejected') ? ` · ${g.items.filter((e) => e.status === 'failure' || e.status === 'rejected').length} failed` : ''}`,
        iconPath: new vscode.ThemeIcon('calendar'),
        collapsibleState: g === groups[0] ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
        children: g.items.map((e) => episodeNode(e, now)),
      }),
    );
  }
}

function episodeNode(e: TimelineEpisode, now: number): Node {
  const [icon, colour] = OUTCOME_ICON[e.status] ?? ['circle-outline', undefined];
  const what = e.command ?? e.intent ?? `${e.outcomeKind} ${e.status}`;
  const tests = e.testsTotal ? ` · tests ${e.testsTotal - (e.testsFailed ?? 0)}/${e.testsTotal}` : '';
  const n = item(what, {
    id: `episode-${e.id}`,
    description: `${e.outcomeKind} ${e.status}${tests} · ${describeAge(now - e.startedAt)}`,
    iconPath: new vscode.ThemeIcon(icon, colour ? new vscode.ThemeColor(colour) : undefined),
    contextValue: 'episode',
    command: { command: 'tenure.showEpisode', title: 'Show Episode', arguments: [e.id] },
  });
  const md = new vscode.MarkdownString();
  md.appendText(`#${e.id} · ${e.outcomeKind} ${e.status}${e.exitCode !== null ? ` (exit ${e.exitCode})` : ''} · ${new Date(e.startedAt).toISOString().replace('T', ' ').slice(0, 16)} UTC\n`);
  if (e.intent) md.appendText(`intent: ${e.intent}\n`);
  if (e.touched.length) md.appendText(`touched: ${e.touched.join(', ')}\n`);
  md.appendText(`captured by: ${e.source}${e.actor ? ` (${e.actor})` : ''}\nThe outcome was decided by the build system: high confidence.`);
  n.tooltip = md;
  n.accessibilityInformation = { label: `Episode ${e.id}: ${what}, ${e.outcomeKind} ${e.status}, ${describeAge(now - e.startedAt)}` };
  return n;
}

/** The episode as a read-only markdown document: outcome and its evidence, failing tests, what it touched (the diff), conclusions. */
export async function episodeMarkdown(ws: Workspace, id: number): Promise<string> {
  const [e] = await loadEpisodes(ws.db, [id]);
  if (!e) return `# Episode #${id}\n\nThere is no episode #${id} in this workspace's memory.`;
  const conclusions = await conclusionsFor(ws.db, { episodeIds: [id] });
  const now = Date.now();
  const out: string[] = [];
  out.push(`# Episode #${e.id}: ${e.outcome.kind} ${e.outcome.status}${e.command ? ` — \`${e.command}\`` : ''}`);
  out.push('');
  out.push(`- **When:** ${new Date(e.startedAt).toISOString()} (${describeAge(now - e.startedAt)}), ${Math.round((e.endedAt - e.startedAt) / 100) / 10} s`);
  if (e.intent) out.push(`- **Intent:** ${e.intent}`);
  out.push(`- **Captured by:** ${e.source}${e.actor ? ` (${e.actor})` : ''}; branch ${e.branch ?? '?'} at ${e.head?.slice(0, 10) ?? '?'}${e.commitMessage ? ` — ${e.commitMessage}` : ''}`);
  out.push(`- **Outcome:** ${e.outcome.kind} **${e.outcome.status}**${e.outcome.exitCode !== null ? ` (exit ${e.outcome.exitCode})` : ''} — decided by ${e.outcome.source}: high confidence, it never decays`);
  if (e.archivedAt) out.push(`- **Archived** ${new Date(e.archivedAt).toISOString().slice(0, 10)}: ${e.archiveReason ?? ''}`);
  out.push('', '## Evidence', '');
  out.push(e.outcome.evidence ? '```text\n' + e.outcome.evidence + '\n```' : '_No evidence text was recorded (the command printed nothing Tenure kept)._');
  if (e.tests) {
    out.push('', `## Tests: ${e.tests.total - e.tests.failed - e.tests.errors}/${e.tests.total} passed, ${e.tests.skipped} skipped`, '');
    for (const f of e.tests.failing) out.push(`- ✗ ${f.suite ? `${f.suite} › ` : ''}${f.name}${f.message ? ` — ${f.message.split('\n')[0]}` : ''}`);
  }
  out.push('', `## Diff: ${e.diff.files} files, +${e.diff.added} −${e.diff.removed}`, '');
  if (e.touchBasis) out.push(`_${e.touchBasis}_`, '');
  if (e.touches.length) {
    out.push('```diff');
    for (const t of e.touches) out.push(`${t.change === 'added' ? '+' : t.change === 'deleted' ? '-' : '~'} ${t.path}${t.qname ? `  ${t.qname}` : ''}  (${t.lines} line${t.lines === 1 ? '' : 's'} ${t.change})${t.fresh ? '' : '  [changed before an earlier outcome]'}`);
    out.push('```');
  } else out.push('_Nothing in the working tree changed since the previous outcome._');
  if (conclusions.length) {
    out.push('', '## Conclusions (NOT outcomes: someone’s reading, decaying)', '');
    for (const c of conclusions) out.push(`- ${c.authorKind === 'agent' ? 'the agent’s conclusion' : `${c.author}’s note`}, confidence ${c.confidence} → ${decayedConfidence(c, now).toFixed(2)} now: “${c.text}”`);
  }
  return out.join('\n') + '\n';
}

/* ---------------------------------------------------------------- knowledge */

const DOC_GROUPS: { kinds: string[]; label: string; icon: string }[] = [
  { kinds: ['adr', 'rfc', 'design'], label: 'Decisions', icon: 'law' },
  { kinds: ['postmortem'], label: 'Incidents', icon: 'flame' },
  { kinds: ['pr', 'issue'], label: 'Discussions', icon: 'comment-discussion' },
  { kinds: ['commit'], label: 'Commits', icon: 'git-commit' },
];

export class KnowledgeView extends View {
  overview: KnowledgeOverview | undefined;

  protected async build(): Promise<Node[]> {
    const ws = this.host.workspaceIfReady();
    if (!ws) return [];
    const k = await knowledgeOverview(ws.db);
    this.overview = k;
    if (!k.documents.length) return [];
    const rows: Node[] = [];
    const used = new Set<string>();
    for (const g of DOC_GROUPS) {
      const docs = k.documents.filter((d) => g.kinds.includes(d.kind));
      g.kinds.forEach((x) => used.add(x));
      if (!docs.length) continue;
      rows.push(item(g.label, { description: String(docs.length), iconPath: new vscode.ThemeIcon(g.icon), collapsibleState: g.label === 'Commits' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded, children: capped(docs.map((d) => docNode(ws, d))) }));
    }
    const other = k.documents.filter((d) => !used.has(d.kind));
    if (other.length) rows.push(item('Other documents', { description: String(other.length), iconPath: new vscode.ThemeIcon('file-text'), collapsibleState: vscode.TreeItemCollapsibleState.Collapsed, children: other.map((d) => docNode(ws, d)) }));
    if (k.communities.length) {
      rows.push(
        item('Communities', {
          description: `${k.communities.length} (Leiden)`,
          iconPath: new vscode.ThemeIcon('organization'),
          collapsibleState: vscode.TreeItemCollapsibleState.Collapsed,
          children: capped(k.communities.map((c) => item(c.title ?? `community #${c.id}`, { description: `level ${c.level} · ${c.size} entities${c.rating !== null ? ` · importance ${c.rating}` : ''}`, tooltip: c.summary ?? undefined, iconPath: new vscode.ThemeIcon('circle-outline') }))),
        }),
      );
    }
    const links = Object.entries(k.links);
    if (links.length) rows.push(item('Links to code', { description: links.map(([t, n]) => `${t} ${n}`).join(' · '), iconPath: new vscode.ThemeIcon('link'), tooltip: 'Entities per link tier: exact (named verbatim), strong (in other words), weak (a concept spanning several symbols), unresolved (no symbol denotes it: kept, never forced).' }));
    return rows;
  }
}

/** A view stays small on a large repository: the first rows, then how many more (the panels and tools reach the rest). */
const MAX_ROWS = 200;
function capped(nodes: Node[]): Node[] {
  if (nodes.length <= MAX_ROWS) return nodes;
  return [...nodes.slice(0, MAX_ROWS), item(`… ${nodes.length - MAX_ROWS} more`, { iconPath: new vscode.ThemeIcon('ellipsis'), tooltip: 'Not listed here to keep the view light; “Why is this?” and the search_knowledge tool reach every document.' })];
}

function docNode(ws: Workspace, d: KnowledgeOverview['documents'][number]): Node {
  const label = d.ref && !d.title.startsWith(d.ref) ? `${d.ref}: ${d.title}` : d.title;
  const command: vscode.Command | undefined = d.path
    ? { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.joinPath(vscode.Uri.file(ws.root), d.path)] }
    : d.url
      ? { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(d.url)] }
      : undefined;
  return item(label, { description: d.path ?? d.url ?? d.kind, iconPath: new vscode.ThemeIcon('file-text'), tooltip: `${d.kind}: ${d.title}`, ...(command ? { command } : {}) });
}

/* ---------------------------------------------------------------- rules */

const RULE_ORDER: readonly RuleStatus[] = ['proposed', 'demotion-proposed', 'promoted', 'candidate', 'demoted', 'rejected'];
const RULE_ICON: Record<RuleStatus, string> = { proposed: 'lightbulb', 'demotion-proposed': 'warning', promoted: 'verified-filled', candidate: 'beaker', demoted: 'arrow-down', rejected: 'close' };

export class RulesView extends View {
  rules: Rule[] = [];

  protected async build(): Promise<Node[]> {
    const ws = this.host.workspaceIfReady();
    if (!ws) return [];
    this.rules = await listRules(ws.db);
    if (!this.rules.length) return [];
    return RULE_ORDER.filter((s) => this.rules.some((r) => r.status === s)).map((status) => {
      const group = this.rules.filter((r) => r.status === status);
      return item(`${status} (${group.length})`, {
        tooltip: RULE_STATUS_MEANING[status],
        iconPath: new vscode.ThemeIcon(RULE_ICON[status]),
        collapsibleState: status === 'demoted' || status === 'rejected' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
        children: capped(group.map((r) =>
          item(r.promotedText ?? r.text, {
            id: `rule-${r.id}`,
            description: `${r.successes}✓ ${r.failures}✗ · lower bound ${r.lowerBound.toFixed(2)}`,
            tooltip: `Rule ${r.id} (${r.kind}), ${r.status}: ${RULE_STATUS_MEANING[r.status]}\n${r.successes} successes, ${r.failures} failures (Wilson lower bound ${r.lowerBound.toFixed(2)})${r.reason ? `\n${r.reason}` : ''}`,
            iconPath: new vscode.ThemeIcon(RULE_ICON[r.status]),
            contextValue: `rule.${r.status}`,
            accessibilityInformation: { label: `Rule ${r.id}, ${r.status}: ${r.promotedText ?? r.text}. ${r.successes} successes, ${r.failures} failures.` },
          }),
        )),
      });
    });
  }
}

export function ruleIdOf(arg: unknown): number | undefined {
  if (typeof arg === 'number') return arg;
  const id = (arg as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string') {
    const m = /^rule-(\d+)$/.exec(id);
    if (m) return Number(m[1]);
  }
  return undefined;
}
