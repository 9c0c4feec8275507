import * as fs from 'node:fs';
import * as path from 'node:path';
import type { XMLParser } from 'fast-xml-parser';
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

let xmlParser: XMLParser | undefined;

/** The XML parser, built at the first report: the query commands hold this module (through record_conclusion) and never read one. */
function parser(): XMLParser {
  if (!xmlParser) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { XMLParser: Parser } = require('fast-xml-parser') as typeof import('fast-xml-parser');
    xmlParser = new Parser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      textNodeName: '#text',
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: true,
      isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped', 'testsuites'].includes(name),
      processEntities: true,
    });
  }
  return xmlParser;
}

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
  const reader = parser();
  let doc: Node;
  try {
    doc = reader.parse(xml) as Node;
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

function mergeReports(reports: readonly { file: string; report: ParsedReport }[]): TestSummary {
  return {
    total: reports.reduce((n, r) => n + r.report.total, 0),
    failed: reports.reduce((n, r) => n + r.report.failed, 0),
    errors: reports.reduce((n, r) => n + r.report.errors, 0),
    skipped: reports.reduce((n, r) => n + r.report.skipped, 0),
    reports: reports.map((r) => r.file),
    failing: reports.flatMap((r) => r.report.failing),
  };
}

/** The JUnit reports under the workspace at one moment, workspace-relative path → size and mtime. */
export interface ReportStates {
  readonly files: ReadonlyMap<string, { readonly size: number; readonly mtimeMs: number }>;
  /** false when the walk stopped at its budget: a report it did not reach may have existed. */
  readonly complete: boolean;
}

const WALK_BUDGET = { maxFiles: 50_000, maxMs: 1500 };

/**
 * Every report file under the workspace matching the globs, with its size
 * and mtime. Build output folders are searched even when .gitignore lists
 * them: that is where reports live.
 */
export function reportStates(root: string, globs: readonly string[], budget = WALK_BUDGET): ReportStates {
  const matcher = ignore().add([...globs]);
  const files = new Map<string, { size: number; mtimeMs: number }>();
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
      if (++seen > budget.maxFiles || Date.now() - t0 > budget.maxMs) return { files, complete: false };
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!ALWAYS_SKIPPED_DIRS.has(e.name) && rel.split('/').length < 10) stack.push(r);
      } else if (e.isFile() && e.name.toLowerCase().endsWith('.xml') && matcher.ignores(r)) {
        try {
          const st = fs.statSync(path.join(root, r));
          files.set(r, { size: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return { files, complete: true };
}

/**
 * The reports a run that started at `since` wrote, so that a report from an
 * earlier run is never charged to this one. Given the reports as they were
 * before the run (`before`): those that are new or changed since. Without it
 * (a front door that sees a command only once it has ended), or for a report
 * the walk before did not reach: those written since the start, with a
 * second of slack because mtime has coarse resolution on some file systems —
 * which also takes a report written just before the run for the run's own.
 */
export function findReports(root: string, globs: readonly string[], since: number, before?: ReportStates, budget = WALK_BUDGET): string[] {
  const out: string[] = [];
  for (const [rel, now] of reportStates(root, globs, budget).files) {
    const was = before?.files.get(rel);
    if (was) {
      if (was.size !== now.size || was.mtimeMs !== now.mtimeMs) out.push(rel);
    } else if (before?.complete || now.mtimeMs >= since - 1000) out.push(rel);
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
