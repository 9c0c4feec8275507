import { formatDescriptor, type Descriptor } from '../../../model/symbolId.js';
import type { EdgeKind, SymbolKind } from '../../../model/structural.js';
import { ACC, REF_KIND_NAMES, hasFlag, type Annotation, type ClassInfo, type MethodInfo } from './classFile.js';
import { javaName, packageOf } from './descriptor.js';
import type { SourceIndex, SourceSymbol } from './sourceIndex.js';

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

export type Anchor = { readonly sid: string } | { readonly external: string };

export interface LoadedClass {
  readonly info: ClassInfo;
  /** Workspace-relative path of the class file, or `lib/x.jar!/com/acme/X.class`. */
  readonly artifact: string;
  readonly fromJar: boolean;
}

export interface GeneratedSymbol {
  readonly sid: string;
  readonly name: string;
  readonly qname: string;
  readonly kind: SymbolKind;
  readonly parentSid: string | null;
  /** The source symbol it is derived from, where that can be told (the field of an accessor, the interface method a mapper implements). */
  readonly derivedFrom: string | null;
  /** What wrote it: `compiler: record accessor`, `mapstruct`, `spring-aot`, `lombok`, `compiler: bridge`, … */
  readonly generator: string;
  readonly artifact: string;
  /** Line in its own (generated) source, from the line table; 0 when unknown. */
  readonly line: number;
}

export interface CallFact {
  readonly kind: EdgeKind;
  /** The name as source writes it at the site: the method name, or the class's simple name for an instantiation. */
  readonly name: string;
  /** Where the call is: a workspace source file (inSource) or the class file of generated code. */
  readonly site: { readonly path: string; readonly line: number };
  readonly inSource: boolean;
  readonly from: string;
  readonly targets: readonly Anchor[];
  readonly op: string;
  readonly reason: string;
  /** The fact confirms and adds only; it says nothing against the inventory's other candidates at the site. */
  readonly partial?: boolean;
}

export interface ImplFact {
  readonly base: string;
  readonly impl: string;
  readonly reason: string;
}

export interface JvmMethod {
  readonly name: string;
  readonly descriptor: string;
  readonly access: number;
  readonly anchor: Anchor | undefined;
  readonly annotations: readonly Annotation[];
  readonly parameterAnnotations: readonly (readonly Annotation[])[];
  readonly lines?: { readonly first: number; readonly last: number };
  readonly parameterNames?: readonly (string | undefined)[];
  /** Fields this method assigns from its parameters (`this.rail = rail`): parameter index → field name. */
  readonly assigns?: ReadonlyMap<number, string>;
}

/** What DI wiring and trace mapping need to know of a type: hierarchy, annotations, members and where it lives. */
export interface JvmType {
  readonly internal: string;
  readonly qname: string;
  readonly status: ClassStatus;
  readonly anchor: Anchor | undefined;
  readonly artifact: string;
  readonly access: number;
  readonly superName: string | undefined;
  readonly interfaces: readonly string[];
  readonly annotations: readonly Annotation[];
  readonly methods: readonly JvmMethod[];
  readonly fields: readonly { readonly name: string; readonly descriptor: string; readonly signature?: string; readonly annotations: readonly Annotation[] }[];
  readonly signature?: string;
  readonly sourcePath?: string;
}

export type ClassStatus = 'source' | 'anonymous' | 'generated' | 'library';

export interface BytecodeAnalysis {
  readonly generated: readonly GeneratedSymbol[];
  readonly calls: readonly CallFact[];
  readonly implementations: readonly ImplFact[];
  readonly types: ReadonlyMap<string, JvmType>;
  readonly counts: Record<ClassStatus, number> & { readonly invokes: number };
  readonly notes: readonly string[];
}

export interface AnalyzeOptions {
  /** Text of a generated source file (`target/generated-sources/…/X.java`) if the build left one: tells which processor wrote a class. */
  readonly generatedSource?: (internalName: string, sourceFile: string | undefined) => string | undefined;
}

const SPRING_AOT = /__(BeanDefinitions|BeanFactoryRegistrations|Autowiring|TestContext\d*_\w+)$/;
const PROXY = /\$\$(SpringCGLIB|EnhancerBySpringCGLIB|FastClassBySpringCGLIB|EnhancerByCGLIB)\$\$|\$HibernateProxy\$|\$ByteBuddy\$/;
const IGNORED_BOOTSTRAPS = new Set([
  'java/lang/invoke/StringConcatFactory',
  'java/lang/runtime/ObjectMethods',
  'java/lang/runtime/SwitchBootstraps',
]);

function lastSegment(internal: string): string {
  const simple = internal.slice(internal.lastIndexOf('/') + 1);
  return simple.slice(simple.lastIndexOf('$') + 1);
}

function sidWith(parentSid: string, d: Descriptor): string {
  return parentSid + formatDescriptor(d);
}

interface Entry {
  readonly loaded: LoadedClass;
  readonly internal: string;
  status: ClassStatus;
  sourcePath?: string;
  sourceType?: SourceSymbol;
  sid?: string;
  qname: string;
  generator?: string;
  derivedFrom?: string | null;
  /** Method (name+descriptor) → anchor, for source and generated classes. */
  readonly methods: Map<string, Anchor>;
  /** Generated method names already used, for disambiguators. */
  readonly usedNames: Map<string, number>;
}

export function analyzeBytecode(classes: readonly LoadedClass[], index: SourceIndex, options: AnalyzeOptions = {}): BytecodeAnalysis {
  const entries = new Map<string, Entry>();
  // Workspace class files win over jar copies of the same class.
  for (const c of [...classes].sort((a, b) => Number(a.fromJar) - Number(b.fromJar))) {
    if (entries.has(c.info.name)) continue;
    entries.set(c.info.name, { loaded: c, internal: c.info.name, status: 'library', qname: javaName(c.info.name), methods: new Map(), usedNames: new Map() });
  }
  const generated: GeneratedSymbol[] = [];
  const generatedIndex = new Map<string, number>();
  const addGenerated = (g: GeneratedSymbol) => {
    generatedIndex.set(g.sid, generated.length);
    generated.push(g);
  };
  const calls: CallFact[] = [];
  const implementations: ImplFact[] = [];
  const notes: string[] = [];
  const counts = { source: 0, anonymous: 0, generated: 0, library: 0, invokes: 0 };

  // ---- 1. classify ------------------------------------------------------
  for (const e of entries.values()) {
    const info = e.loaded.info;
    const pkg = packageOf(info.name);
    if (info.sourceFile) e.sourcePath = index.javaFile(pkg, info.sourceFile)[0];
    const self = info.innerClasses.find((ic) => ic.inner === info.name);
    const anonymousOrLocal = !!info.enclosingMethod || (self !== undefined && (self.name === undefined || self.outer === undefined));
    if (!anonymousOrLocal) {
      // Nested classes read with dots in source: `Outer$Inner` → `Outer.Inner`.
      const qn = self?.name && self.outer ? `${javaName(self.outer)}.${self.name}` : javaName(info.name);
      e.qname = qn;
      const t = index.type(qn);
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

  // Generated classes get ids like the inventory's: package namespaces, then the type (nested in its outer class).
  const generatedClassSid = (e: Entry): string | undefined => {
    if (e.sid) return e.sid;
    const info = e.loaded.info;
    const self = info.innerClasses.find((ic) => ic.inner === info.name);
    let parentSid: string;
    let parentQ: string;
    if (self?.outer && self.name) {
      const outer = entries.get(self.outer);
      const outerSid = outer ? (outer.sourceType?.sid ?? (outer.status === 'generated' ? generatedClassSid(outer) : undefined)) : undefined;
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
  };

  const sourceInterfaces = (e: Entry): Entry[] =>
    [...e.loaded.info.interfaces, ...(e.loaded.info.superName ? [e.loaded.info.superName] : [])]
      .map((n) => entries.get(n))
      .filter((x): x is Entry => !!x && x.status === 'source');

  for (const e of entries.values()) {
    if (e.status === 'source') {
      e.sid = e.sourceType!.sid;
      counts.source++;
      continue;
    }
    if (e.status === 'anonymous') {
      counts.anonymous++;
      continue;
    }
    if (e.status === 'library') {
      counts.library++;
      continue;
    }
    counts.generated++;
    const info = e.loaded.info;
    const sid = generatedClassSid(e);
    if (!sid) {
      e.status = 'anonymous';
      continue;
    }
    const supers = sourceInterfaces(e);
    const mapper = supers.find((s) => s.loaded.info.annotations.some((a) => a.type === 'Lorg/mapstruct/Mapper;'));
    const genSource = options.generatedSource?.(info.name, info.sourceFile);
    const processor = genSource ? /@(?:javax\.annotation\.processing\.|javax\.annotation\.)?Generated\s*\(\s*(?:value\s*=\s*)?(?:\{\s*)?"([^"]+)"/.exec(genSource)?.[1] : undefined;
    const outer = info.innerClasses.find((ic) => ic.inner === info.name)?.outer;
    if (SPRING_AOT.test(info.name)) e.generator = 'spring-aot';
    else if (PROXY.test(info.name)) e.generator = 'proxy';
    else if (mapper) e.generator = 'mapstruct';
    else if (processor) e.generator = `annotation processor ${processor}`;
    else if (info.annotations.some((a) => a.type === 'Llombok/Generated;')) e.generator = 'lombok';
    else if (outer && entries.get(outer)?.status === 'source') e.generator = 'annotation processor or compiler (nested in a source class, absent from its source)';
    else e.generator = 'bytecode only (no source in the workspace)';
    const outerEntry = outer ? entries.get(outer) : undefined;
    e.derivedFrom = mapper?.sid ?? supers[0]?.sid ?? (outerEntry?.status === 'source' ? outerEntry.sid! : null);
    addGenerated({
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

  // ---- 2. methods → anchors ---------------------------------------------
  const addGeneratedMethod = (e: Entry, m: MethodInfo, generator: string, derivedFrom: string | null): Anchor => {
    const sourceSame = e.sourceType ? index.members(e.sourceType.sid).filter((s) => s.name === m.name && (s.kind === 'method' || s.kind === 'function')).length : 0;
    const used = e.usedNames.get(m.name) ?? 0;
    e.usedNames.set(m.name, used + 1);
    const k = sourceSame + used;
    const sid = sidWith(e.sid!, k ? { name: m.name, suffix: 'method', disambiguator: `+${k}` } : { name: m.name, suffix: 'method' });
    addGenerated({
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
  };

  for (const e of entries.values()) {
    const info = e.loaded.info;
    if (e.status === 'library') {
      for (const m of info.methods) e.methods.set(m.name + m.descriptor, { external: `${info.name}.${m.name}${m.descriptor}` });
      continue;
    }
    if (e.status === 'anonymous') continue;
    const isRecord = info.superName === 'java/lang/Record';
    const isEnum = hasFlag(info.access, ACC.ENUM);
    const members = e.sourceType ? index.members(e.sourceType.sid) : [];
    const field = (name: string) => members.find((s) => s.kind === 'field' && s.name === name);
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
        let ctor: SourceSymbol | undefined;
        if (ctorMembers.length === 1 && inits.length === 1) ctor = ctorMembers[0];
        else if (m.lines) ctor = ctorMembers.find((c) => c.line <= m.lines!.last && c.endLine >= m.lines!.last) ?? ctorMembers.find((c) => c.line <= m.lines!.first && c.endLine >= m.lines!.first);
        if (!ctor && ctorMembers.length === inits.length) ctor = ctorMembers[inits.indexOf(m)];
        // No declared constructor (the compiler's default or a record's canonical one): `new X()` is an instantiation of the type.
        e.methods.set(key, { sid: ctor?.sid ?? e.sid! });
        continue;
      }
      if (e.status === 'generated') {
        const impl = sourceInterfaces(e).flatMap((s) => [...s.methods.entries()].filter(([k2]) => k2 === key).map(([, a]) => a));
        const derived = impl.find((a): a is { sid: string } => 'sid' in a)?.sid ?? e.derivedFrom ?? null;
        e.methods.set(key, addGeneratedMethod(e, m, hasFlag(m.access, ACC.BRIDGE) ? 'compiler: bridge' : e.generator!, derived));
        continue;
      }
      // A source class: find the source method.
      const same = members.filter((s) => s.name === m.name && (s.kind === 'method' || s.kind === 'function'));
      let picked: SourceSymbol | undefined;
      if (!hasFlag(m.access, ACC.BRIDGE)) {
        if (m.lines) picked = same.find((s) => s.line <= m.lines!.first && s.endLine >= m.lines!.first) ?? same.find((s) => s.line <= m.lines!.last && s.endLine >= m.lines!.last);
        if (!picked && !m.hasCode) {
          const order = declared.get(m.name) ?? [];
          if (order.length === same.length) picked = same[order.indexOf(m)];
          else if (same.length === 1 && order.length === 1) picked = same[0];
        }
      }
      if (picked) {
        e.methods.set(key, { sid: picked.sid });
        continue;
      }
      // Exists only in bytecode.
      let generator: string;
      let derived: string | null = e.sid!;
      const accessor = /^(get|is|set|with)([A-Z].*)$/.exec(m.name);
      const accessorField = accessor ? field(accessor[2]![0]!.toLowerCase() + accessor[2]!.slice(1)) : undefined;
      if (hasFlag(m.access, ACC.BRIDGE)) generator = 'compiler: bridge';
      else if (isRecord && info.recordComponents?.some((c) => c.name === m.name) && m.descriptor.startsWith('()')) {
        generator = 'compiler: record accessor';
        derived = field(m.name)?.sid ?? e.sid!;
      } else if (isRecord && ['toString', 'hashCode', 'equals'].includes(m.name)) generator = 'compiler: record method';
      else if (isEnum && (m.name === 'values' || m.name === 'valueOf')) generator = 'compiler: enum method';
      else if (m.annotations.some((a) => a.type === 'Llombok/Generated;')) {
        generator = 'lombok';
        derived = accessorField?.sid ?? e.sid!;
      } else if (accessorField) {
        generator = `accessor absent from the source (Lombok or another processor) for field ${accessorField.name}`;
        derived = accessorField.sid;
      } else generator = 'bytecode only (absent from the source)';
      e.methods.set(key, addGeneratedMethod(e, m, generator, derived));
    }
  }

  // ---- 3. method resolution (JVMS §5.4.3.3/4, over the classes we have) ---
  const resolveMethod = (owner: string, name: string, desc: string): Anchor[] => {
    const seen = new Set<string>();
    const visit = (internal: string | undefined): Anchor | undefined | null => {
      if (!internal || seen.has(internal)) return undefined;
      seen.add(internal);
      const e = entries.get(internal);
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
    if (!entries.has(owner)) {
      const t = index.type(javaName(owner));
      if (t) {
        const cands = index.members(t.sid).filter((s) => s.name === name && (s.kind === 'method' || s.kind === 'function'));
        if (cands.length) return cands.map((c) => ({ sid: c.sid }));
      }
    }
    return [{ external: `${owner}.${name}${desc}` }];
  };

  const typeAnchor = (internal: string): Anchor => {
    const e = entries.get(internal);
    if (e?.sid && (e.status === 'source' || e.status === 'generated')) return { sid: e.sid };
    const t = entries.has(internal) ? undefined : index.type(javaName(internal));
    return t ? { sid: t.sid } : { external: internal };
  };

  // ---- 4. call sites ----------------------------------------------------
  for (const e of entries.values()) {
    if (e.status === 'library') continue;
    const info = e.loaded.info;
    for (const m of info.methods) {
      if (!m.invokes.length) continue;
      const key = m.name + m.descriptor;
      const own = e.methods.get(key);
      // Code of a generated method (or of a generated class) is attributed to the generated symbol; everything
      // else (source methods, lambda bodies, initialisers, anonymous classes) to the source definition around its line.
      let generatedFrom: string | undefined;
      if (own && 'sid' in own && generatedIndex.has(own.sid) && !m.name.startsWith('<')) generatedFrom = own.sid;
      if (e.status === 'generated' && !generatedFrom) {
        const lambdaOf = /^lambda\$(.+)\$\d+$/.exec(m.name)?.[1];
        const target = lambdaOf ? [...e.methods.entries()].find(([k]) => k.startsWith(lambdaOf + '('))?.[1] : undefined;
        generatedFrom = target && 'sid' in target ? target.sid : e.sid;
      }
      const pendingNew: string[] = [];
      let ni = 0;
      for (const inv of m.invokes) {
        while (ni < m.news.length && m.news[ni]!.pc < inv.pc) pendingNew.push(m.news[ni++]!.type);
        counts.invokes++;
        let from: string | undefined;
        let site: { path: string; line: number };
        let inSource = false;
        if (generatedFrom) {
          from = generatedFrom;
          site = { path: e.loaded.artifact, line: inv.line ?? 0 };
        } else if (e.sourcePath && inv.line !== undefined) {
          from = index.enclosing(e.sourcePath, inv.line)?.sid;
          site = { path: e.sourcePath, line: inv.line };
          inSource = true;
        } else {
          const a = own && 'sid' in own ? own.sid : e.sid;
          from = a;
          site = { path: e.loaded.artifact, line: 0 };
        }
        if (!from) continue;
        const where = `${info.name}.${m.name}`;
        let kind: EdgeKind = 'call';
        let name = inv.ref.name;
        let targets: Anchor[];
        let reason: string;
        if (inv.op === 'invokedynamic') {
          const bsm = inv.bootstrap?.method;
          const impl = inv.bootstrap?.implementation;
          if (!bsm || IGNORED_BOOTSTRAPS.has(bsm.owner)) continue;
          if (!impl) {
            notes.push(`${where}: invokedynamic with bootstrap ${bsm.owner}.${bsm.name} not followed (not a lambda or method reference)`);
            continue;
          }
          if (impl.owner === info.name && impl.name.startsWith('lambda$')) continue; // a lambda body: its calls are attributed by line
          const refKind = REF_KIND_NAMES[impl.kind] ?? `kind ${impl.kind}`;
          if (impl.name === '<init>') {
            kind = 'instantiate';
            name = lastSegment(impl.owner);
            targets = [typeAnchor(impl.owner)];
          } else {
            name = impl.name;
            targets = resolveMethod(impl.owner, impl.name, impl.descriptor);
          }
          reason = `method reference \`${impl.name === '<init>' ? name + '::new' : '::' + impl.name}\` (invokedynamic → LambdaMetafactory, ${refKind} ${javaName(impl.owner)}.${impl.name}${impl.descriptor})`;
        } else if (inv.ref.name === '<init>') {
          const at = pendingNew.lastIndexOf(inv.ref.owner);
          if (at >= 0) {
            pendingNew.splice(at, 1);
            kind = 'instantiate';
            name = lastSegment(inv.ref.owner);
            targets = [typeAnchor(inv.ref.owner)];
            reason = `new ${javaName(inv.ref.owner)}${inv.ref.descriptor} (bytecode)`;
          } else {
            // super(…) or this(…): a call to a constructor, if the source declares one.
            const a = entries.get(inv.ref.owner)?.methods.get('<init>' + inv.ref.descriptor);
            if (!a || !('sid' in a) || a.sid === entries.get(inv.ref.owner)?.sid) continue;
            name = lastSegment(inv.ref.owner);
            targets = [a];
            reason = `${inv.ref.owner === info.name ? 'this' : 'super'}(…) → ${javaName(inv.ref.owner)}${inv.ref.descriptor} (invokespecial)`;
          }
        } else {
          targets = resolveMethod(inv.ref.owner, inv.ref.name, inv.ref.descriptor);
          reason = `${inv.op} ${javaName(inv.ref.owner)}.${inv.ref.name}${inv.ref.descriptor} (bytecode)`;
        }
        // Calls that stay outside the workspace matter only at source sites, where they refute name guesses.
        if (!inSource && targets.every((t) => 'external' in t)) continue;
        calls.push({ kind, name, site, inSource, from, targets, op: inv.op, reason });
      }
    }
  }

  // ---- 5. implementations and overrides ---------------------------------
  for (const e of entries.values()) {
    if ((e.status !== 'source' && e.status !== 'generated') || !e.sid) continue;
    const info = e.loaded.info;
    const supers: Entry[] = [];
    const seen = new Set<string>();
    const walk = (n: string | undefined) => {
      if (!n || seen.has(n)) return;
      seen.add(n);
      const s = entries.get(n);
      if (!s) return;
      if ((s.status === 'source' || s.status === 'generated') && s !== e) supers.push(s);
      walk(s.loaded.info.superName);
      s.loaded.info.interfaces.forEach(walk);
    };
    walk(info.name);
    const mineByKey = new Map(info.methods.map((m) => [m.name + m.descriptor, m]));
    for (const s of supers) {
      implementations.push({ base: s.sid!, impl: e.sid, reason: `${javaName(info.name)} ${hasFlag(s.loaded.info.access, ACC.INTERFACE) ? 'implements' : 'extends'} ${javaName(s.internal)} (class file)` });
      for (const bm of s.loaded.info.methods) {
        if (bm.name.startsWith('<') || hasFlag(bm.access, ACC.STATIC) || hasFlag(bm.access, ACC.PRIVATE) || hasFlag(bm.access, ACC.SYNTHETIC)) continue;
        const base = s.methods.get(bm.name + bm.descriptor);
        const mine = mineByKey.get(bm.name + bm.descriptor);
        if (!base || !('sid' in base) || !mine || hasFlag(mine.access, ACC.STATIC)) continue;
        const impl = e.methods.get(mine.name + mine.descriptor);
        // A bridge stands in for the generic method it forwards to: that one is the implementation people wrote.
        if (hasFlag(mine.access, ACC.BRIDGE)) {
          const fwd = mine.invokes.find((i) => i.ref.owner === info.name && i.ref.name === mine.name);
          const real = fwd ? e.methods.get(fwd.ref.name + fwd.ref.descriptor) : undefined;
          if (real && 'sid' in real) {
            implementations.push({ base: base.sid, impl: real.sid, reason: `${javaName(info.name)}.${mine.name} overrides ${javaName(s.internal)}.${bm.name} through a compiler bridge (class file)` });
          }
        }
        if (!impl || !('sid' in impl)) continue;
        implementations.push({ base: base.sid, impl: impl.sid, reason: `${javaName(info.name)}.${mine.name}${mine.descriptor} overrides ${javaName(s.internal)}.${bm.name} (class file)` });
      }
    }
    // Bridges derive from the method they forward to.
    for (const m of info.methods) {
      if (!hasFlag(m.access, ACC.BRIDGE)) continue;
      const a = e.methods.get(m.name + m.descriptor);
      const fwd = m.invokes.find((i) => i.ref.owner === info.name && i.ref.name === m.name);
      const real = fwd ? e.methods.get(fwd.ref.name + fwd.ref.descriptor) : undefined;
      if (a && 'sid' in a && real && 'sid' in real) {
        const g = generatedIndex.get(a.sid);
        if (g !== undefined) generated[g] = { ...generated[g]!, derivedFrom: real.sid };
      }
    }
  }

  // ---- 5b. Spring Data derived queries: the method name names entity properties ----
  for (const e of entries.values()) {
    if (e.status !== 'source' || !hasFlag(e.loaded.info.access, ACC.INTERFACE) || !e.sourcePath) continue;
    const domain = springDataDomain(e.loaded.info.signature, (n) => entries.get(n)?.loaded.info);
    if (!domain) continue;
    const domainEntry = entries.get(domain);
    const domainType = domainEntry?.sourceType ?? index.type(javaName(domain));
    if (!domainType) continue;
    const fieldsOf = (typeSid: string) => index.members(typeSid).filter((m) => m.kind === 'field');
    const fieldType = (internal: string | undefined, name: string): string | undefined => {
      const f = internal ? entries.get(internal)?.loaded.info.fields.find((x) => x.name === name) : undefined;
      return f && f.descriptor.startsWith('L') ? f.descriptor.slice(1, -1) : undefined;
    };
    for (const m of e.loaded.info.methods) {
      if (!hasFlag(m.access, ACC.ABSTRACT)) continue;
      const paths = derivedQueryProperties(m.name);
      if (!paths) continue;
      const anchor = e.methods.get(m.name + m.descriptor);
      const declared = anchor && 'sid' in anchor ? index.bySid.get(anchor.sid) : undefined;
      if (!declared) continue;
      const targets: Anchor[] = [];
      const found: string[] = [];
      const missing: string[] = [];
      for (const prop of paths) {
        // `CustomerName`: the field customerName, else the field customer and its name; longest prefix first.
        let typeSid: string | undefined = domainType.sid;
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
      if (!targets.length) continue;
      calls.push({
        kind: 'reference', name: m.name, site: { path: declared.path, line: declared.line }, inSource: true, from: declared.sid, targets, op: 'spring-data', partial: true,
        reason: `Spring Data derives this query from the method name: ${found.map((f) => `\`${f}\``).join(', ')} of ${javaName(domain)}${missing.length ? `; not found: ${missing.join(', ')}` : ''}`,
      });
    }
  }

  // ---- 6. the type model DI wiring and traces read ------------------------
  const types = new Map<string, JvmType>();
  for (const e of entries.values()) {
    const info = e.loaded.info;
    types.set(info.name, {
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
    });
  }
  return { generated, calls, implementations, types, counts, notes };
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
