import { ClassFormatError } from './classFile.js';

/**
 * JVM descriptors (JVMS §4.3): `(Ljava/lang/String;I)V` ⇄ types people read.
 */

const PRIMITIVES: Record<string, string> = { B: 'byte', C: 'char', D: 'double', F: 'float', I: 'int', J: 'long', S: 'short', Z: 'boolean', V: 'void' };

export interface FieldType {
  /** Internal class name (`java/lang/String`) for an object type, else the primitive keyword. */
  readonly base: string;
  readonly dims: number;
  readonly primitive: boolean;
}

function readType(desc: string, i: number): { type: FieldType; next: number } {
  let dims = 0;
  while (desc[i] === '[') {
    dims++;
    i++;
  }
  const c = desc[i];
  if (c === 'L') {
    const end = desc.indexOf(';', i);
    if (end < 0) throw new ClassFormatError(`malformed descriptor ${desc}`);
    return { type: { base: desc.slice(i + 1, end), dims, primitive: false }, next: end + 1 };
  }
  if (c && PRIMITIVES[c]) return { type: { base: PRIMITIVES[c]!, dims, primitive: true }, next: i + 1 };
  throw new ClassFormatError(`malformed descriptor ${desc} at ${i}`);
}

export function parseFieldDescriptor(desc: string): FieldType {
  const { type, next } = readType(desc, 0);
  if (next !== desc.length) throw new ClassFormatError(`malformed field descriptor ${desc}`);
  return type;
}

export function parseMethodDescriptor(desc: string): { params: FieldType[]; returns: FieldType } {
  if (desc[0] !== '(') throw new ClassFormatError(`malformed method descriptor ${desc}`);
  const params: FieldType[] = [];
  let i = 1;
  while (desc[i] !== ')') {
    if (i >= desc.length) throw new ClassFormatError(`malformed method descriptor ${desc}`);
    const { type, next } = readType(desc, i);
    params.push(type);
    i = next;
  }
  const { type, next } = readType(desc, i + 1);
  if (next !== desc.length) throw new ClassFormatError(`malformed method descriptor ${desc}`);
  return { params, returns: type };
}

/** `java/util/Map$Entry` → `java.util.Map.Entry` (nested classes read with dots, as source writes them). */
export function javaName(internal: string): string {
  return internal.replace(/[/$]/g, '.');
}

/** Package of an internal name: `com/acme/X` → `com.acme`. */
export function packageOf(internal: string): string {
  const i = internal.lastIndexOf('/');
  return i < 0 ? '' : internal.slice(0, i).replace(/\//g, '.');
}
