import type { SourceIndex, SourceSymbol } from '../bytecode/sourceIndex.js';
import type { WiringRow } from '../artifacts/store.js';
import { ResolverUnavailableError, type EdgeResolver, type ImplementationFact, type ResolutionBatch, type ResolverContext, type ResolverUnit } from '../../enrichment/types.js';

/**
 * Dependency-injection wiring as implementation facts: the concrete bean
 * behind an injected interface implements it (and its methods), reached only
 * through the container — `wiredBy` says which artifact showed it. The
 * actuator export is a running application's (`observed`); AOT output is the
 * build's (`resolved`). Implementations the container did not choose keep
 * whatever tier the other resolvers gave them.
 */

export type DiSource = 'di:actuator' | 'di:aot';

export interface DiInput {
  readonly rows: readonly WiringRow[];
  /** Source and generated symbols (a generated mapper can be the bean). */
  readonly index: SourceIndex;
}

export class DiResolver implements EdgeResolver {
  readonly units: readonly ResolverUnit['kind'][] = ['workspace'];
  readonly tier: 'observed' | 'resolved';
  private input: DiInput | undefined;

  constructor(
    readonly source: DiSource,
    private readonly load: (ctx: ResolverContext) => Promise<DiInput>,
  ) {
    this.tier = source === 'di:actuator' ? 'observed' : 'resolved';
  }

  async start(ctx: ResolverContext): Promise<void> {
    this.input = await this.load(ctx);
    if (!this.input.rows.length) {
      throw new ResolverUnavailableError(this.source, this.source === 'di:actuator'
        ? 'No actuator beans imported: run `tenure import beans <file|url>` with a /actuator/beans export.'
        : 'No Spring AOT output found (target/spring-aot/main/sources, build/generated/aotSources): run the AOT build (spring-boot:process-aot, processAot).');
    }
  }

  async resolve(unit: ResolverUnit): Promise<ResolutionBatch> {
    if (unit.kind !== 'workspace' || !this.input) return { sites: [], implementations: [] };
    return { sites: [], implementations: wiringFacts(this.input.rows, this.input.index) };
  }

  async dispose(): Promise<void> {
    this.input = undefined;
  }
}

/** Type and method facts for each wired bean whose class differs from the type asked for. */
function wiringFacts(rows: readonly WiringRow[], index: SourceIndex): ImplementationFact[] {
  const out: ImplementationFact[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (r.declaredType === r.beanType) continue;
    const base = index.type(r.declaredType);
    const impl = index.type(r.beanType);
    if (!base || !impl) continue;
    const add = (b: SourceSymbol, i: SourceSymbol, reason: string) => {
      const key = `${b.sid}\0${i.sid}`;
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ base: { sid: b.sid }, impl: { sid: i.sid }, reason, wiredBy: r.why });
    };
    add(base, impl, `bean \`${r.bean}\` (${r.beanType}) fills ${r.injection ? `\`${r.injection}\`` : 'a dependency'} of ${r.consumerType}, declared as ${r.declaredType}`);
    const implMembers = index.members(impl.sid).filter((m) => m.kind === 'method');
    const byName = new Map<string, SourceSymbol[]>();
    for (const m of implMembers) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
    const baseMembers = index.members(base.sid).filter((m) => m.kind === 'method');
    const baseByName = new Map<string, SourceSymbol[]>();
    for (const m of baseMembers) baseByName.set(m.name, [...(baseByName.get(m.name) ?? []), m]);
    for (const [name, bases] of baseByName) {
      const impls = byName.get(name) ?? [];
      // Overloads pair in declaration order; an uneven set is left out rather than guessed.
      if (impls.length !== bases.length) continue;
      bases.forEach((b, i) => add(b, impls[i]!, `\`${impl.name}.${name}\` implements \`${base.name}.${name}\` in the bean the container wired`));
    }
  }
  return out;
}
