import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceFile } from '../../../repo/read.js';
import { toPosixRelative } from '../../../../shared/paths.js';
import { ALWAYS_SKIPPED_DIRS } from '../../../repo/walk.js';
import { ClassFormatError, parseClassFile } from './classFile.js';
import type { LoadedClass } from './analysis.js';
import { ZipArchive, ZipFormatError } from './zip.js';

/**
 * Where a JVM build leaves its output, found without being told: Maven's
 * target/, Gradle's build/, IntelliJ's out/production, jars in the usual
 * folders, annotation-processor sources and Spring AOT sources. Build output
 * is usually .gitignored, so this walk does not honour .gitignore; it skips
 * only folders that never hold a build (VCS, node_modules, .tenure).
 */

export interface BytecodeLayout {
  /** Workspace-relative folders holding class files (package folders below). */
  readonly classDirs: readonly string[];
  readonly jars: readonly string[];
  /** Annotation-processor output (generated .java), to tell which processor wrote a class. */
  readonly generatedSourceDirs: readonly string[];
  /** Spring AOT output: `*__BeanDefinitions.java`. */
  readonly aotSourceDirs: readonly string[];
}

// Build tools' own state holds no build output of the project.
const NEVER = new Set([...ALWAYS_SKIPPED_DIRS, '.gradle', '.idea', '.mvn']);
const CLASS_DIRS = [/(^|\/)target\/(test-)?classes$/, /(^|\/)build\/classes\/(java|kotlin|groovy|scala)\/[^/]+$/, /(^|\/)out\/(production|test)\/[^/]+$/];
const GENERATED_DIRS = [/(^|\/)target\/generated-(test-)?sources\/(test-)?annotations$/, /(^|\/)build\/generated\/sources\/annotationProcessor\/java\/[^/]+$/];
const AOT_DIRS = [/(^|\/)target\/spring-aot\/(main|test)\/sources$/, /(^|\/)build\/generated\/aot(Test)?Sources$/];
const JAR_DIRS = /(^|\/)(target|build\/libs|lib|libs|WEB-INF\/lib)$/;

export function findBytecode(root: string, options: { maxDepth?: number } = {}): BytecodeLayout {
  const maxDepth = options.maxDepth ?? 10;
  const classDirs: string[] = [];
  const jars: string[] = [];
  const generatedSourceDirs: string[] = [];
  const aotSourceDirs: string[] = [];
  const seen = new Set<string>();
  // Only the root and folders reached through a symlink are resolved: a plain folder's real path is its parent's and its name.
  const walk = (abs: string, rel: string, depth: number, known?: string) => {
    let real: string;
    try {
      real = known ?? fs.realpathSync(abs);
    } catch {
      return;
    }
    if (seen.has(real) || depth > maxDepth) return;
    seen.add(real);
    if (CLASS_DIRS.some((r) => r.test(rel))) {
      classDirs.push(rel);
      return;
    }
    if (GENERATED_DIRS.some((r) => r.test(rel))) {
      generatedSourceDirs.push(rel);
      return;
    }
    if (AOT_DIRS.some((r) => r.test(rel))) {
      aotSourceDirs.push(rel);
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    const jarDir = JAR_DIRS.test(rel);
    for (const e of entries) {
      if (NEVER.has(e.name)) continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(abs, e.name), childRel, depth + 1, path.join(real, e.name));
      else if (e.isSymbolicLink() && isDir(path.join(abs, e.name))) walk(path.join(abs, e.name), childRel, depth + 1);
      else if (jarDir && /\.(jar|war)$/i.test(e.name) && !/-(sources|javadoc)\.jar$/.test(e.name)) jars.push(childRel);
    }
  };
  walk(root, '', 0);
  const sort = (a: string[]) => a.sort();
  return { classDirs: sort(classDirs), jars: sort(jars), generatedSourceDirs: sort(generatedSourceDirs), aotSourceDirs: sort(aotSourceDirs) };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The largest class file or jar read (a jar is read whole). */
const MAX_ARTIFACT_BYTES = 512 << 20;

export interface ArtifactFile {
  readonly rel: string;
  readonly abs: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Every file under the given folders whose name matches, with size and mtime (for change detection). */
export function listFiles(root: string, dirs: readonly string[], match: RegExp): ArtifactFile[] {
  const out: ArtifactFile[] = [];
  const walk = (abs: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(abs, e.name);
      if (e.isDirectory()) walk(p);
      else if (match.test(e.name)) {
        try {
          const st = fs.statSync(p);
          out.push({ rel: toPosixRelative(root, p), abs: p, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
        } catch {
          // vanished between listing and stat: it is simply not there
        }
      }
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

export interface LoadProblem {
  readonly artifact: string;
  readonly message: string;
}

export interface LoadedArtifacts {
  readonly classes: LoadedClass[];
  /** Per artifact file (class file or jar): content hash, for the files row. */
  readonly hashes: Map<string, string>;
  /** Class file name per jar, for "n classes" summaries. */
  readonly jarClassCount: Map<string, number>;
  readonly problems: LoadProblem[];
  readonly bytes: number;
}

/**
 * Reads and parses class files and jars. A malformed class file or a damaged
 * jar entry is reported and skipped; everything else is still read.
 */
export function loadClasses(root: string, classFiles: readonly ArtifactFile[], jarFiles: readonly ArtifactFile[]): LoadedArtifacts {
  const classes: LoadedClass[] = [];
  const hashes = new Map<string, string>();
  const jarClassCount = new Map<string, number>();
  const problems: LoadProblem[] = [];
  let bytes = 0;
  /** An artifact's bytes, counted and hashed; undefined (and a problem recorded) when it cannot be read. */
  const read = (f: ArtifactFile): Buffer | undefined => {
    // Build output is the repository's too: a FIFO or a link to /dev/zero named `X.class` is never opened.
    const r = readWorkspaceFile(root, f.abs, MAX_ARTIFACT_BYTES);
    if (!r.ok) {
      problems.push({ artifact: f.rel, message: r.missing ? 'unreadable: gone since it was listed' : r.skip.reason });
      return undefined;
    }
    const buf = r.bytes;
    bytes += buf.length;
    hashes.set(f.rel, createHash('sha1').update(buf).digest('hex'));
    return buf;
  };
  for (const f of classFiles) {
    const buf = read(f);
    if (!buf) continue;
    try {
      classes.push({ info: parseClassFile(buf), artifact: f.rel, fromJar: false });
    } catch (e) {
      problems.push({ artifact: f.rel, message: e instanceof ClassFormatError ? e.message : `cannot parse: ${(e as Error).message}` });
    }
  }
  for (const f of jarFiles) {
    const buf = read(f);
    if (!buf) continue;
    let zip: ZipArchive;
    try {
      zip = new ZipArchive(buf, f.rel);
    } catch (e) {
      problems.push({ artifact: f.rel, message: e instanceof ZipFormatError ? e.message : `cannot read: ${(e as Error).message}` });
      continue;
    }
    let n = 0;
    let nested = 0;
    for (const entry of zip.entries) {
      if (entry.isDirectory) continue;
      if (/\.jar$/i.test(entry.name)) {
        nested++;
        continue;
      }
      // Spring Boot fat jars keep the application's classes under BOOT-INF/classes/ (WEB-INF/classes/ in wars).
      if (!entry.name.endsWith('.class') || entry.name.startsWith('META-INF/versions/') || /(^|\/)(module|package)-info\.class$/.test(entry.name)) continue;
      try {
        classes.push({ info: parseClassFile(zip.read(entry)), artifact: `${f.rel}!/${entry.name}`, fromJar: true });
        n++;
      } catch (e) {
        problems.push({ artifact: `${f.rel}!/${entry.name}`, message: (e as Error).message });
      }
    }
    jarClassCount.set(f.rel, n);
    if (nested) problems.push({ artifact: f.rel, message: `${nested} nested jar(s) not read (dependencies inside a fat jar: their classes are library code)` });
  }
  return { classes, hashes, jarClassCount, problems, bytes };
}
