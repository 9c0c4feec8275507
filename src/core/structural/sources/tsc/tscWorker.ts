import { buildPrograms, type ProgramSet } from './analysis.js';
import type { FromTscWorker, ToTscWorker } from './protocol.js';

/*
 * The child process of the TypeScript compiler resolver: it holds the
 * programs (memory a long-lived host should not carry) and answers one file
 * at a time over the IPC channel. It runs the typescript package Tenure
 * depends on, loaded from Tenure's own node_modules, never the workspace's.
 */

let programs: ProgramSet | undefined;

function send(m: FromTscWorker): void {
  process.send?.(m);
}

process.on('message', (m: ToTscWorker) => {
  try {
    if (m.type === 'init') {
      const t0 = performance.now();
      programs = buildPrograms(m.root, m.files);
      send({ type: 'ready', programs: programs.programs, files: programs.files, ms: performance.now() - t0, notes: programs.notes });
    } else if (m.type === 'file') {
      const a = programs?.analyze(m.path);
      send({ type: 'file', id: m.id, inProgram: !!a, uses: a?.uses ?? [], elsewhere: a?.elsewhere ?? [], implementations: a?.implementations ?? [], unanswered: a?.unanswered ?? [] });
    } else if (m.type === 'dispose') {
      process.exit(0);
    }
  } catch (e) {
    send({ type: 'error', ...(m.type === 'file' ? { id: m.id } : {}), message: e instanceof Error ? e.message.split('\n')[0]! : String(e) });
  }
});

// The host went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
