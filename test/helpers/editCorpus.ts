import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A small two-language corpus that exercises what incremental indexing gets
 * wrong: TypeScript modules importing through a barrel (`index.ts`
 * re-exports), a Python package whose `__init__.py` re-exports, direct
 * imports, calls, classes and methods. Each file has variants (an edit picks
 * another), which add and drop definitions, imports and calls.
 */
export const CORPUS_FILES = 12;

export function tsFile(i: number, v: number): string {
  const n = CORPUS_FILES;
  const viaBarrel = (i + 1 + v) % n;
  const direct = (i + 2 + (v >> 1)) % n;
  const lines = [
    `import { f${viaBarrel}_a } from './index';`,
    ...(direct !== i ? [`import { C${direct} } from './m${direct}';`] : []),
    `export function f${i}_a(x: number): number {`,
    `  return f${viaBarrel}_a(x - 1) + ${v};`,
    `}`,
    ...(v % 2 ? [`export function f${i}_b(): number {`, `  return f${i}_a(${v});`, `}`] : []),
    `export class C${i} {`,
    `  run(): number {`,
    `    return f${i}_a(1)${v % 3 === 0 ? ` + this.helper()` : ''};`,
    `  }`,
    ...(v % 3 === 0 ? [`  helper(): number {`, `    return 2;`, `  }`] : []),
    `}`,
    ...(direct !== i ? [`export function use${i}(): number {`, `  return new C${direct}().run();`, `}`] : []),
    `// variant ${v}`,
  ];
  return lines.join('\n') + '\n';
}

export function pyFile(i: number, v: number): string {
  const n = CORPUS_FILES;
  const viaInit = (i + 1 + v) % n;
  const direct = (i + 3 + (v >> 1)) % n;
  const lines = [
    `from pkg import g${viaInit}_a`,
    ...(direct !== i ? [`from pkg.m${direct} import K${direct}`] : []),
    ``,
    `def g${i}_a(x):`,
    `    return g${viaInit}_a(x - 1) + ${v}`,
    ``,
    ...(v % 2 ? [`def g${i}_b():`, `    return g${i}_a(${v})`, ``] : []),
    `class K${i}:`,
    `    def run(self):`,
    `        return g${i}_a(1)`,
    ``,
    ...(direct !== i ? [`def use${i}():`, `    return K${direct}().run()`, ``] : []),
    `# variant ${v}`,
  ];
  return lines.join('\n') + '\n';
}

export function tsBarrel(): string {
  return Array.from({ length: CORPUS_FILES }, (_, i) => `export { f${i}_a, C${i} } from './m${i}';`).join('\n') + '\n';
}

export function pyInit(): string {
  return Array.from({ length: CORPUS_FILES }, (_, i) => `from .m${i} import g${i}_a, K${i}`).join('\n') + '\n';
}

/** Every file of the corpus, relative path → text, at variant 0. */
export function writeCorpus(root: string): string[] {
  const rels: string[] = [];
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
    rels.push(rel);
  };
  put('src/index.ts', tsBarrel());
  put('pkg/__init__.py', pyInit());
  for (let i = 0; i < CORPUS_FILES; i++) {
    put(`src/m${i}.ts`, tsFile(i, 0));
    put(`pkg/m${i}.py`, pyFile(i, 0));
  }
  return rels;
}

/** The edit a step makes: a file of the corpus rewritten at another variant. */
export function editOf(rel: string, v: number): string {
  const ts = /^src\/m(\d+)\.ts$/.exec(rel);
  if (ts) return tsFile(Number(ts[1]), v);
  const py = /^pkg\/m(\d+)\.py$/.exec(rel);
  if (py) return pyFile(Number(py[1]), v);
  throw new Error(`not an editable corpus file: ${rel}`);
}

/** A seeded generator, so a failing run can be repeated. */
export function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}
