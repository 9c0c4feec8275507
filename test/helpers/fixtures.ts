import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

/** A private copy of an example workspace (without any .tenure state), removed by the returned function. */
export function copyExample(name = 'settlement'): { root: string; cleanup: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `tenure-${name}-`));
  fs.cpSync(path.join(REPO_ROOT, 'examples', name), root, { recursive: true, filter: (src) => !src.includes(`${path.sep}.tenure`) });
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export function tempDir(prefix = 'tenure-test-'): { root: string; cleanup: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export function write(root: string, rel: string, text: string | Buffer): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  return abs;
}
