/*
 * How each edge tier is drawn: a hue and a line style, so that a tier is told
 * apart without colour (a dashed line is "inferred" in any theme and to any
 * eye) and without the line (a chip's colour and word). The hues are the
 * Okabe–Ito colour-blind-safe set (bluish green, blue, orange, reddish
 * purple, and a near-neutral for dynamic), tuned per theme kind so that every
 * one reaches 4.5:1 against the editor background of VS Code's default
 * light, dark and high-contrast themes and every pair stays at least 20
 * CIELAB units apart under simulated protanopia, deuteranopia and
 * tritanopia (test/unit/webview.impact.test.ts checks both). No DOM here: the panels apply it, the tests read it.
 */

export type ThemeKind = 'light' | 'dark' | 'hc-dark' | 'hc-light';
export type TierName = 'resolved' | 'observed' | 'inferred' | 'ambiguous' | 'dynamic';

export const TIER_PALETTE: Readonly<Record<ThemeKind, Readonly<Record<TierName, string>>>> = {
  light: { resolved: '#008351', observed: '#09488b', inferred: '#885e00', ambiguous: '#b84e8a', dynamic: '#4c4c4c' },
  dark: { resolved: '#54e3ab', observed: '#38a0eb', inferred: '#f0a640', ambiguous: '#f1ade5', dynamic: '#9d8984' },
  'hc-dark': { resolved: '#4bd898', observed: '#b0ccff', inferred: '#e99700', ambiguous: '#d98db6', dynamic: '#fee8f3' },
  'hc-light': { resolved: '#36804d', observed: '#00448a', inferred: '#855708', ambiguous: '#821358', dynamic: '#2d1b1e' },
};

/** The editor background of VS Code's default theme of each kind (Light Modern, Dark Modern, the two high-contrast themes). */
export const THEME_BACKGROUND: Readonly<Record<ThemeKind, string>> = { light: '#ffffff', dark: '#1f1f1f', 'hc-dark': '#000000', 'hc-light': '#ffffff' };

/**
 * The line of each tier: the graph's edges (cytoscape: solid, double,
 * dashed, dotted; a dash pattern in px) and the legend's swatches (SVG
 * stroke-dasharray). Strongest evidence draws the calmest line.
 */
export const TIER_STROKE: Readonly<Record<TierName, { readonly style: 'solid' | 'double' | 'dashed' | 'dotted'; readonly dash: readonly number[]; readonly words: string }>> = {
  resolved: { style: 'solid', dash: [], words: 'solid line' },
  observed: { style: 'double', dash: [], words: 'double line' },
  inferred: { style: 'dashed', dash: [7, 4], words: 'dashed line' },
  ambiguous: { style: 'dotted', dash: [1.5, 3], words: 'dotted line' },
  dynamic: { style: 'dashed', dash: [8, 3, 1.5, 3], words: 'dash-dot line' },
};

/** The theme kind VS Code announces on a webview's body (`data-vscode-theme-kind`, else its classes). */
export function themeKindOf(kindAttr: string | null | undefined, classes: readonly string[]): ThemeKind {
  const k = kindAttr ?? classes.find((c) => c.startsWith('vscode-')) ?? '';
  if (k === 'vscode-high-contrast-light' || classes.includes('vscode-high-contrast-light')) return 'hc-light';
  if (k === 'vscode-high-contrast' || classes.includes('vscode-high-contrast')) return 'hc-dark';
  if (k === 'vscode-light') return 'light';
  return 'dark';
}

/** WCAG 2 relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1–21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

export function rgb(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim());
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}
