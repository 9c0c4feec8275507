/**
 * Keys to values, each key's values held as compactly as their number allows: one value as itself, a few as a
 * list, and past `setPast` (when given) a set, so that a value leaves a long key in constant time. In a large
 * repository most names have one symbol and are used in one file: a list or a set for each of them was a tenth of
 * the structural index's memory. Values are never arrays or sets themselves. Order is the order values came in.
 */
export class CompactMultimap<K, V> {
  private readonly map = new Map<K, V | V[] | Set<V>>();

  constructor(private readonly setPast = Infinity) {}

  add(key: K, value: V): void {
    const held = this.map.get(key);
    if (held === undefined) this.map.set(key, value);
    else if (held instanceof Set) held.add(value);
    else if (!Array.isArray(held)) this.map.set(key, [held, value]);
    else if (held.push(value) > this.setPast) this.map.set(key, new Set(held));
  }

  delete(key: K, value: V): void {
    const held = this.map.get(key);
    if (held instanceof Set) {
      if (held.delete(value) && held.size === 0) this.map.delete(key);
    } else if (Array.isArray(held)) {
      const i = held.indexOf(value);
      if (i >= 0) held.splice(i, 1);
      if (held.length === 0) this.map.delete(key);
    } else if (held === value) this.map.delete(key);
  }

  /** A key's values, in the order they came in. */
  values(key: K): Iterable<V> {
    const held = this.map.get(key);
    return held instanceof Set ? held : this.list(key);
  }

  /** A key's values as a list (a copy only for a key held as a set). */
  list(key: K): readonly V[] {
    const held = this.map.get(key);
    return held === undefined ? [] : Array.isArray(held) ? held : held instanceof Set ? [...held] : [held];
  }
}
