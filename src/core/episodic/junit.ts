import * as fs from 'node:fs';
import * as path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import ignore from 'ignore';
import { TenureError, errorMessage } from '../../shared/errors.js';
import { ALWAYS_SKIPPED_DIRS } from '../repo/walk.js';
import type { FailingTest, TestSummary } from './model.js';

/*
 * JUnit XML, as Surefire/Failsafe, Gradle, pytest --junitxml, jest-junit,
 * mocha's xunit reporter, go-junit-report and most CI systems write it:
 * <testsuites>? <testsuite>+ (possibly nested) <testcase> with <failure>,
 * <error> or <skipped>.
 */

export interface ParsedReport {
  readonly total: number;
  readonly failed: number;
  readonly errors: number;
  readonly skipped: number;
  readonly failing: readonly FailingTest[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped', 'testsuites'].includes(name),
  processEntities: true,
});

type Node = Record<string, unknown>;

const GENERIC_SUITE = /^(test|tests|mocha tests|pytest|jest tests|root suite|default suite|unnamed)$/i;

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  const n = v as Node;
  // The message attribute is the runner's own summary; the body is usually a stack trace.
  const msg = typeof n['@message'] === 'string' ? (n['@message'] as string) : '';
  const body = typeof n['#text'] === 'string' ? (n['#text'] as string) : '';
  return msg || body || (typeof n['@type'] === 'string' ? (n['@type'] as string) : null);
}

/** The first lines of a failure message, enough to recognise it. */
export function excerpt(message: string | null, maxChars = 300): string | null {
  if (!message) return null;
  // Node's assert appends a multi-line actual/expected diff; reports often flatten it into the message attribute.
  message = message.replace(/\s*\+ actual - expected[\s\S]*$/, '').trim() || message;
  const lines = message.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim());
  let out = '';
  for (const l of lines) {
    if (out && /^\s*at\s/.test(l)) break; // a stack frame: enough
    out += (out ? '\n' : '') + l;
    if (out.length >= maxChars) break;
  }
  return out.length > maxChars ? out.slice(0, maxChars - 1) + '…' : out;
}

export function parseJUnit(xml: string, file = 'report'): ParsedReport {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (e) {
    throw new TenureError('invalid-input', `${file} is not well-formed XML: ${errorMessage(e)}`, undefined, { cause: e });
  }
  const suites: Node[] = [];
  const collect = (n: Node) => {
    for (const s of (n['testsuite'] as Node[] | undefined) ?? []) {
      suites.push(s);
      collect(s);
    }
  };
  const roots = (doc['testsuites'] as Node[] | undefined) ?? [];
  for (const root of roots) {
    // node:test's junit reporter puts top-level tests straight under <testsuites>.
    if (root['testcase']) suites.push(root);
    collect(root);
  }
  collect(doc);
  if (!suites.length && !roots.length) throw new TenureError('invalid-input', `${file} is not a JUnit report: no <testsuites> or <testsuite> element.`);
  let total = 0;
  let failed = 0;
  let errors = 0;
  let skipped = 0;
  const failing: FailingTest[] = [];
  for (const s of suites) {
    const suiteName = typeof s['@name'] === 'string' && s['@name'] ? (s['@name'] as string) : null;
    for (const tc of (s['testcase'] as Node[] | undefined) ?? []) {
      total++;
      const f = (tc['failure'] as unknown[] | undefined)?.[0];
      const e = (tc['error'] as unknown[] | undefined)?.[0];
      const classname = typeof tc['@classname'] === 'string' && tc['@classname'] ? (tc['@classname'] as string) : null;
      const name = String(tc['@name'] ?? '(unnamed)');
      const fileAttr = typeof tc['@file'] === 'string' ? (tc['@file'] as string) : null;
      if (f !== undefined || e !== undefined) {
        if (f !== undefined) failed++;
        else errors++;
        // Runners fill one of the two with a placeholder ("test", "Mocha Tests", "pytest"): keep the informative one.
        const suite = classname && !GENERIC_SUITE.test(classname) ? classname : suiteName && !GENERIC_SUITE.test(suiteName) ? suiteName : (classname ?? suiteName);
        failing.push({ suite, name, status: f !== undefined ? 'failed' : 'error', message: excerpt(text(f ?? e)), file: fileAttr });
      } else if (tc['skipped'] !== undefined) skipped++;
    }
  }
  return { total, failed, errors, skipped, failing };
}

export function mergeReports(reports: readonly { file: string; report: ParsedReport }[]): TestSummary {
  return {
    total: reports.reduce((n, r) => n + r.report.total, 0),
    failed: reports.reduce((n, r) => n + r.report.failed, 0),
    errors: reports.reduce((n, r) => n + r.report.errors, 0),
    skipped: reports.reduce((n, r) => n + r.report.skipped, 0),
    reports: reports.map((r) => r.file),
    failing: reports.flatMap((r) => r.report.failing),
  };
}

/**
 * JUnit reports under the workspace matching the globs and written at or
 * after `since` (so a stale report from an earlier run is never charged to
 * this one). Build output folders are searched even when .gitignore lists
 * them: that is where reports live.
 */
export function findReports(root: string, globs: readonly string[], since: number, budget = { maxFiles: 50_000, maxMs: 1500 }): string[] {
  const matcher = ignore().add([...globs]);
  const out: string[] = [];
  const t0 = Date.now();
  let seen = 0;
  const stack: string[] = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > budget.maxFiles || Date.now() - t0 > budget.maxMs) return out.sort();
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!ALWAYS_SKIPPED_DIRS.has(e.name) && rel.split('/').length < 10) stack.push(r);
      } else if (e.isFile() && e.name.toLowerCase().endsWith('.xml') && matcher.ignores(r)) {
        try {
          // mtime has coarse resolution on some file systems: allow a second of slack.
          if (fs.statSync(path.join(root, r)).mtimeMs >= since - 1000) out.push(r);
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return out.sort();
}

/** Reads and parses report files; unreadable or non-JUnit files are skipped with a note. */
export function readReports(root: string, files: readonly string[]): { summary: TestSummary | null; notes: string[] } {
  const parsed: { file: string; report: ParsedReport }[] = [];
  const notes: string[] = [];
  for (const f of files) {
    const abs = path.isAbsolute(f) ? f : path.join(root, f);
    const rel = path.relative(root, abs).split(path.sep).join('/');
    try {
      parsed.push({ file: rel.startsWith('..') ? abs : rel, report: parseJUnit(fs.readFileSync(abs, 'utf8'), rel) });
    } catch (e) {
      notes.push(`${rel}: ${errorMessage(e)}`);
    }
  }
  return { summary: parsed.length ? mergeReports(parsed) : null, notes };
}
