/**
 * Symbol ids follow SCIP's descriptor grammar, prefixed by a language scheme:
 *
 *   java com/acme/settlement/SettlementService#retry().
 *   ts `src/settlement/service.ts`/SettlementService#retry().
 *   py `settlement.service`/retry_policy().
 *
 * namespace `/`, type `#`, term `.`, method `(disambiguator).`. Names outside
 * SCIP's simple-identifier alphabet are wrapped in backticks (a backtick in
 * a name is doubled). The id is built from what the source declares, not from
 * positions, so it stays stable across re-index.
 */

export type DescriptorSuffix = 'namespace' | 'type' | 'term' | 'method';

export interface Descriptor {
  readonly name: string;
  readonly suffix: DescriptorSuffix;
  /** Overload disambiguator for methods: '' for the first, '+1', '+2', … */
  readonly disambiguator?: string;
}

export interface ParsedSymbolId {
  readonly scheme: string;
  readonly descriptors: readonly Descriptor[];
}

const SIMPLE = /^[A-Za-z0-9_+$-]+$/;

export function escapeName(name: string): string {
  return SIMPLE.test(name) ? name : '`' + name.replace(/`/g, '``') + '`';
}

export function formatDescriptor(d: Descriptor): string {
  const n = escapeName(d.name);
  switch (d.suffix) {
    case 'namespace':
      return `${n}/`;
    case 'type':
      return `${n}#`;
    case 'term':
      return `${n}.`;
    case 'method':
      return `${n}(${d.disambiguator ?? ''}).`;
  }
}

export function formatSymbolId(id: ParsedSymbolId): string {
  return `${id.scheme} ${id.descriptors.map(formatDescriptor).join('')}`;
}

export function parseSymbolId(text: string): ParsedSymbolId {
  const space = text.indexOf(' ');
  if (space <= 0) throw new SyntaxError(`Not a symbol id (expected "<scheme> <descriptors>"): ${text}`);
  const scheme = text.slice(0, space);
  const descriptors: Descriptor[] = [];
  let i = space + 1;
  while (i < text.length) {
    let name: string;
    if (text[i] === '`') {
      let j = i + 1;
      let buf = '';
      for (;;) {
        if (j >= text.length) throw new SyntaxError(`Unterminated backtick in symbol id: ${text}`);
        if (text[j] === '`') {
          if (text[j + 1] === '`') {
            buf += '`';
            j += 2;
            continue;
          }
          break;
        }
        buf += text[j];
        j++;
      }
      name = buf;
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_+$-]/.test(text[j]!)) j++;
      if (j === i) throw new SyntaxError(`Expected a name at offset ${i} of symbol id: ${text}`);
      name = text.slice(i, j);
      i = j;
    }
    const c = text[i];
    if (c === '/') {
      descriptors.push({ name, suffix: 'namespace' });
      i++;
    } else if (c === '#') {
      descriptors.push({ name, suffix: 'type' });
      i++;
    } else if (c === '.') {
      descriptors.push({ name, suffix: 'term' });
      i++;
    } else if (c === '(') {
      const close = text.indexOf(')', i);
      if (close < 0 || text[close + 1] !== '.') throw new SyntaxError(`Malformed method descriptor in symbol id: ${text}`);
      const dis = text.slice(i + 1, close);
      descriptors.push(dis ? { name, suffix: 'method', disambiguator: dis } : { name, suffix: 'method' });
      i = close + 2;
    } else {
      throw new SyntaxError(`Unexpected "${c ?? 'end'}" at offset ${i} of symbol id: ${text}`);
    }
  }
  return { scheme, descriptors };
}

/** Heuristic used by the symbol resolver: does the user's text look like a full id? */
export function looksLikeSymbolId(text: string): boolean {
  return /^[a-z]+ \S/.test(text) && /[/#.]$/.test(text);
}
