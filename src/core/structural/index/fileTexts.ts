import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * One text per file, from the moment a file is taken in until its rows are
 * written: the use sites awaiting resolution, the ids and places of symbols
 * awaiting their write. Text, not objects: a first index of a large
 * repository has millions of each. Past `spillBytes` the texts go to a
 * temporary file and are read back one file at a time, so what a batch holds
 * in memory stays bounded whatever the size of the repository.
 */
export class FileTexts {
  private readonly held = new Map<number, string>();
  private readonly spilled = new Map<number, { readonly offset: number; readonly length: number }>();
  private heldBytes = 0;
  private spill: { dir: string; fd: number; end: number } | undefined;

  /** `what` names the temporary folder (`tenure-sites-…`), for whoever finds one left by a killed process. */
  constructor(
    private readonly what: string,
    private readonly spillBytes = DEFAULT_SPILL_BYTES,
  ) {}

  /** A file's text (replacing any it had here). */
  put(fileId: number, text: string): void {
    this.delete(fileId);
    if (!this.spill && this.heldBytes + text.length <= this.spillBytes) {
      this.held.set(fileId, text);
      this.heldBytes += text.length;
      return;
    }
    if (!this.spill) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tenure-${this.what}-`));
      this.spill = { dir, fd: fs.openSync(path.join(dir, this.what), 'w+'), end: 0 };
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

  text(fileId: number): string | undefined {
    const held = this.held.get(fileId);
    if (held !== undefined) return held;
    const at = this.spilled.get(fileId);
    if (!at) return undefined;
    const bytes = Buffer.alloc(at.length);
    fs.readSync(this.spill!.fd, bytes, 0, at.length, at.offset);
    return bytes.toString('utf8');
  }

  /** Lets every file go, and the temporary file with them. */
  clear(): void {
    this.held.clear();
    this.spilled.clear();
    this.heldBytes = 0;
    if (this.spill) {
      fs.closeSync(this.spill.fd);
      fs.rmSync(this.spill.dir, { recursive: true, force: true });
      this.spill = undefined;
    }
  }
}

/** Text one batch keeps in memory per kind before it goes to a temporary file (UTF-16 code units: about the bytes of ASCII text). */
export const DEFAULT_SPILL_BYTES = 64 * 1024 * 1024;
