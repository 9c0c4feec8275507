import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { TenureError, errorMessage } from '../../shared/errors.js';
import { clockFromEnv } from '../../core/episodic/clock.js';
import { repoInfo } from '../../core/episodic/git.js';
import { GitHubImporter, fetchGitHubOutcomes } from '../../core/episodic/github.js';
import { githubRepoOf } from '../../core/repo/github.js';
import { loadOptions } from '../../core/episodic/options.js';
import { cwdOf, withWorkspace } from '../context.js';
import { afterRecording, describeRecorded, importCommand, recordingRoot, warn, withRecorder } from './recording.js';

/* Outcomes decided elsewhere: `tenure import junit` (test reports from CI or another runner) and `tenure import github` (check runs, reviews). */

export function outcomeImportCommands(program: Command): void {
  const imp = importCommand(program);
  imp
    .command('junit')
    .description('Record JUnit XML reports (from CI or a run outside `tenure run`) as an outcome of the changes since the last one.')
    .argument('<files...>', 'JUnit XML files')
    .option('--command <text>', 'the command that produced them')
    .option('--intent <text>', 'what the attempt was for')
    .option('--no-diff', 'do not charge the working-tree changes to this outcome')
    .action(async (files: string[], opts: { command?: string; intent?: string; diff: boolean }) => {
      const root = recordingRoot(cwdOf(program));
      await withRecorder(root, async (recorder, ws) => {
        const rec = await recorder.recordTestReports(files.map((f) => path.resolve(f)), { command: opts.command ?? null, intent: opts.intent ?? null, diff: opts.diff });
        process.stdout.write(describeRecorded(rec) + '\n');
        for (const n of rec.notes) process.stdout.write(`  note: ${n}\n`);
        if (rec.episode.tests?.failing.length) {
          for (const f of rec.episode.tests.failing.slice(0, 10)) process.stdout.write(`  ✗ ${f.suite ? `${f.suite} › ` : ''}${f.name}\n`);
        }
        await afterRecording(ws, loadOptions(root), false, rec.episode);
      });
    });

  imp
    .command('github')
    .description('Record outcomes decided on GitHub: CI check runs, and pull-request reviews (changes requested, closed unmerged, merged). From JSON exports in the REST API\'s shapes, or live with --fetch.')
    .argument('[files...]', 'JSON files: pull bundles ({ pull, reviews, files }), check-runs responses')
    .option('--fetch', 'read the current branch\'s pull requests and HEAD\'s check runs from the GitHub API (token: --token or GITHUB_TOKEN)')
    .option('--repo <owner/name>', 'the repository (default: from the origin remote)')
    .option('--token <token>', 'a GitHub token (default: GITHUB_TOKEN)')
    .option('--api-base <url>', 'API base URL (GitHub Enterprise)', 'https://api.github.com')
    .action(async (files: string[], opts: { fetch?: boolean; repo?: string; token?: string; apiBase: string }) => {
      const root = recordingRoot(cwdOf(program));
      if (!files.length && !opts.fetch) throw new TenureError('invalid-input', 'Name JSON files to import, or pass --fetch to read GitHub.');
      await withWorkspace(root, async (ws) => {
        const clock = clockFromEnv();
        const importer = new GitHubImporter(ws, clock);
        let imported = 0;
        let skipped = 0;
        for (const f of files) {
          let value: unknown;
          try {
            value = JSON.parse(fs.readFileSync(path.resolve(f), 'utf8'));
          } catch (e) {
            throw new TenureError('invalid-input', `${f} is not a readable JSON file: ${errorMessage(e)}`);
          }
          const r = await importer.importJson(value, f);
          imported += r.imported;
          skipped += r.skipped;
          for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
        }
        if (opts.fetch) {
          const token = opts.token ?? process.env['GITHUB_TOKEN'];
          if (!token) throw new TenureError('invalid-input', 'A token is needed to read GitHub: pass --token or set GITHUB_TOKEN.');
          const named = opts.repo ? /^([^/]+)\/([^/]+)$/.exec(opts.repo) : null;
          const repo = named ? { owner: named[1]!, name: named[2]! } : await githubRepoOf(root);
          if (!repo) throw new TenureError('invalid-input', 'The origin remote is not on GitHub: pass --repo owner/name.');
          const info = await repoInfo(root);
          const bundles = await fetchGitHubOutcomes({ token, owner: repo.owner, repo: repo.name, branch: info?.branch ?? null, sha: info?.head ?? null, apiBase: opts.apiBase });
          const r = await importer.importJson(bundles, `${repo.owner}/${repo.name}`);
          imported += r.imported;
          skipped += r.skipped;
        }
        process.stdout.write(`Recorded ${imported} GitHub outcome${imported === 1 ? '' : 's'}${skipped ? ` (${skipped} already recorded or undecided)` : ''}.\n`);
        if (imported) await afterRecording(ws, loadOptions(root, warn), false);
      });
    });
}
