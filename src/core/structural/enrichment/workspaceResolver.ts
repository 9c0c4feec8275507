import type { Db } from '../../store/db.js';
import { ResolutionStore, type ApplyResult } from './store.js';
import type { EdgeResolver } from './types.js';

/**
 * Runs one resolver over the whole workspace (a `workspace` unit) and
 * applies its answer at its own tier and under its own source: what the
 * enrichment pass does for an artifact resolver, for an import that wants
 * the edges now. Null when the resolver cannot start (`onUnavailable` is told
 * why).
 */
export async function applyWorkspaceResolver(
  db: Db,
  root: string,
  resolver: EdgeResolver,
  options: { readonly signal?: AbortSignal; readonly log?: (message: string) => void; readonly onUnavailable?: (e: unknown) => void } = {},
): Promise<ApplyResult | null> {
  const ctx = { root, signal: options.signal ?? new AbortController().signal, log: options.log ?? (() => undefined) };
  try {
    await resolver.start(ctx);
  } catch (e) {
    options.onUnavailable?.(e);
    return null;
  }
  try {
    const batch = await resolver.resolve({ kind: 'workspace' }, ctx);
    return await new ResolutionStore(db).apply(resolver.source, resolver.tier, batch);
  } finally {
    await resolver.dispose();
  }
}
