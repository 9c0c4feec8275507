import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { clockFromEnv } from '../../core/episodic/clock.js';
import { loadOptions } from '../../core/episodic/options.js';
import { exportEpisodes, importEpisodes } from '../../core/episodic/seed.js';
import { refreshRules } from '../../core/procedural/refresh.js';
import { cwdOf, withWorkspace } from '../context.js';
import { importCommand, printRuleNews, recordingRoot, warn } from './recording.js';

/* Episode files: `tenure import episodes` (a seed or an export) and `tenure export episodes`. */

export function episodeFileCommands(program: Command): void {
  const imp = importCommand(program);
  imp
    .command('episodes')
    .description('Import an episode file (a seed such as examples/settlement/tenure-seed/episodes.json, or an export). Idempotent.')
    .argument('<file>', 'episode JSON file')
    .action(async (file: string) => {
      const root = recordingRoot(cwdOf(program));
      await withWorkspace(root, async (ws) => {
        const options = loadOptions(root, warn);
        const r = await importEpisodes(ws, path.resolve(file), clockFromEnv(), options);
        process.stdout.write(`Imported ${r.imported} episodes and ${r.conclusions} conclusions${r.skipped ? `; ${r.skipped} already present` : ''}.\n`);
        for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
        const rules = await refreshRules(ws, options, clockFromEnv());
        printRuleNews(rules);
      });
    });

  program
    .command('export')
    .description('Export memories that cannot be rebuilt.')
    .command('episodes')
    .description('Every episode and conclusion (archived included) as an episode file.')
    .argument('[file]', 'output file (default: stdout)')
    .action(async (file: string | undefined) => {
      await withWorkspace(recordingRoot(cwdOf(program)), async (ws) => {
        const text = JSON.stringify(await exportEpisodes(ws), null, 2) + '\n';
        if (file) fs.writeFileSync(file, text);
        else process.stdout.write(text);
      });
    });
}
