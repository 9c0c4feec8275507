import type { Db } from '../store/db.js';
import { fingerprints } from './fingerprint.js';
import type { Touch } from './model.js';
import type { FileChange } from './worktree.js';

/*
 * Changed lines → the symbols they are in, through the structural index: the
 * innermost definition around each changed line (a method rather than its
 * class), the file itself for lines outside any definition, and definitions
 * that disappeared. Symbols are named by their stable id, so the episode
 * keeps its meaning across re-index.
 */

interface SymRow {
  id: number;
  sid: string;
  name: string;
  qname: string;
  kind: string;
  line: number;
  end_line: number;
  path: string;
}

export async function symbolsInFiles(db: Db, paths: readonly string[]): Promise<Map<string, SymRow[]>> {
  const out = new Map<string, SymRow[]>();
  if (!paths.length) return out;
  const rows = await db.all<SymRow>(
    `SELECT s.id, s.sid, s.name, s.qname, s.kind, s.line, s.end_line, f.path FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE f.path IN (SELECT value FROM json_each(?)) AND s.kind != 'module'`,
    [JSON.stringify(paths)],
  );
  for (const r of rows) {
    let list = out.get(r.path);
    if (!list) out.set(r.path, (list = []));
    list.push(r);
  }
  return out;
}

/** The innermost definition containing a line. */
function innermost(symbols: readonly SymRow[], line: number): SymRow | undefined {
  let best: SymRow | undefined;
  for (const s of symbols) {
    if (s.line <= line && s.end_line >= line && (!best || s.end_line - s.line < best.end_line - best.line)) best = s;
  }
  return best;
}

type RawTouch = Omit<Touch, 'fresh'>;

/** Changed lines → touches, without fingerprints; `printed` holds the symbols that need one. */
function mapTouches(changes: readonly FileChange[], before: ReadonlyMap<string, readonly SymRow[]>, after: ReadonlyMap<string, readonly SymRow[]>): { touches: RawTouch[]; printed: SymRow[] } {
  const touches: RawTouch[] = [];
  const printed: SymRow[] = [];
  for (const c of changes) {
    const now = after.get(c.path) ?? [];
    const old = before.get(c.path) ?? [];
    if (c.change === 'deleted') {
      for (const s of old) touches.push({ path: c.path, sid: s.sid, qname: s.qname, kind: s.kind, lines: s.end_line - s.line + 1, change: 'deleted', fingerprint: null });
      touches.push({ path: c.path, sid: null, qname: null, kind: null, lines: c.hunks.reduce((n, h) => n + h.oldLines, 0), change: 'deleted', fingerprint: null });
      continue;
    }
    const lines = new Map<SymRow | null, number>();
    const count = (s: SymRow | undefined, n: number) => lines.set(s ?? null, (lines.get(s ?? null) ?? 0) + n);
    // Binary or too large to diff: the file changed throughout.
    if (!c.hunks.length) count(undefined, 1);
    for (const h of c.hunks) {
      if (h.newLines > 0) {
        for (let l = h.newStart; l < h.newStart + h.newLines; l++) count(innermost(now, l), 1);
      } else {
        // A pure deletion between two lines: charge the definition around the gap.
        const a = innermost(now, Math.max(1, h.newStart - 1));
        const b = innermost(now, h.newStart);
        count(a && b && a === b ? a : a && b ? (a.end_line - a.line <= b.end_line - b.line ? a : b) : undefined, h.oldLines);
      }
    }
    const nowSids = new Set(now.map((s) => s.sid));
    for (const [s, n] of lines) {
      if (!s) {
        touches.push({ path: c.path, sid: null, qname: null, kind: null, lines: n, change: c.change, fingerprint: null });
        continue;
      }
      const whole = s.end_line - s.line + 1;
      const added = c.change === 'added' || (n >= whole && !old.some((o) => o.sid === s.sid));
      touches.push({ path: c.path, sid: s.sid, qname: s.qname, kind: s.kind, lines: n, change: added ? 'added' : 'modified', fingerprint: null });
      printed.push(s);
    }
    for (const s of old) if (!nowSids.has(s.sid)) touches.push({ path: c.path, sid: s.sid, qname: s.qname, kind: s.kind, lines: s.end_line - s.line + 1, change: 'deleted', fingerprint: null });
  }
  return { touches, printed };
}

/**
 * Touches for the changes since the previous outcome of this kind (`window`),
 * each marked fresh when it is also among the changes since the previous
 * outcome of any kind (`fresh`). `before` holds the symbols the index had for
 * these files before it was brought up to date (so deleted definitions can be
 * named); `after` the current ones.
 */
export async function touchesFor(
  db: Db,
  root: string,
  window: readonly FileChange[],
  fresh: readonly FileChange[],
  before: ReadonlyMap<string, readonly SymRow[]>,
  after: ReadonlyMap<string, readonly SymRow[]>,
): Promise<Touch[]> {
  const w = mapTouches(window, before, after);
  const f = mapTouches(fresh, before, after);
  const freshKeys = new Set(f.touches.map((t) => `${t.path}\u0000${t.sid ?? ''}`));
  const texts = new Map<string, string>();
  for (const c of window) if (c.newText !== null) texts.set(c.path, c.newText);
  const prints = await fingerprints(
    db,
    root,
    [...new Map(w.printed.map((s) => [s.sid, s])).values()].map((s) => ({ id: s.id, sid: s.sid, name: s.name, kind: s.kind, line: s.line, endLine: s.end_line, path: s.path })),
    texts,
  );
  return w.touches.map((t) => ({
    ...t,
    fingerprint: t.sid && t.change !== 'deleted' ? (prints.get(t.sid) ?? null) : null,
    fresh: freshKeys.has(`${t.path}\u0000${t.sid ?? ''}`),
  }));
}
