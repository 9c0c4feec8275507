/*
 * Line diff (Myers' O(ND) algorithm on interned lines) and unified-diff
 * rendering. Used to find which lines an attempt changed, so they can be
 * mapped to symbols, and to show a person the exact change a rule promotion
 * makes to AGENTS.md.
 */

/** A changed region. Starts are 1-based; a count of 0 means a pure insertion or deletion at that point. */
export interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
}

type Op = 0 | 1 | 2; // equal, delete (from old), insert (into new)

/** Beyond this many edits the middle is reported as one changed block: still correct, less precise. */
const MAX_EDITS = 4000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function intern(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let v = ids.get(s);
    if (v === undefined) ids.set(s, (v = ids.size));
    return v;
  };
  return [Int32Array.from(a, id), Int32Array.from(b, id)];
}

/** The edit script from old to new, as one op per line. */
function editScript(a: Int32Array, b: Int32Array): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ma = a.subarray(pre, a.length - suf);
  const mb = b.subarray(pre, b.length - suf);
  const middle = myers(ma, mb) ?? [...new Array<Op>(ma.length).fill(1), ...new Array<Op>(mb.length).fill(2)];
  return [...new Array<Op>(pre).fill(0), ...middle, ...new Array<Op>(suf).fill(0)];
}

function myers(a: Int32Array, b: Int32Array): Op[] | null {
  const n = a.length;
  const m = b.length;
  if (n === 0) return new Array<Op>(m).fill(2);
  if (m === 0) return new Array<Op>(n).fill(1);
  const max = Math.min(n + m, MAX_EDITS);
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 2);
  const trace: Int32Array[] = [];
  let found = false;
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break outer;
      }
    }
  }
  if (!found) return null;
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const w = trace[d]!;
    const at = (k: number) => w[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(0);
      x--;
      y--;
    }
    if (d > 0) {
      ops.push(x === prevX ? 2 : 1);
      x = prevX;
      y = prevY;
    }
  }
  return ops.reverse();
}

/** Changed regions between two texts (or line arrays). */
export function diffLines(oldText: string | readonly string[], newText: string | readonly string[]): Hunk[] {
  const a = typeof oldText === 'string' ? splitLines(oldText) : oldText;
  const b = typeof newText === 'string' ? splitLines(newText) : newText;
  const [ia, ib] = intern(a, b);
  const ops = editScript(ia, ib);
  const hunks: Hunk[] = [];
  let i = 0;
  let oi = 0;
  let ni = 0;
  while (i < ops.length) {
    if (ops[i] === 0) {
      i++;
      oi++;
      ni++;
      continue;
    }
    const os = oi;
    const ns = ni;
    while (i < ops.length && ops[i] !== 0) {
      if (ops[i] === 1) oi++;
      else ni++;
      i++;
    }
    hunks.push({ oldStart: os + 1, oldLines: oi - os, newStart: ns + 1, newLines: ni - ns });
  }
  return hunks;
}

/** Lines added and removed. */
export function diffStat(hunks: readonly Hunk[]): { added: number; removed: number } {
  return { added: hunks.reduce((n, h) => n + h.newLines, 0), removed: hunks.reduce((n, h) => n + h.oldLines, 0) };
}

/** A unified diff (`diff -u` / `git diff` format) of one file; '' when nothing changed. */
export function unifiedDiff(oldName: string, newName: string, oldText: string, newText: string, context = 3): string {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const hunks = diffLines(a, b);
  if (!hunks.length) return '';
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  // Merge hunks whose context would overlap.
  const groups: Hunk[][] = [];
  for (const h of hunks) {
    const last = groups[groups.length - 1];
    const prev = last?.[last.length - 1];
    if (prev && h.oldStart - (prev.oldStart + prev.oldLines) <= 2 * context) last!.push(h);
    else groups.push([h]);
  }
  for (const g of groups) {
    const first = g[0]!;
    const last = g[g.length - 1]!;
    const oStart = Math.max(1, first.oldStart - context);
    const oEnd = Math.min(a.length, last.oldStart + last.oldLines - 1 + context);
    const nStart = Math.max(1, first.newStart - context);
    const nEnd = Math.min(b.length, last.newStart + last.newLines - 1 + context);
    const body: string[] = [];
    let o = oStart;
    let n = nStart;
    for (const h of g) {
      while (o < h.oldStart) {
        body.push(' ' + a[o - 1]);
        o++;
        n++;
      }
      for (let j = 0; j < h.oldLines; j++) body.push('-' + a[o - 1 + j]);
      for (let j = 0; j < h.newLines; j++) body.push('+' + b[n - 1 + j]);
      o += h.oldLines;
      n += h.newLines;
    }
    while (o <= oEnd) {
      body.push(' ' + a[o - 1]);
      o++;
    }
    const oCount = oEnd - oStart + 1;
    const nCount = nEnd - nStart + 1;
    out.push(`@@ -${oCount === 0 ? oStart - 1 : oStart},${oCount} +${nCount === 0 ? nStart - 1 : nStart},${nCount} @@`, ...body);
  }
  return out.join('\n') + '\n';
}
