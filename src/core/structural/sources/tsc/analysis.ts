import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import type { EdgeKind } from '../../../model/structural.js';
import type { TscImplementation, TscTarget, TscUse } from './protocol.js';

/*
 * What the TypeScript checker says about a workspace, asked the way the
 * graph needs it: one program per tsconfig.json / jsconfig.json (the nearest
 * one above each file, as tsserver picks it) and one inferred program for the
 * files no config holds; then, per file, the declaration every name resolves
 * to, what the syntax makes of the use (call, `new`, read, write), and which
 * members implement or override which. It is the compiler tsserver runs,
 * without the server around it: no request per site, no documents to open,
 * and it loads no plugin (plugins are a tsserver feature).
 */

export interface ProgramSet {
  readonly programs: number;
  /** Workspace-relative paths some program holds as a root. */
  readonly files: readonly string[];
  readonly notes: readonly string[];
  /** The checker's view of one file, or undefined when no program holds it. */
  analyze(rel: string): FileAnalysis | undefined;
}

export interface FileAnalysis {
  /** Uses of declarations the graph has (module-level and class-level code, not locals). */
  readonly uses: TscUse[];
  /** Uses of anything else, `[line, col, file]`: a local or parameter (file ''), or a declaration outside the workspace. */
  readonly elsewhere: [number, number, string][];
  readonly implementations: TscImplementation[];
  /** Names the checker has no symbol for (a receiver typed `any`, a dependency that is not installed). */
  readonly unanswered: [number, number][];
}

const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

/** Options for the files no config holds, as tsserver's inferred projects have them. */
const INFERRED: ts.CompilerOptions = {
  allowJs: true,
  checkJs: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
  experimentalDecorators: true,
};

/** Programs for the workspace's files (workspace-relative POSIX paths). */
export function buildPrograms(root: string, files: readonly string[]): ProgramSet {
  root = path.resolve(root);
  const notes: string[] = [];
  const nearest = new Map<string, string | null>();
  /** The nearest config at or above a folder, within the workspace. */
  const configOf = (dir: string): string | null => {
    const hit = nearest.get(dir);
    if (hit !== undefined) return hit;
    let found: string | null = CONFIG_NAMES.map((n) => path.join(dir, n)).find((p) => fs.existsSync(p)) ?? null;
    const parent = path.dirname(dir);
    if (!found && dir !== root && parent !== dir && (parent === root || parent.startsWith(root + path.sep))) found = configOf(parent);
    nearest.set(dir, found);
    return found;
  };
  const byConfig = new Map<string | null, string[]>();
  for (const rel of files) {
    const abs = path.join(root, ...rel.split('/'));
    const cfg = configOf(path.dirname(abs));
    const list = byConfig.get(cfg) ?? [];
    list.push(abs);
    byConfig.set(cfg, list);
  }
  const host = cachingHost();
  const owner = new Map<string, ts.Program>();
  let programs = 0;
  const leftOver: string[] = [...(byConfig.get(null) ?? [])];
  for (const [cfg, mine] of byConfig) {
    if (cfg === null) continue;
    const parsed = ts.getParsedCommandLineOfConfigFile(cfg, { noEmit: true }, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => notes.push(`${path.relative(root, cfg)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`),
    });
    const roots = new Set((parsed?.fileNames ?? []).map((f) => path.resolve(f)));
    const held = mine.filter((f) => roots.has(f));
    // A file its nearest config leaves out (exclude, another include) goes to the inferred program, as in tsserver.
    leftOver.push(...mine.filter((f) => !roots.has(f)));
    if (!parsed || !held.length) continue;
    // Project references are followed as plain imports: sources, never the outputs of a build that may not exist.
    const program = ts.createProgram({ rootNames: [...roots], options: { ...parsed.options, noEmit: true, skipLibCheck: true }, host: host(parsed.options) });
    programs++;
    for (const f of held) if (!owner.has(f)) owner.set(f, program);
  }
  const rest = leftOver.filter((f) => !owner.has(f));
  if (rest.length) {
    const program = ts.createProgram({ rootNames: rest, options: INFERRED, host: host(INFERRED) });
    programs++;
    for (const f of rest) owner.set(f, program);
  }
  const checkers = new Map<ts.Program, ts.TypeChecker>();
  const relCache = new Map<string, string | undefined>();
  /** Workspace-relative path of a file the compiler read; undefined outside the workspace or under node_modules. */
  const rel = (fileName: string): string | undefined => {
    if (relCache.has(fileName)) return relCache.get(fileName);
    const r = path.relative(root, path.resolve(fileName));
    const out = !r || r.startsWith('..') || path.isAbsolute(r) || r.split(path.sep).includes('node_modules') ? undefined : r.split(path.sep).join('/');
    relCache.set(fileName, out);
    return out;
  };
  return {
    programs,
    notes,
    files: [...owner.keys()].map((f) => rel(f)).filter((f): f is string => !!f),
    analyze(relPath) {
      const abs = path.join(root, ...relPath.split('/'));
      const program = owner.get(abs);
      const sf = program?.getSourceFile(abs);
      if (!program || !sf) return undefined;
      let checker = checkers.get(program);
      if (!checker) checkers.set(program, (checker = program.getTypeChecker()));
      const options = program.getCompilerOptions();
      // With path mappings an unresolved bare import may be a workspace file the mapping missed: no claim then.
      return new FileAnalyzer(checker, sf, rel, !options.paths && !options.baseUrl).run();
    },
  };
}

/** A compiler host that parses each file once for every program that reads it. */
function cachingHost(): (options: ts.CompilerOptions) => ts.CompilerHost {
  const cache = new Map<string, ts.SourceFile>();
  return (options) => {
    const host = ts.createCompilerHost(options, true);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, version, onError, fresh) => {
      const v = typeof version === 'object' ? `${version.languageVersion}:${version.impliedNodeFormat ?? ''}` : String(version);
      const key = `${v}|${fileName}`;
      const hit = cache.get(key);
      if (hit && !fresh) return hit;
      const sf = read(fileName, version, onError, fresh);
      if (sf) cache.set(key, sf);
      return sf;
    };
    return host;
  };
}

const DATA_DECLARATIONS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.EnumMember,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.BindingElement,
]);

const METHOD_DECLARATIONS = new Set<ts.SyntaxKind>([ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.MethodSignature]);
const PROPERTY_DECLARATIONS = new Set<ts.SyntaxKind>([ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.PropertySignature]);

const graphCache = new WeakMap<ts.Declaration, boolean>();

/** Data is what a use reads or writes by value: fields, properties, accessors, enum members, variables that hold no function. */
function isData(d: ts.Declaration): boolean {
  if (DATA_DECLARATIONS.has(d.kind)) return true;
  if (ts.isParameter(d)) return ts.isParameterPropertyDeclaration(d, d.parent);
  if (ts.isVariableDeclaration(d)) return !(d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer) || ts.isClassExpression(d.initializer)));
  return false;
}

/** Whether an import binding names a bare module (`stream`, `@scope/pkg`), not a relative or absolute path. */
function fromPackage(alias: ts.Symbol): boolean {
  for (let n: ts.Node | undefined = alias.declarations?.[0]; n; n = n.parent) {
    if (ts.isImportDeclaration(n)) return ts.isStringLiteral(n.moduleSpecifier) && !/^[./]/.test(n.moduleSpecifier.text);
    if (ts.isImportEqualsDeclaration(n)) return ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression) && !/^[./]/.test(n.moduleReference.expression.text);
  }
  return false;
}

/** Whether a declaration is one the graph has: not a parameter, type parameter or anything local to a function body. */
function isGraphDeclaration(d: ts.Declaration): boolean {
  let hit = graphCache.get(d);
  if (hit === undefined) graphCache.set(d, (hit = graphDeclaration(d)));
  return hit;
}

function graphDeclaration(d: ts.Declaration): boolean {
  if (ts.isParameter(d)) return ts.isParameterPropertyDeclaration(d, d.parent);
  if (ts.isTypeParameterDeclaration(d)) return false;
  // Functions and classes are definitions wherever they are declared (the inventory has nested ones too);
  // what a function body declares otherwise (variables, destructured names, object literal members) is local to it.
  if (ts.isFunctionDeclaration(d) || ts.isClassLike(d) || ts.isClassElement(d) || ts.isTypeElement(d) || ts.isInterfaceDeclaration(d) || ts.isEnumDeclaration(d) || ts.isEnumMember(d) || ts.isTypeAliasDeclaration(d) || ts.isModuleDeclaration(d)) return true;
  if (ts.isVariableDeclaration(d) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer) || ts.isClassExpression(d.initializer))) return true;
  for (let n: ts.Node | undefined = d.parent; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isFunctionLike(n)) return false;
  }
  return true;
}

/** The node whose position the inventory gives a declaration: its name; a constructor's `constructor` keyword. */
function nameNodeOf(d: ts.Declaration, sf: ts.SourceFile): ts.Node | undefined {
  if (ts.isConstructorDeclaration(d)) return d.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
  return ts.getNameOfDeclaration(d);
}

/** Names a use never stands for: the name a declaration introduces. */
function isDeclarationName(node: ts.Node): boolean {
  const p = node.parent;
  if (!p) return false;
  if (ts.isShorthandPropertyAssignment(p) || ts.isBindingElement(p)) return false; // both a name and a use: handled apart
  // `export { a as b }` uses `a` (a re-export refers to what it exports); every other import or export name declares.
  if (ts.isExportSpecifier(p)) return (p.propertyName ?? p.name) !== node;
  if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportEqualsDeclaration(p) || ts.isNamespaceExport(p)) return true;
  const named = p as ts.NamedDeclaration;
  return named.name === node && (ts.isDeclarationStatement(p) || ts.isClassElement(p) || ts.isTypeElement(p) || ts.isEnumMember(p) || ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isPropertyAssignment(p) || ts.isTypeParameterDeclaration(p) || ts.isClassExpression(p) || ts.isFunctionExpression(p) || ts.isJsxAttribute(p));
}

function isAssignmentOperator(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** Whether an expression is assigned to: `x.a = …`, `x.a += …`, `x.a++`, `delete x.a`, `[x.a] = …`, `for (x.a of …)`. */
function isWritten(expr: ts.Node): boolean {
  let n = expr;
  for (;;) {
    const p = n.parent;
    if (!p) return false;
    if (ts.isBinaryExpression(p)) return p.left === n && isAssignmentOperator(p.operatorToken.kind);
    if (ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p)) return p.operator === ts.SyntaxKind.PlusPlusToken || p.operator === ts.SyntaxKind.MinusMinusToken;
    if (ts.isDeleteExpression(p)) return true;
    if (ts.isForInStatement(p) || ts.isForOfStatement(p)) return p.initializer === n;
    // Destructuring assignment: climb out of the pattern and ask whether the pattern is assigned to.
    if (ts.isArrayLiteralExpression(p) || ts.isSpreadElement(p) || ts.isSpreadAssignment(p) || ts.isShorthandPropertyAssignment(p)) {
      n = p;
      continue;
    }
    if (ts.isPropertyAssignment(p) && p.initializer === n) {
      n = p.parent;
      if (!ts.isObjectLiteralExpression(n)) return false;
      continue;
    }
    if (ts.isObjectLiteralExpression(p)) {
      n = p;
      continue;
    }
    if (ts.isParenthesizedExpression(p)) {
      n = p;
      continue;
    }
    return false;
  }
}

/** Through `(x)`, `x!`, `x as T`, `<T>x`, `x satisfies T`: the expression the use stands in. */
function outerExpression(n: ts.Node): ts.Node {
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent) || ts.isAsExpression(n.parent) || ts.isTypeAssertionExpression(n.parent) || ts.isSatisfiesExpression(n.parent))) n = n.parent;
  return n;
}

class FileAnalyzer {
  private readonly uses: TscUse[] = [];
  private readonly elsewhere: [number, number, string][] = [];
  private readonly impls: TscImplementation[] = [];
  private readonly unanswered: [number, number][] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly sf: ts.SourceFile,
    private readonly rel: (abs: string) => string | undefined,
    /** Whether an import the compiler cannot resolve is a package that is not installed (no path mappings). */
    private readonly unresolvedIsPackage = false,
  ) {}

  run(): FileAnalysis {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) this.name(node);
      else if (node.kind === ts.SyntaxKind.SuperKeyword && node.parent && ts.isCallExpression(node.parent) && node.parent.expression === node) this.superConstructorCall(node.parent);
      if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) this.implementations(node);
      ts.forEachChild(node, visit);
    };
    visit(this.sf);
    // An inventory site the walk never reached (a name in a comment, a JSDoc type) has no answer either.
    return { uses: this.uses, elsewhere: this.elsewhere, implementations: this.impls, unanswered: this.unanswered };
  }

  private at(node: ts.Node, sf = this.sf): [number, number] {
    const p = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    return [p.line + 1, p.character];
  }

  private name(node: ts.Identifier | ts.PrivateIdentifier): void {
    if (isDeclarationName(node)) return;
    const [line, col] = this.at(node);
    const symbol = this.symbolOf(node);
    if (!symbol?.declarations?.length) {
      // `this.push()` in a class extending an import the compiler cannot find: the member is inherited from there.
      const p = node.parent;
      const base = p && ts.isPropertyAccessExpression(p) && p.name === node ? this.missingBase(p.expression) : undefined;
      if (base !== undefined) this.elsewhere.push([line, col, `${base} (a base type whose module is not installed)`]);
      else this.unanswered.push([line, col]);
      return;
    }
    const targets: TscTarget[] = [];
    let data = false;
    let outside = '';
    for (const d of symbol.declarations) {
      const dsf = d.getSourceFile();
      const rel = this.rel(dsf.fileName);
      if (!rel) {
        outside ||= path.resolve(dsf.fileName);
        targets.push([outside]);
        continue;
      }
      const n = nameNodeOf(d, dsf);
      if (!n) continue;
      // A parameter property's bare name inside its constructor is the parameter, not the property.
      if (ts.isParameter(d) && !(symbol.flags & ts.SymbolFlags.Property)) continue;
      if (!isGraphDeclaration(d)) continue;
      targets.push([rel, ...this.at(n, dsf)]);
      if (isData(d)) data = true;
    }
    if (this.isNewTarget(node)) this.constructorTargets(symbol, targets);
    // A use of something only a function body knows (a local, a parameter), or only a library: no edge, but an answer.
    if (!targets.some((t) => t.length === 3)) {
      this.elsewhere.push([line, col, outside]);
      return;
    }
        const kind = this.kindOf(node, data);
    const binding = this.viaSuper(node) ? 'super' : kind === 'read' && this.isCalled(node) ? 'property-call' : undefined;
    this.push({ line, col, kind, targets, ...(binding ? { binding } : {}) });
  }

  /**
   * The base type, imported from a module the compiler cannot find, that a
   * receiver's class or interface (declared in the workspace) extends, its own
   * bases followed; undefined when the receiver is typed otherwise (`any`
   * stays unanswered: its value may be anything).
   */
  private missingBase(receiver: ts.Expression): string | undefined {
    const type = this.checker.getApparentType(this.checker.getTypeAtLocation(receiver));
    const seen = new Set<ts.Symbol>();
    const visit = (symbol: ts.Symbol | undefined, depth: number): string | undefined => {
      if (!symbol || seen.has(symbol) || depth > 8) return undefined;
      seen.add(symbol);
      for (const d of symbol.declarations ?? []) {
        if (!(ts.isClassLike(d) || ts.isInterfaceDeclaration(d)) || !this.rel(d.getSourceFile().fileName)) continue;
        for (const clause of d.heritageClauses ?? []) {
          for (const t of clause.types) {
            const named = this.checker.getSymbolAtLocation(t.expression);
            if (!named) continue;
            if (named.flags & ts.SymbolFlags.Alias) {
              const target = this.checker.getAliasedSymbol(named);
              if (!target.declarations?.length) return this.unresolvedIsPackage && fromPackage(named) ? t.expression.getText(d.getSourceFile()) : undefined;
              const found = visit(target, depth + 1);
              if (found !== undefined) return found;
            } else {
              const found = visit(named, depth + 1);
              if (found !== undefined) return found;
            }
          }
        }
      }
      return undefined;
    };
    return visit(type.getSymbol(), 0);
  }

  private push(u: TscUse): void {
    const key = `${u.line}:${u.col}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.uses.push(u);
  }

  /** The symbol a name stands for, aliases (imports, re-exports) followed; a shorthand `{ x }` and a destructured `{ x } = o` name the property too. */
  private symbolOf(node: ts.Identifier | ts.PrivateIdentifier): ts.Symbol | undefined {
    const p = node.parent;
    let s: ts.Symbol | undefined;
    if (p && ts.isBindingElement(p) && p.name === node && !p.propertyName && ts.isObjectBindingPattern(p.parent)) {
      // `const { value } = this`: the name declares a local and reads the property of that name.
      s = this.checker.getTypeAtLocation(p.parent).getProperty(node.text);
    } else if (p && ts.isShorthandPropertyAssignment(p) && p.name === node) {
      s = this.checker.getShorthandAssignmentValueSymbol(p);
    } else {
      s = this.checker.getSymbolAtLocation(node);
    }
    if (s && s.flags & ts.SymbolFlags.Alias) {
      try {
        s = this.checker.getAliasedSymbol(s);
      } catch {
        return undefined;
      }
    }
    return s;
  }

  private isNewTarget(node: ts.Node): boolean {
    const expr = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node ? node.parent : node;
    const outer = outerExpression(expr);
    return !!outer.parent && ts.isNewExpression(outer.parent) && outer.parent.expression === outer;
  }

  /**
   * `new X()` calls X's constructor as well as naming X: the constructor
   * declarations of X, or of the nearest base class that has one (what runs
   * when X declares none). Read from the class symbol, not by resolving the
   * call's signature, which would check every argument.
   */
  private constructorTargets(symbol: ts.Symbol, targets: TscTarget[]): void {
    const cls = symbol.declarations?.find((d): d is ts.ClassLikeDeclaration => ts.isClassLike(d));
    if (cls) this.pushConstructors(cls, targets);
  }

  private safeAliased(s: ts.Symbol): ts.Symbol | undefined {
    try {
      return this.checker.getAliasedSymbol(s);
    } catch {
      return undefined;
    }
  }

  /** The constructors that run for a class: its own, else its base class's (transitively). */
  private pushConstructors(cls: ts.ClassLikeDeclaration, targets: TscTarget[], depth = 0): void {
    const own = cls.members.filter(ts.isConstructorDeclaration);
    if (own.length) {
      const csf = cls.getSourceFile();
      const rel = this.rel(csf.fileName);
      if (!rel) return;
      for (const c of own) {
        const n = nameNodeOf(c, csf);
        if (n) targets.push([rel, ...this.at(n, csf)]);
      }
      return;
    }
    if (depth > 20) return;
    const base = this.baseClassOf(cls);
    if (base) this.pushConstructors(base, targets, depth + 1);
  }

  private baseClassOf(cls: ts.ClassLikeDeclaration): ts.ClassLikeDeclaration | undefined {
    const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    if (!ext) return undefined;
    let s = this.checker.getSymbolAtLocation(ext.expression);
    if (s && s.flags & ts.SymbolFlags.Alias) s = this.safeAliased(s);
    return s?.declarations?.find((d): d is ts.ClassLikeDeclaration => ts.isClassLike(d));
  }

  /** `super(…)` calls the base constructor: an edge the inventory's name matching cannot draw. */
  private superConstructorCall(call: ts.CallExpression): void {
    let cls: ts.Node | undefined = call.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    const base = cls ? this.baseClassOf(cls as ts.ClassLikeDeclaration) : undefined;
    if (!base) return;
    const targets: TscTarget[] = [];
    this.pushConstructors(base, targets);
    if (!targets.length) return;
    const [line, col] = this.at(call.expression);
    this.push({ line, col, kind: 'call', targets, binding: 'super' });
  }

  private viaSuper(node: ts.Node): boolean {
    const p = node.parent;
    return !!p && (ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression.kind === ts.SyntaxKind.SuperKeyword;
  }

  private isCalled(node: ts.Node): boolean {
    const expr = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node ? node.parent : node;
    const outer = outerExpression(expr);
    return !!outer.parent && (ts.isCallExpression(outer.parent) || ts.isNewExpression(outer.parent)) && outer.parent.expression === outer;
  }

  /**
   * A call of a method is a `call`; a call through a property or a variable that holds a
   * function reads that property (`read`, bound as a property call): what runs is its value.
   */
  private kindOf(node: ts.Identifier | ts.PrivateIdentifier, data: boolean): EdgeKind {
    const p0 = node.parent;
    // `typeof X` in a type uses X's type, not its value.
    if (p0 && (ts.isExportSpecifier(p0) || ts.isTypeQueryNode(p0))) return 'reference';
    if (p0 && ts.isBindingElement(p0)) return 'read';
    if (p0 && ts.isShorthandPropertyAssignment(p0)) return data ? (isWritten(p0) ? 'write' : 'read') : 'reference';
    const expr = (ts.isPropertyAccessExpression(p0) && p0.name === node) || (ts.isQualifiedName(p0) && p0.right === node) ? p0 : node;
    const outer = outerExpression(expr);
    const p = outer.parent;
    if (p) {
      if ((ts.isCallExpression(p) && p.expression === outer) || (ts.isTaggedTemplateExpression(p) && p.tag === outer) || ts.isDecorator(p)) return data ? 'read' : 'call';
      // `new this.ctor()`, `new AjaxError()` with AjaxError a constant holding a class: a read of what holds it.
      if (ts.isNewExpression(p) && p.expression === outer) return data ? 'read' : 'instantiate';
      if (ts.isExpressionWithTypeArguments(p) && ts.isHeritageClause(p.parent)) return p.parent.token === ts.SyntaxKind.ExtendsKeyword ? 'extends' : 'implements';
    }
    if (data && !ts.isPartOfTypeNode(outer)) return isWritten(outer) ? 'write' : 'read';
    return 'reference';
  }

  /** Members of a class or interface declared here that implement or override members of the types above it. */
  private implementations(decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): void {
    const bases = this.supertypes(decl);
    if (!bases.length) return;
    const members = new Map<ts.Type, Map<ts.__String, ts.Symbol>>();
    const memberOf = (base: ts.Type, key: ts.__String) => {
      let m = members.get(base);
      if (!m) members.set(base, (m = new Map(base.getProperties().map((p) => [p.escapedName, p]))));
      return m.get(key);
    };
    // Parameter properties (`constructor(readonly ceiling: number)`) are members too.
    const ctorParams = (decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>).flatMap((m) => (ts.isConstructorDeclaration(m) ? m.parameters.filter((p) => ts.isParameterPropertyDeclaration(p, m)) : []));
    for (const member of [...(decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>), ...ctorParams] as (ts.ClassElement | ts.TypeElement | ts.ParameterDeclaration)[]) {
      if (!member.name || ts.isConstructorDeclaration(member) || ts.isIndexSignatureDeclaration(member) || ts.isObjectBindingPattern(member.name) || ts.isArrayBindingPattern(member.name)) continue;
      if (ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Static) continue;
      // By the member's symbol, so computed names (`[Symbol.iterator]`) match their base as plain ones do.
      const own = (member as { symbol?: ts.Symbol }).symbol ?? this.checker.getSymbolAtLocation(member.name);
      if (!own) continue;
      const implAt = this.at(member.name);
      for (const base of bases) {
        for (const b of memberOf(base, own.escapedName)?.declarations ?? []) {
          if (b === member) continue;
          // A call through a function-typed property reads the property: it is no dispatch into a method.
          if (PROPERTY_DECLARATIONS.has(b.kind) && METHOD_DECLARATIONS.has(member.kind)) continue;
          if (ts.isParameter(b)) continue;
          // An accessor implements its own kind of accessor (and a plain property), never its counterpart.
          if ((ts.isGetAccessor(member) && ts.isSetAccessor(b)) || (ts.isSetAccessor(member) && ts.isGetAccessor(b))) continue;
          const bsf = b.getSourceFile();
          const rel = this.rel(bsf.fileName);
          const n = rel ? nameNodeOf(b, bsf) : undefined;
          if (!rel || !n) continue;
          this.impls.push({ impl: [this.relSelf(), ...implAt], base: [rel, ...this.at(n, bsf)], name: own.name });
        }
      }
    }
  }

  private relSelf(): string {
    return this.rel(this.sf.fileName) ?? this.sf.fileName;
  }

  /** Every type a class or interface extends or implements, transitively (instantiated, so generic members resolve). */
  private supertypes(decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): ts.Type[] {
    const out: ts.Type[] = [];
    const seen = new Set<ts.Type>();
    const add = (t: ts.Type | undefined) => {
      if (!t || seen.has(t)) return;
      seen.add(t);
      out.push(t);
      if (t.isClassOrInterface() || (t.flags & ts.TypeFlags.Object && (t as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference)) {
        for (const b of this.checker.getBaseTypes(((t as ts.TypeReference).target ?? t) as ts.InterfaceType) ?? []) add(b);
      }
      for (const d of t.getSymbol()?.declarations ?? []) if (ts.isClassLike(d)) for (const h of d.heritageClauses ?? []) if (h.token === ts.SyntaxKind.ImplementsKeyword) for (const tn of h.types) add(this.checker.getTypeAtLocation(tn));
    };
    for (const h of decl.heritageClauses ?? []) for (const tn of h.types) add(this.checker.getTypeAtLocation(tn));
    return out;
  }
}
