import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { insideWorkspace, readWorkspaceText } from '../repo/read.js';
import { classifyCommand, loadProjectCommands } from '../episodic/classify.js';
import { loadOptions } from '../episodic/options.js';
import { TenureError } from '../../shared/errors.js';
import { unifiedDiff } from '../episodic/diff.js';
import type { Clock } from '../episodic/clock.js';
import type { Workspace } from '../store/workspace.js';
import type { Rule } from './model.js';
import { addEvent, getRule, listRules, ruleEvidence, setStatus } from './store.js';

/*
 * Promotion writes proven rules into a delimited, Tenure-managed section of
 * the always-loaded instruction files: AGENTS.md, and
 * .github/copilot-instructions.md when the repository has one. Nothing is
 * written until a person has seen the exact diff and approved it: a plan is
 * computed, shown, and applied only if the files are still exactly as they
 * were when the diff was shown. No tool an agent can call reaches this file.
 */

export const BEGIN = '<!-- BEGIN TENURE RULES: managed by Tenure; change with `tenure rules promote|demote`, audit with `tenure rules audit <id>` -->';
export const END = '<!-- END TENURE RULES -->';
const BEGIN_RE = /<!-- BEGIN TENURE RULES[^\n]*-->/;

const AGENTS_FILE = 'AGENTS.md';
const COPILOT_FILE = '.github/copilot-instructions.md';

/** The instruction files Tenure writes: AGENTS.md always, Copilot's file only where the repository uses it. */
function instructionFiles(root: string): string[] {
  return [AGENTS_FILE, ...(fs.existsSync(path.join(root, COPILOT_FILE)) ? [COPILOT_FILE] : [])];
}

export function ruleLine(r: Pick<Rule, 'id' | 'successes' | 'failures'> & { text: string }): string {
  return `- ${r.text} _(rule ${r.id}: held in ${r.successes} of ${r.successes + r.failures} recorded attempts; \`tenure rules audit ${r.id}\`)_`;
}

export function renderSection(rules: readonly (Pick<Rule, 'id' | 'successes' | 'failures'> & { text: string })[]): string {
  const body = rules.length
    ? ['## Rules learned in this repository', '', 'Learned from the outcomes of earlier attempts (builds, tests, reviews) and approved by a person.', '', ...rules.map(ruleLine)]
    : ['<!-- no promoted rules -->'];
  return [BEGIN, ...body, END].join('\n');
}

/** The file with its managed section replaced (or added at the end); the text between the markers is Tenure's. */
export function withSection(current: string | null, section: string): string {
  if (current === null) return `# AGENTS.md\n\nInstructions for AI coding agents working in this repository.\n\n${section}\n`;
  const begin = BEGIN_RE.exec(current);
  const endAt = current.indexOf(END);
  if (begin && endAt > begin.index) return current.slice(0, begin.index) + section + current.slice(endAt + END.length);
  if (begin || endAt >= 0) {
    throw new TenureError('invalid-input', 'The Tenure section markers in the instruction file are incomplete (one of BEGIN/END TENURE RULES is missing). Fix or remove them by hand, then run the command again.');
  }
  return current.replace(/\s*$/, '') + '\n\n' + section + '\n';
}

export function currentSection(text: string | null): string | null {
  if (text === null) return null;
  const begin = BEGIN_RE.exec(text);
  const endAt = text.indexOf(END);
  return begin && endAt > begin.index ? text.slice(begin.index, endAt + END.length) : null;
}

function sha(text: string | null): string {
  return text === null ? 'absent' : createHash('sha256').update(text).digest('hex');
}

export interface FilePlan {
  readonly path: string;
  readonly before: string | null;
  readonly after: string;
  readonly beforeHash: string;
  readonly diff: string;
  /** The managed section was edited by hand since Tenure wrote it: the diff shows those edits being replaced. */
  readonly handEdited: boolean;
}

export interface SectionPlan {
  readonly promote: readonly Rule[];
  readonly demote: readonly Rule[];
  readonly files: readonly FilePlan[];
  readonly notes: readonly string[];
  /** Identifies exactly this change: what was shown is what is applied. */
  readonly id: string;
}

const IN_FILE = new Set(['promoted', 'demotion-proposed']);

/** Computes the change to the instruction files that promoting and demoting these rules makes. Writes nothing. */
export async function planSectionChange(ws: Workspace, change: { promote?: readonly number[]; demote?: readonly number[] }): Promise<SectionPlan> {
  const db = ws.db;
  const notes: string[] = [];
  const promote: Rule[] = [];
  const demote: Rule[] = [];
  for (const id of change.promote ?? []) {
    const r = await getRule(db, id);
    if (!r) throw new TenureError('invalid-input', `There is no rule ${id}. List rules with \`tenure rules list\`.`);
    if (IN_FILE.has(r.status)) throw new TenureError('invalid-input', `Rule ${id} is already promoted.`);
    if (r.status !== 'proposed') notes.push(`rule ${id} is ${r.status}, not proven (${r.reason ?? 'no reason recorded'}): promoting it is your call`);
    notes.push(...repositoryPatternNotes(ws.root, r));
    promote.push(r);
  }
  for (const id of change.demote ?? []) {
    const r = await getRule(db, id);
    if (!r) throw new TenureError('invalid-input', `There is no rule ${id}. List rules with \`tenure rules list\`.`);
    if (!IN_FILE.has(r.status)) throw new TenureError('invalid-input', `Rule ${id} is ${r.status}, not promoted: there is nothing to demote.`);
    demote.push(r);
  }
  const inFile = (await listRules(db)).filter((r) => IN_FILE.has(r.status));
  const textOf = (r: Rule) => ({ id: r.id, successes: r.successes, failures: r.failures, text: r.promotedText ?? r.text });
  const beforeRules = inFile.map(textOf);
  const afterRules = [...inFile.filter((r) => !demote.some((d) => d.id === r.id)), ...promote].sort((a, b) => a.id - b.id).map(textOf);
  const files: FilePlan[] = [];
  for (const rel of instructionFiles(ws.root)) {
    const abs = path.join(ws.root, rel);
    const outside = outsideWorkspace(ws.root, abs);
    if (outside) {
      notes.push(`${rel}: ${outside}; not written`);
      continue;
    }
    const before = fs.existsSync(abs) ? readWorkspaceText(ws.root, abs) ?? null : null;
    const existing = currentSection(before);
    // Counters in the lines move with the evidence; compare on the rule text only.
    const stripCounts = (s: string) => s.replace(/_\(rule \d+:[^)]*\)_/g, '');
    const handEdited = existing !== null && stripCounts(existing) !== stripCounts(renderSection(beforeRules));
    if (handEdited) notes.push(`${rel}: the Tenure section was edited by hand; the diff shows those edits being replaced`);
    const after = withSection(before, renderSection(afterRules));
    const diff = unifiedDiff(before === null ? '/dev/null' : `a/${rel}`, `b/${rel}`, before ?? '', after);
    if (diff) files.push({ path: rel, before, after, beforeHash: sha(before), diff, handEdited });
  }
  const id = sha(JSON.stringify({ p: promote.map((r) => r.id), d: demote.map((r) => r.id), f: files.map((f) => [f.path, f.beforeHash, sha(f.after)]) })).slice(0, 16);
  return { promote, demote, files, notes, id };
}

export interface ApplyResult {
  readonly written: readonly string[];
  readonly promoted: readonly number[];
  readonly demoted: readonly number[];
}

/**
 * Applies a plan a person approved: the files must be exactly as they were
 * when the plan was made, so the change written is the change seen.
 */
export async function applySectionChange(ws: Workspace, plan: SectionPlan, approval: { approver: string; via: string }, clock: Clock): Promise<ApplyResult> {
  for (const f of plan.files) {
    const abs = path.join(ws.root, f.path);
    const outside = outsideWorkspace(ws.root, abs);
    if (outside) throw new TenureError('invalid-input', `${f.path}: ${outside}. Nothing was written.`);
    const now = fs.existsSync(abs) ? readWorkspaceText(ws.root, abs) ?? null : null;
    if (sha(now) !== f.beforeHash) {
      throw new TenureError('invalid-input', `${f.path} changed after the diff was shown. Nothing was written: run the command again to see the new diff.`);
    }
  }
  const at = clock.now();
  const db = ws.db;
  // Record the decision first: if writing a file fails, the rules roll back with it.
  await db.write(async (d) => {
    for (const r of plan.promote) {
      const evidence = await ruleEvidence(d, r.id);
      await setStatus(d, r.id, 'promoted', `promoted by ${approval.approver}`, { promotedAt: at, promotedText: r.text, reviewedAt: null });
      await addEvent(d, r.id, at, 'promoted', approval.approver, {
        via: approval.via,
        plan: plan.id,
        text: r.text,
        successes: r.successes,
        failures: r.failures,
        lowerBound: r.lowerBound,
        evidence: evidence.map((e) => ({ episode: e.episodeId, role: e.role })),
        diff: plan.files.map((f) => f.diff).join(''),
      });
    }
    for (const r of plan.demote) {
      await setStatus(d, r.id, 'demoted', `demoted by ${approval.approver}`, { demotedAt: at });
      await addEvent(d, r.id, at, 'demoted', approval.approver, { via: approval.via, plan: plan.id, failuresSincePromotion: r.failuresSincePromotion, diff: plan.files.map((f) => f.diff).join('') });
    }
    for (const f of plan.files) {
      const abs = path.join(ws.root, f.path);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      const tmp = `${abs}.tenure-${process.pid}.tmp`;
      fs.writeFileSync(tmp, f.after);
      fs.renameSync(tmp, abs);
    }
  });
  return { written: plan.files.map((f) => f.path), promoted: plan.promote.map((r) => r.id), demoted: plan.demote.map((r) => r.id) };
}

/**
 * A rule's commands whose kind (build, test, generate…) only a pattern from
 * the repository's own settings decided: the repository's author chose what
 * counts as "generate", so the person approving must see it — a rule that
 * says "run `curl … | sh` before `npm test`" can be mined from nine runs of a
 * command the repository classified itself.
 */
function repositoryPatternNotes(root: string, r: Rule): string[] {
  const patterns = loadOptions(root).commandPatterns;
  if (!patterns.length) return [];
  const project = loadProjectCommands(root);
  const out: string[] = [];
  for (const command of Object.values(r.action).filter((v): v is string => typeof v === 'string')) {
    const c = classifyCommand(command, project, patterns);
    if (c.via.startsWith('setting tenure.episodes.commandPatterns')) {
      out.push(`rule ${r.id}: \`${command}\` counts as ${c.kind} only because of ${c.via} in the repository's .vscode/settings.json — a pattern the repository supplied, not you; read the command before approving`);
    }
  }
  return out;
}

/**
 * Why an instruction file would be written outside the workspace (it, or the
 * folder it goes in, is a symlink out of it), or undefined: the repository
 * does not get to choose where Tenure writes.
 */
function outsideWorkspace(root: string, abs: string): string | undefined {
  let dir = path.dirname(abs);
  while (!fs.existsSync(dir) && dir !== root) dir = path.dirname(dir);
  const targets: { shown: string; real: string }[] = [];
  try {
    targets.push({ shown: dir, real: fs.realpathSync(dir) });
  } catch {
    // an unreadable folder: writing there fails on its own
  }
  try {
    // The file itself may be a link, even a broken one, to anywhere.
    if (fs.lstatSync(abs).isSymbolicLink()) targets.push({ shown: abs, real: path.resolve(path.dirname(abs), fs.readlinkSync(abs)) });
  } catch {
    // not there yet
  }
  for (const t of targets) {
    const real = fs.existsSync(t.real) ? fs.realpathSync(t.real) : t.real;
    if (!insideWorkspace(root, real)) return `${path.relative(root, t.shown) || '.'} leads outside the workspace (${real})`;
  }
  return undefined;
}

/** A person declines a proposal (promotion or demotion). Recorded; the rule is not proposed again for it. */
export async function declineProposal(ws: Workspace, id: number, approver: string, clock: Clock, note: string | null): Promise<Rule> {
  const r = await getRule(ws.db, id);
  if (!r) throw new TenureError('invalid-input', `There is no rule ${id}.`);
  const at = clock.now();
  await ws.db.write(async (d) => {
    if (r.status === 'demotion-proposed') {
      await setStatus(d, id, 'promoted', `kept by ${approver} after a demotion proposal`, { reviewedAt: at });
      await addEvent(d, id, at, 'kept', approver, { note });
    } else if (r.status === 'candidate' || r.status === 'proposed') {
      await setStatus(d, id, 'rejected', `rejected by ${approver}${note ? `: ${note}` : ''}`);
      await addEvent(d, id, at, 'rejected', approver, { note });
    } else {
      throw new TenureError('invalid-input', `Rule ${id} is ${r.status}: there is no proposal to decline.`);
    }
  });
  return (await getRule(ws.db, id))!;
}
