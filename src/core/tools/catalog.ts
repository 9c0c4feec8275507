import { askTool } from './ask.js';
import { recordConclusionTool } from './recordConclusion.js';
import { relatedByIntentTool } from './relatedByIntent.js';
import { searchKnowledgeTool } from './searchKnowledge.js';
import type { Tool } from './types.js';
import { whatBreaksTool } from './whatBreaks.js';
import { whatHappenedBeforeTool } from './whatHappenedBefore.js';
import { whyIsThisTool } from './whyIsThis.js';

/*
 * The one tool catalog. package.json's languageModelTools, the MCP server's
 * tool list and the CLI's commands are all generated from this list; a test
 * fails when package.json drifts from it.
 */

export const TOOLS: readonly Tool[] = [whatBreaksTool, whatHappenedBeforeTool, whyIsThisTool, relatedByIntentTool, searchKnowledgeTool, askTool, recordConclusionTool];

export function findTool(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name || t.cli.command === name || t.cli.aliases.includes(name));
}
