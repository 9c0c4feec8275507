import * as assert from 'node:assert/strict';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import type { Workspace } from '../../src/core/store/workspace';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { indexedFiles, type FilledExample } from '../helpers/example';

/* The README of the folder a symbol sits in says what the code there is for: a source for why_is_this, weak (it spans the folder), never the repository's own README. */

describe("knowledge: the README of a symbol's folder", function () {
  this.timeout(120_000);
  let fx: FilledExample;
  let ws: Workspace;

  before(async () => {
    fx = await indexedFiles({
      'package.json': '{"name":"cdk"}\n',
      'README.md': '# Library\n\nThe library provides constructs and patterns for every stack we deploy, and it is released every week.\n',
      'src/experimental/README.md': '# Experimental\n\nAnything in this directory is in the early phase of development and does not guarantee a stable API between versions, so that patterns can change while we learn from the teams that try them.\n',
      'src/experimental/patterns/app.ts': 'export class AppExperimental {\n  run(): number {\n    return 1;\n  }\n}\n',
      'src/tools/README.md': '# Tools\n\nThe tools here are small scripts for the release.\n',
      'src/tools/bump.ts': 'export function bumpVersion(v: number): number {\n  return v + 1;\n}\n',
      'src/stable/app.ts': 'export class StableApp {\n  run(): number {\n    return 2;\n  }\n}\n',
    });
    ws = fx.ws;
    const report = await indexKnowledge(ws, {});
    assert.equal(report.status, 'done', report.message);
  });
  after(() => fx.close());

  it('quotes the nearest README above the symbol, weak for it, with why it was reached', async () => {
    const target = await resolveOneSymbol(ws.db, 'AppExperimental', { root: ws.root });
    const r = await whyIsThisTool.invoke({ workspace: ws }, { symbol: target.sid });
    const data = r.data as { documents: { where?: string; tier: string; relation: string; how: string; gives: string }[] };
    const readme = data.documents.find((d) => d.where === 'src/experimental/README.md');
    assert.ok(readme, r.text);
    assert.equal(readme.tier, 'weak');
    assert.equal(readme.relation, 'self');
    assert.match(readme.how, /README of its folder src\/experimental\//);
    assert.equal(readme.gives, 'reason');
    assert.ok(r.text.includes('does not guarantee a stable API between versions'), r.text);
    assert.ok(!data.documents.some((d) => d.where === 'README.md'), "the repository's own README is not about every symbol");
  });

  it('a README that neither names nor explains the symbol is said to give no reason, not to name it', async () => {
    const target = await resolveOneSymbol(ws.db, 'bumpVersion', { root: ws.root });
    const r = await whyIsThisTool.invoke({ workspace: ws }, { symbol: target.sid });
    const data = r.data as { documents: { where?: string; gives: string }[] };
    const readme = data.documents.find((d) => d.where === 'src/tools/README.md');
    assert.ok(readme, r.text);
    assert.equal(readme.gives, 'context');
    const line = r.text.split('\n').find((l) => l.includes('src/tools/README.md'));
    assert.ok(line?.endsWith('— gives no reason') && !line.includes('names it'), r.text);
  });

  it('a symbol in a folder without a README of its own gets none (the root one does not count)', async () => {
    const target = await resolveOneSymbol(ws.db, 'StableApp', { root: ws.root });
    const r = await whyIsThisTool.invoke({ workspace: ws }, { symbol: target.sid });
    const data = r.data as { documents: { where?: string }[] };
    assert.ok(!data.documents.some((d) => d.where?.endsWith('README.md')), r.text);
  });
});
