/**
 * Lower bound of the Wilson score interval for a success rate: how high the
 * rate is, at worst, given only `n` observations. 5 of 5 gives about 0.57
 * at 95%; 50 of 50 about 0.93; 0 observations give 0.
 */
export function wilsonLowerBound(successes: number, n: number, z = 1.96): number {
  if (n <= 0) return 0;
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}
