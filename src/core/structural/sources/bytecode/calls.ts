import type { EdgeKind } from '../../../model/structural.js';
import { REF_KIND_NAMES, type Invoke, type MethodInfo } from './classFile.js';
import { javaName } from './descriptor.js';
import type { SourceIndex } from './sourceIndex.js';
import type { Anchor, CallFact } from './analysis.js';
import { isSourceMethod, lastSegment, type ClassEntry } from './linkState.js';

/*
 * The call sites of compiled code: each `invoke*` instruction names the
 * method the compiler chose (owner, name, descriptor), resolved here the way
 * the JVM resolves it over the classes we have. A site is attributed to the
 * source definition around its line, or to the generated symbol whose code
 * it is.
 */

const IGNORED_BOOTSTRAPS = new Set([
  'java/lang/invoke/StringConcatFactory',
  'java/lang/runtime/ObjectMethods',
  'java/lang/runtime/SwitchBootstraps',
]);

/** What the call sites add to the analysis. */
export interface CallSink {
  readonly calls: CallFact[];
  readonly notes: string[];
  readonly counts: { invokes: number };
}

interface Place {
  readonly from: string | undefined;
  readonly site: { path: string; line: number };
  readonly inSource: boolean;
}

type Call = Pick<CallFact, 'kind' | 'name' | 'targets' | 'reason'>;

export function collectCallSites(entries: ReadonlyMap<string, ClassEntry>, index: SourceIndex, isGenerated: (sid: string) => boolean, out: CallSink): void {
  const targets = new Targets(entries, index);
  for (const e of entries.values()) {
    if (e.status === 'library') continue;
    for (const m of e.loaded.info.methods) {
      if (!m.invokes.length) continue;
      const generatedFrom = generatedOwnerOf(e, m, isGenerated);
      const pendingNew: string[] = [];
      let ni = 0;
      for (const inv of m.invokes) {
        while (ni < m.news.length && m.news[ni]!.pc < inv.pc) pendingNew.push(m.news[ni++]!.type);
        out.counts.invokes++;
        const place = placeOf(e, m, inv, generatedFrom, index);
        if (!place.from) continue;
        const call = callOf(e, m, inv, pendingNew, targets, out.notes);
        // Calls that stay outside the workspace matter only at source sites, where they refute name guesses.
        if (!call || (!place.inSource && call.targets.every((t) => 'external' in t))) continue;
        out.calls.push({ kind: call.kind, name: call.name, site: place.site, inSource: place.inSource, from: place.from, targets: call.targets, op: inv.op, reason: call.reason });
      }
    }
  }
}

/**
 * Code of a generated method (or of a generated class) is attributed to the
 * generated symbol; everything else (source methods, lambda bodies,
 * initialisers, anonymous classes) to the source definition around its line.
 */
function generatedOwnerOf(e: ClassEntry, m: MethodInfo, isGenerated: (sid: string) => boolean): string | undefined {
  const own = e.methods.get(m.name + m.descriptor);
  if (own && 'sid' in own && isGenerated(own.sid) && !m.name.startsWith('<')) return own.sid;
  if (e.status !== 'generated') return undefined;
  const lambdaOf = /^lambda\$(.+)\$\d+$/.exec(m.name)?.[1];
  const target = lambdaOf ? [...e.methods.entries()].find(([k]) => k.startsWith(lambdaOf + '('))?.[1] : undefined;
  return target && 'sid' in target ? target.sid : e.sid;
}

function placeOf(e: ClassEntry, m: MethodInfo, inv: Invoke, generatedFrom: string | undefined, index: SourceIndex): Place {
  if (generatedFrom) return { from: generatedFrom, site: { path: e.loaded.artifact, line: inv.line ?? 0 }, inSource: false };
  if (e.sourcePath && inv.line !== undefined) return { from: index.enclosing(e.sourcePath, inv.line)?.sid, site: { path: e.sourcePath, line: inv.line }, inSource: true };
  const own = e.methods.get(m.name + m.descriptor);
  return { from: own && 'sid' in own ? own.sid : e.sid, site: { path: e.loaded.artifact, line: 0 }, inSource: false };
}

/** What one instruction calls, or undefined when it is not a call to report (a lambda body's, a string concatenation's). */
function callOf(e: ClassEntry, m: MethodInfo, inv: Invoke, pendingNew: string[], targets: Targets, notes: string[]): Call | undefined {
  const info = e.loaded.info;
  if (inv.op === 'invokedynamic') {
    const bsm = inv.bootstrap?.method;
    const impl = inv.bootstrap?.implementation;
    if (!bsm || IGNORED_BOOTSTRAPS.has(bsm.owner)) return undefined;
    if (!impl) {
      notes.push(`${info.name}.${m.name}: invokedynamic with bootstrap ${bsm.owner}.${bsm.name} not followed (not a lambda or method reference)`);
      return undefined;
    }
    if (impl.owner === info.name && impl.name.startsWith('lambda$')) return undefined; // a lambda body: its calls are attributed by line
    const refKind = REF_KIND_NAMES[impl.kind] ?? `kind ${impl.kind}`;
    const isNew = impl.name === '<init>';
    const name = isNew ? lastSegment(impl.owner) : impl.name;
    const kind: EdgeKind = isNew ? 'instantiate' : 'call';
    return {
      kind,
      name,
      targets: isNew ? [targets.type(impl.owner)] : targets.method(impl.owner, impl.name, impl.descriptor),
      reason: `method reference \`${isNew ? name + '::new' : '::' + impl.name}\` (invokedynamic → LambdaMetafactory, ${refKind} ${javaName(impl.owner)}.${impl.name}${impl.descriptor})`,
    };
  }
  if (inv.ref.name === '<init>') {
    const at = pendingNew.lastIndexOf(inv.ref.owner);
    if (at >= 0) {
      pendingNew.splice(at, 1);
      return { kind: 'instantiate', name: lastSegment(inv.ref.owner), targets: [targets.type(inv.ref.owner)], reason: `new ${javaName(inv.ref.owner)}${inv.ref.descriptor} (bytecode)` };
    }
    // super(…) or this(…): a call to a constructor, if the source declares one.
    const a = targets.declaredConstructor(inv.ref.owner, inv.ref.descriptor);
    if (!a) return undefined;
    return { kind: 'call', name: lastSegment(inv.ref.owner), targets: [a], reason: `${inv.ref.owner === info.name ? 'this' : 'super'}(…) → ${javaName(inv.ref.owner)}${inv.ref.descriptor} (invokespecial)` };
  }
  return { kind: 'call', name: inv.ref.name, targets: targets.method(inv.ref.owner, inv.ref.name, inv.ref.descriptor), reason: `${inv.op} ${javaName(inv.ref.owner)}.${inv.ref.name}${inv.ref.descriptor} (bytecode)` };
}

/** Where a call lands: method resolution (JVMS §5.4.3.3/4) over the classes we have, and the source where we have no class. */
class Targets {
  constructor(
    private readonly entries: ReadonlyMap<string, ClassEntry>,
    private readonly index: SourceIndex,
  ) {}

  method(owner: string, name: string, desc: string): Anchor[] {
    const seen = new Set<string>();
    const visit = (internal: string | undefined): Anchor | undefined | null => {
      if (!internal || seen.has(internal)) return undefined;
      seen.add(internal);
      const e = this.entries.get(internal);
      if (!e) return null; // unknown class (the JDK, a jar not read): the trail ends outside
      if (e.status === 'anonymous') return undefined;
      const direct = e.methods.get(name + desc);
      if (direct) return direct;
      const info = e.loaded.info;
      for (const sup of [info.superName, ...info.interfaces]) {
        const r = visit(sup);
        if (r) return r;
      }
      return undefined;
    };
    const found = visit(owner);
    if (found) return [found];
    // A source type with no class file (not compiled, or outside the output read): fall back to its members by name.
    if (!this.entries.has(owner)) {
      const t = this.index.type(javaName(owner));
      if (t) {
        const cands = this.index.members(t.sid).filter((s) => s.name === name && isSourceMethod(s));
        if (cands.length) return cands.map((c) => ({ sid: c.sid }));
      }
    }
    return [{ external: `${owner}.${name}${desc}` }];
  }

  type(internal: string): Anchor {
    const e = this.entries.get(internal);
    if (e?.sid && (e.status === 'source' || e.status === 'generated')) return { sid: e.sid };
    const t = this.entries.has(internal) ? undefined : this.index.type(javaName(internal));
    return t ? { sid: t.sid } : { external: internal };
  }

  /** The constructor `super(…)`/`this(…)` calls, when the source declares it (not the type standing in for a default one). */
  declaredConstructor(owner: string, desc: string): { sid: string } | undefined {
    const a = this.entries.get(owner)?.methods.get('<init>' + desc);
    if (!a || !('sid' in a) || a.sid === this.entries.get(owner)?.sid) return undefined;
    return a;
  }
}
