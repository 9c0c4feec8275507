import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { chunkText } from '../../src/core/knowledge/chunk';
import { readExport } from '../../src/core/knowledge/sources/github';
import { classify, collectSources, judgeCommit, titleOf } from '../../src/core/knowledge/sources/documents';
import { lineAt, lineStarts, plain, quote, sentences } from '../../src/core/knowledge/text';
import { entityKey, identifierWords, isCodeShaped, phraseTokens } from '../../src/core/linking/names';
import { REPO_ROOT, tempDir, write } from '../helpers/fixtures';
import { gitRepo } from '../helpers/prereq';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'settlement');

describe('knowledge: text units', () => {
  const adr = fs.readFileSync(path.join(EXAMPLE, 'docs', 'adr', '0007-settlement-retries.md'), 'utf8');

  it('chunks deterministically, each chunk exactly the text at its offsets, within the token limit', () => {
    const a = chunkText(adr, { maxTokens: 120, overlapTokens: 30 });
    const b = chunkText(adr, { maxTokens: 120, overlapTokens: 30 });
    assert.deepEqual(a, b);
    assert.ok(a.length >= 4, `${a.length} chunks`);
    assert.ok(a.some((c, i) => i > 0 && c.start < a[i - 1]!.end), 'some chunks overlap');
    for (const c of a) {
      assert.equal(adr.slice(c.start, c.end), c.text);
      const exact = countTokens(c.text);
      assert.ok(Math.abs(c.tokens - exact) <= Math.max(3, exact * 0.05), `chunk ${c.ord}: ${c.tokens} counted, ${exact} exact`);
      assert.ok(c.tokens <= 120 + 8, `chunk ${c.ord} has ${c.tokens} tokens`);
      assert.equal(c.lineStart, lineAt(lineStarts(adr), c.start));
      assert.equal(c.lineStart, adr.slice(0, c.start).split('\n').length);
    }
    // Together they cover the text, and consecutive chunks overlap.
    assert.equal(a[0]!.start, 0);
    assert.equal(a[a.length - 1]!.end, adr.trimEnd().length);
    for (let i = 1; i < a.length; i++) {
      // Overlapping, except where a section heading starts the next chunk.
      assert.ok(a[i]!.start < a[i - 1]!.end || a[i]!.text.startsWith('#'), `chunk ${i} neither overlaps the previous nor starts a section`);
      assert.ok(a[i]!.start > a[i - 1]!.start, `chunk ${i} does not move forward`);
    }
  });

  it('records the heading path in force where each chunk starts, and its first line', () => {
    const chunks = chunkText(adr, { maxTokens: 80, overlapTokens: 0 });
    for (const c of chunks) {
      const lineEnd = adr.indexOf('\n', c.start);
      const before = adr.slice(0, lineEnd < 0 ? adr.length : lineEnd).split('\n').filter((l) => /^#{1,2} /.test(l));
      const h1 = before.filter((l) => l.startsWith('# ')).pop()!.slice(2);
      const h2 = before.filter((l) => l.startsWith('## ')).pop();
      const lastIsH1 = before[before.length - 1]!.startsWith('# ');
      assert.equal(c.heading, lastIsH1 || !h2 ? h1 : `${h1} › ${h2.slice(3)}`, `chunk ${c.ord}`);
      assert.ok(adr.split('\n')[c.lineStart - 1]!.includes(c.text.split('\n')[0]!), `chunk ${c.ord} line ${c.lineStart}`);
    }
    assert.ok(chunks.some((c) => c.heading?.endsWith('› Decision')));
  });

  it('splits an over-long sentence into word runs rather than overflowing', () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(long, { maxTokens: 50, overlapTokens: 10 });
    assert.ok(chunks.length > 5);
    for (const c of chunks) assert.ok(c.tokens <= 50, `${c.tokens}`);
    assert.ok(chunks.at(-1)!.text.endsWith('word399'));
  });

  it('splits sentences at . ! ? and list items, not at abbreviations, decimals or code spans', () => {
    const s = sentences('We use e.g. SWIFT. It costs 2.5 minutes! Really? Yes: `a.b. C` stays.\n- one item\n- two');
    assert.deepEqual(
      s.map((x) => x.text),
      ['We use e.g. SWIFT.', 'It costs 2.5 minutes!', 'Really?', 'Yes: `a.b. C` stays.', '- one item', '- two'],
    );
  });

  it('ends a sentence at a line that ends with a bare URL when the next line begins one, and only then', () => {
    const s = sentences('Estimated days to finish (ETF). See the original page https://example.org/stats.jsx#L231\nReturns the days left, leaving out today because it is not over yet.');
    assert.deepEqual(
      s.map((x) => x.text),
      ['Estimated days to finish (ETF).', 'See the original page https://example.org/stats.jsx#L231', 'Returns the days left, leaving out today because it is not over yet.'],
    );
    // A URL in the middle of a wrapped sentence does not end it.
    assert.deepEqual(
      sentences('See https://example.org/x for\nthe details, and https://example.org/y\nfor the rest.').map((x) => x.text),
      ['See https://example.org/x for\nthe details, and https://example.org/y\nfor the rest.'],
    );
  });

  it('quotes plain text, shortened at a word', () => {
    assert.equal(plain('## **Bold** [link](http://x) and `code`'), 'Bold link and `code`');
    const q = quote('one two three four five six seven eight nine ten', 20);
    assert.ok(q.length <= 21 && q.endsWith('…'), q);
  });

  it('quotes a long sentence for the name it holds where the name is, not from its start', () => {
    // A commit message of build output names the symbol 700 characters in: its first 300 characters never show it.
    const flags = Array.from({ length: 40 }, (_, i) => `-X github.com/example/app/version.Field${i}=value${i}`).join(' ');
    const text = `fix: the build --> go install -ldflags '${flags} -X github.com/example/app/keeper.EnableLiquidator=false' ./...`;
    const q = quote(text, 300, ['EnableLiquidator']);
    assert.ok(q.length <= 300, q);
    assert.match(q, /^….*keeper\.EnableLiquidator=false' \.\/\.\.\.$/, q);
    assert.ok(q.indexOf('EnableLiquidator') > 40, 'some of the text before the name is kept');
    // A name within the first characters, or none held: cut from the start as before.
    assert.equal(quote(`EnableLiquidator ${flags}`, 300, ['EnableLiquidator']), quote(`EnableLiquidator ${flags}`, 300));
    assert.equal(quote(text, 300, ['NotThere']), quote(text, 300));
  });

  it('quotes without inline HTML (a generated test list, Javadoc), keeping type parameters, placeholders and code', () => {
    assert.equal(plain('It confirms the<br>packets were handled.</details> <details><summary>Details</summary>Set up'), 'It confirms the packets were handled. Details Set up');
    assert.equal(plain('Returns the fragment <p> For instance, <code>servicetemplates/{ns}</code> is one'), 'Returns the fragment For instance, servicetemplates/{ns} is one');
    assert.equal(plain('See <a href="https://material.io/icons">Material icons</a>.'), 'See Material icons.');
    assert.equal(plain('<dl><dt>Publisher</dt><dd>A type of data source that publishes blocks.</dd></dl>'), 'Publisher A type of data source that publishes blocks.');
    assert.equal(plain('the type is `<T>`, a table named <SOME GUID>, storage `<name>`, the tag `<br>`'), 'the type is `<T>`, a table named <SOME GUID>, storage `<name>`, the tag `<br>`');
  });
});

describe('knowledge: names and keys', () => {
  it('splits identifiers into words and recognises code-shaped names', () => {
    assert.deepEqual(identifierWords('RetryPolicy'), ['retry', 'policy']);
    assert.deepEqual(identifierWords('MAX_ATTEMPTS'), ['max', 'attempts']);
    assert.deepEqual(identifierWords('HTTPServer'), ['http', 'server']);
    // A plural initialism is one word, and the word after it starts a new one.
    assert.deepEqual(identifierWords('NormalizeTenantIDs'), ['normalize', 'tenant', 'ids']);
    assert.deepEqual(identifierWords('parseURLsFor'), ['parse', 'urls', 'for']);
    assert.deepEqual(identifierWords('APIsService'), ['apis', 'service']);
    assert.deepEqual(identifierWords('HTTPSession'), ['http', 'session']);
    // Initialisms side by side in camel case are split where a known one starts or ends the run; a constant's words are never split.
    assert.deepEqual(identifierWords('defaultACMEHTTPTimeout'), ['default', 'acme', 'http', 'timeout']);
    assert.deepEqual(identifierWords('ACMEHTTP01Config'), ['acme', 'http01', 'config']);
    assert.deepEqual(identifierWords('CloudFlareAPIURL'), ['cloud', 'flare', 'api', 'url']);
    assert.deepEqual(identifierWords('MAX_RADIO_TIMEOUT'), ['max', 'radio', 'timeout']);
    assert.deepEqual(identifierWords('newANDROIDClient'), ['new', 'android', 'client']);
    assert.deepEqual(phraseTokens("the settlement service's retries"), ['settlement', 'service', 'retry']);
    for (const c of ['RetryPolicy', 'SettlementService.retry', 'MAX_ATTEMPTS', 'settle_batch', 'shouldRetry', 'a/b.C']) assert.ok(isCodeShaped(c), c);
    for (const c of ['Northwind', 'SWIFT', 'retry', 'e.g', 'the retry policy']) assert.ok(!isCodeShaped(c), c);
  });

  it('merges mentions by key: handles, code identifiers (case kept), prose (normalised)', () => {
    assert.equal(entityKey('ADR-0007'), entityKey('adr 7'));
    assert.equal(entityKey('PR #142'), entityKey('#142'));
    assert.equal(entityKey('INC-2041'), 'ref:inc-2041');
    assert.equal(entityKey('`RetryPolicy.MAX_ATTEMPTS`'), 'code:RetryPolicy.MAX_ATTEMPTS');
    assert.equal(entityKey('SettlementService.retry()'), 'code:SettlementService.retry');
    assert.equal(entityKey('the Settlement Services'), 'settlement service');
    assert.equal(entityKey("Northwind's recall SLA"), 'northwind recall sla');
    assert.notEqual(entityKey('RetryPolicy'), entityKey('retry policy'), 'code and prose stay apart; the linker relates them');
  });
});

describe('knowledge: sources', () => {
  it('tells content-free commits from informative ones, with the reason', () => {
    for (const m of ['fix', 'wip', 'typo', 'Update README.md', 'Merge branch \'main\' into x', 'Bump typescript from 5.4.2 to 5.4.5', 'v1.2.3', 'fix: typo', 'small fixes'])
      assert.equal(judgeCommit(m).informative, false, m);
    assert.match(judgeCommit('Merge branch \'main\' into x').reason!, /merge/);
    assert.match(judgeCommit('Bump typescript from 5.4.2 to 5.4.5').reason!, /dependency bump/);
    assert.equal(judgeCommit('Cap settlement retries at three attempts so duplicates stay recallable').informative, true);
    assert.equal(judgeCommit('fix\n\nThe gateway timed out after accepting, so retrying paid twice; never retry duplicates.').informative, true);
  });

  it('classifies documents by folder and content, and finds their handles', () => {
    assert.equal(classify('docs/adr/0007-settlement-retries.md', '# x'), 'adr');
    assert.equal(classify('docs/postmortems/2024-03-14-x.md', '# x'), 'postmortem');
    assert.equal(classify('notes/decision.md', '# Title\n\n## Status\nAccepted\n\n## Decision\nWe do.'), 'adr');
    assert.equal(classify('rfcs/0012-new-rail.md', '# x'), 'rfc');
    assert.equal(classify('README.md', '# x'), 'readme');
    assert.equal(classify('docs/guide.md', '# Guide'), 'doc');
    for (const proposal of ['docs/proposals/sync-timeout.md', 'docs/design-proposals/2023-05 vParquet3.md', 'docs/proposals-accepted/202301-x.md', 'proposals/text/4370-stores.md', 'enhancements/0012-sharding.md']) {
      assert.equal(classify(proposal, '# Summary'), 'design', proposal);
    }
    assert.deepEqual(titleOf('docs/adr/0007-settlement-retries.md', '# Cap retries\n', 'adr'), { title: 'Cap retries', ref: 'ADR-0007' });
    assert.deepEqual(titleOf('docs/postmortems/x.md', '# Post-mortem: duplicates\n\nIncident INC-2041 began…', 'postmortem'), { title: 'Post-mortem: duplicates', ref: 'INC-2041' });
    assert.deepEqual(titleOf('a/b.md', '---\ntitle: "From front matter"\n---\n# Other\n', 'doc'), { title: 'From front matter' });
    // A template's metadata list names the title; its first heading names a section.
    const proposal = '- Title: `DocumentStores` and `Retrievers`\n- Decision driver: @someone\n- Start Date: 2023-03-09\n\n# Summary\n\nText.\n';
    assert.equal(titleOf('proposals/text/4370-documentstores-and-retrievers.md', proposal, 'design').title, 'DocumentStores and Retrievers');
    assert.equal(titleOf('proposals/text/3550-csv-converter.md', '- Start Date: 2022-11-08\n\n# Summary\n\nText.\n', 'design').title, '3550 csv converter');
    assert.equal(titleOf('docs/core/README.md', '# Overview\n\nText.\n', 'readme').title, 'Overview', 'a README is better named by its heading, even a generic one');
    const commented = '---\n# Valid statuses: draft | proposed | accepted\nstatus: accepted\n---\n\n# Static and Dynamic Context\n';
    assert.equal(titleOf('docs/architecture-decisions/static-and-dynamic-context.md', commented, 'adr').title, 'Static and Dynamic Context', "a YAML comment in the front matter is not a heading");
    assert.equal(titleOf('spec/README.md', '---\norder: 1\nparent:\n  title: RPC\n---\n# RPC spec\n', 'readme').title, 'RPC spec', 'a nested title field of the front matter is not the title');
  });

  it("reads a reStructuredText document's title from its first section, whatever character underlines or overlines it", () => {
    // edx-django-utils' ADR 6 is underlined with `#`; a later section underlined with `=` is not its title.
    const adr = '6. Content-Security-Policy middleware\n#####################################\n\nStatus\n******\n\nProvisional\n\nConfigure at the CDN level\n==========================\n';
    assert.deepEqual(titleOf('docs/decisions/0006-content-security-policy-middleware.rst', adr, 'adr'), { title: '6. Content-Security-Policy middleware', ref: 'ADR-0006' });
    assert.equal(titleOf('docs/concepts/event-bus.rst', '=================\nOpen edX Event Bus\n=================\n\nComponents\n----------\n', 'doc').title, 'Open edX Event Bus');
    // A changelog's first section is its newest version, not its title; a markdown `#` line is not an reStructuredText title.
    assert.equal(titleOf('CHANGELOG.rst', 'Version 14.0.0\n--------------\n\n* Fixed\n', 'changelog').title, 'CHANGELOG');
    assert.equal(titleOf('docs/x.rst', '# not a title\n\nText\n', 'doc').title, 'x');
    // A table's border is not an underline.
    assert.equal(titleOf('docs/t.rst', 'Intro text\n=====  =====\nA      B\n', 'doc').title, 't');
  });

  it('reads GitHub REST shapes: a PR thread bundle, a list of issues, a list of commits; says when it does not know a shape', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(EXAMPLE, 'exports', 'github', 'pulls', '142.json'), 'utf8')) as unknown;
    const t = readExport(bundle, 'exports/github/pulls/142.json');
    assert.equal(t.kind, 'threads');
    const doc = t.kind === 'threads' ? t.documents[0]! : undefined;
    assert.equal(doc?.kind, 'pr');
    assert.equal(doc?.ref, 'PR #142');
    assert.equal(doc?.url, 'https://github.com/acme/settlement/pull/142');
    assert.equal(doc?.sections?.length, 6, 'body, two comments, one review, two review comments');
    // Comments in time order, each section pointing at its own comment.
    const sec = doc!.sections!;
    const why2 = sec.find((s) => doc!.text.slice(s.start, s.end).includes('Why not two?'))!;
    assert.equal(why2.url, 'https://github.com/acme/settlement/pull/142#issuecomment-2009114201');
    assert.equal(why2.author, 'lwei');
    assert.match(doc!.text, /--- review comment by @praman on src\/settlement\/RetryPolicy.ts:6, 2024-03-19 ---/);
    assert.ok(doc!.text.indexOf('Why not two?') < doc!.text.indexOf('Approving on behalf'), 'time order');

    const issues = readExport([{ number: 7, title: 'Parked instructions pile up', body: 'x', html_url: 'https://github.com/o/r/issues/7', user: { login: 'a' } }], 'exports/issues.json');
    assert.equal(issues.kind === 'threads' ? issues.documents[0]!.kind : undefined, 'issue');

    const commits = readExport(JSON.parse(fs.readFileSync(path.join(EXAMPLE, 'exports', 'github', 'commits.json'), 'utf8')), 'exports/github/commits.json');
    assert.equal(commits.kind, 'commits');
    assert.equal(commits.kind === 'commits' ? commits.commits.length : 0, 9);

    assert.equal(readExport({ name: 'tenure', version: '1' }, 'exports/package.json').kind, 'unknown');
  });

  it("titles documents that kept a template's placeholder title by their own heading, else their file name", async () => {
    const d = tempDir();
    try {
      const proposal = (heading: string) => `---\ntitle: Neat-enhancement-idea\nauthors:\n  - "@someone"\n---\n\n# ${heading}\n\nWhy we want it.\n`;
      write(d.root, 'docs/proposals/001-proposal-template.md', proposal('Neat Enhancement Idea'));
      write(d.root, 'docs/proposals/sync-timeout.md', proposal('Sync Operation Timeout & Termination Settings'));
      write(d.root, 'docs/proposals/rebalancing-clusters.md', proposal('Neat Enhancement Idea'));
      write(d.root, 'docs/proposals/server-side-apply.md', '---\ntitle: Server-Side Apply\n---\n\n# Server-Side Apply support\n');
      // A page and the template it is generated from share a title that is theirs.
      write(d.root, 'docs/charts/operator-chart.md', '---\ntitle: Ceph Operator Helm Chart\n---\n\nInstalls the operator.\n');
      write(d.root, 'docs/charts/operator-chart.gotmpl.md', '---\ntitle: Ceph Operator Helm Chart\n---\n\nInstalls the operator.\n');
      const set = await collectSources(d.root, { git: false });
      const titles = Object.fromEntries(set.documents.map((x) => [x.path, x.title]));
      assert.deepEqual(titles, {
        'docs/charts/operator-chart.gotmpl.md': 'Ceph Operator Helm Chart',
        'docs/charts/operator-chart.md': 'Ceph Operator Helm Chart',
        'docs/proposals/001-proposal-template.md': '001 proposal template',
        'docs/proposals/rebalancing-clusters.md': 'rebalancing clusters',
        'docs/proposals/server-side-apply.md': 'Server-Side Apply',
        'docs/proposals/sync-timeout.md': 'Sync Operation Timeout & Termination Settings',
      });
    } finally {
      d.cleanup();
    }
  });

  it('collects the example: ADRs, the post-mortem, the PR thread, informative commits only; skips unknown exports with the reason', async () => {
    const d = tempDir();
    try {
      fs.cpSync(EXAMPLE, d.root, { recursive: true, filter: (src) => !src.includes(`${path.sep}.tenure`) });
      write(d.root, 'exports/misc/settings.json', '{"theme": "dark"}');
      write(d.root, 'notes/ignored/secret.md', '# Not for the index');
      write(d.root, '.gitignore', 'notes/ignored/\n');
      write(d.root, 'LICENSE.md', '# MIT');
      const set = await collectSources(d.root, { git: false });
      const kinds = set.documents.map((x) => `${x.kind} ${x.ref ?? x.title}`);
      for (const k of ['adr ADR-0007', 'adr ADR-0003', 'adr ADR-0005', 'postmortem INC-2041', 'pr PR #142', 'commit commit 9f1c2e4', 'commit commit c0ffee1'])
        assert.ok(kinds.includes(k), `${k} missing from ${kinds.join(', ')}`);
      assert.ok(!kinds.some((k) => /wip|typo|Bump|Merge/.test(k)), kinds.join(', '));
      assert.deepEqual(set.commits, { seen: 9, informative: 4, contentFree: 5, fromGit: false });
      assert.ok(!set.documents.some((x) => x.source.includes('notes/ignored') || x.source === 'LICENSE.md'));
      assert.deepEqual(set.skipped, [{ path: 'exports/misc/settings.json', reason: 'JSON in an export folder, but not a GitHub pull request, issue, thread or commit list' }]);
    } finally {
      d.cleanup();
    }
  });

  it('reads commit messages from git log, limited to the workspace folder', async function () {
    const d = tempDir();
    try {
      const git = gitRepo(this, d.root);
      write(d.root, 'app/a.txt', '1');
      git('add', '.');
      git('commit', '-q', '-m', 'Route SEPA instructions through the new gateway because the old one drops batches over 10k');
      write(d.root, 'app/a.txt', '2');
      git('commit', '-qam', 'wip');
      write(d.root, 'other/b.txt', '1');
      git('add', '.');
      git('commit', '-q', '-m', 'Unrelated folder change that explains something at length here');
      const set = await collectSources(path.join(d.root, 'app'));
      assert.equal(set.commits.fromGit, true);
      assert.equal(set.commits.seen, 2, 'only commits touching app/');
      assert.deepEqual(set.documents.filter((x) => x.kind === 'commit').map((x) => x.title), ['Route SEPA instructions through the new gateway because the old one drops batches over 10k']);
    } finally {
      d.cleanup();
    }
  });
});
