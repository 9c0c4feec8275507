import { ACC, hasFlag, type ClassInfo } from './classFile.js';
import { javaName } from './descriptor.js';
import type { SourceIndex, SourceSymbol } from './sourceIndex.js';
import type { Anchor, CallFact } from './analysis.js';
import type { ClassEntry } from './linkState.js';

/*
 * Spring Data derived queries: a repository method's name names entity
 * properties (`findByStatusAndRailOrderByCreatedAtDesc`), so the method
 * depends on those fields the way a query reads them. Class files give the
 * entity type (the repository's generic supertype) and field types, for
 * property paths that cross entities (`CustomerName` → customer.name).
 */

export function collectDerivedQueries(entries: ReadonlyMap<string, ClassEntry>, index: SourceIndex, calls: CallFact[]): void {
  for (const e of entries.values()) {
    if (e.status !== 'source' || !hasFlag(e.loaded.info.access, ACC.INTERFACE) || !e.sourcePath) continue;
    const domain = springDataDomain(e.loaded.info.signature, (n) => entries.get(n)?.loaded.info);
    if (!domain) continue;
    const domainType = entries.get(domain)?.sourceType ?? index.type(javaName(domain));
    if (!domainType) continue;
    for (const m of e.loaded.info.methods) {
      if (!hasFlag(m.access, ACC.ABSTRACT)) continue;
      const paths = derivedQueryProperties(m.name);
      if (!paths) continue;
      const anchor = e.methods.get(m.name + m.descriptor);
      const declared = anchor && 'sid' in anchor ? index.bySid.get(anchor.sid) : undefined;
      if (!declared) continue;
      const { targets, found, missing } = propertyFields(paths, domain, domainType.sid, entries, index);
      if (!targets.length) continue;
      calls.push({
        kind: 'reference', name: m.name, site: { path: declared.path, line: declared.line }, inSource: true, from: declared.sid, targets, op: 'spring-data', partial: true,
        reason: `Spring Data derives this query from the method name: ${found.map((f) => `\`${f}\``).join(', ')} of ${javaName(domain)}${missing.length ? `; not found: ${missing.join(', ')}` : ''}`,
      });
    }
  }
}

/**
 * The fields each property path names, from the entity down: `CustomerName`
 * is the field customerName, else the field customer and its name (longest
 * prefix first). Paths that stop short are `missing`.
 */
function propertyFields(
  paths: readonly string[],
  domain: string,
  domainSid: string,
  entries: ReadonlyMap<string, ClassEntry>,
  index: SourceIndex,
): { targets: Anchor[]; found: string[]; missing: string[] } {
  const fieldsOf = (typeSid: string) => index.members(typeSid).filter((m) => m.kind === 'field');
  const fieldType = (internal: string | undefined, name: string): string | undefined => {
    const f = internal ? entries.get(internal)?.loaded.info.fields.find((x) => x.name === name) : undefined;
    return f && f.descriptor.startsWith('L') ? f.descriptor.slice(1, -1) : undefined;
  };
  const targets: Anchor[] = [];
  const found: string[] = [];
  const missing: string[] = [];
  for (const prop of paths) {
    let typeSid: string | undefined = domainSid;
    let internal: string | undefined = domain;
    let rest = prop;
    const chain: string[] = [];
    while (rest && typeSid) {
      let hit: SourceSymbol | undefined;
      let cut = rest.length;
      for (; cut > 0; cut--) {
        if (cut < rest.length && !/[A-Z]/.test(rest[cut]!)) continue;
        const name = rest[0]!.toLowerCase() + rest.slice(1, cut);
        hit = fieldsOf(typeSid).find((f) => f.name === name);
        if (hit) break;
      }
      if (!hit) break;
      targets.push({ sid: hit.sid });
      chain.push(hit.name);
      const next = fieldType(internal, hit.name);
      internal = next;
      typeSid = next ? (entries.get(next)?.sourceType?.sid ?? index.type(javaName(next))?.sid) : undefined;
      rest = rest.slice(cut);
    }
    if (rest) missing.push(prop);
    else found.push(chain.join('.'));
  }
  return { targets, found, missing };
}

const SPRING_DATA = /^org\/springframework\/data\//;

/** The entity type of a Spring Data repository: the first type argument of its Spring Data supertype, through the interfaces we have. */
function springDataDomain(signature: string | undefined, info: (internal: string) => ClassInfo | undefined, depth = 0): string | undefined {
  if (!signature || depth > 5) return undefined;
  for (const m of signature.matchAll(/L([\w/$]+)<L([\w/$]+)[;<]/g)) {
    if (SPRING_DATA.test(m[1]!)) return m[2]!;
    const inner = springDataDomain(info(m[1]!)?.signature, info, depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

const QUERY = /^(?:find|read|get|query|search|stream|count|exists|delete|remove)(?:First\d*|Top\d*|Distinct)?\w*?By([A-Z]\w*)$/;
const OPERATORS = /(IsNotNull|NotNull|IsNull|Null|IsNot|Not|IsEmpty|IsNotEmpty|Empty|NotEmpty|Is|Equals|Between|LessThanEqual|LessThan|GreaterThanEqual|GreaterThan|Before|After|NotLike|Like|StartingWith|StartsWith|EndingWith|EndsWith|NotContaining|Containing|Contains|NotIn|In|True|False|IgnoreCase|IgnoringCase|Exists|Near|Within|Regex|Matches)$/;

/** Property paths a derived query method's name refers to (`findByStatusAndRailOrderByCreatedAtDesc` → Status, Rail, CreatedAt); undefined if it is not one. */
export function derivedQueryProperties(name: string): string[] | undefined {
  const m = QUERY.exec(name);
  if (!m) return undefined;
  const [criteria, order] = m[1]!.split(/OrderBy(?=[A-Z])/);
  const out: string[] = [];
  for (const part of criteria!.replace(/AllIgnoreCase$|AllIgnoringCase$/, '').split(/(?:And|Or)(?=[A-Z])/)) {
    let p = part;
    for (let prev = ''; prev !== p; ) {
      prev = p;
      p = p.replace(OPERATORS, '');
    }
    if (p) out.push(p);
  }
  for (const o of (order ?? '').split(/(?<=Asc|Desc)(?=[A-Z])/)) {
    const p = o.replace(/(Asc|Desc)$/, '');
    if (p) out.push(p);
  }
  return out.length ? out : undefined;
}
