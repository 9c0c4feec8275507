import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Needles, citationsIn } from '../../src/core/knowledge/workflows/linkSymbols';
import { random } from '../helpers/editCorpus';

/**
 * Citations (a comment naming a document) are found in one pass over a file
 * for all documents. The meaning is the one each document's own regular
 * expression gives: its file name after a space, quote, backtick,
 * parenthesis or slash, up to a word boundary; its handle (ADR-7, ADR-0007,
 * adr 7, RFC-12) case-insensitively. Checked against those expressions on
 * generated lines.
 */
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expected(docs: readonly { id: number; path: string | null; ref: string | null }[], line: string): number[] {
  const out: number[] = [];
  for (const d of docs) {
    if (d.path && !d.path.includes('#') && new RegExp(`(?:^|[\\s\`'"(/])${esc(path.posix.basename(d.path))}\\b`).test(line)) out.push(d.id);
    if (d.ref && /^(ADR|RFC|INC)-\d+$/.test(d.ref)) {
      const [p, n] = d.ref.split('-');
      if (new RegExp(`\\b${p}[- ]?0*${Number(n)}\\b|[@[]${p}\\(\\s*(?:value\\s*=\\s*)?0*${Number(n)}\\s*\\)`, 'i').test(line)) out.push(d.id);
    }
  }
  return out;
}

describe('knowledge: citations of documents in code', () => {
  const docs = [
    { id: 1, path: 'docs/adr/0007-retry-policy.md', ref: 'ADR-7' },
    { id: 2, path: 'docs/RetryPolicy.ts', ref: null },
    { id: 3, path: 'notes/a.md', ref: 'RFC-12' },
    { id: 4, path: 'docs/ops#runbook.md', ref: 'INC-0' },
    { id: 5, path: 'README', ref: 'ADR-70' },
    { id: 6, path: 'x', ref: null },
  ];

  it('names a document by file name and by handle, as each document\'s expression does', () => {
    const needles = new Needles(docs);
    const text = [
      'export class RetryPolicy {',
      '  // see docs/adr/0007-retry-policy.md and ADR-0007',
      '  max = 3; // adr 7, not ADR-70x, but ADR-070',
      '  /* (a.md) RFC12 INC-000 README.md */',
      '  y = "x"; // not xRetryPolicy.ts nor RetryPolicy.tsx',
      '}',
    ].join('\n');
    const got = citationsIn('src/RetryPolicy.ts', text, needles, [{ sid: 'ts RetryPolicy#', line: 1, endLine: 6 }]);
    assert.deepEqual(got.map((c) => `${c.line}:${c.docId}`), ['2:1', '2:1', '3:1', '3:5', '4:3', '4:3', '4:4', '4:5', '5:6']);
    assert.ok(got.every((c) => c.sid === 'ts RetryPolicy#'), 'each sits in the class');
  });

  it('reads an annotation that takes the record\'s number (`@ADR(19)`) as citing it, on the declaration below it, and not a call in prose', () => {
    const needles = new Needles([
      { id: 11, path: 'docs/adr/0011-use-builder-pattern.md', ref: 'ADR-0011' },
      { id: 19, path: 'docs/adr/0019-version-in-the-name.md', ref: 'ADR-0019' },
      { id: 7, path: 'docs/adr/0007-retry.md', ref: 'ADR-7' },
    ]);
    const text = [
      'public class WineryVersion implements Comparable<WineryVersion> {', // 1
      '    @Override', // 2
      '    @ADR(19)', // 3
      '    public int compareTo(WineryVersion o) {', // 4
      '        return 0;', // 5
      '    }', // 6
      '    @ADR(value = 11)', // 7
      '    public static class Builder {', // 8
      '    }', // 9
      '    // adr(7) is not an annotation, nor ADR(8), nor a call like describe(ADR(7)', // 10
      '    String s = format("ADR(7)");', // 11
      '}', // 12
    ].join('\n');
    const symbols = [
      { sid: 'java WineryVersion#', line: 1, endLine: 12 },
      { sid: 'java WineryVersion#compareTo().', line: 4, endLine: 6 },
      { sid: 'java WineryVersion#Builder#', line: 8, endLine: 9 },
    ];
    const got = citationsIn('src/WineryVersion.java', text, needles, symbols);
    assert.deepEqual(got.map((c) => `${c.line}:${c.docId}:${c.sid}`), ['3:19:java WineryVersion#compareTo().', '7:11:java WineryVersion#Builder#']);
  });

  it('agrees with one regular expression per document on 3,000 generated lines', () => {
    const needles = new Needles(docs);
    const next = random(7);
    const parts = ['0007-retry-policy.md', 'RetryPolicy.ts', 'a.md', 'README', 'x', 'ADR', 'adr', 'RFC', 'INC', '-', ' ', '0', '7', '12', '70', '(', ')', '@', '[', 'value=', '/', '`', '"', "'", '.', 'ts', 'md', '_', 'q', '\t', 'é'];
    for (let i = 0; i < 3000; i++) {
      const line = Array.from({ length: 1 + Math.floor(next() * 10) }, () => parts[Math.floor(next() * parts.length)]).join('');
      const got = needles.matches(line).map((n) => needles.docs[n]!);
      assert.deepEqual(got, expected(docs, line), JSON.stringify(line));
    }
  });

  it('a file of generated lines cites, line by line, what each document\'s expression finds on that line', () => {
    const needles = new Needles(docs);
    const next = random(11);
    const parts = ['0007-retry-policy.md', 'RetryPolicy.ts', 'a.md', 'README', 'x', 'ADR', 'adr', 'RFC', '-', ' ', '0', '7', '12', '(', '/', '`', '"', '.', 'q', '\t'];
    for (let f = 0; f < 200; f++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 8) }, () => Array.from({ length: Math.floor(next() * 6) }, () => parts[Math.floor(next() * parts.length)]).join(''));
      const got = citationsIn('f.ts', lines.join('\n'), needles, []).map((c) => `${c.line}:${c.docId}`);
      const want = lines.flatMap((l, i) => expected(docs, l).map((id) => `${i + 1}:${id}`));
      assert.deepEqual(got, want, JSON.stringify(lines));
    }
  });

  it('scans a large file once for a thousand documents: time grows with the bytes, not bytes × documents', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ id: i, path: `docs/decision-${i}.md`, ref: `ADR-${i}` }));
    const line = 'const value = compute(alpha, beta); // plain code without any citation at all\n';
    const text = line.repeat(20_000) + '// see decision-999.md and ADR-0998\n';
    const t = performance.now();
    const got = citationsIn('big.ts', text, new Needles(many), []);
    const ms = performance.now() - t;
    assert.deepEqual(got.map((c) => c.docId), [998, 999]);
    assert.ok(ms < 2000, `1.6 MB against 2,000 needles in ${Math.round(ms)} ms`);
  });
});
