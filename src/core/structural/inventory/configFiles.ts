import { parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { isMap, isPair, isScalar, parseAllDocuments, type Node as YamlNode } from 'yaml';
import type { DefinitionFact, FileFacts, Position, SiteFact, SkippedConstruct } from '../../model/structural.js';
import type { ConfigFormat, LanguageSpec } from './languages.js';

/*
 * The keys of a configuration file as the inventory's definitions: each key
 * a symbol of kind `key`, nested as the file nests them (`settlement:` →
 * `retry:` → `max: 3` is `settlement.retry.max`), so code that reads
 * `settlement.retry.max` by its string can be given an edge to it. Dotted
 * keys are split the way Spring and TOML read them (`a.b=1` in a
 * .properties file is `a` → `b`). Lists are values: their items are not keys.
 * Placeholders in values (`${other.key}`) are reads of the keys they name.
 * Pure, like the extractor: text in, facts out.
 */

/*
 * smol-toml ships CommonJS beside its ES module, but its type declarations
 * are the module's: load the CommonJS build (so the parse worker and the
 * bundle need no dynamic import) and type it from the declarations.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse: parseToml } = require('smol-toml') as typeof import('smol-toml', { with: { 'resolution-mode': 'import' } });

/** Beyond this many keys a file is data, not settings: the rest are left out, and the facts say so. */
const MAX_KEYS = 5000;

/** `${a.b}`, `${a.b:default}`: the key a placeholder reads. */
const PLACEHOLDER = /\$\{([A-Za-z_][\w.-]*)(?::[^}]*)?\}/g;

class Lines {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  at(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - this.starts[lo]! };
  }
}

/** Collects keys as definitions, merging a key seen twice under one parent (profiles in one YAML stream, a repeated line). */
class KeyTree {
  readonly definitions: DefinitionFact[] = [];
  readonly sites: SiteFact[] = [];
  readonly skipped: SkippedConstruct[] = [];
  private readonly byPath = new Map<string, number>();
  private full = false;

  /** The index of the key `name` under `parent`, adding it at `start` … `end` if it is new. */
  key(parent: number, name: string, start: Position, end: Position, declared = true): number | undefined {
    const path = `${parent}\0${name}`;
    const known = this.byPath.get(path);
    if (known !== undefined) {
      // A section named again on the way to a deeper key (`a.b=1`, then `a.c=2`) is not declared again.
      if (!declared) return known;
      const d = this.definitions[known]!;
      const laterEnd = end.line > d.range.end.line || (end.line === d.range.end.line && end.col > d.range.end.col);
      this.definitions[known] = { ...d, facets: [...(d.facets ?? []), start], ...(laterEnd ? { range: { start: d.range.start, end } } : {}) };
      return known;
    }
    if (this.definitions.length >= MAX_KEYS) {
      if (!this.full) this.skipped.push({ at: start, reason: `more than ${MAX_KEYS} keys: the rest of the file is not indexed` });
      this.full = true;
      return undefined;
    }
    const index = this.definitions.length;
    const nameEnd = { line: start.line, col: start.col + name.length };
    this.definitions.push({ index, name, kind: 'key', parent, range: { start, end }, nameRange: { start, end: nameEnd }, exported: true });
    this.byPath.set(path, index);
    return index;
  }

  /** A dotted key (`a.b.c`) as a chain of keys, each segment where it is written; returns the innermost. */
  dotted(parent: number, segments: readonly string[], start: Position, end: Position): number | undefined {
    let p: number | undefined = parent;
    let col = start.col;
    segments.forEach((seg, i) => {
      if (p === undefined) return;
      p = this.key(p, seg, { line: start.line, col }, end, i === segments.length - 1);
      col += seg.length + 1;
    });
    return p;
  }

  placeholders(owner: number, value: string, at: Position): void {
    for (const m of value.matchAll(PLACEHOLDER)) this.sites.push({ kind: 'read', name: m[1]!, owner, at, nameIs: 'config-key' });
  }
}

function splitKey(key: string): string[] {
  return key.split('.').filter((s) => s.length > 0);
}

function yamlKeys(text: string, tree: KeyTree, lines: Lines): number {
  let errors = 0;
  const visit = (node: YamlNode | null | undefined, parent: number): void => {
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) continue;
      const name = String(pair.key.value);
      const value = pair.value as YamlNode | null;
      const endOffset = value?.range ? value.range[1] : pair.key.range[1];
      const k = tree.dotted(parent, splitKey(name), lines.at(pair.key.range[0]), lines.at(endOffset));
      if (k === undefined) return;
      if (isScalar(value) && typeof value.value === 'string' && value.range) tree.placeholders(k, value.value, lines.at(value.range[0]));
      visit(value, k);
    }
  };
  for (const doc of parseAllDocuments(text)) {
    errors += doc.errors.length;
    visit(doc.contents as YamlNode | null, -1);
  }
  return errors;
}

function jsonKeys(text: string, tree: KeyTree, lines: Lines): number {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const visit = (node: JsonNode | undefined, parent: number): void => {
    if (!node || node.type !== 'object') return;
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || typeof keyNode.value !== 'string') continue;
      const k = tree.key(parent, keyNode.value, lines.at(keyNode.offset), lines.at(prop.offset + prop.length));
      if (k === undefined) return;
      visit(valueNode, k);
    }
  };
  visit(root, -1);
  return errors.length;
}

/** `.properties`: `key=value`, `key: value`, `key value`; `#` and `!` comments; a trailing backslash continues the line. */
function propertiesKeys(text: string, tree: KeyTree): number {
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const startLine = i;
    let line = raw[i]!;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < raw.length) line = line.slice(0, -1) + raw[++i]!.replace(/^\s+/, '');
    const lead = /^\s*/.exec(line)![0].length;
    if (lead >= line.length || line[lead] === '#' || line[lead] === '!') continue;
    let j = lead;
    let key = '';
    while (j < line.length && !/[=:\s]/.test(line[j]!)) {
      if (line[j] === '\\' && j + 1 < line.length) j++;
      key += line[j];
      j++;
    }
    if (!key) continue;
    const value = line.slice(j).replace(/^\s*[=:]?\s*/, '');
    const start = { line: startLine + 1, col: lead };
    const k = tree.dotted(-1, splitKey(key), start, { line: i + 1, col: raw[i]!.length });
    if (k === undefined) break;
    tree.placeholders(k, value, start);
  }
  return 0;
}

/** `.env`: `KEY=value`, `export KEY=value`, `#` comments; a quoted value may span lines. */
function dotenvKeys(text: string, tree: KeyTree): number {
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const m = /^(\s*(?:export\s+)?)([A-Za-z_][\w.-]*)\s*=\s*(.*)$/.exec(raw[i]!);
    if (!m) continue;
    const start = { line: i + 1, col: m[1]!.length };
    let end = i;
    const q = m[3]!.charAt(0);
    if ((q === '"' || q === "'" || q === '`') && !m[3]!.slice(1).includes(q)) {
      while (end + 1 < raw.length && !raw[end + 1]!.includes(q)) end++;
      if (end + 1 < raw.length) end++;
    }
    if (tree.key(-1, m[2]!, start, { line: end + 1, col: raw[end]!.length }) === undefined) break;
    i = end;
  }
  return 0;
}

/**
 * TOML: the structure comes from the parser (smol-toml), which TOML's
 * quoting and inline tables need; where each key is written comes from a
 * scan of its table headers and `key =` lines (the parser keeps no
 * positions). A key the scan cannot place (inside an inline table) takes
 * its table's place.
 */
function tomlKeys(text: string, tree: KeyTree): number {
  let data: Record<string, unknown>;
  let errors = 0;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch {
    data = {};
    errors = 1;
  }
  const placed = new Map<string, Position>();
  let table: string[] = [];
  const keyPath = (s: string): string[] => [...s.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  const lines = text.split(/\r?\n/);
  let inString: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (inString) {
      if (line.includes(inString)) inString = undefined;
      continue;
    }
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header) {
      table = keyPath(header[1]!);
      const at = { line: i + 1, col: line.indexOf(header[1]!) };
      // `[gateway.sepa]` also declares `gateway`, where nothing did before.
      for (let k = 1; k <= table.length; k++) if (!placed.has(table.slice(0, k).join('\0'))) placed.set(table.slice(0, k).join('\0'), at);
      continue;
    }
    const kv = /^(\s*)((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.-]+|\s)+?)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const full = [...table, ...keyPath(kv[2]!)];
    if (!placed.has(full.join('\0'))) placed.set(full.join('\0'), { line: i + 1, col: kv[1]!.length });
    const opener = /^("""|''')/.exec(kv[3]!);
    if (opener && !kv[3]!.slice(3).includes(opener[1]!)) inString = opener[1]!;
  }
  const visit = (obj: Record<string, unknown>, parent: number, path: string[], fallback: Position): void => {
    for (const [name, value] of Object.entries(obj)) {
      const p = [...path, name];
      const at = placed.get(p.join('\0')) ?? fallback;
      const k = tree.key(parent, name, at, at);
      if (k === undefined) return;
      if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) visit(value as Record<string, unknown>, k, p, at);
    }
  };
  visit(data, -1, [], { line: 1, col: 0 });
  return errors;
}

/** The facts of one configuration file: its keys as definitions, and what its placeholders read. */
export function extractConfigFacts(spec: LanguageSpec, text: string): FileFacts {
  const started = performance.now();
  const tree = new KeyTree();
  const lines = new Lines(text);
  let errorNodes = 0;
  const format = spec.id as ConfigFormat;
  try {
    switch (format) {
      case 'yaml':
        errorNodes = yamlKeys(text, tree, lines);
        break;
      case 'json':
        errorNodes = jsonKeys(text, tree, lines);
        break;
      case 'properties':
        errorNodes = propertiesKeys(text, tree);
        break;
      case 'toml':
        errorNodes = tomlKeys(text, tree);
        break;
      case 'dotenv':
        errorNodes = dotenvKeys(text, tree);
        break;
    }
  } catch (e) {
    // A parser that throws part-way keeps the keys read so far.
    tree.skipped.push({ at: { line: 1, col: 0 }, reason: `the ${format} parser failed (${e instanceof Error ? e.message : String(e)}): keys after it are not indexed` });
    errorNodes++;
  }
  return {
    language: spec.id,
    definitions: tree.definitions,
    sites: tree.sites,
    imports: [],
    errorNodes,
    parseMs: performance.now() - started,
    ...(tree.skipped.length ? { skipped: tree.skipped } : {}),
  };
}
