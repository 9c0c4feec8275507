import * as path from 'node:path';
import ts from 'typescript';

/*
 * Ground truth for TypeScript from the compiler itself (typescript 5.9): the
 * checker resolves every call and `new` to the declaration it binds to
 * (getResolvedSignature, else the symbol at the callee's name, aliases
 * followed). Implementations come from `implements`/`extends` clauses as the
 * checker resolves them, transitively. Positions are those of names, as
 * Tenure records them: 1-based lines, 0-based UTF-16 columns.
 */

export interface TruthTarget {
  /** `path:line:col` of the declaration's name (the first declaration for overloads). */
  readonly key: string;
  readonly name: string;
  readonly kind: 'function' | 'method' | 'class';
  /** Every declaration's name position (overloads, merged declarations). */
  readonly positions: readonly string[];
  /** Method of an interface or of a class that others extend. */
  readonly isBase: boolean;
  /** Implementations / overrides (keys), transitively. */
  readonly implementations: readonly string[];
  /** Bases it implements or overrides (keys), transitively. */
  readonly bases: readonly string[];
  /** The declarations' spans (all overloads), to leave out recursive calls (what_breaks does not count a function as its own dependent). */
  readonly spans: readonly { readonly path: string; readonly start: number; readonly end: number }[];
}

export interface TsTruth {
  readonly targets: Map<string, TruthTarget>;
  /** target key → call sites (`path:line:col` of the callee name). */
  readonly callSites: Map<string, Set<string>>;
  readonly files: number;
  readonly ms: number;
}

function pos(sf: ts.SourceFile, node: ts.Node, root: string): string {
  const p = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return `${path.relative(root, sf.fileName).split(path.sep).join('/')}:${p.line + 1}:${p.character}`;
}

function nameOf(decl: ts.Declaration): ts.Node | undefined {
  if (ts.isConstructorDeclaration(decl)) return decl.parent && ts.isClassLike(decl.parent) ? decl.parent.name : undefined;
  const n = (decl as { name?: ts.Node }).name;
  if (n) return n;
  // `const f = () => …`, `{ f: function () {} }`
  if ((ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) && decl.parent && (ts.isVariableDeclaration(decl.parent) || ts.isPropertyAssignment(decl.parent) || ts.isPropertyDeclaration(decl.parent))) return decl.parent.name;
  return undefined;
}

function isCallable(decl: ts.Declaration): boolean {
  return ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl) || ts.isConstructorDeclaration(decl) || ts.isArrowFunction(decl) || ts.isFunctionExpression(decl) || ts.isClassDeclaration(decl) || ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl) || ts.isVariableDeclaration(decl);
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
    types: [],
    allowJs: false,
    experimentalDecorators: true,
  });
  const checker = program.getTypeChecker();
  const inCorpus = (sf: ts.SourceFile) => !sf.isDeclarationFile && path.resolve(sf.fileName).startsWith(path.resolve(root) + path.sep);
  const targets = new Map<string, TruthTarget & { implementations: string[]; bases: string[] }>();
  const callSites = new Map<string, Set<string>>();

  const targetOf = (symbol: ts.Symbol | undefined): (TruthTarget & { implementations: string[]; bases: string[] }) | undefined => {
    if (!symbol) return undefined;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decls = (symbol.declarations ?? []).filter((d) => inCorpus(d.getSourceFile()) && isCallable(d));
    if (!decls.length) return undefined;
    const named = decls.map((d) => ({ d, n: nameOf(d) })).filter((x): x is { d: ts.Declaration; n: ts.Node } => !!x.n && !ts.isConstructorDeclaration(x.d));
    if (!named.length) return undefined;
    const first = named[0]!;
    const key = pos(first.d.getSourceFile(), first.n, root);
    let t = targets.get(key);
    if (!t) {
      const d = first.d;
      const kind = ts.isClassDeclaration(d) ? 'class' : ts.isMethodDeclaration(d) || ts.isMethodSignature(d) || ts.isPropertySignature(d) || ts.isPropertyDeclaration(d) ? 'method' : 'function';
      t = {
        key, name: symbol.name, kind, positions: named.map((x) => pos(x.d.getSourceFile(), x.n, root)), isBase: false, implementations: [], bases: [],
        spans: decls.map((x) => ({ path: path.relative(root, x.getSourceFile().fileName).split(path.sep).join('/'), start: x.getStart(x.getSourceFile()), end: x.getEnd() })),
      };
      targets.set(key, t);
    }
    return t;
  };

  const corpusFiles = program.getSourceFiles().filter(inCorpus);
  for (const sf of corpusFiles) {
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const callee = node.expression;
        const nameNode = ts.isIdentifier(callee) ? callee : ts.isPropertyAccessExpression(callee) ? callee.name : undefined;
        if (nameNode) {
          let target: ReturnType<typeof targetOf>;
          if (ts.isNewExpression(node)) {
            target = targetOf(checker.getSymbolAtLocation(nameNode));
          } else {
            const decl = checker.getResolvedSignature(node)?.declaration;
            if (decl && !ts.isJSDocSignature(decl)) target = targetOf((decl as ts.Declaration & { symbol?: ts.Symbol }).symbol ?? checker.getSymbolAtLocation(nameOf(decl) ?? decl));
            target ??= targetOf(checker.getSymbolAtLocation(nameNode));
          }
          if (target) {
            const here = path.relative(root, sf.fileName).split(path.sep).join('/');
            const inside = target.spans.some((sp) => sp.path === here && node.getStart(sf) >= sp.start && node.getEnd() <= sp.end);
            if (!inside) {
              let set = callSites.get(target.key);
              if (!set) callSites.set(target.key, (set = new Set()));
              set.add(pos(sf, nameNode, root));
            }
          }
        }
      }
      // Implementations: members of a class that share a name with a member of a type it extends or implements.
      if (ts.isClassDeclaration(node) && node.name) {
        const cls = checker.getSymbolAtLocation(node.name);
        const seen = new Set<ts.Symbol>();
        const bases: ts.Symbol[] = [];
        const collect = (decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration) => {
          for (const clause of decl.heritageClauses ?? []) {
            for (const tExpr of clause.types) {
              let s = checker.getSymbolAtLocation(tExpr.expression);
              if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
              if (!s || seen.has(s)) continue;
              seen.add(s);
              bases.push(s);
              for (const d of s.declarations ?? []) if (ts.isClassLike(d) || ts.isInterfaceDeclaration(d)) collect(d);
            }
          }
        };
        collect(node);
        for (const member of cls?.members?.values() ?? []) {
          const impl = targetOf(member);
          if (!impl) continue;
          for (const b of bases) {
            const baseMember = b.members?.get(member.escapedName);
            const base = targetOf(baseMember);
            if (!base || base.key === impl.key) continue;
            (base as { isBase: boolean }).isBase = true;
            if (!base.implementations.includes(impl.key)) base.implementations.push(impl.key);
            if (!impl.bases.includes(base.key)) impl.bases.push(base.key);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { targets, callSites, files: corpusFiles.length, ms: performance.now() - t0 };
}
