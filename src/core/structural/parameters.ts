/*
 * A parameter list as people write one after a name to say which overload
 * they mean (`transfer(DataFlowStartMessage request, DataSink sink)`,
 * `transfer(DataFlowStartMessage, DataSink)`, `parse()`), and the parameters
 * a declaration in the source has, compared word by word. Read from the
 * declaration's text, not stored: only a question that names an overload
 * needs them.
 */

/** A name with a parameter list written after it: the name, and each parameter's words (none for `()`). */
export function writtenParameters(text: string): { name: string; parameters: string[][] } | undefined {
  const m = /^(.*?[\w$])\s*\(([^()]*)\)$/.exec(text.trim());
  if (!m) return undefined;
  return { name: m[1]!, parameters: splitTopLevel(m[2]!).map(wordsOf).filter((w) => w.length) };
}

/**
 * The parameters of the declaration of `name` in `source`, the text from the declaration's first line: each
 * parameter's words (its type's and its name's), annotations, modifiers and default values left out; undefined
 * when no parameter list follows the name. A method's `self` or `cls` (Python) is not a parameter one writes.
 */
export function declaredParameters(source: string, name: string): string[][] | undefined {
  const at = new RegExp(`(?<![\\w$])${name.replace(/[$]/g, '\\$')}\\s*(?:<[^(){};]*>)?\\s*\\(`).exec(source);
  if (!at) return undefined;
  const open = at.index + at[0].length;
  let depth = 1;
  let i = open;
  for (; i < source.length && depth; i++) {
    if (source[i] === '(') depth++;
    else if (source[i] === ')') depth--;
  }
  if (depth) return undefined;
  const parameters = splitTopLevel(source.slice(open, i - 1)).map((p) => wordsOf(withoutExtras(p))).filter((w) => w.length);
  return parameters[0]?.length === 1 && (parameters[0][0] === 'self' || parameters[0][0] === 'cls') ? parameters.slice(1) : parameters;
}

/** Whether the parameters written name the ones declared: as many, and every word written in its place. */
export function sameParameters(written: readonly string[][], declared: readonly string[][]): boolean {
  return written.length === declared.length && written.every((w, k) => w.every((word) => declared[k]!.includes(word)));
}

/** Splits at the commas outside brackets (`Map<String, Integer> m, int n` → two). */
function splitTopLevel(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if ('<([{'.includes(c)) depth++;
    else if ('>)]}'.includes(c)) depth = Math.max(0, depth - 1);
    else if (c === ',' && !depth) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out.map((p) => p.trim()).filter(Boolean);
}

/** A declared parameter without its annotations (`@NonNull`), modifiers (`final`, `readonly`, `public`) and default value. */
function withoutExtras(parameter: string): string {
  return parameter
    .replace(/@[\w.]+(\([^)]*\))?/g, ' ')
    .replace(/=[^]*$/, '')
    .replace(/\b(final|readonly|public|private|protected|override|const|var|let)\b/g, ' ');
}

function wordsOf(parameter: string): string[] {
  return parameter.match(/[A-Za-z_$][\w$]*/g) ?? [];
}
