/** What a definition is. `module` is the file itself, so file-level code has an owner. */
export type SymbolKind =
  | 'module'
  | 'namespace'
  | 'class'
  | 'interface'
  | 'enum'
  | 'type'
  | 'function'
  | 'method'
  | 'constructor'
  | 'field'
  | 'constant'
  /** A key of a configuration file (YAML, JSON, .properties, TOML, .env): `settlement.retry.max`. */
  | 'key';

export const TYPE_KINDS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum', 'type']);
export const CALLABLE_KINDS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'constructor']);

/**
 * How a dependent uses its target; what_breaks names every kind. `read` and
 * `write` are data dependents: a use of a field, property, static member,
 * constant, module-level variable, enum member, accessor or configuration key
 * by its value (`return Foo.EMPTY`, `if (this.closed)`) or an assignment to it
 * (`x.count += 1`, which is a `write`). A call through a function-typed
 * property reads the property.
 */
export type EdgeKind = 'call' | 'instantiate' | 'reference' | 'import' | 'extends' | 'implements' | 'read' | 'write';

/** The data kinds, for the places that treat dependents by value apart from calls. */
export const DATA_EDGE_KINDS: ReadonlySet<EdgeKind> = new Set(['read', 'write']);

/**
 * What holds a value rather than runs: the targets of `read` and `write`
 * edges. Accessors (`get x()`, `@property`) are fields to their users: one
 * symbol per property, its getter and setter are facets of it.
 */
export const DATA_KINDS: ReadonlySet<SymbolKind> = new Set(['field', 'constant', 'key']);

/**
 * How a call site is bound to its target, where it is not the ordinary way
 * (which may dispatch to overrides):
 *  - `super`: `super.m()`, `super(...)`: statically bound to the base member,
 *    never a dispatch into an override;
 *  - `property-call`: a call through a function-typed property or variable
 *    (`this.onDone()`): the edge is a `read` of the property, and what runs
 *    is whatever value it holds, never a method resolved by dispatch;
 *  - `untyped`: a read or write of a member through a receiver the type
 *    checker types `any` (or as a type from a package that is not
 *    installed): what it holds is decided at run time, so the site is kept
 *    once, by name and without a target (`dynamic`), counted in the answers
 *    for members of that name instead of being attributed to each of them.
 */
export type EdgeBinding = 'super' | 'property-call' | 'untyped';

/**
 * What a site's name is, where it is not a name of code: a configuration key
 * read by its string (`config.get('retry.max')`, `@Value("${a.b}")`), an
 * environment variable (`process.env.X`, `os.getenv("X")`), a configuration
 * prefix a class binds (`@ConfigurationProperties(prefix = "a.b")`), or the
 * receiver of a member use (`Foo` in `Foo.EMPTY`: a read when Foo holds data,
 * nothing of its own when Foo is a type or module, the member use being the edge).
 */
export type SiteNameIs = 'config-key' | 'env-var' | 'config-prefix' | 'receiver';

/** The reason of a dynamic site that reads a configuration key by a computed name (counted in "not seen"). */
export const COMPUTED_CONFIG_READ = 'configuration key read by a computed name';

export interface Position {
  /** 1-based line, as people and editors' "go to line" count. */
  readonly line: number;
  /** 0-based column in UTF-16 code units, as LSP and VS Code count. */
  readonly col: number;
}

export interface Range {
  readonly start: Position;
  readonly end: Position;
}

/** One definition found by the inventory in one file. */
export interface DefinitionFact {
  /** Index of this definition within the file's list; parents refer to it. */
  readonly index: number;
  readonly name: string;
  readonly kind: SymbolKind;
  /** Index of the enclosing definition, or -1 for the module. */
  readonly parent: number;
  readonly range: Range;
  readonly nameRange: Range;
  readonly exported: boolean;
  /**
   * Other declarations of the same symbol, merged into it: overload
   * signatures, the other accessor of a property (`get x` / `set x`), a
   * Python redefinition. The range spans them all.
   */
  readonly facets?: readonly Position[];
}

/** A place in the source that uses something by name. */
export interface SiteFact {
  readonly kind: EdgeKind;
  /** The name as written; '' for a fully computed (dynamic) target. */
  readonly name: string;
  /** The receiver expression as written (`self`, `this.gateway`, `os.path`), if any. */
  readonly receiver?: string;
  /** Declared type of the receiver when the file states it (annotation, field type, `new`). */
  readonly receiverType?: string;
  /** Index of the innermost enclosing definition, or -1 for the module. */
  readonly owner: number;
  readonly at: Position;
  /** Why the target cannot be decided statically, when it cannot. */
  readonly dynamic?: string;
  /** What the name is when it is not a name of code (a configuration key, an environment variable) or only a receiver. */
  readonly nameIs?: SiteNameIs;
}

/** A construct the extractor could not read, skipped so the rest of the file is kept. */
export interface SkippedConstruct {
  readonly at: Position;
  readonly reason: string;
}

export interface ImportFact {
  /** Module specifier as written: `./gateway`, `settlement.service`, `com.acme.X`. */
  readonly module: string;
  /** Name imported from the module; undefined for a whole-module import. */
  readonly name?: string;
  /** Local binding; defaults to `name` (or the module's last segment). */
  readonly local?: string;
  readonly owner: number;
  readonly at: Position;
  /** Wildcard import (`import com.acme.*`, `from x import *`). */
  readonly wildcard?: boolean;
}

/** Everything the inventory learns from one file; produced off the main thread. */
export interface FileFacts {
  readonly language: string;
  /** Package/namespace the file declares (Java `package`, Go `package`), if any. */
  readonly packageName?: string;
  readonly definitions: readonly DefinitionFact[];
  readonly sites: readonly SiteFact[];
  readonly imports: readonly ImportFact[];
  /** Syntax error nodes seen; the inventory is error tolerant but says so. */
  readonly errorNodes: number;
  /** Member accesses by a computed name (`obj[expr]`) whose target the inventory cannot name. */
  readonly computedAccesses?: number;
  /** Constructs skipped because the extractor failed on them; the rest of the file is kept. */
  readonly skipped?: readonly SkippedConstruct[];
  readonly parseMs: number;
}
