/*
 * The episodic memory's vocabulary. An episode is one attempt: what was
 * touched, what ran, and the outcome the build system (or CI, or a reviewer)
 * decided. Conclusions are what an agent or person made of it: kept apart,
 * at lower confidence, decaying.
 */

/** What a command does, for matching repeats and mining rules. */
export type CommandKind = 'build' | 'test' | 'lint' | 'generate' | 'other';
export const COMMAND_KINDS: readonly CommandKind[] = ['build', 'test', 'lint', 'generate', 'other'];

/** What decided the outcome. Every one of these is outside the agent: that is why outcomes are high confidence. */
export type OutcomeSource = 'build-system' | 'test-report' | 'ci' | 'review' | 'git';

/** Kinds of outcome: a command's exit, a test report, a CI check, a review, a commit. */
export type OutcomeKind = CommandKind | 'review' | 'ci' | 'commit';

/** `interrupted`: Tenure was stopped (killed) between starting a command and recording how it ended: the outcome is unknown, and says so. */
export type OutcomeStatus = 'success' | 'failure' | 'rejected' | 'cancelled' | 'interrupted' | 'recorded';
export const OUTCOME_STATUSES: readonly OutcomeStatus[] = ['success', 'failure', 'rejected', 'cancelled', 'interrupted', 'recorded'];

/** How the episode was captured. */
export type CaptureSource = 'run' | 'terminal' | 'task' | 'junit' | 'import' | 'github' | 'git';

export type Actor = 'agent' | 'person' | 'ci';

/**
 * Confidence of an episode's parts. The outcome is always `high`: a process
 * exit code, a test report, a CI check or a review decision. A conclusion
 * carries a number that decays with a half-life.
 */
export type OutcomeConfidence = 'high';

export interface FailingTest {
  readonly suite: string | null;
  readonly name: string;
  readonly status: 'failed' | 'error';
  readonly message: string | null;
  readonly file: string | null;
}

export interface TestSummary {
  readonly total: number;
  readonly failed: number;
  readonly errors: number;
  readonly skipped: number;
  /** Report files read, workspace-relative. */
  readonly reports: readonly string[];
  readonly failing: readonly FailingTest[];
}

/** One symbol (or file) an attempt changed, mapped through the structural index. */
export interface Touch {
  readonly path: string;
  /** Stable symbol id; null when the change is outside any indexed symbol (or the file is not indexed). */
  readonly sid: string | null;
  readonly qname: string | null;
  readonly kind: string | null;
  /** Lines changed inside it. */
  readonly lines: number;
  readonly change: 'modified' | 'added' | 'deleted';
  /** Structural fingerprint at the time (a bottom-k sketch), for drift. */
  readonly fingerprint: string | null;
  /**
   * Changed since the previous outcome of any kind. An attempt's touches are
   * everything changed since the previous run of the same kind (a test run is
   * charged with the edits made before the generator ran, too); `fresh` says
   * which of them happened right before this episode.
   */
  readonly fresh: boolean;
}

export interface Outcome {
  readonly kind: OutcomeKind;
  readonly status: OutcomeStatus;
  readonly source: OutcomeSource;
  readonly confidence: OutcomeConfidence;
  readonly exitCode: number | null;
  /** A short excerpt a person can check: failing test names, the error lines. */
  readonly evidence: string | null;
}

/** An episode as it is written. */
export interface NewEpisode {
  readonly uid?: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly source: CaptureSource;
  readonly actor: Actor | null;
  readonly intent: string | null;
  readonly command: string | null;
  readonly commandKind: CommandKind | null;
  readonly cwd: string | null;
  readonly branch: string | null;
  readonly head: string | null;
  readonly commitMessage: string | null;
  readonly diff: { readonly files: number; readonly added: number; readonly removed: number };
  /** How touches were found, in words ("working-tree diff since episode #41"). */
  readonly touchBasis: string | null;
  readonly touches: readonly Touch[];
  readonly outcome: Outcome;
  readonly tests: TestSummary | null;
}

export interface Episode extends NewEpisode {
  readonly id: number;
  readonly uid: string;
  readonly archivedAt: number | null;
  readonly archiveReason: string | null;
}

/** CI's own record of a run: which system, which pipeline. Only a CI identity can write one to a team store. */
export interface CiRun {
  readonly provider: 'github-actions' | 'gitlab-ci' | 'jenkins';
  readonly pipelineUrl: string | null;
  readonly job: string | null;
}

/** Where a stored episode came from: this clone, or the team store (with who wrote it there). */
export interface EpisodeProvenance {
  readonly origin: 'local' | 'team';
  /** The team store's login that wrote it; null for local episodes. */
  readonly recordedBy: string | null;
  /** The git identity of the clone that pushed it: a label, not a proof. */
  readonly author: string | null;
  readonly ci: CiRun | null;
}

export type AuthorKind = 'agent' | 'person';

export interface Conclusion {
  readonly id: number;
  readonly uid: string;
  readonly episodeId: number | null;
  readonly at: number;
  readonly author: string;
  readonly authorKind: AuthorKind;
  readonly text: string;
  /** Confidence when recorded. */
  readonly confidence: number;
  readonly halfLifeDays: number;
  readonly symbols: readonly { readonly sid: string | null; readonly qname: string | null; readonly path: string | null }[];
  readonly archivedAt: number | null;
  /** Set when the conclusion was pulled from a team store: the login that wrote it there. */
  readonly team?: { readonly recordedBy: string | null };
}

/** Confidence after decay: c · 2^(−age / half-life). */
export function decayedConfidence(c: Pick<Conclusion, 'confidence' | 'halfLifeDays' | 'at'>, now: number): number {
  const ageDays = Math.max(0, now - c.at) / 86_400_000;
  return c.confidence * Math.pow(0.5, ageDays / c.halfLifeDays);
}

export const OUTCOME_MEANING =
  'outcomes were decided by the build system, a test report, CI or a reviewer: high confidence, they never decay';
export const CONCLUSION_MEANING = "conclusions are an agent's or person's own reading: low confidence, decaying with a half-life";
