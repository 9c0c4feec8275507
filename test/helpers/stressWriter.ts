/**
 * One writer of the many-writers stress test, run as its own process:
 * `node stressWriter.js <root> <index 0..3> <writers> <seconds> <seed>`.
 * It edits its own share of the corpus's files (so each file's edits are in
 * order) and indexes: mostly the file it edited, sometimes the whole
 * workspace, as `tenure watch` and an index loop do. Prints a JSON line with
 * what it did; exits 1 on the first error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { openWorkspace } from '../../src/core/workspace';
import { CORPUS_FILES, editOf, random } from './editCorpus';

async function main(): Promise<void> {
  const [root, indexArg, writersArg, secondsArg, seedArg] = process.argv.slice(2);
  const me = Number(indexArg);
  const writers = Number(writersArg);
  const deadline = Date.now() + Number(secondsArg) * 1000;
  const next = random(Number(seedArg) * 31 + me);
  const mine: string[] = [];
  for (let i = 0; i < CORPUS_FILES; i++) {
    if (i % writers === me) mine.push(`src/m${i}.ts`, `pkg/m${i}.py`);
  }
  const ws = await openWorkspace(root);
  const indexer = await StructuralIndexer.create(ws, { workers: 1, parseBudgetMs: 60_000 });
  let edits = 0;
  let updates = 0;
  let full = 0;
  try {
    while (Date.now() < deadline) {
      const rel = mine[Math.floor(next() * mine.length)]!;
      fs.writeFileSync(path.join(root, rel), editOf(rel, Math.floor(next() * 6)));
      edits++;
      if (next() < 0.2) {
        await indexer.indexAll();
        full++;
      } else {
        await indexer.updateFiles([path.join(root, rel)]);
        updates++;
      }
    }
    process.stdout.write(JSON.stringify({ writer: me, edits, updates, full, staleRetries: indexer.debugStaleRetries }) + '\n');
  } finally {
    await indexer.dispose();
    await ws.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`writer failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
