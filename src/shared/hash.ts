/** FNV-1a, 32 bits, over a string's UTF-16 code units: small, fast and stable across runs and machines. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
