/** A time still to wait, as a person reads it in a progress line: "about 40 s", "about 3 min". */
export function timeLeft(ms: number): string {
  return `about ${ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`} left`;
}
