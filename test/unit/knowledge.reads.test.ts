import * as assert from 'node:assert/strict';
import { knowledgeOverview, knowledgeTotals } from '../../src/core/knowledge/status.js';
import { documentsNaming } from '../../src/core/knowledge/store/links.js';
import { CORE_MIGRATIONS } from '../../src/core/store/migrations.js';
import { Workspace } from '../../src/core/store/workspace.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { STRUCTURAL_MIGRATIONS } from '../../src/core/structural/schema.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { filledExample, type FilledExample } from '../helpers/example.js';
import { tempDir, write } from '../helpers/fixtures.js';

/* The knowledge reads behind the editor's CodeLens, hover, sidebar and status view, on the settlement example and on empty memories. */

describe('knowledge reads for the editor (examples/settlement)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let ex: FilledExample;

  before(async () => {
    ex = await filledExample({ knowledge: true });
    ws = ex.ws;
  });
  after(async () => {
    await ex.close();
  });

  it('lists documents by kind and communities with their reports', async () => {
    const k = await knowledgeOverview(ws.db);
    assert.ok(k.documents.some((d) => d.ref === 'ADR-0007'), JSON.stringify(k.documents.map((d) => d.ref ?? d.title)));
    assert.ok(k.communities.length > 0);
    assert.ok(k.communities.some((c) => c.title), 'communities carry their report titles');
    assert.equal(typeof k.indexedAt, 'number');
    assert.ok(Object.values(k.links).every((n) => n > 0) && Object.keys(k.links).length > 0, JSON.stringify(k.links));
    const kinds = k.documents.map((d) => d.kind);
    assert.deepEqual(kinds, [...kinds].sort(), 'documents ordered by kind');
    for (let i = 1; i < k.communities.length; i++) assert.ok(k.communities[i - 1]!.level <= k.communities[i]!.level, 'broadest level first');
  });

  it('counts documents and communities as the overview lists them', async () => {
    const t = await knowledgeTotals(ws.db);
    const k = await knowledgeOverview(ws.db);
    assert.ok(t.documents > 3, JSON.stringify(t));
    assert.equal(t.documents, k.documents.length);
    assert.equal(t.communities, k.communities.length);
  });

  it('names the decision records and post-mortems that reach a symbol or its type', async () => {
    const retry = await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root });
    const type = await resolveOneSymbol(ws.db, 'SettlementService', { root: ws.root });
    const named = await documentsNaming(ws.db, [retry.sid, type.sid, 'no such symbol']);
    const decisions = new Set([...(named.get(retry.sid)?.decisions ?? []), ...(named.get(type.sid)?.decisions ?? [])]);
    const incidents = new Set([...(named.get(retry.sid)?.incidents ?? []), ...(named.get(type.sid)?.incidents ?? [])]);
    const docs = (await knowledgeOverview(ws.db)).documents;
    const adr = docs.find((d) => d.ref === 'ADR-0007')!;
    assert.ok(decisions.has(adr.id), `ADR-0007 (${adr.id}) among ${[...decisions].join(', ')}`);
    assert.ok(incidents.size >= 1, 'a post-mortem reaches it');
    for (const id of incidents) assert.equal(docs.find((d) => d.id === id)?.kind, 'postmortem');
    for (const id of decisions) assert.ok(['adr', 'rfc', 'design'].includes(docs.find((d) => d.id === id)!.kind));
    assert.equal(named.has('no such symbol'), false);
    assert.deepEqual(await documentsNaming(ws.db, []), new Map());
  });
});

describe('knowledge reads for the editor (empty memories)', function () {
  this.timeout(60_000);

  async function assertEmpty(ws: Workspace): Promise<void> {
    assert.deepEqual(await knowledgeOverview(ws.db), { indexedAt: null, documents: [], communities: [], links: {} });
    assert.deepEqual(await knowledgeTotals(ws.db), { documents: 0, communities: 0 });
    assert.deepEqual(await documentsNaming(ws.db, ['ts a/a().']), new Map());
  }

  it('answers empty before the knowledge memory is built', async () => {
    const t = tempDir();
    try {
      write(t.root, 'src/a.ts', 'export function a(): number {\n  return 1;\n}\n');
      const ws = await openWorkspace(t.root);
      try {
        await assertEmpty(ws);
      } finally {
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  });

  it('answers empty on a database without the knowledge tables', async () => {
    const t = tempDir();
    try {
      const ws = await Workspace.open(t.root, { schema: [...CORE_MIGRATIONS, ...STRUCTURAL_MIGRATIONS] });
      try {
        await assertEmpty(ws);
      } finally {
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
