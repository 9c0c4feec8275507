import * as assert from 'node:assert/strict';
import type { SymbolRef } from '../../src/core/model/symbolRef';
import { bulkChange, commitsAway } from '../../src/core/knowledge/whyCode';
import { filesOfCommits, historyOfLines } from '../../src/core/knowledge/sources/lineHistory';
import { reached, type Reached } from '../../src/core/knowledge/whyScope';
import { tempDir, write } from '../helpers/fixtures';
import { gitRepo } from '../helpers/prereq';

/*
 * A commit reached because its message names the symbol, and not because it
 * changed the symbol's lines, is weak when it changed nothing in the
 * symbol's folder: in a Go repository with its own `libs/math.MaxInt`, a
 * commit about JSON ids that writes "`math.MaxInt`" means the standard
 * library's constant. Real git, a real repository.
 */
describe('why_is_this: commits that name a symbol they did not touch', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  const sha: Record<string, string> = {};

  before(function () {
    d = tempDir('tenure-why-commits-');
    const run = gitRepo(this, d.root);
    write(d.root, 'libs/math/math.go', 'package math\n\nfunc MaxInt(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n');
    run('add', '-A');
    run('commit', '-qm', 'libs/math: add MaxInt because the clamp in the pool needs the larger of two heights');
    sha.own = run('rev-parse', 'HEAD').trim();
    write(d.root, 'rpc/jsonrpc/id.go', 'package jsonrpc\n\nfunc idOf(f float64) int { return int(f) }\n');
    run('add', '-A');
    run('commit', '-qm', 'fix(rpc): reject ids above `math.MaxInt`, because a naive int(id) saturates and distinct ids collide');
    sha.away = run('rev-parse', 'HEAD').trim();
  });
  after(() => d?.cleanup());

  it('keeps a commit that changed its folder exact, and makes one that changed nothing there weak, saying why', async () => {
    const target: SymbolRef = { id: 1, sid: 'go libs/math.MaxInt', name: 'MaxInt', qname: 'math.MaxInt', kind: 'function', path: 'libs/math/math.go', line: 3 };
    const docs = new Map<number, Reached>();
    for (const [id, key] of [[1, 'own'], [2, 'away']] as const) {
      const r = reached({ id, source: `git:${sha[key]}`, kind: 'commit', title: key, ref: `commit ${sha[key]!.slice(0, 7)}` }, 'exact', 'self', ['offline']);
      r.anchors.push({ entity: 'math.MaxInt', entityType: 'concept', tier: 'exact', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: 'names it verbatim' });
      docs.set(id, r);
    }
    assert.equal(await commitsAway(d.root, target, docs), 1);
    assert.equal(docs.get(1)!.tier, 'exact', 'the commit that wrote libs/math keeps its tier');
    assert.equal(docs.get(2)!.tier, 'weak', 'the commit that changed only rpc/ is weak for libs/math.MaxInt');
    assert.equal(docs.get(2)!.anchors[0]!.tier, 'weak');
    assert.match(docs.get(2)!.anchors[0]!.reason, /changed nothing in libs\/math\/ — perhaps another symbol of the name; verify/);
  });

  it('leaves a commit git cannot show as it is', async () => {
    const target: SymbolRef = { id: 1, sid: 'go libs/math.MaxInt', name: 'MaxInt', qname: 'math.MaxInt', kind: 'function', path: 'libs/math/math.go', line: 3 };
    const r = reached({ id: 3, source: `git:${'0'.repeat(40)}`, kind: 'commit', title: 'gone' }, 'exact', 'self', ['offline']);
    const docs = new Map([[3, r]]);
    assert.equal(await commitsAway(d.root, target, docs), 0);
    assert.equal(r.tier, 'exact');
  });
});

/*
 * A commit that wrote the symbol's lines as part of a change to a whole tree
 * (the first import of a repository, a rename across it) is weak for the
 * symbol when its message names nothing of it: the message is about all the
 * files. git blame is right that it wrote the lines; the message is not its reason.
 */
describe('why_is_this: a commit that changed a whole tree at once', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  const target: SymbolRef = { id: 1, sid: 'ts src/settlement/RetryPolicy.ts#RetryPolicy', name: 'RetryPolicy', qname: 'RetryPolicy', kind: 'class', path: 'src/settlement/RetryPolicy.ts', line: 1 };
  let bulk = '';
  let own = '';

  before(function () {
    d = tempDir('tenure-why-bulk-');
    const run = gitRepo(this, d.root);
    for (let i = 0; i < 60; i++) write(d.root, `src/module${i}/index.ts`, `export const value${i} = ${i};\n`);
    write(d.root, 'src/settlement/RetryPolicy.ts', 'export class RetryPolicy {\n  static readonly MAX_ATTEMPTS = 5;\n}\n');
    run('add', '-A');
    run('commit', '-qm', 'Structural memory end to end: parse workers, import-aware resolution with tiers, incremental store');
    bulk = run('rev-parse', 'HEAD').trim();
    write(d.root, 'src/settlement/RetryPolicy.ts', 'export class RetryPolicy {\n  static readonly MAX_ATTEMPTS = 3;\n}\n');
    run('add', '-A');
    run('commit', '-qm', 'Cap settlement retries at three: the partner recalls a duplicate only within 15 minutes');
    own = run('rev-parse', 'HEAD').trim();
  });
  after(() => d?.cleanup());

  it('counts the files of a root commit, and finds both commits by blame', async () => {
    const files = await filesOfCommits(d.root, [bulk, own]);
    assert.equal(files.get(bulk)?.length, 61);
    assert.equal(files.get(own)?.length, 1);
    const blamed = (await historyOfLines(d.root, target.path, 1, 3)).map((c) => c.sha);
    assert.deepEqual(new Set(blamed), new Set([bulk, own]));
  });

  it('is weak for a symbol its message does not name, saying why, and exact where the message names it or its file, or few files changed', () => {
    assert.match(bulkChange('Structural memory end to end: parse workers, import-aware resolution with tiers, incremental store', 61, target) ?? '', /changed 61 files at once and its message names nothing of it/);
    assert.equal(bulkChange('Cap settlement retries at three: the partner recalls a duplicate only within 15 minutes', 1, target), undefined);
    assert.equal(bulkChange('Move RetryPolicy and its callers under src/', 61, target), undefined, 'names the class');
    assert.ok(bulkChange('Add the settlement example and its tests', 61, target), 'a folder named is the neighbourhood, not the symbol');
    assert.equal(bulkChange('Reformat RetryPolicy.ts and the rest of src/', 61, target), undefined, 'names its file');
    assert.equal(bulkChange('Rename retry policy constants across the tree', 61, target), undefined, 'names it in words');
  });
});
