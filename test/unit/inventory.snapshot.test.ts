import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileFacts } from '../../src/core/model/structural.js';
import { Inventory } from '../../src/core/structural/inventory/inventory.js';
import { LANGUAGES, languageForPath, type LanguageSpec } from '../../src/core/structural/inventory/languages.js';
import { packageRoot } from '../../src/shared/paths.js';

/*
 * Golden snapshots of the tree-sitter inventory, in the style of scip-typescript:
 * each fixture's source lines, each followed by comment lines with a caret under
 * what the inventory found there. `UPDATE_SNAPSHOTS=1 npx mocha …` rewrites them
 * (mocha takes no custom CLI switch); review the diff by eye before committing.
 */

/** One note under a source line: `text` printed after carets spanning `length` columns from `col`. */
export interface Annotation {
  /** 1-based line. */
  readonly line: number;
  /** 0-based column in UTF-16 code units. */
  readonly col: number;
  readonly length: number;
  readonly text: string;
}

/** Qualified names of definitions, `Outer.Inner.member`; names shared by overloads get `@line`. */
export function qualifiedNames(facts: FileFacts): string[] {
  const names: string[] = [];
  const qname = (i: number, seen: Set<number>): string => {
    const d = facts.definitions[i]!;
    if (d.parent < 0 || seen.has(d.parent)) return d.name;
    seen.add(i);
    return `${qname(d.parent, seen)}.${d.name}`;
  };
  facts.definitions.forEach((_, i) => names.push(qname(i, new Set([i]))));
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return names.map((n, i) => ((counts.get(n) ?? 0) > 1 ? `${n}@${facts.definitions[i]!.nameRange.start.line}` : n));
}

/** The inventory's facts as annotations: definitions, use sites, dynamic sites, imports. */
export function factAnnotations(facts: FileFacts): Annotation[] {
  const names = qualifiedNames(facts);
  const ownerName = (i: number) => (i < 0 ? '<module>' : names[i]!);
  const out: Annotation[] = [];
  facts.definitions.forEach((d, i) => {
    const { start, end } = d.nameRange;
    const length = start.line === end.line ? Math.max(1, end.col - start.col) : 1;
    const parent = d.parent >= 0 ? ` parent=${names[d.parent]}` : '';
    out.push({ line: start.line, col: start.col, length, text: `def ${d.kind} ${names[i]}${parent}${d.exported ? ' exported' : ''}` });
    for (const f of d.facets ?? []) out.push({ line: f.line, col: f.col, length: Math.max(1, d.name.length), text: `facet of ${names[i]}` });
  });
  for (const sk of facts.skipped ?? []) out.push({ line: sk.at.line, col: sk.at.col, length: 1, text: `skipped: ${sk.reason}` });
  for (const s of facts.sites) {
    const parts: string[] = [];
    if (s.dynamic !== undefined) parts.push(`dynamic ${s.kind}${s.name ? ` ${s.name}` : ''}`);
    else parts.push(`${s.kind} ${s.name}`);
    if (s.receiver !== undefined) parts.push(`receiver=${s.receiver}`);
    if (s.receiverType !== undefined) parts.push(`receiverType=${s.receiverType}`);
    if (s.nameIs !== undefined) parts.push(`nameIs=${s.nameIs}`);
    parts.push(`owner=${ownerName(s.owner)}`);
    if (s.dynamic !== undefined) parts.push(`reason="${s.dynamic}"`);
    out.push({ line: s.at.line, col: s.at.col, length: Math.max(1, s.dynamic !== undefined ? 1 : s.name.length), text: parts.join(' ') });
  }
  for (const im of facts.imports) {
    const parts = [`import ${im.module}`];
    if (im.name !== undefined) parts.push(`name=${im.name}`);
    if (im.local !== undefined) parts.push(`local=${im.local}`);
    if (im.wildcard) parts.push('wildcard');
    if (im.owner >= 0) parts.push(`owner=${ownerName(im.owner)}`);
    out.push({ line: im.at.line, col: im.at.col, length: 1, text: parts.join(' ') });
  }
  return out;
}

/**
 * Renders source with annotations under their lines. Source lines are indented by
 * the width of the comment marker so carets line up; tabs before a caret are kept
 * so tab-indented code (Go) lines up too.
 */
export function renderSnapshot(source: string, annotations: readonly Annotation[], comment: string, header: readonly string[] = []): string {
  const lines = source.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const byLine = new Map<number, Annotation[]>();
  for (const a of annotations) {
    let list = byLine.get(a.line);
    if (!list) byLine.set(a.line, (list = []));
    list.push(a);
  }
  const pad = ' '.repeat(comment.length);
  const out: string[] = header.map((h) => `${comment.trimEnd()} ${h}`);
  lines.forEach((text, i) => {
    out.push(`${pad}${text}`.trimEnd());
    const notes = (byLine.get(i + 1) ?? []).slice().sort((a, b) => a.col - b.col || a.text.localeCompare(b.text));
    for (const a of notes) {
      const lead = text.slice(0, a.col).replace(/[^\t]/g, ' ');
      out.push(`${comment}${lead}${'^'.repeat(a.length)} ${a.text}`);
    }
  });
  // Annotations past the end of the text (should not happen) stay visible rather than vanish.
  for (const [line, notes] of byLine) {
    if (line > lines.length) for (const a of notes) out.push(`${comment} (line ${line}:${a.col}) ${a.text}`);
  }
  return out.join('\n') + '\n';
}

const COMMENT: Record<LanguageSpec['id'], string> = {
  typescript: '//',
  tsx: '//',
  javascript: '//',
  python: '# ',
  java: '//',
  go: '//',
  yaml: '# ',
  json: '//',
  properties: '# ',
  toml: '# ',
  dotenv: '# ',
};

export function renderFacts(spec: LanguageSpec, source: string, facts: FileFacts): string {
  const header = [`language: ${facts.language}`];
  if (facts.packageName !== undefined) header.push(`package: ${facts.packageName}`);
  header.push(`syntax errors: ${facts.errorNodes}`);
  if (facts.computedAccesses) header.push(`computed member accesses: ${facts.computedAccesses}`);
  return renderSnapshot(source, factAnnotations(facts), COMMENT[spec.id], [header.join(', ')]);
}

const root = packageRoot();
const fixturesDir = path.join(root, 'test', 'fixtures', 'inventory');
const snapshotsDir = path.join(root, 'test', 'snapshots', 'inventory');
const update = process.env['UPDATE_SNAPSHOTS'] === '1' || process.env['UPDATE_SNAPSHOTS'] === 'true';

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

const toPosix = (p: string) => p.split(path.sep).join('/');
const fixtures = listFiles(fixturesDir).map((f) => toPosix(path.relative(fixturesDir, f)));

describe('inventory snapshots', function () {
  const inventory = new Inventory();

  it('loads every grammar and tag query', async () => {
    await inventory.warmUp();
  });

  it('has a fixture for every language', () => {
    for (const l of LANGUAGES) {
      assert.ok(
        fixtures.some((f) => f.startsWith(`${l.id}/`)),
        `no fixture under test/fixtures/inventory/${l.id}/`,
      );
    }
  });

  for (const rel of fixtures) {
    it(rel, async () => {
      const spec = languageForPath(rel);
      assert.ok(spec, `no language for ${rel}`);
      assert.equal(rel.split('/')[0], spec.id, `${rel} is in the wrong language folder`);
      const source = fs.readFileSync(path.join(fixturesDir, rel), 'utf8');
      const facts = await inventory.parse(spec, source);
      const actual = renderFacts(spec, source, facts);
      const snap = path.join(snapshotsDir, `${rel}.snap`);
      if (update) {
        fs.mkdirSync(path.dirname(snap), { recursive: true });
        if (!fs.existsSync(snap) || fs.readFileSync(snap, 'utf8') !== actual) fs.writeFileSync(snap, actual);
        return;
      }
      assert.ok(fs.existsSync(snap), `missing snapshot ${toPosix(path.relative(root, snap))}; run with UPDATE_SNAPSHOTS=1`);
      assert.equal(actual, fs.readFileSync(snap, 'utf8'), `snapshot differs: ${rel} (UPDATE_SNAPSHOTS=1 rewrites it)`);
    });
  }

  it('has no snapshot without a fixture', () => {
    const wanted = new Set(fixtures.map((f) => `${f}.snap`));
    const orphans = listFiles(snapshotsDir)
      .map((f) => toPosix(path.relative(snapshotsDir, f)))
      .filter((f) => !wanted.has(f));
    if (update) for (const o of orphans) fs.rmSync(path.join(snapshotsDir, o));
    else assert.deepEqual(orphans, [], 'snapshots without a fixture (UPDATE_SNAPSHOTS=1 deletes them)');
  });
});
