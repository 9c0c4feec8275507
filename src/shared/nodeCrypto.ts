/**
 * node:crypto, loaded at its first use rather than when a module holding a
 * hash is loaded: a CLI query that hashes nothing spent about 5 ms of its
 * start loading it. Node keeps the module once loaded, so each call after the
 * first is a lookup.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:crypto') as typeof import('node:crypto');
}
