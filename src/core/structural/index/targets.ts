import { DATA_KINDS, TYPE_KINDS, type EdgeKind, type SymbolKind } from '../../model/structural.js';
import type { LanguageSpec } from '../inventory/languages.js';
import type { Site, Sym } from './state.js';
import { push } from '../../../shared/maps.js';

/*
 * What a use site may bind to, by its kind and shape (bare name, member,
 * call, read, write), and the configuration keys by suffix and prefix: the
 * tables name resolution (resolve.ts) consults.
 */

export const MAX_CANDIDATES = 50;
/**
 * A data use by name reaches fewer candidates before it is only a name: `x.id` on a
 * receiver of unknown type matches every `id` field there is, and listing them helps no one.
 */
export const MAX_DATA_CANDIDATES = 8;
/**
 * A member matched by name across the whole workspace (its receiver's type unknown, no candidate in
 * scope) reaches as many before it is only a name: such lists grow with the repository, not the file.
 */
export const MAX_WORKSPACE_CANDIDATES = 8;

export const CALL_TARGETS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'constructor', 'class']);
export const MEMBER_CALL_TARGETS: ReadonlySet<SymbolKind> = new Set(['function', 'method']);
export const REFERENCE_TARGETS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum', 'type', 'function', 'constant', 'namespace', 'module']);
export const INHERIT_TARGETS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'type']);
export const CONTAINER: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'enum']);
/** A bare name read as a value: data, or a type, function or module passed as one (a reference). */
export const READ_TARGETS: ReadonlySet<SymbolKind> = new Set([...REFERENCE_TARGETS, 'field']);
export const WRITE_TARGETS: ReadonlySet<SymbolKind> = new Set(['field', 'constant']);
/** A bare call may go through a variable holding a function (a read of it). */
export const BARE_CALL_TARGETS: ReadonlySet<SymbolKind> = new Set([...CALL_TARGETS, 'constant']);
export const MEMBER_CALL_OR_PROPERTY: ReadonlySet<SymbolKind> = new Set([...MEMBER_CALL_TARGETS, 'constructor', 'field', 'constant']);
export const MEMBER_READ_TARGETS: ReadonlySet<SymbolKind> = new Set(['field', 'constant', 'method', 'function', 'class', 'interface', 'enum', 'type']);
/** Members a data use on a receiver of unknown type may mean: data only (a method read as a value needs a known receiver). */
export const DATA_MEMBER_TARGETS: ReadonlySet<SymbolKind> = new Set(['field', 'constant']);

/** What a bare name at a site may denote. */
export function bareTargets(site: Site, spec: LanguageSpec): ReadonlySet<SymbolKind> {
  switch (site.kind) {
    case 'read':
      return READ_TARGETS;
    case 'write':
      return WRITE_TARGETS;
    case 'call':
      // Java keeps methods and fields apart: a call is never through a field of that name.
      return spec.scheme === 'java' ? CALL_TARGETS : BARE_CALL_TARGETS;
    default:
      return allowedFor(site.kind);
  }
}

/** What a member use on a receiver may denote. */
export function memberTargets(site: Site): ReadonlySet<SymbolKind> {
  switch (site.kind) {
    case 'call':
      return MEMBER_CALL_OR_PROPERTY;
    case 'read':
      return MEMBER_READ_TARGETS;
    case 'write':
      return WRITE_TARGETS;
    default:
      return allowedFor(site.kind);
  }
}

/** A call where a type has both a method and a field of one name (Python) means the method. */
export function preferCallables(site: Site, syms: readonly Sym[]): readonly Sym[] {
  if (site.kind !== 'call') return syms;
  const callables = syms.filter((s) => !DATA_KINDS.has(s.kind));
  return callables.length ? callables : syms;
}

/**
 * The workspace's configuration keys by their dotted name, by the
 * environment variable that overrides them under relaxed binding
 * (`settlement.retry.max` ← SETTLEMENT_RETRY_MAX), and by prefix.
 */
export class ConfigKeyIndex {
  readonly byQname = new Map<string, Sym[]>();
  readonly byEnvName = new Map<string, Sym[]>();
  private readonly parents = new Set<number>();

  constructor(private readonly keys: readonly Sym[]) {
    for (const k of keys) {
      push(this.byQname, k.qname, k);
      push(this.byEnvName, k.qname.replace(/[.-]/g, '_').toUpperCase(), k);
      if (k.parentId !== null) this.parents.add(k.parentId);
    }
  }

  bySuffix(name: string): Sym[] {
    return this.keys.filter((k) => k.qname.endsWith(`.${name}`));
  }

  /** Leaf keys under a prefix: what a class bound to it reads. */
  under(prefix: string): Sym[] {
    return this.keys.filter((k) => k.qname.startsWith(`${prefix}.`) && !this.parents.has(k.id));
  }
}

export function allowedFor(kind: EdgeKind): ReadonlySet<SymbolKind> {
  switch (kind) {
    case 'call':
      return CALL_TARGETS;
    case 'instantiate':
      return TYPE_KINDS;
    case 'extends':
    case 'implements':
      return INHERIT_TARGETS;
    default:
      return REFERENCE_TARGETS;
  }
}
