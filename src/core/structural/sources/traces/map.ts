import type { SourceIndex } from '../bytecode/sourceIndex.js';
import { formatSymbolId } from '../../../model/symbolId.js';
import type { NewSymbol, ObservationRow } from '../artifacts/store.js';
import { str, type Span, type TraceExport } from './model.js';
import { SpanPlacer, destinationOf, methodOf, routeOf } from './place.js';
import { normaliseRoute, type RouteTable } from './routes.js';

/**
 * Spans → symbols → observed edges.
 *
 * A span is placed on a symbol by its code attributes, its route or its
 * listener (place.ts); else the first placed span below it in the same
 * service stands for it.
 *
 * Edges: a hop between services (client → server, producer → consumer, by
 * parent id or span link) links the nearest placed span on each side; inside
 * a service, a placed span links to its nearest placed ancestor. Where one
 * side has no symbol the edge goes to (or comes from) a service endpoint
 * node, never dropped. Times come from the spans, clamped to the import time
 * (a skewed clock cannot make a path look seen in the future).
 */

export interface EndpointSymbol extends Omit<NewSymbol, 'fileId'> {
  readonly service: string;
}

export interface TraceAnalysis {
  readonly observations: ObservationRow[];
  readonly endpoints: EndpointSymbol[];
  readonly stats: {
    readonly spans: number;
    readonly traces: number;
    readonly services: readonly string[];
    readonly placedByCode: number;
    readonly placedByRoute: number;
    readonly placedByListener: number;
    readonly withoutCodeAttributes: number;
    readonly unplaced: number;
    readonly missingParents: number;
    readonly futureClamped: number;
  };
  readonly warnings: string[];
  /** The moment the export describes: its latest span end (clamped). */
  readonly capturedAt: number;
}

export interface MapOptions {
  /** Import time: no path is seen later than this. */
  readonly now: number;
  /** A clock ahead by more than this is clamped and reported (ms). */
  readonly futureToleranceMs?: number;
}

function endpointSid(service: string, op?: string): string {
  return formatSymbolId({ scheme: 'endpoint', descriptors: op ? [{ name: service, suffix: 'namespace' }, { name: op, suffix: 'method' }] : [{ name: service, suffix: 'namespace' }] });
}

/** The counts an analysis keeps as it goes. */
type Stats = { -readonly [K in Exclude<keyof TraceAnalysis['stats'], 'spans' | 'traces' | 'services'>]: number };

export function analyzeTraces(exp: TraceExport, index: SourceIndex, routes: RouteTable, options: MapOptions): TraceAnalysis {
  const now = options.now;
  const warnings: string[] = [];
  const stats: Stats = { placedByCode: 0, placedByRoute: 0, placedByListener: 0, withoutCodeAttributes: 0, unplaced: 0, missingParents: 0, futureClamped: 0 };
  const m: Mapping = {
    tree: new SpanTree(exp.spans),
    placer: new SpanPlacer(index, routes, stats, warnings),
    endpoints: new Endpoints(),
    observed: new Observations(now, options.futureToleranceMs ?? 60_000, stats),
    stats,
    warnings,
    skew: new Map(),
    crossed: new Set(),
  };
  for (const s of exp.spans) {
    if (!Object.keys(s.attributes).some((k) => k.startsWith('code.'))) stats.withoutCodeAttributes++;
    if (!m.placer.place(s)) stats.unplaced++;
  }
  for (const s of exp.spans) hopsInto(m, s);
  callsOutOfTheExport(m, exp.spans);
  for (const [pair, v] of m.skew) {
    warnings.push(`clock skew ${pair}: spans of the callee lie up to ${duration(v.ms)} outside their caller's span (trace ${v.trace}); edges follow parent ids, not times, so they are unaffected`);
  }
  if (stats.futureClamped) warnings.push(`${stats.futureClamped} hop(s) carry times in the future (a clock ahead); their "last seen" is the import time`);

  const observations = m.observed.rows();
  const used = new Set(observations.flatMap((o) => [o.srcSid, o.dstSid]));
  const capturedAt = exp.spans.reduce((max, s) => Math.max(max, Math.min(s.endMs, now)), 0);
  return {
    observations,
    endpoints: m.endpoints.among(used),
    stats: { spans: exp.spans.length, traces: new Set(exp.spans.map((s) => s.traceId)).size, services: [...new Set(exp.spans.map((s) => s.service))].sort(), ...stats },
    warnings,
    capturedAt: Math.round(capturedAt),
  };
}

/** Everything the hops read and add to. */
interface Mapping {
  readonly tree: SpanTree;
  readonly placer: SpanPlacer;
  readonly endpoints: Endpoints;
  readonly observed: Observations;
  readonly stats: Stats;
  readonly warnings: string[];
  /** The largest clock offset seen between a client span and its server span, per pair of services. */
  readonly skew: Map<string, { ms: number; trace: string }>;
  /** Client and producer spans whose other side is in the export. */
  readonly crossed: Set<Span>;
}

/** The hops into a span: from its parent and from the spans it links to. */
function hopsInto(m: Mapping, s: Span): void {
  const parent = m.tree.parentOf(s);
  if (s.parentSpanId && !parent) {
    m.stats.missingParents++;
    if (s.kind === 'server' || s.kind === 'consumer') m.warnings.push(`trace ${s.traceId}: ${s.kind} span "${s.name}" in ${s.service} names parent ${s.parentSpanId}, which is not in the export: its caller is unknown`);
  }
  const froms: Span[] = [];
  if (parent) froms.push(parent);
  for (const l of s.links) {
    const linked = m.tree.get(l.traceId, l.spanId);
    if (linked) froms.push(linked);
  }
  for (const p of froms) {
    if (p.service !== s.service) crossServiceHop(m, p, s);
    else inServiceHop(m, p, s);
  }
}

/** A hop between services links the nearest placed span on each side; a side with no symbol is a service endpoint. */
function crossServiceHop(m: Mapping, p: Span, s: Span): void {
  m.crossed.add(p);
  const caller = m.placer.nearestPlaced(p, m.tree.parentOf);
  const callee = m.placer.placedBelow(s, m.tree.childrenOf);
  const src = caller?.at.sid ?? m.endpoints.caller(p);
  const dst = callee?.at.sid ?? m.endpoints.callee(s);
  const via = hopVia(p, s);
  m.observed.add(src, dst, via, `${p.service} → ${s.service}`, `${p.service} → ${s.service} via ${via}: caller ${caller ? caller.at.how : 'has no code attributes'}; callee ${callee ? callee.at.how : 'has no symbol'}`, s.traceId, m.observed.seenAt(p, s));
  if (p.kind === 'client' && s.kind === 'server') {
    const off = Math.max(p.startMs - s.startMs, s.endMs - p.endMs);
    const key = `${p.service} → ${s.service}`;
    if (off > 1 && off > (m.skew.get(key)?.ms ?? 0)) m.skew.set(key, { ms: off, trace: s.traceId });
  }
}

/** Inside a service, a placed span links to its nearest placed ancestor. */
function inServiceHop(m: Mapping, p: Span, s: Span): void {
  const own = m.placer.place(s);
  if (!own) return;
  const caller = m.placer.nearestPlaced(p, m.tree.parentOf);
  if (!caller) return;
  const via = p.kind === 'producer' || s.kind === 'consumer' ? hopVia(p, s) : `span ${caller.span.name} → ${s.name}`;
  m.observed.add(caller.at.sid, own.sid, via, s.service, `in ${s.service}: ${caller.at.how} → ${own.how}`, s.traceId, m.observed.seenAt(p, s));
}

/** Calls out of the export: a client or producer span with no span of another service below it. */
function callsOutOfTheExport(m: Mapping, spans: readonly Span[]): void {
  const linkedTo = new Set(spans.flatMap((o) => o.links.map((l) => `${l.traceId}:${l.spanId}`)));
  for (const s of spans) {
    if ((s.kind !== 'client' && s.kind !== 'producer') || m.crossed.has(s)) continue;
    if (m.tree.childrenOf(s).some((c) => c.service !== s.service)) continue;
    if (linkedTo.has(`${s.traceId}:${s.spanId}`)) continue;
    const caller = m.placer.nearestPlaced(s, m.tree.parentOf);
    const src = caller?.at.sid ?? m.endpoints.caller(s);
    const dst = m.endpoints.callee(s);
    m.observed.add(src, dst, hopVia(s, s), `${s.service} → ?`, `${s.service} calls out; the other side is not in the export`, s.traceId, m.observed.seenAt(s));
  }
}

/** What a hop went through, in words: a topic, an HTTP route, an RPC method, else the two spans. */
function hopVia(from: Span, to: Span): string {
  const d = destinationOf(to) ?? destinationOf(from);
  if (d && (to.kind === 'consumer' || from.kind === 'producer')) return `topic ${d}`;
  const r = routeOf(to) ?? routeOf(from);
  const method = methodOf(to) ?? methodOf(from);
  if (r) return `http ${method ?? ''} ${r}`.replace(/\s+/g, ' ');
  const rpc = str(to.attributes['rpc.method']);
  if (rpc) return `rpc ${str(to.attributes['rpc.service']) ?? ''}/${rpc}`;
  return `span ${from.name} → ${to.name}`;
}

/** The spans of an export by id, with their parents and children. */
class SpanTree {
  private readonly byKey = new Map<string, Span>();
  private readonly children = new Map<Span, Span[]>();

  constructor(spans: readonly Span[]) {
    for (const s of spans) this.byKey.set(`${s.traceId}:${s.spanId}`, s);
    for (const s of spans) {
      const p = this.parentOf(s);
      if (!p) continue;
      const list = this.children.get(p);
      if (list) list.push(s);
      else this.children.set(p, [s]);
    }
  }

  get(traceId: string, spanId: string): Span | undefined {
    return this.byKey.get(`${traceId}:${spanId}`);
  }

  readonly parentOf = (s: Span): Span | undefined => (s.parentSpanId ? this.byKey.get(`${s.traceId}:${s.parentSpanId}`) : undefined);

  readonly childrenOf = (s: Span): readonly Span[] => this.children.get(s) ?? [];
}

/** The service endpoints that stand in for a side of a hop with no symbol. */
class Endpoints {
  private readonly bySid = new Map<string, EndpointSymbol>();

  /** A service that calls with no code attributes on its spans. */
  caller(s: Span): string {
    return this.of(s.service, undefined, `${s.service} (service; its spans carry no code attributes)`);
  }

  /** What a span called or served with no symbol: a topic, a peer's operation, or its own service's operation. */
  callee(s: Span): string {
    const d = destinationOf(s);
    if (d && (s.kind === 'consumer' || s.kind === 'producer')) {
      const sys = str(s.attributes['messaging.system']) ?? 'messaging';
      return this.of(sys, `topic ${d}`, `${sys} topic ${d}${s.kind === 'consumer' ? ` (consumed by ${s.service}, no symbol)` : ' (no consumer in the export)'}`);
    }
    const method = methodOf(s);
    const r = routeOf(s) ?? str(s.attributes['url.path']);
    const op = r ? `${method ?? ''} ${normaliseRoute(r)}`.trim() : s.name;
    if (s.kind === 'client') {
      const peer = str(s.attributes['peer.service'] ?? s.attributes['server.address'] ?? s.attributes['net.peer.name'] ?? s.attributes['http.host']) ?? 'unknown peer';
      return this.of(peer, op, `${peer} ${op} (not traced, no symbol)`);
    }
    return this.of(s.service, op, `${s.service} ${op} (no symbol)`);
  }

  /** The endpoints the observations use. */
  among(used: ReadonlySet<string>): EndpointSymbol[] {
    return [...this.bySid.values()].filter((e) => used.has(e.sid));
  }

  private of(service: string, op: string | undefined, label: string): string {
    const sid = endpointSid(service, op);
    if (!this.bySid.has(sid)) {
      this.bySid.set(sid, { sid, name: op ?? service, qname: label, kind: op ? 'function' : 'namespace', parentSid: null, derivedFrom: null, origin: 'endpoint', line: 0, service });
    }
    return sid;
  }
}

type Accumulated = { -readonly [K in keyof ObservationRow]: ObservationRow[K] } & { traceIds: string[]; vias: Set<string>; reasons: Set<string> };

/** Observed paths, one per caller and callee, counted over the hops that showed them. */
class Observations {
  private readonly acc = new Map<string, Accumulated>();

  constructor(
    private readonly now: number,
    private readonly tolerance: number,
    private readonly stats: { futureClamped: number },
  ) {}

  /** When a hop was seen: its latest span end, clamped to the import time (a clock ahead is counted). */
  seenAt(...spans: Span[]): number {
    const t = Math.max(...spans.map((x) => x.endMs));
    if (t > this.now + this.tolerance) {
      this.stats.futureClamped++;
      return this.now;
    }
    return Math.min(t, this.now);
  }

  add(src: string, dst: string, via: string, services: string, reason: string, traceId: string, at: number): void {
    if (src === dst) return;
    const key = `${src}\0${dst}`;
    const o = this.acc.get(key);
    if (o) {
      o.count++;
      o.firstSeen = Math.min(o.firstSeen, at);
      o.lastSeen = Math.max(o.lastSeen, at);
      if (o.traceIds.length < 20 && !o.traceIds.includes(traceId)) o.traceIds.push(traceId);
      o.vias.add(via);
      o.reasons.add(reason);
      return;
    }
    this.acc.set(key, { srcSid: src, dstSid: dst, kind: 'call', via, services, firstSeen: at, lastSeen: at, count: 1, traceIds: [traceId], reason, vias: new Set([via]), reasons: new Set([reason]) });
  }

  rows(): ObservationRow[] {
    return [...this.acc.values()].map((o) => ({
      srcSid: o.srcSid, dstSid: o.dstSid, kind: o.kind, via: [...o.vias].slice(0, 3).join('; '), services: o.services,
      firstSeen: Math.round(o.firstSeen), lastSeen: Math.round(o.lastSeen), count: o.count, traceIds: o.traceIds.slice(0, 20), reason: [...o.reasons][0]!,
    }));
  }
}

function duration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 3_600_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 172_800_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}
