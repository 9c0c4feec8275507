import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EdgeKind, SiteNameIs } from '../../model/structural.js';
import type { SiteTuple } from '../schema.js';

/** A use site awaiting resolution: a call, a reference, a base class named in one file. */
export interface Site {
  id: number;
  fileId: number;
  ownerId: number;
  kind: EdgeKind;
  name: string;
  receiver: string | null;
  receiverType: string | null;
  line: number;
  col: number;
  dynamic: string | null;
  /** What the name is when it is not a name of code (a configuration key, an environment variable) or only a receiver. */
  nameIs: SiteNameIs | null;
}

/** An inheritance site (`extends`, `implements`): resolved before every other site, since member lookup needs the hierarchy. */
export function inherits(kind: EdgeKind): boolean {
  return kind === 'extends' || kind === 'implements';
}

/**
 * The use sites of the files a batch writes, from the moment a file is taken
 * in until its edges are resolved: one JSON text per file, in the form
 * `file_sites` stores. Text, not objects: a first index of a large repository
 * has millions of sites, and held as objects they were most of its memory
 * (and of the garbage collector's work). Past `spillBytes` the texts go to a
 * temporary file and are read back one file at a time, so what a batch holds
 * in memory stays bounded whatever the size of the repository.
 *
 * Inheritance sites (`extends`, `implements`) are also kept as objects:
 * resolution reads all of them before any other site (member lookup needs
 * the hierarchy), and they are few.
 */
export class PendingSites {
  private readonly held = new Map<number, string>();
  private readonly spilled = new Map<number, { readonly offset: number; readonly length: number }>();
  private readonly inheritanceOf = new Map<number, Site[]>();
  private heldBytes = 0;
  private spill: { dir: string; fd: number; end: number } | undefined;

  constructor(private readonly spillBytes = DEFAULT_SPILL_BYTES) {}

  /** A file's sites (replacing any it had here). */
  put(fileId: number, tuples: readonly SiteTuple[]): void {
    this.delete(fileId);
    const inheritance: Site[] = [];
    for (const t of tuples) if (inherits(t[2])) inheritance.push(siteOf(fileId, t));
    if (inheritance.length) this.inheritanceOf.set(fileId, inheritance);
    const text = JSON.stringify(tuples);
    if (!this.spill && this.heldBytes + text.length <= this.spillBytes) {
      this.held.set(fileId, text);
      this.heldBytes += text.length;
      return;
    }
    if (!this.spill) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenure-sites-'));
      this.spill = { dir, fd: fs.openSync(path.join(dir, 'sites'), 'w+'), end: 0 };
      for (const [id, held] of this.held) this.append(id, held);
      this.held.clear();
      this.heldBytes = 0;
    }
    this.append(fileId, text);
  }

  private append(fileId: number, text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    fs.writeSync(this.spill!.fd, bytes, 0, bytes.length, this.spill!.end);
    this.spilled.set(fileId, { offset: this.spill!.end, length: bytes.length });
    this.spill!.end += bytes.length;
  }

  delete(fileId: number): void {
    const held = this.held.get(fileId);
    if (held !== undefined) this.heldBytes -= held.length;
    this.held.delete(fileId);
    this.spilled.delete(fileId);
    this.inheritanceOf.delete(fileId);
  }

  /** The files held, in the order they were put. */
  files(): number[] {
    return [...this.held.keys(), ...this.spilled.keys()];
  }

  get size(): number {
    return this.held.size + this.spilled.size;
  }

  /** Whether the texts are in a temporary file rather than in memory. */
  get spilledToDisk(): boolean {
    return this.spill !== undefined;
  }

  /** A file's sites as `file_sites` stores them. */
  text(fileId: number): string | undefined {
    const held = this.held.get(fileId);
    if (held !== undefined) return held;
    const at = this.spilled.get(fileId);
    if (!at) return undefined;
    const bytes = Buffer.alloc(at.length);
    fs.readSync(this.spill!.fd, bytes, 0, at.length, at.offset);
    return bytes.toString('utf8');
  }

  /** A file's sites as objects, read when resolution comes to it. */
  sitesOf(fileId: number): Site[] {
    const text = this.text(fileId);
    return text === undefined ? [] : (JSON.parse(text) as SiteTuple[]).map((t) => siteOf(fileId, t));
  }

  /** Every inheritance site held. */
  inheritance(): Site[] {
    return [...this.inheritanceOf.values()].flat();
  }

  /** Lets every file go, and the temporary file with them. */
  clear(): void {
    this.held.clear();
    this.spilled.clear();
    this.inheritanceOf.clear();
    this.heldBytes = 0;
    if (this.spill) {
      fs.closeSync(this.spill.fd);
      fs.rmSync(this.spill.dir, { recursive: true, force: true });
      this.spill = undefined;
    }
  }
}

/** Site text a batch keeps in memory before it goes to a temporary file (UTF-16 code units: about the bytes of ASCII text). */
export const DEFAULT_SPILL_BYTES = 64 * 1024 * 1024;

/** A stored site tuple as the resolver reads it. */
export function siteOf(fileId: number, [id, ownerId, kind, name, receiver, receiverType, line, col, dynamic, nameIs]: SiteTuple): Site {
  return { id, fileId, ownerId, kind, name, receiver, receiverType, line, col, dynamic, nameIs: nameIs ?? null };
}
