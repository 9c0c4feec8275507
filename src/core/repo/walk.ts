/*
 * The repository under index is untrusted input. Every walk of its files
 * starts from what is here.
 */

/** Folders that are never source, whatever .gitignore says. */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.tenure', 'node_modules', '.vscode-test', '__pycache__']);
