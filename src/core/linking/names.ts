import { stem } from '../../shared/stem.js';

/*
 * How names are compared across code and prose: identifiers split into words
 * (RetryPolicy → retry policy, MAX_ATTEMPTS → max attempts), light stemming
 * (retries → retry), articles and filler words dropped. Shared by the offline
 * extractor (to find symbol names in text) and the linker.
 */

/** A code identifier, possibly qualified: RetryPolicy, SettlementService.retry, MAX_ATTEMPTS, settle_batch, a/b.C#m. */
const IDENTIFIER_PATH = /^[A-Za-z_$][\w$]*(?:(?:\.|#|::|\/)[A-Za-z_$][\w$]*)*$/;

/** Whether a name is shaped like code rather than prose (a human would not write it in a sentence as is). */
export function isCodeShaped(name: string): boolean {
  const n = name.trim().replace(/\(\)$/, '');
  if (!IDENTIFIER_PATH.test(n)) return false;
  if (/[.#/]|::/.test(n)) return /[A-Za-z]/.test(n) && !/^(e\.g|i\.e|etc)$/i.test(n);
  if (n.includes('_')) return /[A-Za-z]/.test(n);
  // camelCase or PascalCase with at least two humps, or lowerCamel.
  return /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/.test(n) || /^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(n) || /^[A-Z][a-z0-9]*[A-Z][A-Za-z0-9]*$/.test(n) && /[a-z]/.test(n);
}

/**
 * Words of an identifier: `RetryPolicy` → [retry, policy]; `MAX_ATTEMPTS` → [max, attempts]; `HTTPServer` → [http, server];
 * `NormalizeTenantIDs` → [normalize, tenant, ids]: a plural initialism keeps its `s` (not `I`, `Ds`).
 */
export function identifierWords(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z](?:[a-rt-z]|s[a-z]))/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  // Only camel case runs initialisms together: a constant's words (MAX_RADIO_TIMEOUT) are whole.
  return (/[a-z]/.test(name) ? words.flatMap(initialismRun) : words).map((w) => w.toLowerCase());
}

/**
 * Well-known initialisms of three letters or more (Go's lint list and a few of the web's and of cryptography's):
 * camel case writes them in capitals side by side, with nothing to tell where one ends (`defaultACMEHTTPTimeout`).
 */
const INITIALISMS = new Set(
  'ACL API ASCII AWS CPU CSR CSS CSV DNS EOF GRPC GUID HTML HTTP HTTPS JSON JWT LHS PEM QPS RAM RHS RPC SDK SLA SMTP SQL SSH SSO TCP TLS TTL UDP UID URI URL UUID XML XMPP XSRF XSS YAML'.split(' '),
);

/** A run of capitals in a camel-case name, split where it starts or ends with a known initialism: ACMEHTTP01 → ACME, HTTP01; APIURL → API, URL. */
function initialismRun(word: string): string[] {
  const m = /^([A-Z]+)(\d*)$/.exec(word);
  if (!m || m[1]!.length < 5 || INITIALISMS.has(m[1]!)) return [word];
  const run = m[1]!;
  for (let k = Math.min(5, run.length - 2); k >= 3; k--) {
    if (INITIALISMS.has(run.slice(-k))) return [...initialismRun(run.slice(0, -k)), run.slice(-k) + m[2]];
    if (INITIALISMS.has(run.slice(0, k))) return [run.slice(0, k), ...initialismRun(run.slice(k) + m[2])];
  }
  return [word];
}

/** Words dropped when comparing phrases: articles, possessives, filler. */
export const FILLER = new Set(
  'a an the this that these those our their its his her my your we they it of for to in on at by with from and or our'.split(' '),
);

/** Stemmed content words of a phrase or identifier, in order. */
export function phraseTokens(text: string): string[] {
  return identifierWords(text.replace(/'s\b/g, ''))
    .filter((w) => !FILLER.has(w))
    .map(stem);
}

/** The last segment of a qualified identifier, without call parentheses. */
export function lastSegment(name: string): string {
  const parts = name.replace(/\(.*\)$/, '').split(/\.|#|::|\//).filter(Boolean);
  return parts[parts.length - 1] ?? name;
}

/** Segments of a qualified identifier: `SettlementService.retry()` → [SettlementService, retry]. */
export function segments(name: string): string[] {
  return name
    .replace(/\(\S*?\)/g, '')
    .split(/\.|#|::|\//)
    .map((s) => s.replace(/`/g, '').trim())
    .filter(Boolean);
}

const REF = /^(adr|rfc|inc|incident|pm|pr|issue)?\s*[-#]?\s*0*(\d+)$/i;

/**
 * The key that merges mentions of one entity across chunks and documents:
 *   document handles  ADR-0007, adr 7 → ref:adr-7; PR #142, #142 → ref:#142
 *   code-shaped names RetryPolicy.MAX_ATTEMPTS → code:RetryPolicy.MAX_ATTEMPTS (case kept)
 *   prose             "the Settlement Services" → settlement service
 */
export function entityKey(name: string): string {
  const n = name.trim().replace(/^[`'"“‘]+|[`'"”’.,;:]+$/g, '').trim();
  const ref = refKey(n);
  if (ref) return ref;
  const code = n.replace(/\(\)$/, '');
  if (isCodeShaped(code)) return `code:${code}`;
  const words = n
    .replace(/['’]s\b/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  while (words.length > 1 && FILLER.has(words[0]!)) words.shift();
  if (words.length) words[words.length - 1] = stem(words[words.length - 1]!);
  return words.join(' ');
}

/** `ADR-0007` → ref:adr-7, `PR #142` → ref:#142, `INC-2041` → ref:inc-2041; undefined when not a handle. */
function refKey(text: string): string | undefined {
  const m = REF.exec(text.trim());
  if (!m || !m[1] && !text.trim().startsWith('#')) return undefined;
  const prefix = (m[1] ?? '').toLowerCase();
  const num = String(Number(m[2]));
  if (prefix === 'pr' || prefix === 'issue' || prefix === '') return `ref:#${num}`;
  if (prefix === 'incident') return `ref:inc-${num}`;
  return `ref:${prefix}-${num}`;
}
