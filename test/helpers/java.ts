import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { filesUnder } from '../../src/shared/paths';
import { REPO_ROOT } from './fixtures';

/*
 * Compiling Java in the test setup with the JDK on the machine (Debian's
 * openjdk-17): no Maven repository is needed. Spring, Spring Kafka, MapStruct
 * and OpenTelemetry annotations come from stand-ins with the same names and
 * retention (test/fixtures/bytecode/stubs); MapStruct's processor from a small
 * processor of our own (test/fixtures/bytecode/processor) that writes real
 * annotation-processor output.
 */

export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'bytecode');

let jdk: { ok: true } | { ok: false; reason: string } | undefined;

/** Whether javac and javap run here; the reason when they do not (tests skip with it). */
export function jdkAvailable(): { ok: true } | { ok: false; reason: string } {
  if (!jdk) {
    const javac = spawnSync('javac', ['-version'], { encoding: 'utf8' });
    const javap = spawnSync('javap', ['-version'], { encoding: 'utf8' });
    jdk = javac.status === 0 && javap.status === 0 ? { ok: true } : { ok: false, reason: 'no JDK on PATH (javac/javap): install one, e.g. `apt-get install -y openjdk-17-jdk-headless`' };
  }
  return jdk;
}

export function javac(args: readonly string[], sources: readonly string[]): void {
  const r = spawnSync('javac', [...args, ...sources], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`javac failed (${r.status}):\n${r.stderr}${r.stdout}`);
}

/** Compiles a folder of sources once per content and caches the classes under the OS temp folder. */
function cachedBuild(name: string, srcDir: string, extra: readonly string[] = []): string {
  const files = filesUnder(srcDir, '.java');
  const hash = createHash('sha1');
  for (const f of files) hash.update(f).update(fs.readFileSync(f));
  hash.update(extra.join(' '));
  const out = path.join(os.tmpdir(), `tenure-java-${name}-${hash.digest('hex').slice(0, 12)}`);
  if (!fs.existsSync(path.join(out, '.done'))) {
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    javac(['-d', out, ...extra], files);
    fs.writeFileSync(path.join(out, '.done'), '');
  }
  return out;
}

/** The stand-in annotations (Spring, Spring Kafka, MapStruct, OpenTelemetry), compiled. */
export function stubsClasspath(): string {
  return cachedBuild('stubs', path.join(FIXTURES, 'stubs'));
}

/** The MapStruct-style processor, compiled, with its service registration. */
export function processorPath(): string {
  const out = cachedBuild('processor', path.join(FIXTURES, 'processor'));
  const services = path.join(out, 'META-INF', 'services');
  fs.mkdirSync(services, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'processor', 'META-INF', 'services', 'javax.annotation.processing.Processor'), path.join(services, 'javax.annotation.processing.Processor'));
  return out;
}

/**
 * Builds the example's Java service as Maven would lay it out: classes in
 * java/target/classes, processor output in java/target/generated-sources/annotations.
 */
export function buildExampleJava(exampleRoot: string): { classes: string; generated: string } {
  const javaRoot = path.join(exampleRoot, 'java');
  const classes = path.join(javaRoot, 'target', 'classes');
  const generated = path.join(javaRoot, 'target', 'generated-sources', 'annotations');
  fs.mkdirSync(classes, { recursive: true });
  fs.mkdirSync(generated, { recursive: true });
  javac(['-cp', stubsClasspath(), '-processorpath', processorPath(), '-s', generated, '-d', classes], filesUnder(path.join(javaRoot, 'src', 'main', 'java'), '.java'));
  return { classes, generated };
}

/** `javap` output for classes, as ground truth. */
export function javap(args: readonly string[]): string {
  return execFileSync('javap', [...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** The class-file parser's fixtures (test/fixtures/bytecode/src), compiled. */
export function fixtureClasses(): string {
  return cachedBuild('fixtures', path.join(FIXTURES, 'src'));
}

/** Every .class file under a folder. */
export function classFilesUnder(dir: string): string[] {
  return filesUnder(dir, '.class');
}
