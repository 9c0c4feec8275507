/// <reference lib="dom" />
import cytoscape from 'cytoscape';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { Dependent, WhatBreaksResult } from '../core/structural/impact/result.js';
import { EDGE_TIERS, EDGE_TIER_INFO, actionButton, clear, h, icon, onMessage, post, siteLink, tierChip, vscode, x, type EdgeTierName } from './common.js';
import type { ImpactView, PanelState } from './protocol.js';

/*
 * The impact panel: what_breaks for one symbol as a graph and as a list,
 * every edge coloured by its tier (with its name and icon beside the colour),
 * the lower-bound sentence as a banner, filters by tier and depth, and
 * click-through to every call site. The list is the accessible form of the
 * graph: every node of the graph is a focusable row there.
 */

const root = document.getElementById('root')!;
let state: PanelState = vscode.getState() ?? {};
let current: ImpactView | undefined;
let cy: cytoscape.Core | undefined;

function hidden(): Set<string> {
  return new Set(state.hiddenTiers ?? []);
}

function saveState(patch: Partial<PanelState>): void {
  state = { ...state, ...patch };
  vscode.setState(state);
}

/** The theme's colour for a tier: CSS custom properties resolved now, so the graph follows theme changes. */
function tierColour(tier: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(`--tenure-tier-${tier}`).trim();
  return v || '#888888';
}

function fg(): string {
  return getComputedStyle(document.body).getPropertyValue('--vscode-editor-foreground').trim() || '#cccccc';
}

interface Row {
  readonly key: string;
  readonly tier: string;
  readonly label: string;
  readonly detail: string;
  readonly path: string;
  readonly line: number;
  readonly col: number;
  readonly distance: number;
  readonly via: string | null;
  readonly group: 'dependent' | 'implementation' | 'dispatch' | 'dynamic';
  readonly sites: number;
  readonly candidates?: readonly { qname: string; path: string; line: number }[];
}

const VERB: Record<string, string> = {
  call: 'calls it',
  instantiate: 'instantiates it',
  reference: 'references it',
  import: 'imports it',
  extends: 'extends it',
  implements: 'implements it',
  overrides: 'overrides it',
  member: 'uses a member',
};

function rowsOf(r: WhatBreaksResult): Row[] {
  const rows: Row[] = [];
  const dep = (d: Dependent, group: Row['group']): Row => ({
    key: `${group}:${d.symbol.sid}:${d.kind}`,
    tier: d.tier,
    label: d.symbol.qname,
    detail: `${VERB[d.kind] ?? d.kind} — ${d.provenance.reason}${d.provenance.source !== 'tree-sitter' ? ` (${d.provenance.source})` : ''}`,
    path: d.sites[0]?.path ?? d.symbol.path,
    line: d.sites[0]?.line ?? d.symbol.line,
    col: d.sites[0]?.col ?? 0,
    distance: d.distance,
    via: d.distance > 1 ? d.via.name : null,
    group,
    sites: d.sites.length,
    ...(d.candidates?.length ? { candidates: d.candidates } : {}),
  });
  for (const d of r.dependents) rows.push(dep(d, 'dependent'));
  for (const d of r.implementers) rows.push(dep(d, 'implementation'));
  for (const d of r.dispatches) {
    rows.push({
      key: `dispatch:${d.caller.sid}:${d.site.line}`,
      tier: d.resolution === 'resolved' ? 'resolved' : d.tier === 'resolved' ? 'inferred' : d.tier,
      label: d.caller.qname,
      detail: `calls ${d.through.qname}, which may dispatch here (${d.resolution} dispatch)`,
      path: d.site.path,
      line: d.site.line,
      col: d.site.col,
      distance: 1,
      via: null,
      group: 'dispatch',
      sites: 1,
    });
  }
  for (const d of r.dynamicSites) {
    rows.push({
      key: `dynamic:${d.owner.sid}:${d.site.line}`,
      tier: 'dynamic',
      label: d.owner.qname,
      detail: d.reason,
      path: d.site.path,
      line: d.site.line,
      col: d.site.col,
      distance: 1,
      via: null,
      group: 'dynamic',
      sites: 1,
    });
  }
  return rows;
}

function render(view: ImpactView): void {
  current = view;
  const r = view.result;
  const rows = rowsOf(r);
  const hide = hidden();
  const visible = rows.filter((row) => !hide.has(row.tier));
  clear(root);

  const header = h(
    'header',
    { class: 'panel-header' },
    h('h1', {}, icon('symbol-method'), ' What breaks if ', h('code', {}, r.target.qname), ' changes'),
    h('div', { class: 'subtitle' }, `${r.target.kind} · `, siteLink(r.target.path, r.target.line), ` · depth ${r.depth}`),
  );
  root.appendChild(header);
  if (view.restricted) {
    root.appendChild(
      h('div', { class: 'notice restricted', role: 'note' }, icon('shield'), ' Restricted mode: this workspace is not trusted, so Tenure reads the tree-sitter index only — no language server confirms these edges.'),
    );
  }

  root.appendChild(
    h('div', { class: 'lower-bound-banner', role: 'status', 'aria-live': 'polite', id: 'lower-bound' }, icon('warning'), ' ', h('strong', {}, 'Lower bound. '), r.summary),
  );

  // Legend and tier filters in one: each tier's colour, icon, name, meaning, count and a checkbox.
  const legend = h('fieldset', { class: 'legend', id: 'legend' }, h('legend', {}, 'Tiers — how far to trust each edge (uncheck to hide)'));
  for (const tier of EDGE_TIERS) {
    const count = rows.filter((row) => row.tier === tier).length;
    const box = x('vscode-checkbox', { checked: !hide.has(tier), label: `${tier} (${count})`, 'data-tier': tier, class: 'tier-filter' });
    box.addEventListener('change', () => {
      const set = hidden();
      if ((box as unknown as { checked: boolean }).checked) set.delete(tier);
      else set.add(tier);
      saveState({ hiddenTiers: [...set] });
      if (current) render(current);
    });
    legend.appendChild(
      h(
        'div',
        { class: `legend-item tier-${tier}`, 'data-tier': tier },
        h('span', { class: `swatch tier-${tier}`, 'aria-hidden': 'true' }),
        box,
        h('span', { class: 'meaning' }, icon(EDGE_TIER_INFO[tier].icon), ' ', EDGE_TIER_INFO[tier].meaning),
      ),
    );
  }

  const depthSelect = x('vscode-single-select', { id: 'depth', 'aria-label': 'Depth: hops of dependents to follow' });
  for (let d = 1; d <= 6; d++) depthSelect.appendChild(x('vscode-option', { value: String(d), selected: d === r.depth }, `${d} hop${d === 1 ? '' : 's'}`));
  depthSelect.addEventListener('change', () => {
    const depth = Number((depthSelect as unknown as { value: string }).value);
    if (Number.isInteger(depth) && depth !== r.depth) {
      saveState({ depth });
      post({ type: 'setDepth', depth });
    }
  });
  const controls = h(
    'div',
    { class: 'controls' },
    h('label', { for: 'depth' }, 'Depth '),
    depthSelect,
    actionButton('Why is this?', 'question', () => post({ type: 'showWhy', symbol: r.target.sid }), true),
  );
  root.appendChild(h('section', { class: 'filters' }, controls, legend));

  // The graph: target in the middle of a breadth-first layout, coloured edges; aria-hidden because the list below says the same.
  const graphBox = h('div', { id: 'graph', class: 'graph', 'aria-hidden': 'true' });
  root.appendChild(graphBox);

  const list = h('section', { class: 'impact-list', 'aria-label': 'Dependents by tier' });
  const groups: [Row['group'], string][] = [
    ['dependent', 'Dependents'],
    ['implementation', 'Implementations and overrides'],
    ['dispatch', 'Calls through a base method (dispatch)'],
    ['dynamic', 'Dynamic sites that may reach it'],
  ];
  for (const [group, title] of groups) {
    const inGroup = visible.filter((row) => row.group === group);
    if (!inGroup.length) continue;
    list.appendChild(h('h2', {}, `${title} (${inGroup.length})`));
    for (const tier of EDGE_TIERS) {
      const ofTier = inGroup.filter((row) => row.tier === tier);
      if (!ofTier.length) continue;
      const ul = h('ul', { class: `rows tier-${tier}`, 'aria-label': `${tier}: ${EDGE_TIER_INFO[tier].meaning}` });
      for (const row of ofTier) ul.appendChild(rowItem(row));
      list.appendChild(ul);
    }
  }
  if (!visible.length) {
    list.appendChild(
      h('p', { class: 'empty' }, rows.length ? 'Every tier is hidden by the filters above.' : `No dependent of ${r.target.qname} is in the index. That is a lower bound too: read the "not seen" list in the banner.`),
    );
  }
  root.appendChild(list);
  drawGraph(graphBox, r, visible);
  post({
    type: 'rendered',
    view: 'impact',
    stats: { rows: visible.length, nodes: cy?.nodes().length ?? 0, ...Object.fromEntries(EDGE_TIERS.map((t) => [t, rows.filter((row) => row.tier === t).length])) },
  });
}

function rowItem(row: Row): HTMLElement {
  const li = h('li', { class: `row tier-${row.tier}`, 'data-tier': row.tier, 'data-key': row.key });
  const open = h(
    'button',
    { class: 'row-main', title: `Open ${row.path}:${row.line}`, 'aria-label': `${row.label}, ${row.tier}, ${row.detail}, at ${row.path} line ${row.line}` },
    tierChip(row.tier),
    ' ',
    h('span', { class: 'qname' }, row.label),
    ' ',
    h('span', { class: 'where' }, `${row.path}:${row.line}${row.sites > 1 ? ` (+${row.sites - 1} sites)` : ''}`),
    row.via ? h('span', { class: 'via' }, ` · ${row.distance} hops, via ${row.via}`) : null,
  );
  open.addEventListener('click', () => post({ type: 'open', path: row.path, line: row.line, col: row.col }));
  li.appendChild(open);
  li.appendChild(h('div', { class: 'detail' }, row.detail));
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
  const elements: cytoscape.ElementDefinition[] = [{ data: { id: 'target', label: r.target.qname, tier: 'target' } }];
  const nodeIds = new Map<string, string>([[r.target.sid, 'target'], [r.target.name, 'target']]);
  let n = 0;
  const nodeFor = (label: string): string => {
    const existing = nodeIds.get(label);
    if (existing) return existing;
    const id = `n${n++}`;
    nodeIds.set(label, id);
    elements.push({ data: { id, label } });
    return id;
  };
  const byName = new Map<string, string>();
  for (const row of rows) byName.set(row.label.split('.').pop() ?? row.label, row.label);
  for (const row of rows) {
    const src = nodeFor(row.label);
    const via = row.via ? (byName.get(row.via) ?? row.via) : null;
    const dst = via && nodeIds.has(via) ? nodeIds.get(via)! : 'target';
    elements.push({ data: { id: `e${n++}`, source: src, target: dst, tier: row.tier, path: row.path, line: row.line } });
    const node = elements.find((e) => e.data.id === src)!;
    node.data['distance'] = Math.min((node.data['distance'] as number | undefined) ?? 99, row.distance);
    node.data['tier'] ??= row.tier;
    node.data['path'] ??= row.path;
    node.data['line'] ??= row.line;
  }
  const style: cytoscape.StylesheetJson = [
    { selector: 'node', style: { label: 'data(label)', color: fg(), 'font-size': 10, 'text-valign': 'bottom', 'text-margin-y': 3, 'text-wrap': 'wrap', 'text-max-width': '110px', width: 12, height: 12, 'background-color': '#888' } },
    { selector: 'node[tier = "target"]', style: { shape: 'diamond', width: 22, height: 22, 'background-color': fg(), 'font-weight': 'bold' } },
    { selector: 'edge', style: { width: 2, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'arrow-scale': 0.9 } },
    ...EDGE_TIERS.flatMap((t: EdgeTierName) => [
      { selector: `node[tier = "${t}"]`, style: { 'background-color': tierColour(t) } },
      { selector: `edge[tier = "${t}"]`, style: { 'line-color': tierColour(t), 'target-arrow-color': tierColour(t), 'line-style': t === 'dynamic' || t === 'ambiguous' ? 'dashed' : 'solid' } },
    ]),
  ] as cytoscape.StylesheetJson;
  cy = cytoscape({
    container,
    elements,
    style,
    // The target in the middle, direct dependents on the first ring, farther ones outside: labels spread around instead of piling up in one row.
    layout: {
      name: 'concentric',
      concentric: (n: cytoscape.NodeSingular) => (n.id() === 'target' ? 100 : 100 - Number(n.data('distance') ?? 1)),
      levelWidth: () => 1,
      minNodeSpacing: 36,
      padding: 16,
      animate: false,
    } as cytoscape.LayoutOptions,
    userZoomingEnabled: true,
    boxSelectionEnabled: false,
    autoungrabify: true,
    wheelSensitivity: 0.3,
  });
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

// Re-colour the graph when the theme changes (VS Code swaps the body's classes).
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
