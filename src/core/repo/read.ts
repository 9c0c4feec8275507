import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Skip } from '../model/skips.js';

/*
 * Reading a file of the repository under index, which is untrusted input:
 * only a regular file, only inside the workspace (a symlink may point
 * anywhere — /etc/passwd, /dev/zero, a FIFO that never ends), and never more
 * than a cap. Every refusal is a Skip a person can read.
 */

export type WorkspaceRead = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly missing: true } | { readonly ok: false; readonly missing?: false; readonly skip: Skip };

const realRoots = new Map<string, string>();

function realRoot(root: string): string {
  let r = realRoots.get(root);
  if (!r) {
    r = fs.realpathSync(root);
    realRoots.set(root, r);
  }
  return r;
}

/** True when `real` (a resolved path) is the workspace or lies under it. */
export function insideWorkspace(root: string, real: string): boolean {
  const base = realRoot(root);
  const rel = path.relative(base, real);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * The bytes of `abs`, a file under `root`, or why not. A file larger than
 * `maxBytes` is refused before it is read; a FIFO, socket or device is never
 * opened for reading (O_NONBLOCK, then fstat, guards the moment between
 * checking and opening).
 */
export function readWorkspaceFile(root: string, abs: string, maxBytes: number): WorkspaceRead {
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch (e) {
    const c = code(e);
    if (c === 'ENOENT' || c === 'ENOTDIR') {
      // A symlink whose target is gone is a broken link, not a missing file.
      try {
        if (fs.lstatSync(abs).isSymbolicLink()) return { ok: false, skip: { kind: 'broken-symlink', reason: 'broken symlink' } };
      } catch {
        // gone
      }
      return { ok: false, missing: true };
    }
    return { ok: false, skip: { kind: 'unreadable', reason: `unreadable (${c})` } };
  }
  if (!insideWorkspace(root, real)) return { ok: false, skip: { kind: 'outside-workspace', reason: `a symlink to ${real}, outside the workspace: not read` } };
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    return { ok: false, skip: { kind: 'unreadable', reason: `unreadable (${code(e)})` } };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { ok: false, skip: { kind: 'not-a-regular-file', reason: 'not a regular file (a FIFO, socket or device): never opened' } };
    if (st.size > maxBytes) return { ok: false, skip: { kind: 'too-large', reason: `too large (${Math.round(st.size / 1024)} KiB, limit ${Math.round(maxBytes / 1024)} KiB; raise tenure.maxFileSizeKb to include it)` } };
    const bytes = Buffer.alloc(st.size);
    let off = 0;
    while (off < bytes.length) {
      const n = fs.readSync(fd, bytes, off, bytes.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return { ok: true, bytes: off === bytes.length ? bytes : bytes.subarray(0, off) };
  } catch (e) {
    return { ok: false, skip: { kind: 'unreadable', reason: `unreadable (${code(e)})` } };
  } finally {
    fs.closeSync(fd);
  }
}

/** A workspace text file as UTF-8, or undefined when it cannot be read safely (missing, outside, not regular, over the cap). */
export function readWorkspaceText(root: string, abs: string, maxBytes = 4 << 20): string | undefined {
  const r = readWorkspaceFile(root, abs, maxBytes);
  return r.ok ? r.bytes.toString('utf8') : undefined;
}
