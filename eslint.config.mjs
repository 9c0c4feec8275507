// Lint enforces the architecture, not just style: src/core never imports
// vscode, src/webview never imports node built-ins, and no promise is dropped
// by accident (`void` marks the ones dropped on purpose).
import tseslint from 'typescript-eslint';

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
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts', 'src/cli/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/vscode may import vscode: the core is headless.' }] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../core/*', '../vscode/*', '../cli/*', '../mcp/*'], message: 'src/shared imports nothing of ours.' }] }],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'path', 'child_process', 'os'], message: 'Webview code runs in a browser.' }] }],
    },
  },
);
