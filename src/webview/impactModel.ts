import type * as Dagre from '@dagrejs/dagre' with { 'resolution-mode': 'import' };
import type { Dependent, WhatBreaksResult } from '../core/structural/impact/result.js';

/*
 * What the impact panel shows, as plain data: one row per dependent, the
 * tree it is listed in (direct dependents first, then by hop; within a hop by
 * file or by tier; generated code folded apart), the filter, and the graph's
 * top rows laid out in layers so that no two labels overlap. No DOM: the
 * panel (impact.ts) draws it, and test/unit/webview.impact.test.ts checks it
 * on a workspace with a thousand dependents.
 */

export const TIER_ORDER = ['resolved', 'observed', 'inferred', 'ambiguous', 'dynamic'] as const;

export interface Row {
  readonly key: string;
  readonly tier: string;
  readonly label: string;
  readonly kind: string;
  /** What it does to the target, said once ("calls it"). */
  readonly verb: string;
  /** Why the edge is believed, from its source (shown folded). */
  readonly reason: string;
  readonly source: string;
  readonly path: string;
  readonly line: number;
  readonly col: number;
  readonly distance: number;
  readonly via: string | null;
  readonly group: 'dependent' | 'implementation' | 'dispatch' | 'dynamic';
  readonly sites: number;
  /** Generated code (by its path, or a generator the index knows wrote it): folded apart, left out of the graph. */
  readonly generated: boolean;
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
  read: 'reads it',
  write: 'writes it',
};

/**
 * Paths generators write by convention: a `generated` or `__generated__`
 * folder, `*.generated.*`, `*.g.*`, protobuf and gRPC outputs, `*_gen.go`.
 */
const GENERATED_PATH = /(^|\/)(__generated__|generated|gen-src)\/|\.(generated|g)\.[a-z]+$|_pb2(_grpc)?\.py$|\.pb(\.gw)?\.go$|_gen\.go$|\.pb\.(ts|js)$/i;

export function isGeneratedPath(path: string): boolean {
  return GENERATED_PATH.test(path);
}

export function rowsOf(r: WhatBreaksResult): Row[] {
  const rows: Row[] = [];
  const dep = (d: Dependent, group: Row['group']): Row => {
    const path = d.sites[0]?.path ?? d.symbol.path;
    return {
      key: `${group}:${d.symbol.sid}:${d.kind}`,
      tier: d.tier,
      label: d.symbol.qname,
      kind: d.kind,
      verb: VERB[d.kind] ?? d.kind,
      reason: d.provenance.reason,
      source: d.provenance.source,
      path,
      line: d.sites[0]?.line ?? d.symbol.line,
      col: d.sites[0]?.col ?? 0,
      distance: d.distance,
      via: d.distance > 1 ? d.via.name : null,
      group,
      sites: d.sites.length,
      generated: isGeneratedPath(d.symbol.path) || /^\[generated|^generated from/.test(d.provenance.reason),
      ...(d.candidates?.length ? { candidates: d.candidates } : {}),
    };
  };
  for (const d of r.dependents) rows.push(dep(d, 'dependent'));
  for (const d of r.implementers) rows.push(dep(d, 'implementation'));
  for (const d of r.dispatches) {
    rows.push({
      key: `dispatch:${d.caller.sid}:${d.site.line}`,
      tier: d.resolution === 'resolved' ? 'resolved' : d.tier === 'resolved' ? 'inferred' : d.tier,
      label: d.caller.qname,
      kind: 'dispatch',
      verb: `calls ${d.through.qname}, which may dispatch here`,
      reason: `${d.resolution} dispatch`,
      source: 'dispatch',
      path: d.site.path,
      line: d.site.line,
      col: d.site.col,
      distance: 1,
      via: null,
      group: 'dispatch',
      sites: 1,
      generated: isGeneratedPath(d.site.path),
    });
  }
  for (const d of r.dynamicSites) {
    rows.push({
      key: `dynamic:${d.owner.sid}:${d.site.line}`,
      tier: 'dynamic',
      label: d.owner.qname,
      kind: 'dynamic',
      verb: 'may reach it at run time',
      reason: d.reason,
      source: 'dynamic',
      path: d.site.path,
      line: d.site.line,
      col: d.site.col,
      distance: 1,
      via: null,
      group: 'dynamic',
      sites: 1,
      generated: isGeneratedPath(d.site.path),
    });
  }
  return rows;
}

const tierRank = (t: string): number => {
  const i = (TIER_ORDER as readonly string[]).indexOf(t);
  return i < 0 ? TIER_ORDER.length : i;
};

/** Nearest first, then strongest tier, then by file and line. */
export function compareRows(a: Row, b: Row): number {
  return a.distance - b.distance || tierRank(a.tier) - tierRank(b.tier) || a.path.localeCompare(b.path) || a.line - b.line || a.label.localeCompare(b.label);
}

/** Rows whose name, file, verb or reason hold every word of the query (case-insensitive); an empty query keeps all. */
export function filterRows(rows: readonly Row[], query: string): Row[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...rows];
  return rows.filter((r) => {
    const hay = `${r.label}\n${r.path}\n${r.verb}\n${r.reason}\n${r.tier}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export interface Bucket {
  readonly key: string;
  /** A file path, or a tier name. */
  readonly title: string;
  readonly tier?: string;
  readonly rows: readonly Row[];
}

export interface HopGroup {
  readonly key: string;
  readonly distance: number;
  readonly title: string;
  readonly count: number;
  /** Hand-written code, bucketed. */
  readonly buckets: readonly Bucket[];
  /** Generated code of this hop, bucketed the same way, folded by default. */
  readonly generated: readonly Bucket[];
  readonly generatedCount: number;
}

export type GroupBy = 'file' | 'tier';

function bucketsOf(rows: readonly Row[], by: GroupBy, prefix: string): Bucket[] {
  const map = new Map<string, Row[]>();
  for (const r of rows) {
    const k = by === 'file' ? r.path : r.tier;
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  const out = [...map.entries()].map(([k, list]) => ({ key: `${prefix}:${k}`, title: k, ...(by === 'tier' ? { tier: k } : {}), rows: list.sort(compareRows) }));
  // Files with the most dependents first (ties by path); tiers strongest first.
  return by === 'file' ? out.sort((a, b) => b.rows.length - a.rows.length || a.title.localeCompare(b.title)) : out.sort((a, b) => tierRank(a.title) - tierRank(b.title));
}

/** The tree: one group per hop (1 = direct), each bucketed by file or tier, generated code apart. */
export function groupRows(rows: readonly Row[], by: GroupBy): HopGroup[] {
  const hops = [...new Set(rows.map((r) => r.distance))].sort((a, b) => a - b);
  return hops.map((distance) => {
    const inHop = rows.filter((r) => r.distance === distance);
    const hand = inHop.filter((r) => !r.generated);
    const gen = inHop.filter((r) => r.generated);
    return {
      key: `hop${distance}`,
      distance,
      title: distance === 1 ? 'Direct dependents' : `${distance} hops away`,
      count: inHop.length,
      buckets: bucketsOf(hand, by, `hop${distance}`),
      generated: bucketsOf(gen, by, `hop${distance}:gen`),
      generatedCount: gen.length,
    };
  });
}

/**
 * The rows the graph draws, at most `limit`: hand-written code before
 * generated, nearest first, strongest tier first; a row farther than one hop
 * only once the dependent it goes through is drawn (so every drawn edge ends
 * at a drawn node, never silently at the target).
 */
export function graphRows(rows: readonly Row[], limit: number): Row[] {
  const sorted = [...rows].sort((a, b) => Number(a.generated) - Number(b.generated) || compareRows(a, b));
  const out: Row[] = [];
  const names = new Set<string>();
  const shortName = (q: string) => q.split('.').pop() ?? q;
  let progress = true;
  const left = new Set(sorted);
  while (out.length < limit && progress) {
    progress = false;
    for (const r of sorted) {
      if (out.length >= limit) break;
      if (!left.has(r)) continue;
      if (r.via && !names.has(r.via)) continue;
      out.push(r);
      left.delete(r);
      names.add(shortName(r.label));
      progress = true;
    }
  }
  return out;
}

/** A short label for a graph node: the last two parts of a qualified name. */
export function nodeLabel(qname: string): string {
  const parts = qname.split('.');
  return parts.length > 2 ? parts.slice(-2).join('.') : qname;
}

export interface LaidNode {
  readonly id: string;
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly tier: string;
  readonly row?: Row;
}

export interface LaidEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly tier: string;
}

// dagre's CommonJS build: the tests run this module in node, esbuild bundles the same file into the panel.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Graph, layout } = require('@dagrejs/dagre') as typeof Dagre;

/** Label widths are estimated from the font (px per character): dagre keeps the boxes apart, so the labels cannot overlap. */
export const NODE_FONT_PX = 11;
const CHAR_PX = NODE_FONT_PX * 0.62;
const NODE_HEIGHT = 20;

/**
 * Dependents to the left, the target on the right, one layer per hop
 * (dagre's layered layout). Each node is a box as wide as its label.
 */
export function layoutGraph(targetQname: string, rows: readonly Row[]): { nodes: LaidNode[]; edges: LaidEdge[]; width: number; height: number } {
  const g = new Graph({ multigraph: false });
  // longest-path ranks by hop already; network-simplex cost hundreds of ms at 50 nodes and moved nothing in a graph this shape.
  g.setGraph({ rankdir: 'LR', nodesep: 6, ranksep: 60, marginx: 8, marginy: 8, ranker: 'longest-path' });
  g.setDefaultEdgeLabel(() => ({}));
  const box = (label: string) => ({ width: Math.ceil(label.length * CHAR_PX) + 16, height: NODE_HEIGHT });
  const targetLabel = nodeLabel(targetQname);
  g.setNode('target', { label: targetLabel, ...box(targetLabel) });
  const idOf = new Map<string, string>();
  const rowOf = new Map<string, Row>();
  rows.forEach((r, i) => {
    const id = `n${i}`;
    const label = nodeLabel(r.label);
    g.setNode(id, { label, ...box(label) });
    rowOf.set(id, r);
    if (!idOf.has(r.label.split('.').pop() ?? r.label)) idOf.set(r.label.split('.').pop() ?? r.label, id);
  });
  const edges: LaidEdge[] = [];
  rows.forEach((r, i) => {
    const src = `n${i}`;
    const dst = (r.via && idOf.get(r.via)) || 'target';
    if (dst === src) return;
    g.setEdge(src, dst);
    edges.push({ id: `e${i}`, source: src, target: dst, tier: r.tier });
  });
  layout(g);
  const nodes: LaidNode[] = g.nodes().map((id: string) => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number; label: string };
    const row = rowOf.get(id);
    return { id, label: n.label, x: n.x, y: n.y, width: n.width, height: n.height, tier: row?.tier ?? 'target', ...(row ? { row } : {}) };
  });
  const gl = g.graph() as { width?: number; height?: number };
  return { nodes, edges, width: gl.width ?? 0, height: gl.height ?? 0 };
}

/** Pairs of node boxes that overlap (what the layout must never produce). */
export function overlaps(nodes: readonly LaidNode[]): [string, string][] {
  const out: [string, string][] = [];
  const sorted = [...nodes].sort((a, b) => a.x - a.width / 2 - (b.x - b.width / 2));
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      if (b.x - b.width / 2 >= a.x + a.width / 2) break;
      if (Math.abs(a.y - b.y) < (a.height + b.height) / 2) out.push([a.id, b.id]);
    }
  }
  return out;
}
