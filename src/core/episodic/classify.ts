import * as path from 'node:path';
import { safeRegex } from '../../shared/safeRegex.js';
import type { CommandKind } from './model.js';
import { parseJsonc } from './options.js';
import { readWorkspaceText } from '../repo/read.js';

/*
 * What a command does: build, test, lint, generate or other. Read from what
 * the project says first (package.json scripts, Makefile targets, VS Code
 * tasks and their groups), then from the tools a command runs. A compound
 * command (`npm run gen && npm test`) keeps its parts in order, so rule
 * mining sees that generation came first.
 */

export interface ProjectCommands {
  /** package.json script name → body. */
  readonly scripts: ReadonlyMap<string, string>;
  /** Makefile target → recipe lines joined. */
  readonly makeTargets: ReadonlyMap<string, string>;
  /** VS Code tasks: label, command line, group. */
  readonly tasks: readonly { readonly label: string; readonly command: string | null; readonly group: string | null }[];
}

export interface CommandPart {
  /** Normalised command: `npm test`, `npm run gen:mappers`, `make build`. */
  readonly key: string;
  readonly kind: CommandKind;
  /** What decided the kind, for the record: "package.json script \"test\" runs mocha". */
  readonly via: string;
}

export interface Classification {
  readonly key: string;
  readonly kind: CommandKind;
  readonly via: string;
  readonly parts: readonly CommandPart[];
  /** Navigation and inspection commands (cd, ls, git status…): never episodes from a terminal. */
  readonly trivial: boolean;
}

const EMPTY: ProjectCommands = { scripts: new Map(), makeTargets: new Map(), tasks: [] };

export function loadProjectCommands(root: string): ProjectCommands {
  const scripts = new Map<string, string>();
  try {
    const pkg = JSON.parse(readWorkspaceText(root, path.join(root, 'package.json')) ?? '{}') as { scripts?: Record<string, unknown> };
    for (const [k, v] of Object.entries(pkg.scripts ?? {})) if (typeof v === 'string') scripts.set(k, v);
  } catch {
    // no package.json or not JSON: nothing to learn from it
  }
  const makeTargets = new Map<string, string>();
  for (const name of ['Makefile', 'makefile', 'GNUmakefile']) {
    let text: string;
    try {
      const read = readWorkspaceText(root, path.join(root, name));
      if (read === undefined) continue;
      text = read;
    } catch {
      continue;
    }
    let current: string[] = [];
    for (const line of text.split(/\r?\n/)) {
      const target = /^([A-Za-z0-9_.\-/]+(?:\s+[A-Za-z0-9_.\-/]+)*)\s*:(?!=)/.exec(line);
      if (target && !line.startsWith('\t')) {
        current = target[1]!.split(/\s+/).filter((t) => !t.startsWith('.'));
        for (const t of current) if (!makeTargets.has(t)) makeTargets.set(t, '');
      } else if (line.startsWith('\t')) {
        for (const t of current) makeTargets.set(t, `${makeTargets.get(t) ?? ''} ${line.trim()}`.trim());
      }
    }
    break;
  }
  const tasks: { label: string; command: string | null; group: string | null }[] = [];
  try {
    const json = parseJsonc(readWorkspaceText(root, path.join(root, '.vscode', 'tasks.json')) ?? '{}') as { tasks?: unknown[] };
    for (const t of json.tasks ?? []) {
      const task = t as { label?: unknown; command?: unknown; args?: unknown; script?: unknown; type?: unknown; group?: unknown };
      const group = typeof task.group === 'string' ? task.group : typeof (task.group as { kind?: unknown })?.kind === 'string' ? (task.group as { kind: string }).kind : null;
      let command: string | null = null;
      if (typeof task.command === 'string') command = [task.command, ...(Array.isArray(task.args) ? task.args.filter((a): a is string => typeof a === 'string') : [])].join(' ');
      else if (task.type === 'npm' && typeof task.script === 'string') command = `npm run ${task.script}`;
      const label = typeof task.label === 'string' ? task.label : command ?? '';
      if (label) tasks.push({ label, command, group });
    }
  } catch {
    // no tasks.json
  }
  return { scripts, makeTargets, tasks };
}

/** Patterns over the tools a command runs. Order matters: the first match wins. */
const TOOL_PATTERNS: readonly [RegExp, CommandKind][] = [
  [/\b(protoc|buf generate|openapi-generator(-cli)?|swagger-codegen|graphql-codegen|prisma generate|sqlc generate|go generate|flatc|thrift|mapstruct|jooq-codegen|xjc|wsimport|antlr4?)\b/, 'generate'],
  [/\b(mvnw?|\.\/mvnw)\b.*\bgenerate-(test-)?sources\b/, 'generate'],
  [/\bgradlew?\b.*\b\w*[Gg]enerate\w*\b/, 'generate'],
  [/\b(eslint|tslint|prettier\s+(--check|-c)|biome\s+(check|lint|ci)|ruff(\s+check)?|flake8|pylint|mypy|pyright|black\s+--check|isort\s+--check|golangci-lint|go\s+vet|cargo\s+clippy|cargo\s+fmt\s+--\s*--check|cargo\s+fmt\s+--check|stylelint|shellcheck|ktlint|rubocop|hadolint|markdownlint|checkstyle|spotless:check|tsc\s+.*--noEmit)\b/, 'lint'],
  [/\b(jest|vitest|mocha|ava|tap|jasmine|karma|pytest|py\.test|nose2|tox|nox|phpunit|rspec|ctest|playwright\s+test|cypress\s+run)\b/, 'test'],
  [/\bpython3?\s+-m\s+(pytest|unittest)\b/, 'test'],
  [/\bnode\b.*\s--test(\s|=|$)/, 'test'],
  [/\b(go|cargo|dotnet|deno|bun|swift|mix|zig)\s+test\b/, 'test'],
  [/\bcargo\s+nextest\b/, 'test'],
  [/\b(mvnw?|\.\/mvnw)\b.*\b(test|verify|integration-test)\b/, 'test'],
  [/\bgradlew?\b.*\b(test|check|integrationTest)\b/, 'test'],
  [/\b(npm|pnpm|yarn|bun)\s+(run\s+)?(test|t)\b/, 'test'],
  [/\b(tsc|esbuild|webpack|rollup|parcel\s+build|vite\s+build|next\s+build|swc|babel|ng\s+build)\b/, 'build'],
  [/\b(go|cargo|dotnet|swift|zig)\s+build\b/, 'build'],
  [/\bcargo\s+check\b/, 'build'],
  [/\b(mvnw?|\.\/mvnw)\b.*\b(compile|package|install|deploy)\b/, 'build'],
  [/\bgradlew?\b.*\b(build|assemble|compile\w*|jar)\b/, 'build'],
  [/\b(cmake\s+--build|ninja|bazel\s+build|msbuild|javac|gcc|g\+\+|clang)\b/, 'build'],
  [/\bbazel\s+test\b/, 'test'],
];

/** Script or target names that say what they do. */
function kindFromName(name: string): CommandKind | null {
  const n = name.toLowerCase();
  if (/^(gen|generate|codegen|regen|regenerate)([:_-].*)?$|[:_-](gen|generate|codegen)$/.test(n)) return 'generate';
  if (/^(test|tests|spec|e2e|unit|integration|coverage|cover)([:_-].*)?$|[:_-](test|tests|spec|e2e)$/.test(n)) return 'test';
  if (/^(lint|format|fmt|typecheck|type-check|check-types|stylecheck|prettier|eslint)([:_-].*)?$|[:_-](lint|typecheck)$/.test(n)) return 'lint';
  if (/^(build|compile|bundle|package|dist|assemble|all)([:_-].*)?$|[:_-](build|compile)$/.test(n)) return 'build';
  return null;
}

const TRIVIAL = /^(cd|pushd|popd|ls|ll|la|dir|pwd|echo|printf|cat|bat|less|more|head|tail|clear|cls|history|exit|logout|vi|vim|nvim|nano|emacs|code|open|xdg-open|man|which|where|type|whoami|env|export|set|unset|source|alias|true|false|sleep|touch|mkdir|rmdir|cp|mv|rm|ln|chmod|chown|find|grep|rg|ag|fd|tree|du|df|ps|top|htop|kill|jobs|fg|bg|wc|sort|uniq|diff|curl|wget|ssh|scp)\b|^git\s+(status|log|diff|show|branch|remote|fetch|stash\s+list|blame|reflog|config|rev-parse|ls-files|describe|tag\s*$)\b/;

/** Splits `a && b; c || d | e` into its command parts (quotes respected); pipes stay inside one part. */
export function splitCompound(command: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      cur += c;
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') cur += command[++i] ?? '';
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      cur += c;
    } else if ((c === '&' && command[i + 1] === '&') || (c === '|' && command[i + 1] === '|')) {
      parts.push(cur);
      cur = '';
      i++;
    } else if (c === ';' || c === '\n') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** One command, normalised: env assignments and runner noise removed, npm's synonyms unified. */
export function normalizeCommand(command: string): string {
  let c = command.trim().replace(/\s+/g, ' ');
  c = c.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, '');
  c = c.replace(/^(?:time|command|exec|nohup)\s+/, '');
  c = c.replace(/^(npm|pnpm|yarn|bun)\s+run-script\s+/, '$1 run ');
  c = c.replace(/^npm\s+(?:t|tst|run\s+test)(\s|$)/, 'npm test$1');
  c = c.replace(/^(pnpm|yarn|bun)\s+run\s+test(\s|$)/, '$1 test$2');
  c = c.replace(/^npx\s+--no(-install)?\s+/, 'npx ');
  c = c.replace(/^(\.\/)?(node_modules\/\.bin\/)/, '');
  return c.trim();
}

function scriptName(part: string): { runner: 'npm' | 'make'; name: string } | null {
  let m = /^(?:npm|pnpm|bun)\s+(?:run\s+)?([^\s]+)/.exec(part);
  if (m && /^(?:npm|pnpm|bun)\s+run\s/.test(part)) return { runner: 'npm', name: m[1]! };
  m = /^(?:npm|pnpm|yarn|bun)\s+(test|start|build|lint)\b/.exec(part);
  if (m) return { runner: 'npm', name: m[1]! };
  m = /^yarn\s+(?:run\s+)?([^\s-][^\s]*)/.exec(part);
  if (m) return { runner: 'npm', name: m[1]! };
  m = /^(?:make|gmake)(?:\s+-\S+)*(?:\s+([A-Za-z0-9_.\-/]+))?/.exec(part);
  if (m) return { runner: 'make', name: m[1] ?? '' };
  return null;
}

function classifyPart(part: string, project: ProjectCommands, patterns: readonly { pattern: string; kind: CommandKind }[], depth: number): CommandPart {
  const key = normalizeCommand(part);
  for (const p of patterns) {
    try {
      if (safeRegex(p.pattern).test(key)) return { key, kind: p.kind, via: `setting tenure.episodes.commandPatterns /${p.pattern}/` };
    } catch {
      // an invalid pattern is reported when settings are read
    }
  }
  const task = project.tasks.find((t) => t.command && normalizeCommand(t.command) === key && (t.group === 'build' || t.group === 'test'));
  if (task) return { key, kind: task.group as CommandKind, via: `VS Code task "${task.label}" in group ${task.group}` };
  const script = scriptName(key);
  if (script?.runner === 'npm') {
    const body = project.scripts.get(script.name);
    if (body !== undefined && depth < 4) {
      const inner = classifyCompound(body, project, patterns, depth + 1);
      if (inner.kind !== 'other') return { key, kind: inner.kind, via: `package.json script "${script.name}" (${inner.via})` };
    }
    const byName = kindFromName(script.name);
    if (byName) return { key, kind: byName, via: `script name "${script.name}"` };
  }
  if (script?.runner === 'make') {
    const name = script.name || [...project.makeTargets.keys()][0] || '';
    const recipe = project.makeTargets.get(name);
    if (recipe && depth < 4) {
      const inner = classifyCompound(recipe, project, patterns, depth + 1);
      if (inner.kind !== 'other') return { key, kind: inner.kind, via: `Makefile target "${name}" (${inner.via})` };
    }
    const byName = kindFromName(name);
    if (byName) return { key, kind: byName, via: `Makefile target "${name}"` };
    if (!script.name) return { key, kind: 'build', via: 'make with the default target' };
  }
  for (const [re, kind] of TOOL_PATTERNS) if (re.test(key)) return { key, kind, via: `runs ${re.exec(key)![0].trim()}` };
  return { key, kind: 'other', via: 'no build, test, lint or generate tool recognised' };
}

/** Which kind a compound command counts as: the part with the most at stake. */
const PRIORITY: readonly CommandKind[] = ['test', 'build', 'lint', 'generate', 'other'];

function classifyCompound(command: string, project: ProjectCommands, patterns: readonly { pattern: string; kind: CommandKind }[], depth: number): Classification {
  const parts = splitCompound(command).map((p) => classifyPart(p, project, patterns, depth));
  const main = [...parts].sort((a, b) => PRIORITY.indexOf(a.kind) - PRIORITY.indexOf(b.kind))[0] ?? { key: normalizeCommand(command), kind: 'other' as const, via: 'empty command' };
  const key = parts.map((p) => p.key).join(' && ') || normalizeCommand(command);
  return { key, kind: main.kind, via: main.via, parts, trivial: parts.length > 0 && parts.every((p) => p.kind === 'other' && TRIVIAL.test(p.key)) };
}

export function classifyCommand(command: string, project: ProjectCommands = EMPTY, patterns: readonly { pattern: string; kind: CommandKind }[] = []): Classification {
  return classifyCompound(command, project, patterns, 0);
}
