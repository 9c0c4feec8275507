import { COMPUTED_CONFIG_READ, DATA_KINDS } from '../../model/structural.js';
import type { Db } from '../../store/db.js';
import { UNKNOWN_RECEIVER } from '../index/resolve.js';
import type { UnreadLanguage } from '../inventory/discover.js';
import { describeUnread } from '../lookup.js';
import { unreadLanguages } from '../store.js';
import type { WhatBreaksResult } from './result.js';

/*
 * What could still hide dependents of this target, in this workspace: only
 * the gaps that apply to its languages and to the sources imported here (no
 * "DI wiring" line where nothing injects, no "message topics" where no
 * service could publish), and those that do, counted for this answer: uses
 * matched by name only because the receiver's type was unknown, member
 * accesses by a computed name in the files that can see the target,
 * configuration keys read by a computed name. Type-checked resolution (what
 * the enrichment pass has or has not confirmed) is said apart, by
 * resolutionGaps in whatBreaks.ts.
 */

type Answer = Omit<WhatBreaksResult, 'summary' | 'notSeen'>;

/** Modules whose import means a container picks implementations at run time. */
const DI_MODULES = ['inversify', 'tsyringe', 'typedi', 'injection-js', '@nestjs/common', '@nestjs/core', '@angular/core', 'awilix', 'dependency_injector', 'injector', 'punq', 'lagom', 'go.uber.org/dig', 'go.uber.org/fx', 'github.com/google/wire'];
/** Modules whose import means calls arrive over a broker or from another service. */
const MESSAGING_MODULES = ['kafkajs', 'amqplib', 'bullmq', 'nats', 'mqtt', '@aws-sdk/client-sqs', '@google-cloud/pubsub', 'celery', 'kombu', 'pika', 'confluent_kafka', 'aiokafka', 'github.com/segmentio/kafka-go', 'github.com/nats-io/nats.go', 'github.com/streadway/amqp'];
/**
 * Names of decorators that ask a container for an implementation, in the languages that write decorators.
 * Not Spring's `Component`, `Service` or `Autowired`: a Java target names DI wiring whatever its workspace
 * uses, and elsewhere those names are a Go type, a React component or a Django model, not injection.
 */
const INJECTION_NAMES = ['Injectable', 'Inject', 'inject', 'injectable'];
/** The languages that write decorators and wire containers by them, as an SQL list. */
const DECORATOR_LANGUAGES = "('typescript', 'tsx', 'javascript', 'python')";
/**
 * Where a TypeScript, JavaScript or Python workspace wires a container of its own: a `di/`, `ioc/` or
 * `inject…/` folder, a `container.ts` (inversify's and tsyringe's convention). Not a `Container.tsx`
 * component, a `models/container/` folder or Go's `injector/` (a Kubernetes sidecar injector): Go wires
 * through the libraries DI_MODULES names, and a Java target names DI wiring whatever its workspace holds.
 */
const DI_PATH = /(^|\/)(di|ioc|inject|injection|injector)\/|(^|\/)container\.[cm]?[jt]s$/;

interface Workspace {
  readonly languages: ReadonlySet<string>;
  readonly artifacts: ReadonlySet<string>;
  /** A DI library is imported, an injection decorator used, or a path says the workspace wires a container. */
  readonly wiresContainer: boolean;
  /** A messaging library is imported. */
  readonly usesBroker: boolean;
}

/** What the index says of the whole workspace: the same for every answer until the structural memory is written again. */
interface IndexFacts {
  readonly generation: string;
  readonly facts: Promise<Omit<Workspace, 'artifacts'>>;
}

const indexFacts = new WeakMap<Db, IndexFacts>();

/**
 * The workspace's facts, computed once per generation of the structural
 * memory (every write of files, symbols or edges moves it): they scan the
 * files, imports and edges tables, which would otherwise cost each answer
 * tens of milliseconds on a large repository.
 */
async function workspaceOf(db: Db, artifacts?: ReadonlySet<string>): Promise<Workspace> {
  const generation = (await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.generation'"))?.value ?? '0';
  let cached = indexFacts.get(db);
  if (!cached || cached.generation !== generation) {
    cached = { generation, facts: scanIndex(db) };
    indexFacts.set(db, cached);
    cached.facts.catch(() => indexFacts.delete(db));
  }
  const kinds = artifacts ?? new Set((await db.all<{ kind: string }>('SELECT DISTINCT kind FROM artifacts')).map((k) => k.kind));
  return { ...(await cached.facts), artifacts: kinds };
}

/**
 * What the workspace imports and uses, each asked of the index with a JSON
 * list of names and answered through an index of its table, never by reading
 * every import or edge: a CLI query is a process of its own and would pay for
 * that scan each time (on a repository of millions of edges, seconds).
 */
export const WORKSPACE_LOOKUPS = {
  /** An import of one of the modules. */
  importOf: 'SELECT 1 FROM imports WHERE module IN (SELECT value FROM json_each(?))',
  /** A use, in a language with decorators, of a name no symbol here defines (a library's decorator), by its name as written. */
  // CROSS JOIN fixes the order, name first: left to itself the planner walked every unresolved edge (or every
  // edge of a Python file) and checked its name, 12 ms a question on Django and growing with the repository.
  unresolvedUseOf: `SELECT 1 FROM json_each(?) AS n CROSS JOIN edges AS e ON e.name = n.value AND e.dst_id IS NULL JOIN files AS f ON f.id = e.file_id WHERE f.language IN ${DECORATOR_LANGUAGES}`,
  /** A use, in a language with decorators, of a symbol of this workspace with one of the names. */
  useOfSymbolNamed: `SELECT 1 FROM json_each(?) AS n CROSS JOIN symbols AS s ON s.name = n.value CROSS JOIN edges AS e ON e.dst_id = s.id JOIN files AS f ON f.id = e.file_id WHERE f.language IN ${DECORATOR_LANGUAGES}`,
} as const;

async function scanIndex(db: Db): Promise<Omit<Workspace, 'artifacts'>> {
  const langs = await db.all<{ language: string | null }>('SELECT DISTINCT language FROM files WHERE skip_reason IS NULL');
  const any = async (sql: string, names: readonly string[]) => !!(await db.get<{ one: number }>(`SELECT 1 AS one WHERE EXISTS (${sql})`, [JSON.stringify(names)]));
  const injectionUsed = async () => (await any(WORKSPACE_LOOKUPS.unresolvedUseOf, INJECTION_NAMES)) || (await any(WORKSPACE_LOOKUPS.useOfSymbolNamed, INJECTION_NAMES));
  const wiresContainer =
    (await any(WORKSPACE_LOOKUPS.importOf, DI_MODULES)) || (await injectionUsed()) || (await db.all<{ path: string }>(`SELECT path FROM files WHERE skip_reason IS NULL AND language IN ${DECORATOR_LANGUAGES}`)).some((p) => DI_PATH.test(p.path));
  return {
    languages: new Set(langs.flatMap((l) => (l.language ? [l.language] : []))),
    wiresContainer,
    usesBroker: await any(WORKSPACE_LOOKUPS.importOf, MESSAGING_MODULES),
  };
}

/** Does something in this workspace inject implementations: Spring (Java), a DI library, injection decorators, a container of its own? */
function injects(ws: Workspace, language: string | undefined): boolean {
  // Spring wires Java; a TypeScript module beside a Java service is not wired by it.
  return language === 'java' || ws.artifacts.has('beans') || ws.wiresContainer;
}

/** Could calls arrive from another service or through a broker: a Java service, a messaging library? */
function servesOthers(ws: Workspace): boolean {
  return ws.languages.has('java') || ws.usesBroker;
}

/** Whether code outside this workspace can name the target: it or every type around it is exported. */
async function visibleOutside(db: Db, targetId: number): Promise<boolean> {
  let id: number | null = targetId;
  for (let hops = 0; id !== null && hops < 8; hops++) {
    const row: { exported: number; parent_id: number | null; kind: string } | undefined = await db.get('SELECT exported, parent_id, kind FROM symbols WHERE id = ?', [id]);
    if (!row) return true;
    if (row.kind === 'module') return true;
    if (row.exported) return true;
    id = row.parent_id;
  }
  return false;
}

/** Member accesses by a computed name (`obj[key]`) in the target's file and the files that import it. */
async function computedAccessesNear(db: Db, fileId: number): Promise<number> {
  const row = await db.get<{ n: number | null }>(
    `SELECT sum(computed_accesses) AS n FROM files WHERE id = ? OR id IN (SELECT file_id FROM imports WHERE target_file_id = ?)`,
    [fileId, fileId],
  );
  return row?.n ?? 0;
}

/** Members a receiver of unknown type can reach by name. */
const MEMBER_KINDS: ReadonlySet<string> = new Set(['field', 'constant', 'method', 'function']);
/** The languages that share one namespace of names with a language (TypeScript and JavaScript import each other). */
const SAME_NAMESPACE: Record<string, readonly string[]> = { typescript: ['typescript', 'tsx', 'javascript'], tsx: ['typescript', 'tsx', 'javascript'], javascript: ['typescript', 'tsx', 'javascript'] };

/** The languages whose names a use in `language` may mean (TypeScript and JavaScript import each other). */
export function sameNamespace(language: string): readonly string[] {
  return SAME_NAMESPACE[language] ?? [language];
}

/** How many other members of the target's languages share its name: where a use by name may have gone instead. */
async function namesakes(db: Db, targetId: number, name: string, language: string): Promise<number> {
  const row = await db.get<{ n: number }>(
    `SELECT count(*) AS n FROM symbols s JOIN files f ON f.id = s.file_id
      WHERE s.name = ? AND s.id != ? AND s.kind IN ('field', 'constant', 'method', 'function') AND f.language IN (SELECT value FROM json_each(?))`,
    [name, targetId, JSON.stringify(sameNamespace(language))],
  );
  return row?.n ?? 0;
}

/** Languages the inventory does not read whose code calls straight into a language it does: Kotlin and Scala into Java, a Vue or Svelte component into TypeScript. */
const CALLS_INTO: Record<string, readonly string[]> = {
  java: ['Kotlin', 'Scala', 'Groovy'],
  typescript: ['Vue', 'Svelte'],
  tsx: ['Vue', 'Svelte'],
  javascript: ['Vue', 'Svelte'],
};

/** The gap of the workspace's unread files in languages that can use the target (`callerLanguages`), if it has any. */
function unreadCallers(unread: readonly UnreadLanguage[], callerLanguages: readonly string[]): string | undefined {
  const callers = unread.filter((u) => callerLanguages.includes(u.language));
  if (!callers.length) return undefined;
  return `uses in ${describeUnread(callers)}, which Tenure does not index`;
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The gaps of this workspace that could hide dependents of the answer's
 * target, most telling first; never empty, so a "no dependents" answer
 * always says what could still hide them.
 */
export async function workspaceGaps(db: Db, r: Answer, placement: { readonly file_id: number; readonly language: string | null } | undefined, artifacts?: ReadonlySet<string>): Promise<string[]> {
  // Read together: their round trips overlap.
  const [ws, visible] = await Promise.all([workspaceOf(db, artifacts), visibleOutside(db, r.target.id)]);
  const target = r.target;
  const fileId = placement?.file_id;
  const language = placement?.language ?? undefined;
  const isKey = target.kind === 'key';
  const isData = DATA_KINDS.has(target.kind);
  const gaps: string[] = [];

  const listedByName = r.dependents.filter((d) => d.distance === 1 && d.provenance.source === 'tree-sitter' && d.provenance.reason.includes(UNKNOWN_RECEIVER));
  // Those the answer counted without listing them count the same.
  const byName = [...listedByName.map((d) => d.kind), ...Object.entries(r.unlisted?.directByName ?? {}).flatMap(([kind, n]) => Array<string>(n).fill(kind))];
  if (r.untypedSites) {
    // The type checker read these sites and typed the receiver `any`: a use of some `name`, of no member it can name.
    gaps.push(
      `reads and writes through receivers typed \`any\`: ${plural(r.untypedSites, 'site')} using the name \`${target.name}\` that the type checker attributes to no member (counted, not attributed: any of them may be this one)`,
    );
  }
  if (byName.length) {
    const reads = byName.filter((kind) => kind === 'read' || kind === 'write').length;
    const what = reads === byName.length ? 'reads' : reads ? 'uses' : 'calls';
    gaps.push(`${what} through receivers of unknown type (\`any\`, untyped parameters): ${plural(byName.length, 'dependent')} of this answer matched by name only, and such a receiver may mean another member of that name`);
  } else if (!isKey && !r.untypedSites && language && MEMBER_KINDS.has(target.kind)) {
    const others = await namesakes(db, target.id, target.name, language);
    if (others) {
      const where = others === 1 ? `the other \`${target.name}\`` : `one of the ${others} other \`${target.name}\`s`;
      gaps.push(`${isData ? 'reads and writes' : 'calls'} through receivers of unknown type (\`any\`, untyped parameters) that the inventory gave to ${where}`);
    }
  }

  if (isKey) {
    const computed = await db.get<{ n: number }>("SELECT count(*) AS n FROM edges WHERE tier = 'dynamic' AND dst_id IS NULL AND reason = ?", [COMPUTED_CONFIG_READ]);
    gaps.push(computed?.n ? `configuration keys read by a computed name (${plural(computed.n, 'site')}: \`config.get(name)\`, \`process.env[key]\`, \`os.environ[k]\`)` : 'configuration keys read by a computed name');
    gaps.push('readers outside the code: deployment manifests, scripts, other services reading the same key');
  } else if (fileId !== undefined && (language === 'typescript' || language === 'tsx' || language === 'javascript')) {
    const computed = await computedAccessesNear(db, fileId);
    if (computed) gaps.push(`dynamic property access (${plural(computed, 'member access', 'member accesses')} by a computed name \`obj[key]\` in its file and the files importing it)`);
  }

  // Read only for a language such code calls into: what_breaks is a hot path.
  const callersUnread = language && CALLS_INTO[language] ? unreadCallers(await unreadLanguages(db), CALLS_INTO[language]) : undefined;
  if (callersUnread) gaps.push(callersUnread);
  if (language === 'java') gaps.push('reflection targets');
  // What a container injects is an implementation, called through its interface: no reader of a constant waits on it.
  if (!isData && !ws.artifacts.has('beans') && injects(ws, language)) {
    gaps.push(language === 'java' ? 'DI wiring (no actuator beans export or Spring AOT output imported)' : 'DI wiring (which implementation a container supplies is decided at run time)');
  }
  // Generated code calls into what it was generated for; of data, only Java's generated accessors read fields.
  if (!isKey && !ws.artifacts.has('bytecode') && (language === 'java' || !isData)) gaps.push(language === 'java' ? 'generated code (no class files imported)' : 'generated code');
  if (visible) gaps.push(isKey ? 'readers in other repositories' : isData ? 'readers and writers outside this workspace' : 'callers outside this workspace');
  if (!isData && !ws.artifacts.has('traces') && servesOthers(ws)) gaps.push('callers in other services and through message topics (no traces imported)');
  if (!gaps.length) gaps.push('uses whose target is built at run time from strings');
  return gaps;
}
