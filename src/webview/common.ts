/// <reference lib="dom" />
import type { FromWebview, PanelState, ToWebview } from './protocol.js';
import { TIER_PALETTE, TIER_STROKE, themeKindOf, type TierName } from './tierStyle.js';

/*
 * What both panels share: the VS Code webview API, DOM helpers that never
 * parse strings as HTML (everything shown comes from the repository's text:
 * it is set as text, never as markup), the tier vocabulary and a report of
 * Content-Security-Policy violations, so a test sees them.
 */

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): PanelState | undefined;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode: VsCodeApi = acquireVsCodeApi();

export function post(message: FromWebview): void {
  vscode.postMessage(message);
}

export function onMessage(handler: (message: ToWebview) => void): void {
  window.addEventListener('message', (e: MessageEvent<ToWebview>) => {
    const m = e.data;
    if (m && typeof m === 'object' && typeof (m as { type?: unknown }).type === 'string') handler(m);
  });
}

document.addEventListener('securitypolicyviolation', (e) => {
  post({ type: 'cspViolation', directive: e.violatedDirective, blocked: String(e.blockedURI || e.sample || '') });
});

type Child = Node | string | null | undefined | false;

/** `h('div', { class: 'x' }, 'text', child)`: attributes are set as attributes, strings as text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) append(el, c);
  return el;
}

/** A custom element (vscode-elements) by name. */
export function x(tag: string, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) append(el, c);
  return el;
}

export function append(parent: Node, c: Child): void {
  if (c === null || c === undefined || c === false) return;
  parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
}

export function icon(name: string, label?: string): HTMLElement {
  const el = h('span', { class: `codicon codicon-${name}`, 'aria-hidden': label ? undefined : 'true', role: label ? 'img' : undefined, 'aria-label': label });
  return el;
}

export const EDGE_TIERS = ['resolved', 'observed', 'inferred', 'ambiguous', 'dynamic'] as const;
export type EdgeTierName = (typeof EDGE_TIERS)[number];

export const EDGE_TIER_INFO: Record<EdgeTierName, { icon: string; meaning: string }> = {
  resolved: { icon: 'pass-filled', meaning: 'a type checker or compiler confirmed it — safe to act on' },
  observed: { icon: 'pulse', meaning: 'a real execution produced it (trace, test run) — ground truth for the paths it covers' },
  inferred: { icon: 'search', meaning: 'matched by name only — probably right, verify before acting' },
  ambiguous: { icon: 'question', meaning: 'several candidates share the name — all are listed, none chosen' },
  dynamic: { icon: 'zap', meaning: 'computed at run time, undecidable statically — recorded, never dropped' },
};

export const LINK_TIER_INFO: Record<string, { icon: string; meaning: string }> = {
  exact: { icon: 'pass-filled', meaning: 'the document names it verbatim' },
  strong: { icon: 'link', meaning: 'the document names it in other words' },
  weak: { icon: 'question', meaning: 'a concept spanning several symbols — verify which one the text means' },
  unresolved: { icon: 'circle-slash', meaning: 'a real constraint no symbol denotes — kept, never matched to a nearest name' },
};

/** A tier chip: icon + word (never colour alone) with the tier's colour from the theme. */
export function tierChip(tier: string, kind: 'edge' | 'link' | 'rule' | 'outcome' = 'edge', title?: string): HTMLElement {
  const info = kind === 'edge' ? EDGE_TIER_INFO[tier as EdgeTierName] : kind === 'link' ? LINK_TIER_INFO[tier] : undefined;
  return h(
    'span',
    { class: `tier-chip ${kind}-tier tier-${tier}`, title: title ?? (info ? `${tier}: ${info.meaning}` : tier), 'data-tier': tier },
    icon(info?.icon ?? 'circle-filled'),
    ' ',
    tier,
  );
}

/** The workspace-relative location as a link that opens the editor there. */
export function siteLink(path: string, line: number, col?: number, text?: string): HTMLElement {
  const a = h('a', { href: '#', class: 'site-link', title: `Open ${path}:${line}`, 'data-path': path, 'data-line': line }, text ?? `${path}:${line}`);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    post({ type: 'open', path, line, ...(col !== undefined ? { col } : {}) });
  });
  return a;
}

export function urlLink(url: string, text: string): HTMLElement {
  const a = h('a', { href: '#', class: 'url-link', title: url }, text);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    post({ type: 'openUrl', url });
  });
  return a;
}

/** A button that runs an action; real <button> elements so Tab and Enter work without extra code. */
export function actionButton(label: string, codicon: string, onClick: () => void, secondary = false): HTMLElement {
  const b = x('vscode-button', { ...(secondary ? { secondary: true } : {}), icon: codicon }, label);
  b.addEventListener('click', onClick);
  return b;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Sets the tiers' colours for the active theme kind (tierStyle.ts) as CSS variables on the body; chips, rows and the graph read them. */
export function applyTierPalette(): void {
  const kind = themeKindOf(document.body.getAttribute('data-vscode-theme-kind'), Array.from(document.body.classList));
  for (const [tier, colour] of Object.entries(TIER_PALETTE[kind])) document.body.style.setProperty(`--tenure-tier-${tier}`, colour);
  document.body.dataset['tenureThemeKind'] = kind;
}

/** A short sample of a tier's line (solid, double, dashed, dotted, dash-dot) in its colour, as the graph draws it. */
export function tierLine(tier: TierName): SVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', `tier-line tier-${tier}`);
  svg.setAttribute('width', '28');
  svg.setAttribute('height', '10');
  svg.setAttribute('aria-hidden', 'true');
  const stroke = TIER_STROKE[tier];
  const ys = stroke.style === 'double' ? [3, 7] : [5];
  for (const y of ys) {
    const line = document.createElementNS(ns, 'line');
    line.setAttribute('x1', '1');
    line.setAttribute('x2', '27');
    line.setAttribute('y1', String(y));
    line.setAttribute('y2', String(y));
    line.setAttribute('stroke', 'currentColor');
    line.setAttribute('stroke-width', stroke.style === 'double' ? '1.5' : '2');
    if (stroke.dash.length) line.setAttribute('stroke-dasharray', stroke.dash.join(' '));
    svg.appendChild(line);
  }
  return svg;
}
