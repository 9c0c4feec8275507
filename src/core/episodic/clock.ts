import { TenureError } from '../../shared/errors.js';

/**
 * Where "now" comes from. Weighting, decay and eviction depend on time, so
 * every function that reads the time takes a Clock: tests move it forward,
 * production reads the system clock.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until moved: for tests and the benchmark. */
export class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    this.t = t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  advanceDays(days: number): void {
    this.t += days * DAY_MS;
  }
}

export const DAY_MS = 86_400_000;

/**
 * The clock of a command-line process: the system clock, or a fixed instant
 * from TENURE_NOW (ISO date or epoch ms). The variable exists so scripted
 * demos and tests can replay history at a known time; it is never needed in use.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const raw = env['TENURE_NOW']?.trim();
  if (!raw) return systemClock;
  const t = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(t)) throw new TenureError('invalid-input', `TENURE_NOW is set to "${raw}", which is neither an ISO date nor epoch milliseconds. Unset it to use the system clock.`);
  return { now: () => t };
}

/** "3 days ago", "2 months ago": how long ago, in the unit a person would use. */
export function describeAge(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'} ago`;
  if (s < 90) return 'just now';
  const min = Math.round(s / 60);
  if (min < 90) return unit(min, 'minute');
  const h = Math.round(min / 60);
  if (h < 36) return unit(h, 'hour');
  const d = Math.round(h / 24);
  if (d < 45) return unit(d, 'day');
  const mo = Math.round(d / 30.44);
  if (mo < 18) return unit(mo, 'month');
  return unit(Math.round(d / 365.25), 'year');
}

/** Parses "-95d", "95d", "12h", "3w" (an age before `now`) or an ISO date into epoch ms. */
export function parseInstant(text: string | number, now: number): number {
  if (typeof text === 'number') return text;
  const rel = /^-?(\d+(?:\.\d+)?)\s*(m|h|d|w)$/.exec(text.trim());
  if (rel) {
    const n = Number(rel[1]);
    const unit = { m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS }[rel[2] as 'm' | 'h' | 'd' | 'w'];
    return Math.round(now - n * unit);
  }
  const t = Date.parse(text);
  if (!Number.isFinite(t)) throw new TenureError('invalid-input', `Not a time: "${text}" (use an ISO date or an age such as "-95d", "12h").`);
  return t;
}
