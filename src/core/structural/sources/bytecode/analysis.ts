import type { EdgeKind } from '../../../model/structural.js';
import type { ArtifactSymbol } from '../artifacts/store.js';
import type { ClassInfo, FieldInfo, MethodInfo } from './classFile.js';

/*
 * What linking class files to the source produces (link.ts): the symbols
 * only bytecode shows, the call sites the compiler wrote, the implementations
 * class files record, and the type model DI wiring and trace mapping read.
 */

export type Anchor = { readonly sid: string } | { readonly external: string };

export interface LoadedClass {
  readonly info: ClassInfo;
  /** Workspace-relative path of the class file, or `lib/x.jar!/com/acme/X.class`. */
  readonly artifact: string;
  readonly fromJar: boolean;
}

/** A symbol that exists only in bytecode; its line comes from the class file's line table. */
export interface GeneratedSymbol extends ArtifactSymbol {
  /** What wrote it: `compiler: record accessor`, `mapstruct`, `spring-aot`, `lombok`, `compiler: bridge`, … */
  readonly generator: string;
  readonly artifact: string;
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

/** A method as the class file declares it, with the symbol it is anchored to. */
export interface JvmMethod extends Pick<MethodInfo, 'name' | 'descriptor' | 'access' | 'annotations' | 'parameterAnnotations' | 'lines' | 'parameterNames'> {
  readonly anchor: Anchor | undefined;
  /** Fields this method assigns from its parameters (`this.rail = rail`): parameter index → field name. */
  readonly assigns?: ReadonlyMap<number, string>;
}

/** What DI wiring and trace mapping need to know of a type: hierarchy, annotations, members and where it lives. */
export interface JvmType extends Pick<ClassInfo, 'access' | 'superName' | 'interfaces' | 'annotations' | 'signature'> {
  readonly internal: string;
  readonly qname: string;
  readonly status: ClassStatus;
  readonly anchor: Anchor | undefined;
  readonly artifact: string;
  readonly methods: readonly JvmMethod[];
  readonly fields: readonly Pick<FieldInfo, 'name' | 'descriptor' | 'signature' | 'annotations'>[];
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
