#!/usr/bin/env node
// Generates `contributes.languageModelTools` in package.json from the one tool
// catalog (src/core/tools/catalog.ts, read compiled from out/ — run `tsc -p .` first).
//
//   node scripts/manifest.mjs          rewrite that one field of package.json
//   node scripts/manifest.mjs --check  exit 1 when package.json has drifted from the catalog
//
// Naming, chosen once here and mirrored in src/vscode/lmTools.ts (LM_TOOL_PREFIX):
//   name               tenure_<catalog name>   e.g. tenure_what_breaks. LM tool names are one
//                                             namespace across all extensions; the prefix keeps
//                                             ours apart. (MCP tools stay unprefixed: an MCP
//                                             client namespaces them by server.)
//   toolReferenceName  camelCase of the name   e.g. whatBreaks, so people type #whatBreaks in chat
//   displayName        tool.title
//   userDescription    tool.summary
//   modelDescription   tool.modelDescription
//   inputSchema        z.toJSONSchema(tool.input, { io: 'input' }) without "$schema"
//                      (fields with defaults stay optional, as callers see them)
//   tags               ['tenure', 'memory', 'read-only' when the tool never writes]
//   canBeReferencedInPrompt  true
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LM_TOOL_PREFIX = 'tenure_';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(repoRoot, 'package.json'));

export function lmToolName(name) {
  return LM_TOOL_PREFIX + name;
}

export function toolReferenceName(name) {
  return name.replace(/[_-]+([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/** The catalog and the zod that built it (one instance, so toJSONSchema sees the same classes). */
export function loadCatalog(root = repoRoot) {
  const file = path.join(root, 'out', 'src', 'core', 'tools', 'catalog.js');
  if (!fs.existsSync(file)) throw new Error(`${path.relative(root, file)} not found: compile first (npx tsc -p .)`);
  const { TOOLS } = require(file);
  const { z } = require('zod');
  return { tools: TOOLS, z };
}

export function languageModelTools(tools, z) {
  return tools.map((tool) => {
    const inputSchema = z.toJSONSchema(tool.input, { io: 'input' });
    delete inputSchema.$schema;
    return {
      name: lmToolName(tool.name),
      toolReferenceName: toolReferenceName(tool.name),
      displayName: tool.title,
      userDescription: tool.summary,
      modelDescription: tool.modelDescription,
      canBeReferencedInPrompt: true,
      tags: ['tenure', 'memory', ...(tool.effects.readOnly ? ['read-only'] : [])],
      inputSchema,
    };
  });
}

function readPackage(root) {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
}

/** What package.json holds and what the catalog says it should hold. */
export function compare(root = repoRoot) {
  const { tools, z } = loadCatalog(root);
  const expected = languageModelTools(tools, z);
  const actual = readPackage(root).contributes?.languageModelTools ?? [];
  return { expected, actual, drift: describeDrift(expected, actual) };
}

/** Human-readable differences; empty when none. Key order does not matter, content does. */
export function describeDrift(expected, actual) {
  const out = [];
  const byName = (list) => new Map(list.map((t) => [t.name, t]));
  const e = byName(expected);
  const a = byName(actual);
  for (const name of e.keys()) if (!a.has(name)) out.push(`missing from package.json: ${name}`);
  for (const name of a.keys()) if (!e.has(name)) out.push(`in package.json but not in the catalog: ${name}`);
  for (const [name, t] of e) {
    const u = a.get(name);
    if (!u) continue;
    for (const key of new Set([...Object.keys(t), ...Object.keys(u)])) {
      if (canonical(t[key]) !== canonical(u[key])) out.push(`${name}.${key} differs`);
    }
  }
  if (!out.length && canonical(expected.map((t) => t.name)) !== canonical(actual.map((t) => t.name))) out.push('tool order differs');
  return out;
}

function canonical(v) {
  return JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([x], [y]) => (x < y ? -1 : 1))) : val,
  );
}

/** Rewrites only contributes.languageModelTools; every other field is kept as it is. */
export function write(root = repoRoot) {
  const { tools, z } = loadCatalog(root);
  const file = path.join(root, 'package.json');
  const pkg = readPackage(root);
  pkg.contributes ??= {};
  pkg.contributes.languageModelTools = languageModelTools(tools, z);
  const text = JSON.stringify(pkg, null, 2) + '\n';
  if (fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
  return pkg.contributes.languageModelTools;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--check')) {
      const { drift, expected } = compare();
      if (drift.length) {
        console.error(`package.json contributes.languageModelTools has drifted from the tool catalog:\n  ${drift.join('\n  ')}`);
        console.error('Fix: npx tsc -p . && node scripts/manifest.mjs');
        process.exit(1);
      }
      console.log(`package.json matches the tool catalog (${expected.length} tools).`);
    } else {
      const tools = write();
      console.log(`Wrote ${tools.length} language-model tools to package.json: ${tools.map((t) => t.name).join(', ')}`);
    }
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
}
