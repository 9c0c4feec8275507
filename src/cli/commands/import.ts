import * as path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { TenureError } from '../../shared/errors.js';
import { importBytecode } from '../../core/structural/sources/bytecode/importer.js';
import { renderArtifactsReport } from '../../core/structural/sources/bytecode/artifacts.js';
import type { BytecodeLayout } from '../../core/structural/sources/bytecode/load.js';
import { importBeans, type BeansImportReport } from '../../core/structural/sources/di/importer.js';
import { importTraces, type TraceImportReport } from '../../core/structural/sources/traces/importer.js';
import { hasSourceSymbols } from '../../core/structural/status.js';
import type { Workspace } from '../../core/store/workspace.js';
import { cwdOf, withWorkspace, type CommandGroup } from '../context.js';

/** `tenure import beans|traces|classes`: artifacts that show what the source does not (issue 7). */
export const importCommands: CommandGroup = (program) => {
  // `import` is shared by the memories (SCIP indexes, JUnit reports): join it if it exists.
  const imp = program.commands.find((c) => c.name() === 'import') ?? program.command('import').description('Import facts produced by other tools into the memories.');

  imp
    .command('beans')
    .description('Read Spring bean wiring: an /actuator/beans export (a file, or the URL of a running application) or Spring AOT output (a folder of *__BeanDefinitions.java).')
    .argument('<source>', 'beans.json, http(s)://host/actuator/beans, or target/spring-aot/main/sources')
    .option('--profile <names>', 'Spring profile(s) the wiring holds for (comma-separated), if the export does not say')
    .option('--json', 'print the report as JSON')
    .action(async (source: string, opts: { profile?: string; json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        await ensureIndexed(ws);
        const input = /^https?:\/\//i.test(source) ? source : path.resolve(source);
        const r = await importBeans(ws, input, { ...(opts.profile ? { profile: opts.profile } : {}) });
        process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderBeans(r) + '\n');
      });
    });

  imp
    .command('traces')
    .description('Read a distributed-trace export (OTLP JSON or the collector file exporter\'s JSON lines, Jaeger JSON, Zipkin v2 JSON; told apart by content) into observed edges.')
    .argument('<file>', 'the export')
    .option('--stale-after <days>', 'days after which a path not seen again is reported as stale (default 30)', days)
    .option('--json', 'print the report as JSON')
    .action(async (file: string, opts: { staleAfter?: number; json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        await ensureIndexed(ws);
        const r = await importTraces(ws, path.resolve(file), { ...(opts.staleAfter !== undefined ? { staleAfterDays: opts.staleAfter } : {}) });
        process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderTraces(r) + '\n');
      });
    });

  imp
    .command('classes')
    .description('Read class files and jars from places `tenure index` does not look (it finds target/classes, build/classes and jars by itself).')
    .argument('<paths...>', 'folders of class files, or jars')
    .option('--json', 'print the report as JSON')
    .action(async (paths: string[], opts: { json?: boolean }) => {
      await withWorkspace(cwdOf(program), async (ws) => {
        await ensureIndexed(ws);
        const rel = paths.map((p) => path.relative(ws.root, path.resolve(p)).split(path.sep).join('/'));
        const outside = rel.filter((p) => p.startsWith('..'));
        if (outside.length) throw new TenureError('invalid-input', `${outside.join(', ')}: not inside the workspace ${ws.root}. Copy or link the build output into it.`);
        const layout: BytecodeLayout = { classDirs: rel.filter((p) => !/\.(jar|war)$/i.test(p)), jars: rel.filter((p) => /\.(jar|war)$/i.test(p)), generatedSourceDirs: [], aotSourceDirs: [] };
        const { analysis: _a, ...r } = await importBytecode(ws, { layout, force: true });
        void _a;
        process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderArtifactsReport({ bytecode: r, aot: [], relinked: null, problems: r.problems.map((p) => `${p.artifact}: ${p.message}`), ms: r.ms }) + '\n');
      });
    });
};

function days(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of days > 0');
  return n;
}

async function ensureIndexed(ws: Workspace): Promise<void> {
  if (!(await hasSourceSymbols(ws.db))) throw new TenureError('not-indexed', `Tenure has not indexed ${ws.root} yet: run \`tenure index\` first, so the imported facts have symbols to attach to.`);
}

function renderBeans(r: BeansImportReport): string {
  const lines = [
    `Imported ${r.format === 'actuator-beans' ? 'actuator beans' : 'Spring AOT bean definitions'} from ${r.location}${r.profiles.length ? ` (profile ${r.profiles.join(', ')})` : ''}: ${r.beans} beans, ${r.wiring.length} wired injection points (types from ${r.typeModel}); ${r.applied?.implementations ?? 0} wired implementations recorded.`,
  ];
  for (const w of r.wiring.filter((x) => x.declaredType !== x.beanType).slice(0, 15)) {
    lines.push(`  ${w.consumerType}${w.injection ? `.${w.injection}` : ''} (${w.declaredType}) ← bean ${w.bean} (${w.beanType})${w.candidates > 1 ? ` [${w.candidates} candidates]` : ''}`);
  }
  for (const w of r.warnings.slice(0, 10)) lines.push(`  warning: ${w}`);
  if (r.warnings.length > 10) lines.push(`  … and ${r.warnings.length - 10} more warnings (--json lists them all)`);
  return lines.join('\n');
}

function renderTraces(r: TraceImportReport): string {
  const s = r.stats;
  const lines = [
    `Imported ${s.spans} spans in ${s.traces} traces (${r.format}) from ${r.location}, services ${s.services.join(', ')}: ${r.observations} observed paths, ${r.endpoints} endpoints with no symbol; ${r.applied?.added ?? 0} edges added.`,
    `  spans placed on symbols: ${s.placedByCode} by code attributes, ${s.placedByRoute} by http.route, ${s.placedByListener} by message listener; ${s.unplaced} not placed (${s.withoutCodeAttributes} carry no code attributes); ${s.missingParents} with a parent missing from the export.`,
  ];
  for (const w of r.warnings.slice(0, 10)) lines.push(`  warning: ${w}`);
  if (r.warnings.length > 10) lines.push(`  … and ${r.warnings.length - 10} more warnings (--json lists them all)`);
  return lines.join('\n');
}
