import * as assert from 'node:assert/strict';
import { ACC, CP, REF_KIND_NAMES, hasFlag, type ClassInfo, type CpEntry } from '../../src/core/structural/sources/bytecode/classFile';
/*
 * Reads `javap -v -p` output: the JDK's own disassembler is the ground truth
 * the class-file parser is checked against. Only what the parser claims to
 * read is extracted: the constant pool, the class header, each method's
 * descriptor, flags, call sites, field accesses, `new`s and line table, and
 * the bootstrap methods.
 */

export interface JavapInstruction {
  readonly pc: number;
  readonly op: string;
  /** `owner.name:descriptor` for member instructions, the class for `new`, `#bsm:name:descriptor` for invokedynamic. */
  readonly target: string;
}

export interface JavapMethod {
  /** `<init>` for constructors, `<clinit>` for the static initialiser. */
  readonly name: string;
  readonly descriptor: string;
  readonly flags: readonly string[];
  readonly instructions: readonly JavapInstruction[];
  readonly lines: readonly { readonly line: number; readonly pc: number }[];
}

export interface JavapClass {
  readonly name: string;
  readonly thisClass: string;
  readonly superClass: string | undefined;
  readonly counts: { readonly interfaces: number; readonly fields: number; readonly methods: number };
  readonly pool: ReadonlyMap<number, { readonly tag: string; readonly args: string }>;
  readonly methods: readonly JavapMethod[];
  readonly bootstraps: readonly { readonly handle: string; readonly args: readonly string[] }[];
  readonly sourceFile?: string;
}

const MEMBER_OPS = new Set(['invokevirtual', 'invokespecial', 'invokestatic', 'invokeinterface', 'invokedynamic', 'getfield', 'putfield', 'getstatic', 'putstatic', 'new']);

/** Splits the output of one `javap -v -p A B C` run into classes. */
export function parseJavap(text: string): JavapClass[] {
  const chunks = text.split(/^(?=Classfile )/m).filter((c) => c.startsWith('Classfile '));
  return chunks.map(parseOne);
}

function unquote(member: string): string {
  return member.replace(/"/g, '');
}

function parseOne(text: string): JavapClass {
  const lines = text.split('\n');
  const pool = new Map<number, { tag: string; args: string }>();
  let thisClass = '';
  let superClass: string | undefined;
  let counts = { interfaces: 0, fields: 0, methods: 0 };
  let sourceFile: string | undefined;
  const methods: JavapMethod[] = [];
  const bootstraps: { handle: string; args: string[] }[] = [];
  let i = 0;
  let name = '';
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    const decl = /^(?:public |protected |private |abstract |final |sealed |non-sealed |static |strictfp |synchronized )*(?:class|interface|enum|@interface|record) ([\w.$]+)/.exec(l.trim());
    if (decl && !name && !l.startsWith(' ')) name = decl[1]!;
    const tc = /^\s+this_class: #\d+\s+\/\/ (.+)$/.exec(l);
    if (tc) thisClass = tc[1]!.trim().replace(/"/g, '');
    const sc = /^\s+super_class: #(\d+)(?:\s+\/\/ (.+))?$/.exec(l);
    if (sc) superClass = sc[1] === '0' ? undefined : sc[2]?.trim().replace(/"/g, '');
    const ct = /^\s+interfaces: (\d+), fields: (\d+), methods: (\d+)/.exec(l);
    if (ct) counts = { interfaces: Number(ct[1]), fields: Number(ct[2]), methods: Number(ct[3]) };
    if (l.startsWith('Constant pool:')) {
      for (i++; i < lines.length && /^\s+#\d+ = /.test(lines[i]!); i++) {
        const m = /^\s+#(\d+) = (\w+)\s*(.*?)(?:\s+\/\/.*)?$/.exec(lines[i]!);
        if (m) pool.set(Number(m[1]), { tag: m[2]!, args: m[2] === 'Utf8' ? lines[i]!.replace(/^\s+#\d+ = Utf8\s{0,}/, '').replace(/^ +/, '') : m[3]!.trim() });
      }
      i--;
      continue;
    }
    if (l === '{') break;
  }
  // Members: a header line at indent 2, then descriptor/flags/Code/LineNumberTable at deeper indents.
  let cur: { name: string; descriptor: string; flags: string[]; instructions: JavapInstruction[]; lines: { line: number; pc: number }[] } | undefined;
  let isMethod = false;
  let section: 'code' | 'lines' | 'other' = 'other';
  for (i++; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '}') break;
    if (/^ {2}\S/.test(l)) {
      if (cur && isMethod) methods.push(cur);
      isMethod = /\(.*\)/.test(l) || /^ {2}static \{\};$/.test(l);
      const id = /([\w$.]+)\(/.exec(l)?.[1] ?? '';
      const simpleName = id.slice(id.lastIndexOf('.') + 1);
      const isCtor = id.includes('.') && (id === name || id.replace(/\$/g, '.') === name.replace(/\$/g, '.'));
      cur = { name: /^ {2}static \{\};$/.test(l) ? '<clinit>' : isCtor ? '<init>' : simpleName, descriptor: '', flags: [], instructions: [], lines: [] };
      section = 'other';
      continue;
    }
    if (!cur) continue;
    const d = /^ {4}descriptor: (.+)$/.exec(l);
    if (d) {
      cur.descriptor = d[1]!;
      continue;
    }
    const f = /^ {4}flags: \(0x[0-9a-f]+\)\s*(.*)$/.exec(l);
    if (f) {
      cur.flags = f[1] ? f[1].split(', ') : [];
      continue;
    }
    // Instructions first: a four-digit pc sits at the indent of a section header.
    if (section === 'code' && /^\s+\d+: \w/.test(l)) {
      const ins = /^\s+(\d+): (\w+)\s*(.*)$/.exec(l)!;
      if (!MEMBER_OPS.has(ins[2]!)) continue;
      const comment = /\/\/ (.*)$/.exec(ins[3]!)?.[1]?.trim() ?? '';
      let target: string;
      if (ins[2] === 'new') target = comment.replace(/^class /, '');
      else if (ins[2] === 'invokedynamic') {
        const m = /^InvokeDynamic #(\d+):(.+)$/.exec(comment);
        target = m ? `#${m[1]}:${unquote(m[2]!)}` : comment;
      } else target = unquote(comment.replace(/^(Method|InterfaceMethod|Field) /, ''));
      // javap omits the owner when it is the class itself.
      if (ins[2] !== 'new' && ins[2] !== 'invokedynamic' && !/^(\[+L[\w/$]+;|\[+[BCDFIJSZ]|[\w/$]+)\./.test(target)) target = `${thisClass}.${target}`;
      cur.instructions.push({ pc: Number(ins[1]), op: ins[2]!, target });
      continue;
    }
    if (/^ {4}Code:/.test(l)) {
      section = 'code';
      continue;
    }
    if (/^ {6}LineNumberTable:/.test(l)) {
      section = 'lines';
      continue;
    }
    if (/^ {6}\w+:/.test(l) || /^ {4}\w/.test(l)) {
      section = 'other';
      if (/^ {6}LineNumberTable:/.test(l)) section = 'lines';
      continue;
    }
    if (section === 'lines') {
      const ln = /^\s+line (\d+): (\d+)$/.exec(l);
      if (ln) cur.lines.push({ line: Number(ln[1]), pc: Number(ln[2]) });
    }
  }
  if (cur && isMethod) methods.push(cur);
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    const sf = /^SourceFile: "(.+)"$/.exec(l);
    if (sf) sourceFile = sf[1];
    if (l.startsWith('BootstrapMethods:')) {
      for (i++; i < lines.length && /^ {2}\d+: /.test(lines[i]!); ) {
        const h = /^ {2}\d+: #\d+ (.+)$/.exec(lines[i]!)!;
        const args: string[] = [];
        for (i++; i < lines.length && /^ {4}/.test(lines[i]!); i++) {
          const a = /^ {6}#\d+ (.*)$/.exec(lines[i]!);
          if (a) args.push(a[1]!.trim());
        }
        bootstraps.push({ handle: h[1]!.trim(), args });
      }
      i--;
    }
  }
  return { name, thisClass, superClass, counts, pool, methods, bootstraps, ...(sourceFile ? { sourceFile } : {}) };
}

/** The parser's view of the pool in javap's notation (`#4.#5`, `6:#291`, `0.5d`). */
export function poolText(e: CpEntry): { tag: string; args: string } {
  switch (e.tag) {
    case CP.Utf8:
      return { tag: 'Utf8', args: e.value };
    case CP.Integer:
      return { tag: 'Integer', args: String(e.value) };
    case CP.Float:
      return { tag: 'Float', args: String(e.value) };
    case CP.Long:
      return { tag: 'Long', args: String(e.value) };
    case CP.Double:
      return { tag: 'Double', args: String(e.value) };
    case CP.Class:
      return { tag: 'Class', args: `#${e.index}` };
    case CP.String:
      return { tag: 'String', args: `#${e.index}` };
    case CP.MethodType:
      return { tag: 'MethodType', args: `#${e.index}` };
    case CP.Module:
      return { tag: 'Module', args: `#${e.index}` };
    case CP.Package:
      return { tag: 'Package', args: `#${e.index}` };
    case CP.Fieldref:
      return { tag: 'Fieldref', args: `#${e.classIndex}.#${e.nameAndTypeIndex}` };
    case CP.Methodref:
      return { tag: 'Methodref', args: `#${e.classIndex}.#${e.nameAndTypeIndex}` };
    case CP.InterfaceMethodref:
      return { tag: 'InterfaceMethodref', args: `#${e.classIndex}.#${e.nameAndTypeIndex}` };
    case CP.NameAndType:
      return { tag: 'NameAndType', args: `#${e.nameIndex}:#${e.descriptorIndex}` };
    case CP.MethodHandle:
      return { tag: 'MethodHandle', args: `${e.referenceKind}:#${e.referenceIndex}` };
    case CP.Dynamic:
      return { tag: 'Dynamic', args: `#${e.bootstrapIndex}:#${e.nameAndTypeIndex}` };
    case CP.InvokeDynamic:
      return { tag: 'InvokeDynamic', args: `#${e.bootstrapIndex}:#${e.nameAndTypeIndex}` };
  }
}

/** Numbers javap prints with a suffix (1099511627776l, 0.5d, 3.1415927f) compared by value. */
export function samePoolEntry(mine: { tag: string; args: string }, theirs: { tag: string; args: string }): boolean {
  if (mine.tag !== theirs.tag) return false;
  if (mine.tag === 'Long') return BigInt(mine.args) === BigInt(theirs.args.replace(/l$/, ''));
  if (mine.tag === 'Double' || mine.tag === 'Float') {
    const t = theirs.args.replace(/[df]$/, '');
    const v = t === 'Infinity' ? Infinity : t === '-Infinity' ? -Infinity : t === 'NaN' ? NaN : Number(t);
    return mine.tag === 'Float' ? Object.is(Math.fround(v), Math.fround(Number(mine.args))) : Object.is(v, Number(mine.args));
  }
  if (mine.tag === 'Utf8') {
    // javap escapes quotes, backslashes, control and non-ASCII characters; its reader trims the line.
    const unescaped = theirs.args.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) =>
      c.length === 5 ? String.fromCharCode(parseInt(c.slice(1), 16)) : ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[c] ?? c,
    );
    return mine.args.trim() === unescaped.trim() || mine.args === unescaped;
  }
  return mine.args === theirs.args;
}

/** Every member instruction the parser reports, as javap lists them. */
export function instructionsOf(info: ClassInfo, methodIndex: number): { pc: number; op: string; target: string }[] {
  const m = info.methods[methodIndex]!;
  const out = [
    ...m.invokes.map((i) => ({ pc: i.pc, op: i.op, target: i.op === 'invokedynamic' ? `#?:${i.ref.name}:${i.ref.descriptor}` : `${i.ref.owner}.${i.ref.name}:${i.ref.descriptor}` })),
    ...m.fieldAccesses.map((f) => ({ pc: f.pc, op: f.op, target: `${f.ref.owner}.${f.ref.name}:${f.ref.descriptor}` })),
    ...m.news.map((n) => ({ pc: n.pc, op: 'new', target: n.type })),
  ];
  return out.sort((a, b) => a.pc - b.pc);
}

/** Checks one parsed class against javap's view of it; returns the number of instructions compared. */
export function assertMatchesJavap(info: ClassInfo, jp: JavapClass): number {
  assert.equal(info.name, jp.thisClass, 'this_class');
  assert.equal(info.superName, jp.superClass, `${info.name}: super_class`);
  assert.deepEqual({ interfaces: info.interfaces.length, fields: info.fields.length, methods: info.methods.length }, jp.counts, `${info.name}: counts`);
  if (jp.sourceFile) assert.equal(info.sourceFile, jp.sourceFile, `${info.name}: SourceFile`);
  let poolEntries = 0;
  for (const [i, theirs] of jp.pool) {
    const e = info.constantPool[i];
    assert.ok(e, `${info.name}: constant #${i} (${theirs.tag}) missing`);
    const mine = poolText(e);
    assert.ok(samePoolEntry(mine, theirs), `${info.name}: constant #${i}: parser ${mine.tag} ${mine.args}, javap ${theirs.tag} ${theirs.args}`);
    poolEntries++;
  }
  assert.equal(poolEntries, info.constantPool.filter(Boolean).length, `${info.name}: constant pool size`);
  assert.equal(info.methods.length, jp.methods.length, `${info.name}: methods`);
  let compared = 0;
  info.methods.forEach((m, k) => {
    const theirs = jp.methods[k]!;
    const where = `${info.name}.${m.name}${m.descriptor}`;
    assert.equal(m.descriptor, theirs.descriptor, `${where}: descriptor (method ${k})`);
    assert.equal(hasFlag(m.access, ACC.BRIDGE), theirs.flags.includes('ACC_BRIDGE'), `${where}: bridge flag`);
    assert.equal(hasFlag(m.access, ACC.SYNTHETIC), theirs.flags.includes('ACC_SYNTHETIC'), `${where}: synthetic flag`);
    const mine = instructionsOf(info, k);
    const expected = theirs.instructions.map((x) => (x.op === 'invokedynamic' ? { ...x, target: x.target.replace(/^#\d+:/, '#?:') } : x));
    assert.deepEqual(mine, expected, `${where}: member instructions`);
    compared += mine.length;
    // Lines: the entry with the greatest start pc at or before the instruction.
    const table = [...theirs.lines].sort((a, b) => a.pc - b.pc);
    const lineAt = (pc: number) => [...table].reverse().find((t) => t.pc <= pc)?.line;
    for (const inv of m.invokes) assert.equal(inv.line, lineAt(inv.pc), `${where}: line of the call at pc ${inv.pc}`);
    if (table.length) assert.deepEqual(m.lines, { first: Math.min(...table.map((t) => t.line)), last: Math.max(...table.map((t) => t.line)) }, `${where}: line range`);
    // invokedynamic: the bootstrap method and, for lambdas and method references, the implementation handle.
    for (const inv of m.invokes.filter((i) => i.op === 'invokedynamic')) {
      const idx = Number(/^#(\d+):/.exec(theirs.instructions.find((x) => x.pc === inv.pc)!.target)![1]);
      const bsm = jp.bootstraps[idx]!;
      assert.equal(`REF_${REF_KIND_NAMES[inv.bootstrap!.method.kind]} ${inv.bootstrap!.method.owner}.${inv.bootstrap!.method.name}:${inv.bootstrap!.method.descriptor}`, bsm.handle.replace(/"/g, ''), `${where}: bootstrap method at pc ${inv.pc}`);
      const impl = inv.bootstrap!.implementation;
      if (impl) assert.equal(`REF_${REF_KIND_NAMES[impl.kind]} ${impl.owner}.${impl.name}:${impl.descriptor}`, bsm.args[1]!.replace(/"/g, ''), `${where}: lambda implementation at pc ${inv.pc}`);
      else assert.ok(!bsm.handle.includes('LambdaMetafactory'), `${where}: a LambdaMetafactory call site without its implementation`);
    }
  });
  return compared;
}

