import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks';
import type { WhatBreaksResult } from '../../src/core/structural/impact/result';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { type Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { REPO_ROOT } from '../helpers/fixtures';

/** A private copy of test/fixtures/resolution/<name>, indexed. */
export async function indexedFixture(name: string): Promise<{ ws: Workspace; indexer: StructuralIndexer; root: string; close: () => Promise<void> }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `tenure-res-${name}-`));
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'resolution', name), root, { recursive: true });
  const ws = await openWorkspace(root);
  const indexer = await StructuralIndexer.create(ws);
  await indexer.indexAll();
  return {
    ws,
    indexer,
    root,
    close: async () => {
      await indexer.dispose();
      await ws.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export async function ask(ws: Workspace, symbol: string, depth = 1): Promise<WhatBreaksResult> {
  return whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), depth);
}

/** "caller → callee tier source" for every call/instantiate edge, sorted: the whole graph in one assertion. */
export async function callEdges(ws: Workspace): Promise<string[]> {
  const rows = await ws.db.all<{ src: string; dst: string | null; tier: string; source: string }>(
    `SELECT a.qname AS src, b.qname AS dst, e.tier, e.source FROM edges e JOIN symbols a ON a.id = e.src_id LEFT JOIN symbols b ON b.id = e.dst_id
       WHERE e.kind IN ('call', 'instantiate') AND e.tier != 'dynamic'`,
  );
  return rows.map((r) => `${r.src} -> ${r.dst} ${r.tier} ${r.source}`).sort();
}

export async function edgeTier(ws: Workspace, src: string, dst: string): Promise<string[]> {
  const rows = await ws.db.all<{ tier: string }>(
    `SELECT e.tier FROM edges e JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id WHERE a.qname = ? AND b.qname = ?`,
    [src, dst],
  );
  return rows.map((r) => r.tier).sort();
}

export async function refutations(ws: Workspace): Promise<string[]> {
  const rows = await ws.db.all<{ src: string; dst: string; refuted_by: string }>(
    `SELECT a.qname AS src, b.qname AS dst, r.refuted_by FROM refutations r JOIN symbols a ON a.id = r.src_id JOIN symbols b ON b.id = r.dst_id`,
  );
  return rows.map((r) => `${r.src} -> ${r.dst} by ${r.refuted_by}`).sort();
}

export async function implementationsOf(ws: Workspace, base: string): Promise<string[]> {
  const rows = await ws.db.all<{ impl: string; source: string }>(
    `SELECT a.qname AS impl, i.source FROM implementations i JOIN symbols a ON a.id = i.impl_id JOIN symbols b ON b.id = i.base_id WHERE b.qname = ?`,
    [base],
  );
  return rows.map((r) => `${r.impl} ${r.source}`).sort();
}

/** Resolved edges whose caller file is one of `callers` or whose callee file is one of `callees`. */
export async function resolvedTouching(ws: Workspace, callers: readonly string[], callees: readonly string[]): Promise<string[]> {
  const rows = await ws.db.all<{ src: string; dst: string; cf: string; df: string }>(
    `SELECT a.qname AS src, b.qname AS dst, cf.path AS cf, df.path AS df FROM edges e
       JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id JOIN files cf ON cf.id = e.file_id JOIN files df ON df.id = b.file_id
       WHERE e.tier = 'resolved' AND (cf.path IN (SELECT value FROM json_each(?1)) OR df.path IN (SELECT value FROM json_each(?2)))`,
    [JSON.stringify(callers), JSON.stringify(callees)],
  );
  return rows.map((r) => `${r.src} (${r.cf}) -> ${r.dst} (${r.df})`);
}

/** Files that import `file`, transitively, read from the sources with a regex: an oracle independent of Tenure's import table. */
export function importersOf(root: string, file: string): string[] {
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory() && e.name !== '.tenure') walk(rel);
      else if (/\.ts$/.test(e.name)) all.push(rel);
    }
  };
  walk('');
  const importsOf = (f: string): string[] => {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    return [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(f), m[1]!)) + '.ts');
  };
  const out = new Set([file]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of all) if (!out.has(f) && importsOf(f).some((i) => out.has(i))) {
      out.add(f);
      changed = true;
    }
  }
  return [...out];
}
