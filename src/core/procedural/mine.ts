import { classifyCommand, type ProjectCommands } from '../episodic/classify.js';
import type { CommandKind } from '../episodic/model.js';
import type { StoredEpisode } from '../episodic/store.js';
import type { Evidence, Finding, Trigger } from './model.js';
import { wilsonLowerBound } from './wilson.js';

/*
 * Rule mining: pure functions from episodes (oldest first) to findings.
 *
 * order — "when P changes, run G before T": for each run of a test or build
 *   command T, the window since T's previous run; if it changed files
 *   matching P, did a generate command G run (and succeed) before T?
 *   Followed and T passed, or skipped and T failed: the rule held.
 *   Skipped and T passed: it was not needed. Followed and T failed the way
 *   skipping fails: it did not help. A failure of another kind (a test the
 *   rule has nothing to do with) is not charged to the rule.
 * co-change — "changes to X that did not also change Y failed": attempts
 *   touching X, split by whether they touched Y.
 */

const COMPILE_ERROR = /error TS\d+|cannot find symbol|compilation (failed|error)|SyntaxError|Cannot find module|does not exist on type|is missing in type|has no exported member|undefined reference|unresolved reference|error\[E\d+\]|BUILD FAILURE|cannot be resolved/i;

/** What kind of failure an episode had: the suites that failed, or "compile". */
export function failureSignature(e: StoredEpisode): Set<string> {
  const sig = new Set<string>();
  if (e.outcome.evidence && COMPILE_ERROR.test(e.outcome.evidence)) sig.add('compile');
  for (const f of e.tests?.failing ?? []) sig.add(`test:${f.suite ?? f.name}`);
  if (!sig.size) sig.add(`exit:${e.commandKind ?? 'other'}`);
  return sig;
}

const DECIDED = new Set(['success', 'failure', 'rejected']);

/** Episodes before a run that mining considers at most (since the previous run of the same command). */
const MAX_WINDOW = 200;

interface Part {
  key: string;
  kind: CommandKind;
}

function partsOf(e: StoredEpisode, project: ProjectCommands, patterns: readonly { pattern: string; kind: CommandKind }[]): Part[] {
  if (!e.command) return [];
  const c = classifyCommand(e.command, project, patterns);
  // A compound command's own kind was decided when it was recorded; keep parts for ordering.
  return c.parts.map((p) => ({ key: p.key, kind: p.kind }));
}

/** The file itself, its folder and its top-level folder: where a trigger may generalise. */
export function triggerCandidates(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(p);
    const segs = p.split('/');
    for (let n = segs.length - 1; n >= 1; n--) out.add(`${segs.slice(0, n).join('/')}/**`);
  }
  return out;
}

export function matchesTrigger(glob: string, p: string): boolean {
  if (glob === '*') return true;
  if (glob.endsWith('/**')) return p.startsWith(glob.slice(0, -2));
  return glob === p;
}

function specificity(t: string): number {
  if (t === '*') return 0;
  if (t.endsWith('/**')) return t.split('/').length - 1;
  return 100;
}

interface Observation {
  readonly episode: StoredEpisode;
  readonly followed: boolean;
  readonly passed: boolean;
  readonly signature: Set<string>;
  readonly generator: number | null;
}

function describeTrigger(t: string): string {
  if (t === '*') return '';
  if (t.endsWith('/**')) return `When files under \`${t.slice(0, -2)}\` change, `;
  return `When \`${t}\` changes, `;
}

function orderFindings(episodes: readonly StoredEpisode[], project: ProjectCommands, patterns: readonly { pattern: string; kind: CommandKind }[]): Finding[] {
  const parts = new Map(episodes.map((e) => [e.id, partsOf(e, project, patterns)]));
  const generators = new Set<string>();
  for (const e of episodes) for (const p of parts.get(e.id)!) if (p.kind === 'generate') generators.add(p.key);
  if (!generators.size) return [];

  // (G, T, trigger) → observations
  const obs = new Map<string, { g: string; t: string; trigger: string; list: Observation[] }>();
  const lastRun = new Map<string, number>();
  episodes.forEach((e, i) => {
    const ps = parts.get(e.id)!;
    const tIndex = ps.findIndex((p) => p.kind === 'test' || p.kind === 'build');
    if (tIndex < 0 || !DECIDED.has(e.outcome.status)) return;
    const t = ps[tIndex]!.key;
    const from = (lastRun.get(t) ?? -1) + 1;
    lastRun.set(t, i);
    // Long gaps between runs of T make huge windows: what happened long before is not this run's doing.
    const window = episodes.slice(Math.max(from, i + 1 - MAX_WINDOW), i + 1);
    // Where each trigger last changed in the window: a change recorded with episode j was made before j ran,
    // so a generator run at j or later saw it.
    const lastChange = new Map<string, number>();
    window.forEach((w, j) => {
      for (const x of w.touches) {
        if (!x.fresh) continue;
        for (const c of triggerCandidates([x.path])) lastChange.set(c, j);
        lastChange.set('*', j);
      }
    });
    const changed = new Set(window.flatMap((w) => w.touches.map((x) => x.path)));
    if (!changed.size) return;
    // The last successful run of each generator in the window, by position.
    const ranAt = new Map<string, { at: number; id: number }>();
    window.slice(0, -1).forEach((w, j) => {
      if (w.outcome.status !== 'success') return;
      for (const p of parts.get(w.id)!) if (p.kind === 'generate') ranAt.set(p.key, { at: j, id: w.id });
    });
    // `npm run gen && npm test` in one command: generation came after every change and succeeded, or T would not have run.
    const inline = new Set(ps.slice(0, tIndex).filter((p) => p.kind === 'generate').map((p) => p.key));
    const passed = e.outcome.status === 'success';
    const signature = passed ? new Set<string>() : failureSignature(e);
    for (const trigger of [...triggerCandidates(changed), '*']) {
      const last = lastChange.get(trigger);
      if (last === undefined) continue;
      for (const g of generators) {
        const r = ranAt.get(g);
        const followed = inline.has(g) || (r !== undefined && r.at >= last);
        const o: Observation = { episode: e, followed, passed, signature, generator: inline.has(g) ? e.id : followed ? r!.id : null };
        const k = `${g}\u0000${t}\u0000${trigger}`;
        let entry = obs.get(k);
        if (!entry) obs.set(k, (entry = { g, t, trigger, list: [] }));
        entry.list.push(o);
      }
    }
  });

  // Score each candidate; keep the best trigger for each (G, T).
  const best = new Map<string, { finding: Finding; lb: number; spec: number; n: number }>();
  for (const { g, t, trigger, list } of obs.values()) {
    const preventable = new Set(list.filter((o) => !o.followed && !o.passed).flatMap((o) => [...o.signature]));
    const evidence: Evidence[] = [];
    for (const o of list) {
      const when = o.episode.startedAt;
      if (o.followed && o.passed) evidence.push({ episodeId: o.episode.id, role: 'success', detail: `ran \`${g}\` first${o.generator !== null && o.generator !== o.episode.id ? ` (#${o.generator})` : ''}; \`${t}\` passed`, at: when });
      else if (!o.followed && !o.passed) evidence.push({ episodeId: o.episode.id, role: 'success', detail: `skipped \`${g}\`; \`${t}\` failed (${[...o.signature].join(', ')})`, at: when });
      else if (!o.followed && o.passed) evidence.push({ episodeId: o.episode.id, role: 'failure', detail: `skipped \`${g}\`; \`${t}\` passed anyway`, at: when });
      else if (!preventable.size || [...o.signature].some((s) => preventable.has(s))) {
        evidence.push({ episodeId: o.episode.id, role: 'failure', detail: `ran \`${g}\` first; \`${t}\` still failed (${[...o.signature].join(', ')})`, at: when });
      }
    }
    const followedPassed = list.filter((o) => o.followed && o.passed).length;
    const s = evidence.filter((x) => x.role === 'success').length;
    if (followedPassed < 1 || s < 2) continue;
    const lb = wilsonLowerBound(s, evidence.length);
    const key = `order:${g}\u2192${t}`;
    const spec = specificity(trigger);
    const prev = best.get(key);
    const better = !prev || lb > prev.lb + 1e-9 || (Math.abs(lb - prev.lb) <= 1e-9 && (spec < prev.spec || (spec === prev.spec && evidence.length > prev.n)));
    if (!better) continue;
    const triggerObj: Trigger = { paths: trigger === '*' ? [] : [trigger], sids: [], qnames: [] };
    best.set(key, {
      lb,
      spec,
      n: evidence.length,
      finding: {
        key,
        kind: 'order',
        text: `${describeTrigger(trigger)}${trigger === '*' ? 'Run' : 'run'} \`${g}\` before \`${t}\`.`,
        trigger: triggerObj,
        action: { before: g, then: t },
        evidence,
      },
    });
  }
  return [...best.values()].map((b) => b.finding);
}

function coChangeFindings(episodes: readonly StoredEpisode[], minFailures: number): Finding[] {
  const decided = episodes.filter((e) => DECIDED.has(e.outcome.status) && e.touches.length && e.commandKind !== 'generate' && e.commandKind !== 'lint');
  const keyOf = (t: StoredEpisode['touches'][number]) => (t.sid ? `sid:${t.sid}` : `path:${t.path}`);
  const label = new Map<string, { qname: string | null; path: string; sid: string | null }>();
  const touched = new Map<number, Set<string>>();
  for (const e of decided) {
    const set = new Set<string>();
    for (const t of e.touches) {
      if (t.change === 'deleted') continue;
      const k = keyOf(t);
      set.add(k);
      if (!label.has(k)) label.set(k, { qname: t.qname, path: t.path, sid: t.sid });
    }
    touched.set(e.id, set);
  }
  const failedBy = new Map<string, number>();
  for (const e of decided) if (e.outcome.status !== 'success') for (const k of touched.get(e.id)!) failedBy.set(k, (failedBy.get(k) ?? 0) + 1);
  const out: Finding[] = [];
  for (const [x, nFailed] of failedBy) {
    if (nFailed < minFailures) continue;
    const withX = decided.filter((e) => touched.get(e.id)!.has(x));
    const failedX = withX.filter((e) => e.outcome.status !== 'success').length;
    const passedX = withX.length - failedX;
    // One pass: for each partner Y, how the attempts that changed it too came out.
    const withY = new Map<string, { passed: number; failed: number }>();
    for (const e of withX) {
      const ok = e.outcome.status === 'success';
      for (const y of touched.get(e.id)!) {
        if (y === x) continue;
        let c = withY.get(y);
        if (!c) withY.set(y, (c = { passed: 0, failed: 0 }));
        if (ok) c.passed++;
        else c.failed++;
      }
    }
    let best: { y: string; lb: number } | undefined;
    for (const [y, c] of withY) {
      if (!c.passed) continue;
      const withoutFailed = failedX - c.failed;
      const withoutPassed = passedX - c.passed;
      if (withoutFailed < minFailures || withoutPassed > 0) continue;
      const lx = label.get(x)!;
      const ly = label.get(y)!;
      if (lx.path === ly.path && !lx.sid) continue;
      const lb = wilsonLowerBound(c.passed + withoutFailed, withX.length);
      if (!best || lb > best.lb) best = { y, lb };
    }
    if (!best) continue;
    const lx = label.get(x)!;
    const ly = label.get(best.y)!;
    const nameX = lx.qname ?? lx.path;
    const nameY = ly.qname ?? ly.path;
    const evidence: Evidence[] = withX.map((e) => {
      const hasY = touched.get(e.id)!.has(best!.y);
      const ok = e.outcome.status === 'success';
      const what = e.outcome.status === 'rejected' ? 'was rejected' : ok ? 'succeeded' : `failed (${e.outcome.kind})`;
      return { episodeId: e.id, role: hasY === ok ? 'success' : 'failure', detail: `changed ${nameX} ${hasY ? `and ${nameY}` : `without ${nameY}`}; ${what}`, at: e.startedAt };
    });
    out.push({
      key: `co-change:${x}+${best.y}`,
      kind: 'co-change',
      text: `When changing \`${nameX}\`, also change \`${nameY}\`: changes to it that did not failed or were rejected.`,
      trigger: { paths: lx.sid ? [] : [lx.path], sids: lx.sid ? [lx.sid] : [], qnames: lx.qname ? [lx.qname] : [] },
      action: { with: nameY, withSid: ly.sid, withPath: ly.path },
      evidence,
    });
  }
  return out;
}

export function mineFindings(episodes: readonly StoredEpisode[], project: ProjectCommands, patterns: readonly { pattern: string; kind: CommandKind }[] = [], minCoChangeFailures = 2): Finding[] {
  const sorted = [...episodes].sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
  return [...orderFindings(sorted, project, patterns), ...coChangeFindings(sorted, minCoChangeFailures)];
}
