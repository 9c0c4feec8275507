import { FileTexts } from './fileTexts.js';
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
 * `file_sites` stores (FileTexts: in a temporary file past its bound).
 *
 * Inheritance sites (`extends`, `implements`) are also kept as objects:
 * resolution reads all of them before any other site (member lookup needs
 * the hierarchy), and they are few.
 */
export class PendingSites {
  private readonly texts: FileTexts;
  private readonly inheritanceOf = new Map<number, Site[]>();

  constructor(spillBytes?: number) {
    this.texts = new FileTexts('sites', spillBytes);
  }

  /** A file's sites (replacing any it had here). */
  put(fileId: number, tuples: readonly SiteTuple[]): void {
    this.delete(fileId);
    const inheritance: Site[] = [];
    for (const t of tuples) if (inherits(t[2])) inheritance.push(siteOf(fileId, t));
    if (inheritance.length) this.inheritanceOf.set(fileId, inheritance);
    this.texts.put(fileId, JSON.stringify(tuples));
  }

  delete(fileId: number): void {
    this.texts.delete(fileId);
    this.inheritanceOf.delete(fileId);
  }

  /** The files held, in the order they were put. */
  files(): number[] {
    return this.texts.files();
  }

  get size(): number {
    return this.texts.size;
  }

  /** Whether the texts are in a temporary file rather than in memory. */
  get spilledToDisk(): boolean {
    return this.texts.spilledToDisk;
  }

  /** A file's sites as `file_sites` stores them. */
  text(fileId: number): string | undefined {
    return this.texts.text(fileId);
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
    this.texts.clear();
    this.inheritanceOf.clear();
  }
}

/** A stored site tuple as the resolver reads it. */
export function siteOf(fileId: number, [id, ownerId, kind, name, receiver, receiverType, line, col, dynamic, nameIs]: SiteTuple): Site {
  return { id, fileId, ownerId, kind, name, receiver, receiverType, line, col, dynamic, nameIs: nameIs ?? null };
}
