import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A changelog that names the symbol in one entry says nothing of its other
 * entries. It was read as a record about the symbol, and the words of the
 * symbol's file's name ("errors", from errors.ts) tied its other sentences:
 * the answer quoted, at strong, a note on an unrelated setting that happened
 * to say "parsing errors". A changelog's sentence is quoted only when it
 * names the symbol.
 */

describe('why_is_this: a changelog that names the symbol in one entry', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    const entries = (release: string, notes: string[]) => [`## ${release}`, '', ...notes.map((n) => `- ${n}`), ''];
    fx = await knowledgeIndexedFiles({
      'src/outputs/errors.ts': [
        '/** Returned by an output that wrote some metrics of a batch and not others. */',
        'export class PartialWriteError extends Error {',
        '  constructor(readonly accepted: number[], readonly rejected: number[]) {',
        "    super('partial write');",
        '  }',
        '}',
        '',
      ].join('\n'),
      'CHANGELOG.md': [
        '# Changelog',
        '',
        ...entries('v1.4.0', ['`outputs` Implement partial write errors', '`inputs.disk` Report mount options']),
        '## v1.3.2',
        '',
        '### Important changes',
        '',
        '- The counters of the DNS input are unsigned integers now, as the server reports them. We keep backward compatibility by',
        '  setting `counters_as_int` to `true` by default to avoid type conflicts on the output side. However, you should change',
        '  this setting to `false` as soon as possible to avoid invalid values and parsing errors with the new statistics format.',
        '',
        ...entries('v1.3.2 fixes', [
          '`inputs.http` Retry on connection reset, because load balancers drop idle connections and the errors filled the logs',
        ]),
        ...entries('v1.3.1', ['`outputs.file` Rotate files by size, since a single file grew without bound and disks filled up']),
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes no sentence of it that does not name the symbol', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'PartialWriteError', limit: 10 });
    const data = r.data as { documents: { where?: string; tier: string; gives: string; quotes: { text: string }[] }[] };
    const changelog = data.documents.find((d) => d.where === 'CHANGELOG.md');
    assert.ok(changelog, r.text);
    for (const q of changelog.quotes) assert.match(q.text, /partial write errors/i, r.text);
    assert.ok(!/parsing errors|filled the logs/.test(r.text), r.text);
  });
});
