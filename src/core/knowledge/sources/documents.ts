import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { git } from '../../repo/git.js';
import { readWorkspaceFile } from '../../repo/read.js';
import { walkWorkspace } from '../../repo/walk.js';
import type { CommitLike, DocKind, SourceDocument } from './document.js';
import { readExport } from './github.js';
import { recordStatus } from './recordStatus.js';
import { wordCount } from '../text.js';

/*
 * Where the knowledge memory reads from: markdown and text documents
 * (decision records, post-mortems, RFCs, design docs), git commit messages
 * with content, and JSON exports of pull requests, issues and commits in
 * GitHub's REST shapes. Configurable with gitignore-style globs; .gitignore is
 * honoured; nothing is read from node_modules, .git or .tenure (except
 * .tenure/exports, where a live GitHub fetch writes).
 */

export interface SourceOptions {
  /** Document globs (gitignore syntax). Default: markdown, text, reStructuredText and AsciiDoc anywhere. */
  readonly include?: readonly string[];
  /** Globs left out, on top of .gitignore. */
  readonly exclude?: readonly string[];
  /** Folders (gitignore syntax) whose *.json files are read as GitHub exports. */
  readonly exports?: readonly string[];
  /** Read `git log` when the workspace is in a git repository. Default true. */
  readonly git?: boolean;
  readonly gitMaxCommits?: number;
  /** Larger files are skipped (and listed). Default 1 MiB. */
  readonly maxFileBytes?: number;
}

export const DEFAULT_INCLUDE: readonly string[] = ['*.md', '*.markdown', '*.mdx', '*.txt', '*.rst', '*.adoc'];
export const DEFAULT_EXCLUDE: readonly string[] = [
  'LICENSE*',
  'LICENCE*',
  'COPYING*',
  'NOTICE*',
  'CODE_OF_CONDUCT*',
  'third_party/',
  'vendor/',
  '.github/ISSUE_TEMPLATE/',
  '.github/PULL_REQUEST_TEMPLATE*',
  'requirements*.txt',
  'constraints*.txt',
  '*.min.*',
  'dist/',
  'out/',
  'build/',
  'target/',
  'coverage/',
];
export const DEFAULT_EXPORTS: readonly string[] = ['exports/', 'export/', '.github-export/', 'github-export/', 'tickets/'];

export interface Skipped {
  readonly path: string;
  readonly reason: string;
}

export interface CommitVerdict {
  readonly informative: boolean;
  readonly reason?: string;
}

export interface SourceSet {
  readonly documents: SourceDocument[];
  readonly skipped: Skipped[];
  /** Commits seen (git and exports) and how many carried content. */
  readonly commits: { readonly seen: number; readonly informative: number; readonly contentFree: number; readonly fromGit: boolean };
}

const CONTENT_FREE = /^(?:fix(?:e[sd])?|fixup!?.*|wip|typo|typos|tmp|temp|test|tests|cleanup|clean up|lint|format(?:ting)?|update|updates|minor|misc|changes|stuff|refactor|merge|bump|release|version|oops|asdf|\.|-+|initial commit|first commit|more|again|small fix(?:es)?|fix tests?|fix build|fix lint|fix typo|wip:?.*|update readme(?:\.md)?|update [\w./-]+)$/i;

/** Whether a commit message explains anything, and why not when it does not. */
export function judgeCommit(message: string): CommitVerdict {
  const [subjectLine = '', ...rest] = message.replace(/\r\n?/g, '\n').trim().split('\n');
  const subject = subjectLine.trim();
  const body = rest
    .filter((l) => !/^(signed-off-by|co-authored-by|change-id|reviewed-by|acked-by):/i.test(l.trim()))
    .join('\n')
    .trim();
  if (/^merge (branch|pull request|remote-tracking|commit) /i.test(subject) && wordCount(body) < 8) return { informative: false, reason: 'merge commit' };
  if (/^(bump|build\(deps\)|chore\(deps\))\b.*\bfrom\b.*\bto\b/i.test(subject)) return { informative: false, reason: 'dependency bump' };
  if (/^v?\d+\.\d+(\.\d+)?([-+].*)?$/.test(subject) || /^release v?\d/i.test(subject)) return { informative: false, reason: 'version tag' };
  if (/^revert "/i.test(subject) && wordCount(body) < 8) return { informative: false, reason: 'revert without reason' };
  const bodyWords = wordCount(body);
  if (bodyWords >= 8) return { informative: true };
  const stripped = subject.replace(/^(\w+)(\([^)]*\))?!?:\s*/, '').trim();
  if (CONTENT_FREE.test(subject) || CONTENT_FREE.test(stripped)) return { informative: false, reason: `content-free message ("${subject.slice(0, 40)}")` };
  if (wordCount(stripped) < 6) return { informative: false, reason: 'too short to explain anything' };
  return { informative: true };
}

export function commitDocument(c: CommitLike, origin: string): SourceDocument {
  const message = c.message.replace(/\r\n?/g, '\n').trim();
  const subject = message.split('\n')[0]!.trim();
  const short = c.sha.slice(0, 7);
  return {
    source: `${origin}:${c.sha}`,
    kind: 'commit',
    title: subject,
    ref: `commit ${short}`,
    ...(c.url ? { url: c.url } : {}),
    ...(c.author ? { author: c.author } : {}),
    ...(c.date ? { createdAt: c.date } : {}),
    text: `commit ${short}: ${message}\n`,
  };
}

function matcher(patterns: readonly string[]): Ignore {
  return ignore().add([...patterns]);
}

/** Kind of a markdown/text document, from its path and first lines. */
export function classify(rel: string, text: string): DocKind {
  const lower = rel.toLowerCase();
  const parts = lower.split('/');
  const base = parts[parts.length - 1]!;
  const head = text.slice(0, 2000);
  const dirs = parts.slice(0, -1);
  if (dirs.some((d) => /^(adrs?|decisions?|decision-records?|architecture-decisions?)$/.test(d)) || /^adr[-_ ]?\d+/.test(base)) return 'adr';
  if (dirs.some((d) => /^(post-?mortems?|incidents?|incident-reports?|retros?|retrospectives?)$/.test(d)) || /post-?mortem|incident-report/.test(base)) return 'postmortem';
  if (dirs.some((d) => /^rfcs?$/.test(d)) || /^rfc[-_ ]?\d+/.test(base)) return 'rfc';
  if (/^readme(\.|$)/.test(base)) return 'readme';
  if (/^(changelog|changes|history|news)(\.|$)/.test(base)) return 'changelog';
  if (/^#\s*(adr|architecture decision)[\s-]*\d+/im.test(head) || (/^#+\s*status\b/im.test(head) && /^#+\s*decision\b/im.test(head))) return 'adr';
  if (/^#\s*(post-?mortem|incident (report|review))/im.test(head)) return 'postmortem';
  if (/^#\s*rfc\b/im.test(head)) return 'rfc';
  if (dirs.some((d) => DESIGN_FOLDER.test(d))) return 'design';
  return 'doc';
}

/**
 * Folders that hold designs: `design/`, `architecture/`, specifications, and proposals under the names projects
 * give them (argo-cd's `docs/proposals/`, tempo's `docs/design-proposals/`, thanos' `proposals-accepted/`,
 * Kubernetes' enhancement proposals in `keps/`).
 */
const DESIGN_FOLDER = /^(designs?|architecture|specs?|design[-_]?docs?|(design[-_]?)?proposals?([-_]\w+)?|enhancements|keps?)$/;

/** File names that say nothing of what their document is about. */
const GENERIC_FILE = /^(_?index|readme|overview|intro(duction)?|summary)$/i;

/** Headings that name a part of a document, not what it is about: a document whose first heading is one has no title there. */
const SECTION_HEADING = /^(summary|abstract|overview|introduction|intro|motivation|background|context|status|table of contents|contents|tl;?dr)$/i;

/**
 * A title given as a field of the metadata list some templates open with (`- Title: \`DocumentStores\``,
 * `Title: …`), before the first heading of a text that follows any front matter.
 */
function metadataTitle(text: string): string | undefined {
  for (const line of text.split('\n', 30)) {
    if (line.startsWith('#')) return undefined;
    const m = /^(?:[-*]\s+)?(?:\*\*)?title(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+?)\s*$/i.exec(line);
    if (m) return m[1]!.replace(/`/g, '').replace(/^(["'])(.*)\1$/, '$2') || undefined;
  }
  return undefined;
}

/** reStructuredText's adornment characters: a section title is underlined (and may be overlined) with one of them repeated. */
const RST_ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}\s*$/;

/**
 * A reStructuredText document's title: its first section title, whatever
 * character underlines it (`6. Content-Security-Policy middleware` over a
 * line of `#`), not the first one underlined with `=` further down. A
 * version number heading a changelog's first section is not its title.
 */
export function rstTitle(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const t = lines[i]!;
    if (!t.trim() || /^\s/.test(t) || RST_ADORNMENT.test(t) || !RST_ADORNMENT.test(lines[i + 1]!)) continue;
    const title = t.trim();
    return /^(v(ersion)?\s*)?\d+(\.\d+)+\b/i.test(title) ? undefined : title;
  }
  return undefined;
}

const FRONT_MATTER = /^---\n([\s\S]*?)\n---\n/;

/** The title a YAML front matter's body gives, as written. */
function titleField(frontMatter: string): string | undefined {
  return /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter)?.[1];
}

/** The title a document's YAML front matter gives, as written. */
function frontMatterTitle(text: string): string | undefined {
  const fm = FRONT_MATTER.exec(text);
  return fm ? titleField(fm[1]!) : undefined;
}

interface TitleOptions {
  readonly frontMatter?: boolean;
  readonly heading?: boolean;
}

/**
 * Title and handle of a markdown/text document. `frontMatter: false` passes over the front matter's title, and
 * `heading: false` the heading's too: a template's placeholder that documents copied without changing it
 * (eight of argo-cd's proposals are "Neat-enhancement-idea", five of them under "# Neat Enhancement Idea").
 */
export function titleOf(rel: string, text: string, kind: DocKind, options: TitleOptions = {}): { title: string; ref?: string } {
  const fm = FRONT_MATTER.exec(text);
  const fmTitle = fm && options.frontMatter !== false && options.heading !== false ? titleField(fm[1]!) : undefined;
  const rst = rel.endsWith('.rst');
  const base = path.posix.basename(rel).replace(/\.[^.]+$/, '');
  // After the front matter, whose YAML comments (`# Valid statuses: draft | accepted`) are not headings.
  const body = fm ? text.slice(fm[0].length) : text;
  const heading = rst ? undefined : /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1];
  // "Summary" says less than a file name, but more than `index` or `README`.
  const named = heading && (!SECTION_HEADING.test(heading) || GENERIC_FILE.test(base)) ? heading : undefined;
  const headed = options.heading !== false;
  const h1 = rst || !headed ? undefined : (metadataTitle(body) ?? named);
  const underlined = !headed ? undefined : rst ? rstTitle(text) : /^(.+)\n=+\s*$/m.exec(text)?.[1];
  const title = (fmTitle ?? h1 ?? underlined ?? base.replace(/[-_]+/g, ' ')).trim().replace(/\s+/g, ' ').slice(0, 200) || base;
  const probe = `${title}\n${base}`;
  const explicit = /\b(ADR|RFC|INC|PM)[- _]?(\d{1,5})\b/i.exec(probe);
  if (explicit) return { title, ref: `${explicit[1]!.toUpperCase()}-${explicit[2]}` };
  if (kind === 'adr' || kind === 'rfc') {
    const num = /^(\d{1,5})[-_ ]/.exec(base)?.[1];
    if (num) return { title, ref: `${kind.toUpperCase()}-${num}` };
  }
  if (kind === 'postmortem') {
    const inc = /\b(INC|INCIDENT)[- _]?(\d{1,6})\b/i.exec(text.slice(0, 1500));
    if (inc) return { title, ref: `INC-${inc[2]}` };
  }
  return { title };
}

/**
 * Three or more documents of one folder whose front matter gives the same title kept a template's placeholder,
 * not a title of their own: each is titled from its heading instead, and from its file name when two or more of
 * them share the template's heading too. (Two are often a page and the template it is generated from: rook's
 * `operator-chart.gotmpl.md` and `operator-chart.md`, both "Ceph Operator Helm Chart".)
 */
function untemplatedTitles(documents: SourceDocument[]): void {
  const shared = (indexes: readonly number[], titleOfDoc: (d: SourceDocument) => string | undefined, least: number): number[] => {
    const byTitle = new Map<string, number[]>();
    for (const i of indexes) {
      const d = documents[i]!;
      const t = titleOfDoc(d);
      if (t === undefined || !d.path) continue;
      const key = `${path.posix.dirname(d.path)}\n${t.trim().toLowerCase()}`;
      byTitle.set(key, [...(byTitle.get(key) ?? []), i]);
    }
    return [...byTitle.values()].filter((same) => same.length >= least).flat();
  };
  // The handle goes with the title it was read from.
  const retitle = (i: number, options: TitleOptions) => {
    const d = documents[i]!;
    documents[i] = fileDocument(d.path!, d.text, d.kind, options);
  };
  const placeholders = shared(documents.map((_, i) => i), (d) => frontMatterTitle(d.text), 3);
  for (const i of placeholders) retitle(i, { frontMatter: false });
  for (const i of shared(placeholders, (d) => d.title, 2)) retitle(i, { heading: false });
}

/** A workspace file as a document: its title and handle, and a decision record's own status. */
function fileDocument(rel: string, text: string, kind: DocKind, titling: TitleOptions = {}): SourceDocument {
  const { title, ref } = titleOf(rel, text, kind, titling);
  const status = kind === 'adr' || kind === 'rfc' || kind === 'design' ? recordStatus(text) : undefined;
  return { source: rel, kind, title, ...(ref ? { ref } : {}), ...(status ? { status } : {}), path: rel, text };
}

/** A file's text (BOM dropped, line ends normalised), or why it is left out: read only inside the workspace, only a regular file, only up to the cap. */
function readText(root: string, abs: string, maxBytes: number): { text: string } | { skip: string } {
  const read = readWorkspaceFile(root, abs, maxBytes);
  if (!read.ok) return { skip: read.missing ? 'gone while reading' : read.skip.reason };
  if (read.bytes.includes(0)) return { skip: 'binary' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n') };
  } catch {
    return { skip: 'not UTF-8' };
  }
}

/** A commit and where it was read: `git`, or the export file. */
interface SourcedCommit {
  readonly commit: CommitLike;
  readonly origin: string;
}

/** Informative commits as documents, each sha once; the others counted as content-free. */
function commitDocuments(commits: readonly SourcedCommit[]): { documents: SourceDocument[]; seen: number; informative: number; contentFree: number } {
  const documents: SourceDocument[] = [];
  let informative = 0;
  let contentFree = 0;
  const seenSha = new Set<string>();
  for (const { commit: c, origin } of commits) {
    if (seenSha.has(c.sha)) continue;
    seenSha.add(c.sha);
    if (judgeCommit(c.message).informative) {
      informative++;
      documents.push(commitDocument(c, origin === 'git' ? 'git' : `${origin}#commit`));
    } else contentFree++;
  }
  return { documents, seen: seenSha.size, informative, contentFree };
}

export async function collectSources(root: string, options: SourceOptions = {}): Promise<SourceSet> {
  const include = matcher(options.include ?? DEFAULT_INCLUDE);
  const exclude = matcher([...DEFAULT_EXCLUDE, ...(options.exclude ?? [])]);
  const exportDirs = matcher(options.exports ?? DEFAULT_EXPORTS);
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const documents: SourceDocument[] = [];
  const skipped: Skipped[] = [];
  const commits: SourcedCommit[] = [];

  const readJsonExport = (rel: string, text: string) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      skipped.push({ path: rel, reason: 'export is not valid JSON' });
      return;
    }
    const contents = readExport(json, rel);
    if (contents.kind === 'threads') documents.push(...contents.documents);
    else if (contents.kind === 'commits') commits.push(...contents.commits.map((commit) => ({ commit, origin: rel })));
    else skipped.push({ path: rel, reason: 'JSON in an export folder, but not a GitHub pull request, issue, thread or commit list' });
  };

  const visit = (abs: string, rel: string) => {
    const isJsonExport = rel.endsWith('.json') && (exportDirs.ignores(rel) || rel.startsWith('.tenure/exports/'));
    if (!isJsonExport && !include.ignores(rel)) return;
    if (exclude.ignores(rel)) return;
    const read = readText(root, abs, maxBytes);
    if ('skip' in read) {
      skipped.push({ path: rel, reason: read.skip });
      return;
    }
    if (isJsonExport) return readJsonExport(rel, read.text);
    if (!read.text.trim()) return;
    documents.push(fileDocument(rel, read.text, classify(rel, read.text)));
  };

  // The one workspace walk (.gitignore at every level, no link out of the workspace, no FIFO or device).
  const walked = await walkWorkspace(root, { pick: () => true });
  for (const s of walked.skipped) if (s.kind === 'outside-workspace' || s.kind === 'not-a-regular-file') skipped.push({ path: s.rel, reason: s.reason });
  for (const f of walked.files) visit(f.abs, f.rel);
  if (fs.existsSync(path.join(root, '.tenure', 'exports'))) {
    for (const f of (await walkWorkspace(root, { pick: () => true, under: '.tenure/exports' })).files) visit(f.abs, f.rel);
  }

  const history = options.git !== false ? await gitCommits(root, options.gitMaxCommits ?? 5000) : undefined;
  if (history) commits.push(...history.map((commit) => ({ commit, origin: 'git' })));
  untemplatedTitles(documents);
  const fromCommits = commitDocuments(commits);
  documents.push(...fromCommits.documents);
  documents.sort((a, b) => a.source.localeCompare(b.source));
  return { documents, skipped, commits: { seen: fromCommits.seen, informative: fromCommits.informative, contentFree: fromCommits.contentFree, fromGit: !!history } };
}


/** Commit messages from `git log` limited to the workspace folder; undefined when it is not in a git repository. */
export async function gitCommits(root: string, max: number): Promise<CommitLike[] | undefined> {
  const r = await git(root, ['log', `-n${max}`, '--no-color', '--format=%H%x1f%an%x1f%aI%x1f%B%x1e', '--', '.'], { maxBuffer: 256 * 1024 * 1024, timeoutMs: 60_000 });
  if (r.code !== 0) return undefined;
  return r.stdout
    .split('\x1e')
    .map((c) => c.replace(/^\n+/, ''))
    .filter((c) => c.includes('\x1f'))
    .map((c) => {
      const [sha, author, date, message] = c.split('\x1f');
      return { sha: sha!.trim(), author: author ?? '', date: date ?? '', message: (message ?? '').trim() };
    });
}
