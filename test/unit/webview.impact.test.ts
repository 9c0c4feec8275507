import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { filterRows, graphRows, groupRows, isGeneratedPath, layoutGraph, overlaps, rowsOf } from '../../src/webview/impactModel.js';
import { TIER_PALETTE, TIER_STROKE, THEME_BACKGROUND, contrast, rgb, themeKindOf, type ThemeKind, type TierName } from '../../src/webview/tierStyle.js';
import { REPO_ROOT, copyExample } from '../helpers/fixtures.js';

/*
 * The impact panel's model on the settlement example with a thousand callers
 * of SettlementService.retry added (test/e2e/scaleWorkspace.mjs, the same
 * load the e2e opens in a real VS Code): the tree lists direct dependents
 * first and folds generated code, the filter finds one caller among them,
 * the graph draws its top rows in layers without one label over another.
 * And the tiers' colours: 4.5:1 on each default theme's background, told
 * apart by hue under simulated colour blindness, and by line style anyway.
 */

interface Scale {
  symbol: string;
  directCallers: number;
  generatedDirect: number;
  twoHop: number;
  generatedTwoHop: number;
  files: number;
}

describe('impact panel at scale (examples/settlement + 1,000 callers of retry)', function () {
  this.timeout(300_000);
  let ws: Workspace;
  let cleanup: () => void;
  let scale: Scale;
  let result: WhatBreaksResult;
  let queryMs: number;

  before(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const mod = (await import(pathToFileURL(path.join(REPO_ROOT, 'test', 'e2e', 'scaleWorkspace.mjs')).href)) as { writeScaleWorkspace: (root: string) => Scale };
    scale = mod.writeScaleWorkspace(ex.root);
    ws = await openWorkspace(ex.root);
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    const target = await resolveOneSymbol(ws.db, scale.symbol, { root: ws.root });
    const t0 = performance.now();
    result = await whatBreaks(ws.db, target, 2);
    queryMs = performance.now() - t0;
  });
  after(async () => {
    await ws?.close();
    cleanup?.();
  });

  it('the tree lists the direct dependents first, then the second hop, with generated code folded apart in each', () => {
    assert.equal(scale.directCallers, 1000);
    const rows = rowsOf(result);
    const groups = groupRows(rows, 'file');
    assert.deepEqual(
      groups.map((g) => g.distance),
      [1, 2],
    );
    const [direct, second] = groups as [(typeof groups)[0], (typeof groups)[0]];
    // The load's 1,000 callers plus the example's own (its nightly batch, allocation service, settle's self-call and the dynamic site).
    assert.ok(direct.count >= scale.directCallers && direct.count < scale.directCallers + 20, `direct: ${direct.count}`);
    assert.equal(direct.generatedCount, scale.generatedDirect);
    assert.ok(direct.generated.every((b) => b.rows.every((r) => r.generated && /\/generated\//.test(r.path))));
    assert.ok(direct.buckets.every((b) => b.rows.every((r) => !r.generated)));
    // Files with the most dependents first; every row of a file bucket is in that file.
    assert.ok(direct.buckets.every((b, i, all) => i === 0 || all[i - 1]!.rows.length >= b.rows.length));
    assert.ok(direct.buckets.every((b) => b.rows.every((r) => r.path === b.title)));
    assert.ok(second.count >= scale.twoHop - scale.generatedTwoHop, `two hops: ${second.count}`);
    assert.equal(second.generatedCount, scale.generatedTwoHop);
    // Every row keeps its tier; grouping by tier puts each row under its own.
    const byTier = groupRows(rows, 'tier');
    for (const g of byTier) for (const b of [...g.buckets, ...g.generated]) assert.ok(b.rows.every((r) => r.tier === b.tier), b.key);
    assert.equal(
      byTier.reduce((a, g) => a + g.count, 0),
      rows.length,
    );
  });

  it('the filter box finds one caller among a thousand, by name or by file', () => {
    const rows = rowsOf(result);
    const byName = filterRows(rows, 'settleF03M07N05');
    assert.deepEqual(
      byName.map((r) => [r.label, r.distance]),
      [['settleF03M07N05', 1]],
    );
    const byFile = filterRows(rows, 'feature03/module07');
    assert.equal(byFile.filter((r) => r.distance === 1).length, 10);
    assert.ok(filterRows(rows, 'NightlyBatch').length >= 1, 'the example’s own caller is there too');
    assert.equal(filterRows(rows, '').length, rows.length);
  });

  it('the graph draws the top 25 (hand-written, direct first), in layers, with no label over another, and "show more" adds the next', () => {
    const rows = rowsOf(result);
    const top = graphRows(rows, 25);
    assert.equal(top.length, 25);
    assert.ok(top.every((r) => !r.generated && r.distance === 1), 'direct hand-written dependents first');
    const laid = layoutGraph(result.target.qname, top);
    assert.equal(laid.nodes.length, 26);
    assert.deepEqual(overlaps(laid.nodes), []);
    // Layered: every dependent is left of the target it points at.
    const target = laid.nodes.find((n) => n.id === 'target')!;
    assert.ok(laid.nodes.every((n) => n.id === 'target' || n.x < target.x));
    // Farther rows join only once the dependent they go through is drawn.
    const more = graphRows(rows, 400);
    const drawn = new Set(more.map((r) => r.label.split('.').pop()));
    assert.ok(more.every((r) => !r.via || drawn.has(r.via)));
    const big = layoutGraph(result.target.qname, more.slice(0, 150));
    assert.deepEqual(overlaps(big.nodes), []);
  });

  it('a thousand dependents are modelled and laid out in well under the panel’s second', () => {
    const t0 = performance.now();
    const rows = rowsOf(result);
    groupRows(rows, 'file');
    filterRows(rows, 'module07');
    layoutGraph(result.target.qname, graphRows(rows, 25));
    const ms = performance.now() - t0;
    console.log(`      what_breaks ${Math.round(queryMs)} ms; model and layout of ${rows.length} rows ${Math.round(ms)} ms`);
    assert.ok(ms < 500, `${ms} ms`);
  });

  it('generated code is recognised by its path, not by its name', () => {
    for (const p of ['src/load/generated/feature09/client06.generated.ts', 'api/__generated__/types.ts', 'proto/ledger_pb2.py', 'x/ledger.pb.go', 'lib/parser.g.dart']) assert.ok(isGeneratedPath(p), p);
    for (const p of ['src/settlement/SettlementService.ts', 'src/generator.ts', 'docs/generated-code.md', 'src/regenerate/run.ts']) assert.ok(!isGeneratedPath(p), p);
  });
});

describe('tier colours and lines', () => {
  const tiers = Object.keys(TIER_STROKE) as TierName[];
  const kinds = Object.keys(TIER_PALETTE) as ThemeKind[];

  it('every tier reaches 4.5:1 against the editor background of each default theme (light, dark, both high-contrast)', () => {
    for (const k of kinds) for (const t of tiers) assert.ok(contrast(TIER_PALETTE[k][t], THEME_BACKGROUND[k]) >= 4.5, `${t} in ${k}: ${contrast(TIER_PALETTE[k][t], THEME_BACKGROUND[k]).toFixed(2)}`);
  });

  it('every tier has its own line style, so no tier depends on colour alone', () => {
    const keys = tiers.map((t) => `${TIER_STROKE[t].style}:${TIER_STROKE[t].dash.join(',')}`);
    assert.equal(new Set(keys).size, tiers.length);
  });

  it('inferred and ambiguous (and every other pair) stay apart in hue under simulated protanopia, deuteranopia and tritanopia', () => {
    // Machado, Oliveira and Fernandes (2009), severity 1.0, applied in linear RGB; distance in CIELAB (ΔE*76).
    const sims: Record<string, number[][]> = {
      none: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
      protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
      deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
      tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
    };
    const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    const lab = (l: number[]) => {
      const [r, g, b] = l.map((v) => Math.min(1, Math.max(0, v))) as [number, number, number];
      const X = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
      const Y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      const Z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
      const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
      return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))] as const;
    };
    const worst: string[] = [];
    for (const k of kinds) {
      for (const [sim, m] of Object.entries(sims)) {
        const labs = tiers.map((t) => {
          const l = rgb(TIER_PALETTE[k][t]).map(lin);
          return lab(m.map((row) => row[0]! * l[0]! + row[1]! * l[1]! + row[2]! * l[2]!));
        });
        for (let i = 0; i < tiers.length; i++) {
          for (let j = i + 1; j < tiers.length; j++) {
            const d = Math.hypot(labs[i]![0] - labs[j]![0], labs[i]![1] - labs[j]![1], labs[i]![2] - labs[j]![2]);
            if (d < 20) worst.push(`${k}/${sim}: ${tiers[i]} vs ${tiers[j]} ΔE ${d.toFixed(1)}`);
          }
        }
      }
    }
    assert.deepEqual(worst, []);
  });

  it('the theme kind is read from the webview body VS Code sets', () => {
    assert.equal(themeKindOf('vscode-light', ['vscode-light']), 'light');
    assert.equal(themeKindOf(null, ['vscode-dark']), 'dark');
    assert.equal(themeKindOf('vscode-high-contrast', ['vscode-high-contrast']), 'hc-dark');
    assert.equal(themeKindOf('vscode-high-contrast-light', ['vscode-high-contrast', 'vscode-high-contrast-light']), 'hc-light');
  });
});
