import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALWAYS_SKIPPED_DIRS } from '../repo/walk.js';

export interface WatchHandle {
  close(): void;
}

/**
 * Headless file watching for `tenure watch` and `tenure mcp --watch`: a
 * recursive fs.watch on the workspace, every changed path handed on (the
 * session batches them). VS Code hosts use the editor's own watchers.
 */
export function watchFiles(root: string, onPaths: (absPaths: string[]) => void, onError: (e: unknown) => void): WatchHandle {
  const watcher = fs.watch(root, { recursive: true }, (_event, name) => {
    if (!name) return;
    const rel = name.toString();
    if (rel.split(/[\\/]/).some((seg) => ALWAYS_SKIPPED_DIRS.has(seg))) return;
    onPaths([path.join(root, rel)]);
  });
  watcher.on('error', onError);
  return { close: () => watcher.close() };
}
