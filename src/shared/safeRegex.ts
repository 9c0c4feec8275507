import type { RE2JS } from 're2js';

/*
 * Regular expressions from settings a repository can supply
 * (.vscode/settings.json is part of the checkout) run on RE2's engine: time
 * linear in the input, whatever the pattern, so `(a+)+$` cannot hang a run.
 * Patterns RE2 does not accept (backreferences, lookaround) are refused.
 */

export interface SafeRegex {
  readonly source: string;
  test(text: string): boolean;
}

const cache = new Map<string, SafeRegex>();

let engine: typeof RE2JS | undefined;

/** RE2, loaded at the first pattern: most commands read no setting with a pattern, and its tables are a large part of a query bundle. */
function re2(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (engine ??= (require('re2js') as typeof import('re2js')).RE2JS);
}

/** The pattern on RE2, or an Error saying why RE2 refuses it. */
export function safeRegex(pattern: string): SafeRegex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const re = re2().compile(pattern);
  const compiled: SafeRegex = { source: pattern, test: (text) => re.matcher(text).find() };
  cache.set(pattern, compiled);
  return compiled;
}

/** Why RE2 refuses the pattern, or undefined when it accepts it. */
export function unsafeRegexReason(pattern: string): string | undefined {
  try {
    safeRegex(pattern);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
