import { ACC, hasFlag } from '../bytecode/classFile.js';
import { javaName, parseFieldDescriptor, parseMethodDescriptor } from '../bytecode/descriptor.js';
import type { JvmType } from '../bytecode/analysis.js';
import type { SourceIndex, SourceSymbol } from '../bytecode/sourceIndex.js';
import type { SourceText } from '../bytecode/sourceText.js';

/**
 * What wiring needs to know of Java types: their supertypes and the places
 * where the container puts a bean (fields, constructor parameters). Class
 * files answer exactly; without them the source answers as far as it can
 * (declared types of fields and constructor parameters, resolved through the
 * file's imports and package).
 */

export interface InjectionPoint {
  /** Field or parameter name, when known. */
  readonly name: string | null;
  /** Declared type, qualified with dots. */
  readonly type: string;
  readonly via: 'field' | 'constructor';
  /** `@Qualifier("…")` on the field or parameter. */
  readonly qualifier?: string;
}

const QUALIFIER = new Set(['Lorg/springframework/beans/factory/annotation/Qualifier;', 'Ljakarta/inject/Named;', 'Ljavax/inject/Named;']);

function qualifierOf(annotations: readonly { type: string; values: ReadonlyMap<string, { kind: string; value?: unknown }> }[] | undefined): string | undefined {
  const a = annotations?.find((x) => QUALIFIER.has(x.type));
  const v = a?.values.get('value');
  return v?.kind === 'const' ? String(v.value) : undefined;
}

export interface DiTypeModel {
  readonly description: string;
  has(qname: string): boolean;
  /** The type itself and every supertype, qualified with dots. */
  supertypes(qname: string): string[];
  injectionPoints(qname: string): InjectionPoint[];
  isInterface(qname: string): boolean;
}

const IGNORED = /^(java|javax|jakarta|kotlin|scala)\./;

/** A type and all its supertypes, depth first, each once. */
function withSupertypes(qname: string, direct: (qname: string) => readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (q: string) => {
    if (seen.has(q)) return;
    seen.add(q);
    out.push(q);
    for (const s of direct(q)) walk(s);
  };
  walk(qname);
  return out;
}

export class BytecodeTypeModel implements DiTypeModel {
  readonly description = 'class files';
  private readonly byQname = new Map<string, JvmType>();

  constructor(types: ReadonlyMap<string, JvmType>) {
    for (const t of types.values()) this.byQname.set(javaName(t.internal), t);
  }

  has(qname: string): boolean {
    return this.byQname.has(qname);
  }

  supertypes(qname: string): string[] {
    return withSupertypes(qname, (q) => {
      const t = this.byQname.get(q);
      return t ? [...(t.superName ? [javaName(t.superName)] : []), ...t.interfaces.map(javaName)] : [];
    });
  }

  isInterface(qname: string): boolean {
    const t = this.byQname.get(qname);
    return !!t && hasFlag(t.access, ACC.INTERFACE);
  }

  injectionPoints(qname: string): InjectionPoint[] {
    const t = this.byQname.get(qname);
    if (!t) return [];
    const out: InjectionPoint[] = [];
    for (const f of t.fields) {
      if (f.name.startsWith('this$') || /^\$/.test(f.name)) continue;
      const ft = parseFieldDescriptor(f.descriptor);
      if (ft.primitive || ft.dims) continue;
      const type = javaName(ft.base);
      const qualifier = qualifierOf(f.annotations);
      if (!IGNORED.test(type)) out.push({ name: f.name, type, via: 'field', ...(qualifier ? { qualifier } : {}) });
    }
    for (const m of t.methods) {
      if (m.name !== '<init>' || hasFlag(m.access, ACC.SYNTHETIC) || hasFlag(m.access, ACC.PRIVATE)) continue;
      parseMethodDescriptor(m.descriptor).params.forEach((p, i) => {
        if (p.primitive || p.dims) return;
        const type = javaName(p.base);
        if (IGNORED.test(type)) return;
        const qualifier = qualifierOf(m.parameterAnnotations[i]);
        out.push({ name: m.parameterNames?.[i] ?? m.assigns?.get(i) ?? null, type, via: 'constructor', ...(qualifier ? { qualifier } : {}) });
      });
    }
    return out;
  }
}

/**
 * The source's answer: inheritance as the inventory resolved it, declared
 * types read from the declarations' text and resolved like javac would
 * (imports, then the package, then java.lang).
 */
export class SourceTypeModel implements DiTypeModel {
  readonly description = 'source declarations';

  constructor(
    private readonly index: SourceIndex,
    private readonly inheritance: ReadonlyMap<string, readonly string[]>,
    private readonly text: SourceText,
  ) {}

  has(qname: string): boolean {
    return !!this.index.type(qname);
  }

  supertypes(qname: string): string[] {
    return withSupertypes(qname, (q) => this.inheritance.get(q) ?? []);
  }

  isInterface(qname: string): boolean {
    return this.index.type(qname)?.kind === 'interface';
  }

  injectionPoints(qname: string): InjectionPoint[] {
    const t = this.index.type(qname);
    if (!t) return [];
    const resolve = this.resolver(t);
    const out: InjectionPoint[] = [];
    for (const m of this.index.members(t.sid)) {
      if (m.kind === 'field') {
        const line = this.text.lines(m.path)?.[m.line - 1] ?? '';
        if (/\bstatic\b/.test(line)) continue;
        const decl = new RegExp(`([\\w.$]+)(?:<[^;=]*>)?(?:\\[\\])*\\s+${m.name}\\s*[;=,]`).exec(line);
        const type = decl ? resolve(decl[1]!) : undefined;
        const above = `${this.text.lines(m.path)?.[m.line - 2] ?? ''} ${line}`;
        const qualifier = /@(?:Qualifier|Named)\(\s*(?:value\s*=\s*)?"([^"]+)"/.exec(above)?.[1];
        if (type && !IGNORED.test(type)) out.push({ name: m.name, type, via: 'field', ...(qualifier ? { qualifier } : {}) });
      } else if (m.kind === 'constructor') {
        const lines = this.text.lines(m.path) ?? [];
        const head = lines.slice(m.line - 1, Math.min(m.endLine, m.line + 10)).join(' ');
        const params = /\(([^)]*)\)/.exec(head.slice(head.indexOf(m.name)))?.[1] ?? '';
        for (const p of splitParams(params)) {
          const qualifier = /@(?:Qualifier|Named)\(\s*(?:value\s*=\s*)?"([^"]+)"/.exec(p)?.[1];
          const pm = /([\w.$]+)(?:<.*>)?\s+(\w+)$/.exec(p.replace(/@\w+(\([^)]*\))?\s*/g, '').replace(/\bfinal\s+/, '').trim());
          if (!pm) continue;
          const type = resolve(pm[1]!);
          if (type && !IGNORED.test(type)) out.push({ name: pm[2]!, type, via: 'constructor', ...(qualifier ? { qualifier } : {}) });
        }
      }
    }
    return out;
  }

  private resolver(t: SourceSymbol): (simple: string) => string | undefined {
    const lines = this.text.lines(t.path) ?? [];
    const imports = new Map<string, string>();
    const wildcards: string[] = [];
    for (const l of lines) {
      const m = /^\s*import\s+(static\s+)?([\w.]+)\.(\w+|\*)\s*;/.exec(l);
      if (!m || m[1]) continue;
      if (m[3] === '*') wildcards.push(m[2]!);
      else imports.set(m[3]!, `${m[2]}.${m[3]}`);
    }
    const pkg = t.filePackage ?? '';
    return (simple) => {
      if (/^[a-z]/.test(simple) && simple.includes('.')) return simple;
      const [head, ...rest] = simple.split('.');
      const tail = rest.length ? '.' + rest.join('.') : '';
      if (imports.has(head!)) return imports.get(head!)! + tail;
      const local = pkg ? `${pkg}.${head}` : head!;
      if (this.index.type(local)) return local + tail;
      for (const w of wildcards) if (this.index.type(`${w}.${head}`)) return `${w}.${head}${tail}`;
      if (/^[A-Z]/.test(head!)) return `java.lang.${simple}`;
      return undefined;
    };
  }
}

function splitParams(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '<') depth++;
    else if (c === '>') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur);
  return out;
}
