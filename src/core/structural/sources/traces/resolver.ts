import type { ObservationRow } from '../artifacts/store.js';
import { ResolverUnavailableError, type EdgeResolver, type ResolutionBatch, type ResolverContext, type ResolverUnit, type SiteVerdict } from '../../enrichment/types.js';

/**
 * Paths seen in distributed traces, as `observed` edges. The evidence of
 * each is the trace export it came from: its site is in that artifact (the
 * n-th observation of the file), so re-importing the export replaces its
 * edges, and an edit to a source file does not make a real execution untrue.
 * Observations are kept by symbol id (artifacts/schema.ts), so their edges
 * are derived again after a re-index.
 */

const TRACES_SOURCE = 'traces';

export interface TraceInput {
  readonly observations: readonly (ObservationRow & { readonly path: string })[];
}

export class TraceResolver implements EdgeResolver {
  readonly source = TRACES_SOURCE;
  readonly tier = 'observed' as const;
  readonly units: readonly ResolverUnit['kind'][] = ['workspace'];
  private input: TraceInput | undefined;

  constructor(private readonly load: (ctx: ResolverContext) => Promise<TraceInput>) {}

  async start(ctx: ResolverContext): Promise<void> {
    this.input = await this.load(ctx);
    if (!this.input.observations.length) throw new ResolverUnavailableError(this.source, 'No traces imported: run `tenure import traces <file>` with an OTLP, Jaeger or Zipkin JSON export.');
  }

  async resolve(unit: ResolverUnit): Promise<ResolutionBatch> {
    if (unit.kind !== 'workspace' || !this.input) return { sites: [], implementations: [] };
    return { sites: observationVerdicts(this.input.observations), implementations: [] };
  }

  async dispose(): Promise<void> {
    this.input = undefined;
  }
}

function observationVerdicts(rows: readonly (ObservationRow & { readonly path: string })[]): SiteVerdict[] {
  const ordinal = new Map<string, number>();
  return rows.map((o) => {
    const line = (ordinal.get(o.path) ?? 0) + 1;
    ordinal.set(o.path, line);
    const when = new Date(o.lastSeen).toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      site: { path: o.path, line, col: 0 },
      from: { sid: o.srcSid },
      targets: [{ sid: o.dstSid }],
      complete: false,
      kind: 'call',
      reason: `seen in ${o.count} span hop${o.count === 1 ? '' : 's'} (${o.services}) via ${o.via}, last ${when}, trace ${o.traceIds[0] ?? '?'}: ${o.reason}`,
    };
  });
}
