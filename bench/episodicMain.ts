import * as os from 'node:os';
import * as path from 'node:path';
import { describeMachine } from './machine.js';
import { historyAtScaleRows, runOverheadRows } from './episodic.js';
import type { Row } from './stats.js';

/* `node out/bench/episodicMain.js [--only=overhead|scale]`: the episodic rows alone, as a markdown table (bench/run.ts adds them to the full table once wired). */
async function main(): Promise<void> {
  const repoRoot = path.resolve(__dirname, '..', '..');
  const m = describeMachine();
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const rows: Row[] = [...(only && only !== 'overhead' ? [] : runOverheadRows(repoRoot)), ...(only && only !== 'scale' ? [] : await historyAtScaleRows(repoRoot))];
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  process.stdout.write(
    [`Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGB.toFixed(1)} GB; Node ${m.node}; ${m.date}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`, '', '| Corpus | Measurement | Result | Target |', '|---|---|---|---|', ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`), ''].join('\n'),
  );
}

void main();
