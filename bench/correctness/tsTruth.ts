import * as path from 'node:path';
import ts from 'typescript';

/*
 * Ground truth for TypeScript from the compiler itself (typescript 5.9).
 *
 * Calls: the checker resolves every call and `new` to the declaration it
 * binds to (getResolvedSignature, else the symbol at the callee's name,
 * aliases followed). `new X()` calls the constructor that runs: X's own, else
 * the nearest base class's; `super(…)` calls the base class's; `super.m()`
 * binds to the base member statically (recorded as a super site: it can
 * never dispatch into an override). Callables are functions, methods and
 * constructors; a property or variable that holds a function is data, and a
 * call through it reads it.
 *
 * Data: fields, accessors (a getter and its setter are one property),
 * interface properties, parameter properties, enum members and module-level
 * variables. Every name the checker resolves to one of them is a use:
 * a write when it is assigned (`=`, compound assignments, `++`/`--`,
 * `delete`, a destructuring or for-of target), else a read (a destructured
 * `const { x } = o` reads `x`, a shorthand `{ x }` reads the variable `x`).
 * Uses in type positions (`typeof X`) are left out.
 *
 * Implementations: members of a class or interface that share a name with a
 * member of a type it extends or implements (checker-resolved, transitively).
 * A use inside the target's own declaration is left out on both sides, as
 * what_breaks never counts a symbol as its own dependent. Positions are those
 * of names, as Tenure records them: 1-based lines, 0-based UTF-16 columns.
 */

export type TruthKind = 'function' | 'method' | 'constructor' | 'class' | 'data';
export type DataKind = 'field' | 'static field' | 'accessor' | 'interface property' | 'parameter property' | 'enum member' | 'module variable';

export interface TruthTarget {
  /** `path:line:col` of the declaration's name (the first declaration for overloads and accessor pairs); a constructor's `constructor` keyword. */
  readonly key: string;
  readonly name: string;
  readonly kind: TruthKind;
  readonly dataKind?: DataKind;
  /** Every declaration's name position (overloads, merged declarations, get/set). */
  readonly positions: readonly string[];
  /** Member of an interface or of a class that others extend. */
  readonly isBase: boolean;
  /** Implementations / overrides (keys), transitively. */
  readonly implementations: readonly string[];
  /** Bases it implements or overrides (keys), transitively. */
  readonly bases: readonly string[];
  /** The declarations' spans, to leave out uses inside the target itself. */
  readonly spans: readonly { readonly path: string; readonly start: number; readonly end: number }[];
}

export interface TsTruth {
  readonly targets: Map<string, TruthTarget>;
  /** target key → call sites (`path:line:col` of the callee name; `super` for super(…)). */
  readonly callSites: Map<string, Set<string>>;
  readonly reads: Map<string, Set<string>>;
  readonly writes: Map<string, Set<string>>;
  /** Call sites bound statically through `super` (super.m(), super(…)). */
  readonly superSites: Set<string>;
  readonly files: number;
  readonly ms: number;
}

type Mutable = TruthTarget & { implementations: string[]; bases: string[]; isBase: boolean };

function rel(root: string, sf: ts.SourceFile): string {
  return path.relative(root, sf.fileName).split(path.sep).join('/');
}

function pos(sf: ts.SourceFile, node: ts.Node, root: string): string {
  const p = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return `${rel(root, sf)}:${p.line + 1}:${p.character}`;
}

function isFunctionValued(d: ts.Node): boolean {
  const init = (d as { initializer?: ts.Node }).initializer;
  return !!init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
}

function atModuleLevel(d: ts.VariableDeclaration): boolean {
  const statement = d.parent?.parent;
  return !!statement && ts.isVariableStatement(statement) && !!statement.parent && ts.isSourceFile(statement.parent);
}

function callableKind(d: ts.Declaration): TruthKind | undefined {
  if (ts.isFunctionDeclaration(d)) return 'function';
  if (ts.isMethodDeclaration(d) || ts.isMethodSignature(d)) return 'method';
  if (ts.isConstructorDeclaration(d)) return 'constructor';
  if (ts.isClassDeclaration(d)) return 'class';
  // `export const f = () => …` is a function to every reader of the code.
  if (ts.isVariableDeclaration(d) && isFunctionValued(d) && atModuleLevel(d)) return 'function';
  return undefined;
}

function dataKind(d: ts.Declaration): DataKind | undefined {
  if (ts.isPropertyDeclaration(d)) return ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Static ? 'static field' : 'field';
  if (ts.isPropertySignature(d)) return 'interface property';
  if (ts.isGetAccessor(d) || ts.isSetAccessor(d)) return 'accessor';
  if (ts.isEnumMember(d)) return 'enum member';
  if (ts.isParameter(d) && ts.isParameterPropertyDeclaration(d, d.parent)) return 'parameter property';
  if (ts.isVariableDeclaration(d) && atModuleLevel(d) && !isFunctionValued(d) && ts.isIdentifier(d.name)) return 'module variable';
  return undefined;
}

function nameNode(d: ts.Declaration, sf: ts.SourceFile): ts.Node | undefined {
  if (ts.isConstructorDeclaration(d)) return d.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
  return (d as { name?: ts.Node }).name;
}

/** Is `expr` (a name or a property access) the target of an assignment? Walks out through parentheses and destructuring patterns. */
function assigned(expr: ts.Node): boolean {
  let n: ts.Node = expr;
  for (let p = n.parent; p; n = p, p = p.parent) {
    switch (p.kind) {
      case ts.SyntaxKind.ParenthesizedExpression:
      case ts.SyntaxKind.NonNullExpression:
      case ts.SyntaxKind.ArrayLiteralExpression:
      case ts.SyntaxKind.ObjectLiteralExpression:
      case ts.SyntaxKind.SpreadElement:
      case ts.SyntaxKind.SpreadAssignment:
      case ts.SyntaxKind.ShorthandPropertyAssignment:
        continue;
      case ts.SyntaxKind.PropertyAssignment:
        if ((p as ts.PropertyAssignment).initializer === n) continue;
        return false;
      case ts.SyntaxKind.BinaryExpression: {
        const b = p as ts.BinaryExpression;
        const op = b.operatorToken.kind;
        return b.left === n && op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment;
      }
      case ts.SyntaxKind.PrefixUnaryExpression:
      case ts.SyntaxKind.PostfixUnaryExpression: {
        const op = (p as ts.PrefixUnaryExpression).operator;
        return op === ts.SyntaxKind.PlusPlusToken || op === ts.SyntaxKind.MinusMinusToken;
      }
      case ts.SyntaxKind.DeleteExpression:
        return true;
      case ts.SyntaxKind.ForOfStatement:
      case ts.SyntaxKind.ForInStatement:
        return (p as ts.ForOfStatement).initializer === n;
      default:
        return false;
    }
  }
  return false;
}

export function tsTruth(root: string, files: readonly string[]): TsTruth {
  const t0 = performance.now();
  const program = ts.createProgram([...files], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    strict: false,
    noEmit: true,
    skipLibCheck: true,
    allowJs: false,
    experimentalDecorators: true,
  });
  const checker = program.getTypeChecker();
  const inCorpus = (sf: ts.SourceFile) => !sf.isDeclarationFile && path.resolve(sf.fileName).startsWith(path.resolve(root) + path.sep) && !sf.fileName.includes(`${path.sep}node_modules${path.sep}`);
  const targets = new Map<string, Mutable>();
  const callSites = new Map<string, Set<string>>();
  const reads = new Map<string, Set<string>>();
  const writes = new Map<string, Set<string>>();
  const superSites = new Set<string>();
  const add = (m: Map<string, Set<string>>, key: string, site: string) => {
    let s = m.get(key);
    if (!s) m.set(key, (s = new Set()));
    s.add(site);
  };

  const unalias = (s: ts.Symbol | undefined): ts.Symbol | undefined => {
    if (s && s.flags & ts.SymbolFlags.Alias) {
      try {
        return checker.getAliasedSymbol(s);
      } catch {
        return undefined;
      }
    }
    return s;
  };

  const make = (decls: ts.Declaration[], name: string, kind: TruthKind, dk?: DataKind): Mutable | undefined => {
    const named = decls.map((d) => ({ d, n: nameNode(d, d.getSourceFile()) })).filter((x): x is { d: ts.Declaration; n: ts.Node } => !!x.n);
    if (!named.length) return undefined;
    const first = named[0]!;
    const key = pos(first.d.getSourceFile(), first.n, root);
    let t = targets.get(key);
    if (!t) {
      t = {
        key, name, kind, ...(dk ? { dataKind: dk } : {}), positions: named.map((x) => pos(x.d.getSourceFile(), x.n, root)), isBase: false, implementations: [], bases: [],
        spans: decls.map((x) => ({ path: rel(root, x.getSourceFile()), start: x.getStart(x.getSourceFile()), end: x.getEnd() })),
      };
      targets.set(key, t);
    }
    return t;
  };

  /** The target a symbol denotes: a callable (functions, methods; not constructors, keyed apart) or data. */
  const targetOf = (symbol: ts.Symbol | undefined): Mutable | undefined => {
    symbol = unalias(symbol);
    if (!symbol) return undefined;
    const decls = (symbol.declarations ?? []).filter((d) => inCorpus(d.getSourceFile()) && !ts.isConstructorDeclaration(d));
    if (!decls.length) return undefined;
    const ck = decls.map(callableKind).find(Boolean);
    if (ck) return make(decls.filter((d) => callableKind(d) === ck), symbol.name, ck);
    const dk = decls.map(dataKind).find(Boolean);
    if (dk) return make(decls.filter((d) => dataKind(d)), symbol.name, 'data', dk);
    return undefined;
  };

  const classOf = (s: ts.Symbol | undefined): ts.ClassLikeDeclaration | undefined => unalias(s)?.declarations?.find((d): d is ts.ClassLikeDeclaration => ts.isClassLike(d));
  const baseClass = (cls: ts.ClassLikeDeclaration): ts.ClassLikeDeclaration | undefined => {
    const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    return ext ? classOf(checker.getSymbolAtLocation(ext.expression)) : undefined;
  };
  /** The constructor that runs for a class: its own, else the nearest base class's. */
  const constructorOf = (cls: ts.ClassLikeDeclaration | undefined, depth = 0): Mutable | undefined => {
    if (!cls || depth > 20 || !inCorpus(cls.getSourceFile())) return undefined;
    const own = cls.members.filter(ts.isConstructorDeclaration);
    if (own.length) return make(own, 'constructor', 'constructor');
    return constructorOf(baseClass(cls), depth + 1);
  };

  const inside = (t: TruthTarget, sf: ts.SourceFile, node: ts.Node) => {
    const here = rel(root, sf);
    return t.spans.some((sp) => sp.path === here && node.getStart(sf) >= sp.start && node.getEnd() <= sp.end);
  };

  const corpusFiles = program.getSourceFiles().filter(inCorpus);
  for (const sf of corpusFiles) {
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) callSite(sf, node);
      else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) dataUse(sf, node);
      if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) heritage(node);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  function callSite(sf: ts.SourceFile, node: ts.CallExpression | ts.NewExpression): void {
    const callee = node.expression;
    if (callee.kind === ts.SyntaxKind.SuperKeyword) {
      let cls: ts.Node | undefined = node.parent;
      while (cls && !ts.isClassLike(cls)) cls = cls.parent;
      const ctor = cls ? constructorOf(baseClass(cls as ts.ClassLikeDeclaration)) : undefined;
      const site = pos(sf, callee, root);
      superSites.add(site);
      if (ctor) add(callSites, ctor.key, site);
      return;
    }
    // `(f)(x)`, `o.m!(x)`: parentheses and non-null assertions around the callee do not change what is called.
    let bare: ts.Expression = callee;
    while (ts.isParenthesizedExpression(bare) || ts.isNonNullExpression(bare)) bare = bare.expression;
    const nameNode = ts.isIdentifier(bare) ? bare : ts.isPropertyAccessExpression(bare) ? bare.name : undefined;
    if (!nameNode) return;
    const site = pos(sf, nameNode, root);
    if (ts.isNewExpression(node)) {
      const sym = checker.getSymbolAtLocation(nameNode);
      const cls = targetOf(sym);
      if (cls && cls.kind === 'class' && !inside(cls, sf, node)) add(callSites, cls.key, site);
      const ctor = constructorOf(classOf(sym));
      if (ctor && !inside(ctor, sf, node)) add(callSites, ctor.key, site);
      return;
    }
    let target: Mutable | undefined;
    const decl = checker.getResolvedSignature(node)?.declaration;
    if (decl && !ts.isJSDocSignature(decl)) target = targetOf((decl as ts.Declaration & { symbol?: ts.Symbol }).symbol ?? checker.getSymbolAtLocation(nameNode));
    target ??= targetOf(checker.getSymbolAtLocation(nameNode));
    // A call through a property or variable holding a function reads it (counted with the data uses).
    if (!target || target.kind === 'data' || inside(target, sf, node)) return;
    // On a receiver of a union type the call reaches the member of every constituent, not only the one signature resolution names.
    for (const t of new Set([target, ...unionMembers(checker.getSymbolAtLocation(nameNode))])) {
      if (t.kind === 'data' || inside(t, sf, node)) continue;
      add(callSites, t.key, site);
    }
    if (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.SuperKeyword) superSites.add(site);
  }

  /** The members a property of a union type stands for, one target per constituent's declaration. */
  function unionMembers(symbol: ts.Symbol | undefined): Mutable[] {
    if (!symbol || !(symbol.flags & ts.SymbolFlags.Transient) || (symbol.declarations?.length ?? 0) < 2) return [];
    const out: Mutable[] = [];
    for (const d of symbol.declarations ?? []) {
      const own = (d as ts.Declaration & { symbol?: ts.Symbol }).symbol;
      const t = own ? targetOf(own) : undefined;
      if (t) out.push(t);
    }
    return out;
  }

  function dataUse(sf: ts.SourceFile, node: ts.Identifier | ts.PrivateIdentifier): void {
    const p = node.parent;
    if (!p || ts.isPartOfTypeNode(node)) return;
    let symbol: ts.Symbol | undefined;
    let write = false;
    if (ts.isBindingElement(p) && p.name === node && !p.propertyName && ts.isObjectBindingPattern(p.parent)) {
      symbol = checker.getTypeAtLocation(p.parent).getProperty(node.text);
    } else if (ts.isBindingElement(p) && p.propertyName === node) {
      symbol = checker.getSymbolAtLocation(node);
    } else if (ts.isShorthandPropertyAssignment(p) && p.name === node) {
      symbol = checker.getShorthandAssignmentValueSymbol(p);
      write = assigned(p);
    } else {
      // Names that declare, and import/export bindings, are not uses.
      if ((p as ts.NamedDeclaration).name === node && (ts.isDeclarationStatement(p) || ts.isClassElement(p) || ts.isTypeElement(p) || ts.isEnumMember(p) || ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isPropertyAssignment(p) || ts.isBindingElement(p))) return;
      if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportEqualsDeclaration(p) || ts.isExportAssignment(p)) return;
      if (ts.isQualifiedName(p) || ts.isTypeQueryNode(p)) return;
      symbol = checker.getSymbolAtLocation(node);
      const expr = ts.isPropertyAccessExpression(p) && p.name === node ? p : node;
      write = assigned(expr);
    }
    // On a receiver of a union type the use reaches the property of every constituent (as for calls).
    const found = targetOf(symbol);
    for (const t of new Set([...(found ? [found] : []), ...unionMembers(symbol)])) {
      if (t.kind !== 'data' || inside(t, sf, node)) continue;
      // Inside its constructor a parameter property's bare name is the parameter, not the property.
      if (t.dataKind === 'parameter property' && !((ts.isPropertyAccessExpression(p) && p.name === node) || ts.isBindingElement(p))) continue;
      add(write ? writes : reads, t.key, pos(sf, node, root));
    }
  }

  /** Members of a class or interface that share a name with a member of a type it extends or implements. */
  function heritage(node: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): void {
    if (!node.name) return;
    const cls = checker.getSymbolAtLocation(node.name);
    const seen = new Set<ts.Symbol>();
    const bases: ts.Symbol[] = [];
    const collect = (decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration) => {
      for (const clause of decl.heritageClauses ?? []) {
        for (const tExpr of clause.types) {
          const s = unalias(checker.getSymbolAtLocation(tExpr.expression));
          if (!s || seen.has(s)) continue;
          seen.add(s);
          bases.push(s);
          for (const d of s.declarations ?? []) if (ts.isClassLike(d) || ts.isInterfaceDeclaration(d)) collect(d);
        }
      }
    };
    collect(node);
    for (const member of cls?.members?.values() ?? []) {
      if (member.escapedName === '__constructor') continue;
      const impl = targetOf(member);
      if (!impl) continue;
      for (const b of bases) {
        const base = targetOf(b.members?.get(member.escapedName));
        if (!base || base.key === impl.key) continue;
        base.isBase = true;
        if (!base.implementations.includes(impl.key)) base.implementations.push(impl.key);
        if (!impl.bases.includes(base.key)) impl.bases.push(base.key);
      }
    }
  }

  return { targets, callSites, reads, writes, superSites, files: corpusFiles.length, ms: performance.now() - t0 };
}
