import type { WiringRow } from '../artifacts/store.js';
import type { Bean, BeanExport } from './model.js';
import type { DiTypeModel, InjectionPoint } from './typeModel.js';

/**
 * Which bean fills which injection point. The actuator export says which
 * beans a bean was given (its `dependencies`), the AOT output which types its
 * constructor asks for; the type model says which injection point each fits.
 * When several beans fit one point the container's choice (primary,
 * qualifier, name) decides: it is taken where the artifact states it and
 * otherwise every fitting bean is kept, with the count.
 */

export interface WiringResult {
  readonly rows: WiringRow[];
  readonly warnings: string[];
}

export function computeWiring(exp: BeanExport, model: DiTypeModel, label: string): WiringResult {
  const tier = exp.format === 'actuator-beans' ? 'observed' : 'resolved';
  const rows: WiringRow[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, Bean>();
  for (const b of exp.beans) {
    byName.set(b.name, b);
    for (const a of b.aliases) byName.set(a, b);
  }
  const typed = exp.beans.filter((b): b is Bean & { type: string } => !!b.type);
  const fitting = (declared: string) => typed.filter((b) => model.supertypes(b.type).includes(declared));
  const profile = exp.profiles.length ? ` (profile ${exp.profiles.join(', ')})` : '';

  for (const consumer of typed) {
    // A @Bean factory method's parameters are injected into the configuration class's method, not into the bean.
    const owner = exp.format === 'spring-aot' && consumer.factory ? consumer.factory.type : consumer.type;
    if (!model.has(owner)) continue; // library beans: their wiring is not ours to report
    const points = distinctPoints(model.injectionPoints(consumer.type));
    if (exp.format === 'actuator-beans') {
      const deps = (consumer.dependencies ?? []).map((n) => byName.get(n)).filter((b): b is Bean & { type: string } => !!b?.type);
      for (const p of points) {
        const fits = deps.filter((d) => model.supertypes(d.type).includes(p.type));
        if (!fits.length) continue;
        const named = fits.filter((d) => d.name === (p.qualifier ?? p.name) || (p.qualifier !== undefined && d.aliases.includes(p.qualifier)));
        const chosen = fits.length > 1 && named.length === 1 ? named : fits;
        const all = fitting(p.type).length;
        for (const d of chosen) {
          rows.push({
            consumerType: consumer.type, consumerBean: consumer.name, injection: p.name, declaredType: p.type, bean: d.name, beanType: d.type,
            candidates: Math.max(all, chosen.length),
            why:
              `${label}${profile}: bean \`${consumer.name}\` was created with \`${d.name}\` (${d.type})` +
              (chosen.length > 1 ? `; ${chosen.length} of its dependencies fit ${describe(p)}, the export does not say which went where` : `, the only one of its dependencies that fits ${describe(p)}`) +
              (all > 1 ? `; ${all} beans of a fitting type exist, the container chose this one` : ''),
            tier,
          });
        }
      }
    } else {
      // AOT: the constructor's declared parameter types, and the fields the container sets.
      const ctorPoints = model.injectionPoints(consumer.type).filter((p) => p.via === 'constructor');
      const declared: InjectionPoint[] = (consumer.parameterTypes ?? []).map((type, i) => {
        if (consumer.factory) return { name: `${consumer.factory.method}(…)`, type, via: 'constructor' as const };
        const same = ctorPoints.filter((p) => p.type === type);
        const point = same.length === 1 ? same[0] : ctorPoints[i]?.type === type ? ctorPoints[i] : undefined;
        return { name: point?.name ?? null, type, via: 'constructor' as const, ...(point?.qualifier ? { qualifier: point.qualifier } : {}) };
      });
      for (const f of consumer.autowiredFields ?? []) {
        const p = points.find((x) => x.via === 'field' && x.name === f);
        if (p) declared.push(p);
        else warnings.push(`${consumer.name}: autowired field \`${f}\` not found in ${consumer.type}`);
      }
      for (const p of declared) {
        if (/^(java|javax|jakarta)\./.test(p.type)) continue;
        const fits = fitting(p.type);
        if (!fits.length) {
          warnings.push(`${consumer.name}: no bean in the AOT output fits ${describe(p)} (from a library configuration, or missing)`);
          continue;
        }
        // The container's order: the injection point's qualifier, then the primary bean, then the bean named like the point.
        const qualified = p.qualifier ? fits.filter((b) => b.qualifiers?.includes(p.qualifier!) || b.name === p.qualifier || b.aliases.includes(p.qualifier!)) : [];
        const primary = fits.filter((b) => b.primary);
        const named = fits.filter((b) => b.name === p.name);
        let chosen = fits;
        let how = 'the only bean of a fitting type';
        if (fits.length > 1 || p.qualifier) {
          if (qualified.length === 1) {
            chosen = qualified;
            how = `qualified "${p.qualifier}" among ${fits.length} fitting beans`;
          } else if (primary.length === 1) {
            chosen = primary;
            how = `the primary one of ${fits.length} fitting beans`;
          } else if (named.length === 1) {
            chosen = named;
            how = `named like it among ${fits.length} fitting beans`;
          } else if (fits.length > 1) how = `one of ${fits.length} fitting beans; the build output does not say which the container picks`;
        }
        for (const d of chosen) {
          rows.push({
            consumerType: owner, consumerBean: consumer.name, injection: p.name, declaredType: p.type, bean: d.name, beanType: d.type, candidates: fits.length,
            why: `${label}${profile}: ${describe(p)} of bean \`${consumer.name}\` gets \`${d.name}\` (${d.type}), ${how}`,
            tier,
          });
        }
      }
    }
  }
  return { rows, warnings };
}

/** A constructor parameter stored into a field is one injection point: keep the field (it has the name calls go through). */
function distinctPoints(points: readonly InjectionPoint[]): InjectionPoint[] {
  const fields = points.filter((p) => p.via === 'field');
  const out = [...fields];
  for (const p of points) {
    if (p.via !== 'constructor') continue;
    const sameType = fields.filter((f) => f.type === p.type);
    if ((p.name && sameType.some((f) => f.name === p.name)) || (!p.name && sameType.length === 1)) continue;
    out.push(p);
  }
  return out;
}

function describe(p: InjectionPoint): string {
  return `${p.via === 'field' ? 'field' : 'constructor parameter'}${p.name ? ` \`${p.name}\`` : ''} (${p.type})`;
}
