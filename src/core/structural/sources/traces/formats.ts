import { TenureError } from '../../../../shared/errors.js';
import { isZeroId, normaliseId, type AttrValue, type Span, type SpanKind, type TraceExport } from './model.js';

/**
 * Readers for the three trace exports, with the format told from the content:
 *
 *  - OpenTelemetry OTLP/JSON: an ExportTraceServiceRequest
 *    (`{"resourceSpans": [...]}`), or the collector's file exporter, which
 *    writes one such object per line;
 *  - Jaeger JSON (`{"data": [{"traceID", "spans", "processes"}]}`, the query
 *    API's and the UI's download);
 *  - Zipkin v2 JSON (a list of spans, or a list of traces).
 *
 * A line or trace that cannot be read is reported with where it is, and the
 * rest of the file is still imported. A file none of the readers recognises
 * is an error that says what was expected.
 */

type Json = unknown;
type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A span as every reader builds it: the parent kept only when it is a real one (an all-zero id means none). */
function spanOf(s: Omit<Span, 'parentSpanId'> & { readonly parent: string | undefined }): Span {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parent && !isZeroId(s.parent) ? { parentSpanId: s.parent } : {}),
    links: s.links,
    service: s.service,
    name: s.name,
    kind: s.kind,
    startMs: s.startMs,
    endMs: s.endMs,
    attributes: s.attributes,
    resource: s.resource,
  };
}

/** Attributes written as a list of `{key, value}` (OTLP attributes, Jaeger tags), each value read by the format's rule. */
function keyValues(list: unknown, valueOf: (entry: Rec) => AttrValue | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  if (!Array.isArray(list)) return out;
  for (const a of list) {
    if (!isRec(a) || typeof a.key !== 'string') continue;
    const v = valueOf(a);
    if (v !== undefined) out[a.key] = v;
  }
  return out;
}

export function parseTraceExport(text: string, label: string): TraceExport {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = body.trim();
  if (!trimmed) throw new TenureError('invalid-input', `${label} is empty: no spans to import.`);
  let doc: Json;
  let whole = true;
  try {
    doc = JSON.parse(trimmed);
  } catch {
    whole = false;
  }
  if (whole) {
    if (isRec(doc) && Array.isArray(doc.resourceSpans)) return readOtlp([{ doc, where: label }], []);
    if (Array.isArray(doc) && doc.length && doc.every((d) => isRec(d) && Array.isArray(d.resourceSpans))) return readOtlp(doc.map((d, i) => ({ doc: d, where: `${label} item ${i + 1}` })), []);
    if (isRec(doc) && Array.isArray(doc.data) && doc.data.some((t) => isRec(t) && Array.isArray(t.spans))) return readJaeger(doc.data, label);
    if (isRec(doc) && Array.isArray(doc.spans) && (isRec(doc.processes) || typeof doc.traceID === 'string')) return readJaeger([doc], label);
    if (Array.isArray(doc)) {
      const flat = doc.flatMap((x) => (Array.isArray(x) ? x : [x]));
      if (flat.some((s) => isRec(s) && ('binaryAnnotations' in s || (Array.isArray(s.annotations) && s.annotations.some((a) => isRec(a) && isRec(a.endpoint)))) && !('localEndpoint' in s))) {
        throw new TenureError('invalid-input', `${label} is Zipkin v1 JSON (annotations with endpoints, binaryAnnotations). Export Zipkin v2 instead (GET /api/v2/trace/{id} or /api/v2/traces) and import that.`);
      }
      if (flat.length && flat.every((s) => isRec(s) && typeof s.traceId === 'string' && typeof s.id === 'string')) return readZipkin(flat, label);
      if (!flat.length) throw new TenureError('invalid-input', `${label} is an empty list: no spans to import.`);
    }
    throw new TenureError('invalid-input', unknownFormat(label, doc));
  }
  // Not one JSON document: the collector's file exporter writes one request per line.
  const docs: { doc: Json; where: string }[] = [];
  const warnings: string[] = [];
  const lines = body.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      docs.push({ doc: JSON.parse(line), where: `${label} line ${i + 1}` });
    } catch (e) {
      warnings.push(`${label} line ${i + 1}: not valid JSON (${(e as Error).message}); skipped`);
    }
  });
  const otlp = docs.filter((d) => isRec(d.doc) && Array.isArray(d.doc.resourceSpans));
  if (!otlp.length) {
    if (!docs.length) throw new TenureError('invalid-input', `${label} is not valid JSON, nor JSON lines (${warnings[0] ?? 'no lines'}). Nothing was imported.`);
    throw new TenureError('invalid-input', unknownFormat(label, docs[0]!.doc));
  }
  for (const d of docs) if (!otlp.includes(d)) warnings.push(`${d.where}: JSON without resourceSpans; skipped`);
  return readOtlp(otlp, warnings);
}

function unknownFormat(label: string, doc: Json): string {
  const keys = isRec(doc) ? Object.keys(doc).slice(0, 6).join(', ') : Array.isArray(doc) ? `a list of ${doc.length}` : typeof doc;
  return `${label} is not a trace export Tenure reads (found ${keys || 'nothing'}). Expected OTLP/JSON ("resourceSpans", one request per line from the collector's file exporter), Jaeger JSON ("data" → traces with "spans" and "processes") or Zipkin v2 JSON (a list of spans with "traceId" and "id").`;
}

// ---- OTLP ------------------------------------------------------------------

const OTLP_KINDS: Record<string, SpanKind> = {
  '0': 'unspecified', '1': 'internal', '2': 'server', '3': 'client', '4': 'producer', '5': 'consumer',
  SPAN_KIND_UNSPECIFIED: 'unspecified', SPAN_KIND_INTERNAL: 'internal', SPAN_KIND_SERVER: 'server', SPAN_KIND_CLIENT: 'client', SPAN_KIND_PRODUCER: 'producer', SPAN_KIND_CONSUMER: 'consumer',
};

function otlpValue(v: unknown): AttrValue | undefined {
  if (!isRec(v)) return undefined;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (isRec(v.arrayValue) && Array.isArray(v.arrayValue.values)) {
    return v.arrayValue.values.map(otlpValue).filter((x): x is string | number | boolean => x !== undefined && !Array.isArray(x));
  }
  if (typeof v.bytesValue === 'string') return v.bytesValue;
  return undefined; // kvlistValue: nested maps are not used by the conventions read here
}

function otlpAttributes(list: unknown): Record<string, AttrValue> {
  return keyValues(list, (a) => otlpValue(a.value));
}

/** Nanoseconds (a decimal string or number) → milliseconds. */
function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'number') return v / 1e6;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(BigInt(v) / 1000n) / 1000;
  return undefined;
}

function readOtlp(docs: readonly { doc: Json; where: string }[], warnings: string[]): TraceExport {
  const spans: Span[] = [];
  for (const { doc, where } of docs) {
    const rs = (doc as Rec).resourceSpans as unknown[];
    for (const r of rs) {
      if (!isRec(r)) continue;
      const resource = otlpAttributes(isRec(r.resource) ? r.resource.attributes : undefined);
      const service = typeof resource['service.name'] === 'string' ? resource['service.name'] : 'unknown_service';
      const scopes = (Array.isArray(r.scopeSpans) ? r.scopeSpans : Array.isArray(r.instrumentationLibrarySpans) ? r.instrumentationLibrarySpans : []) as unknown[];
      for (const sc of scopes) {
        if (!isRec(sc) || !Array.isArray(sc.spans)) continue;
        for (const s of sc.spans) {
          if (!isRec(s)) continue;
          const traceId = normaliseId(s.traceId, 16);
          const spanId = normaliseId(s.spanId, 8);
          const start = nanosToMs(s.startTimeUnixNano);
          const end = nanosToMs(s.endTimeUnixNano);
          if (!traceId || !spanId) {
            warnings.push(`${where}: span "${String(s.name ?? '?')}" in ${service} has no valid traceId/spanId; skipped`);
            continue;
          }
          if (start === undefined) {
            warnings.push(`${where}: span ${spanId} (${String(s.name ?? '?')}) has no start time; skipped`);
            continue;
          }
          const parent = normaliseId(s.parentSpanId, 8);
          const links = (Array.isArray(s.links) ? s.links : [])
            .map((l) => (isRec(l) ? { traceId: normaliseId(l.traceId, 16), spanId: normaliseId(l.spanId, 8) } : undefined))
            .filter((l): l is { traceId: string; spanId: string } => !!l?.traceId && !!l.spanId);
          const name = typeof s.name === 'string' ? s.name : '';
          spans.push(spanOf({ traceId, spanId, parent, links, service, name, kind: OTLP_KINDS[String(s.kind ?? '0')] ?? 'unspecified', startMs: start, endMs: end ?? start, attributes: otlpAttributes(s.attributes), resource }));
        }
      }
    }
  }
  return { format: 'otlp-json', spans, warnings };
}

// ---- Jaeger ----------------------------------------------------------------

function jaegerTags(list: unknown): Record<string, AttrValue> {
  return keyValues(list, (t) => {
    const v = t.value;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
    return t.type === 'int64' || t.type === 'float64' ? Number(v) : v;
  });
}

function readJaeger(traces: readonly unknown[], label: string): TraceExport {
  const spans: Span[] = [];
  const warnings: string[] = [];
  traces.forEach((t, ti) => {
    if (!isRec(t) || !Array.isArray(t.spans)) {
      warnings.push(`${label}: data[${ti}] is not a trace; skipped`);
      return;
    }
    const processes = isRec(t.processes) ? t.processes : {};
    for (const s of t.spans) {
      if (!isRec(s)) continue;
      const traceId = normaliseId(s.traceID, 16);
      const spanId = normaliseId(s.spanID, 8);
      if (!traceId || !spanId || typeof s.startTime !== 'number') {
        warnings.push(`${label}: trace ${String(t.traceID ?? ti)}: span "${String(s.operationName ?? '?')}" lacks traceID, spanID or startTime; skipped`);
        continue;
      }
      const proc = typeof s.processID === 'string' && isRec(processes[s.processID]) ? (processes[s.processID] as Rec) : isRec(s.process) ? s.process : {};
      const service = typeof proc.serviceName === 'string' ? proc.serviceName : 'unknown_service';
      const tags = jaegerTags(s.tags);
      const refs = Array.isArray(s.references) ? s.references.filter(isRec) : [];
      const childOf = refs.find((r) => r.refType === 'CHILD_OF');
      const parent = normaliseId(childOf?.spanID ?? s.parentSpanID, 8);
      const links = refs.filter((r) => r.refType === 'FOLLOWS_FROM' || (r !== childOf && r.refType === 'CHILD_OF')).map((r) => ({ traceId: normaliseId(r.traceID, 16) ?? traceId, spanId: normaliseId(r.spanID, 8) ?? '' })).filter((l) => l.spanId);
      const kindTag = String(tags['span.kind'] ?? '').toLowerCase();
      const kind: SpanKind = (['server', 'client', 'producer', 'consumer', 'internal'] as const).find((k) => k === kindTag) ?? 'unspecified';
      const resource: Record<string, AttrValue> = { 'service.name': service, ...jaegerTags(proc.tags) };
      const name = typeof s.operationName === 'string' ? s.operationName : '';
      const endMs = (s.startTime + (typeof s.duration === 'number' ? s.duration : 0)) / 1000;
      spans.push(spanOf({ traceId, spanId, parent, links, service, name, kind, startMs: s.startTime / 1000, endMs, attributes: tags, resource }));
    }
  });
  return { format: 'jaeger-json', spans, warnings };
}

// ---- Zipkin ----------------------------------------------------------------

function readZipkin(list: readonly unknown[], label: string): TraceExport {
  const spans: Span[] = [];
  const warnings: string[] = [];
  // Zipkin may share one id between a client span and the server span it caused ("shared": true).
  const clientIds = new Set<string>();
  for (const s of list) if (isRec(s) && s.kind === 'CLIENT' && typeof s.id === 'string') clientIds.add(`${String(s.traceId)}:${s.id}`);
  for (const s of list) {
    if (!isRec(s)) continue;
    const traceId = normaliseId(s.traceId, 16);
    let spanId = normaliseId(s.id, 8);
    if (!traceId || !spanId || typeof s.timestamp !== 'number') {
      warnings.push(`${label}: span "${String(s.name ?? '?')}" lacks traceId, id or timestamp; skipped`);
      continue;
    }
    let parent = normaliseId(s.parentId, 8);
    if (s.shared === true && s.kind === 'SERVER' && clientIds.has(`${String(s.traceId)}:${String(s.id)}`)) {
      parent = spanId;
      spanId = `${spanId}:server`;
    }
    const local = isRec(s.localEndpoint) ? s.localEndpoint : {};
    const remote = isRec(s.remoteEndpoint) ? s.remoteEndpoint : {};
    const service = typeof local.serviceName === 'string' ? local.serviceName : 'unknown_service';
    const tags: Record<string, AttrValue> = {};
    if (isRec(s.tags)) for (const [k, v] of Object.entries(s.tags)) if (typeof v === 'string') tags[k] = /^(code\.lineno|code\.line\.number|http\.status_code)$/.test(k) && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof remote.serviceName === 'string' && !tags['peer.service']) tags['peer.service'] = remote.serviceName;
    const kind: SpanKind = ({ SERVER: 'server', CLIENT: 'client', PRODUCER: 'producer', CONSUMER: 'consumer' } as Record<string, SpanKind>)[String(s.kind)] ?? 'internal';
    const name = typeof s.name === 'string' ? s.name : '';
    const endMs = (s.timestamp + (typeof s.duration === 'number' ? s.duration : 0)) / 1000;
    spans.push(spanOf({ traceId, spanId, parent, links: [], service, name, kind, startMs: s.timestamp / 1000, endMs, attributes: tags, resource: { 'service.name': service } }));
  }
  return { format: 'zipkin-json', spans, warnings };
}
