import type { Command } from 'commander';
import { TenureError } from '../../shared/errors.js';
import { clockFromEnv, describeAge } from '../../core/episodic/clock.js';
import { userEmail, userName } from '../../core/episodic/git.js';
import { loadOptions } from '../../core/episodic/options.js';
import { loadEpisodes } from '../../core/episodic/store.js';
import { RULE_STATUS_MEANING, type RuleStatus } from '../../core/model/rules.js';
import type { Rule } from '../../core/procedural/model.js';
import { applySectionChange, declineProposal, planSectionChange, type SectionPlan } from '../../core/procedural/promotion.js';
import { refreshRules } from '../../core/procedural/refresh.js';
import { getRule, listRules, ruleEvents, ruleEvidence } from '../../core/procedural/store.js';
import type { Workspace } from '../../core/store/workspace.js';
import { confirm, cwdOf, EXIT, refuseInRestricted, withWorkspace } from '../context.js';
import { count, exitWith, recordingRoot, warn } from './recording.js';

/*
 * `tenure rules …`: the procedural memory for people. Promotion and demotion
 * change AGENTS.md, so they show the exact diff and write only after a
 * person's yes; no tool an agent can call reaches them.
 */

/** Who approves: git's user, else the login name. */
async function approver(root: string): Promise<string> {
  const [name, email] = await Promise.all([userName(root), userEmail(root)]);
  return name ? `${name}${email ? ` <${email}>` : ''}` : (process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown person');
}

const STATUS_ORDER: readonly RuleStatus[] = ['proposed', 'demotion-proposed', 'promoted', 'candidate', 'demoted', 'rejected'];

function ruleLine(r: Rule): string {
  return `${String(r.id).padStart(3)} ${r.status.padEnd(17)} ${r.successes}✓ ${r.failures}✗ lb ${r.lowerBound.toFixed(2)}  ${r.promotedText ?? r.text}`;
}

function printPlan(plan: SectionPlan): void {
  for (const r of plan.promote) process.stdout.write(`promote rule ${r.id}: ${r.text}\n  ${r.reason ?? ''}\n`);
  for (const r of plan.demote) process.stdout.write(`demote rule ${r.id}: ${r.promotedText ?? r.text}\n  ${r.reason ?? ''}\n`);
  for (const n of plan.notes) process.stdout.write(`note: ${n}\n`);
  process.stdout.write('\n');
  for (const f of plan.files) process.stdout.write(f.diff + '\n');
}

/**
 * `--yes` without a terminal is how an agent would approve its own rule: refused unless
 * the person running the script said so in the environment (set outside the repository).
 */
export const UNATTENDED_APPROVAL_ENV = 'TENURE_APPROVE_WITHOUT_TERMINAL';

/** Shows the exact diff, asks, and writes only on a person's yes. */
async function reviewAndApply(ws: Workspace, plan: SectionPlan, yes: boolean, verb: string): Promise<number> {
  if (!plan.files.length) {
    for (const n of plan.notes) process.stdout.write(`note: ${n}\n`);
    // No file to change because every one was refused (a link out of the workspace) is not "already says this".
    if (plan.notes.some((n) => /; not written$/.test(n))) {
      process.stderr.write('Nothing written: no instruction file could be written inside the workspace (see the notes above).\n');
      return EXIT.failure;
    }
    process.stdout.write('The instruction files already say this: nothing to write.\n');
    return EXIT.ok;
  }
  const terminal = !!process.stdin.isTTY && !!process.stdout.isTTY;
  const unattended = yes && !terminal;
  if (unattended && process.env[UNATTENDED_APPROVAL_ENV] !== '1') {
    printPlan(plan);
    process.stderr.write(
      `Not written: --yes without a terminal is refused — a person approves what goes into ${plan.files.map((f) => f.path).join(' and ')}. ` +
        `Run this in a terminal and answer the question, or, for a script a person runs, set ${UNATTENDED_APPROVAL_ENV}=1 in its environment (the audit records it).\n`,
    );
    return EXIT.failure;
  }
  printPlan(plan);
  const ok = yes || (await confirm(`Write this change to ${plan.files.map((f) => f.path).join(' and ')}? [y/N] `));
  if (!ok) {
    process.stdout.write(
      process.stdin.isTTY || yes
        ? 'Not written.\n'
        : `Not written: ${verb} needs a person's approval of the diff above. Run this in a terminal to confirm, or pass --yes once you have read it.\n`,
    );
    return EXIT.failure;
  }
  const via = unattended ? `cli --yes without a terminal (${UNATTENDED_APPROVAL_ENV}=1)` : yes ? 'cli --yes in a terminal' : 'cli confirmation';
  const r = await applySectionChange(ws, plan, { approver: await approver(ws.root), via }, clockFromEnv());
  process.stdout.write(`Wrote ${r.written.join(', ')}: ${[...r.promoted.map((id) => `rule ${id} promoted`), ...r.demoted.map((id) => `rule ${id} demoted`)].join(', ')}.\n`);
  return EXIT.ok;
}

const SECTION_CHANGES = {
  promote: { proposed: 'proposed', verb: 'promotion', none: 'No rule is proposed for promotion. `tenure rules list` shows candidates and what each still needs.\n' },
  demote: { proposed: 'demotion-proposed', verb: 'demotion', none: 'No rule is proposed for demotion.\n' },
} as const;

/** `rules promote` and `rules demote`: the rules named (default: every one proposed for it), their diff shown, written on a yes. */
function sectionChange(program: Command, change: keyof typeof SECTION_CHANGES) {
  const c = SECTION_CHANGES[change];
  return async (idArgs: string[], opts: { yes?: boolean }): Promise<void> => {
    refuseInRestricted(program, `${c.verb} into the instruction files (AGENTS.md)`);
    const root = recordingRoot(cwdOf(program));
    const code = await withWorkspace(root, async (ws) => {
      await refreshRules(ws, loadOptions(root, warn), clockFromEnv());
      const chosen = idArgs.length ? idArgs.map(Number) : (await listRules(ws.db, { statuses: [c.proposed] })).map((r) => r.id);
      if (!chosen.length) {
        process.stdout.write(c.none);
        return EXIT.ok;
      }
      return reviewAndApply(ws, await planSectionChange(ws, { [change]: chosen }), !!opts.yes, c.verb);
    });
    if (code) await exitWith(code);
  };
}

export function ruleCommands(program: Command): void {
  const rules = program.command('rules').description('Procedural memory: rules learned from episodes; promotion into AGENTS.md needs your approval.');
  rules
    .command('list')
    .description('Rules mined from the episodes, with their counters, standing and why they are (not yet) proposed.')
    .option('--all', 'include demoted and rejected rules')
    .option('--json', 'print as JSON')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        await refreshRules(ws, loadOptions(root, warn), clockFromEnv());
        const list = (await listRules(ws.db)).filter((r) => opts.all || (r.status !== 'demoted' && r.status !== 'rejected'));
        if (opts.json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        if (!list.length) return void process.stdout.write('No rules yet. Rules are mined from recorded attempts (`tenure run -- <command>`): an ordering that keeps succeeding, a change that keeps failing.\n');
        for (const status of STATUS_ORDER) {
          const group = list.filter((r) => r.status === status);
          if (!group.length) continue;
          process.stdout.write(`${status} (${group.length}) — ${RULE_STATUS_MEANING[status]}:\n`);
          for (const r of group) process.stdout.write(`${ruleLine(r)}\n${r.reason ? `      ${r.reason}\n` : ''}`);
        }
      });
    });

  rules
    .command('promote')
    .description('Show the exact change to AGENTS.md (and .github/copilot-instructions.md if present) that promoting rules makes, and write it after you confirm.')
    .argument('[ids...]', 'rule ids (default: every proposed rule)')
    .option('-y, --yes', 'approve without asking (for scripts: read the diff first)')
    .action(sectionChange(program, 'promote'));

  rules
    .command('demote')
    .description('Show the change that takes promoted rules out of AGENTS.md, and write it after you confirm.')
    .argument('[ids...]', 'rule ids (default: every rule proposed for demotion)')
    .option('-y, --yes', 'approve without asking')
    .action(sectionChange(program, 'demote'));

  rules
    .command('reject')
    .description('Decline a proposal: a proposed rule becomes rejected; a rule proposed for demotion is kept (its failures count afresh).')
    .argument('<id>', 'rule id', (v) => Number(v))
    .option('--note <text>', 'why')
    .action(async (id: number, opts: { note?: string }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const r = await declineProposal(ws, id, await approver(root), clockFromEnv(), opts.note ?? null);
        process.stdout.write(`Rule ${id} is now ${r.status}.\n`);
      });
    });

  rules
    .command('audit')
    .description('Why a rule is what it is: the episodes that proved (or broke) it, and every decision taken on it, with the diff that was approved.')
    .argument('<id>', 'rule id', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(async (id: number, opts: { json?: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const r = await getRule(ws.db, id);
        if (!r) throw new TenureError('invalid-input', `There is no rule ${id}. List rules with \`tenure rules list --all\`.`);
        const evidence = await ruleEvidence(ws.db, id);
        const events = await ruleEvents(ws.db, id);
        const episodes = new Map((await loadEpisodes(ws.db, evidence.map((e) => e.episodeId))).map((e) => [e.id, e]));
        if (opts.json) return void process.stdout.write(JSON.stringify({ rule: r, evidence, events, episodes: [...episodes.values()] }, null, 2) + '\n');
        const now = clockFromEnv().now();
        const out = [`rule ${r.id} (${r.kind}) — ${r.status}: ${RULE_STATUS_MEANING[r.status]}`, `  ${r.promotedText ?? r.text}`];
        if (r.promotedText && r.promotedText !== r.text) out.push(`  mining now says: ${r.text}`);
        out.push(`  ${count(r.successes, 'success', 'successes')}, ${count(r.failures, 'failure')}, Wilson lower bound ${r.lowerBound.toFixed(2)}${r.reason ? `; ${r.reason}` : ''}`);
        out.push(`evidence (${evidence.length} episodes):`);
        for (const e of evidence) {
          const ep = episodes.get(e.episodeId);
          out.push(`  ${e.role === 'success' ? '✓' : '✗'} #${e.episodeId} ${describeAge(now - e.at)} — ${e.detail}${ep ? ` [${ep.outcome.kind} ${ep.outcome.status}${ep.archivedAt ? ', archived' : ''}]` : ''}`);
        }
        out.push(`decisions (${events.length}):`);
        for (const ev of events) {
          const d = ev.detail as { diff?: string; via?: string; note?: string } | null;
          out.push(`  ${new Date(ev.at).toISOString().slice(0, 16).replace('T', ' ')} ${ev.event} by ${ev.actor}${d?.via ? ` (${d.via})` : ''}${d?.note ? `: ${d.note}` : ''}`);
          if (d?.diff) out.push(...d.diff.trimEnd().split('\n').map((l) => `      ${l}`));
        }
        process.stdout.write(out.join('\n') + '\n');
      });
    });
}
