import * as fs from 'node:fs';
import * as path from 'node:path';

let cachedRoot: string | undefined;

/**
 * The folder that holds Tenure's package.json. Code runs from several layouts
 * (esbuild bundles in dist/, tsc output in out/src/…, the installed VSIX), so
 * assets are found by walking up rather than by a fixed relative path.
 */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tenure') return (cachedRoot = dir);
      } catch {
        // not ours; keep walking
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`Cannot find Tenure's package root above ${__dirname}`);
    dir = up;
  }
}

/** The folder a workspace-relative path sits in (`src/a/b.ts` → `src/a`); '' at the root. */
export function folderOf(rel: string): string {
  const dir = path.posix.dirname(rel);
  return dir === '.' ? '' : dir;
}

/** Workspace-relative path with forward slashes, the form stored and shown. */
export function toPosixRelative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Every file under a folder whose name ends with `suffix` (`.java`, `.class`), sorted: a plain walk for build inputs and outputs, not the workspace walk (discover.ts). */
export function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(suffix)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Whether a workspace-relative path is test code by the conventions of the languages read here: a folder named
 * test, tests, __tests__, testing, testdata, testutil or e2e, a `spec` folder at the top (Jasmine's, RSpec's), or a
 * file named as a test (`x_test.go`, `test_x.py`, `x_test.py`, `tests.py`, `conftest.py`, `x.test.ts`, `x.spec.js`,
 * `XTest.java`, `XTests.java`). A `spec` folder deeper in is as often the product's own specification
 * (`src/lib/openapi/spec/`, Unleash's OpenAPI schemas).
 */
export function isTestPath(rel: string): boolean {
  const parts = rel.split('/');
  const file = parts.pop() ?? '';
  if (parts.some((p) => /^(tests?|__tests__|testing|testdata|testutils?|e2e)$/i.test(p)) || /^specs?$/i.test(parts[0] ?? '')) return true;
  return /(_test\.go|^test_.*\.py|_test\.py|^tests?\.py|^conftest\.py|\.(test|spec)\.[cm]?[jt]sx?|Tests?\.java)$/.test(file);
}
