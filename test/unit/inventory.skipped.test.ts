import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Language, Parser, Query, type Node, type QueryMatch } from 'web-tree-sitter';
import { extractFacts } from '../../src/core/structural/inventory/extract.js';
import { languageById } from '../../src/core/structural/inventory/languages.js';
import { packageRoot } from '../../src/shared/paths.js';
import { renderFacts } from './inventory.snapshot.test.js';

/*
 * A construct the extractor fails on is skipped with its reason and the rest
 * of the file is kept. The real TypeScript grammar and tag query parse a real
 * fixture; two of the query's matches are made to fail the way an extractor
 * bug would (reading one node's text throws): a call site and a declared
 * type. The facts are compared with a golden snapshot and with the facts of
 * the same file extracted without the faults.
 */

const root = packageRoot();
const fixture = path.join(root, 'test', 'fixtures', 'inventory', 'typescript', 'sample.ts');
const golden = path.join(root, 'test', 'snapshots', 'inventory-skipped', 'sample.ts.snap');
const update = process.env['UPDATE_SNAPSHOTS'] === '1' || process.env['UPDATE_SNAPSHOTS'] === 'true';

/** The node, except that reading its text throws. */
function unreadable(node: Node): Node {
  return new Proxy(node, {
    get(target, prop) {
      if (prop === 'text') throw new Error('node text could not be read');
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('inventory: a failing construct is skipped with its reason, the rest of the file kept', () => {
  let query: Query;
  let parser: Parser;
  const spec = languageById('typescript')!;

  before(async () => {
    await Parser.init({ locateFile: () => path.join(root, 'node_modules', 'web-tree-sitter', 'tree-sitter.wasm') });
    const language = await Language.load(path.join(root, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm', 'tree-sitter-typescript.wasm'));
    query = new Query(language, fs.readFileSync(path.join(root, 'grammars', 'typescript.scm'), 'utf8'));
    parser = new Parser();
    parser.setLanguage(language);
  });

  it('matches the golden snapshot, and everything else equals the facts without the faults', () => {
    const source = fs.readFileSync(fixture, 'utf8');
    const tree = parser.parse(source)!;
    try {
      const clean = extractFacts(tree, query, spec, 0);
      const faulty = (m: QueryMatch): boolean =>
        m.captures.some((c) => (c.name === 'ref.call' && c.node.text.startsWith('metrics.count')) || (c.name === 'typed.member' && c.node.text.includes('gateway: PaymentGateway')));
      const withFaults = {
        matches: (node: Node) =>
          query.matches(node).map((m) => (faulty(m) ? { ...m, captures: m.captures.map((c) => ({ ...c, node: unreadable(c.node) })) } : m)),
      } as unknown as Query;
      const facts = extractFacts(tree, withFaults, spec, 0);

      assert.equal(clean.skipped, undefined, 'the fixture itself extracts without a skip');
      assert.deepEqual(
        facts.skipped?.map((s) => `${s.at.line}:${s.at.col} ${s.reason}`),
        ['21:14 declared type skipped: node text could not be read', '11:4 use site skipped: node text could not be read'],
      );
      // The rest is kept: every definition and import, every site but the failed call.
      assert.deepEqual(facts.definitions, clean.definitions);
      assert.deepEqual(facts.imports, clean.imports);
      const key = (s: { kind: string; name: string; at: { line: number; col: number } }) => `${s.kind} ${s.name} ${s.at.line}:${s.at.col}`;
      assert.deepEqual(
        clean.sites.map(key).filter((k) => !facts.sites.map(key).includes(k)),
        ['call count 11:12'],
      );
      // The failed declared type leaves `this.gateway` untyped, and only that.
      const gatewayCall = facts.sites.find((s) => s.name === 'charge' && s.receiver === 'this.gateway');
      assert.ok(gatewayCall && gatewayCall.receiverType === undefined);
      assert.equal(clean.sites.find((s) => s.name === 'charge' && s.receiver === 'this.gateway')?.receiverType, 'PaymentGateway');

      const actual = renderFacts(spec, source, facts);
      if (update) {
        fs.mkdirSync(path.dirname(golden), { recursive: true });
        fs.writeFileSync(golden, actual);
      }
      assert.equal(actual, fs.readFileSync(golden, 'utf8'));
    } finally {
      tree.delete();
    }
  });
});
