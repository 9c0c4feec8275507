import * as path from 'node:path';

/**
 * The languages the inventory reads. Each has a tree-sitter grammar (WASM,
 * from @vscode/tree-sitter-wasm) and a tag query in grammars/<id>.scm whose
 * capture names follow one convention (see grammars/README.md), so the
 * extractor is the same code for every language.
 */
export interface LanguageSpec {
  /** Query file and language id. */
  readonly id: 'typescript' | 'tsx' | 'javascript' | 'python' | 'java' | 'go';
  /** Symbol id scheme. TypeScript and JavaScript share one namespace: they import each other. */
  readonly scheme: 'ts' | 'py' | 'java' | 'go';
  readonly grammar: string;
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
];

const BY_EXTENSION = new Map<string, LanguageSpec>();
for (const l of LANGUAGES) for (const e of l.extensions) BY_EXTENSION.set(e, l);

export function languageForPath(file: string): LanguageSpec | undefined {
  if (file.endsWith('.d.ts')) return BY_EXTENSION.get('.ts');
  return BY_EXTENSION.get(path.extname(file).toLowerCase());
}

export function languageById(id: string): LanguageSpec | undefined {
  return LANGUAGES.find((l) => l.id === id);
}
