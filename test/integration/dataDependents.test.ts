import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../../src/core/store/workspace.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol, resolveSymbols } from '../../src/core/structural/lookup.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { REPO_ROOT, tempDir, write } from '../helpers/fixtures.js';

/*
 * Data dependents (reads and writes), configuration keys, honest calls and
 * identity, on test/fixtures/data: TypeScript, Python, Java, Go, a YAML file
 * and a .env file. Every edge kind and case is asserted with its tier.
 */

describe('data dependents, configuration keys and honest calls (test/fixtures/data)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let root: string;
  let cleanup: () => void;

  before(async () => {
    const dir = tempDir('tenure-data-');
    root = dir.root;
    cleanup = dir.cleanup;
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'data'), root, { recursive: true });
    ws = await openWorkspace(root);
    const indexer = await StructuralIndexer.create(ws);
    try {
      await indexer.indexAll();
    } finally {
      await indexer.dispose();
    }
  });
  after(async () => {
    await ws.close();
    cleanup();
  });

  const ask = async (name: string, depth = 1): Promise<WhatBreaksResult> => whatBreaks(ws.db, await resolveOneSymbol(ws.db, name, { root }), depth);
  /** `<dependent> <kind> <tier>`, sorted: what each dependent does to the target and how far to trust it. */
  const uses = (r: WhatBreaksResult, distance = 1) =>
    r.dependents
      .filter((d) => d.distance === distance)
      .map((d) => `${d.symbol.qname} ${d.kind} ${d.tier}`)
      .sort();

  describe('TypeScript', () => {
    it('a static read (`return Buffer.EMPTY`) is a reader, inferred through the type the receiver names', async () => {
      const r = await ask('Buffer.EMPTY');
      assert.deepEqual(uses(r), ['Buffer.empty read inferred']);
      assert.match(r.dependents[0]!.provenance.reason, /member of `Buffer`/);
      assert.match(r.summary, /^At least 1 dependent: 1 reader \(1 inferred\)/);
    });

    it('a constant as a parameter default, and as a super(...) argument, is read', async () => {
      const r = await ask('DEFAULT_LIMIT');
      assert.deepEqual(uses(r), ['Buffer.limit read inferred', 'CountingBuffer.constructor read inferred']);
    });

    it('an accessor is one property: `if (this.closed)` reads it, `this.closed = true` writes it; the setter is no overriding implementation of the getter', async () => {
      const symbols = await resolveSymbols(ws.db, 'Buffer.closed', { root });
      assert.equal(symbols.length, 1, 'getter and setter are one symbol');
      const r = await ask('Buffer.closed');
      assert.deepEqual(uses(r), ['Buffer.close write inferred', 'Buffer.flush read inferred']);
      assert.deepEqual(r.implementers, []);
      assert.match(r.summary, /1 writer \(1 inferred\), 1 reader \(1 inferred\)/);
    });

    it('reads through an interface property are dispatches to the accessor that implements it', async () => {
      const r = await ask('Buffer.closed');
      assert.deepEqual(r.dispatches.map((d) => `${d.caller.qname} ${d.kind} via ${d.through.qname} ${d.resolution}`), ['isDone read via Closable.closed unresolved']);
      assert.match(r.summary, /1 unresolved interface dispatch \(reads and writes through a base or interface property that may land here\)/);
      const base = await ask('Closable.closed');
      assert.deepEqual(uses(base), ['isDone read inferred']);
      assert.deepEqual(base.implementers.map((i) => `${i.symbol.qname} ${i.kind} ${i.tier}`), ['Buffer.closed overrides inferred']);
    });

    it('destructuring (`const { count } = this`) reads, `x.count += 1` on a typed parameter writes', async () => {
      const r = await ask('Buffer.count');
      assert.deepEqual(uses(r), ['Buffer.[Symbol.iterator] read inferred', 'Buffer.flush read inferred', 'bump write inferred']);
      assert.match(r.dependents.find((d) => d.symbol.qname === 'bump')!.provenance.reason, /receiver `x` is declared as `Buffer`/);
      assert.match(r.summary, /2 readers \(2 inferred\), 1 writer \(1 inferred\)/);
    });

    it('a call through a function-typed property is a read of the property, never a dispatch into a method', async () => {
      const r = await ask('Buffer.onClose');
      assert.deepEqual(uses(r), ['Buffer.flush read inferred']);
      assert.match(r.dependents[0]!.provenance.reason, /^called through the property `Buffer.onClose`/);
      assert.match(r.summary, /one reader calls it \(a function-typed property/);
      const rows = await ws.db.all<{ kind: string; binding: string | null }>("SELECT kind, binding FROM edges WHERE name = 'onClose'");
      assert.deepEqual(rows, [{ kind: 'read', binding: 'property-call' }]);
    });

    it('super.m() is a direct call of the base member, bound statically: no dispatch into the override', async () => {
      const base = await ask('Buffer.flush');
      const viaSuper = base.dependents.find((d) => d.symbol.qname === 'CountingBuffer.flush')!;
      assert.equal(`${viaSuper.kind} ${viaSuper.tier}`, 'call inferred');
      assert.match(viaSuper.provenance.reason, /statically bound: super/);
      const override = await ask('CountingBuffer.flush');
      assert.ok(!override.dispatches.some((d) => d.caller.qname === 'CountingBuffer.flush'), 'its own super call does not dispatch into it');
      assert.deepEqual(override.dispatches.map((d) => d.caller.qname), ['flushAll']);
    });

    it('super(...) calls the base constructor; new X() is a caller of the constructor, inside X too; a subclass constructor overrides nothing', async () => {
      const r = await ask('Buffer.constructor');
      assert.deepEqual(uses(r), ['Buffer.EMPTY call inferred', 'Buffer.fresh call inferred', 'CountingBuffer.constructor call inferred']);
      assert.deepEqual(r.implementers, []);
      const cls = await ask('Buffer');
      assert.ok(uses(cls).includes('Buffer.fresh instantiate inferred'), 'new Buffer() in its own member is a use of the class');
    });

    it('recursion is shown as recursion, not dropped', async () => {
      const r = await ask('countdown');
      assert.equal(r.dependents.length, 0);
      assert.deepEqual(r.recursion.map((s) => `${s.path}:${s.line}`), ['ts/use.ts:17']);
    });

    it('a call of a function from a helper declared inside it is recursion, not a caller', async () => {
      const r = await ask('walkDown');
      assert.deepEqual(uses(r), []);
      assert.deepEqual(r.recursion.map((s) => `${s.path}:${s.line}`), ['ts/use.ts:40']);
      const step = await ask('walkDown.step');
      assert.deepEqual(uses(step), ['walkDown call inferred'], 'the helper itself keeps its caller');
    });

    it('overloads are one symbol, and a call bound to any signature calls it', async () => {
      assert.equal((await resolveSymbols(ws.db, 'parse', { root })).length, 1);
      const r = await ask('parse');
      assert.deepEqual(uses(r), ['sum call inferred']);
      assert.equal(r.dependents[0]!.sites.length, 2);
    });

    it('an exact name wins over a suffix match: `Node` is the top-level class, not Checks.Node', async () => {
      const node = await resolveOneSymbol(ws.db, 'Node', { root });
      assert.equal(node.qname, 'Node');
      assert.equal((await resolveOneSymbol(ws.db, 'Checks.Node', { root })).qname, 'Checks.Node');
    });

    it('a computed-name member has a symbol and its callers: `b[Symbol.iterator]()`', async () => {
      const r = await ask('Buffer.[Symbol.iterator]');
      assert.deepEqual(uses(r), ['drain call inferred']);
      assert.deepEqual(r.recursion, [], 'an array literal receiver is no member of the workspace');
    });

    it('a read on a receiver of unknown type, where two fields share the name, is ambiguous and says so in "not seen"', async () => {
      const r = await ask('Circle.radius');
      assert.deepEqual(uses(r), ['size read ambiguous']);
      assert.deepEqual(r.dependents[0]!.candidates?.map((c) => c.qname).sort(), ['Circle.radius', 'Wheel.radius']);
      assert.match(r.notSeen.join('; '), /reads through receivers of unknown type .*1 dependent of this answer matched by name only/);
    });
  });

  describe('JavaScript', () => {
    it('a default export re-exported under a name (`export { default as messages } from \'./i18n\'`) is read through that name, inferred', async () => {
      const r = await ask('js/i18n/index.js:2');
      assert.equal(r.target.name, 'messages');
      assert.deepEqual(uses(r), ['greeting read inferred', 'js/i18n/index.js read inferred']);
      assert.match(r.dependents.find((d) => d.symbol.name === 'greeting')!.provenance.reason, /imported from `\.\/index`/);
    });
  });

  describe('Python, Java, Go', () => {
    it('Python: a module global read and written through `global`, an attribute written through self, a class constant read in a `case`, tiered', async () => {
      assert.deepEqual(uses(await ask('py.policy.MAX_ATTEMPTS')), ['py.policy.Policy.__init__ read inferred', 'py.policy.bump read inferred']);
      assert.deepEqual(uses(await ask('py.policy.COUNTER')), ['py.policy.bump write inferred']);
      assert.deepEqual(uses(await ask('Policy.limit')), ['py.policy.Policy.reset write inferred']);
      // `case Policy.LIMIT:` reads the constant through its class, as `Policy.LIMIT` in an expression does.
      assert.deepEqual(uses(await ask('Policy.LIMIT')), ['py.policy.Policy.reset read inferred', 'py.policy.describe read inferred']);
    });

    it('Python: a module variable a package star-re-exports, read through a module alias (`capi.geos_intersection`), is read, inferred; a named re-export too; a private name is not star-exported', async () => {
      const r = await ask('py.geo.prototypes.topology.geos_intersection');
      assert.deepEqual(uses(r), ['py.geo.geometry.intersection read inferred']);
      assert.match(r.dependents[0]!.provenance.reason, /`capi` is a module that re-exports it/);
      assert.deepEqual(uses(await ask('py.geo.prototypes.predicates.geos_contains')), ['py.geo.geometry.contains read inferred']);
      const hidden = await ask('py.geo.prototypes.topology._registry');
      assert.deepEqual(uses(hidden), []);
      assert.match(hidden.summary, /^No dependents found in the index; .*not seen: .+/);
    });

    it('Python: a submodule imported relative to the package (`from . import measure`, `from .. import policy`) is a module: its functions are called through it, inferred', async () => {
      assert.deepEqual(uses(await ask('py.geo.measure.area')), ['py.geo.geometry.surface call inferred']);
      assert.deepEqual(uses(await ask('py.policy.bump')), ['py.geo.geometry.surface call inferred']);
    });

    it('Python: in a package\'s `__init__`, a submodule imported there (`from .topology import *`) is bound by its name: `topology.NAMES` reads the submodule\'s variable', async () => {
      assert.deepEqual(uses(await ask('py.geo.prototypes.topology.NAMES')), ['py.geo.prototypes.NAMES read inferred']);
    });

    it('Java: a constant read through its class and by its bare name inside it; a field written', async () => {
      assert.deepEqual(uses(await ask('RetrySettings.DEFAULT_MAX')), ['com.acme.retry.RetryJob.again read inferred', 'com.acme.retry.RetrySettings.max read inferred']);
      assert.deepEqual(uses(await ask('RetryJob.runs')), ['com.acme.retry.RetryJob.again write inferred']);
    });

    it('Go: a struct field written and read through a typed receiver, a package variable read', async () => {
      assert.deepEqual(uses(await ask('Ledger.count')), ['ledger.Ledger.Post read inferred', 'ledger.Ledger.Post write inferred']);
      assert.deepEqual(uses(await ask('ledger.Limit')), ['ledger.Ledger.Post read inferred']);
    });
  });

  describe('configuration keys', () => {
    it('a key in application.yml is read by @Value, by a @ConfigurationProperties prefix and through the environment variable that overrides it; readers\' dependents follow', async () => {
      const key = await resolveOneSymbol(ws.db, 'settlement.retry.max', { root });
      assert.equal(key.kind, 'key');
      assert.match(key.sid, /^config `java\/src\/main\/resources\/application.yml`\/settlement\.retry\.max\.$/);
      const r = await ask('settlement.retry.max', 2);
      assert.deepEqual(uses(r), [
        'com.acme.retry.RetrySettings read inferred',
        'com.acme.retry.RetrySettings.max read inferred',
        'py.env.retry_max read inferred',
        'retryMax read inferred',
      ]);
      assert.match(r.dependents.find((d) => d.symbol.qname === 'com.acme.retry.RetrySettings.max')!.provenance.reason, /matched by its string/);
      assert.match(r.dependents.find((d) => d.symbol.qname === 'retryMax')!.provenance.reason, /relaxed binding/);
      assert.ok(uses(r, 2).includes('com.acme.retry.RetrySettings.max read inferred'), 'the accessor that reads the bound field is reached');
      assert.match(r.notSeen.join('; '), /configuration keys read by a computed name \(1 site/);
      assert.doesNotMatch(r.notSeen.join('; '), /type-checked resolution|DI wiring/);
    });

    it('a .env key is read by process.env.X and os.environ.get("X"); a computed read is dynamic', async () => {
      const r = await ask('SETTLEMENT_RETRY_MAX');
      assert.deepEqual(uses(r), ['py.env.retry_max read inferred', 'retryMax read inferred']);
      const dynamic = await ws.db.all<{ tier: string; kind: string }>("SELECT tier, kind FROM edges WHERE dst_id IS NULL AND reason = 'configuration key read by a computed name'");
      assert.deepEqual(dynamic, [{ tier: 'dynamic', kind: 'read' }]);
    });

    it('a changed configuration file re-resolves the reads of its keys', async () => {
      write(root, 'java/src/main/resources/application.yml', 'settlement:\n  retry:\n    attempts: 3\n');
      const indexer = await StructuralIndexer.create(ws);
      try {
        await indexer.indexAll();
      } finally {
        await indexer.dispose();
      }
      const reads = await ws.db.all<{ n: number }>("SELECT count(*) AS n FROM edges e JOIN symbols s ON s.id = e.dst_id WHERE s.qname = 'settlement.retry.max'");
      assert.equal(reads[0]!.n, 0, 'the key is gone and nothing reads it');
      const bound = await ws.db.all<{ qname: string }>("SELECT s.qname FROM edges e JOIN symbols s ON s.id = e.dst_id WHERE e.name = 'settlement.retry' ORDER BY s.qname");
      assert.deepEqual(bound.map((b) => b.qname), ['settlement.retry.attempts']);
    });
  });

  describe('not seen, honestly', () => {
    it('names no DI wiring or message topics for a constant or a field (no container injects data), and never leaves a "no dependents" answer without what could hide them', async () => {
      for (const name of ['py.policy.COUNTER', 'ledger.Limit', 'Buffer.EMPTY']) {
        const r = await ask(name);
        assert.doesNotMatch(r.notSeen.join('; '), /DI wiring|message topics/, name);
      }
      const none = await ask('Node');
      assert.equal(none.dependents.length, 0);
      assert.ok(none.notSeen.length > 0);
      assert.match(none.summary, /^No dependents found in the index; .*not seen: .+/);
    });

    it('names reflection, DI wiring and generated code for Java', async () => {
      const r = await ask('RetryJob.again');
      assert.match(r.notSeen.join('; '), /reflection targets.*DI wiring \(no actuator beans export or Spring AOT output imported\).*generated code \(no class files imported\)/);
    });
  });
});
