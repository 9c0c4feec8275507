import * as assert from 'node:assert/strict';
import { WORKSPACE_LOOKUPS } from '../../src/core/structural/impact/notSeen.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { indexedFiles } from '../helpers/example.js';

/*
 * what_breaks names DI wiring and message topics as unseen only where the
 * workspace imports or uses what would make them so; each fact is a lookup
 * through an index (a CLI query pays for it in every process).
 */

const PAY = {
  'src/pay.ts': 'export function pay(amount: number): number {\n  return amount;\n}\n',
  'src/main.ts': "import { pay } from './pay';\n\nexport function main(): number {\n  return pay(3);\n}\n",
};

async function gapsOf(files: Readonly<Record<string, string>>): Promise<string> {
  const ex = await indexedFiles(files);
  try {
    const target = await resolveOneSymbol(ex.ws.db, 'pay', { root: ex.root });
    return (await whatBreaks(ex.ws.db, target, 2)).notSeen.join('; ');
  } finally {
    await ex.close();
  }
}

describe('what the workspace wires, read through indexes', function () {
  this.timeout(120_000);

  it('names neither DI wiring nor message topics where nothing imports or uses them', async () => {
    const gaps = await gapsOf(PAY);
    assert.doesNotMatch(gaps, /DI wiring|message topics/);
  });

  it('names DI wiring for an import of a DI library and for an injection decorator of the workspace\'s own', async () => {
    assert.match(await gapsOf({ ...PAY, 'src/wire.ts': "import { Container } from 'inversify';\n\nexport const wired = new Container();\n" }), /DI wiring \(which implementation a container supplies is decided at run time\)/);
    const ownDecorator = {
      'src/inject.ts': 'export function Inject(): ParameterDecorator {\n  return () => undefined;\n}\n',
      'src/ledger.ts': "import { Inject } from './inject';\n\nexport class Ledger {\n  constructor(@Inject() readonly store: unknown) {}\n}\n",
    };
    assert.match(await gapsOf({ ...PAY, ...ownDecorator }), /DI wiring/, 'the workspace\'s own Inject, resolved');
  });

  it('names DI wiring for a container folder of its own, not for names and paths that mean something else', async () => {
    assert.match(await gapsOf({ ...PAY, 'src/di/index.ts': 'export const bindings = new Map<string, unknown>();\n' }), /DI wiring/, 'a di/ folder');
    const lookalikes = {
      // A component class and a component file named Container: React's words, not a container's.
      'src/ui/Component.ts': 'export class Component {\n  render(): string {\n    return "";\n  }\n}\n',
      'src/ui/Container.tsx': "import { Component } from './Component';\n\nexport class Container extends Component {}\n",
      // A Go type named Service and a Kubernetes sidecar injector.
      'go.mod': 'module example.com/mesh\n\ngo 1.21\n',
      'mesh/service.go': 'package mesh\n\ntype Service struct{ Name string }\n\nfunc NewService(name string) Service {\n\treturn Service{Name: name}\n}\n',
      'mesh/injector/injector.go': 'package injector\n\nfunc Inject(pod string) string {\n\treturn pod\n}\n',
      'mesh/injector/webhook.go': 'package injector\n\nfunc Handle(pod string) string {\n\treturn Inject(pod)\n}\n',
    };
    assert.doesNotMatch(await gapsOf({ ...PAY, ...lookalikes }), /DI wiring/);
  });

  it('names callers through message topics where a messaging library is imported', async () => {
    assert.match(await gapsOf({ ...PAY, 'src/consume.ts': "import { Kafka } from 'kafkajs';\n\nexport const kafka = new Kafka({ brokers: [] });\n" }), /callers in other services and through message topics/);
  });

  it('asks each question through an index from the names asked: no statement reads every edge, import or file', async () => {
    const ex = await indexedFiles(PAY);
    try {
      for (const [what, sql] of Object.entries(WORKSPACE_LOOKUPS)) {
        const plan = await ex.ws.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ['["Inject"]']);
        assert.ok(plan.length > 0, what);
        // The list of names is the one thing read whole; every table is searched through an index from it.
        for (const step of plan) assert.doesNotMatch(step.detail, /^SCAN (?!json_each\b|n VIRTUAL TABLE\b|CONSTANT ROW\b)/, `${what}: ${plan.map((p) => p.detail).join(' / ')}`);
      }
    } finally {
      await ex.close();
    }
  });
});
