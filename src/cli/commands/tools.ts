import { Option } from 'commander';
import * as z from 'zod';
import { TOOLS } from '../../core/tools/catalog.js';
import { parseToolInput } from '../../core/tools/types.js';
import { cwdOf, positiveInt, restrictedOf, withWorkspace, type CommandGroup } from '../context.js';

/**
 * Whether a field takes a number, under `.optional()` and `.default()`: its
 * option then parses a whole number. Read from the schema's classes; building
 * each field's JSON Schema to look for "number" took about 5 ms of every query's start.
 */
function takesNumber(field: z.ZodType): boolean {
  let f = field;
  while (f instanceof z.ZodOptional || f instanceof z.ZodDefault || f instanceof z.ZodNullable) f = f.unwrap() as z.ZodType;
  return f instanceof z.ZodNumber;
}

/** One command per catalog tool, with the same names and inputs as the LM and MCP tools. */
export const toolCommands: CommandGroup = (program) => {
  for (const tool of TOOLS) {
    const cmd = program.command(tool.cli.command).description(tool.summary).option('--json', 'print the full answer as JSON');
    for (const alias of tool.cli.aliases) cmd.alias(alias);
    const shape = tool.input.shape as Record<string, z.ZodType>;
    if (tool.cli.positional) cmd.argument(`<${tool.cli.positional}>`, shape[tool.cli.positional]?.description ?? '');
    for (const [key, field] of Object.entries(shape)) {
      if (key === tool.cli.positional) continue;
      const opt = new Option(`--${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} <value>`, field.description ?? '');
      if (takesNumber(field)) opt.argParser(positiveInt);
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
