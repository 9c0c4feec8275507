/*
 * A decision record's own status: whether what it says is in force. An
 * answer that quotes a superseded ADR, a rejected proposal or a draft as the
 * reason for the code misleads unless it says so, and ranks it below a
 * record in force. The status is read where the templates keep it — YAML
 * front matter, a metadata line at the head (`- Status: superseded by
 * [ADR-0012](…)`, `* status: **accepted**`, `:Status: Accepted`), a Status
 * section, a metadata table — and only a value that names one state is
 * taken: a template's list of choices, a sentence about something else's
 * status, or an unknown word gives no status at all.
 */

/** accepted: in force (accepted, approved, implemented…); the others are not, or not yet. */
export type RecordState = 'accepted' | 'proposed' | 'rejected' | 'superseded' | 'deprecated';

export interface RecordStatus {
  readonly state: RecordState;
  /** As the record says it, in plain words and short: `superseded by ADR-0012`, `draft`, `rejected in favour of ADR 111`. */
  readonly said: string;
}

/** The words each state is said with, first word of the value (a successor named after "by" or "in favour of" is kept in `said`). */
const STATE_WORDS: readonly [RecordState, RegExp][] = [
  ['superseded', /^(superseded|superceded|replaced|succeeded)\b/],
  ['deprecated', /^(deprecated|obsolete|outdated|defunct|retired|reverted|archived|sunset|no longer (?:valid|in force|relevant))\b/],
  ['rejected', /^(rejected|declined|withdrawn|abandoned|dropped|cancell?ed|not accepted|won'?t do)\b/],
  ['proposed', /^(proposed|draft|in review|under review|pending|provisional|work in progress|wip|in discussion|under discussion|needs work|deferred|postponed|on hold|open)\b/],
  ['accepted', /^(accepted|approved|implemented|partially (?:implemented|accepted)|decided|done|completed?|adopted|active|final|agreed|merged|implementable|in force|documented)\b/],
];

/** A template's list of choices (`[draft | proposed | rejected | accepted]`, `Proposed, accepted, deprecated, superseded...`). */
function listsChoices(value: string): boolean {
  if (/[|]/.test(value) || /\.\.\.|…|\be\.g\.|\bsuch as\b/i.test(value)) return true;
  const states = value.toLowerCase().match(/\b(accepted|proposed|rejected|deprecated|superseded|draft|approved)\b/g) ?? [];
  return new Set(states).size >= 3;
}

/** Markdown and reStructuredText markup out of a value: links to their text, emphasis and code marks dropped. */
function plainValue(value: string): string {
  return value
    .replace(/<!--[\s\S]*?(-->|$)/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/`([^`]+)\s*<[^>]+>`_*/g, '$1')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/^["']|["']$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The state a value names, or undefined: one state, not a list of them, not a sentence about something else. */
export function statusOf(raw: string): RecordStatus | undefined {
  const said = plainValue(raw).replace(/[.;:]+$/, '');
  if (!said || listsChoices(said)) return undefined;
  const lower = said.toLowerCase();
  // "Accepted. Superseded by ADR-0012": the later word is the one in force, unless only a part of the record is superseded.
  const superseded = /\bsuperseded by\b/.test(lower) && !/\b(parts?|partly|partially|section)\b|§/.test(lower);
  const state = superseded ? 'superseded' : STATE_WORDS.find(([, re]) => re.test(lower))?.[0];
  if (!state) return undefined;
  return { state, said: said.length > 80 ? `${said.slice(0, 79).trimEnd()}…` : said };
}

/** `- Status: …`, `* status: **…**`, `**Status**: …`, `**Status:** …`, `:Status: …` (a field list). */
const FIELD = /^\s*(?:[-*+]\s+)?(?:\*\*|__|\*|_)?(?::status:|status(?:\*\*|__|\*|_)?\s*:(?:\*\*|__)?)\s*(.*)$/i;
const HEADING = /^#{1,6}\s+(?:\*\*)?status(?:\*\*)?\s*:?\s*#*\s*$/i;
const RST_UNDERLINE = /^([=\-~^"'`#*+])\1{2,}\s*$/;
/** How far into a record its metadata may sit (a title, a table or list of fields, a Status section). */
const HEAD_LINES = 60;

/** The value after a Status heading or an empty field: the next line with text, unless it opens another section. */
function valueBelow(lines: readonly string[], from: number): string | undefined {
  for (let i = from; i < Math.min(lines.length, from + 8); i++) {
    const l = lines[i]!.trim();
    if (!l || /^<!--[\s\S]*-->$/.test(l) || RST_UNDERLINE.test(l)) continue;
    if (/^#/.test(l) || /^>/.test(l)) return undefined;
    return l.replace(/^[-*+]\s+/, '');
  }
  return undefined;
}

/** A metadata table's Status column: `| Status | Date |`, then its separator, then the row. */
function tableValue(lines: readonly string[], i: number): string | undefined {
  const cells = (l: string) => l.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
  const header = cells(lines[i]!);
  const col = header.findIndex((c) => /^(?:\*\*)?status(?:\*\*)?$/i.test(c));
  if (col < 0 || !/^\s*\|?\s*:?-{2,}/.test(lines[i + 1] ?? '')) return undefined;
  const row = lines[i + 2];
  return row && row.includes('|') ? cells(row)[col] : undefined;
}

/** The status a decision record gives itself, or undefined when it gives none this reader can be sure of. */
export function recordStatus(text: string): RecordStatus | undefined {
  // Front matter, also as some design templates show it: inside a YAML code block at the very top.
  const fm = /^(?:```ya?ml\n)?---\n([\s\S]*?)\n---\n(?:```\n)?/.exec(text);
  if (fm) {
    const v = /^status:\s*(.+)$/im.exec(fm[1]!)?.[1];
    if (v) return statusOf(v);
  }
  const lines = (fm ? text.slice(fm[0].length) : text).split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    // A Status section may come anywhere; the fields and the table sit at the head.
    if (HEADING.test(line) || (/^\s*status\s*$/i.test(line) && RST_UNDERLINE.test(lines[i + 1] ?? ''))) {
      const v = valueBelow(lines, i + 1);
      if (v) return statusOf(v);
      continue;
    }
    if (i >= HEAD_LINES) continue;
    const field = FIELD.exec(line);
    if (field) {
      const v = field[1]!.trim() || valueBelow(lines, i + 1);
      if (v) return statusOf(v);
      continue;
    }
    if (line.includes('|') && /status/i.test(line)) {
      const v = tableValue(lines, i);
      if (v) return statusOf(v);
    }
  }
  return undefined;
}

/**
 * The status as an answer says it (`superseded by ADR-0012`, `draft`): only for a record not in force, or one in
 * force that says part of it no longer is; a record simply accepted needs no word.
 */
export function statusToSay(s: RecordStatus | undefined): string | undefined {
  if (!s || (s.state === 'accepted' && !/supersed|deprecat|reject|revert|replaced/i.test(s.said))) return undefined;
  // Short, as a label: "superseded by ADR-0013" from "Implemented. Superseded by ADR-013", "proposed" from
  // "Proposed — pending restricted-content policy approval"; a part superseded is said whole.
  const successor = s.state === 'superseded' ? /\b(?:superseded|replaced|succeeded) by\s+[^.;,(]+/i.exec(s.said)?.[0] : undefined;
  const label = successor ?? (s.state === 'accepted' ? s.said : s.said.split(/\s+[—–-]\s+|\s*[(.;,:]\s/)[0]!);
  // Words in lower case, handles as written (ADR-0012, MADR-077, PR #42).
  return label.trim().replace(/\b[A-Z][a-z]+\b/g, (w) => w.toLowerCase());
}

/** A stored record as `successorIn` matches it. */
export interface RecordHandle {
  readonly ref: string | null;
  readonly path: string | null;
}

/**
 * The record a superseded one names as its successor (`superseded by ADR-0009`, `superseded by MADR 099`,
 * `superseded by 028-react-context-api.md`, `superseded by 20. User models revisited`): by its file's name, else
 * by its number among the records of the same folder (a handle's number, or the number a file name starts
 * with). Undefined unless exactly one record fits.
 */
export function successorIn<R extends RecordHandle>(status: RecordStatus, from: RecordHandle, records: readonly R[]): R | undefined {
  const by = /\b(?:superseded|replaced|succeeded) by\s+(.+)$/i.exec(status.said)?.[1]?.trim();
  if (!by) return undefined;
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.[a-z]+$/i, '').toLowerCase();
  const others = records.filter((r) => r.path !== from.path);
  const slug = base(by.split(/\s/)[0]!);
  const byName = others.filter((r) => r.path && base(r.path) === slug);
  if (byName.length === 1) return byName[0];
  const number = /\d+/.exec(by)?.[0];
  if (!number) return undefined;
  const folder = (p: string | null) => (p ? p.slice(0, p.lastIndexOf('/') + 1) : '');
  const numbered = (r: R) => Number(/\d+$/.exec(r.ref ?? '')?.[0] ?? /^\d+/.exec(r.path ? base(r.path) : '')?.[0] ?? NaN);
  const fits = others.filter((r) => folder(r.path) === folder(from.path) && numbered(r) === Number(number));
  return fits.length === 1 ? fits[0] : undefined;
}

/**
 * What a record's own status makes of what it says, wherever sources are ranked (why_is_this's reasons and lead,
 * search_knowledge's passages): one in force (or that gives no status) as it is, a proposal or draft a little less,
 * one superseded, deprecated or rejected well below — its words may be why the code was once so, or why it is
 * not so, and the answer says which.
 */
const STANDING: Record<RecordState, number> = { accepted: 1, proposed: 0.9, superseded: 0.6, deprecated: 0.6, rejected: 0.6 };

export function standingOf(state: RecordState | null | undefined): number {
  return state ? STANDING[state] : 1;
}
