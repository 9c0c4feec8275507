import * as path from 'node:path';
import { formatDescriptor, type Descriptor } from '../../model/symbolId.js';
import type { DefinitionFact, SymbolKind } from '../../model/structural.js';
import type { LanguageSpec } from './languages.js';
import { folderOf } from '../../../shared/paths.js';

/**
 * How each language names its modules and symbols. The module part of an id
 * comes from what the language itself uses to import the file, so ids read
 * the way people refer to the code and survive re-index.
 */

export interface ModuleIdentity {
  /** Descriptors of the module (namespace path). */
  readonly descriptors: Descriptor[];
  /** Dotted prefix of qualified names: `com.acme.settlement`, `settlement.service`; '' for TypeScript. */
  readonly qualifier: string;
  /** Name of the module symbol shown to people. */
  readonly displayName: string;
}

/**
 * Python's dotted module name: the folders above the file that are packages
 * (hold an __init__.py) form its prefix, and so do the folders without one
 * below the outermost package: they are namespace packages inside it (PEP
 * 420), so readthedocs/notifications/models.py, whose folder has no
 * __init__.py, is imported as readthedocs.notifications.models. A workspace
 * whose root is itself a package (Django's tree as Debian installs it) is
 * named by the package's own root (`pythonRoot`: its metadata, or the name
 * its own modules import it by; see discover.ts), never by the folder the
 * checkout happens to sit in.
 */
function pythonModuleName(rel: string, hasFile: (rel: string) => boolean, pythonRoot: string): string {
  const segments = rel.replace(/\.pyi?$/, '').split('/');
  const base = segments.pop()!;
  const rootIsPackage = hasFile('__init__.py') && !!pythonRoot;
  // How many leading folders are not part of the name: those above the outermost package.
  let k = segments.length;
  if (rootIsPackage) k = 0;
  else {
    const outermost = segments.findIndex((_, i) => hasFile(`${segments.slice(0, i + 1).join('/')}/__init__.py`));
    if (outermost >= 0) k = outermost;
  }
  const parts = segments.slice(k);
  if (k === 0 && rootIsPackage) parts.unshift(pythonRoot);
  if (base !== '__init__') parts.push(base);
  return parts.join('.') || base;
}

function goImportPath(rel: string, goModules: ReadonlyMap<string, string>): string {
  const dir = folderOf(rel);
  // The nearest go.mod above the file gives the module path.
  let best: [string, string] | undefined;
  for (const [modDir, modPath] of goModules) {
    if ((modDir === '' || dir === modDir || dir.startsWith(modDir + '/')) && (!best || modDir.length > best[0].length)) best = [modDir, modPath];
  }
  if (!best) return dir || '.';
  const sub = best[0] === '' ? dir : dir.slice(best[0].length + 1);
  return sub ? `${best[1]}/${sub}` : best[1];
}

export function moduleIdentity(
  spec: LanguageSpec,
  rel: string,
  packageName: string | undefined,
  ctx: { hasFile: (rel: string) => boolean; goModules: ReadonlyMap<string, string>; pythonRoot: string },
): ModuleIdentity {
  switch (spec.scheme) {
    case 'ts':
    case 'config':
      // A configuration file's keys are named by their path in the file: `settlement.retry.max`.
      return { descriptors: [{ name: rel, suffix: 'namespace' }], qualifier: '', displayName: rel };
    case 'py': {
      const mod = pythonModuleName(rel, ctx.hasFile, ctx.pythonRoot);
      return { descriptors: [{ name: mod, suffix: 'namespace' }], qualifier: mod, displayName: mod };
    }
    case 'java': {
      const pkg = packageName ?? '';
      const descriptors: Descriptor[] = pkg ? pkg.split('.').map((name) => ({ name, suffix: 'namespace' as const })) : [];
      // A file is not a namespace in Java; the module symbol is the package plus the file name.
      return { descriptors: [...descriptors, { name: path.posix.basename(rel), suffix: 'namespace' }], qualifier: pkg, displayName: rel };
    }
    case 'go': {
      const imp = goImportPath(rel, ctx.goModules);
      return { descriptors: [{ name: imp, suffix: 'namespace' }], qualifier: packageName ?? path.posix.basename(imp), displayName: imp };
    }
  }
}

function suffixFor(kind: SymbolKind): Descriptor['suffix'] {
  switch (kind) {
    case 'class':
    case 'interface':
    case 'enum':
    case 'type':
      return 'type';
    case 'function':
    case 'method':
    case 'constructor':
      return 'method';
    case 'namespace':
    case 'module':
      return 'namespace';
    default:
      return 'term';
  }
}

export interface NamedDefinition {
  readonly def: DefinitionFact;
  readonly sid: string;
  readonly qname: string;
}

/**
 * SCIP ids and dotted names for a file's definitions. Overloads (same name,
 * same parent) get disambiguators in source order: `run().`, `run(+1).`.
 * Java's package descriptors are shared by the file's types: the file name
 * only names the module symbol, not its members.
 */
export function nameDefinitions(spec: LanguageSpec, module: ModuleIdentity, defs: readonly DefinitionFact[]): NamedDefinition[] {
  const memberBase = spec.scheme === 'java' ? module.descriptors.slice(0, -1) : module.descriptors;
  const chains: Descriptor[][] = [];
  const qnames: string[] = [];
  const overloads = new Map<string, number>();
  const out: NamedDefinition[] = [];
  for (const def of defs) {
    const parentChain = def.parent >= 0 ? chains[def.parent]! : memberBase;
    const parentQ = def.parent >= 0 ? qnames[def.parent]! : module.qualifier;
    const suffix = suffixFor(def.kind);
    let descriptor: Descriptor = { name: def.name, suffix };
    if (suffix === 'method') {
      const key = `${def.parent}\0${def.name}`;
      const n = overloads.get(key) ?? 0;
      overloads.set(key, n + 1);
      if (n > 0) descriptor = { ...descriptor, disambiguator: `+${n}` };
    }
    const chain = [...parentChain, descriptor];
    chains.push(chain);
    const qname = parentQ ? `${parentQ}.${def.name}` : def.name;
    qnames.push(qname);
    out.push({ def, sid: `${spec.scheme} ${chain.map(formatDescriptor).join('')}`, qname });
  }
  return out;
}

export function moduleSid(spec: LanguageSpec, module: ModuleIdentity): string {
  return `${spec.scheme} ${module.descriptors.map(formatDescriptor).join('')}`;
}
