import * as path from 'node:path';

/**
 * The languages the inventory reads. Code has a tree-sitter grammar (WASM,
 * from @vscode/tree-sitter-wasm) and a tag query in grammars/<id>.scm whose
 * capture names follow one convention (see grammars/README.md), so the
 * extractor is the same code for every language. Configuration files have no
 * grammar: their keys are read by a parser of the format (configFiles.ts) and
 * become symbols of the `config` scheme, which code reads by key.
 */
export type ConfigFormat = 'yaml' | 'json' | 'properties' | 'toml' | 'dotenv';

export interface LanguageSpec {
  /** Query file and language id. */
  readonly id: 'typescript' | 'tsx' | 'javascript' | 'python' | 'java' | 'go' | ConfigFormat;
  /** Symbol id scheme. TypeScript and JavaScript share one namespace: they import each other. */
  readonly scheme: 'ts' | 'py' | 'java' | 'go' | 'config';
  /** The tree-sitter grammar; absent for a configuration format. */
  readonly grammar?: string;
  readonly extensions: readonly string[];
  /** Receivers that mean "the enclosing class". */
  readonly selfNames: readonly string[];
  /** How the language separates a container from a member in people's writing. */
  readonly memberSeparator: string;
}

export const LANGUAGES: readonly LanguageSpec[] = [
  { id: 'typescript', scheme: 'ts', grammar: 'tree-sitter-typescript.wasm', extensions: ['.ts', '.mts', '.cts'], selfNames: ['this', 'super'], memberSeparator: '.' },
  { id: 'tsx', scheme: 'ts', grammar: 'tree-sitter-tsx.wasm', extensions: ['.tsx'], selfNames: ['this', 'super'], memberSeparator: '.' },
  { id: 'javascript', scheme: 'ts', grammar: 'tree-sitter-javascript.wasm', extensions: ['.js', '.jsx', '.mjs', '.cjs'], selfNames: ['this', 'super'], memberSeparator: '.' },
  { id: 'python', scheme: 'py', grammar: 'tree-sitter-python.wasm', extensions: ['.py', '.pyi'], selfNames: ['self', 'cls', 'super()'], memberSeparator: '.' },
  { id: 'java', scheme: 'java', grammar: 'tree-sitter-java.wasm', extensions: ['.java'], selfNames: ['this', 'super'], memberSeparator: '.' },
  { id: 'go', scheme: 'go', grammar: 'tree-sitter-go.wasm', extensions: ['.go'], selfNames: [], memberSeparator: '.' },
  { id: 'yaml', scheme: 'config', extensions: ['.yml', '.yaml'], selfNames: [], memberSeparator: '.' },
  { id: 'json', scheme: 'config', extensions: ['.json'], selfNames: [], memberSeparator: '.' },
  { id: 'properties', scheme: 'config', extensions: ['.properties'], selfNames: [], memberSeparator: '.' },
  { id: 'toml', scheme: 'config', extensions: ['.toml'], selfNames: [], memberSeparator: '.' },
  { id: 'dotenv', scheme: 'config', extensions: ['.env'], selfNames: [], memberSeparator: '.' },
];

/** A language read with a tree-sitter grammar and a tag query. */
export type CodeLanguageSpec = LanguageSpec & { readonly grammar: string };

export function isCode(spec: LanguageSpec): spec is CodeLanguageSpec {
  return spec.grammar !== undefined;
}

export const CODE_LANGUAGES: readonly CodeLanguageSpec[] = LANGUAGES.filter(isCode);

const BY_EXTENSION = new Map<string, LanguageSpec>();
for (const l of LANGUAGES) for (const e of l.extensions) BY_EXTENSION.set(e, l);

/**
 * YAML, JSON and TOML files are configuration when their name or folder says
 * so (application.yml, config/default.json, settings.toml, appsettings.json):
 * a repository holds many more of them that are data, fixtures, CI pipelines
 * or lockfiles, and their keys are no one's settings.
 */
const CONFIG_NAME = /^(application|bootstrap|config|configuration|settings|appsettings|app|default|defaults|values|custom-environment-variables)([-._][\w.-]*)?$/i;
const CONFIG_SUFFIX = /[-._](config|settings|conf)$/i;
const CONFIG_FOLDERS: ReadonlySet<string> = new Set(['config', 'configs', 'conf', 'settings']);
/** Folders whose YAML is a pipeline or a tool's own, never read by the code. */
const NOT_CONFIG_FOLDERS: ReadonlySet<string> = new Set(['.github', '.gitlab', '.circleci', '.buildkite', 'node_modules']);

function isDotenv(base: string): boolean {
  return base === '.env' || base.startsWith('.env.') || (base.endsWith('.env') && base.length > 4);
}

/** The language of a file by its path (a bare name, or a path whose folders say more: `config/production.json`). */
export function languageForPath(file: string): LanguageSpec | undefined {
  if (file.endsWith('.d.ts')) return BY_EXTENSION.get('.ts');
  const base = path.basename(file);
  if (isDotenv(base)) return BY_EXTENSION.get('.env');
  const ext = path.extname(base).toLowerCase();
  const spec = BY_EXTENSION.get(ext);
  if (!spec || spec.scheme !== 'config' || spec.id === 'properties') return spec;
  const folders = path.dirname(file).split(/[\\/]/);
  if (folders.some((f) => NOT_CONFIG_FOLDERS.has(f))) return undefined;
  const stem = base.slice(0, base.length - ext.length);
  if (CONFIG_NAME.test(stem) || CONFIG_SUFFIX.test(stem) || folders.some((f) => CONFIG_FOLDERS.has(f.toLowerCase()))) return spec;
  return undefined;
}

/** Whether a bare file name could be read once its folder is known (a JSON, YAML or TOML file under `config/`). */
export function mayBeConfigByFolder(name: string): boolean {
  const spec = BY_EXTENSION.get(path.extname(name).toLowerCase());
  return spec !== undefined && spec.scheme === 'config';
}

export function languageById(id: string): LanguageSpec | undefined {
  return LANGUAGES.find((l) => l.id === id);
}

/**
 * Programming languages the inventory has no grammar for, by extension. Their
 * files are counted, not read, so an answer can say what it could not see
 * ("this workspace has 1,204 Rust files, which Tenure does not index")
 * instead of "No dependents found" or "no such symbol" as if the code were
 * not there. Extensions that more than one language uses (`.m`, `.pl`) are
 * left out rather than guessed.
 */
const UNREAD_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ...['.rs'].map((e) => [e, 'Rust'] as const),
  ...['.c', '.h'].map((e) => [e, 'C'] as const),
  ...['.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx'].map((e) => [e, 'C++'] as const),
  ...['.cs'].map((e) => [e, 'C#'] as const),
  ...['.kt', '.kts'].map((e) => [e, 'Kotlin'] as const),
  ...['.scala', '.sc'].map((e) => [e, 'Scala'] as const),
  ...['.swift'].map((e) => [e, 'Swift'] as const),
  ...['.rb'].map((e) => [e, 'Ruby'] as const),
  ...['.php'].map((e) => [e, 'PHP'] as const),
  ...['.dart'].map((e) => [e, 'Dart'] as const),
  ...['.ex', '.exs'].map((e) => [e, 'Elixir'] as const),
  ...['.erl', '.hrl'].map((e) => [e, 'Erlang'] as const),
  ...['.hs'].map((e) => [e, 'Haskell'] as const),
  ...['.clj', '.cljs', '.cljc'].map((e) => [e, 'Clojure'] as const),
  ...['.lua'].map((e) => [e, 'Lua'] as const),
  ...['.zig'].map((e) => [e, 'Zig'] as const),
  ...['.groovy'].map((e) => [e, 'Groovy'] as const),
  ...['.vue'].map((e) => [e, 'Vue'] as const),
  ...['.svelte'].map((e) => [e, 'Svelte'] as const),
]);

/** The programming language of a file the inventory does not read, if its extension names one. */
export function unreadLanguageForPath(file: string): string | undefined {
  return UNREAD_LANGUAGES.get(path.extname(file).toLowerCase());
}

/** The languages whose code the structural memory holds, as people name them. */
export const READ_LANGUAGE_NAMES = 'TypeScript, JavaScript, Python, Java and Go';
