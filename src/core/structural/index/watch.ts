import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALWAYS_SKIPPED_DIRS } from '../../repo/walk.js';
import type { StructuralIndexer } from './indexer.js';

export interface WatchHandle {
  close(): void;
}

/**
 * Headless file watching for `tenure watch` and `tenure mcp --watch`:
 * recursive fs.watch, changes batched over a short debounce, each batch
 * re-indexed incrementally.
 */
export function watchWorkspace(
  indexer: StructuralIndexer,
  onBatch: (result: { files: string[]; parsed: number; removed: number; ms: number }) => void,
  onError: (e: unknown) => void,
  debounceMs = 25,
): WatchHandle {
  const root = indexer.workspace.root;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const files = [...pending];
    pending.clear();
    indexer.updateFiles(files).then((r) => onBatch({ files, ...r }), onError);
  };
  const watcher = fs.watch(root, { recursive: true }, (_event, name) => {
    if (!name) return;
    const rel = name.toString();
    if (rel.split(/[\\/]/).some((seg) => ALWAYS_SKIPPED_DIRS.has(seg))) return;
    pending.add(path.join(root, rel));
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  });
  watcher.on('error', onError);
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
