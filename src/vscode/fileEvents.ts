import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALWAYS_SKIPPED_DIRS } from '../core/repo/walk.js';
import { LANGUAGES, languageForPath } from '../core/structural/inventory/languages.js';

/** What the file events feed: the session's change queue. */
export interface FileEventsHost {
  changed(absPaths: readonly string[]): void;
  /** Re-index open files from the editor's text as you type. */
  indexUnsaved(): boolean;
  readonly log: vscode.LogOutputChannel;
}

/**
 * Source files the core reads, changed on disk (any tool) or saved in the
 * editor. A folder that appears or disappears (a checkout, an unzip, `rm -r`)
 * is reported as the folder alone: files written into a new folder before the
 * OS watch on it exists produce no event of their own, so the folder is
 * queued and the indexer expands it (its files, or the indexed files that
 * were under it).
 */
export function watchSourceFiles(root: string, host: FileEventsHost): vscode.Disposable[] {
  const exts = [...new Set(LANGUAGES.flatMap((l) => l.extensions.map((e) => e.slice(1))))].sort();
  const sources = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), `**/*.{${exts.join(',')}}`));
  const onSource = (uri: vscode.Uri): void => {
    host.log.trace(`changed: ${uri.toString()}`);
    if (uri.scheme !== 'file' || !isSource(root, uri.fsPath)) return;
    host.changed([uri.fsPath]);
  };
  // Everything else, created or deleted, to catch folders.
  const all = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*'), false, true, false);
  const isSourceName = (p: string): boolean => languageForPath(p) !== undefined;
  const onCreateAny = (uri: vscode.Uri): void => {
    if (uri.scheme !== 'file' || isSourceName(uri.fsPath) || !isSource(root, uri.fsPath)) return;
    void fs.promises.stat(uri.fsPath).then(
      (st) => {
        if (st.isDirectory()) {
          host.log.trace(`folder created: ${uri.fsPath}`);
          host.changed([uri.fsPath]);
        }
      },
      () => undefined,
    );
  };
  const onDeleteAny = (uri: vscode.Uri): void => {
    // Gone, so no stat: a name without an extension is most likely a folder.
    if (uri.scheme !== 'file' || isSourceName(uri.fsPath) || !isSource(root, uri.fsPath) || path.extname(uri.fsPath)) return;
    host.log.trace(`folder deleted: ${uri.fsPath}`);
    host.changed([uri.fsPath]);
  };
  return [
    sources,
    sources.onDidCreate(onSource),
    sources.onDidChange(onSource),
    sources.onDidDelete(onSource),
    all,
    all.onDidCreate(onCreateAny),
    all.onDidDelete(onDeleteAny),
    vscode.workspace.onDidSaveTextDocument((doc) => onSource(doc.uri)),
    // Unsaved edits: re-index from the editor's text (debounced by the queue), so lenses follow typing.
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (!host.indexUnsaved() || !e.contentChanges.length || e.document.uri.scheme !== 'file') return;
      if (languageForPath(e.document.uri.fsPath) === undefined || !isSource(root, e.document.uri.fsPath)) return;
      host.changed([e.document.uri.fsPath]);
    }),
  ];
}

function isSource(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  return !rel.split(path.sep).some((part) => ALWAYS_SKIPPED_DIRS.has(part));
}
