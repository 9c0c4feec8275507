import type { SourceIndex, SourceSymbol } from '../bytecode/sourceIndex.js';
import { num, str, type Span } from './model.js';
import { normaliseRoute, type RouteTable } from './routes.js';

/*
 * Placing a span on the symbol whose code it timed, in order: by the code
 * semantic conventions (`code.function(.name)`, `code.namespace`,
 * `code.file(.)path`, `code.line(.)number`/`code.lineno`); for a server span,
 * by `http.route` and the method that declares that route; for a consumer
 * span, by the listener of its destination.
 */

/** The symbol a span ran in, and in words how that was told. */
export interface Placed {
  readonly sid: string;
  readonly how: string;
}

/** A placed span: itself, or the span near it that is placed. */
export interface PlacedSpan {
  readonly span: Span;
  readonly at: Placed;
}

export interface PlacementStats {
  placedByCode: number;
  placedByRoute: number;
  placedByListener: number;
}

const SDK_LANGUAGES: Record<string, readonly string[]> = {
  java: ['java', 'jvm-class'],
  python: ['python'],
  nodejs: ['typescript', 'javascript', 'tsx'],
  webjs: ['typescript', 'javascript', 'tsx'],
  go: ['go'],
};

/** The inventory languages a span's SDK language stands for; undefined when the resource does not say. */
const languagesOf = (s: Span) => SDK_LANGUAGES[String(s.resource['telemetry.sdk.language'] ?? '')];
export const routeOf = (s: Span): string | undefined => str(s.attributes['http.route'] ?? s.attributes['url.template']);
export const methodOf = (s: Span): string | undefined => str(s.attributes['http.request.method'] ?? s.attributes['http.method'])?.toUpperCase();
export const destinationOf = (s: Span): string | undefined => str(s.attributes['messaging.destination.name'] ?? s.attributes['messaging.destination']);

/** Spans placed on symbols, each tried once (the answer is kept, a miss too). */
export class SpanPlacer {
  private readonly placed = new Map<Span, Placed | null>();
  private readonly files: readonly string[];
  private readonly fileCache = new Map<string, string | undefined>();

  constructor(
    private readonly index: SourceIndex,
    private readonly routes: RouteTable,
    private readonly stats: PlacementStats,
    private readonly warnings: string[],
  ) {
    this.files = [...index.files()];
  }

  place(s: Span): Placed | undefined {
    if (this.placed.has(s)) return this.placed.get(s) ?? undefined;
    let p = this.byCode(s);
    if (p) this.stats.placedByCode++;
    if (!p && (s.kind === 'server' || s.kind === 'unspecified')) {
      p = this.byRoute(s);
      if (p) this.stats.placedByRoute++;
    }
    if (!p && s.kind === 'consumer') {
      p = this.byListener(s);
      if (p) this.stats.placedByListener++;
    }
    this.placed.set(s, p ?? null);
    return p;
  }

  /** The span or its nearest ancestor in the same service that is placed. */
  nearestPlaced(s: Span, parentOf: (s: Span) => Span | undefined): PlacedSpan | undefined {
    for (let c: Span | undefined = s; c && c.service === s.service; c = parentOf(c)) {
      const p = this.place(c);
      if (p) return { span: c, at: p };
    }
    return undefined;
  }

  /** The span, or the first placed span below it in the same service (breadth first, three levels). */
  placedBelow(s: Span, childrenOf: (s: Span) => readonly Span[]): PlacedSpan | undefined {
    let level = [s];
    for (let depth = 0; depth <= 3 && level.length; depth++) {
      for (const c of level) {
        const p = this.place(c);
        if (p) return { span: c, at: p };
      }
      level = level.flatMap((c) => childrenOf(c).filter((k) => k.service === s.service));
    }
    return undefined;
  }

  private byCode(s: Span): Placed | undefined {
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
      cands = this.index.withQname(`${ns}.${fn}`).filter(fits);
      if (!cands.length) cands = this.index.named(fn).filter((c) => fits(c) && (c.qname.endsWith(`.${ns}.${fn}`) || c.qname.endsWith(`${ns}.${fn}`)));
      how = `code.namespace \`${ns}\`, code.function \`${fn}\``;
    }
    if (!cands.length && file) {
      const f = this.fileFor(file);
      if (f) {
        cands = this.index.inFile(f).filter((c) => fits(c) && (!fn || c.name === fn));
        if (!fn && line !== undefined) {
          const enc = this.index.enclosing(f, line);
          cands = enc && fits(enc) ? [enc] : [];
        }
        how = `code.filepath \`${file}\`${fn ? `, code.function \`${fn}\`` : ''}${line !== undefined ? `, line ${line}` : ''}`;
      }
    }
    if (!cands.length && fn && !ns && !file) {
      const named = this.index.named(fn).filter(fits);
      if (named.length === 1) {
        cands = named;
        how = `code.function \`${fn}\` (the only one by that name)`;
      }
    }
    cands = narrow(cands, line);
    if (cands.length === 1) return { sid: cands[0]!.sid, how };
    if (cands.length > 1) this.warnings.push(`span "${s.name}" (${s.service}): ${how} fits ${cands.length} symbols (${cands.slice(0, 3).map((c) => c.qname).join(', ')}); not placed`);
    return undefined;
  }

  private byRoute(s: Span): Placed | undefined {
    const r = routeOf(s);
    if (!r) return undefined;
    const norm = normaliseRoute(r);
    const m = methodOf(s);
    const langs = languagesOf(s);
    const hits = this.routes.routes.filter((e) => e.route === norm && (!m || !e.method || e.method === m) && (!langs || langs.includes(this.index.bySid.get(e.sid)?.language ?? '')));
    const sids = [...new Set(hits.map((h) => h.sid))];
    if (sids.length === 1) return { sid: sids[0]!, how: `http.route \`${r}\` is declared by ${hits[0]!.how}` };
    if (sids.length > 1) this.warnings.push(`span "${s.name}" (${s.service}): route ${m ?? ''} ${r} is declared by ${sids.length} methods; not placed`);
    return undefined;
  }

  private byListener(s: Span): Placed | undefined {
    const d = destinationOf(s);
    if (!d) return undefined;
    const langs = languagesOf(s);
    const group = str(s.attributes['messaging.consumer.group.name'] ?? s.attributes['messaging.kafka.consumer.group']);
    const hits = this.routes.listeners.filter((l) => l.destination === d && (!group || !l.group || l.group === group) && (!langs || langs.includes(this.index.bySid.get(l.sid)?.language ?? '')));
    const sids = [...new Set(hits.map((h) => h.sid))];
    if (sids.length === 1) return { sid: sids[0]!, how: `consumes \`${d}\`: ${hits[0]!.how}` };
    return undefined;
  }

  /** The indexed file a span's code.filepath names: the longest indexed path it ends with. */
  private fileFor(p: string): string | undefined {
    if (this.fileCache.has(p)) return this.fileCache.get(p);
    const norm = p.replace(/\\/g, '/');
    let best: string | undefined;
    for (const f of this.files) if ((norm === f || norm.endsWith('/' + f)) && (!best || f.length > best.length)) best = f;
    this.fileCache.set(p, best);
    return best;
  }
}

/** Of several candidates, those whose lines hold the span's line, if any do. */
function narrow(cands: SourceSymbol[], line: number | undefined): SourceSymbol[] {
  if (cands.length <= 1 || line === undefined) return cands;
  const at = cands.filter((c) => c.line <= line && c.endLine >= line);
  return at.length ? at : cands;
}
