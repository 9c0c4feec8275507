/** FNV-1a's offset basis: the hash of nothing, where a hash over several strings starts. */
export const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a, 32 bits, over a string's UTF-16 code units: small, fast and stable across runs and machines. */
export function fnv1a(s: string, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
