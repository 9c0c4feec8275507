import { TenureError } from '../../shared/errors.js';
import { relatedByIntent } from '../knowledge/intent.js';
import type { SymbolRef } from '../model/symbolRef.js';
import { LINK_TIERS, type LinkTier } from '../model/tiers.js';
import type { Db } from '../store/db.js';
import { isFileName, modulesAt, resolveSymbols, symbolBySid, symbolsNamedLike } from '../structural/lookup.js';
import { byCodeUnits } from '../../shared/order.js';

/*
 * Linking a question's concepts to symbols by name, for when the knowledge
 * memory has nothing to say (not indexed yet) or no concept matched there.
 * The link tiers keep their meaning:
 *   exact  — an identifier in the question names exactly one symbol;
 *   strong — a phrase in the question is one symbol's whole name ("retry policy" → RetryPolicy);
 *   weak   — a phrase matches several symbols, or a one-word name together with a word of its container:
 *            the whole set is returned, none is chosen.
 * A concept that matches nothing is returned unresolved, never forced.
 */

export interface ConceptLink {
  readonly symbol: SymbolRef;
  readonly tier: LinkTier;
  /** The words of the question that matched. */
  readonly phrase: string;
  readonly why: string;
  /** Share of the symbol's qualified name found in the question, for ordering within a tier. */
  readonly score: number;
  /** Resolved from an identifier the question writes (`FooBar`, `Foo.bar`), not linked from its phrases. */
  readonly identifier?: boolean;
}

const STOP = new Set(
  'a an the i im am is are was were be been being it its this that these those to of in on at for from by with about into over as and or but not no nor so if then than too very can could should would will shall may might must do does did done doing have has had having what which who whom whose why how when where there here any anyone anything some someone something every each all both few more most other such only own same just also before after again once now ever tried try trying change changing changed modify modifying touch touching update updating edit editing break breaks breaking broke happen happened happens work works we our us you your my me he she they them their one two three four five six seven eight nine ten first last next ago going gonna want wants need needs like'.split(
    ' ',
  ),
);

/**
 * The concepts a question names: maximal runs of content words within a
 * clause ("I am about to change the settlement retry policy. What breaks…"
 * → "settlement retry policy"), plus any code-like identifiers.
 */
export function conceptPhrases(question: string, max = 4): string[] {
  const out: string[] = [];
  for (const clause of question.split(/[.?!;:,()\n]+/)) {
    let run: string[] = [];
    const flush = () => {
      if (run.length) out.push(run.join(' '));
      run = [];
    };
    for (const raw of clause.split(/\s+/)) {
      const w = raw.replace(/^[^A-Za-z0-9_`$]+|[^A-Za-z0-9_`$]+$/g, '');
      if (w && (/[A-Z].*[a-z]|[._`]/.test(w.slice(1)) || (w.length >= 3 && !STOP.has(w.toLowerCase())))) run.push(w.replace(/`/g, ''));
      else flush();
    }
    flush();
  }
  return [...new Set(out)].sort((a, b) => b.split(' ').length - a.split(' ').length).slice(0, max);
}

export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function containsPhrase(hay: readonly string[], needle: readonly string[]): boolean {
  if (!needle.length || needle.length > hay.length) return false;
  for (let i = 0; i + needle.length <= hay.length; i++) if (needle.every((w, j) => hay[i + j] === w || hay[i + j] === `${w}s` || `${hay[i + j]}s` === w)) return true;
  return false;
}

/** Code-like tokens: `SettlementService.retry`, RetryPolicy, retry_policy, src/a.ts:12. */
export function identifiers(question: string): string[] {
  const out = new Set<string>();
  // A file the question writes is a place, not a name (writtenFiles): `index.js` is not the member `js` of `index`.
  const text = withoutFiles(question);
  for (const m of text.matchAll(/`([^`]+)`/g)) if (m[1]!.trim()) out.add(m[1]!.trim());
  // A name with its parameters, which say which overload (`Service.transfer(DataFlowStartMessage request, DataSink sink)`),
  // dotted names, camelCase, PascalCase with a second capital, a name with a leading underscore (`_all_updates`, `__init__`:
  // Python's private names, whole), snake_case, UPPER_SNAKE (`MAX_RETRIES`) and path:line.
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*\([^()]*\)|[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)+|(?<![\w$])_+[A-Za-z0-9][\w$]*|[a-z]+[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[a-z0-9]+_[a-z0-9_]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b|[\w./-]+\.\w+:\d+/g)) out.add(m[0]);
  return [...out];
}

/** The files a question writes, by name or path (`src/i18n/index.js`, `sessions-request.handler.js`): never a `path:line`. */
export function writtenFiles(question: string): string[] {
  const out = new Set<string>();
  for (const m of question.matchAll(/(?<![\w./@:-])[\w./@-]+/g)) {
    const token = m[0].replace(/\.+$/, '');
    if (question[m.index + m[0].length] !== ':' && isFileName(token)) out.add(token);
  }
  return [...out];
}

/** The question with the files it writes taken out: their dots do not end a clause, nor their words make a phrase. */
export function withoutFiles(question: string): string {
  return writtenFiles(question).reduce((q, f) => q.split(f).join(' '), question);
}

/**
 * The question's subject when it is one plain lower-case word ("Why does
 * messages work this way?" → `messages`): the first word of the question
 * that is not a stop word, standing alone (the next word is a stop word or
 * the clause ends), not already code-like. Such a word may be a symbol's
 * whole name — a constant, a function — and is tried as one before the
 * question's phrases are linked; a word that names no symbol stays a word.
 */
export function subjectWord(question: string): string | undefined {
  // A dot ends a clause only where a word does not follow it: `state.starting` is one name, not the end of "state".
  const clause = withoutFiles(question).split(/(?:[?!;:,()\n]|\.(?![\w$]))+/).find((c) => c.trim()) ?? '';
  const toks = clause
    .split(/\s+/)
    .map((raw) => raw.replace(/^[^A-Za-z0-9_`$]+|[^A-Za-z0-9_`$]+$/g, ''))
    .filter(Boolean);
  const i = toks.findIndex((w) => !STOP.has(w.toLowerCase()));
  const w = toks[i];
  if (!w || !/^[a-z][a-z0-9]{2,}$/.test(w)) return undefined;
  const after = toks[i + 1];
  return after === undefined || STOP.has(after.toLowerCase()) ? w : undefined;
}

/**
 * Names the question writes just before a file it names ("Why does Document in Document.ts …"): a capitalised word
 * there is a name to look for in that file, as a lower-case one is the question's subject (`subjectWord`).
 */
export function namesBeforeFiles(question: string): string[] {
  const out = new Set<string>();
  for (const f of writtenFiles(question)) {
    const at = question.indexOf(f);
    const m = /([A-Za-z_$][\w$]*)`?\s+(?:in|of|from)\s+`?$/.exec(question.slice(0, at));
    if (m && !STOP.has(m[1]!.toLowerCase())) out.add(m[1]!);
  }
  return [...out];
}

export async function linkByName(db: Db, question: string, root: string): Promise<{ links: ConceptLink[]; unresolved: string[] }> {
  const links = new Map<string, ConceptLink>();
  const add = (l: ConceptLink) => {
    const prev = links.get(l.symbol.sid);
    const rank = (t: LinkTier) => ['exact', 'strong', 'weak', 'unresolved'].indexOf(t);
    if (!prev || rank(l.tier) < rank(prev.tier) || (l.tier === prev.tier && l.score > prev.score)) links.set(l.symbol.sid, prev?.identifier ? { ...l, identifier: true } : l);
  };
  const unresolved: string[] = [];

  // The files the question writes narrow its names to what they declare ("execute in sessions-request.handler.js").
  const files = new Map<string, SymbolRef[]>();
  for (const f of writtenFiles(question)) {
    const modules = await modulesAt(db, f, { root });
    if (modules.length) files.set(f, modules);
    else unresolved.push(f);
  }
  const inFiles = new Map([...files].flatMap(([f, modules]) => modules.map((m) => [m.path, f] as const)));
  const written = [...new Set([...identifiers(question), ...namesBeforeFiles(question).filter((n) => !/^[a-z]/.test(n))])];
  /** Identifiers that named exactly one symbol: their words are that symbol's, not more of the question to guess from. */
  const exactIds: string[] = [];
  const word = subjectWord(question);
  // The plain subject word is tried only where the question does not already write it as code.
  const subject = word && !written.includes(word) ? word : undefined;
  for (const id of subject ? [...written, subject] : written) {
    const asWord = id === subject;
    try {
      const resolved = await resolveSymbols(db, id, { root });
      // The plain word counts only where it is a symbol's whole name (`messages`), never a file or a part of a name.
      const found = asWord ? resolved.filter((f) => f.name === id && f.kind !== 'module') : resolved;
      const nonModule = found.filter((f) => f.kind !== 'module');
      const named = nonModule.length ? nonModule : found;
      const placed = named.filter((s) => inFiles.has(s.path));
      const list = placed.length ? placed : named;
      const where = placed.length ? ` in ${[...new Set(placed.map((s) => inFiles.get(s.path)!))].join(', ')}` : '';
      const said = asWord ? `"${id}"${where}, the question's subject,` : `\`${id}\`${where}`;
      if (list.length === 1) exactIds.push(id);
      for (const s of list) {
        add({
          symbol: s,
          tier: list.length === 1 ? 'exact' : 'weak',
          phrase: id,
          why: asWord
            ? list.length === 1 ? `${said} is its whole name` : `${said} is the whole name of ${list.length} symbols; all are returned`
            : list.length === 1 ? `${said} names it verbatim` : `${said} names ${list.length} symbols; all are returned`,
          score: 1,
          identifier: true,
        });
      }
    } catch (e) {
      if (TenureError.is(e, 'not-indexed')) throw e;
      if (!asWord) unresolved.push(id);
    }
  }
  // A file no name of the question was found in is itself the subject: its module.
  for (const [f, modules] of files) {
    if ([...links.values()].some((l) => l.identifier && inFiles.get(l.symbol.path) === f)) continue;
    for (const m of modules) {
      add({ symbol: m, tier: modules.length === 1 ? 'exact' : 'weak', phrase: f, why: modules.length === 1 ? `\`${f}\` is its file` : `\`${f}\` ends the paths of ${modules.length} files; all are returned`, score: 1, identifier: true });
    }
  }

  // `defaultACMEHTTPTimeout`, found, is not also the words "default" and "timeout" to match keys named `default`
  // under a `timeout` by: what the question says besides its names is what is left to link.
  const prose = exactIds.reduce((q, id) => q.replaceAll(id, ' '), withoutFiles(question));
  const qWords = words(prose);
  const content = [...new Set(qWords.filter((w) => w.length >= 3 && !STOP.has(w)))];
  if (content.length) {
    const rows = await symbolsNamedLike(db, content);
    const phraseHits = new Map<string, Awaited<ReturnType<typeof symbolsNamedLike>>>();
    const oneWordHits: { row: Awaited<ReturnType<typeof symbolsNamedLike>>[number]; container: string }[] = [];
    for (const r of rows) {
      const nw = words(r.name);
      if (!containsPhrase(qWords, nw)) continue;
      if (nw.length >= 2) {
        const key = nw.join(' ');
        phraseHits.set(key, [...(phraseHits.get(key) ?? []), r]);
      } else if (r.container) {
        const cw = words(r.container).filter((w) => !STOP.has(w));
        const shared = cw.filter((w) => content.includes(w));
        if (shared.length && !STOP.has(nw[0]!)) oneWordHits.push({ row: r, container: shared.join(' ') });
      }
    }
    for (const [phrase, hits] of phraseHits) {
      for (const r of hits) {
        const qn = words(r.qname.split('.').slice(-2).join('.'));
        const score = qn.filter((w) => qWords.includes(w)).length / qn.length;
        add({
          symbol: r,
          tier: hits.length === 1 ? 'strong' : 'weak',
          phrase,
          why: hits.length === 1 ? `"${phrase}" is its whole name` : `"${phrase}" is the name of ${hits.length} symbols; all are returned`,
          score,
        });
      }
    }
    for (const { row: r, container } of oneWordHits) {
      const qn = words(r.qname.split('.').slice(-2).join('.'));
      add({
        symbol: r,
        tier: 'weak',
        phrase: `${container} ${r.name}`,
        why: `"${r.name}" with "${container}" from its container ${r.container}: a guess by name, verify`,
        score: qn.filter((w) => qWords.includes(w)).length / qn.length,
      });
    }
  }
  const rank = (t: LinkTier) => ['exact', 'strong', 'weak', 'unresolved'].indexOf(t);
  // Among guesses, prefer those next to what the question names outright: same folder as an exact or strong link.
  const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/') + 1);
  const anchored = new Set([...links.values()].filter((l) => l.tier === 'exact' || l.tier === 'strong').map((l) => dirOf(l.symbol.path)));
  for (const [sid, l] of links) if (l.tier === 'weak' && anchored.has(dirOf(l.symbol.path))) links.set(sid, { ...l, score: l.score + 0.25, why: `${l.why}; next to ${[...links.values()].find((x) => x.tier !== 'weak' && dirOf(x.symbol.path) === dirOf(l.symbol.path))?.symbol.qname ?? 'a stronger link'}` });
  const list = [...links.values()].map((l) => ({ ...l, symbol: { id: l.symbol.id, sid: l.symbol.sid, name: l.symbol.name, qname: l.symbol.qname, kind: l.symbol.kind, path: l.symbol.path, line: l.symbol.line } }));
  list.sort((a, b) => rank(a.tier) - rank(b.tier) || b.score - a.score || byCodeUnits(a.symbol.qname, b.symbol.qname));
  return { links: list, unresolved };
}

/**
 * The knowledge memory's links for each concept the question names
 * (related_by_intent): tiered symbols, and the concepts no symbol denotes.
 */
export async function linkByKnowledge(db: Db, phrases: readonly string[]): Promise<{ links: ConceptLink[]; unresolved: string[]; knowledgeIndexed: boolean }> {
  const links = new Map<string, ConceptLink>();
  const unresolved: string[] = [];
  let knowledgeIndexed = false;
  const rank = (t: LinkTier) => LINK_TIERS.indexOf(t);
  for (const phrase of phrases) {
    let r;
    try {
      r = await relatedByIntent(db, phrase, 15);
    } catch (e) {
      if (TenureError.is(e, 'invalid-input') || TenureError.is(e, 'symbol-not-found')) continue;
      throw e;
    }
    if (r.knowledgeIndexed) knowledgeIndexed = true;
    for (const u of r.unresolved) unresolved.push(u.name);
    for (const s of r.symbols) {
      if (s.tier === 'unresolved') continue;
      const symbol = await symbolBySid(db, s.sid);
      if (!symbol) continue;
      const prev = links.get(s.sid);
      if (!prev || rank(s.tier) < rank(prev.tier)) links.set(s.sid, { symbol, tier: s.tier, phrase, why: s.reasons[0] ?? `linked by related_by_intent (${s.tier})`, score: 1 });
    }
  }
  return { links: [...links.values()].sort((a, b) => rank(a.tier) - rank(b.tier)), unresolved: [...new Set(unresolved)], knowledgeIndexed };
}
