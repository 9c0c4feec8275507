import { ACC, hasFlag, type Annotation, type AnnotationValue } from '../bytecode/classFile.js';
import type { JvmType } from '../bytecode/analysis.js';
import type { SourceIndex, SourceSymbol } from '../bytecode/sourceIndex.js';
import type { SourceText } from '../bytecode/sourceText.js';

/**
 * Which symbol serves an HTTP route, and which consumes a message
 * destination, so that a span carrying `http.route` or a messaging
 * destination but no code attributes still lands on the method that handles
 * it. Read from class-file annotations when there are class files (Spring
 * MVC, JAX-RS, Spring Kafka/AMQP/JMS listeners), else from the source text
 * (the same annotations; Python web decorators; Express-style route calls).
 */

export interface RouteEntry {
  /** Upper-case HTTP method; null for any. */
  readonly method: string | null;
  /** Normalised template: `/clearing/instructions/{}/submit`. */
  readonly route: string;
  readonly raw: string;
  readonly sid: string;
  readonly how: string;
}

export interface ListenerEntry {
  readonly destination: string;
  /** Consumer group (Kafka `groupId`), when the listener names one. */
  readonly group?: string;
  readonly sid: string;
  readonly how: string;
}

export interface RouteTable {
  readonly routes: RouteEntry[];
  readonly listeners: ListenerEntry[];
}

/** `/a/{id}/b/`, `/a/:id/b`, `/a/<int:id>/b` → `/a/{}/b`. */
export function normaliseRoute(route: string): string {
  let r = route.trim().replace(/^[a-z]+:\/\/[^/]+/i, '').split('?')[0]!;
  r = r.replace(/\{[^}]*\}/g, '{}').replace(/:[A-Za-z_]\w*/g, '{}').replace(/<[^>]*>/g, '{}');
  if (!r.startsWith('/')) r = '/' + r;
  r = r.replace(/\/{2,}/g, '/');
  return r.length > 1 ? r.replace(/\/$/, '') : r;
}

function join(prefix: string, route: string): string {
  return normaliseRoute(`${prefix.replace(/\/$/, '')}/${route.replace(/^\//, '')}`);
}

function strings(v: AnnotationValue | undefined): string[] {
  if (!v) return [];
  if (v.kind === 'const') return [String(v.value)];
  if (v.kind === 'array') return v.values.flatMap(strings);
  if (v.kind === 'enum') return [v.value];
  return [];
}

const SPRING_WEB = 'Lorg/springframework/web/bind/annotation/';
const VERBS: Record<string, string> = { GetMapping: 'GET', PostMapping: 'POST', PutMapping: 'PUT', DeleteMapping: 'DELETE', PatchMapping: 'PATCH' };
const LISTENERS: Record<string, readonly string[]> = {
  'Lorg/springframework/kafka/annotation/KafkaListener;': ['topics'],
  'Lorg/springframework/amqp/rabbit/annotation/RabbitListener;': ['queues'],
  'Lorg/springframework/jms/annotation/JmsListener;': ['destination'],
};

function mapping(a: Annotation): { method: string | null; paths: string[] } | undefined {
  if (!a.type.startsWith(SPRING_WEB)) {
    if (a.type === 'Ljavax/ws/rs/Path;' || a.type === 'Ljakarta/ws/rs/Path;') return { method: null, paths: strings(a.values.get('value')) };
    return undefined;
  }
  const simple = a.type.slice(SPRING_WEB.length, -1);
  const paths = [...strings(a.values.get('value')), ...strings(a.values.get('path'))];
  if (simple === 'RequestMapping') return { method: strings(a.values.get('method'))[0] ?? null, paths: paths.length ? paths : [''] };
  if (VERBS[simple]) return { method: VERBS[simple]!, paths: paths.length ? paths : [''] };
  return undefined;
}

const JAXRS_VERBS = /^L(javax|jakarta)\/ws\/rs\/(GET|POST|PUT|DELETE|PATCH|HEAD);$/;

export function routesFromBytecode(types: Iterable<JvmType>): RouteTable {
  const routes: RouteEntry[] = [];
  const listeners: ListenerEntry[] = [];
  for (const t of types) {
    if (t.status !== 'source' && t.status !== 'generated') continue;
    const prefixes = t.annotations.map(mapping).filter((m): m is NonNullable<typeof m> => !!m).flatMap((m) => m.paths);
    for (const m of t.methods) {
      const sid = m.anchor && 'sid' in m.anchor ? m.anchor.sid : undefined;
      // javac copies annotations onto bridge methods: the method people wrote is the handler.
      if (!sid || hasFlag(m.access, ACC.BRIDGE) || hasFlag(m.access, ACC.SYNTHETIC)) continue;
      for (const a of m.annotations) {
        const mp = mapping(a);
        if (mp) {
          const verb = mp.method ?? m.annotations.map((x) => JAXRS_VERBS.exec(x.type)?.[2]).find(Boolean) ?? null;
          for (const prefix of prefixes.length ? prefixes : ['']) {
            for (const p of mp.paths) routes.push({ method: verb, route: join(prefix, p), raw: `${prefix}${p}`, sid, how: `@${a.type.slice(a.type.lastIndexOf('/') + 1, -1)} on ${t.qname}.${m.name} (class file)` });
          }
        }
        const keys = LISTENERS[a.type];
        if (keys) {
          const group = strings(a.values.get('groupId'))[0];
          for (const k of keys) for (const d of strings(a.values.get(k))) listeners.push({ destination: d, ...(group ? { group } : {}), sid, how: `@${a.type.slice(a.type.lastIndexOf('/') + 1, -1)}(${k} = "${d}"${group ? `, groupId = "${group}"` : ''}) on ${t.qname}.${m.name} (class file)` });
        }
      }
    }
  }
  return { routes, listeners };
}

/** Annotation or decorator lines written above a definition (up to 12 lines, through blank lines and comments). */
function decorationsAbove(text: SourceText, s: SourceSymbol): string {
  const lines = text.lines(s.path) ?? [];
  const out: string[] = [lines[s.line - 1] ?? ''];
  for (let i = s.line - 2; i >= 0 && i >= s.line - 13; i--) {
    const l = lines[i]!.trim();
    if (!l || l.startsWith('//') || l.startsWith('*') || l.startsWith('/*') || l.startsWith('#')) continue;
    if (l.startsWith('@') || /^[\w.]+\s*\)?\s*[,)]?$/.test(l) || l.endsWith(',') || l.endsWith('(')) out.unshift(l);
    else break;
  }
  return out.join(' ');
}

function firstString(args: string): string | undefined {
  return /["'`]([^"'`]*)["'`]/.exec(args)?.[1];
}

export function routesFromSource(index: SourceIndex, text: SourceText, symbols: Iterable<SourceSymbol>): RouteTable {
  const routes: RouteEntry[] = [];
  const listeners: ListenerEntry[] = [];
  const all = [...symbols];
  const prefixOf = new Map<string, string>();
  for (const s of all) {
    if (s.kind !== 'class') continue;
    const deco = decorationsAbove(text, s);
    const m = /@(?:RequestMapping|Path|Controller)\s*\(\s*(?:value\s*=\s*|path\s*=\s*)?\{?\s*["'`]([^"'`]*)["'`]/.exec(deco);
    if (m) prefixOf.set(s.sid, m[1]!);
  }
  for (const s of all) {
    if (s.kind !== 'method' && s.kind !== 'function') continue;
    const deco = decorationsAbove(text, s);
    if (!deco.includes('@')) continue;
    const prefix = s.parentSid ? (prefixOf.get(s.parentSid) ?? '') : '';
    // Spring MVC, JAX-RS, NestJS, FastAPI/Flask-style decorators.
    for (const m of deco.matchAll(/@(?:[\w.]+\.)?(Get|Post|Put|Delete|Patch|Request)(?:Mapping)?\s*\(([^)]*)\)/g)) {
      const verb = m[1] === 'Request' ? (/RequestMethod\.(\w+)/.exec(m[2]!)?.[1] ?? null) : m[1]!.toUpperCase();
      routes.push({ method: verb, route: join(prefix, firstString(m[2]!) ?? ''), raw: m[0], sid: s.sid, how: `${m[0]} above ${s.qname} (source)` });
    }
    for (const m of deco.matchAll(/@[\w.]*\.(get|post|put|delete|patch|route)\s*\(([^)]*)\)/g)) {
      const verb = m[1] === 'route' ? (/methods\s*=\s*\[\s*["'](\w+)/.exec(m[2]!)?.[1]?.toUpperCase() ?? null) : m[1]!.toUpperCase();
      routes.push({ method: verb, route: join(prefix, firstString(m[2]!) ?? ''), raw: m[0], sid: s.sid, how: `${m[0]} above ${s.qname} (source)` });
    }
    if (/@(?:GET|POST|PUT|DELETE|PATCH)\b/.test(deco)) {
      const p = /@Path\s*\(\s*"([^"]*)"/.exec(deco)?.[1];
      if (p !== undefined) routes.push({ method: /@(GET|POST|PUT|DELETE|PATCH)\b/.exec(deco)![1]!, route: join(prefix, p), raw: p, sid: s.sid, how: `@Path("${p}") above ${s.qname} (source)` });
    }
    for (const m of deco.matchAll(/@(KafkaListener|RabbitListener|JmsListener)\s*\(([^)]*)\)/g)) {
      const group = /groupId\s*=\s*"([^"]+)"/.exec(m[2]!)?.[1];
      const dests = /(?:topics|queues|destination)\s*=\s*\{?([^}=]*)/.exec(m[2]!)?.[1] ?? m[2]!;
      for (const d of [...dests.matchAll(/"([^"]+)"/g)].map((x) => x[1]!)) listeners.push({ destination: d, ...(group ? { group } : {}), sid: s.sid, how: `@${m[1]} above ${s.qname} (source)` });
    }
  }
  // Express-style route tables: app.get('/x', handler).
  const files = new Set(all.filter((s) => s.language === 'typescript' || s.language === 'javascript' || s.language === 'tsx').map((s) => s.path));
  for (const f of files) {
    (text.lines(f) ?? []).forEach((line) => {
      const m = /\b\w+\.(get|post|put|delete|patch)\(\s*['"`]([^'"`]+)['"`]\s*,[^)]*?\b(\w+)\s*\)\s*;?\s*$/.exec(line);
      if (!m) return;
      const handler = index.inFile(f).find((s) => s.name === m[3] && (s.kind === 'function' || s.kind === 'method'));
      if (handler) routes.push({ method: m[1]!.toUpperCase(), route: normaliseRoute(m[2]!), raw: m[2]!, sid: handler.sid, how: `${m[1]}('${m[2]}', ${m[3]}) in ${f} (source)` });
    });
  }
  return { routes, listeners };
}
