// Lint enforces the architecture, not just style. The layers below are the
// intended architecture (DESIGN.md), one line a layer: what it may import.
// The import zones are generated from that table, a new import cycle fails,
// SQL is allowed only where a memory owns its tables, src/core never imports
// vscode, and no promise is dropped by accident (`void` marks the ones
// dropped on purpose).
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const shared = 'src/shared';
const model = 'src/core/model';
const store = 'src/core/store';
const repo = 'src/core/repo';
const llm = 'src/core/llm';
const linking = 'src/core/linking';
const structural = 'src/core/structural';
const knowledge = 'src/core/knowledge';
const episodic = 'src/core/episodic';
const procedural = 'src/core/procedural';
const compose = 'src/core/compose';
const tools = 'src/core/tools';
const session = 'src/core/session';
const team = 'src/core/team';
/** The composition root of the database: it knows every memory's schema. */
const root = 'src/core/workspace.ts';
const vscode = 'src/vscode';
const cli = 'src/cli';
const mcp = 'src/mcp';
const webview = 'src/webview';

/**
 * The symbol namespace is the seam where the memories meet (SPEC: "one
 * symbol namespace"): every memory may resolve a name to a symbol through it,
 * and through nothing else of the structural memory.
 */
const SEAM = { layer: structural, only: ['./lookup.ts'] };

/**
 * The team store shares what the memories own, through each memory's store
 * API (its typed reads and writes), never their logic: the sync moves rows,
 * the memories decide what they mean.
 */
const STORE_APIS = [
  { layer: episodic, only: ['./store.ts', './model.ts'] },
  { layer: procedural, only: ['./store.ts', './model.ts'] },
  { layer: knowledge, only: ['./store'] },
];

const base = [shared, model, store];
const memories = [structural, knowledge, episodic, procedural];

/** layer → what it may import (besides itself). */
const LAYERS = {
  [shared]: [],
  [model]: [shared],
  [store]: [shared, model],
  [repo]: [shared, model],
  [llm]: [shared, model],
  [linking]: [shared, model],
  [structural]: [...base, repo, linking],
  [knowledge]: [...base, repo, linking, llm, SEAM],
  [episodic]: [...base, repo, linking, SEAM],
  // Learned rules are derived from episodes: the procedural memory reads the episodic one.
  [procedural]: [...base, repo, linking, episodic, SEAM],
  [compose]: [...base, repo, linking, llm, ...memories],
  [tools]: [...base, repo, linking, llm, ...memories, compose],
  // Sync with a PostgreSQL team store; only the session and the front doors reach it.
  [team]: [...base, repo, llm, ...STORE_APIS],
  [session]: [...base, repo, linking, llm, ...memories, compose, tools, root, team],
  [root]: [...base, ...memories],
  [mcp]: [...base, repo, llm, ...memories, compose, tools, session, root, team],
  [cli]: [...base, repo, llm, ...memories, compose, tools, session, root, mcp, team],
  [vscode]: [...base, repo, llm, ...memories, compose, tools, session, root, webview, team],
};

const ALL = Object.keys(LAYERS);
const zones = [];
for (const [target, allowed] of Object.entries(LAYERS)) {
  for (const other of ALL) {
    if (other === target) continue;
    const rule = allowed.find((a) => (typeof a === 'string' ? a : a.layer) === other);
    if (typeof rule === 'string') continue;
    zones.push({
      target: `./${target}`,
      from: `./${other}`,
      ...(rule ? { except: rule.only } : {}),
      message: rule ? `${target} may use ${other} only through ${rule.only.join(', ')} (eslint.config.mjs: LAYERS).` : `${target} may not import ${other} (eslint.config.mjs: LAYERS).`,
    });
  }
}

/**
 * zod's named `z` is a namespace every bundle then carries whole (every locale of its error messages): with
 * `import * as z from 'zod'` the bundler keeps only what the code uses.
 */
const zodWhole = { selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']", message: "Import zod as a namespace (import * as z from 'zod'): the named `z` takes all of zod, locales included, into every bundle." };

/** SQL text: a statement keyword followed by what makes it a statement. */
const SQL = String.raw`/\b(SELECT\s[\s\S]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|VIEW|TRIGGER))\b/`;
const noSql = {
  'no-restricted-syntax': [
    'error',
    { selector: `Literal[value=${SQL}]`, message: 'SQL belongs to the memory that owns the tables (src/core/<memory>/…store.ts): call its typed API.' },
    { selector: `TemplateElement[value.raw=${SQL}]`, message: 'SQL belongs to the memory that owns the tables (src/core/<memory>/…store.ts): call its typed API.' },
    zodWhole,
  ],
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.vscode-test/**', 'examples/**', 'test/fixtures/**', 'test/e2e/probe/**', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
      'no-restricted-syntax': ['error', zodWhole],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts', 'src/cli/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/vscode may import vscode: the core is headless.' }] }],
    },
  },
  {
    files: [`${compose}/**/*.ts`, `${tools}/**/*.ts`, `${session}/**/*.ts`, `${vscode}/**/*.ts`, `${cli}/**/*.ts`, `${mcp}/**/*.ts`, `${linking}/**/*.ts`, `${llm}/**/*.ts`, `${repo}/**/*.ts`],
    rules: noSql,
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      // A browser bundle: the shapes of the answers it draws come from the core as types only.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'child_process', 'os'], message: 'Webview code runs in a browser.' },
            { group: ['../core/*', '../vscode/*', '../shared/*'], allowTypeImports: true, message: 'Webview code runs in a browser: it takes only types from the extension.' },
          ],
        },
      ],
    },
  },
);
