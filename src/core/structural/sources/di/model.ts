/**
 * Beans as the Spring container reports them, whatever the artifact: the
 * actuator's `/actuator/beans` (a running application) or Spring AOT's
 * generated bean definitions (the build).
 */

export interface Bean {
  readonly name: string;
  readonly aliases: readonly string[];
  /** Concrete class, qualified with dots (`com.acme.clearing.InstantRail`); proxy suffixes removed. */
  readonly type: string | null;
  /** The type as the artifact wrote it, when it differs (a CGLIB or JDK proxy). */
  readonly rawType?: string;
  readonly scope?: string;
  readonly context?: string;
  /** Bean names this bean was given at creation (actuator `dependencies`). */
  readonly dependencies?: readonly string[];
  /** Constructor or factory-method parameter types (AOT), qualified with dots. */
  readonly parameterTypes?: readonly string[];
  /** Fields the container sets (AOT `AutowiredFieldValueResolver`). */
  readonly autowiredFields?: readonly string[];
  /** Created by a `@Bean` factory method: the configuration class and method. */
  readonly factory?: { readonly type: string; readonly method: string };
  readonly primary?: boolean;
  readonly qualifiers?: readonly string[];
  /** Where the artifact says it came from (actuator `resource`, AOT file). */
  readonly resource?: string;
}

export interface BeanExport {
  readonly format: 'actuator-beans' | 'spring-aot';
  readonly beans: readonly Bean[];
  /** Profiles the export holds for, when known. */
  readonly profiles: readonly string[];
  /** Entries that could not be read, with why; the rest of the export is still used. */
  readonly warnings: readonly string[];
}

/** `com.acme.Foo$$SpringCGLIB$$0` → `com.acme.Foo`; JDK proxies have no concrete class to report. */
export function concreteType(raw: string): { type: string | null; proxy?: string } {
  const cglib = /^(.*?)\$\$(SpringCGLIB|EnhancerBySpringCGLIB|FastClassBySpringCGLIB|EnhancerByCGLIB)\$\$.*$/.exec(raw);
  if (cglib) return { type: cglib[1]!.replace(/\$/g, '.'), proxy: 'CGLIB' };
  if (/(^|\.)\$Proxy\d+$/.test(raw)) return { type: null, proxy: 'JDK dynamic proxy' };
  return { type: raw.replace(/\$/g, '.') };
}
