/**
 * A reader for JVM class files (JVMS §4): the constant pool, the class and
 * its supertypes, fields and methods with descriptors, the call sites in each
 * method's code (every `invoke*`, with `invokedynamic` lambdas and method
 * references resolved through the BootstrapMethods attribute), field
 * accesses, instantiations, line numbers, and annotations with their values.
 *
 * Only what the structural memory needs is decoded; everything else is
 * skipped by length, so class files of any version that keep the format
 * parse. A malformed file fails with ClassFormatError saying where, never
 * with an out-of-bounds read.
 */

export class ClassFormatError extends Error {
  override readonly name = 'ClassFormatError';
}

export const ACC = {
  PUBLIC: 0x0001,
  PRIVATE: 0x0002,
  PROTECTED: 0x0004,
  STATIC: 0x0008,
  FINAL: 0x0010,
  SYNCHRONIZED: 0x0020,
  /** class: ACC_SUPER; method: ACC_SYNCHRONIZED. */
  SUPER: 0x0020,
  BRIDGE: 0x0040,
  VOLATILE: 0x0040,
  VARARGS: 0x0080,
  TRANSIENT: 0x0080,
  NATIVE: 0x0100,
  INTERFACE: 0x0200,
  ABSTRACT: 0x0400,
  STRICT: 0x0800,
  SYNTHETIC: 0x1000,
  ANNOTATION: 0x2000,
  ENUM: 0x4000,
  MODULE: 0x8000,
} as const;

/** Constant pool tags (JVMS §4.4). */
export const CP = {
  Utf8: 1,
  Integer: 3,
  Float: 4,
  Long: 5,
  Double: 6,
  Class: 7,
  String: 8,
  Fieldref: 9,
  Methodref: 10,
  InterfaceMethodref: 11,
  NameAndType: 12,
  MethodHandle: 15,
  MethodType: 16,
  Dynamic: 17,
  InvokeDynamic: 18,
  Module: 19,
  Package: 20,
} as const;

export type CpEntry =
  | { tag: 1; value: string }
  | { tag: 3 | 4; value: number }
  | { tag: 5 | 6; value: bigint | number }
  | { tag: 7 | 8 | 16 | 19 | 20; index: number }
  | { tag: 9 | 10 | 11; classIndex: number; nameAndTypeIndex: number }
  | { tag: 12; nameIndex: number; descriptorIndex: number }
  | { tag: 15; referenceKind: number; referenceIndex: number }
  | { tag: 17 | 18; bootstrapIndex: number; nameAndTypeIndex: number };

/** A symbolic reference to a member: `owner.name:descriptor`, owner in internal form (`java/lang/String`). */
export interface MemberRef {
  readonly owner: string;
  readonly name: string;
  readonly descriptor: string;
  /** InterfaceMethodref rather than Methodref (an interface's static or default method, or invokeinterface). */
  readonly isInterface: boolean;
}

/** JVMS §4.4.8 reference kinds of a MethodHandle. */
export const REF_KIND_NAMES = ['', 'getField', 'getStatic', 'putField', 'putStatic', 'invokeVirtual', 'invokeStatic', 'invokeSpecial', 'newInvokeSpecial', 'invokeInterface'] as const;

export interface MethodHandleRef extends MemberRef {
  readonly kind: number;
}

export type InvokeOp = 'invokevirtual' | 'invokespecial' | 'invokestatic' | 'invokeinterface' | 'invokedynamic';

export interface Invoke {
  readonly op: InvokeOp;
  /** Bytecode offset of the instruction within the method's code. */
  readonly pc: number;
  /** Source line from the LineNumberTable, if the class was compiled with line numbers. */
  readonly line: number | undefined;
  /** The method named by the instruction (for invokedynamic: the call site's name and type, owner ''). */
  readonly ref: MemberRef;
  /** invokedynamic only: the bootstrap method and, for LambdaMetafactory, the method the lambda or method reference runs. */
  readonly bootstrap?: { readonly method: MethodHandleRef; readonly implementation?: MethodHandleRef };
}

export interface FieldAccess {
  readonly op: 'getfield' | 'putfield' | 'getstatic' | 'putstatic';
  readonly pc: number;
  readonly line: number | undefined;
  readonly ref: MemberRef;
}

/** `new C` (the object is constructed by the `invokespecial C.<init>` that follows). */
export interface New {
  readonly pc: number;
  readonly line: number | undefined;
  readonly type: string;
}

export type AnnotationValue =
  | { readonly kind: 'const'; readonly tag: string; readonly value: string | number | bigint | boolean }
  | { readonly kind: 'enum'; readonly type: string; readonly value: string }
  | { readonly kind: 'class'; readonly descriptor: string }
  | { readonly kind: 'annotation'; readonly annotation: Annotation }
  | { readonly kind: 'array'; readonly values: readonly AnnotationValue[] };

export interface Annotation {
  /** Field descriptor of the annotation type: `Lorg/springframework/stereotype/Service;`. */
  readonly type: string;
  readonly values: ReadonlyMap<string, AnnotationValue>;
  /** RuntimeVisible (true) or RuntimeInvisible (false, CLASS retention). */
  readonly visible: boolean;
}

export interface MethodInfo {
  readonly access: number;
  readonly name: string;
  readonly descriptor: string;
  readonly signature?: string;
  readonly annotations: readonly Annotation[];
  /** Annotations per formal parameter, as the class file lists them. */
  readonly parameterAnnotations: readonly (readonly Annotation[])[];
  readonly hasCode: boolean;
  readonly codeLength: number;
  readonly invokes: readonly Invoke[];
  readonly fieldAccesses: readonly FieldAccess[];
  readonly news: readonly New[];
  /** Smallest and largest line in the LineNumberTable, if any. */
  readonly lines?: { readonly first: number; readonly last: number };
  readonly exceptions: readonly string[];
  /** Parameter names from the MethodParameters attribute (javac -parameters, Spring Boot's default); undefined entries are unnamed. */
  readonly parameterNames?: readonly (string | undefined)[];
}

export interface FieldInfo {
  readonly access: number;
  readonly name: string;
  readonly descriptor: string;
  readonly signature?: string;
  readonly annotations: readonly Annotation[];
}

export interface InnerClassInfo {
  readonly inner: string;
  readonly outer: string | undefined;
  /** Simple name; undefined for an anonymous class. */
  readonly name: string | undefined;
  readonly access: number;
}

export interface BootstrapMethod {
  readonly method: MethodHandleRef;
  /** Constant pool indexes of the static arguments. */
  readonly args: readonly number[];
}

export interface ClassInfo {
  readonly minor: number;
  readonly major: number;
  readonly access: number;
  /** Internal name: `com/acme/settlement/SettlementService`, `com/acme/Outer$Inner`. */
  readonly name: string;
  readonly superName: string | undefined;
  readonly interfaces: readonly string[];
  readonly fields: readonly FieldInfo[];
  readonly methods: readonly MethodInfo[];
  readonly sourceFile?: string;
  readonly signature?: string;
  readonly annotations: readonly Annotation[];
  readonly innerClasses: readonly InnerClassInfo[];
  /** For local and anonymous classes: the class and method that enclose them. */
  readonly enclosingMethod?: { readonly owner: string; readonly name?: string; readonly descriptor?: string };
  readonly nestHost?: string;
  readonly permittedSubclasses: readonly string[];
  /** Record components (Java 16+), in declaration order. */
  readonly recordComponents?: readonly { readonly name: string; readonly descriptor: string }[];
  readonly bootstrapMethods: readonly BootstrapMethod[];
  /** The constant pool, index 0 unused, the second slot of a long/double undefined; empty unless asked for (`pool: true`). */
  readonly constantPool: readonly (CpEntry | undefined)[];
}

export interface ParseOptions {
  /** Decode method code (call sites, line numbers). Off: declarations only, several times faster. */
  readonly code?: boolean;
  /** Keep the constant pool in the result (tests compare it with javap); the rest of the reader does not need it. */
  readonly pool?: boolean;
}

/** Bytes of operands after each opcode; -1 for the variable-length ones (tableswitch, lookupswitch, wide), -2 for opcodes that do not exist. */
const OPERAND_BYTES: Int8Array = (() => {
  const t = new Int8Array(256).fill(-2);
  for (let op = 0x00; op <= 0xc9; op++) t[op] = 0;
  const set = (ops: number[], n: number) => ops.forEach((o) => (t[o] = n));
  set([0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0xbc], 1);
  set([0x11, 0x13, 0x14, 0x84, 0xa7, 0xa8, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7], 2);
  for (let op = 0x99; op <= 0xa6; op++) t[op] = 2;
  set([0xc5], 3);
  set([0xb9, 0xba, 0xc8, 0xc9], 4);
  set([0xaa, 0xab, 0xc4], -1);
  // 0xca breakpoint, 0xfe impdep1, 0xff impdep2: reserved, never in a valid class file.
  return t;
})();

const INVOKE_OPS: Record<number, InvokeOp> = { 0xb6: 'invokevirtual', 0xb7: 'invokespecial', 0xb8: 'invokestatic', 0xb9: 'invokeinterface', 0xba: 'invokedynamic' };
const FIELD_OPS: Record<number, FieldAccess['op']> = { 0xb2: 'getstatic', 0xb3: 'putstatic', 0xb4: 'getfield', 0xb5: 'putfield' };

/** Java's modified UTF-8 (JVMS §4.4.7), decoded straight to UTF-16 code units as JavaScript strings hold them. */
function decodeModifiedUtf8(buf: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (buf[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1');
  const units: number[] = [];
  let i = start;
  while (i < end) {
    const a = buf[i]!;
    if (a < 0x80) {
      units.push(a);
      i++;
    } else if ((a & 0xe0) === 0xc0 && i + 1 < end) {
      units.push(((a & 0x1f) << 6) | (buf[i + 1]! & 0x3f));
      i += 2;
    } else if ((a & 0xf0) === 0xe0 && i + 2 < end) {
      units.push(((a & 0x0f) << 12) | ((buf[i + 1]! & 0x3f) << 6) | (buf[i + 2]! & 0x3f));
      i += 3;
    } else {
      throw new ClassFormatError(`invalid modified UTF-8 byte 0x${a.toString(16)} at offset ${i}`);
    }
  }
  let s = '';
  for (let k = 0; k < units.length; k += 8192) s += String.fromCharCode(...units.slice(k, k + 8192));
  return s;
}

class Reader {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    private readonly view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength),
  ) {}

  need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.buf.length) {
      throw new ClassFormatError(`truncated class file: ${what} needs ${n} bytes at offset ${this.pos}, only ${this.buf.length - this.pos} left`);
    }
  }
  u1(what = 'u1'): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }
  u2(what = 'u2'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  u4(what = 'u4'): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  s4At(at: number): number {
    if (at + 4 > this.buf.length) throw new ClassFormatError(`truncated code at offset ${at}`);
    return this.view.getInt32(at);
  }
  i4(): number {
    this.need(4, 'int');
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }
  f4(): number {
    this.need(4, 'float');
    const v = this.view.getFloat32(this.pos);
    this.pos += 4;
    return v;
  }
  i8(): bigint {
    this.need(8, 'long');
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }
  f8(): number {
    this.need(8, 'double');
    const v = this.view.getFloat64(this.pos);
    this.pos += 8;
    return v;
  }
  skip(n: number, what: string): void {
    this.need(n, what);
    this.pos += n;
  }
}

/** Constant pool accessors with checked indexes and tags. */
class Pool {
  constructor(readonly entries: (CpEntry | undefined)[]) {}

  private get(i: number, what: string): CpEntry {
    const e = i > 0 && i < this.entries.length ? this.entries[i] : undefined;
    if (!e) throw new ClassFormatError(`${what}: constant pool index ${i} is out of range or unusable (pool size ${this.entries.length})`);
    return e;
  }

  utf8(i: number, what = 'name'): string {
    const e = this.get(i, what);
    if (e.tag !== CP.Utf8) throw new ClassFormatError(`${what}: constant #${i} is tag ${e.tag}, expected Utf8`);
    return e.value;
  }

  className(i: number, what = 'class'): string {
    const e = this.get(i, what);
    if (e.tag !== CP.Class) throw new ClassFormatError(`${what}: constant #${i} is tag ${e.tag}, expected Class`);
    return this.utf8(e.index, what);
  }

  optionalClassName(i: number, what: string): string | undefined {
    return i === 0 ? undefined : this.className(i, what);
  }

  nameAndType(i: number, what: string): { name: string; descriptor: string } {
    const e = this.get(i, what);
    if (e.tag !== CP.NameAndType) throw new ClassFormatError(`${what}: constant #${i} is tag ${e.tag}, expected NameAndType`);
    return { name: this.utf8(e.nameIndex, what), descriptor: this.utf8(e.descriptorIndex, what) };
  }

  memberRef(i: number, what: string): MemberRef {
    const e = this.get(i, what);
    if (e.tag !== CP.Fieldref && e.tag !== CP.Methodref && e.tag !== CP.InterfaceMethodref) {
      throw new ClassFormatError(`${what}: constant #${i} is tag ${e.tag}, expected a member reference`);
    }
    const nt = this.nameAndType(e.nameAndTypeIndex, what);
    return { owner: this.className(e.classIndex, what), name: nt.name, descriptor: nt.descriptor, isInterface: e.tag === CP.InterfaceMethodref };
  }

  methodHandle(i: number, what: string): MethodHandleRef {
    const e = this.get(i, what);
    if (e.tag !== CP.MethodHandle) throw new ClassFormatError(`${what}: constant #${i} is tag ${e.tag}, expected MethodHandle`);
    return { kind: e.referenceKind, ...this.memberRef(e.referenceIndex, what) };
  }

  tagOf(i: number): number | undefined {
    return i > 0 && i < this.entries.length ? this.entries[i]?.tag : undefined;
  }

  raw(i: number, what: string): CpEntry {
    return this.get(i, what);
  }
}

function readConstantPool(r: Reader): Pool {
  const count = r.u2('constant_pool_count');
  const entries: (CpEntry | undefined)[] = new Array(count);
  for (let i = 1; i < count; i++) {
    const at = r.pos;
    const tag = r.u1('constant tag');
    switch (tag) {
      case CP.Utf8: {
        const len = r.u2('Utf8 length');
        r.need(len, 'Utf8 bytes');
        entries[i] = { tag, value: decodeModifiedUtf8(r.buf, r.pos, r.pos + len) };
        r.pos += len;
        break;
      }
      case CP.Integer:
        entries[i] = { tag, value: r.i4() };
        break;
      case CP.Float:
        entries[i] = { tag, value: r.f4() };
        break;
      case CP.Long:
        entries[i] = { tag, value: r.i8() };
        i++; // takes two slots (JVMS §4.4.5)
        break;
      case CP.Double:
        entries[i] = { tag, value: r.f8() };
        i++;
        break;
      case CP.Class:
      case CP.String:
      case CP.MethodType:
      case CP.Module:
      case CP.Package:
        entries[i] = { tag, index: r.u2() };
        break;
      case CP.Fieldref:
      case CP.Methodref:
      case CP.InterfaceMethodref:
        entries[i] = { tag, classIndex: r.u2(), nameAndTypeIndex: r.u2() };
        break;
      case CP.NameAndType:
        entries[i] = { tag, nameIndex: r.u2(), descriptorIndex: r.u2() };
        break;
      case CP.MethodHandle:
        entries[i] = { tag, referenceKind: r.u1(), referenceIndex: r.u2() };
        break;
      case CP.Dynamic:
      case CP.InvokeDynamic:
        entries[i] = { tag, bootstrapIndex: r.u2(), nameAndTypeIndex: r.u2() };
        break;
      default:
        throw new ClassFormatError(`unknown constant pool tag ${tag} at entry #${i} (offset ${at})`);
    }
  }
  return new Pool(entries);
}

interface RawAttribute {
  readonly name: string;
  readonly start: number;
  readonly length: number;
}

function readAttributes(r: Reader, pool: Pool, where: string): RawAttribute[] {
  const n = r.u2(`${where} attributes_count`);
  const out: RawAttribute[] = [];
  for (let i = 0; i < n; i++) {
    const name = pool.utf8(r.u2(`${where} attribute name`), `${where} attribute name`);
    const length = r.u4(`${where} attribute length`);
    const start = r.pos;
    r.skip(length, `${where} attribute ${name}`);
    out.push({ name, start, length });
  }
  return out;
}

function readElementValue(r: Reader, pool: Pool): AnnotationValue {
  const tag = String.fromCharCode(r.u1('element_value tag'));
  switch (tag) {
    case 'B':
    case 'C':
    case 'I':
    case 'S':
    case 'Z':
    case 'J':
    case 'F':
    case 'D':
    case 's': {
      const idx = r.u2();
      const e = pool.raw(idx, 'annotation constant');
      let value: string | number | bigint | boolean;
      if (e.tag === CP.Utf8) value = e.value;
      else if (e.tag === CP.Integer || e.tag === CP.Float || e.tag === CP.Long || e.tag === CP.Double) value = e.value;
      else throw new ClassFormatError(`annotation constant #${idx} has tag ${e.tag}`);
      if (tag === 'Z') value = value === 1;
      else if (tag === 'C' && typeof value === 'number') value = String.fromCharCode(value);
      return { kind: 'const', tag, value };
    }
    case 'e':
      return { kind: 'enum', type: pool.utf8(r.u2(), 'enum type'), value: pool.utf8(r.u2(), 'enum constant') };
    case 'c':
      return { kind: 'class', descriptor: pool.utf8(r.u2(), 'class value') };
    case '@':
      return { kind: 'annotation', annotation: readAnnotation(r, pool, true) };
    case '[': {
      const n = r.u2('array length');
      const values: AnnotationValue[] = [];
      for (let i = 0; i < n; i++) values.push(readElementValue(r, pool));
      return { kind: 'array', values };
    }
    default:
      throw new ClassFormatError(`unknown annotation element tag '${tag}' at offset ${r.pos - 1}`);
  }
}

function readAnnotation(r: Reader, pool: Pool, visible: boolean): Annotation {
  const type = pool.utf8(r.u2('annotation type'), 'annotation type');
  const n = r.u2('annotation pairs');
  const values = new Map<string, AnnotationValue>();
  for (let i = 0; i < n; i++) {
    const name = pool.utf8(r.u2('element name'), 'element name');
    values.set(name, readElementValue(r, pool));
  }
  return { type, values, visible };
}

function sub(r: Reader, a: RawAttribute): Reader {
  return new Reader(r.buf.subarray(a.start, a.start + a.length));
}

function readAnnotations(r: Reader, attrs: readonly RawAttribute[], pool: Pool): Annotation[] {
  const out: Annotation[] = [];
  for (const a of attrs) {
    const visible = a.name === 'RuntimeVisibleAnnotations';
    if (!visible && a.name !== 'RuntimeInvisibleAnnotations') continue;
    const ar = sub(r, a);
    const n = ar.u2('annotations count');
    for (let i = 0; i < n; i++) out.push(readAnnotation(ar, pool, visible));
  }
  return out;
}

function readParameterAnnotations(r: Reader, attrs: readonly RawAttribute[], pool: Pool): Annotation[][] {
  const out: Annotation[][] = [];
  for (const a of attrs) {
    const visible = a.name === 'RuntimeVisibleParameterAnnotations';
    if (!visible && a.name !== 'RuntimeInvisibleParameterAnnotations') continue;
    const ar = sub(r, a);
    const params = ar.u1('parameter count');
    for (let p = 0; p < params; p++) {
      const n = ar.u2('annotations count');
      out[p] ??= [];
      for (let i = 0; i < n; i++) out[p]!.push(readAnnotation(ar, pool, visible));
    }
  }
  for (let i = 0; i < out.length; i++) out[i] ??= [];
  return out;
}

function signatureOf(r: Reader, attrs: readonly RawAttribute[], pool: Pool): string | undefined {
  const a = attrs.find((x) => x.name === 'Signature');
  return a ? pool.utf8(sub(r, a).u2('signature'), 'signature') : undefined;
}

function readBootstrapMethods(r: Reader, attrs: readonly RawAttribute[], pool: Pool): BootstrapMethod[] {
  const a = attrs.find((x) => x.name === 'BootstrapMethods');
  if (!a) return [];
  const br = sub(r, a);
  const n = br.u2('bootstrap methods');
  const out: BootstrapMethod[] = [];
  for (let i = 0; i < n; i++) {
    const method = pool.methodHandle(br.u2('bootstrap method'), `bootstrap method ${i}`);
    const argc = br.u2('bootstrap arguments');
    const args: number[] = [];
    for (let k = 0; k < argc; k++) args.push(br.u2('bootstrap argument'));
    out.push({ method, args });
  }
  return out;
}

const LAMBDA_FACTORY = 'java/lang/invoke/LambdaMetafactory';

interface CodeFacts {
  invokes: Invoke[];
  fieldAccesses: FieldAccess[];
  news: New[];
  lines?: { first: number; last: number };
  codeLength: number;
}

function readCode(r: Reader, a: RawAttribute, pool: Pool, bootstraps: readonly BootstrapMethod[], where: string): CodeFacts {
  const cr = sub(r, a);
  cr.skip(4, 'max_stack/max_locals');
  const codeLength = cr.u4('code_length');
  const codeStart = cr.pos;
  cr.skip(codeLength, 'code');
  const excLen = cr.u2('exception_table_length');
  cr.skip(excLen * 8, 'exception table');
  const attrs = readAttributes(cr, pool, `${where} Code`);

  // Line numbers: start_pc → line, sorted by pc so each instruction finds the entry at or before it.
  let lineTable: { pc: number; line: number }[] = [];
  for (const la of attrs) {
    if (la.name !== 'LineNumberTable') continue;
    const lr = sub(cr, la);
    const n = lr.u2('line_number_table_length');
    for (let i = 0; i < n; i++) lineTable.push({ pc: lr.u2(), line: lr.u2() });
  }
  lineTable = lineTable.sort((x, y) => x.pc - y.pc);
  let li = -1;
  const lineAt = (pc: number): number | undefined => {
    // Instructions are visited in pc order: advance through the table.
    while (li + 1 < lineTable.length && lineTable[li + 1]!.pc <= pc) li++;
    return li >= 0 ? lineTable[li]!.line : undefined;
  };

  const code = cr.buf;
  const invokes: Invoke[] = [];
  const fieldAccesses: FieldAccess[] = [];
  const news: New[] = [];
  const u2 = (at: number) => {
    if (at + 2 > codeStart + codeLength) throw new ClassFormatError(`${where}: instruction operand past the end of the code at pc ${at - codeStart}`);
    return (code[at]! << 8) | code[at + 1]!;
  };
  let pc = 0;
  while (pc < codeLength) {
    const at = codeStart + pc;
    const op = code[at]!;
    let len = OPERAND_BYTES[op]!;
    if (len === -2) throw new ClassFormatError(`${where}: unknown opcode 0x${op.toString(16)} at pc ${pc}`);
    if (len === -1) {
      if (op === 0xc4) {
        // wide: iinc takes an extra 2-byte constant
        len = code[at + 1] === 0x84 ? 5 : 3;
      } else {
        const pad = (4 - ((pc + 1) % 4)) % 4;
        const base = at + 1 + pad;
        if (op === 0xaa) {
          const low = cr.s4At(base + 4);
          const high = cr.s4At(base + 8);
          if (high < low) throw new ClassFormatError(`${where}: tableswitch with high < low at pc ${pc}`);
          len = pad + 12 + (high - low + 1) * 4;
        } else {
          const npairs = cr.s4At(base + 4);
          if (npairs < 0) throw new ClassFormatError(`${where}: lookupswitch with negative npairs at pc ${pc}`);
          len = pad + 8 + npairs * 8;
        }
      }
    }
    if (pc + 1 + len > codeLength) throw new ClassFormatError(`${where}: instruction at pc ${pc} runs past the end of the code`);
    const invokeOp = INVOKE_OPS[op];
    if (invokeOp) {
      const idx = u2(at + 1);
      if (invokeOp === 'invokedynamic') {
        const e = pool.raw(idx, `${where} invokedynamic`);
        if (e.tag !== CP.InvokeDynamic) throw new ClassFormatError(`${where}: invokedynamic at pc ${pc} names constant #${idx} of tag ${e.tag}`);
        const nt = pool.nameAndType(e.nameAndTypeIndex, `${where} invokedynamic`);
        const bsm = bootstraps[e.bootstrapIndex];
        if (!bsm) throw new ClassFormatError(`${where}: invokedynamic at pc ${pc} names bootstrap method ${e.bootstrapIndex} of ${bootstraps.length}`);
        let implementation: MethodHandleRef | undefined;
        if (bsm.method.owner === LAMBDA_FACTORY && bsm.args.length >= 2 && pool.tagOf(bsm.args[1]!) === CP.MethodHandle) {
          implementation = pool.methodHandle(bsm.args[1]!, `${where} lambda implementation`);
        }
        invokes.push({
          op: invokeOp,
          pc,
          line: lineAt(pc),
          ref: { owner: '', name: nt.name, descriptor: nt.descriptor, isInterface: false },
          bootstrap: implementation ? { method: bsm.method, implementation } : { method: bsm.method },
        });
      } else {
        invokes.push({ op: invokeOp, pc, line: lineAt(pc), ref: pool.memberRef(idx, `${where} ${invokeOp}`) });
      }
    } else if (FIELD_OPS[op]) {
      fieldAccesses.push({ op: FIELD_OPS[op], pc, line: lineAt(pc), ref: pool.memberRef(u2(at + 1), `${where} field access`) });
    } else if (op === 0xbb) {
      news.push({ pc, line: lineAt(pc), type: pool.className(u2(at + 1), `${where} new`) });
    }
    pc += 1 + len;
  }
  let lines: { first: number; last: number } | undefined;
  for (const e of lineTable) {
    if (!lines) lines = { first: e.line, last: e.line };
    else {
      if (e.line < lines.first) lines.first = e.line;
      if (e.line > lines.last) lines.last = e.line;
    }
  }
  return { invokes, fieldAccesses, news, codeLength, ...(lines ? { lines } : {}) };
}

function readParameterNames(r: Reader, attrs: readonly RawAttribute[], pool: Pool): (string | undefined)[] | undefined {
  const a = attrs.find((x) => x.name === 'MethodParameters');
  if (!a) return undefined;
  const pr = sub(r, a);
  const n = pr.u1('parameters_count');
  const out: (string | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    const nameIndex = pr.u2('parameter name');
    pr.u2('parameter flags');
    out.push(nameIndex ? pool.utf8(nameIndex, 'parameter name') : undefined);
  }
  return out;
}

function readExceptions(r: Reader, attrs: readonly RawAttribute[], pool: Pool): string[] {
  const a = attrs.find((x) => x.name === 'Exceptions');
  if (!a) return [];
  const er = sub(r, a);
  const n = er.u2('exceptions');
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pool.className(er.u2(), 'exception'));
  return out;
}

/** Parses one class file. Throws ClassFormatError, with the offset, when the bytes are not a valid class file. */
export function parseClassFile(bytes: Uint8Array, options: ParseOptions = {}): ClassInfo {
  const withCode = options.code ?? true;
  const r = new Reader(bytes);
  if (bytes.length < 10) throw new ClassFormatError(`not a class file: ${bytes.length} bytes`);
  const magic = r.u4('magic');
  if (magic !== 0xcafebabe) throw new ClassFormatError(`not a class file: magic 0x${magic.toString(16).padStart(8, '0')}, expected 0xcafebabe`);
  const minor = r.u2();
  const major = r.u2();
  if (major < 45) throw new ClassFormatError(`not a class file: major version ${major}`);
  const pool = readConstantPool(r);
  const access = r.u2('access_flags');
  const name = pool.className(r.u2('this_class'), 'this_class');
  const superName = pool.optionalClassName(r.u2('super_class'), 'super_class');
  const ni = r.u2('interfaces_count');
  const interfaces: string[] = [];
  for (let i = 0; i < ni; i++) interfaces.push(pool.className(r.u2(), 'interface'));

  const nf = r.u2('fields_count');
  const fields: FieldInfo[] = [];
  for (let i = 0; i < nf; i++) {
    const fAccess = r.u2();
    const fName = pool.utf8(r.u2(), 'field name');
    const fDesc = pool.utf8(r.u2(), 'field descriptor');
    const attrs = readAttributes(r, pool, `field ${fName}`);
    const signature = signatureOf(r, attrs, pool);
    fields.push({ access: fAccess, name: fName, descriptor: fDesc, ...(signature ? { signature } : {}), annotations: readAnnotations(r, attrs, pool) });
  }

  // Methods are read after the class attributes: their code needs the BootstrapMethods table.
  const nm = r.u2('methods_count');
  const rawMethods: { access: number; name: string; descriptor: string; attrs: RawAttribute[] }[] = [];
  for (let i = 0; i < nm; i++) {
    const mAccess = r.u2();
    const mName = pool.utf8(r.u2(), 'method name');
    const mDesc = pool.utf8(r.u2(), 'method descriptor');
    rawMethods.push({ access: mAccess, name: mName, descriptor: mDesc, attrs: readAttributes(r, pool, `method ${mName}`) });
  }
  const classAttrs = readAttributes(r, pool, 'class');
  if (r.pos !== bytes.length) throw new ClassFormatError(`${bytes.length - r.pos} extra bytes after the class file's last attribute`);
  const bootstrapMethods = readBootstrapMethods(r, classAttrs, pool);

  const methods: MethodInfo[] = rawMethods.map((m) => {
    const where = `${name}.${m.name}${m.descriptor}`;
    const codeAttr = m.attrs.find((a) => a.name === 'Code');
    const facts: CodeFacts = codeAttr && withCode ? readCode(r, codeAttr, pool, bootstrapMethods, where) : { invokes: [], fieldAccesses: [], news: [], codeLength: codeAttr ? -1 : 0 };
    const signature = signatureOf(r, m.attrs, pool);
    const parameterNames = readParameterNames(r, m.attrs, pool);
    return {
      access: m.access,
      name: m.name,
      descriptor: m.descriptor,
      ...(signature ? { signature } : {}),
      annotations: readAnnotations(r, m.attrs, pool),
      parameterAnnotations: readParameterAnnotations(r, m.attrs, pool),
      hasCode: !!codeAttr,
      codeLength: facts.codeLength,
      invokes: facts.invokes,
      fieldAccesses: facts.fieldAccesses,
      news: facts.news,
      ...(facts.lines ? { lines: facts.lines } : {}),
      exceptions: readExceptions(r, m.attrs, pool),
      ...(parameterNames ? { parameterNames } : {}),
    };
  });

  let sourceFile: string | undefined;
  let enclosingMethod: ClassInfo['enclosingMethod'];
  let nestHost: string | undefined;
  const innerClasses: InnerClassInfo[] = [];
  const permittedSubclasses: string[] = [];
  let recordComponents: { name: string; descriptor: string }[] | undefined;
  for (const a of classAttrs) {
    const ar = sub(r, a);
    switch (a.name) {
      case 'SourceFile':
        sourceFile = pool.utf8(ar.u2(), 'SourceFile');
        break;
      case 'InnerClasses': {
        const n = ar.u2('inner classes');
        for (let i = 0; i < n; i++) {
          const inner = pool.className(ar.u2(), 'inner class');
          const outer = pool.optionalClassName(ar.u2(), 'outer class');
          const ni2 = ar.u2();
          innerClasses.push({ inner, outer, name: ni2 ? pool.utf8(ni2, 'inner name') : undefined, access: ar.u2() });
        }
        break;
      }
      case 'EnclosingMethod': {
        const owner = pool.className(ar.u2(), 'enclosing class');
        const mi = ar.u2();
        if (mi) {
          const nt = pool.nameAndType(mi, 'enclosing method');
          enclosingMethod = { owner, name: nt.name, descriptor: nt.descriptor };
        } else enclosingMethod = { owner };
        break;
      }
      case 'NestHost':
        nestHost = pool.className(ar.u2(), 'nest host');
        break;
      case 'PermittedSubclasses': {
        const n = ar.u2();
        for (let i = 0; i < n; i++) permittedSubclasses.push(pool.className(ar.u2(), 'permitted subclass'));
        break;
      }
      case 'Record': {
        const n = ar.u2('record components');
        recordComponents = [];
        for (let i = 0; i < n; i++) {
          const cName = pool.utf8(ar.u2(), 'record component');
          const cDesc = pool.utf8(ar.u2(), 'record component descriptor');
          readAttributes(ar, pool, `record component ${cName}`);
          recordComponents.push({ name: cName, descriptor: cDesc });
        }
        break;
      }
    }
  }
  const signature = signatureOf(r, classAttrs, pool);
  return {
    minor,
    major,
    access,
    name,
    superName,
    interfaces,
    fields,
    methods,
    ...(sourceFile !== undefined ? { sourceFile } : {}),
    ...(signature ? { signature } : {}),
    annotations: readAnnotations(r, classAttrs, pool),
    innerClasses,
    ...(enclosingMethod ? { enclosingMethod } : {}),
    ...(nestHost ? { nestHost } : {}),
    permittedSubclasses,
    ...(recordComponents ? { recordComponents } : {}),
    bootstrapMethods,
    constantPool: options.pool ? pool.entries : [],
  };
}

export function hasFlag(access: number, flag: number): boolean {
  return (access & flag) !== 0;
}
