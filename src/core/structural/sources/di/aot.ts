import type { Bean } from './model.js';

/**
 * Spring AOT output (`target/spring-aot/main/sources/**\/*__BeanDefinitions.java`,
 * Gradle's `build/generated/aotSources`): the build writes one
 * `get<Name>BeanDefinition()` per bean, with its class, its instance supplier
 * (the constructor or factory method and its parameter types), `setPrimary`,
 * qualifiers and autowired fields. The files are generated in one fixed
 * style, so a careful reading of that style is exact; a file in another shape
 * is reported, not guessed at.
 */

export interface AotFile {
  readonly path: string;
  readonly text: string;
}

export interface AotParse {
  readonly beans: Bean[];
  readonly warnings: string[];
  /** Bean names registered by `__BeanFactoryRegistrations` (name → the definition method), when that file is present. */
  readonly registrations: Map<string, string>;
}

const JAVA_LANG = new Set(['String', 'Object', 'Integer', 'Long', 'Boolean', 'Double', 'Runnable', 'Thread', 'Class', 'Iterable', 'Comparable']);

/** Resolves a simple class name as the file's imports and package do. */
function typeResolver(text: string): (name: string) => string {
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1] ?? '';
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^\s*import\s+([\w.]+)\.(\w+)\s*;/gm)) imports.set(m[2]!, `${m[1]}.${m[2]}`);
  return (name) => {
    const clean = name.replace(/<.*$/, '').trim();
    if (clean.includes('.')) {
      // Outer.Inner written through an import of Outer.
      const [head, ...rest] = clean.split('.');
      const imported = imports.get(head!);
      if (imported) return [imported, ...rest].join('.');
      return clean;
    }
    if (imports.has(clean)) return imports.get(clean)!;
    if (JAVA_LANG.has(clean)) return `java.lang.${clean}`;
    return pkg ? `${pkg}.${clean}` : clean;
  };
}

/** The body of a method starting at `from` (the index of its `{`), by brace depth outside strings. */
function block(text: string, from: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(from, i + 1);
  }
  return text.slice(from);
}

function classList(args: string, resolve: (n: string) => string): string[] {
  return [...args.matchAll(/([\w.]+)\.class/g)].map((m) => resolve(m[1]!));
}

function lowerFirst(s: string): string {
  return s ? s[0]!.toLowerCase() + s.slice(1) : s;
}

export function parseAotFiles(files: readonly AotFile[]): AotParse {
  const beans: Bean[] = [];
  const warnings: string[] = [];
  const registrations = new Map<string, string>();
  for (const f of files) {
    for (const m of f.text.matchAll(/registerBeanDefinition\(\s*"([^"]+)"\s*,\s*([\w.]+)\.(get\w+BeanDefinition)\(\)/g)) registrations.set(m[1]!, `${m[2]}.${m[3]}`);
  }
  // Field injection is written to `<Class>__Autowiring.java` beside the bean definitions.
  const autowiring = new Map<string, string[]>();
  for (const f of files) {
    const stem = /(\w+)__Autowiring\.java$/.exec(f.path)?.[1];
    if (!stem) continue;
    const fields = [...f.text.matchAll(/AutowiredFieldValueResolver\s*\.\s*for(?:Required)?Field\(\s*"(\w+)"/g)].map((m) => m[1]!);
    autowiring.set(typeResolver(f.text)(stem), fields);
  }
  for (const f of files) {
    if (!/__BeanDefinitions\.java$/.test(f.path)) continue;
    const resolve = typeResolver(f.text);
    const defs = [...f.text.matchAll(/(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?public\s+static\s+BeanDefinition\s+get(\w+)BeanDefinition\s*\(\s*\)\s*\{/g)];
    if (!defs.length) {
      warnings.push(`${f.path}: no get…BeanDefinition() methods: not Spring AOT bean definitions as this version of Tenure reads them; skipped`);
      continue;
    }
    for (const d of defs) {
      const doc = d[1] ?? '';
      const methodStem = d[2]!;
      const name = /bean definition for '([^']+)'/i.exec(doc)?.[1] ?? lowerFirst(methodStem);
      const body = block(f.text, d.index! + d[0].length - 1);
      const typeName = /Class<\?>\s+beanType\s*=\s*([\w.]+)\.class/.exec(body)?.[1] ?? /new\s+RootBeanDefinition\(\s*([\w.]+)\.class/.exec(body)?.[1];
      if (!typeName) {
        warnings.push(`${f.path}: bean '${name}' has no class literal (a generic target type?); kept without a class`);
      }
      const supplierName = /setInstanceSupplier\(\s*(get\w+InstanceSupplier)\(\)/.exec(body)?.[1];
      let parameterTypes: string[] = [];
      let factory: Bean['factory'];
      if (supplierName) {
        const at = f.text.search(new RegExp(`\\b${supplierName}\\s*\\(\\s*\\)\\s*\\{`));
        if (at >= 0) {
          const sbody = block(f.text, f.text.indexOf('{', at));
          const ctor = /forConstructor\(([^)]*)\)/.exec(sbody);
          const fm = /forFactoryMethod\(\s*([\w.]+)\.class\s*,\s*"(\w+)"\s*(?:,([^)]*))?\)/.exec(sbody);
          if (ctor) parameterTypes = classList(ctor[1]!, resolve);
          else if (fm) {
            factory = { type: resolve(fm[1]!), method: fm[2]! };
            parameterTypes = classList(fm[3] ?? '', resolve);
          }
        } else warnings.push(`${f.path}: bean '${name}' names ${supplierName}(), which is not in the file`);
      } else {
        const mref = /setInstanceSupplier\(\s*([\w.]+)::new\s*\)/.exec(body);
        if (!mref && !/setInstanceSupplier/.test(body)) warnings.push(`${f.path}: bean '${name}' has no instance supplier the reader knows`);
      }
      const qualifiers = [...body.matchAll(/addQualifier\(\s*new\s+AutowireCandidateQualifier\(\s*(?:[\w.]+\.class|"[^"]*")\s*,\s*"([^"]*)"/g)].map((m) => m[1]!);
      beans.push({
        name,
        aliases: [],
        type: typeName ? resolve(typeName) : null,
        context: 'aot',
        parameterTypes,
        autowiredFields: typeName ? (autowiring.get(resolve(typeName)) ?? []) : [],
        ...(factory ? { factory } : {}),
        primary: /setPrimary\(\s*true\s*\)/.test(body),
        ...(qualifiers.length ? { qualifiers } : {}),
        resource: f.path,
      });
    }
  }
  // Names the registrations file gives win over names read from javadoc.
  if (registrations.size) {
    const byMethod = new Map([...registrations].map(([n, m]) => [m.split('.').pop()!, n]));
    for (let i = 0; i < beans.length; i++) {
      const b = beans[i]!;
      const registered = byMethod.get(`get${b.name[0]!.toUpperCase()}${b.name.slice(1)}BeanDefinition`);
      if (registered && registered !== b.name) beans[i] = { ...b, name: registered };
    }
  }
  return { beans, warnings, registrations };
}
