import * as zlib from 'node:zlib';

/**
 * Reads the entries of a zip archive (a jar) from its central directory:
 * stored and deflated entries, Zip64 sizes and offsets, names in UTF-8 or
 * CP437 as the general-purpose flag says. Only node:zlib is needed, so jars
 * are read without a dependency. Multi-disk archives and encrypted entries
 * are reported, not guessed at.
 */

export class ZipFormatError extends Error {
  override readonly name = 'ZipFormatError';
}

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly crc32: number;
  readonly localHeaderOffset: number;
  readonly isDirectory: boolean;
  readonly encrypted: boolean;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;

export class ZipArchive {
  readonly entries: readonly ZipEntry[];

  constructor(
    private readonly buf: Buffer,
    private readonly label = 'archive',
  ) {
    this.entries = this.readCentralDirectory();
  }

  private fail(message: string): never {
    throw new ZipFormatError(`${this.label}: ${message}`);
  }

  private readCentralDirectory(): ZipEntry[] {
    const buf = this.buf;
    if (buf.length < 22) this.fail(`not a zip archive (${buf.length} bytes)`);
    // The end-of-central-directory record is within the last 64 KiB + 22 bytes (its comment is at most 65535 bytes).
    let eocd = -1;
    for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
      if (buf.readUInt32LE(i) === EOCD_SIG && i + 22 + buf.readUInt16LE(i + 20) <= buf.length) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) this.fail('not a zip archive (no end-of-central-directory record)');
    const disk = buf.readUInt16LE(eocd + 4);
    if (disk !== 0 && disk !== 0xffff) this.fail('multi-disk archives are not supported');
    let count: number = buf.readUInt16LE(eocd + 10);
    let cdSize: number = buf.readUInt32LE(eocd + 12);
    let cdOffset: number = buf.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      const loc = eocd - 20;
      if (loc < 0 || buf.readUInt32LE(loc) !== ZIP64_LOCATOR_SIG) this.fail('Zip64 sizes without a Zip64 locator');
      const z64 = Number(buf.readBigUInt64LE(loc + 8));
      if (z64 + 56 > buf.length || buf.readUInt32LE(z64) !== ZIP64_EOCD_SIG) this.fail('bad Zip64 end-of-central-directory record');
      count = Number(buf.readBigUInt64LE(z64 + 32));
      cdSize = Number(buf.readBigUInt64LE(z64 + 40));
      cdOffset = Number(buf.readBigUInt64LE(z64 + 48));
    }
    if (cdOffset + cdSize > buf.length) this.fail(`central directory (offset ${cdOffset}, ${cdSize} bytes) lies past the end of the file (${buf.length} bytes): truncated`);
    const entries: ZipEntry[] = [];
    let p = cdOffset;
    for (let i = 0; i < count; i++) {
      if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL_SIG) this.fail(`central directory entry ${i} of ${count} is damaged (offset ${p})`);
      const flags = buf.readUInt16LE(p + 8);
      const method = buf.readUInt16LE(p + 10);
      const crc32 = buf.readUInt32LE(p + 16);
      let compressedSize: number = buf.readUInt32LE(p + 20);
      let size: number = buf.readUInt32LE(p + 24);
      const nameLen = buf.readUInt16LE(p + 28);
      const extraLen = buf.readUInt16LE(p + 30);
      const commentLen = buf.readUInt16LE(p + 32);
      let localHeaderOffset: number = buf.readUInt32LE(p + 42);
      if (p + 46 + nameLen + extraLen + commentLen > buf.length) this.fail(`central directory entry ${i} runs past the end of the file`);
      const nameBytes = buf.subarray(p + 46, p + 46 + nameLen);
      // Bit 11: UTF-8 names. Without it names are CP437; jar tools write ASCII names, which read the same.
      const name = flags & 0x0800 ? nameBytes.toString('utf8') : nameBytes.toString('latin1');
      if (size === 0xffffffff || compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
        // Zip64 extended information extra field (id 1): the fields that overflowed, in this order.
        let e = p + 46 + nameLen;
        const end = e + extraLen;
        while (e + 4 <= end) {
          const id = buf.readUInt16LE(e);
          const len = buf.readUInt16LE(e + 2);
          if (id === 1) {
            let q = e + 4;
            if (size === 0xffffffff) {
              size = Number(buf.readBigUInt64LE(q));
              q += 8;
            }
            if (compressedSize === 0xffffffff) {
              compressedSize = Number(buf.readBigUInt64LE(q));
              q += 8;
            }
            if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(buf.readBigUInt64LE(q));
            break;
          }
          e += 4 + len;
        }
      }
      entries.push({ name, method, compressedSize, size, crc32, localHeaderOffset, isDirectory: name.endsWith('/'), encrypted: (flags & 1) === 1 });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return entries;
  }

  /** The uncompressed bytes of one entry. Throws ZipFormatError for damaged, encrypted or unsupported entries. */
  read(entry: ZipEntry): Buffer {
    const buf = this.buf;
    if (entry.encrypted) this.fail(`${entry.name} is encrypted`);
    const p = entry.localHeaderOffset;
    if (p + 30 > buf.length || buf.readUInt32LE(p) !== LOCAL_SIG) this.fail(`${entry.name}: local header missing at offset ${p}`);
    const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
    const end = start + entry.compressedSize;
    if (end > buf.length) this.fail(`${entry.name}: data runs past the end of the file (truncated archive)`);
    const data = buf.subarray(start, end);
    let out: Buffer;
    if (entry.method === 0) out = data;
    else if (entry.method === 8) {
      try {
        out = zlib.inflateRawSync(data);
      } catch (e) {
        this.fail(`${entry.name}: cannot inflate (${(e as Error).message})`);
      }
    } else this.fail(`${entry.name}: compression method ${entry.method} is not supported`);
    if (out.length !== entry.size) this.fail(`${entry.name}: expected ${entry.size} bytes, got ${out.length}`);
    if (typeof zlib.crc32 === 'function' && zlib.crc32(out) >>> 0 !== entry.crc32) this.fail(`${entry.name}: CRC mismatch (damaged entry)`);
    return out;
  }
}
