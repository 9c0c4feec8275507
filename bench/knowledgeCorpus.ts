import { collectSources } from '../src/core/knowledge/sources/documents.js';

/** Bytes of the documents the knowledge memory reads in a folder (not the code). */
export async function corpusBytes(root: string): Promise<number> {
  return (await collectSources(root, { git: false })).documents.reduce((n, d) => n + Buffer.byteLength(d.text), 0);
}

