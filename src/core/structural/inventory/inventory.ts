import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Language, Parser, Query } from 'web-tree-sitter';
import { packageRoot } from '../../../shared/paths.js';
import type { FileFacts } from '../../model/structural.js';
import { extractConfigFacts } from './configFiles.js';
import { Deadline, ParseTimeout } from './bounds.js';
import { extractFacts } from './extract.js';
import { CODE_LANGUAGES, isCode, type CodeLanguageSpec, type LanguageSpec } from './languages.js';

/**
 * The tree-sitter half of the inventory: loads grammars and tag queries once,
 * then parses files into facts. One instance per thread (WASM state is not
 * shareable); the pool runs one in each worker.
 */

/** Where the WASM files are: dist/wasm in a packaged build, else the npm packages. */
function wasmPath(file: string): string {
  const root = packageRoot();
  // The runtime must come from web-tree-sitter itself (its JS and WASM are one build);
  // the grammars come from @vscode/tree-sitter-wasm.
  const fromPackage =
    file === 'tree-sitter.wasm'
      ? path.join(root, 'node_modules', 'web-tree-sitter', file)
      : path.join(root, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm', file);
  const candidates = [path.join(root, 'dist', 'wasm', file), fromPackage];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`Tree-sitter file ${file} not found (looked in ${candidates.join(', ')}). Run \`npm ci\` or reinstall Tenure.`);
  return found;
}

export { ParseTimeout };

/**
 * The revision of what the inventory makes of a file beyond its tag queries:
 * the extractor (extract.ts, configFiles.ts, scopes.ts) and module naming
 * (naming.ts). Raise it with any change there that gives a file other facts
 * or other names: an index built before is then built again from scratch,
 * since its unchanged files are otherwise never parsed again.
 */
const EXTRACTOR_REVISION = 3;

let version: string | undefined;

/** What facts a file yields with this build: the extractor's revision and the tag queries' text. */
export function extractionVersion(): string {
  if (version) return version;
  const hash = createHash('sha256').update(String(EXTRACTOR_REVISION));
  const dir = path.join(packageRoot(), 'grammars');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.scm')).sort()) hash.update(f).update(fs.readFileSync(path.join(dir, f)));
  version = `${EXTRACTOR_REVISION}-${hash.digest('hex').slice(0, 12)}`;
  return version;
}

const EXTRACTION_BUDGET_FACTOR = 10;

interface Loaded {
  readonly language: Language;
  readonly query: Query;
  readonly parser: Parser;
}

let runtimeReady: Promise<void> | undefined;

function initRuntime(): Promise<void> {
  runtimeReady ??= Parser.init({ locateFile: () => wasmPath('tree-sitter.wasm') });
  return runtimeReady;
}

export class Inventory {
  private readonly loaded = new Map<string, Promise<Loaded>>();
  private cancelled = false;

  /**
   * True once a parse or a query was cancelled for its budget: tree-sitter's
   * WebAssembly state is then unsafe for the whole thread (a later query, of
   * any language, can read out of bounds), so the thread must not parse again.
   */
  get unsafe(): boolean {
    return this.cancelled;
  }

  private load(spec: CodeLanguageSpec): Promise<Loaded> {
    let p = this.loaded.get(spec.id);
    if (!p) {
      p = (async () => {
        await initRuntime();
        const language = await Language.load(wasmPath(spec.grammar));
        const queryFile = spec.id === 'tsx' ? 'typescript' : spec.id;
        const source = fs.readFileSync(path.join(packageRoot(), 'grammars', `${queryFile}.scm`), 'utf8');
        const query = new Query(language, source);
        const parser = new Parser();
        parser.setLanguage(language);
        return { language, query, parser };
      })();
      this.loaded.set(spec.id, p);
    }
    return p;
  }

  /** Loads the tree-sitter runtime, so that a worker started ahead of its first file has it ready. */
  prepare(): Promise<void> {
    return initRuntime();
  }

  /** Loads every grammar up front, so the first file does not pay for it and a broken query fails early. */
  async warmUp(): Promise<void> {
    await Promise.all(CODE_LANGUAGES.map((l) => this.load(l)));
  }

  /**
   * Parses one file's text. `budgetMs` bounds the parse, and ten times it
   * the extraction (a hand-written 700 KB file takes 3–5 s to extract on a
   * loaded machine): a pathological file is abandoned (ParseTimeout) rather
   * than stalling the whole index.
   */
  async parse(spec: LanguageSpec, text: string, budgetMs = 2000): Promise<FileFacts> {
    if (!isCode(spec)) return extractConfigFacts(spec, text);
    const { parser, query } = await this.load(spec);
    const started = performance.now();
    const deadline = started + budgetMs;
    let timedOut = false;
    const tree = parser.parse(text, null, {
      progressCallback: () => {
        if (performance.now() > deadline) timedOut = true;
        return timedOut;
      },
    } as Parameters<Parser['parse']>[2]);
    if (!tree || timedOut) {
      tree?.delete();
      parser.reset();
      this.cancelled = true;
      throw new ParseTimeout(`parse exceeded ${budgetMs} ms`);
    }
    try {
      return extractFacts(tree, query, spec, performance.now() - started, new Deadline(budgetMs * EXTRACTION_BUDGET_FACTOR));
    } catch (e) {
      if (e instanceof ParseTimeout) this.cancelled = true;
      throw e;
    } finally {
      tree.delete();
    }
  }
}
