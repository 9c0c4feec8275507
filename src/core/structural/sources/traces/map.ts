import type { SourceIndex, SourceSymbol } from '../bytecode/sourceIndex.js';
import { formatSymbolId } from '../../../model/symbolId.js';
import type { NewSymbol, ObservationRow } from '../artifacts/store.js';
import { num, str, type Span, type TraceExport } from './model.js';
import { normaliseRoute, type RouteTable } from './routes.js';

/**
 * Spans → symbols → observed edges.
 *
 * A span is placed on a symbol by, in order: the code semantic conventions
 * (`code.function(.name)`, `code.namespace`, `code.file(.)path`,
 * `code.line(.)number`/`code.lineno`); for a server span, `http.route` and
 * the method that declares that route; for a consumer span, the listener of
 * its destination; else the first placed span below it in the same service.
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

interface Placed {
  readonly sid: string;
  readonly how: string;
}

const SDK_LANGUAGES: Record<string, readonly string[]> = {
  java: ['java', 'jvm-class'],
  python: ['python'],
  nodejs: ['typescript', 'javascript', 'tsx'],
  webjs: ['typescript', 'javascript', 'tsx'],
  go: ['go'],
};

function endpointSid(service: string, op?: string): string {
  return formatSymbolId({ scheme: 'endpoint', descriptors: op ? [{ name: service, suffix: 'namespace' }, { name: op, suffix: 'method' }] : [{ name: service, suffix: 'namespace' }] });
}

export function analyzeTraces(exp: TraceExport, index: SourceIndex, routes: RouteTable, options: MapOptions): TraceAnalysis {
  const now = options.now;
  const tolerance = options.futureToleranceMs ?? 60_000;
  const warnings: string[] = [];
  const stats = { placedByCode: 0, placedByRoute: 0, placedByListener: 0, withoutCodeAttributes: 0, unplaced: 0, missingParents: 0, futureClamped: 0 };
  const files = [...index.files()];
  const byKey = new Map<string, Span>();
  for (const s of exp.spans) byKey.set(`${s.traceId}:${s.spanId}`, s);
  const parentOf = (s: Span) => (s.parentSpanId ? byKey.get(`${s.traceId}:${s.parentSpanId}`) : undefined);
  const children = new Map<Span, Span[]>();
  for (const s of exp.spans) {
    const p = parentOf(s);
    if (!p) continue;
    const list = children.get(p);
    if (list) list.push(s);
    else children.set(p, [s]);
  }

  // ---- placing spans on symbols -----------------------------------------
  const fileCache = new Map<string, string | undefined>();
  const fileFor = (p: string): string | undefined => {
    if (fileCache.has(p)) return fileCache.get(p);
    const norm = p.replace(/\\/g, '/');
    let best: string | undefined;
    for (const f of files) if ((norm === f || norm.endsWith('/' + f)) && (!best || f.length > best.length)) best = f;
    fileCache.set(p, best);
    return best;
  };
  const languagesOf = (s: Span) => SDK_LANGUAGES[String(s.resource['telemetry.sdk.language'] ?? '')];
  const narrow = (cands: SourceSymbol[], line: number | undefined): SourceSymbol[] => {
    if (cands.length <= 1 || line === undefined) return cands;
    const at = cands.filter((c) => c.line <= line && c.endLine >= line);
    return at.length ? at : cands;
  };
  const byCode = (s: Span): Placed | undefined => {
    const a = s.attributes;
    let fn = str(a['code.function.name'] ?? a['code.function']);
    let ns = str(a['code.namespace']);
    const file = str(a['code.file.path'] ?? a['code.filepath']);
    const line = num(a['code.line.number'] ?? a['code.lineno']);
    if (!fn && !file) return undefined;
    if (fn && !ns) {
      const cut = Math.max(fn.lastIndexOf('.'), fn.lastIndexOf('::') >= 0 ? fn.lastIndexOf('::') + 1 : -1);
      if (cut > 0) {
        ns = fn.slice(0, fn[cut] === ':' ? cut - 1 : cut).replace(/::$/, '');
        fn = fn.slice(cut + 1);
      }
    }
    const langs = languagesOf(s);
    const fits = (c: SourceSymbol) => (c.kind === 'method' || c.kind === 'function' || c.kind === 'constructor') && (!langs || langs.includes(c.language));
    let cands: SourceSymbol[] = [];
    let how = '';
    if (fn && ns) {
      cands = index.withQname(`${ns}.${fn}`).filter(fits);
      if (!cands.length) cands = index.named(fn).filter((c) => fits(c) && (c.qname.endsWith(`.${ns}.${fn}`) || c.qname.endsWith(`${ns}.${fn}`)));
      how = `code.namespace \`${ns}\`, code.function \`${fn}\``;
    }
    if (!cands.length && file) {
      const f = fileFor(file);
      if (f) {
        cands = index.inFile(f).filter((c) => fits(c) && (!fn || c.name === fn));
        if (!fn && line !== undefined) {
          const enc = index.enclosing(f, line);
          cands = enc && fits(enc) ? [enc] : [];
        }
        how = `code.filepath \`${file}\`${fn ? `, code.function \`${fn}\`` : ''}${line !== undefined ? `, line ${line}` : ''}`;
      }
    }
    if (!cands.length && fn && !ns && !file) {
      const named = index.named(fn).filter(fits);
      if (named.length === 1) {
        cands = named;
        how = `code.function \`${fn}\` (the only one by that name)`;
      }
    }
    cands = narrow(cands, line);
    if (cands.length === 1) return { sid: cands[0]!.sid, how };
    if (cands.length > 1) warnings.push(`span "${s.name}" (${s.service}): ${how} fits ${cands.length} symbols (${cands.slice(0, 3).map((c) => c.qname).join(', ')}); not placed`);
    return undefined;
  };
  const routeOf = (s: Span) => str(s.attributes['http.route'] ?? s.attributes['url.template']);
  const methodOf = (s: Span) => str(s.attributes['http.request.method'] ?? s.attributes['http.method'])?.toUpperCase();
  const destinationOf = (s: Span) => str(s.attributes['messaging.destination.name'] ?? s.attributes['messaging.destination']);
  const byRoute = (s: Span): Placed | undefined => {
    const r = routeOf(s);
    if (!r) return undefined;
    const norm = normaliseRoute(r);
    const m = methodOf(s);
    const langs = languagesOf(s);
    const hits = routes.routes.filter((e) => e.route === norm && (!m || !e.method || e.method === m) && (!langs || langs.includes(index.bySid.get(e.sid)?.language ?? '')));
    const sids = [...new Set(hits.map((h) => h.sid))];
    if (sids.length === 1) return { sid: sids[0]!, how: `http.route \`${r}\` is declared by ${hits[0]!.how}` };
    if (sids.length > 1) warnings.push(`span "${s.name}" (${s.service}): route ${m ?? ''} ${r} is declared by ${sids.length} methods; not placed`);
    return undefined;
  };
  const byListener = (s: Span): Placed | undefined => {
    const d = destinationOf(s);
    if (!d) return undefined;
    const langs = languagesOf(s);
    const group = str(s.attributes['messaging.consumer.group.name'] ?? s.attributes['messaging.kafka.consumer.group']);
    const hits = routes.listeners.filter((l) => l.destination === d && (!group || !l.group || l.group === group) && (!langs || langs.includes(index.bySid.get(l.sid)?.language ?? '')));
    const sids = [...new Set(hits.map((h) => h.sid))];
    if (sids.length === 1) return { sid: sids[0]!, how: `consumes \`${d}\`: ${hits[0]!.how}` };
    return undefined;
  };
  const placed = new Map<Span, Placed | null>();
  const place = (s: Span): Placed | undefined => {
    if (placed.has(s)) return placed.get(s) ?? undefined;
    let p = byCode(s);
    if (p) stats.placedByCode++;
    if (!p && (s.kind === 'server' || s.kind === 'unspecified')) {
      p = byRoute(s);
      if (p) stats.placedByRoute++;
    }
    if (!p && s.kind === 'consumer') {
      p = byListener(s);
      if (p) stats.placedByListener++;
    }
    placed.set(s, p ?? null);
    return p;
  };
  for (const s of exp.spans) {
    if (!Object.keys(s.attributes).some((k) => k.startsWith('code.'))) stats.withoutCodeAttributes++;
    if (!place(s)) stats.unplaced++;
  }
  /** The span or its nearest ancestor in the same service that is placed. */
  const nearestPlaced = (s: Span): { span: Span; at: Placed } | undefined => {
    for (let c: Span | undefined = s; c && c.service === s.service; c = parentOf(c)) {
      const p = place(c);
      if (p) return { span: c, at: p };
    }
    return undefined;
  };
  /** The span, or the first placed span below it in the same service (breadth first, three levels). */
  const placedBelow = (s: Span): { span: Span; at: Placed } | undefined => {
    let level = [s];
    for (let depth = 0; depth <= 3 && level.length; depth++) {
      for (const c of level) {
        const p = place(c);
        if (p) return { span: c, at: p };
      }
      level = level.flatMap((c) => (children.get(c) ?? []).filter((k) => k.service === s.service));
    }
    return undefined;
  };

  // ---- endpoints ---------------------------------------------------------
  const endpoints = new Map<string, EndpointSymbol>();
  const endpoint = (service: string, op: string | undefined, label: string): string => {
    const sid = endpointSid(service, op);
    if (!endpoints.has(sid)) {
      endpoints.set(sid, { sid, name: op ?? service, qname: label, kind: op ? 'function' : 'namespace', parentSid: null, derivedFrom: null, origin: 'endpoint', line: 0, service });
    }
    return sid;
  };
  const callerEndpoint = (s: Span) => endpoint(s.service, undefined, `${s.service} (service; its spans carry no code attributes)`);
  const calleeEndpoint = (s: Span): string => {
    const d = destinationOf(s);
    if (d && (s.kind === 'consumer' || s.kind === 'producer')) {
      const sys = str(s.attributes['messaging.system']) ?? 'messaging';
      return endpoint(sys, `topic ${d}`, `${sys} topic ${d}${s.kind === 'consumer' ? ` (consumed by ${s.service}, no symbol)` : ' (no consumer in the export)'}`);
    }
    const m = methodOf(s);
    const r = routeOf(s) ?? str(s.attributes['url.path']);
    if (s.kind === 'client') {
      const peer = str(s.attributes['peer.service'] ?? s.attributes['server.address'] ?? s.attributes['net.peer.name'] ?? s.attributes['http.host']) ?? 'unknown peer';
      const op = r ? `${m ?? ''} ${normaliseRoute(r)}`.trim() : s.name;
      return endpoint(peer, op, `${peer} ${op} (not traced, no symbol)`);
    }
    const op = r ? `${m ?? ''} ${normaliseRoute(r)}`.trim() : s.name;
    return endpoint(s.service, op, `${s.service} ${op} (no symbol)`);
  };

  // ---- hops --------------------------------------------------------------
  const acc = new Map<string, ObservationRow & { traceIds: string[]; vias: Set<string>; reasons: Set<string> }>();
  const skew = new Map<string, { ms: number; trace: string }>();
  const seenAt = (...spans: Span[]): number => {
    const t = Math.max(...spans.map((x) => x.endMs));
    if (t > now + tolerance) {
      stats.futureClamped++;
      return now;
    }
    return Math.min(t, now);
  };
  const add = (src: string, dst: string, via: string, services: string, reason: string, traceId: string, at: number) => {
    if (src === dst) return;
    const key = `${src}\0${dst}`;
    const o = acc.get(key);
    if (o) {
      (o as { count: number }).count++;
      (o as { firstSeen: number }).firstSeen = Math.min(o.firstSeen, at);
      (o as { lastSeen: number }).lastSeen = Math.max(o.lastSeen, at);
      if (o.traceIds.length < 20 && !o.traceIds.includes(traceId)) o.traceIds.push(traceId);
      o.vias.add(via);
      o.reasons.add(reason);
      return;
    }
    acc.set(key, { srcSid: src, dstSid: dst, kind: 'call', via, services, firstSeen: at, lastSeen: at, count: 1, traceIds: [traceId], reason, vias: new Set([via]), reasons: new Set([reason]) });
  };
  const hopVia = (from: Span, to: Span): string => {
    const d = destinationOf(to) ?? destinationOf(from);
    if (d && (to.kind === 'consumer' || from.kind === 'producer')) return `topic ${d}`;
    const r = routeOf(to) ?? routeOf(from);
    const m = methodOf(to) ?? methodOf(from);
    if (r) return `http ${m ?? ''} ${r}`.replace(/\s+/g, ' ');
    const rpc = str(to.attributes['rpc.method']);
    if (rpc) return `rpc ${str(to.attributes['rpc.service']) ?? ''}/${rpc}`;
    return `span ${from.name} → ${to.name}`;
  };

  const crossed = new Set<Span>();
  for (const s of exp.spans) {
    const parent = parentOf(s);
    if (s.parentSpanId && !parent) {
      stats.missingParents++;
      if (s.kind === 'server' || s.kind === 'consumer') warnings.push(`trace ${s.traceId}: ${s.kind} span "${s.name}" in ${s.service} names parent ${s.parentSpanId}, which is not in the export: its caller is unknown`);
    }
    const froms: Span[] = [];
    if (parent) froms.push(parent);
    for (const l of s.links) {
      const linked = byKey.get(`${l.traceId}:${l.spanId}`);
      if (linked) froms.push(linked);
    }
    for (const p of froms) {
      if (p.service !== s.service) {
        crossed.add(p);
        const caller = nearestPlaced(p);
        const callee = placedBelow(s);
        const src = caller?.at.sid ?? callerEndpoint(p);
        const dst = callee?.at.sid ?? calleeEndpoint(s);
        const via = hopVia(p, s);
        add(src, dst, via, `${p.service} → ${s.service}`, `${p.service} → ${s.service} via ${via}: caller ${caller ? caller.at.how : 'has no code attributes'}; callee ${callee ? callee.at.how : 'has no symbol'}`, s.traceId, seenAt(p, s));
        if (p.kind === 'client' && s.kind === 'server') {
          const off = Math.max(p.startMs - s.startMs, s.endMs - p.endMs);
          const key = `${p.service} → ${s.service}`;
          if (off > 1 && off > (skew.get(key)?.ms ?? 0)) skew.set(key, { ms: off, trace: s.traceId });
        }
      } else {
        const own = place(s);
        if (!own) continue;
        const caller = nearestPlaced(p);
        if (!caller) continue;
        const via = p.kind === 'producer' || s.kind === 'consumer' ? hopVia(p, s) : `span ${caller.span.name} → ${s.name}`;
        add(caller.at.sid, own.sid, via, s.service, `in ${s.service}: ${caller.at.how} → ${own.how}`, s.traceId, seenAt(p, s));
      }
    }
  }
  // Calls out of the export: a client or producer span with no span of another service below it.
  const linkedTo = new Set(exp.spans.flatMap((o) => o.links.map((l) => `${l.traceId}:${l.spanId}`)));
  for (const s of exp.spans) {
    if ((s.kind !== 'client' && s.kind !== 'producer') || crossed.has(s)) continue;
    if ((children.get(s) ?? []).some((c) => c.service !== s.service)) continue;
    if (linkedTo.has(`${s.traceId}:${s.spanId}`)) continue;
    const caller = nearestPlaced(s);
    const src = caller?.at.sid ?? callerEndpoint(s);
    const dst = calleeEndpoint(s);
    add(src, dst, hopVia(s, s), `${s.service} → ?`, `${s.service} calls out; the other side is not in the export`, s.traceId, seenAt(s));
  }
  for (const [pair, v] of skew) {
    warnings.push(`clock skew ${pair}: spans of the callee lie up to ${duration(v.ms)} outside their caller's span (trace ${v.trace}); edges follow parent ids, not times, so they are unaffected`);
  }
  if (stats.futureClamped) warnings.push(`${stats.futureClamped} hop(s) carry times in the future (a clock ahead); their "last seen" is the import time`);

  const observations: ObservationRow[] = [...acc.values()].map((o) => ({
    srcSid: o.srcSid, dstSid: o.dstSid, kind: o.kind, via: [...o.vias].slice(0, 3).join('; '), services: o.services,
    firstSeen: Math.round(o.firstSeen), lastSeen: Math.round(o.lastSeen), count: o.count, traceIds: o.traceIds.slice(0, 20), reason: [...o.reasons][0]!,
  }));
  const used = new Set(observations.flatMap((o) => [o.srcSid, o.dstSid]));
  const capturedAt = exp.spans.reduce((m, s) => Math.max(m, Math.min(s.endMs, now)), 0);
  return {
    observations,
    endpoints: [...endpoints.values()].filter((e) => used.has(e.sid)),
    stats: { spans: exp.spans.length, traces: new Set(exp.spans.map((s) => s.traceId)).size, services: [...new Set(exp.spans.map((s) => s.service))].sort(), ...stats },
    warnings,
    capturedAt: Math.round(capturedAt),
  };
}

function duration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 3_600_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 172_800_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}
