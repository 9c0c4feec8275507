import * as z from 'zod';

/**
 * How far an edge can be trusted. Closed enum shared by every memory; the
 * order is from most to least certain and is used to pick the weakest tier of
 * a transitive path.
 */
export const EDGE_TIERS = ['resolved', 'observed', 'inferred', 'ambiguous', 'dynamic'] as const;
export const EdgeTier = z.enum(EDGE_TIERS);
export type EdgeTier = z.infer<typeof EdgeTier>;

export const EDGE_TIER_MEANING: Record<EdgeTier, string> = {
  resolved: 'a type checker or compiler artifact confirmed it — safe to act on',
  observed: 'a real execution produced it (trace, test run) — ground truth for the paths it covers',
  inferred: 'matched by name only — probably right, verify before acting',
  ambiguous: 'several candidates share the name — all are returned, none chosen',
  dynamic: 'computed at run time, undecidable statically — recorded, never dropped',
};

/** The weaker of two tiers: a path is only as trustworthy as its weakest edge. */
export function weakerTier(a: EdgeTier, b: EdgeTier): EdgeTier {
  return EDGE_TIERS.indexOf(a) >= EDGE_TIERS.indexOf(b) ? a : b;
}

export const LINK_TIERS = ['exact', 'strong', 'weak', 'unresolved'] as const;
export const LinkTier = z.enum(LINK_TIERS);
export type LinkTier = z.infer<typeof LinkTier>;
