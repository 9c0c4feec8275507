import * as path from 'node:path';
import { readWorkspaceText } from '../../../repo/read.js';

/**
 * Lines of workspace source files, read once, for placing facts that come
 * with a line only (class files, spans) on the column of the name as written,
 * which is where the inventory records its sites.
 */
export class SourceText {
  private readonly cache = new Map<string, string[] | null>();

  constructor(private readonly root: string) {}

  lines(rel: string): readonly string[] | undefined {
    if (!this.cache.has(rel)) {
      this.cache.set(rel, readWorkspaceText(this.root, path.join(this.root, rel))?.split(/\r?\n/) ?? null);
    }
    return this.cache.get(rel) ?? undefined;
  }

  /** 0-based UTF-16 columns where `name` appears as a whole identifier on a 1-based line, outside string literals and comments. */
  occurrences(rel: string, line: number, name: string): number[] {
    const text = this.lines(rel)?.[line - 1];
    if (!text || !name) return [];
    const out: number[] = [];
    const isId = (c: string | undefined) => !!c && /[\w$]/.test(c);
    let quote: string | null = null;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = null;
        continue;
      }
      if (c === '"' || c === "'" || c === '`') {
        quote = c;
        continue;
      }
      if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
        if (text[i + 1] === '/') break;
        const close = text.indexOf('*/', i + 2);
        if (close < 0) break;
        i = close + 1;
        continue;
      }
      if (c === '#' && /py$/.test(rel)) break;
      if (text.startsWith(name, i) && !isId(text[i - 1]) && !isId(text[i + name.length])) {
        out.push(i);
        i += name.length - 1;
      }
    }
    return out;
  }
}
