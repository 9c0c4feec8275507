/**
 * Spans as every trace format carries them, normalised: hex ids in lower
 * case, times in milliseconds since the epoch, attributes flattened to
 * scalars (arrays of scalars kept), the service from the resource.
 */

export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';

export type AttrValue = string | number | boolean | readonly (string | number | boolean)[];

export interface Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  /** Other spans this one follows from (batch consumers, async hand-offs). */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly service: string;
  readonly name: string;
  readonly kind: SpanKind;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, AttrValue>>;
  /** Resource attributes (service.name, telemetry.sdk.language, …). */
  readonly resource: Readonly<Record<string, AttrValue>>;
}

export type TraceFormat = 'otlp-json' | 'jaeger-json' | 'zipkin-json';

export interface TraceExport {
  readonly format: TraceFormat;
  readonly spans: readonly Span[];
  /** Parts that could not be read, with where and why; the rest is still imported. */
  readonly warnings: readonly string[];
}

export function str(v: AttrValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return String(v);
}

export function num(v: AttrValue | undefined): number | undefined {
  if (v === undefined || Array.isArray(v)) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : undefined;
}

const HEX = /^[0-9a-f]+$/i;

/** Span and trace ids: hex as OTLP/JSON, Jaeger and Zipkin write them; base64 as protobuf's JSON mapping does. */
export function normaliseId(id: unknown, bytes: 8 | 16): string | undefined {
  if (typeof id !== 'string' || !id) return undefined;
  if (HEX.test(id)) {
    // Jaeger drops leading zeros; Zipkin allows 64-bit trace ids. Pad to the next whole width.
    const lower = id.toLowerCase();
    return lower.length <= 16 ? lower.padStart(16, '0') : lower.length <= 32 ? lower.padStart(32, '0') : lower;
  }
  if (/^[A-Za-z0-9+/]+=*$/.test(id)) {
    const hex = Buffer.from(id, 'base64').toString('hex');
    return hex.length === bytes * 2 ? hex : undefined;
  }
  return undefined;
}

export function isZeroId(id: string | undefined): boolean {
  return !id || /^0+$/.test(id);
}

/** Where the workspace keeps how many days an observed path may go unseen before the answer calls it stale. */
export const STALE_AFTER_KEY = 'traces.staleAfterDays';
export const DEFAULT_STALE_AFTER_DAYS = 30;
