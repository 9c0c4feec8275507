import { collectSources } from '../src/core/knowledge/sources/documents.js';

/** Bytes of the documents the knowledge memory reads in a folder (not the code). */
export function corpusBytes(root: string): number {
  return collectSources(root, { git: false }).documents.reduce((n, d) => n + Buffer.byteLength(d.text), 0);
}

