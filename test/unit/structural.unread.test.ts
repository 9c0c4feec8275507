import * as assert from 'node:assert/strict';
import { renderIndexReport } from '../../src/cli/context.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol, resolveSymbols } from '../../src/core/structural/lookup.js';
import { getStatus, renderStatus } from '../../src/core/structural/status.js';
import { indexedFiles as indexed } from '../helpers/example.js';

/*
 * Source files in languages the inventory has no grammar for are counted,
 * not read, and every answer that could be wrong for want of them says so:
 * the index report, "no such symbol", and what_breaks where such code can
 * call into the target's language (Kotlin into Java).
 */

describe('structural memory: files in languages it does not read', function () {
  this.timeout(120_000);

  describe('a workspace of Java, Kotlin, Rust and Python', () => {
    let fx: Awaited<ReturnType<typeof indexed>>;
    before(async () => {
      fx = await indexed({
        'src/main/java/acme/Ledger.java': 'package acme;\n\npublic class Ledger {\n  public void post(int cents) {}\n}\n',
        'src/main/kotlin/acme/Posting.kt': 'package acme\n\nfun postAll(l: Ledger) { l.post(1) }\n',
        'native/src/lib.rs': 'pub fn checksum(b: &[u8]) -> u32 { b.len() as u32 }\n',
        'native/src/io.rs': 'pub fn read_all() {}\n',
        'tools/report.py': 'def report():\n    return 1\n',
      });
    });
    after(() => fx?.close());

    it('counts them by language, most files first, and never reads them', () => {
      assert.deepEqual(fx.report.unread, [
        { language: 'Rust', files: 2, extensions: ['.rs'] },
        { language: 'Kotlin', files: 1, extensions: ['.kt'] },
      ]);
      assert.equal(fx.report.files, 2, 'only the Java and the Python file are inventoried');
      const text = renderIndexReport(fx.report);
      assert.match(text, /^Not read: 2 Rust files \(\.rs\) and 1 Kotlin file \(\.kt\)\. Tenure's structural memory reads TypeScript, JavaScript, Python, Java and Go/m);
    });

    it('tenure status says it too, from what the index stored', async () => {
      const status = await getStatus(fx.ws);
      assert.deepEqual(status.unread.map((u) => [u.language, u.files]), [['Rust', 2], ['Kotlin', 1]]);
      assert.match(renderStatus(status), /^Not read: 2 Rust files \(\.rs\) and 1 Kotlin file \(\.kt\)/m);
    });

    it('a name that is not found says which files could hold it', async () => {
      await assert.rejects(resolveSymbols(fx.ws.db, 'checksum', { root: fx.ws.root }), (e: Error) => {
        assert.match(e.message, /No symbol matches "checksum"/);
        assert.match(e.message, /This workspace also has 2 Rust files \(\.rs\) and 1 Kotlin file \(\.kt\), which Tenure does not index/);
        return true;
      });
      await assert.rejects(resolveSymbols(fx.ws.db, 'native/src/lib.rs:1', { root: fx.ws.root }), /native\/src\/lib\.rs is Rust, a language Tenure does not index/);
    });

    it('what_breaks of a Java method names the Kotlin files as a gap; of a Python function, it does not', async () => {
      const post = await whatBreaks(fx.ws.db, await resolveOneSymbol(fx.ws.db, 'Ledger.post', { root: fx.ws.root }), 3);
      assert.equal(post.dependents.length, 0, 'the Kotlin caller is not seen');
      assert.ok(post.notSeen.includes('uses in 1 Kotlin file (.kt), which Tenure does not index'), post.notSeen.join(' | '));
      const report = await whatBreaks(fx.ws.db, await resolveOneSymbol(fx.ws.db, 'report', { root: fx.ws.root }), 3);
      assert.ok(!report.notSeen.some((g) => /Rust|Kotlin/.test(g)), report.notSeen.join(' | '));
    });
  });

  it('a repository of Rust alone has been indexed (with nothing in it), not "not indexed yet"', async () => {
    const fx = await indexed({ 'src/lib.rs': '/// Keeps at most 10 entries.\npub fn import_history(limit: usize) -> usize { limit.min(10) }\n' });
    try {
      assert.equal(fx.report.files, 0);
      await assert.rejects(resolveSymbols(fx.ws.db, 'import_history', { root: fx.ws.root }), (e: Error & { reason?: string }) => {
        assert.equal(e.reason, 'symbol-not-found');
        assert.match(e.message, /1 Rust file \(\.rs\), which Tenure does not index/);
        return true;
      });
    } finally {
      await fx.close();
    }
  });

  it('a workspace of only the languages it reads reports nothing unread and says nothing of it', async () => {
    const fx = await indexed({ 'a.py': 'def f():\n    return 1\n' });
    try {
      assert.deepEqual(fx.report.unread, []);
      assert.doesNotMatch(renderIndexReport(fx.report), /Not read/);
      await assert.rejects(resolveSymbols(fx.ws.db, 'nothing_here', { root: fx.ws.root }), (e: Error) => !/does not index/.test(e.message));
    } finally {
      await fx.close();
    }
  });
});
