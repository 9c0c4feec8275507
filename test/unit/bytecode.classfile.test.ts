import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ACC, ClassFormatError, REF_KIND_NAMES, hasFlag, parseClassFile, type ClassInfo } from '../../src/core/structural/sources/bytecode/classFile';
import { loadClasses } from '../../src/core/structural/sources/bytecode/load';
import { tempDir } from '../helpers/fixtures';
import { classFilesUnder, fixtureClasses, javap, jdkAvailable } from '../helpers/java';
import { assertMatchesJavap, parseJavap, type JavapClass } from '../helpers/javap';

describe('class-file parser, checked against javap on classes compiled here', function () {
  this.timeout(120_000);
  const jdk = jdkAvailable();
  let classes: Map<string, ClassInfo>;
  let truth: Map<string, JavapClass>;
  let files: string[];

  before(function () {
    if (!jdk.ok) {
      console.log(`      (skipped: ${jdk.reason})`);
      this.skip();
    }
    const dir = fixtureClasses();
    files = classFilesUnder(dir);
    classes = new Map(files.map((f) => {
      const info = parseClassFile(fs.readFileSync(f), { pool: true });
      return [info.name, info];
    }));
    truth = new Map(parseJavap(javap(['-v', '-p', ...files])).map((c) => [c.thisClass, c]));
  });

  it('parses every fixture class and javap describes the same classes', () => {
    assert.equal(classes.size, files.length);
    assert.deepEqual([...classes.keys()].sort(), [...truth.keys()].sort());
    assert.ok(classes.size >= 16, `${classes.size} classes`);
  });

  it('reads every constant, member instruction, line and bootstrap method as javap does', () => {
    let instructions = 0;
    for (const [name, info] of classes) instructions += assertMatchesJavap(info, truth.get(name)!);
    assert.ok(instructions > 100, `${instructions} instructions compared`);
  });

  it('sees each invoke kind, including interface static calls, private and super calls', () => {
    const total = classes.get('fx/Shapes')!.methods.find((m) => m.name === 'total')!;
    const ops = total.invokes.map((i) => `${i.op} ${i.ref.owner}.${i.ref.name}${i.ref.isInterface ? ' (interface)' : ''}`);
    assert.ok(ops.includes('invokeinterface java/util/List.iterator (interface)'), ops.join('\n'));
    assert.ok(ops.includes('invokeinterface fx/Shape.area (interface)'));
    assert.ok(ops.includes('invokestatic java/lang/Math.abs'));
    assert.ok(ops.includes('invokestatic java/util/List.of (interface)'), 'an interface static method is an InterfaceMethodref');
    assert.ok(ops.includes('invokestatic fx/Shape.unit (interface)'));
    assert.ok(ops.includes('invokevirtual fx/Shapes.helper') || ops.includes('invokespecial fx/Shapes.helper'), 'a private method');
    assert.ok(ops.includes('invokespecial fx/Base.weight'), 'super.weight()');
    const ctor = classes.get('fx/Shapes')!.methods.find((m) => m.name === '<init>' && m.descriptor === '(I)V')!;
    assert.deepEqual(ctor.invokes.map((i) => `${i.op} ${i.ref.owner}.${i.ref.name}${i.ref.descriptor}`), ['invokespecial fx/Shapes.<init>()V'], 'this(…)');
  });

  it('resolves lambdas and bound, unbound, static and constructor method references through BootstrapMethods', () => {
    const describeM = classes.get('fx/Shapes')!.methods.find((m) => m.name === 'describe')!;
    const impls = describeM.invokes.filter((i) => i.op === 'invokedynamic').map((i) => (i.bootstrap?.implementation ? `${REF_KIND_NAMES[i.bootstrap.implementation.kind]} ${i.bootstrap.implementation.owner}.${i.bootstrap.implementation.name}` : `${i.bootstrap?.method.owner}.${i.bootstrap?.method.name}`));
    assert.ok(impls.includes('invokeInterface fx/Shape.area'), impls.join('\n'));
    assert.ok(impls.includes('newInvokeSpecial fx/Shapes.<init>'));
    assert.ok(impls.includes('invokeStatic java/lang/Integer.parseInt'));
    assert.ok(impls.some((x) => /^invoke(Virtual|Special) fx\/Shapes\.bump$/.test(x)), 'this::bump');
    assert.ok(impls.some((x) => /^invokeStatic fx\/Shapes\.lambda\$describe\$\d+$/.test(x)), 'a lambda body');
    const concat = classes.get('fx/Shapes')!.methods.flatMap((m) => m.invokes).filter((i) => i.bootstrap?.method.owner === 'java/lang/invoke/StringConcatFactory');
    assert.ok(concat.length > 0 && concat.every((i) => !i.bootstrap!.implementation), 'string concatenation is invokedynamic too, with no implementation method');
  });

  it('reads inner, anonymous and local classes, records, enums, sealed types and bridges', () => {
    const anon = classes.get('fx/Shapes$1')!;
    assert.deepEqual(anon.enclosingMethod, { owner: 'fx/Shapes', name: 'anonymous', descriptor: '()Ljava/lang/Runnable;' });
    assert.ok(anon.innerClasses.some((ic) => ic.inner === 'fx/Shapes$1' && ic.name === undefined), 'anonymous: no simple name');
    const local = classes.get('fx/Shapes$1Counter')!;
    assert.equal(local.enclosingMethod?.name, 'local');
    assert.ok(classes.get('fx/Shapes$Inner')!.innerClasses.some((ic) => ic.inner === 'fx/Shapes$Inner' && ic.outer === 'fx/Shapes' && ic.name === 'Inner'));
    assert.deepEqual(classes.get('fx/Circle')!.recordComponents, [{ name: 'radius', descriptor: 'D' }]);
    assert.equal(classes.get('fx/Circle')!.superName, 'java/lang/Record');
    assert.deepEqual([...classes.get('fx/Shape')!.permittedSubclasses].sort(), ['fx/Circle', 'fx/Square']);
    assert.ok(hasFlag(classes.get('fx/Kind')!.access, ACC.ENUM));
    const printer = classes.get('fx/Generic$Printer')!;
    const bridges = printer.methods.filter((m) => hasFlag(m.access, ACC.BRIDGE)).map((m) => `${m.name}${m.descriptor}`).sort();
    assert.deepEqual(bridges, ['apply(Ljava/lang/Object;)Ljava/lang/Object;', 'handle(Ljava/lang/Object;)V']);
    assert.equal(printer.signature, 'Ljava/lang/Object;Lfx/Generic$Handler<Ljava/lang/String;>;Ljava/util/function/Function<Ljava/lang/Integer;Ljava/lang/String;>;');
  });

  it('steps over tableswitch, lookupswitch and wide instructions without losing the pc', () => {
    const wide = classes.get('fx/Wide')!.methods.find((m) => m.name === 'sum')!;
    assert.ok(wide.codeLength > 1400, 'a long method with wide loads and stores');
    assert.deepEqual(wide.invokes.map((i) => `${i.ref.owner}.${i.ref.name}`), ['java/lang/Math.max'], 'the call after the wide instructions is found (at javap\'s pc, checked above)');
    const weigh = classes.get('fx/Shapes')!.methods.find((m) => m.name === 'weigh')!;
    assert.ok(weigh.invokes.some((i) => i.ref.name === 'hashCode') && weigh.invokes.some((i) => i.ref.name === 'equals'), 'the string switch after a lookupswitch');
  });

  it('reads annotations with every element kind', () => {
    const marker = classes.get('fx/Shapes')!.annotations.find((a) => a.type === 'Lfx/Marker;')!;
    assert.ok(marker.visible);
    const v = Object.fromEntries([...marker.values].map(([k, x]) => [k, x]));
    assert.deepEqual(v.name, { kind: 'const', tag: 's', value: 'shapes' });
    assert.deepEqual(v.level, { kind: 'const', tag: 'I', value: 3 });
    assert.deepEqual(v.ratio, { kind: 'const', tag: 'D', value: 0.5 });
    assert.deepEqual(v.big, { kind: 'const', tag: 'J', value: 9_000_000_000n });
    assert.deepEqual(v.flag, { kind: 'const', tag: 'Z', value: true });
    assert.deepEqual(v.letter, { kind: 'const', tag: 'C', value: 'x' });
    assert.deepEqual(v.kind, { kind: 'enum', type: 'Lfx/Kind;', value: 'ROUND' });
    assert.deepEqual(v.type, { kind: 'class', descriptor: 'Ljava/util/List;' });
    assert.deepEqual(v.tags, { kind: 'array', values: [{ kind: 'const', tag: 's', value: 'a' }, { kind: 'const', tag: 's', value: 'b' }] });
    assert.equal(v.nested?.kind, 'annotation');
  });
});

/** A minimal class file, assembled by hand, with one method whose code is `code`. */
function handMade(code: number[]): Buffer {
  const utf8 = (s: string) => [1, 0, s.length, ...Buffer.from(s)];
  const pool = [...utf8('A'), 7, 0, 1, ...utf8('java/lang/Object'), 7, 0, 3, ...utf8('m'), ...utf8('()V'), ...utf8('Code')];
  const codeAttr = [0, 0, 0, 1, ...u4(code.length), ...code, 0, 0, 0, 0];
  const bytes = [
    0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61, 0, 8, ...pool,
    0, 0x21, 0, 2, 0, 4, 0, 0, 0, 0,
    0, 1, 0, 0x09, 0, 5, 0, 6, 0, 1, 0, 7, ...u4(codeAttr.length), ...codeAttr,
    0, 0,
  ];
  return Buffer.from(bytes);
}

function u4(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

describe('class-file parser on malformed input', () => {
  it('reads a hand-made class, the baseline for the damaged ones below', () => {
    const info = parseClassFile(handMade([0xb1]));
    assert.equal(info.name, 'A');
    assert.equal(info.methods[0]!.codeLength, 1);
  });

  it('says what is wrong and where, never reading past the end', () => {
    const good = handMade([0xb1]);
    assert.throws(() => parseClassFile(Buffer.from('not a class file at all')), (e: unknown) => e instanceof ClassFormatError && /magic 0x6e6f7420/.test((e as Error).message));
    for (const cut of [4, 9, 12, 30, good.length - 3]) {
      assert.throws(() => parseClassFile(good.subarray(0, cut)), (e: unknown) => e instanceof ClassFormatError && /truncated|not a class file/.test((e as Error).message), `cut at ${cut}`);
    }
    const badTag = Buffer.from(good);
    badTag[10] = 2; // the first constant's tag
    assert.throws(() => parseClassFile(badTag), /unknown constant pool tag 2 at entry #1/);
    assert.throws(() => parseClassFile(Buffer.concat([good, Buffer.from([0])])), /1 extra bytes/);
    assert.throws(() => parseClassFile(handMade([0xcb])), /unknown opcode 0xcb at pc 0/);
    assert.throws(() => parseClassFile(handMade([0xb6, 0x00])), /runs past the end of the code|past the end/);
    assert.throws(() => parseClassFile(handMade([0xb6, 0x00, 0x63])), /constant pool index 99 is out of range/);
  });

  it('loading goes on past a damaged class file and reports it', () => {
    const d = tempDir();
    try {
      fs.writeFileSync(path.join(d.root, 'Good.class'), handMade([0xb1]));
      fs.writeFileSync(path.join(d.root, 'Bad.class'), handMade([0xcb]));
      fs.writeFileSync(path.join(d.root, 'Empty.class'), Buffer.alloc(0));
      const files = ['Good.class', 'Bad.class', 'Empty.class'].map((n) => ({ rel: n, abs: path.join(d.root, n), size: 0, mtimeMs: 0 }));
      const r = loadClasses(d.root, files, []);
      assert.deepEqual(r.classes.map((c) => c.artifact), ['Good.class']);
      assert.deepEqual(r.problems.map((p) => p.artifact).sort(), ['Bad.class', 'Empty.class']);
      assert.match(r.problems.find((p) => p.artifact === 'Bad.class')!.message, /unknown opcode/);
    } finally {
      d.cleanup();
    }
  });
});
