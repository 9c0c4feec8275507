import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TENURE_DIR } from '../store/workspace.js';
import type { Actor } from './model.js';

/*
 * No outcome lost: `tenure run` writes down that a command started before it
 * runs it, and strikes the entry once the attempt is recorded. An entry whose
 * Tenure process is gone (killed with -9, a lost terminal) was an attempt
 * whose outcome nobody saw: the next run records it as `interrupted`, visible
 * in the timeline, instead of letting it vanish. Entries are files under
 * .tenure/runs (one per run, written whole), so no database lock is needed to
 * start a command.
 */

export interface PendingRun {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: number;
  readonly actor: Actor | null;
  readonly intent: string | null;
  /** The Tenure process that ran it. */
  readonly pid: number;
  /** The command's own process, once started: it is in Tenure's process group and may outlive a killed Tenure. */
  readonly childPid?: number;
}

const dirOf = (root: string) => path.join(root, TENURE_DIR, 'runs');

function writeWhole(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value));
  fs.renameSync(tmp, file);
}

export class RunJournal {
  constructor(private readonly root: string) {}

  /** Notes a command about to start; returns the entry to complete. */
  begin(run: Omit<PendingRun, 'id' | 'pid'>): PendingRun {
    const entry: PendingRun = { ...run, id: randomUUID(), pid: process.pid };
    // Never write through a .tenure that is a link (opening the workspace refuses it, with advice).
    if (isLink(path.join(this.root, TENURE_DIR))) return entry;
    fs.mkdirSync(dirOf(this.root), { recursive: true });
    writeWhole(path.join(dirOf(this.root), `${entry.id}.json`), entry);
    return entry;
  }

  /** The command's process started. */
  started(entry: PendingRun, childPid: number | undefined): PendingRun {
    const next = { ...entry, ...(childPid ? { childPid } : {}) };
    writeWhole(path.join(dirOf(this.root), `${entry.id}.json`), next);
    return next;
  }

  /** The attempt is recorded (or deliberately not): strike the entry. */
  end(entry: PendingRun): void {
    fs.rmSync(path.join(dirOf(this.root), `${entry.id}.json`), { force: true });
  }

  /** Entries whose Tenure process is no longer alive: attempts whose outcome was never recorded. */
  orphans(): PendingRun[] {
    let names: string[];
    try {
      names = fs.readdirSync(dirOf(this.root)).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: PendingRun[] = [];
    for (const n of names) {
      let entry: PendingRun;
      try {
        entry = JSON.parse(fs.readFileSync(path.join(dirOf(this.root), n), 'utf8')) as PendingRun;
      } catch {
        continue; // half-written by a process killed mid-write: the rename never happened, so this is a stray temp
      }
      if (entry.pid !== process.pid && !alive(entry.pid)) out.push(entry);
    }
    return out.sort((a, b) => a.startedAt - b.startedAt);
  }
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
