/*
 * What the code says about itself: a symbol's doc comment (JSDoc, Javadoc,
 * Go doc comments, `//` and `#` runs above it, Python docstrings below its
 * signature), the comments inside it (TODO / FIXME / HACK / NOTE with their
 * text), and its declaration (for a constant's literal value). Read from the
 * file at question time: the symbol's own words are the most exact source
 * there is. Pure: the caller reads the file.
 */

export type NoteTag = 'TODO' | 'FIXME' | 'HACK' | 'NOTE' | 'XXX';

export interface CodeNote {
  readonly kind: 'docstring' | 'comment';
  readonly tag?: NoteTag;
  /** The comment's text without its markers, lines joined by newlines. */
  readonly text: string;
  /** 1-based lines in the file. */
  readonly line: number;
  readonly endLine: number;
}

export interface SymbolText {
  readonly notes: readonly CodeNote[];
  /** The declaration's first lines (up to the first `{`, `:` or `;`), for a literal value. */
  readonly declaration: string;
}

type Syntax = 'c' | 'hash';

function syntaxOf(path: string): Syntax {
  return /\.(py|pyi|rb|sh|bash|ya?ml|toml|r|pl)$/i.test(path) ? 'hash' : 'c';
}

/** Blank lines a `/** … *\/` doc comment may stand above its declaration. */
const DOC_BLOCK_GAP = 2;
const ANNOTATION = /^\s*@[\w.]+(\(.*\))?\s*$|^\s*#\[.*\]\s*$/;
const TAG = /\b(TODO|FIXME|HACK|NOTE|XXX)\b[:(]?/;

/** A comment line's text without its marker, or undefined when the line is not a comment. */
function commentText(line: string, syntax: Syntax): string | undefined {
  const t = line.trim();
  if (syntax === 'hash') return /^#(?!!)/.test(t) ? t.replace(/^#+\s?/, '') : undefined;
  if (/^\/\/\/?/.test(t)) return t.replace(/^\/\/\/?\s?/, '');
  return undefined;
}

/**
 * A comment line that is an instruction to a tool, not prose: Kubernetes code-generator markers
 * (`+kubebuilder:validation:XValidation:rule=…`, `+optional`, `+k8s:deepcopy-gen=true`), Go directives
 * (`go:generate`, `go:build`), and linters' and type checkers' switches (`nolint:errcheck`, `eslint-disable-next-line`,
 * `@ts-expect-error`, `prettier-ignore`, `istanbul ignore next`, `pylint: disable=…`, `type: ignore`).
 */
const TOOL_DIRECTIVE = /^\s*(?:\+[a-zA-Z][\w.-]*(?:[:=].*)?$|go:[a-z]+\b|nolint\b|eslint-(?:disable|enable)|@ts-(?:ignore|expect-error|nocheck)\b|prettier-ignore\b|(?:istanbul|c8) ignore\b|pylint:\s*disable|type:\s*ignore\b)/;

/**
 * Javadoc/JSDoc tags say what, rarely why; `@deprecated` and `@see` text is kept. The same in a run of line
 * comments: Java's Markdown doc comments (`/// @param lastVerifiedBlock …`) and JSDoc written with `//`. Lines that
 * instruct a tool (`TOOL_DIRECTIVE`) are not read either.
 */
function withoutDocTags(lines: readonly string[]): string {
  const out: string[] = [];
  for (const l of lines) {
    if (/^\s*@(param|return|returns|throws|exception|type|typedef|template|since|author|version|override|inheritdoc|example)\b/i.test(l)) continue;
    if (TOOL_DIRECTIVE.test(l)) continue;
    out.push(l.replace(/^\s*@(deprecated|see)\b\s*/i, (m) => `${m.trim().slice(1)}: `).replace(/\{@(?:link|code)\s+([^}]+)\}/g, '$1'));
  }
  return out.join('\n').trim();
}

/** A block comment's text: its markers off, then its tags (`withoutDocTags`). */
function cleanBlock(lines: readonly string[]): string {
  return withoutDocTags(lines.map((raw) => raw.replace(/^\s*\/\*\*?/, '').replace(/\*\/\s*$/, '').replace(/^\s*\*\s?/, '').trimEnd()));
}

/** The line where the block comment ending on line `end` (0-based) opens, or -1. */
function blockStart(lines: readonly string[], end: number): number {
  let s = end;
  while (s >= 0 && !lines[s]!.includes('/*')) s--;
  return s;
}

/** A file's licence header: no one's doc comment, whatever it stands above. */
const LICENCE = /\b(copyright|licen[cs]ed?|spdx-license-identifier)\b/i;

/**
 * The comment block that ends just above a 1-based line (annotations and decorators in between skipped). A `/** … *\/`
 * block is the doc comment across blank lines, as TypeScript and javadoc attach it (paragon's `Icon` keeps its JSDoc
 * one blank line above `function Icon(`); a `//` run or a plain `/* *\/` block only when it touches the declaration.
 */
function commentAbove(lines: readonly string[], line: number, syntax: Syntax): CodeNote | undefined {
  let i = line - 2;
  while (i >= 0 && ANNOTATION.test(lines[i]!)) i--;
  if (i < 0) return undefined;
  if (syntax === 'c') {
    let j = i;
    while (j >= 0 && j > i - DOC_BLOCK_GAP && !lines[j]!.trim()) j--;
    if (j >= 0 && j < i && lines[j]!.trim().endsWith('*/')) {
      const s = blockStart(lines, j);
      if (s > 0 && /^\s*\/\*\*(?!\*)/.test(lines[s]!) && !LICENCE.test(lines.slice(s, j + 1).join('\n'))) i = j;
    }
  }
  const last = lines[i]!.trim();
  if (syntax === 'c' && last.endsWith('*/')) {
    const s = blockStart(lines, i);
    if (s < 0) return undefined;
    const text = cleanBlock(lines.slice(s, i + 1));
    return text ? { kind: 'docstring', text, line: s + 1, endLine: i + 1 } : undefined;
  }
  const run: string[] = [];
  let s = i;
  while (s >= 0) {
    const c = commentText(lines[s]!, syntax);
    if (c === undefined) break;
    run.unshift(c);
    s--;
  }
  if (!run.length) return undefined;
  const text = withoutDocTags(run);
  return text ? { kind: 'docstring', text, line: s + 2, endLine: i + 1 } : undefined;
}

/** A Python docstring: the first statement of the body, a string literal. */
function pythonDocstring(lines: readonly string[], line: number, endLine: number): CodeNote | undefined {
  let i = line - 1;
  // The signature may span lines: the body starts after the line that ends with ':'.
  while (i < Math.min(endLine, line + 20) && !/:\s*(#.*)?$/.test(lines[i]!)) i++;
  i++;
  while (i < endLine && !lines[i]!.trim()) i++;
  const first = lines[i];
  const open = first && /^\s*[rRuUbB]?("""|''')/.exec(first);
  if (!open) return undefined;
  const q = open[1]!;
  const start = i;
  const rest = first.slice(first.indexOf(q) + 3);
  const body: string[] = [];
  if (rest.includes(q)) body.push(rest.slice(0, rest.indexOf(q)));
  else {
    body.push(rest);
    for (i = i + 1; i < Math.min(lines.length, endLine + 1); i++) {
      const l = lines[i]!;
      if (l.includes(q)) {
        body.push(l.slice(0, l.indexOf(q)));
        break;
      }
      body.push(l);
    }
  }
  const indent = Math.min(...body.slice(1).filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length), 1000);
  const text = withoutFieldLists([body[0]!.trim(), ...body.slice(1).map((l) => (indent < 1000 ? l.slice(indent) : l))]).join('\n').trim();
  return text ? { kind: 'docstring', text, line: start + 1, endLine: i + 1 } : undefined;
}

/** reST fields (`:param x:`, `:returns:`, `:raises E:`) of a docstring: what its parameters and results are, as Javadoc's tags say. */
const FIELD = /^:(param|parameter|arg|argument|key|keyword|kwarg|type|returns?|rtype|raises?|except|exception|ivar|cvar|var|vartype|yields?|ytype)\b[^:]*:/i;
/** Google's and numpy's sections of the same (`Args:`; `Parameters` over a dashed line). Notes, warnings and examples of use stay. */
const FIELD_SECTION = /^(args|arguments|parameters|params|keyword args|keyword arguments|other parameters|returns?|yields?|raises|attributes)\s*:?\s*$/i;

/**
 * A docstring's lines without its field lists, as a Javadoc comment is read without its `@param` and `@return`
 * lines: each field, or section of fields, goes with the lines indented under it. A field list glued to the
 * prose (`… is omitted. :param generation_kwargs: Other parameters …`) made a "sentence" no reader would quote.
 * Blank lines are kept so that line numbers still point into the file.
 */
function withoutFieldLists(lines: readonly string[]): string[] {
  const out: string[] = [];
  const underlined = (k: number) => /^-{3,}\s*$/.test(lines[k + 1]?.trim() ?? '');
  let inside: 'field' | 'numpy' | undefined;
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k]!;
    const t = l.trim();
    if (underlined(k)) {
      // A numpy section runs to the next section's title: its entries (`y : int`, `int`) are not indented.
      inside = FIELD_SECTION.test(t) ? 'numpy' : undefined;
      out.push(...(inside ? ['', ''] : [l, lines[k + 1]!]));
      k++;
      continue;
    }
    if (inside === 'numpy') {
      out.push('');
      continue;
    }
    if (FIELD.test(t) || (FIELD_SECTION.test(t) && t.endsWith(':'))) {
      inside = 'field';
      out.push('');
      continue;
    }
    // Under a field or a section of them: every line up to a blank line before prose (a field's text is often
    // continued flush with it, though reStructuredText wants it indented).
    if (inside) {
      if (!t && !/^\s/.test(lines[k + 1] ?? '') && !FIELD.test(lines[k + 1]?.trim() ?? '')) inside = undefined;
      out.push('');
      continue;
    }
    out.push(l);
  }
  return out;
}

/** Comments inside the symbol's lines: runs of line comments and block comments, each with its tag. */
function commentsInside(lines: readonly string[], line: number, endLine: number, syntax: Syntax, skip: ReadonlySet<number>): CodeNote[] {
  const out: CodeNote[] = [];
  let run: { text: string[]; line: number; end: number } | undefined;
  const flush = () => {
    if (!run) return;
    const text = withoutDocTags(run.text);
    const tag = TAG.exec(text)?.[1] as NoteTag | undefined;
    if (text.split(/\s+/).length >= 4 || tag) out.push({ kind: 'comment', ...(tag ? { tag } : {}), text, line: run.line, endLine: run.end });
    run = undefined;
  };
  for (let i = line; i < Math.min(lines.length, endLine); i++) {
    if (skip.has(i + 1)) {
      flush();
      continue;
    }
    const l = lines[i]!;
    let c = commentText(l, syntax);
    if (c === undefined) {
      // A trailing comment after code: `x = 3  # three attempts: see ADR-7`.
      const trailing = syntax === 'hash' ? /\s#\s+(.+)$/.exec(l) : /\s\/\/\s+(.+)$/.exec(l);
      if (trailing && !/["'`]/.test(l.slice(l.indexOf(trailing[0]) + 1))) c = trailing[1];
    }
    if (c === undefined && syntax === 'c' && l.trim().startsWith('/*')) {
      flush();
      let e = i;
      while (e < endLine - 1 && !lines[e]!.includes('*/')) e++;
      const text = cleanBlock(lines.slice(i, e + 1));
      const tag = TAG.exec(text)?.[1] as NoteTag | undefined;
      if (text.split(/\s+/).length >= 4 || tag) out.push({ kind: 'comment', ...(tag ? { tag } : {}), text, line: i + 1, endLine: e + 1 });
      i = e;
      continue;
    }
    if (c === undefined) {
      flush();
      continue;
    }
    if (run && TAG.test(c)) flush();
    if (!run) run = { text: [], line: i + 1, end: i + 1 };
    run.text.push(c);
    run.end = i + 1;
  }
  flush();
  return out;
}

/**
 * Where a comment stands against one line: on it, or ending at most two lines
 * above it (a comment block over a `case`, a statement, a field).
 */
export function placeAgainst(note: Pick<CodeNote, 'line' | 'endLine'>, at: number): 'on' | 'above' | undefined {
  if (note.line <= at && at <= note.endLine) return 'on';
  return note.endLine < at && note.endLine >= at - 2 ? 'above' : undefined;
}

/** How far above an asked line the reading starts: a comment run over it is read whole up to this length. */
const RUN_ABOVE_LINES = 60;

/** The comments on line `at` or just above it (`placeAgainst`), read no higher than line `from`, nor past `to`. */
function against(lines: readonly string[], syntax: Syntax, at: number, from: number, to: number, skip: ReadonlySet<number> = new Set()): CodeNote[] {
  return commentsInside(lines, Math.max(from, at - RUN_ABOVE_LINES), Math.min(to, at + 1), syntax, skip).filter((n) => placeAgainst(n, at));
}

/**
 * The comments on one line of a file or just above it, wherever it is: what its authors wrote about a statement
 * (a call of a function: "Use LookupTLSSecretInsecure instead of LookupTLSSecret since Gateway API uses its own
 * mechanism"). `lines` is the file split at newlines.
 */
export function commentsAtLine(lines: readonly string[], path: string, at: number): CodeNote[] {
  return against(lines, syntaxOf(path), at, 0, lines.length);
}

/**
 * The notes of one symbol in a file: its doc comment or docstring, then the
 * comments inside it (only for symbols up to `maxBodyLines` long: a class's
 * body comments belong to its members). Past that length, a question about
 * one line inside it (`at`) still reads the comments on that line or just
 * above it: a long function's comment over the statement asked about is the
 * most exact reason there is.
 */
export function symbolText(fileText: string, path: string, line: number, endLine: number, options: { readonly maxBodyLines?: number; readonly body?: boolean; readonly at?: number } = {}): SymbolText {
  const lines = fileText.split('\n');
  const syntax = syntaxOf(path);
  const notes: CodeNote[] = [];
  const above = commentAbove(lines, line, syntax);
  if (above) notes.push(above);
  const skip = new Set<number>();
  if (syntax === 'hash') {
    const doc = pythonDocstring(lines, line, endLine);
    if (doc) {
      notes.push(doc);
      for (let l = doc.line; l <= doc.endLine; l++) skip.add(l);
    }
  }
  const span = endLine - line;
  if (options.body !== false && span <= (options.maxBodyLines ?? 200)) notes.push(...commentsInside(lines, line, endLine, syntax, skip));
  else if (options.body !== false && options.at !== undefined && options.at > line && options.at <= endLine) notes.push(...against(lines, syntax, options.at, line, endLine, skip));
  const decl: string[] = [];
  for (let i = line - 1; i < Math.min(lines.length, line + 3); i++) {
    decl.push(lines[i]!);
    if (/[{;]\s*$/.test(lines[i]!) || i >= endLine - 1) break;
  }
  return { notes, declaration: decl.join('\n') };
}
