import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseClassFile } from '../../src/core/structural/sources/bytecode/classFile';
import { loadClasses } from '../../src/core/structural/sources/bytecode/load';
import { ZipArchive, ZipFormatError } from '../../src/core/structural/sources/bytecode/zip';
import { tempDir } from '../helpers/fixtures';
import { classFilesUnder, fixtureClasses, javap, jdkAvailable } from '../helpers/java';
import { assertMatchesJavap, parseJavap } from '../helpers/javap';
import { skipUnless } from '../helpers/prereq';

/*
 * Real jars from Debian's Java library packages, checked against the JDK's
 * own tools: `jar tf` for the entries, `javap -v -p` for the classes.
 * CI installs them (`apt-get install -y libcommons-collections4-java`); where
 * a jar is absent its test is skipped with the command that installs it.
 */

const JARS = [
  { file: '/usr/share/java/commons-collections4.jar', pkg: 'libcommons-collections4-java' },
  { file: '/usr/share/java/guava.jar', pkg: 'libguava-java' },
];

for (const { file, pkg } of JARS) {
  describe(`jar reader and class-file parser on ${path.basename(file)} (Debian ${pkg})`, function () {
    this.timeout(300_000);
    let zip: ZipArchive;

    before(function () {
      skipUnless(this, fs.existsSync(file), `${file} is not installed; run \`apt-get install -y ${pkg}\``);
      skipUnless(this, jdkAvailable().ok, 'no JDK on PATH for `jar` and `javap`');
      zip = new ZipArchive(fs.readFileSync(file), file);
    });

    it('lists the same entries as `jar tf`', () => {
      const truth = execFileSync('jar', ['tf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n').filter(Boolean);
      assert.deepEqual(zip.entries.map((e) => e.name), truth);
    });

    it('parses every class in the jar', () => {
      const classes = zip.entries.filter((e) => e.name.endsWith('.class'));
      let invokes = 0;
      for (const e of classes) {
        const info = parseClassFile(zip.read(e));
        assert.equal(`${info.name}.class`, e.name.replace(/^META-INF\/versions\/\d+\//, ''));
        for (const m of info.methods) invokes += m.invokes.length;
      }
      assert.ok(classes.length > 500, `${classes.length} classes`);
      assert.ok(invokes > 5000, `${invokes} call sites`);
    });

    it('reads a sample of classes exactly as javap does (constants, call sites, lines, bootstrap methods)', () => {
      const classes = zip.entries.filter((e) => e.name.endsWith('.class') && !e.name.startsWith('META-INF/') && !e.name.endsWith('module-info.class'));
      const step = Math.max(1, Math.floor(classes.length / 40));
      const sample = classes.filter((_, i) => i % step === 0).slice(0, 40);
      const names = sample.map((e) => e.name.replace(/\.class$/, '').replace(/\//g, '.'));
      const truth = new Map(parseJavap(javap(['-v', '-p', '-cp', file, ...names])).map((c) => [c.thisClass, c]));
      let compared = 0;
      for (const e of sample) {
        const info = parseClassFile(zip.read(e), { pool: true });
        const jp = truth.get(info.name);
        assert.ok(jp, `javap has no ${info.name}`);
        compared += assertMatchesJavap(info, jp);
      }
      assert.ok(compared > 200, `${compared} instructions compared`);
    });
  });
}

describe('jar reader on jars made here and damaged ones', function () {
  this.timeout(120_000);
  let d: { root: string; cleanup: () => void };
  let classesDir: string;

  before(function () {
    skipUnless(this, jdkAvailable());
    d = tempDir();
    classesDir = fixtureClasses();
  });
  after(() => d?.cleanup());

  it('reads stored (uncompressed) and deflated jars alike', () => {
    for (const [flag, name] of [['--no-compress', 'stored.jar'], ['', 'deflated.jar']] as const) {
      const jarFile = path.join(d.root, name);
      execFileSync('jar', ['--create', ...(flag ? [flag] : []), '--file', jarFile, '-C', classesDir, 'fx']);
      const zip = new ZipArchive(fs.readFileSync(jarFile), name);
      const classes = zip.entries.filter((e) => e.name.endsWith('.class'));
      assert.equal(classes.length, classFilesUnder(classesDir).length);
      assert.ok(classes.every((e) => (flag ? e.method === 0 : e.method === 8)), `${name}: compression method`);
      for (const e of classes) assert.ok(parseClassFile(zip.read(e)).name.startsWith('fx/'));
    }
  });

  it('refuses a truncated jar with a clear error', () => {
    const buf = fs.readFileSync(path.join(d.root, 'deflated.jar'));
    assert.throws(() => new ZipArchive(buf.subarray(0, buf.length - 30), 'cut.jar'), (e: unknown) => e instanceof ZipFormatError && /cut\.jar: /.test((e as Error).message));
    assert.throws(() => new ZipArchive(Buffer.from('PK not really'), 'tiny.jar'), /not a zip archive/);
  });

  it('a damaged entry is reported and every other class of the jar is still read', () => {
    const buf = Buffer.from(fs.readFileSync(path.join(d.root, 'deflated.jar')));
    const zip = new ZipArchive(buf, 'x');
    const victim = zip.entries.find((e) => e.name === 'fx/Shapes.class')!;
    const start = victim.localHeaderOffset + 30 + buf.readUInt16LE(victim.localHeaderOffset + 26) + buf.readUInt16LE(victim.localHeaderOffset + 28);
    for (let i = 10; i < 40; i++) buf[start + i] = buf[start + i]! ^ 0x5a;
    const damaged = path.join(d.root, 'damaged.jar');
    fs.writeFileSync(damaged, buf);
    const st = fs.statSync(damaged);
    const r = loadClasses(d.root, [], [{ rel: 'damaged.jar', abs: damaged, size: st.size, mtimeMs: st.mtimeMs }]);
    assert.deepEqual(r.problems.map((p) => p.artifact), ['damaged.jar!/fx/Shapes.class']);
    assert.match(r.problems[0]!.message, /cannot inflate|CRC mismatch|expected \d+ bytes/);
    assert.equal(r.classes.length, classFilesUnder(classesDir).length - 1);
  });
});
