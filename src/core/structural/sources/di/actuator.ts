import { TenureError } from '../../../../shared/errors.js';
import { concreteType, type Bean, type BeanExport } from './model.js';

/**
 * Spring Boot's `/actuator/beans` export. Two shapes are read:
 *
 *   Boot 2 and 3:  { "contexts": { "<id>": { "beans": { "<name>": { aliases, scope, type, resource, dependencies } }, "parentId" } } }
 *   Boot 1:        [ { "context", "parent", "beans": [ { bean, aliases, scope, type, resource, dependencies } ] } ]
 *
 * Profiles are not part of the export; a top-level `activeProfiles` (as
 * `/actuator/env` reports it, if the two were saved together) is read, or the
 * importer is told. A bean entry that cannot be read is reported and skipped.
 */

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** JSON.parse with the position of a syntax error turned into line and column. */
export function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!;
    const at = /position (\d+)/.exec(msg)?.[1] ?? jsonErrorOffset(text);
    let where = '';
    if (at !== undefined) {
      const upto = text.slice(0, Number(at));
      const line = upto.split('\n').length;
      where = ` at line ${line}, column ${upto.length - upto.lastIndexOf('\n')}`;
    }
    throw new TenureError('invalid-input', `${label} is not valid JSON${where} (${msg}). Nothing was imported from it; the previous import, if any, is unchanged.`, undefined, { cause: e });
  }
}

export function looksLikeActuatorBeans(doc: unknown): boolean {
  if (isRecord(doc) && isRecord(doc.contexts)) return Object.values(doc.contexts).some((c) => isRecord(c) && isRecord(c.beans));
  return Array.isArray(doc) && doc.length > 0 && doc.every((c) => isRecord(c) && Array.isArray(c.beans) && 'context' in c);
}

export function parseActuatorBeans(doc: unknown, label: string): BeanExport {
  const warnings: string[] = [];
  const beans: Bean[] = [];
  const read = (name: string, entry: unknown, context: string) => {
    if (!isRecord(entry)) {
      warnings.push(`${context}/${name}: not an object; skipped`);
      return;
    }
    const raw = typeof entry.type === 'string' ? entry.type : null;
    if (!raw) warnings.push(`${context}/${name}: no type; kept without a class (its dependencies still count)`);
    const ct = raw ? concreteType(raw) : { type: null };
    if (raw && ct.proxy && !ct.type) warnings.push(`${context}/${name}: a ${ct.proxy} (${raw}); its concrete class is not in the export`);
    beans.push({
      name,
      aliases: strings(entry.aliases),
      type: ct.type,
      ...(raw && raw !== ct.type ? { rawType: raw } : {}),
      ...(typeof entry.scope === 'string' ? { scope: entry.scope } : {}),
      context,
      dependencies: strings(entry.dependencies),
      ...(typeof entry.resource === 'string' ? { resource: entry.resource } : {}),
    });
  };
  let profiles: string[] = [];
  if (isRecord(doc) && isRecord(doc.contexts)) {
    profiles = strings(doc.activeProfiles ?? doc.profiles);
    for (const [context, c] of Object.entries(doc.contexts)) {
      if (!isRecord(c) || !isRecord(c.beans)) {
        warnings.push(`context ${context}: no beans object; skipped`);
        continue;
      }
      for (const [name, entry] of Object.entries(c.beans)) read(name, entry, context);
    }
  } else if (Array.isArray(doc)) {
    for (const c of doc) {
      if (!isRecord(c) || !Array.isArray(c.beans)) continue;
      const context = typeof c.context === 'string' ? c.context : 'application';
      for (const entry of c.beans) {
        if (isRecord(entry) && typeof entry.bean === 'string') read(entry.bean, entry, context);
        else warnings.push(`context ${context}: a bean without a name; skipped`);
      }
    }
  } else {
    throw new TenureError('invalid-input', `${label} is JSON but not an actuator beans export (expected "contexts" → "<id>" → "beans", as GET /actuator/beans returns).`);
  }
  if (!beans.length) throw new TenureError('invalid-input', `${label} holds no beans: nothing to import.`);
  return { format: 'actuator-beans', beans, profiles, warnings };
}

/** Fetches `/actuator/beans` from a running application. */
export async function fetchActuatorBeans(url: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ text: string; at: number }> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new Error('timeout')), options.timeoutMs ?? 15_000);
  options.signal?.addEventListener('abort', () => ctrl.abort(options.signal?.reason));
  try {
    const res = await fetch(url, { headers: { accept: 'application/vnd.spring-boot.actuator.v3+json, application/json' }, signal: ctrl.signal });
    if (!res.ok) {
      throw new TenureError('io', `${url} answered ${res.status} ${res.statusText}. Is the beans endpoint exposed (management.endpoints.web.exposure.include=beans) and reachable from here?`);
    }
    const date = Date.parse(res.headers.get('date') ?? '');
    return { text: await res.text(), at: Number.isFinite(date) ? date : Date.now() };
  } catch (e) {
    if (TenureError.is(e)) throw e;
    throw new TenureError('io', `Cannot fetch ${url}: ${(e as Error).message}. Save the export to a file (curl ${url} > beans.json) and import the file instead.`, undefined, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Offset of the first JSON syntax error (V8's messages no longer always say),
 * by a strict recursive-descent reading; undefined if the text is valid.
 */
function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r\ufeff'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (c === '"') return str();
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!lit) fail();
    i += lit![0].length;
  };
  const str = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  try {
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (at) {
    return typeof at === 'number' ? at : undefined;
  }
}
