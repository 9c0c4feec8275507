/// <reference lib="dom" />
import cytoscape from 'cytoscape';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { WhatBreaksResult } from '../core/structural/impact/result.js';
import { EDGE_TIERS, EDGE_TIER_INFO, actionButton, applyTierPalette, clear, h, icon, onMessage, post, siteLink, tierChip, tierLine, vscode, x } from './common.js';
import { NODE_FONT_PX, filterRows, graphRows, groupRows, layoutGraph, rowsOf, type Bucket, type GroupBy, type HopGroup, type Row } from './impactModel.js';
import type { ImpactView, PanelState } from './protocol.js';
import { TIER_STROKE, type TierName } from './tierStyle.js';

/*
 * The impact panel: what_breaks for one symbol, readable at a thousand
 * dependents. A one-line lower-bound banner (details folded), one line of
 * tier toggles (hue, line style, word and count), a filter box, a layered
 * graph of the top dependents with "show more", and the list as a tree:
 * direct dependents first, then by hop, each hop by file or by tier, with
 * generated code folded apart. Rows of a folded branch are drawn when it is
 * opened, so a thousand dependents cost a few dozen elements at first. The
 * tree is the accessible form of the graph: every node is a focusable row.
 */

const root = document.getElementById('root')!;
let state: PanelState = vscode.getState() ?? {};
let current: ImpactView | undefined;
let cy: cytoscape.Core | undefined;
/** Branches the person opened or closed (by key), kept across re-renders of the same answer. */
const opened = new Map<string, boolean>();
let query = '';
let graphLimit = 25;
const GRAPH_STEP = 25;
/** Rows drawn at once in one branch; "show N more" draws the next. */
const BRANCH_PAGE = 100;

function hidden(): Set<string> {
  return new Set(state.hiddenTiers ?? []);
}

function saveState(patch: Partial<PanelState>): void {
  state = { ...state, ...patch };
  vscode.setState(state);
}

function tierColour(tier: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(`--tenure-tier-${tier}`).trim();
  return v || '#888888';
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** The banner's one line: the lower bound's first clause; the rest of the sentence folded under it. */
function banner(r: WhatBreaksResult): HTMLElement {
  const cut = r.summary.search(/[:;]/);
  const head = cut > 0 ? `${r.summary.slice(0, cut)}.` : r.summary;
  const details = h('details', { class: 'banner-details', id: 'banner-details' }, h('summary', {}, 'Details: by kind and tier, what else may reach it, what Tenure cannot see'));
  const ul = h('ul', {});
  for (const part of r.summary.slice(cut > 0 ? cut + 1 : r.summary.length).split(/;\s+/)) {
    const text = part.trim().replace(/\.$/, '');
    if (text) ul.appendChild(h('li', {}, text.charAt(0).toUpperCase() + text.slice(1)));
  }
  details.appendChild(ul);
  if (r.sources.length) details.appendChild(h('p', { class: 'fineprint' }, `Edges from: ${r.sources.join(', ')}.`));
  return h('div', { class: 'lower-bound-banner', role: 'status', 'aria-live': 'polite', id: 'lower-bound' }, h('div', { class: 'banner-line' }, icon('warning'), ' ', h('strong', {}, 'Lower bound. '), head), details);
}

function render(view: ImpactView): void {
  const t0 = performance.now();
  if (current?.result !== view.result) {
    opened.clear();
    graphLimit = 25;
  }
  current = view;
  applyTierPalette();
  const r = view.result;
  const rows = rowsOf(r);
  const hide = hidden();
  const visible = filterRows(
    rows.filter((row) => !hide.has(row.tier)),
    query,
  );
  clear(root);

  root.appendChild(
    h(
      'header',
      { class: 'panel-header' },
      h('h1', {}, icon('symbol-method'), ' What breaks if ', h('code', {}, r.target.qname), ' changes'),
      h('div', { class: 'subtitle' }, `${r.target.kind} · `, siteLink(r.target.path, r.target.line), ` · depth ${r.depth}`),
    ),
  );
  if (view.restricted) {
    root.appendChild(
      h('div', { class: 'notice restricted', role: 'note' }, icon('shield'), ' Restricted mode: this workspace is not trusted, so Tenure reads the tree-sitter index only — no language server confirms these edges.'),
    );
  }
  root.appendChild(banner(r));

  // Legend and tier filters in one line: each tier's line style, colour, icon, name and count; a checkbox hides it. Meanings folded.
  const legend = h('fieldset', { class: 'legend', id: 'legend' }, h('legend', {}, 'Tiers (uncheck to hide)'));
  for (const tier of EDGE_TIERS) {
    const count = rows.filter((row) => row.tier === tier).length;
    const box = x('vscode-checkbox', { checked: !hide.has(tier), label: `${tier} (${count.toLocaleString('en-US')})`, 'data-tier': tier, class: 'tier-filter', title: `${tier}: ${EDGE_TIER_INFO[tier].meaning}; drawn as a ${TIER_STROKE[tier].words}` });
    box.addEventListener('change', () => {
      const set = hidden();
      if ((box as unknown as { checked: boolean }).checked) set.delete(tier);
      else set.add(tier);
      saveState({ hiddenTiers: [...set] });
      if (current) render(current);
    });
    legend.appendChild(h('div', { class: `legend-item tier-${tier}`, 'data-tier': tier }, tierLine(tier), icon(EDGE_TIER_INFO[tier].icon), box));
  }
  const meanings = h('details', { class: 'legend-meanings' }, h('summary', {}, 'What the tiers mean'));
  const dl = h('ul', {});
  for (const tier of EDGE_TIERS) dl.appendChild(h('li', { class: `tier-${tier}` }, tierChip(tier), ` ${EDGE_TIER_INFO[tier].meaning} (${TIER_STROKE[tier].words})`));
  meanings.appendChild(dl);

  const depthSelect = x('vscode-single-select', { id: 'depth', 'aria-label': 'Depth: hops of dependents to follow' });
  for (let d = 1; d <= 6; d++) depthSelect.appendChild(x('vscode-option', { value: String(d), selected: d === r.depth }, `${d} hop${d === 1 ? '' : 's'}`));
  depthSelect.addEventListener('change', () => {
    const depth = Number((depthSelect as unknown as { value: string }).value);
    if (Number.isInteger(depth) && depth !== r.depth) {
      saveState({ depth });
      post({ type: 'setDepth', depth });
    }
  });
  const groupBy: GroupBy = state.groupBy === 'tier' ? 'tier' : 'file';
  const groupSelect = x('vscode-single-select', { id: 'group-by', 'aria-label': 'Group each hop by file or by tier' });
  for (const g of ['file', 'tier'] as const) groupSelect.appendChild(x('vscode-option', { value: g, selected: g === groupBy }, `by ${g}`));
  groupSelect.addEventListener('change', () => {
    const g = (groupSelect as unknown as { value: string }).value === 'tier' ? 'tier' : 'file';
    if (g !== groupBy) {
      saveState({ groupBy: g });
      opened.clear();
      if (current) render(current);
    }
  });
  const filter = h('input', { id: 'filter', type: 'search', class: 'filter', placeholder: 'Filter by name, file or reason', 'aria-label': 'Filter dependents by name, file or reason', value: query });
  let timer: number | undefined;
  filter.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      query = (filter as HTMLInputElement).value;
      if (current) {
        renderBody(current.result, rows, filterRows(rows.filter((row) => !hidden().has(row.tier)), query), groupBy)();
      }
    }, 120);
  });
  root.appendChild(
    h(
      'section',
      { class: 'filters' },
      h(
        'div',
        { class: 'controls' },
        filter,
        h('label', { for: 'depth' }, 'Depth'),
        depthSelect,
        h('label', { for: 'group-by' }, 'Group'),
        groupSelect,
        actionButton('Why is this?', 'question', () => post({ type: 'showWhy', symbol: r.target.sid }), true),
      ),
      legend,
      meanings,
    ),
  );
  root.appendChild(h('div', { id: 'body' }));
  const drawGraphNow = renderBody(r, rows, visible, groupBy);
  // The banner and the tree are on screen first; the graph is drawn in the next task (it is the costlier part).
  const renderMs = Math.round(performance.now() - t0);
  const view0 = current;
  setTimeout(() => {
    if (current !== view0) return;
    const g0 = performance.now();
    drawGraphNow();
    const graphMs = Math.round(performance.now() - g0);
    // For the e2e test, which reads the page as a person sees it.
    Object.assign(document.body.dataset, { renderMs: String(renderMs), graphMs: String(graphMs), rows: String(visible.length), nodes: String(cy?.nodes().length ?? 0) });
    post({
      type: 'rendered',
      view: 'impact',
      stats: {
        rows: visible.length,
        nodes: cy?.nodes().length ?? 0,
        domRows: root.querySelectorAll('li.row').length,
        renderMs,
        graphMs,
        ...Object.fromEntries(EDGE_TIERS.map((t) => [t, rows.filter((row) => row.tier === t).length])),
      },
    });
  }, 0);
}

/** The graph and the tree for the rows that pass the filters (redrawn alone when the filter changes). */
/** Returns the function that draws the graph, for the caller to run when the tree is on screen. */
function renderBody(r: WhatBreaksResult, all: readonly Row[], visible: readonly Row[], groupBy: GroupBy): () => void {
  const body = document.getElementById('body')!;
  clear(body);
  const graphHead = h('div', { class: 'graph-head' }, h('span', { id: 'graph-count' }));
  body.appendChild(graphHead);
  // aria-hidden: the tree below says the same, row by row.
  const graphBox = h('div', { id: 'graph', class: 'graph', 'aria-hidden': 'true' });
  body.appendChild(graphBox);
  // "Show more" redraws the graph alone; the tree stays as the person left it.
  const drawTop = () => {
    const inGraph = graphRows(visible, graphLimit);
    clear(graphHead);
    graphHead.appendChild(h('span', { id: 'graph-count' }, `Graph: ${plural(inGraph.length, 'dependent')} of ${visible.length.toLocaleString('en-US')}`, visible.some((v) => v.generated) && inGraph.length < visible.length ? ' (hand-written code first; generated code joins last)' : ''));
    if (inGraph.length < visible.length) {
      const more = actionButton(`Show ${Math.min(GRAPH_STEP, visible.length - inGraph.length)} more`, 'add', () => {
        graphLimit += GRAPH_STEP;
        drawTop();
      }, true);
      more.id = 'graph-more';
      graphHead.appendChild(more);
    }
    drawGraph(graphBox, r, inGraph);
  };

  const list = h('section', { class: 'impact-list', 'aria-label': 'Dependents, direct first, then by hop' });
  const groups = groupRows(visible, groupBy);
  const filtering = query.trim().length > 0;
  for (const g of groups) list.appendChild(hopBranch(g, filtering));
  if (!visible.length) {
    list.appendChild(
      h(
        'p',
        { class: 'empty' },
        all.length ? (filtering ? `No dependent matches “${query}”.` : 'Every tier is hidden by the filters above.') : `No dependent of ${r.target.qname} is in the index. That is a lower bound too: read the banner's details.`,
      ),
    );
  }
  body.appendChild(list);
  return drawTop;
}

/** A <details> whose content is built the first time it opens. */
function branch(key: string, summary: (Node | string)[], openByDefault: boolean, fill: (into: HTMLElement) => void, cls = ''): HTMLElement {
  const open = opened.get(key) ?? openByDefault;
  const d = h('details', { class: `branch ${cls}`, 'data-key': key, ...(open ? { open: true } : {}) }, h('summary', {}, ...summary));
  let filled = false;
  const ensure = () => {
    if (filled) return;
    filled = true;
    fill(d);
  };
  if (open) ensure();
  d.addEventListener('toggle', () => {
    opened.set(key, d.open);
    if (d.open) ensure();
  });
  return d;
}

function tierCounts(rows: readonly Row[]): HTMLElement {
  const span = h('span', { class: 'tier-counts' });
  for (const t of EDGE_TIERS) {
    const n = rows.filter((r) => r.tier === t).length;
    if (n) span.appendChild(h('span', { class: `count tier-${t}`, title: `${n} ${t}` }, icon(EDGE_TIER_INFO[t].icon), ` ${n.toLocaleString('en-US')}`));
  }
  return span;
}

function hopBranch(g: HopGroup, filtering: boolean): HTMLElement {
  const all = [...g.buckets.flatMap((b) => b.rows), ...g.generated.flatMap((b) => b.rows)];
  const head = [h('span', { class: 'hop-title' }, `${g.title} (${g.count.toLocaleString('en-US')})`), ' ', tierCounts(all)];
  return branch(
    g.key,
    head,
    g.distance === 1 || filtering,
    (into) => {
      const hand = g.buckets.reduce((a, b) => a + b.rows.length, 0);
      // A short hop is listed flat in its buckets, opened; a long one shows its buckets folded, largest first.
      const openBuckets = filtering || hand <= 40;
      for (const b of g.buckets) into.appendChild(bucketBranch(b, openBuckets));
      if (g.generatedCount) {
        into.appendChild(
          branch(
            `${g.key}:generated`,
            [icon('gear'), ` Generated code (${plural(g.generatedCount, 'dependent')} in ${plural(g.generated.length, g.generated[0]?.tier ? 'tier' : 'file')}) — folded`],
            false,
            (inner) => {
              for (const b of g.generated) inner.appendChild(bucketBranch(b, filtering));
            },
            'generated',
          ),
        );
      }
    },
    'hop',
  );
}

function bucketBranch(b: Bucket, open: boolean): HTMLElement {
  const title = b.tier ? [tierChip(b.tier), ` (${b.rows.length.toLocaleString('en-US')})`] : [icon('file'), ' ', h('span', { class: 'bucket-file' }, b.title), ` (${b.rows.length.toLocaleString('en-US')}) `, tierCounts(b.rows)];
  return branch(b.key, title, open, (into) => {
    const ul = h('ul', { class: 'rows', role: 'list' });
    into.appendChild(ul);
    const page = (from: number) => {
      for (const row of b.rows.slice(from, from + BRANCH_PAGE)) ul.appendChild(rowItem(row, !!b.tier));
      const rest = b.rows.length - from - BRANCH_PAGE;
      if (rest > 0) {
        const more = actionButton(`Show ${Math.min(rest, BRANCH_PAGE)} more of ${rest.toLocaleString('en-US')}`, 'add', () => {
          more.remove();
          page(from + BRANCH_PAGE);
        }, true);
        into.appendChild(more);
      }
    };
    page(0);
  }, 'bucket');
}

function rowItem(row: Row, showPath: boolean): HTMLElement {
  const li = h('li', { class: `row tier-${row.tier}`, 'data-tier': row.tier, 'data-key': row.key });
  const where = showPath ? `${row.path}:${row.line}` : `line ${row.line}`;
  const open = h(
    'button',
    { class: 'row-main', title: `Open ${row.path}:${row.line}`, 'aria-label': `${row.label}, ${row.tier}, ${row.verb}, at ${row.path} line ${row.line}` },
    tierChip(row.tier),
    ' ',
    h('span', { class: 'qname' }, row.label),
    ' ',
    h('span', { class: 'verb' }, row.verb),
    ' ',
    h('span', { class: 'where' }, `${where}${row.sites > 1 ? ` (+${row.sites - 1} sites)` : ''}`),
    row.via ? h('span', { class: 'via' }, ` · via ${row.via}`) : null,
  );
  open.addEventListener('click', () => post({ type: 'open', path: row.path, line: row.line, col: row.col }));
  li.appendChild(open);
  // Why the edge is believed: folded, one line.
  li.appendChild(h('details', { class: 'detail' }, h('summary', {}, 'why'), `${row.reason}${row.source !== 'tree-sitter' ? ` (${row.source})` : ''}`));
  if (row.candidates?.length) {
    const cands = h('ul', { class: 'candidates', 'aria-label': 'every candidate; none is chosen' });
    for (const c of row.candidates) cands.appendChild(h('li', {}, icon('question'), ' ', siteLink(c.path, c.line, undefined, `${c.qname} — ${c.path}:${c.line}`)));
    li.appendChild(h('div', { class: 'detail' }, `All ${row.candidates.length} candidates (none chosen):`));
    li.appendChild(cands);
  }
  return li;
}

function drawGraph(container: HTMLElement, r: WhatBreaksResult, rows: readonly Row[]): void {
  cy?.destroy();
  cy = undefined;
  if (!rows.length) {
    container.classList.add('empty');
    return;
  }
  const laid = layoutGraph(r.target.qname, rows);
  // As tall as the layers need, within bounds; past that the graph pans and zooms.
  container.style.height = `${Math.max(180, Math.min(520, laid.height + 16))}px`;
  const fg = cssVar('--vscode-editor-foreground', '#cccccc');
  const bg = cssVar('--vscode-editor-background', '#1e1e1e');
  const hc = document.body.classList.contains('vscode-high-contrast') || document.body.classList.contains('vscode-high-contrast-light');
  const elements: cytoscape.ElementDefinition[] = [
    ...laid.nodes.map((n) => ({ data: { id: n.id, label: n.label, tier: n.tier, w: n.width, h: n.height, ...(n.row ? { path: n.row.path, line: n.row.line } : { path: r.target.path, line: r.target.line }) }, position: { x: n.x, y: n.y } })),
    ...laid.edges.map((e) => ({ data: { id: e.id, source: e.source, target: e.target, tier: e.tier } })),
  ];
  const style: cytoscape.StylesheetJson = [
    {
      selector: 'node',
      style: {
        label: 'data(label)',
        shape: 'round-rectangle',
        width: 'data(w)',
        height: 'data(h)',
        color: fg,
        'font-size': NODE_FONT_PX,
        'text-valign': 'center',
        'text-halign': 'center',
        'background-color': bg,
        'border-width': hc ? 2 : 1,
        'border-color': fg,
      },
    },
    { selector: 'node[tier = "target"]', style: { 'font-weight': 'bold', 'border-width': 3 } },
    { selector: 'edge', style: { width: hc ? 3 : 2, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'arrow-scale': 0.9 } },
    ...EDGE_TIERS.flatMap((t: TierName) => [
      { selector: `node[tier = "${t}"]`, style: { 'border-color': tierColour(t) } },
      {
        selector: `edge[tier = "${t}"]`,
        style: {
          'line-color': tierColour(t),
          'target-arrow-color': tierColour(t),
          'line-style': TIER_STROKE[t].style,
          ...(TIER_STROKE[t].dash.length ? { 'line-dash-pattern': [...TIER_STROKE[t].dash] } : {}),
          ...(TIER_STROKE[t].style === 'double' ? { width: hc ? 5 : 4 } : {}),
        },
      },
    ]),
  ] as cytoscape.StylesheetJson;
  cy = cytoscape({
    container,
    elements,
    style,
    layout: { name: 'preset', fit: true, padding: 8 } as cytoscape.LayoutOptions,
    minZoom: 0.2,
    maxZoom: 2,
    userZoomingEnabled: true,
    boxSelectionEnabled: false,
    autoungrabify: true,
    wheelSensitivity: 0.3,
  });
  // Labels stay readable: never zoomed out below 80 % to fit; the rest is a pan away (the target's layer first).
  if (cy.zoom() < 0.8) {
    cy.zoom(0.8);
    const t = cy.getElementById('target');
    cy.pan({ x: container.clientWidth - 24 - (t.position('x') + t.width() / 2) * 0.8, y: 8 - (laid.nodes.reduce((m, n) => Math.min(m, n.y - n.height / 2), Infinity)) * 0.8 });
  }
  cy.on('tap', 'node, edge', (evt) => {
    const d = evt.target.data() as { path?: string; line?: number };
    if (d.path && d.line) post({ type: 'open', path: d.path, line: d.line });
  });
}

function showLoading(symbol: string): void {
  clear(root);
  root.appendChild(h('div', { class: 'loading', role: 'status' }, icon('loading codicon-modifier-spin'), ` Asking the structural memory what breaks if ${symbol} changes…`));
}

function showError(message: string): void {
  clear(root);
  root.appendChild(h('div', { class: 'notice error', role: 'alert' }, icon('error'), ' ', message));
}

// Re-colour when the theme changes (VS Code swaps the body's classes).
new MutationObserver(() => {
  if (current) render(current);
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

onMessage((m) => {
  if (m.type === 'loading') showLoading(m.symbol);
  else if (m.type === 'error') showError(m.message);
  else if (m.type === 'impact') {
    saveState({ symbol: m.view.result.target.sid, depth: m.view.result.depth });
    render(m.view);
  }
});
post({ type: 'ready' });
