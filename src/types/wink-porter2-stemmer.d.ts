declare module 'wink-porter2-stemmer' {
  /** Porter's second English stemmer: a lower-case word's stem (`sharding` → `shard`). */
  function stem(word: string): string;
  export = stem;
}
