// Bundles the front doors and the parse worker with esbuild, and copies the
// WASM runtime and grammars next to them so a packaged build needs no node_modules
// except the native SQLite module.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const watch = process.argv.includes('--watch');
const dist = path.join(root, 'dist');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // vscode is provided by the host; the native SQLite module cannot be bundled; the TypeScript
  // compiler the enrichment worker runs is loaded from Tenure's own node_modules (its lib
  // .d.ts files sit beside it there).
  external: ['vscode', '@photostructure/sqlite', 'typescript'],
  // jsonc-parser's main build is UMD, whose require('./impl/…') calls a bundler cannot follow: take its ES module build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // web-tree-sitter's ESM build locates its WASM through import.meta.url, which a CJS bundle lacks.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

const entries = [
  { in: 'src/vscode/extension.ts', out: 'extension' },
  // `tenure`: a launcher that loads the slim bundle for `tenure run` and the full CLI for the rest.
  { in: 'src/cli/bin.ts', out: 'cli', banner: '#!/usr/bin/env node' },
  { in: 'src/cli/main.ts', out: 'tenure-main' },
  { in: 'src/cli/runMain.ts', out: 'tenure-run' },
  { in: 'src/cli/queryMain.ts', out: 'tenure-query' },
  { in: 'src/mcp/main.ts', out: 'mcp' },
  { in: 'src/core/structural/inventory/parseWorker.ts', out: 'parseWorker' },
  { in: 'src/core/structural/index/indexerWorker.ts', out: 'indexerWorker' },
  { in: 'src/core/structural/sources/tsc/tscWorker.ts', out: 'tscWorker' },
  { in: 'src/vscode/knowledgeWorker.ts', out: 'knowledgeWorker' },
].filter((e) => fs.existsSync(path.join(root, e.in)));

fs.mkdirSync(path.join(dist, 'wasm'), { recursive: true });
const wasmSources = [
  path.join(root, 'node_modules/web-tree-sitter/tree-sitter.wasm'),
  ...['typescript', 'tsx', 'javascript', 'python', 'java', 'go'].map((l) =>
    path.join(root, `node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-${l}.wasm`),
  ),
];
for (const src of wasmSources) fs.copyFileSync(src, path.join(dist, 'wasm', path.basename(src)));

// The launcher (dist/cli.js) hands the catalog's commands to dist/tenure-query.js. Their names come
// from the catalog itself (compiled by `tsc` before this script runs), so the two never disagree.
// Without a compiled catalog (`npm run watch` on a fresh tree) the list is left out and the launcher sends every command to the full CLI.
{
  const catalog = path.join(root, 'out', 'src', 'core', 'tools', 'catalog.js');
  const list = path.join(dist, 'query-commands.json');
  fs.mkdirSync(dist, { recursive: true });
  if (fs.existsSync(catalog)) {
    const { TOOLS } = (await import('node:module')).createRequire(import.meta.url)(catalog);
    fs.writeFileSync(list, JSON.stringify(TOOLS.flatMap((t) => [t.cli.command, ...t.cli.aliases]).sort()) + '\n');
  } else {
    fs.rmSync(list, { force: true });
    console.warn('scripts/build.mjs: out/ has no compiled catalog (run `tsc -p .` first): every command goes to the full CLI');
  }
}

// Token counts read the o200k ranks from a flat table beside the bundles (src/shared/tokenTable.ts
// says why), derived here from gpt-tokenizer's ranks through the compiled table code. The ranks'
// module itself is left out of every bundle: only a process without the table (a tree compiled by
// `tsc` alone) loads it, from node_modules.
{
  const compiled = path.join(root, 'out', 'src', 'shared', 'tokenTable.js');
  const file = path.join(dist, 'o200k-ranks.bin');
  if (fs.existsSync(compiled)) {
    const load = (await import('node:module')).createRequire(import.meta.url);
    const { buildTokenTable } = load(compiled);
    fs.writeFileSync(file, buildTokenTable(load('gpt-tokenizer/bpeRanks/o200k_base').default).encode());
  } else {
    fs.rmSync(file, { force: true });
    console.warn('scripts/build.mjs: out/ has no compiled token table (run `tsc -p .` first): token counts will load the ranks from node_modules');
  }
}
const ranksApart = {
  name: 'ranks-apart',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/bpeRanks\/o200k_base$/ }, (args) => ({ path: args.path, external: true }));
  },
};

// Every Node bundle is written in ASCII alone. esbuild escapes non-ASCII characters in string literals
// but leaves them in regex literals, in templates given to a tag (String.raw) and in comments, so a
// handful of characters (’, —, µ, …) made each bundle UTF-8 that Node decodes into a two-byte string
// at every start; the launcher (src/cli/bin.ts, loadBundle) reads an ASCII bundle as Latin-1, with no
// decoding at all. Each non-ASCII UTF-16 code unit becomes a `\uXXXX` escape (a character beyond
// U+FFFF its two surrogates), which means the same character everywhere esbuild leaves one: in a
// string or template literal; in a regex literal, with or without the u flag (in u-mode a surrogate
// pair of escapes is one code point, without it the pattern is code units as before); in a comment,
// where it is text; and in the bundles' one String.raw holding one, `UNIT` in
// src/core/knowledge/reasons.ts, which only becomes a RegExp source. A String.raw whose text is used as
// text would change: none is today. Nor does any code read a regex's `.source` or a function's text.
// (Every non-ASCII character in the bundles was checked when this was written: all were in comments,
// regex literals and that String.raw; old and new regexes match alike.)
// A character already escaped (`\’`, as wink-porter2-stemmer's regexes write the apostrophe) is an
// identity escape: it means the character itself in a string, a template and a regex without the u flag
// (with it, such an escape is a syntax error and cannot be in a bundle), so the backslash and the
// character become the one `\uXXXX` escape. Lines are left where they were, so the source maps still point at the right
// line; on the few lines with an escape (comments and regexes), columns past it are five further on
// per escape than the map says. The webview bundles are left as they are (minified, they are ASCII).
function asciiOnly(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (!/[^\x00-\x7f]/.test(text)) return;
  const escaped = text.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, unit) => {
    const escape = `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return slashes.length % 2 ? `${slashes.slice(1)}${escape}` : `${slashes}${escape}`;
  });
  fs.writeFileSync(file, escaped);
}
// esbuild has written the output files when its end callbacks run, in a rebuild and in watch mode
// alike; a launcher that starts in between reads the file as UTF-8, as it does any non-ASCII bundle.
const ascii = (outfile) => ({
  name: 'ascii-only',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length === 0 && fs.existsSync(outfile)) asciiOnly(outfile);
    });
  },
});

const contexts = await Promise.all([
  ...entries.map((e) =>
    esbuild.context({
      ...common,
      entryPoints: [path.join(root, e.in)],
      outfile: path.join(dist, `${e.out}.js`),
      banner: { js: [e.banner, common.banner.js].filter(Boolean).join('\n') },
      plugins: [ranksApart, ascii(path.join(dist, `${e.out}.js`))],
    }),
  ),
]);
// The webview panels (src/webview): browser bundles, no node built-ins, loaded under a strict CSP
// with a nonce; the codicon font and stylesheet are copied beside them (localResourceRoots).
const webviewDir = path.join(dist, 'webview');
fs.mkdirSync(webviewDir, { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(root, 'node_modules/@vscode/codicons/dist', f), path.join(webviewDir, f));
for (const name of ['impact', 'why']) {
  const entry = path.join(root, `src/webview/${name}.ts`);
  if (!fs.existsSync(entry)) continue;
  contexts.push(
    await esbuild.context({
      entryPoints: [entry],
      outfile: path.join(webviewDir, `${name}.js`),
      bundle: true,
      platform: 'browser',
      target: 'chrome120',
      format: 'iife',
      minify: !watch,
      sourcemap: watch ? 'inline' : false,
      logLevel: 'warning',
    }),
  );
}

if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  const cli = path.join(dist, 'cli.js');
  if (fs.existsSync(cli)) fs.chmodSync(cli, 0o755);
}
