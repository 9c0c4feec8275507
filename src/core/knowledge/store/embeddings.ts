import type { Db } from '../../store/db.js';
import { inSlices, replaceRows } from './rows.js';

/*
 * Vectors by the hash of the text embedded and the embedder (kn_embeddings),
 * stored as base64 of little-endian float32. Vectors of different embedders
 * are never compared.
 */

function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

function decodeVector(s: string): Float32Array {
  const buf = Buffer.from(s, 'base64');
  const out = new Float32Array(buf.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** Which of these text hashes this embedder has a vector for. */
export async function embeddedHashes(db: Db, embedder: string, hashes: readonly string[]): Promise<Set<string>> {
  const rows = await inSlices(hashes, (slice) => db.all<{ hash: string }>('SELECT hash FROM kn_embeddings WHERE embedder = ? AND hash IN (SELECT value FROM json_each(?))', [embedder, slice]));
  return new Set(rows.map((r) => r.hash));
}

export async function saveEmbeddings(w: Db, embedder: string, vectors: readonly { hash: string; vector: Float32Array }[]): Promise<void> {
  await replaceRows(w, 'kn_embeddings', ['hash', 'embedder', 'dims', 'vector'], vectors.map((v) => [v.hash, embedder, v.vector.length, encodeVector(v.vector)]));
}

/** This embedder's vectors for these text hashes. */
export async function vectorsOf(db: Db, embedder: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
  const rows = await inSlices(hashes, (slice) => db.all<{ hash: string; vector: string }>('SELECT hash, vector FROM kn_embeddings WHERE embedder = ? AND hash IN (SELECT value FROM json_each(?))', [embedder, slice]));
  return new Map(rows.map((r) => [r.hash, decodeVector(r.vector)]));
}

/** The embedders whose vectors are stored, the one with most vectors first. */
export async function storedEmbedders(db: Db): Promise<string[]> {
  return (await db.all<{ embedder: string }>('SELECT embedder, count(*) AS n FROM kn_embeddings GROUP BY embedder ORDER BY n DESC')).map((r) => r.embedder);
}
