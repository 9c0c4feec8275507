import { Option } from 'commander';
import { TOOLS } from '../../core/tools/catalog.js';
import { parseToolInput } from '../../core/tools/types.js';
import { cwdOf, positiveInt, restrictedOf, withWorkspace, type CommandGroup } from '../context.js';

/** One command per catalog tool, with the same names and inputs as the LM and MCP tools. */
export const toolCommands: CommandGroup = (program) => {
  for (const tool of TOOLS) {
    const cmd = program.command(tool.cli.command).description(tool.summary).option('--json', 'print the full answer as JSON');
    for (const alias of tool.cli.aliases) cmd.alias(alias);
    const shape = tool.input.shape as Record<string, { description?: string; def?: { type?: string } }>;
    if (tool.cli.positional) cmd.argument(`<${tool.cli.positional}>`, shape[tool.cli.positional]?.description ?? '');
    for (const [key, field] of Object.entries(shape)) {
      if (key === tool.cli.positional) continue;
      const isNumber = JSON.stringify((field as { toJSONSchema?: () => unknown }).toJSONSchema?.() ?? {}).includes('"integer"') || JSON.stringify((field as { toJSONSchema?: () => unknown }).toJSONSchema?.() ?? {}).includes('"number"');
      const opt = new Option(`--${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} <value>`, field.description ?? '');
      if (isNumber) opt.argParser(positiveInt);
      cmd.addOption(opt);
    }
    cmd.action(async (...args: unknown[]) => {
      const opts = args[tool.cli.positional ? 1 : 0] as Record<string, unknown> & { json?: boolean };
      const raw: Record<string, unknown> = {};
      if (tool.cli.positional) raw[tool.cli.positional] = args[0];
      for (const key of Object.keys(shape)) if (key !== tool.cli.positional && opts[key] !== undefined) raw[key] = opts[key];
      // Checked before the database is opened: a usage error never touches the workspace.
      const input = parseToolInput(tool, raw);
      await withWorkspace(cwdOf(program), async (ws) => {
        const result = await tool.invoke({ workspace: ws, ...(restrictedOf(program) ? { restricted: true } : {}) }, input);
        process.stdout.write(opts.json ? JSON.stringify(result.data, null, 2) + '\n' : result.text + '\n');
      }, true);
    });
  }
};
