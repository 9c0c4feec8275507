import porter2 from 'wink-porter2-stemmer';

/** A light English stemmer for matching, not for display: retries → retry, policies → policy, attempts → attempt. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (/(ss|us|is|ous)$/.test(w)) return w;
  if (/(xes|ches|shes|sses|zes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

/**
 * A word's root by Porter's second stemmer, derivations folded together (sharding → shard, partitioning and
 * partition → partit, compaction → compact): for telling that two short texts say the same thing in other word
 * forms, where the light stemmer above would keep them apart. Not for matching a name in text.
 */
export function rootOf(word: string): string {
  return porter2(word.toLowerCase());
}
