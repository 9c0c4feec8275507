import type { EdgeBinding, EdgeKind } from '../../model/structural.js';

/*
 * Resolvers: sources stronger than name matching (language servers, SCIP
 * indexes, bytecode, dependency-injection wiring, traces) that upgrade the
 * inventory's graph. A resolver never writes SQL and never sees row ids: it
 * answers in workspace locations and symbol ids, and the enrichment pass
 * (enrich.ts) turns its answers into edge rows:
 *
 *   - a site verdict that names a target the inventory already linked
 *     CONFIRMS that edge: it becomes `resolved` (or `observed`), with the
 *     resolver's `source` and reason as provenance;
 *   - a complete verdict REFUTES every other inventory edge of that site: the
 *     edge is removed and the refutation recorded (`tenure status` counts them);
 *   - a target the inventory never linked is ADDED as a resolved edge;
 *   - an implementation fact records a proven override/implementation, so
 *     calls through an interface or base method reach the implementations a
 *     type checker can prove (what_breaks: "reached by resolved dispatch").
 *
 * Freshness is the store's job, not the resolver's: whatever a resolver says
 * about a site falls back to the inventory's tier as soon as the caller's
 * file, the callee's file or anything the caller imports (transitively)
 * changes, until the enrichment pass runs again.
 *
 * This file is the contract other resolvers (bytecode, DI wiring, traces) code
 * against: add optional fields, never change the meaning of existing ones.
 */

/** A place in the workspace, counted as the inventory counts: 1-based line, 0-based UTF-16 column. */
export interface Loc {
  /** Workspace-relative POSIX path (`src/a/b.ts`). */
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

/** A location a tool answered with; `external` when it lies outside the workspace (node_modules, lib.d.ts, typeshed, a JDK). */
export interface CodeLocation extends Loc {
  readonly external?: boolean;
}

/**
 * How a resolver names a symbol: by where its name is declared (what language
 * servers and SCIP definitions give), or by its Tenure symbol id
 * (`ts \`src/a.ts\`/A#m().`, the SCIP descriptor grammar with a language scheme).
 * `external` names a symbol outside the workspace: a verdict that reaches only
 * external symbols refutes the inventory's guesses inside the workspace.
 */
export type SymbolAnchor = { readonly at: Loc } | { readonly sid: string } | { readonly external: string };

/** What a resolver proved about one use site. */
export interface SiteVerdict {
  /** The use site: the position of the name as written, as the inventory records sites. */
  readonly site: Loc;
  /** The targets proved for this site. */
  readonly targets: readonly SymbolAnchor[];
  /**
   * true: `targets` is everything this site can reach, so the inventory's
   * other candidates for it are refuted (targets only `external` refutes all
   * of them). false: confirm and add only; refute nothing. Never set it for an
   * empty answer from a server that may not have loaded the project yet.
   */
  readonly complete: boolean;
  /** Kind for an edge the inventory missed; defaults to the inventory site's kind, else `reference`. */
  readonly kind?: EdgeKind;
  /**
   * What the use is, read from the syntax by a resolver that parsed it (a
   * compiler): the edges at the site take this kind, the inventory's own
   * included (`new X<T>()` an instantiation, a data use a read or a write).
   * Imports and heritage edges keep theirs.
   */
  readonly use?: EdgeKind;
  /** The dependent, when the resolver knows it (call hierarchy's caller); else the innermost definition around `site`. */
  readonly from?: SymbolAnchor;
  /** One sentence a person can check: "definition (tsserver): `PaymentGateway.submit`". */
  readonly reason: string;
  /**
   * The resolver's read/write role for a use of data (LSP document highlights,
   * SCIP ReadAccess/WriteAccess, the compiler's syntax): an inventory `read` or
   * `write` edge at the site takes this kind.
   */
  readonly role?: 'read' | 'write';
  /**
   * How the site is bound where it is not the ordinary way: `super` (`super.m()`,
   * `super(…)`, statically bound to the base member, never a dispatch),
   * `property-call` (a call through a function-typed property: a read of it).
   */
  readonly binding?: EdgeBinding;
}

/** `impl` implements or overrides `base`, proven by a type checker or compiler artifact. */
export interface ImplementationFact {
  readonly base: SymbolAnchor;
  readonly impl: SymbolAnchor;
  readonly reason: string;
  /**
   * When the only way `impl` is reached is wiring the source does not show
   * (DI container, reflection), say how: what_breaks reports it as such.
   */
  readonly wiredBy?: string;
}

/** What one unit of resolution produced. */
export interface ResolutionBatch {
  readonly sites: readonly SiteVerdict[];
  readonly implementations: readonly ImplementationFact[];
  /**
   * Files whose every site this batch answered for: they are recorded as
   * enriched at their current content, so a resumed pass skips them.
   */
  readonly coveredFiles?: readonly string[];
  /** What could not be resolved and why, for logs and `tenure status`. */
  readonly notes?: readonly string[];
  /**
   * Use sites the resolver was asked about and had no answer for (a receiver
   * typed `any`, a dependency that is not installed): their inventory edges
   * keep their tier and say that no type checker answered for them.
   */
  readonly unanswered?: readonly Loc[];
}

/** An inventory use site handed to a resolver (the inventory's view, to confirm or refute). */
export interface SiteQuery {
  readonly at: Loc;
  readonly kind: EdgeKind;
  readonly name: string;
  readonly receiver: string | null;
  /** Names of the symbols the inventory linked it to (empty when it found none). */
  readonly candidates: readonly string[];
  readonly dynamic: boolean;
}

/** An inventory symbol handed to a resolver. */
export interface SymbolQuery {
  readonly sid: string;
  readonly name: string;
  readonly kind: string;
  /** Position of the symbol's name. */
  readonly at: Loc;
  /** The kind of its enclosing definition (`interface`, `class`, `module`, …). */
  readonly parentKind: string | null;
}

/**
 * What to ask about a symbol: `implementations` (what a type checker proves
 * implements or overrides it: resolved dispatch), `callers` (use sites the
 * inventory may have missed, found by references / call hierarchy and then
 * resolved one by one).
 */
export type SymbolQuestion = 'implementations' | 'callers';

/**
 * A unit of work. `file`: every use site in one file (the broad pass).
 * `symbol`: who uses this symbol and what implements it (the priority pass for
 * symbols just queried or open in an editor, and for interface methods).
 * `workspace`: batch resolvers that read one artifact covering everything
 * (a SCIP index, a beans dump, a trace export).
 */
export type ResolverUnit =
  | { readonly kind: 'file'; readonly path: string; readonly language: string; readonly sites: readonly SiteQuery[]; readonly symbols: readonly SymbolQuery[] }
  | { readonly kind: 'symbol'; readonly symbol: SymbolQuery; readonly language: string; readonly want: readonly SymbolQuestion[] }
  | { readonly kind: 'workspace' };

export interface ResolverContext {
  /** Absolute workspace root. */
  readonly root: string;
  /** Use sites the inventory linked across files, for a server to prove it has loaded the project. */
  readonly readyHint?: ReadyHint;
  readonly signal: AbortSignal;
  readonly log: (message: string) => void;
  /** The files the inventory holds in these languages (workspace-relative), for a resolver that loads a whole project. */
  readonly files?: (languages: readonly string[]) => Promise<readonly string[]>;
}

/**
 * One source of resolved (or observed) edges. Implementations: the language
 * server resolver over a CodeIntel port (headless LSP or VS Code's own
 * servers), SCIP import; later bytecode, DI wiring and traces.
 */
export interface EdgeResolver {
  /** Provenance of every edge it confirms or adds: `lsp:typescript`, `vscode:python`, `scip`, `bytecode`, `di:spring`, `otel`. */
  readonly source: string;
  /** The tier its edges get: type checkers and compiler artifacts `resolved`, executions `observed`. */
  readonly tier: 'resolved' | 'observed';
  /** The units it can answer. */
  readonly units: readonly ResolverUnit['kind'][];
  /** Inventory language ids it speaks for (`typescript`, `tsx`, `javascript`, `python`, …); undefined: whatever its artifact covers. */
  readonly languages?: readonly string[];
  /**
   * Gets ready: starts a server and waits for its project to load, opens an
   * artifact. Throws `ResolverUnavailableError` with a message a person can
   * act on; the pass then reports the tier it could not reach, and queries
   * keep answering from the inventory.
   */
  start(ctx: ResolverContext): Promise<void>;
  resolve(unit: ResolverUnit, ctx: ResolverContext): Promise<ResolutionBatch>;
  /** Which symbol questions it can answer once started (default: all, if it takes symbol units). */
  readonly questions?: readonly SymbolQuestion[];
  /**
   * The type checker behind it (`typescript`, `python`): resolvers with the same
   * checker answer the same questions, so a file one of them covered at its
   * content is done for all of them (a compiler first pass, then the language
   * server for what changes, then the editor's own server).
   */
  readonly checker?: string;
  /**
   * It reads every use in the files it covers, not only the inventory's sites,
   * and every implementation: symbols of a file it covered need no references
   * or implementation search.
   */
  readonly findsAllUses?: boolean;
  /**
   * A whole-workspace pass (fast over many files, not incremental): the pass
   * runs it only while most files of its languages lack type-checked
   * resolution, and leaves edits to the incremental resolvers after it.
   */
  readonly firstPass?: boolean;
  /** Pending files below which a first pass is not worth its start-up (default 20). */
  readonly firstPassMinFiles?: number;
  /** Files changed on disk since it last answered (a headless server may not watch them). */
  changed?(paths: readonly string[]): Promise<void>;
  dispose(): Promise<void>;
}

/** A resolver that cannot run here (server missing or crashed past its restarts, artifact unreadable). */
export class ResolverUnavailableError extends Error {
  override readonly name = 'ResolverUnavailableError';
  constructor(
    readonly source: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static is(e: unknown): e is ResolverUnavailableError {
    return e instanceof ResolverUnavailableError;
  }
}

/**
 * A code-intelligence request the server answered with an error, in one line
 * with what to do. `no-project`: the server holds no project for the file
 * (tsserver's "Could not find source file", "No Project"): it is outside every
 * tsconfig.json's include, or its project was too large and switched off.
 * `server-error`: anything else the server reported.
 */
export class CodeIntelError extends Error {
  override readonly name = 'CodeIntelError';
  constructor(
    readonly reason: 'no-project' | 'server-error',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static is(e: unknown, reason?: CodeIntelError['reason']): e is CodeIntelError {
    return e instanceof CodeIntelError && (reason === undefined || e.reason === reason);
  }
}

/** One call-hierarchy caller: the calling symbol and the ranges of its calls. */
export interface IncomingCall {
  readonly from: { readonly name: string; readonly at: CodeLocation };
  readonly sites: readonly CodeLocation[];
}

/** What lets a server prove it has loaded the project: a file to open and use sites that must have a definition. */
export interface ReadyHint {
  readonly file?: string;
  /** Sites whose definition is known to be in the workspace: the project is loaded once one answers. */
  readonly probes?: readonly Loc[];
}

/**
 * Code intelligence as a port: what the language-server resolver needs from a
 * type checker. Two adapters: the headless LSP client (src/core/lsp) and
 * VS Code's running servers (src/vscode/codeIntelBridge.ts, through
 * vscode.execute*Provider). Every method takes a signal; none may hang past it.
 */
export interface CodeIntel {
  /** `lsp:typescript`, `vscode:typescript`, …: becomes the edges' source. */
  readonly name: string;
  /** Inventory language ids it answers for. */
  readonly languages: readonly string[];
  /**
   * Resolves once the server has loaded the project, so that an empty answer
   * means "nothing" rather than "not yet". Rejects with ResolverUnavailableError.
   */
  ready(signal: AbortSignal, hint?: ReadyHint): Promise<void>;
  definition(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]>;
  references(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]>;
  implementation(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]>;
  incomingCalls(at: Loc, signal: AbortSignal): Promise<readonly IncomingCall[]>;
  /**
   * The uses of the symbol at `at` in the same file, with their read/write
   * role where the server tells it (document highlights); optional.
   */
  highlights?(at: Loc, signal: AbortSignal): Promise<readonly { readonly at: Loc; readonly role: 'read' | 'write' | 'text' }[]>;
  /** Whether the server answers a kind of request (known once ready); absent: assume it does. */
  supports?(request: 'implementation' | 'references' | 'callHierarchy'): boolean;
  /** Tells the server files changed on disk (headless servers may not watch them); optional. */
  changed?(paths: readonly string[]): Promise<void>;
  /** Releases what it holds for files it was asked about (open documents); optional. */
  release?(paths: readonly string[]): Promise<void>;
  dispose(): Promise<void>;
}
