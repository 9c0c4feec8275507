import type { SymbolRef } from '../model/symbolRef.js';
import type { Db } from '../store/db.js';

/*
 * Symbol reads for the layers that link words to code (ask's concept
 * linking): by id, by words of their names, and whether there is an index
 * at all. Reads SQLite only.
 */

const SELECT = 'SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id';

export async function isIndexed(db: Db): Promise<boolean> {
  return !!(await db.get('SELECT 1 FROM files LIMIT 1'));
}

export async function symbolBySid(db: Db, sid: string): Promise<SymbolRef | undefined> {
  return db.get<SymbolRef>(`${SELECT} WHERE s.sid = ? LIMIT 1`, [sid]);
}

/** A symbol with the name of the type or function that holds it, if any. */
export interface NamedSymbol extends SymbolRef {
  readonly container: string | null;
}

/**
 * Symbols whose name contains any of these words (lower case), with their
 * container's name: the candidates a phrase may name. Modules and
 * constructors are left out (a phrase names a class, not its constructor).
 */
export async function symbolsNamedWith(db: Db, words: readonly string[], limit = 5000): Promise<NamedSymbol[]> {
  if (!words.length) return [];
  const like = words.map(() => "lower(s.name) LIKE ? ESCAPE '\\'").join(' OR ');
  return db.all<NamedSymbol>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, f.path, s.line, p.name AS container
     FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id AND p.kind != 'module'
     WHERE s.kind NOT IN ('module', 'constructor') AND (${like}) LIMIT ?`,
    [...words.map((w) => `%${w.replace(/[%_\\]/g, (c) => `\\${c}`)}%`), limit],
  );
}
