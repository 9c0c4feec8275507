import * as fs from 'node:fs';
import * as path from 'node:path';
import { unsafeRegexReason } from '../../shared/safeRegex.js';
import { readWorkspaceText } from '../repo/read.js';
import type { CommandKind } from './model.js';

/**
 * Every threshold of the episodic and procedural memories, with its default.
 * The same keys are VS Code settings (`tenure.episodes.*`, `tenure.rules.*`);
 * the CLI and MCP server read them from the workspace's .vscode/settings.json,
 * so a team sets them once for every front door.
 */
export interface MemoryOptions {
  /** Ranking only: how fast an episode's rank weight halves with age. Outcomes keep their confidence forever. */
  readonly recencyHalfLifeDays: number;
  /** Share of rank weight an old episode always keeps, so a years-old failure still ranks above nothing. */
  readonly recencyFloor: number;
  /** Half-life of an agent's conclusion's confidence. */
  readonly conclusionHalfLifeDays: number;
  /** Starting confidence of an agent's conclusion. */
  readonly agentConclusionConfidence: number;
  /** Half-life and starting confidence of a person's note (human feedback). */
  readonly personConclusionHalfLifeDays: number;
  readonly personConclusionConfidence: number;
  /** A conclusion may attach itself to the latest episode if it ended at most this long ago. */
  readonly conclusionAttachMinutes: number;
  /** Archive an episode when its symbols' code is less similar than this to what it was (0..1). */
  readonly archiveSimilarity: number;
  /** Size cap: active (not archived) episodes kept; the lowest-weight ones beyond it are archived. */
  readonly maxActiveEpisodes: number;
  /** How often recording also runs eviction, at most. */
  readonly evictionIntervalHours: number;
  /** Where test runners write JUnit XML (gitignore-style globs, relative to the workspace root). */
  readonly junitGlobs: readonly string[];
  /** Extra command classification rules, tried before the built-in ones. */
  readonly commandPatterns: readonly { readonly pattern: string; readonly kind: CommandKind }[];
  /** Record unclassified terminal commands too (tenure run always records). */
  readonly captureOtherCommands: boolean;
  /** Procedural: successes a rule needs before it is proposed for promotion. */
  readonly ruleMinSuccesses: number;
  /** Procedural: the Wilson lower bound of its success rate must reach this. */
  readonly rulePromotionLowerBound: number;
  /** Procedural: a failure within this many days blocks a proposal. */
  readonly ruleRecentFailureDays: number;
  /** Procedural: failures since promotion that make Tenure propose demotion. */
  readonly ruleDemotionMinFailures: number;
  /** Procedural: episodes (newest first) that mining reads. */
  readonly ruleMiningEpisodes: number;
}

const DEFAULT_JUNIT_GLOBS: readonly string[] = [
  '**/TEST-*.xml',
  '**/surefire-reports/*.xml',
  '**/failsafe-reports/*.xml',
  '**/test-results/**/*.xml',
  '**/test-reports/**/*.xml',
  '**/*junit*.xml',
  '**/*xunit*.xml',
  'reports/**/*.xml',
];

export const DEFAULT_OPTIONS: MemoryOptions = {
  recencyHalfLifeDays: 90,
  recencyFloor: 0.15,
  conclusionHalfLifeDays: 14,
  agentConclusionConfidence: 0.3,
  personConclusionHalfLifeDays: 180,
  personConclusionConfidence: 0.7,
  conclusionAttachMinutes: 30,
  archiveSimilarity: 0.5,
  maxActiveEpisodes: 20_000,
  evictionIntervalHours: 6,
  junitGlobs: DEFAULT_JUNIT_GLOBS,
  commandPatterns: [],
  captureOtherCommands: false,
  ruleMinSuccesses: 3,
  rulePromotionLowerBound: 0.5,
  ruleRecentFailureDays: 14,
  ruleDemotionMinFailures: 2,
  ruleMiningEpisodes: 2_000,
};

type Kind = 'number' | 'fraction' | 'integer' | 'boolean' | 'globs' | 'patterns';

/** One setting: its VS Code key, the option it fills, and how to check a value. */
export interface SettingSpec {
  readonly key: string;
  readonly option: keyof MemoryOptions;
  readonly kind: Kind;
  readonly description: string;
}

export const MEMORY_SETTINGS: readonly SettingSpec[] = [
  { key: 'tenure.episodes.recencyHalfLifeDays', option: 'recencyHalfLifeDays', kind: 'number', description: 'Ranking of earlier attempts: days for an episode\'s rank weight to halve. Outcomes never lose confidence; only their rank fades.' },
  { key: 'tenure.episodes.recencyFloor', option: 'recencyFloor', kind: 'fraction', description: 'Share of rank weight an old episode always keeps (0–1).' },
  { key: 'tenure.episodes.conclusionHalfLifeDays', option: 'conclusionHalfLifeDays', kind: 'number', description: 'Days for the confidence of an agent\'s own conclusion to halve.' },
  { key: 'tenure.episodes.agentConclusionConfidence', option: 'agentConclusionConfidence', kind: 'fraction', description: 'Starting confidence of an agent\'s conclusion (0–1); build-system outcomes are always high.' },
  { key: 'tenure.episodes.personConclusionHalfLifeDays', option: 'personConclusionHalfLifeDays', kind: 'number', description: 'Days for the confidence of a person\'s note to halve.' },
  { key: 'tenure.episodes.personConclusionConfidence', option: 'personConclusionConfidence', kind: 'fraction', description: 'Starting confidence of a person\'s note (0–1).' },
  { key: 'tenure.episodes.conclusionAttachMinutes', option: 'conclusionAttachMinutes', kind: 'number', description: 'A conclusion recorded without an episode attaches to the latest one if it ended at most this many minutes ago.' },
  { key: 'tenure.episodes.archiveSimilarity', option: 'archiveSimilarity', kind: 'fraction', description: 'Archive an episode when the code of the symbols it touched is less similar than this to what it was then (structural fingerprint, 0–1).' },
  { key: 'tenure.episodes.maxActive', option: 'maxActiveEpisodes', kind: 'integer', description: 'Size cap: active episodes kept; beyond it the lowest-weight ones are archived (never deleted).' },
  { key: 'tenure.episodes.evictionIntervalHours', option: 'evictionIntervalHours', kind: 'number', description: 'Recording runs eviction at most this often.' },
  { key: 'tenure.episodes.junitGlobs', option: 'junitGlobs', kind: 'globs', description: 'Where test runners write JUnit XML reports (Surefire, pytest --junitxml, jest-junit, mocha xunit), as globs relative to the workspace root.' },
  { key: 'tenure.episodes.commandPatterns', option: 'commandPatterns', kind: 'patterns', description: 'Extra command classifications, tried first: [{ "pattern": "regex", "kind": "build|test|lint|generate|other" }].' },
  { key: 'tenure.episodes.captureOtherCommands', option: 'captureOtherCommands', kind: 'boolean', description: 'Record terminal commands that are not build, test, lint or generate commands too.' },
  { key: 'tenure.rules.minSuccesses', option: 'ruleMinSuccesses', kind: 'integer', description: 'Successes a learned rule needs before Tenure proposes promoting it into AGENTS.md.' },
  { key: 'tenure.rules.promotionLowerBound', option: 'rulePromotionLowerBound', kind: 'fraction', description: 'The Wilson lower bound (95%) of a rule\'s success rate must reach this before promotion is proposed (0–1).' },
  { key: 'tenure.rules.recentFailureDays', option: 'ruleRecentFailureDays', kind: 'number', description: 'A rule that failed within this many days is not proposed.' },
  { key: 'tenure.rules.demotionMinFailures', option: 'ruleDemotionMinFailures', kind: 'integer', description: 'Failures after promotion that make Tenure propose demoting a rule.' },
  { key: 'tenure.rules.miningEpisodes', option: 'ruleMiningEpisodes', kind: 'integer', description: 'How many of the newest episodes rule mining reads.' },
];

const KINDS: readonly CommandKind[] = ['build', 'test', 'lint', 'generate', 'other'];

function valid(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) && v > 0;
    case 'fraction':
      return typeof v === 'number' && v >= 0 && v <= 1;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) && v >= 0;
    case 'boolean':
      return typeof v === 'boolean';
    case 'globs':
      return Array.isArray(v) && v.every((g) => typeof g === 'string' && g.trim() !== '');
    case 'patterns':
      return (
        Array.isArray(v) &&
        v.every((p) => {
          const o = p as { pattern?: unknown; kind?: unknown };
          if (typeof o?.pattern !== 'string' || !KINDS.includes(o.kind as CommandKind)) return false;
          // Linear-time RE2 only: a pattern from the repository's settings cannot hang a run.
          return unsafeRegexReason(o.pattern) === undefined;
        })
      );
  }
}

/**
 * Options from settings: `get(key)` returns a setting's value or undefined.
 * A value of the wrong type is reported through `warn` and its default kept.
 */
export function optionsFromSettings(get: (key: string) => unknown, warn: (message: string) => void = () => undefined): MemoryOptions {
  const out: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const s of MEMORY_SETTINGS) {
    const v = get(s.key);
    if (v === undefined || v === null) continue;
    if (valid(s.kind, v)) out[s.option] = v;
    else warn(`Setting ${s.key} = ${JSON.stringify(v)} is not a valid ${s.kind}${s.kind === 'patterns' ? ' (each needs a pattern RE2 accepts — no backreferences or lookaround — and a kind build, test, lint, generate or other)' : ''}; using the default ${JSON.stringify(DEFAULT_OPTIONS[s.option])}.`);
  }
  return out as unknown as MemoryOptions;
}

/** JSON with comments and trailing commas, as VS Code writes settings.json. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** The options a headless front door uses: defaults, overridden by the workspace's .vscode/settings.json. */
export function loadOptions(root: string, warn: (message: string) => void = () => undefined): MemoryOptions {
  const file = path.join(root, '.vscode', 'settings.json');
  let settings: Record<string, unknown> = {};
  try {
    if (fs.existsSync(file)) settings = (parseJsonc(readWorkspaceText(root, file) ?? '{}') ?? {}) as Record<string, unknown>;
  } catch (e) {
    warn(`Cannot read ${file} (${e instanceof Error ? e.message : String(e)}); using default episode and rule settings.`);
  }
  return optionsFromSettings((key) => settings[key], warn);
}
