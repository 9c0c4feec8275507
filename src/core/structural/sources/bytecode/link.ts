import { formatDescriptor, type Descriptor } from '../../../model/symbolId.js';
import { ACC, hasFlag, type ClassInfo, type MethodInfo } from './classFile.js';
import { javaName, packageOf } from './descriptor.js';
import type { SourceIndex, SourceSymbol } from './sourceIndex.js';
import type { AnalyzeOptions, Anchor, BytecodeAnalysis, CallFact, GeneratedSymbol, ImplFact, JvmType, LoadedClass } from './analysis.js';
import { collectCallSites } from './calls.js';
import { isSourceMethod, lastSegment, type ClassEntry } from './linkState.js';
import { collectDerivedQueries } from './springData.js';

/**
 * Links compiled classes to the workspace's source symbols.
 *
 * Every class is one of: backed by a source type (its methods map to the
 * source methods, by the lines their code covers or, for bodiless methods,
 * by declaration order, which javac keeps); an anonymous or local class
 * inside a source file (its code is attributed by line to the enclosing
 * source definition, as the inventory does); generated (a class or member
 * with no source: annotation-processor output, compiler-written record
 * accessors, enum helpers, bridges, Lombok accessors, Spring AOT classes);
 * or a library class (from a jar, no source here: known for its hierarchy
 * only, never imported as symbols).
 *
 * Call sites come from the `invoke*` instructions; each names the method the
 * compiler chose (owner, name, descriptor), so the edge is `resolved` at that
 * static type; dispatch below it is left to the implementation facts.
 */

const SPRING_AOT = /__(BeanDefinitions|BeanFactoryRegistrations|Autowiring|TestContext\d*_\w+)$/;
const PROXY = /\$\$(SpringCGLIB|EnhancerBySpringCGLIB|FastClassBySpringCGLIB|EnhancerByCGLIB)\$\$|\$HibernateProxy\$|\$ByteBuddy\$/;

function sidWith(parentSid: string, d: Descriptor): string {
  return parentSid + formatDescriptor(d);
}

export function analyzeBytecode(classes: readonly LoadedClass[], index: SourceIndex, options: AnalyzeOptions = {}): BytecodeAnalysis {
  const linker = new Linker(classes, index, options);
  linker.classify();
  linker.nameGeneratedClasses();
  linker.anchorMethods();
  collectCallSites(linker.entries, index, (sid) => linker.isGenerated(sid), linker);
  linker.linkImplementations();
  collectDerivedQueries(linker.entries, index, linker.calls);
  return linker.result();
}

/** The classes being linked and what linking them has produced so far; each step of analyzeBytecode is a method. */
class Linker {
  readonly entries = new Map<string, ClassEntry>();
  readonly calls: CallFact[] = [];
  readonly notes: string[] = [];
  readonly counts = { source: 0, anonymous: 0, generated: 0, library: 0, invokes: 0 };
  private readonly generated: GeneratedSymbol[] = [];
  private readonly generatedIndex = new Map<string, number>();
  private readonly implementations: ImplFact[] = [];

  constructor(
    classes: readonly LoadedClass[],
    private readonly index: SourceIndex,
    private readonly options: AnalyzeOptions,
  ) {
    // Workspace class files win over jar copies of the same class.
    for (const c of [...classes].sort((a, b) => Number(a.fromJar) - Number(b.fromJar))) {
      if (this.entries.has(c.info.name)) continue;
      this.entries.set(c.info.name, { loaded: c, internal: c.info.name, status: 'library', qname: javaName(c.info.name), methods: new Map(), usedNames: new Map() });
    }
  }

  isGenerated(sid: string): boolean {
    return this.generatedIndex.has(sid);
  }

  private addGenerated(g: GeneratedSymbol): void {
    this.generatedIndex.set(g.sid, this.generated.length);
    this.generated.push(g);
  }

  /** Each class is backed by a source type, anonymous or local in a source file, generated, or a library class. */
  classify(): void {
    for (const e of this.entries.values()) {
      const info = e.loaded.info;
      const pkg = packageOf(info.name);
      if (info.sourceFile) e.sourcePath = this.index.javaFile(pkg, info.sourceFile)[0];
      const self = info.innerClasses.find((ic) => ic.inner === info.name);
      const anonymousOrLocal = !!info.enclosingMethod || (self !== undefined && (self.name === undefined || self.outer === undefined));
      if (!anonymousOrLocal) {
        // Nested classes read with dots in source: `Outer$Inner` → `Outer.Inner`.
        const qn = self?.name && self.outer ? `${javaName(self.outer)}.${self.name}` : javaName(info.name);
        e.qname = qn;
        const t = this.index.type(qn);
        if (t && (!e.sourcePath || t.path === e.sourcePath)) {
          e.sourceType = t;
          e.sourcePath ??= t.path;
        }
      }
      if (e.sourceType) e.status = 'source';
      else if (e.sourcePath && anonymousOrLocal) e.status = 'anonymous';
      else if (e.sourcePath || !e.loaded.fromJar) e.status = 'generated';
      else e.status = 'library';
    }
  }

  /** Counts the classes by status; each generated class becomes a symbol, with an id like the inventory's and what wrote it. */
  nameGeneratedClasses(): void {
    for (const e of this.entries.values()) {
      if (e.status === 'source') {
        e.sid = e.sourceType!.sid;
        this.counts.source++;
        continue;
      }
      if (e.status === 'anonymous') {
        this.counts.anonymous++;
        continue;
      }
      if (e.status === 'library') {
        this.counts.library++;
        continue;
      }
      this.counts.generated++;
      const info = e.loaded.info;
      const sid = this.generatedClassSid(e);
      if (!sid) {
        e.status = 'anonymous';
        continue;
      }
      const supers = this.sourceSupertypes(e);
      const mapper = supers.find((s) => s.loaded.info.annotations.some((a) => a.type === 'Lorg/mapstruct/Mapper;'));
      const outer = info.innerClasses.find((ic) => ic.inner === info.name)?.outer;
      const outerEntry = outer ? this.entries.get(outer) : undefined;
      e.generator = this.generatorOfClass(info, !!mapper, outerEntry);
      e.derivedFrom = mapper?.sid ?? supers[0]?.sid ?? (outerEntry?.status === 'source' ? outerEntry.sid! : null);
      this.addGenerated({
        sid,
        name: e.qname.slice(e.qname.lastIndexOf('.') + 1),
        qname: e.qname,
        kind: hasFlag(info.access, ACC.INTERFACE) ? 'interface' : hasFlag(info.access, ACC.ENUM) ? 'enum' : 'class',
        parentSid: outerEntry?.sid ?? null,
        derivedFrom: e.derivedFrom,
        generator: e.generator,
        artifact: e.loaded.artifact,
        line: 0,
      });
    }
  }

  private generatorOfClass(info: ClassInfo, implementsMapper: boolean, outer: ClassEntry | undefined): string {
    const genSource = this.options.generatedSource?.(info.name, info.sourceFile);
    const processor = genSource ? /@(?:javax\.annotation\.processing\.|javax\.annotation\.)?Generated\s*\(\s*(?:value\s*=\s*)?(?:\{\s*)?"([^"]+)"/.exec(genSource)?.[1] : undefined;
    if (SPRING_AOT.test(info.name)) return 'spring-aot';
    if (PROXY.test(info.name)) return 'proxy';
    if (implementsMapper) return 'mapstruct';
    if (processor) return `annotation processor ${processor}`;
    if (info.annotations.some((a) => a.type === 'Llombok/Generated;')) return 'lombok';
    if (outer?.status === 'source') return 'annotation processor or compiler (nested in a source class, absent from its source)';
    return 'bytecode only (no source in the workspace)';
  }

  /** Generated classes get ids like the inventory's: package namespaces, then the type (nested in its outer class). */
  private generatedClassSid(e: ClassEntry): string | undefined {
    if (e.sid) return e.sid;
    const info = e.loaded.info;
    const self = info.innerClasses.find((ic) => ic.inner === info.name);
    let parentSid: string;
    let parentQ: string;
    if (self?.outer && self.name) {
      const outer = this.entries.get(self.outer);
      const outerSid = outer ? (outer.sourceType?.sid ?? (outer.status === 'generated' ? this.generatedClassSid(outer) : undefined)) : undefined;
      if (!outerSid || !outer) return undefined;
      parentSid = outerSid;
      parentQ = outer.qname;
    } else {
      const pkg = packageOf(info.name);
      parentSid = 'java ' + (pkg ? pkg.split('.').map((n) => formatDescriptor({ name: n, suffix: 'namespace' })).join('') : '');
      parentQ = pkg;
    }
    const name = self?.name ?? lastSegment(info.name);
    e.sid = sidWith(parentSid, { name, suffix: 'type' });
    e.qname = parentQ ? `${parentQ}.${name}` : name;
    return e.sid;
  }

  /** The direct supertypes (interfaces, then the superclass) that are source classes. */
  private sourceSupertypes(e: ClassEntry): ClassEntry[] {
    return [...e.loaded.info.interfaces, ...(e.loaded.info.superName ? [e.loaded.info.superName] : [])]
      .map((n) => this.entries.get(n))
      .filter((x): x is ClassEntry => !!x && x.status === 'source');
  }

  /** Every method of every class gets an anchor: the source method it compiles, a generated symbol, or a library method. */
  anchorMethods(): void {
    for (const e of this.entries.values()) {
      const info = e.loaded.info;
      if (e.status === 'library') {
        for (const m of info.methods) e.methods.set(m.name + m.descriptor, { external: `${info.name}.${m.name}${m.descriptor}` });
        continue;
      }
      if (e.status !== 'anonymous') this.anchorMethodsOf(e);
    }
  }

  private anchorMethodsOf(e: ClassEntry): void {
    const info = e.loaded.info;
    const members = e.sourceType ? this.index.members(e.sourceType.sid) : [];
    // Declaration order per name, for methods without code (interfaces, abstract, native).
    const declared = new Map<string, MethodInfo[]>();
    for (const m of info.methods) {
      if (m.name.startsWith('<') || hasFlag(m.access, ACC.SYNTHETIC) || hasFlag(m.access, ACC.BRIDGE)) continue;
      const list = declared.get(m.name) ?? [];
      list.push(m);
      declared.set(m.name, list);
    }
    const ctorMembers = members.filter((s) => s.kind === 'constructor');
    const inits = info.methods.filter((m) => m.name === '<init>');
    for (const m of info.methods) {
      const key = m.name + m.descriptor;
      if (m.name === '<clinit>') continue;
      if (hasFlag(m.access, ACC.SYNTHETIC) && !hasFlag(m.access, ACC.BRIDGE)) continue; // lambda bodies, accessors: attributed by line
      if (m.name === '<init>') {
        // No declared constructor (the compiler's default or a record's canonical one): `new X()` is an instantiation of the type.
        e.methods.set(key, { sid: constructorFor(m, ctorMembers, inits)?.sid ?? e.sid! });
        continue;
      }
      if (e.status === 'generated') {
        const impl = this.sourceSupertypes(e).flatMap((s) => [...s.methods.entries()].filter(([k2]) => k2 === key).map(([, a]) => a));
        const derived = impl.find((a): a is { sid: string } => 'sid' in a)?.sid ?? e.derivedFrom ?? null;
        e.methods.set(key, this.addGeneratedMethod(e, m, hasFlag(m.access, ACC.BRIDGE) ? 'compiler: bridge' : e.generator!, derived));
        continue;
      }
      const picked = sourceMethodFor(m, members.filter((s) => s.name === m.name && isSourceMethod(s)), declared.get(m.name) ?? []);
      if (picked) {
        e.methods.set(key, { sid: picked.sid });
        continue;
      }
      const only = bytecodeOnly(e, m, members);
      e.methods.set(key, this.addGeneratedMethod(e, m, only.generator, only.derived));
    }
  }

  private addGeneratedMethod(e: ClassEntry, m: MethodInfo, generator: string, derivedFrom: string | null): Anchor {
    const sourceSame = e.sourceType ? this.index.members(e.sourceType.sid).filter((s) => s.name === m.name && isSourceMethod(s)).length : 0;
    const used = e.usedNames.get(m.name) ?? 0;
    e.usedNames.set(m.name, used + 1);
    const k = sourceSame + used;
    const sid = sidWith(e.sid!, k ? { name: m.name, suffix: 'method', disambiguator: `+${k}` } : { name: m.name, suffix: 'method' });
    this.addGenerated({
      sid,
      name: m.name,
      qname: `${e.qname}.${m.name}`,
      kind: 'method',
      parentSid: e.sid!,
      derivedFrom,
      generator,
      artifact: e.loaded.artifact,
      line: m.lines?.first ?? 0,
    });
    return { sid };
  }

  /** What class files record of inheritance: every supertype each class implements or extends, and each method that overrides one. */
  linkImplementations(): void {
    for (const e of this.entries.values()) {
      if ((e.status !== 'source' && e.status !== 'generated') || !e.sid) continue;
      for (const s of this.linkedSupertypes(e)) this.overridesOf(e, s);
      this.bridgesDeriveFromTheirTarget(e);
    }
  }

  /** Every source or generated supertype of a class, transitively. */
  private linkedSupertypes(e: ClassEntry): ClassEntry[] {
    const supers: ClassEntry[] = [];
    const seen = new Set<string>();
    const walk = (n: string | undefined) => {
      if (!n || seen.has(n)) return;
      seen.add(n);
      const s = this.entries.get(n);
      if (!s) return;
      if ((s.status === 'source' || s.status === 'generated') && s !== e) supers.push(s);
      walk(s.loaded.info.superName);
      s.loaded.info.interfaces.forEach(walk);
    };
    walk(e.loaded.info.name);
    return supers;
  }

  private overridesOf(e: ClassEntry, s: ClassEntry): void {
    const info = e.loaded.info;
    const mineByKey = new Map(info.methods.map((m) => [m.name + m.descriptor, m]));
    this.implementations.push({ base: s.sid!, impl: e.sid!, reason: `${javaName(info.name)} ${hasFlag(s.loaded.info.access, ACC.INTERFACE) ? 'implements' : 'extends'} ${javaName(s.internal)} (class file)` });
    for (const bm of s.loaded.info.methods) {
      if (bm.name.startsWith('<') || hasFlag(bm.access, ACC.STATIC) || hasFlag(bm.access, ACC.PRIVATE) || hasFlag(bm.access, ACC.SYNTHETIC)) continue;
      const base = s.methods.get(bm.name + bm.descriptor);
      const mine = mineByKey.get(bm.name + bm.descriptor);
      if (!base || !('sid' in base) || !mine || hasFlag(mine.access, ACC.STATIC)) continue;
      const impl = e.methods.get(mine.name + mine.descriptor);
      // A bridge stands in for the generic method it forwards to: that one is the implementation people wrote.
      if (hasFlag(mine.access, ACC.BRIDGE)) {
        const real = bridgeTarget(e, mine);
        if (real) this.implementations.push({ base: base.sid, impl: real.sid, reason: `${javaName(info.name)}.${mine.name} overrides ${javaName(s.internal)}.${bm.name} through a compiler bridge (class file)` });
      }
      if (!impl || !('sid' in impl)) continue;
      this.implementations.push({ base: base.sid, impl: impl.sid, reason: `${javaName(info.name)}.${mine.name}${mine.descriptor} overrides ${javaName(s.internal)}.${bm.name} (class file)` });
    }
  }

  /** A bridge's generated symbol derives from the method it forwards to. */
  private bridgesDeriveFromTheirTarget(e: ClassEntry): void {
    for (const m of e.loaded.info.methods) {
      if (!hasFlag(m.access, ACC.BRIDGE)) continue;
      const a = e.methods.get(m.name + m.descriptor);
      const real = bridgeTarget(e, m);
      if (a && 'sid' in a && real) {
        const g = this.generatedIndex.get(a.sid);
        if (g !== undefined) this.generated[g] = { ...this.generated[g]!, derivedFrom: real.sid };
      }
    }
  }

  /** The analysis, with the type model DI wiring and traces read. */
  result(): BytecodeAnalysis {
    const types = new Map<string, JvmType>();
    for (const e of this.entries.values()) types.set(e.loaded.info.name, jvmTypeOf(e));
    return { generated: this.generated, calls: this.calls, implementations: this.implementations, types, counts: this.counts, notes: this.notes };
  }
}

/** The source constructor an `<init>` compiles: the only one, the one its lines fall in, else the one in the same position. */
function constructorFor(m: MethodInfo, ctorMembers: readonly SourceSymbol[], inits: readonly MethodInfo[]): SourceSymbol | undefined {
  let ctor: SourceSymbol | undefined;
  if (ctorMembers.length === 1 && inits.length === 1) ctor = ctorMembers[0];
  else if (m.lines) ctor = ctorMembers.find((c) => c.line <= m.lines!.last && c.endLine >= m.lines!.last) ?? ctorMembers.find((c) => c.line <= m.lines!.first && c.endLine >= m.lines!.first);
  if (!ctor && ctorMembers.length === inits.length) ctor = ctorMembers[inits.indexOf(m)];
  return ctor;
}

/**
 * The source method a compiled method is: the one its lines fall in, else
 * (no code: interfaces, abstract, native) the one in the same position
 * among those of its name. Bridges are never source methods.
 */
function sourceMethodFor(m: MethodInfo, same: readonly SourceSymbol[], order: readonly MethodInfo[]): SourceSymbol | undefined {
  if (hasFlag(m.access, ACC.BRIDGE)) return undefined;
  let picked: SourceSymbol | undefined;
  if (m.lines) picked = same.find((s) => s.line <= m.lines!.first && s.endLine >= m.lines!.first) ?? same.find((s) => s.line <= m.lines!.last && s.endLine >= m.lines!.last);
  if (!picked && !m.hasCode) {
    if (order.length === same.length) picked = same[order.indexOf(m)];
    else if (same.length === 1 && order.length === 1) picked = same[0];
  }
  return picked;
}

/** A method of a source class that exists only in bytecode: what wrote it, and what it derives from. */
function bytecodeOnly(e: ClassEntry, m: MethodInfo, members: readonly SourceSymbol[]): { generator: string; derived: string | null } {
  const info = e.loaded.info;
  const isRecord = info.superName === 'java/lang/Record';
  const isEnum = hasFlag(info.access, ACC.ENUM);
  const field = (name: string) => members.find((s) => s.kind === 'field' && s.name === name);
  const accessor = /^(get|is|set|with)([A-Z].*)$/.exec(m.name);
  const accessorField = accessor ? field(accessor[2]![0]!.toLowerCase() + accessor[2]!.slice(1)) : undefined;
  if (hasFlag(m.access, ACC.BRIDGE)) return { generator: 'compiler: bridge', derived: e.sid! };
  if (isRecord && info.recordComponents?.some((c) => c.name === m.name) && m.descriptor.startsWith('()')) return { generator: 'compiler: record accessor', derived: field(m.name)?.sid ?? e.sid! };
  if (isRecord && ['toString', 'hashCode', 'equals'].includes(m.name)) return { generator: 'compiler: record method', derived: e.sid! };
  if (isEnum && (m.name === 'values' || m.name === 'valueOf')) return { generator: 'compiler: enum method', derived: e.sid! };
  if (m.annotations.some((a) => a.type === 'Llombok/Generated;')) return { generator: 'lombok', derived: accessorField?.sid ?? e.sid! };
  if (accessorField) return { generator: `accessor absent from the source (Lombok or another processor) for field ${accessorField.name}`, derived: accessorField.sid };
  return { generator: 'bytecode only (absent from the source)', derived: e.sid! };
}

/** The method a compiler bridge forwards to, when it is anchored to a symbol. */
function bridgeTarget(e: ClassEntry, bridge: MethodInfo): { sid: string } | undefined {
  const fwd = bridge.invokes.find((i) => i.ref.owner === e.loaded.info.name && i.ref.name === bridge.name);
  const real = fwd ? e.methods.get(fwd.ref.name + fwd.ref.descriptor) : undefined;
  return real && 'sid' in real ? real : undefined;
}

/** What DI wiring and trace mapping read of a class. */
function jvmTypeOf(e: ClassEntry): JvmType {
  const info = e.loaded.info;
  return {
    internal: info.name,
    qname: e.qname,
    status: e.status,
    anchor: e.sid && e.status !== 'library' ? { sid: e.sid } : e.status === 'library' ? { external: info.name } : undefined,
    artifact: e.loaded.artifact,
    access: info.access,
    superName: info.superName,
    interfaces: info.interfaces,
    annotations: info.annotations,
    methods: info.methods.map((m) => ({
      name: m.name,
      descriptor: m.descriptor,
      access: m.access,
      anchor: e.methods.get(m.name + m.descriptor),
      annotations: m.annotations,
      parameterAnnotations: m.parameterAnnotations,
      ...(m.lines ? { lines: m.lines } : {}),
      ...(m.parameterNames ? { parameterNames: m.parameterNames } : {}),
      ...(m.name === '<init>' ? { assigns: constructorAssignments(info, m) } : {}),
    })),
    fields: info.fields.map((f) => ({ name: f.name, descriptor: f.descriptor, ...(f.signature ? { signature: f.signature } : {}), annotations: f.annotations })),
    ...(info.signature ? { signature: info.signature } : {}),
    ...(e.sourcePath ? { sourcePath: e.sourcePath } : {}),
  };
}

/**
 * Which fields a constructor fills from which parameters, read from its
 * putfield instructions: a field of exactly one parameter's type is that
 * parameter's (the usual `this.rail = rail`). Gives injection points names
 * when the class was compiled without -parameters.
 */
function constructorAssignments(info: ClassInfo, m: MethodInfo): Map<number, string> {
  const out = new Map<number, string>();
  const params = paramDescriptors(m.descriptor);
  const own = m.fieldAccesses.filter((f) => f.op === 'putfield' && f.ref.owner === info.name);
  params.forEach((p, i) => {
    const same = params.filter((q) => q === p).length;
    const fields = own.filter((f) => f.ref.descriptor === p);
    if (same === 1 && fields.length === 1) out.set(i, fields[0]!.ref.name);
  });
  return out;
}

function paramDescriptors(desc: string): string[] {
  const out: string[] = [];
  let i = 1;
  while (i < desc.length && desc[i] !== ')') {
    const start = i;
    while (desc[i] === '[') i++;
    if (desc[i] === 'L') i = desc.indexOf(';', i) + 1;
    else i++;
    out.push(desc.slice(start, i));
  }
  return out;
}
