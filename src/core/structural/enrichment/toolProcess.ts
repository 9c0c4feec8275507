import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * How Tenure starts the type checkers it enriches with (language servers,
 * SCIP indexers, the TypeScript compiler): from its own dependencies, with an
 * environment the repository under index cannot steer. The repository is
 * untrusted input: a checked-in `node_modules/typescript/lib/tsserver.js`, a
 * `.venv/bin/python3` or a `node_modules/.bin/pyright` would run as the user
 * if anything looked them up from the workspace. `npx tenure …` run inside a
 * repository puts its `node_modules/.bin` first on PATH, and an activated
 * virtual environment puts its `bin/`; neither may decide which program a
 * checker starts.
 */

/** A file of one of Tenure's own dependencies (`typescript/lib/tsserver.js`), resolved from Tenure's install; undefined when absent. */
export function ownPackageFile(spec: string): string | undefined {
  try {
    return require.resolve(spec);
  } catch {
    return undefined;
  }
}

/** The Node.js that runs bundled tools: this process's own, unless we run inside an Electron host. */
export function nodeExecutable(): string {
  return process.versions.electron ? 'node' : process.execPath;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** A path list (PATH, NODE_PATH) without relative entries and without entries inside the workspace. */
export function listOutside(value: string | undefined, root: string): string | undefined {
  if (value === undefined) return undefined;
  const r = real(root);
  return value
    .split(path.delimiter)
    .filter((d) => d && path.isAbsolute(d) && !inside(r, real(d)) && !inside(path.resolve(root), path.resolve(d)))
    .join(path.delimiter);
}

/**
 * The environment for a checker run on `root`: this process's, with PATH and
 * NODE_PATH cleared of the workspace's folders, and no virtual environment
 * inside the workspace announced to it.
 */
export function toolEnv(root: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  env[pathKey] = listOutside(env[pathKey], root) ?? '';
  if (env.NODE_PATH !== undefined) env.NODE_PATH = listOutside(env.NODE_PATH, root);
  for (const k of ['VIRTUAL_ENV', 'CONDA_PREFIX', 'PYTHONHOME']) {
    const v = env[k];
    if (v && inside(real(root), real(v))) delete env[k];
  }
  return { ...env, ...extra };
}

/** The first executable named `name` on the cleaned PATH (never one inside the workspace), else undefined. */
export function onCleanPath(name: string, root: string): string | undefined {
  for (const dir of (listOutside(process.env.PATH, root) ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}
