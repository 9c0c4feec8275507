import { parentPort } from 'node:worker_threads';
import type { Skip } from '../../model/skips.js';
import { readWorkspaceFile } from '../../repo/read.js';
import { Inventory, ParseTimeout } from './inventory.js';
import { languageById } from './languages.js';
import type { ParseReply, ParseRequest, ParseResponse } from './parseProtocol.js';
import { checkSource, hashBytes } from './readSource.js';

/*
 * Worker thread: reads, checks and parses files so the extension host's main
 * thread (and the CLI's event loop) never spends time in tree-sitter.
 */
const inventory = new Inventory();
// Loaded now, not with the first file: a worker may be started while the files are still being found.
void inventory.prepare().catch(() => undefined);

async function handle(req: ParseRequest): Promise<ParseResponse> {
  let bytes: Uint8Array;
  if (req.text !== undefined) {
    bytes = Buffer.from(req.text, 'utf8');
  } else {
    const read = readWorkspaceFile(req.root, req.abs, req.maxBytes);
    if (!read.ok) return read.missing ? { id: req.id, status: 'missing' } : { id: req.id, status: 'skipped', skip: read.skip, size: 0 };
    bytes = read.bytes;
  }
  if (req.knownHash && req.knownHash === hashBytes(bytes)) return { id: req.id, status: 'unchanged', hash: req.knownHash, size: bytes.length };
  const check = checkSource(bytes, req.abs, req.maxBytes);
  if (!check.ok) return { id: req.id, status: 'skipped', skip: check.skip, hash: check.hash, size: bytes.length };
  const language = languageById(req.language);
  if (!language) return { id: req.id, status: 'skipped', skip: { kind: 'no-grammar', reason: `no grammar for ${req.language}` }, hash: check.hash, size: bytes.length };
  try {
    const facts = await inventory.parse(language, check.text, req.budgetMs);
    return { id: req.id, status: 'parsed', hash: check.hash, size: bytes.length, factsJson: JSON.stringify(facts) };
  } catch (e) {
    const skip: Skip = e instanceof ParseTimeout ? { kind: 'parse-timeout', reason: `took longer than its budget: ${e.message}` } : { kind: 'parser-failed', reason: `parser failed: ${String(e)}` };
    return { id: req.id, status: 'skipped', skip, hash: check.hash, size: bytes.length };
  }
}

parentPort?.on('message', (batch: ParseRequest[]) => {
  void (async () => {
    const responses: ParseResponse[] = [];
    for (const req of batch) {
      // After a cancelled parse the rest of the batch waits for a fresh worker: it is sent again.
      if (inventory.unsafe) break;
      responses.push(await handle(req));
    }
    const reply: ParseReply = { responses, retire: inventory.unsafe };
    parentPort!.postMessage(reply);
  })();
});
