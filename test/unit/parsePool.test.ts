import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { languageForPath } from '../../src/core/structural/inventory/languages.js';
import { ParsePool, languageHomes, type ParseJob } from '../../src/core/structural/inventory/parsePool.js';
import { factsOf } from '../../src/core/structural/inventory/parseProtocol.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

/*
 * The parse pool: each worker compiles the tag query of every language it
 * parses, so languages are given home workers by their share of the files,
 * and results still come back in job order whatever worker parsed them.
 */

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'inventory');
const job = (rel: string): ParseJob => ({ root: FIXTURES, abs: path.join(FIXTURES, rel), language: languageForPath(rel)!.id, maxBytes: 1 << 20, budgetMs: 10_000 });
const many = (language: string, n: number): ParseJob[] => Array.from({ length: n }, (_, i) => ({ root: '/r', abs: `/r/${i}`, language, maxBytes: 1, budgetMs: 1 }));

describe('parse pool: languages and order', function () {
  this.timeout(120_000);

  it('gives a language with few files one home worker and the common one every worker', () => {
    // Django's mix: 859 Python files, 86 JavaScript, a few configuration files.
    const homes = languageHomes([...many('python', 859), ...many('javascript', 86), ...many('json', 5)], 2);
    assert.deepEqual([...homes.get('python')!].sort(), [0, 1]);
    assert.equal(homes.get('javascript')!.size, 1, 'one worker compiles the JavaScript query');
    assert.equal(homes.has('json'), false, 'configuration files compile no query: any worker takes them');
  });

  it('splits two languages of equal share between two workers, and gives one worker everything', () => {
    const homes = languageHomes([...many('python', 50), ...many('go', 50)], 2);
    assert.deepEqual([[...homes.get('go')!], [...homes.get('python')!]].sort(), [[0], [1]]);
    const alone = languageHomes([...many('python', 5), ...many('go', 50), ...many('java', 1)], 1);
    for (const l of ['python', 'go', 'java']) assert.deepEqual([...alone.get(l)!], [0], l);
  });

  it('returns every file\'s own facts in job order when languages are interleaved across workers', async () => {
    const rels = ['python/sample.py', 'javascript/service.cjs', 'go/ledger.go', 'python/data.py', 'java/Model.java', 'javascript/legacy.js', 'python/extras.py'];
    const jobs = [...rels, ...rels].map(job);
    const pool = new ParsePool(2);
    const alone = new ParsePool(1);
    try {
      const out = await pool.parseAll(jobs);
      const expected = await alone.parseAll(rels.map(job));
      assert.equal(out.length, jobs.length);
      out.forEach((r, i) => {
        const e = expected[i % rels.length]!;
        assert.ok(r.status === 'parsed' && e.status === 'parsed', rels[i % rels.length]);
        assert.equal(factsOf(r).language, jobs[i]!.language, rels[i % rels.length]);
        assert.deepEqual(factsOf(r).definitions, factsOf(e).definitions, rels[i % rels.length]);
      });
    } finally {
      await pool.dispose();
      await alone.dispose();
    }
  });
});
