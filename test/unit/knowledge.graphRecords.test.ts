import * as assert from 'node:assert/strict';
import { buildGraph } from '../../src/core/knowledge/graph';
import { entityKey } from '../../src/core/linking/names';
import type { Extraction } from '../../src/core/knowledge/schemas';

/*
 * An entity stands for a whole record when it is the record's handle
 * (ADR-0007), and also, for a record with no handle (a MADR folder's
 * README.md), when it is a decision or incident named by the record's title.
 */

describe('knowledge graph: entities that are whole records', () => {
  const extraction = (entities: Extraction['entities']): Extraction => ({ entities, relationships: [] });
  const items = [
    {
      chunkId: 1,
      docId: 5,
      extractedBy: 'offline',
      extraction: extraction([
        { name: 'State Machine Retry processor refactor', type: 'decision', description: 'the record' },
        { name: 'ADR-0007', type: 'decision', description: 'a record cited by its handle' },
        { name: 'Retry processor', type: 'component', description: 'a component' },
        { name: 'Shared title', type: 'decision', description: 'two records have this title' },
        { name: 'Changelog', type: 'decision', description: 'a guide, not a record' },
      ]),
    },
  ];
  const docs = [
    { id: 1, ref: 'ADR-0007', title: 'Cap settlement retries at three attempts', kind: 'adr' as const },
    { id: 2, title: 'State Machine Retry processor refactor', kind: 'adr' as const },
    { id: 3, title: 'Retry processor', kind: 'design' as const },
    { id: 4, title: 'Shared title', kind: 'adr' as const },
    { id: 6, title: 'Shared title', kind: 'rfc' as const },
    { id: 7, title: 'Changelog', kind: 'changelog' as const },
  ];
  const graph = buildGraph(items, docs);
  const docOf = (name: string) => graph.entities.get(entityKey(name))?.docId;

  it('a decision named by the title of a record with no handle is that record', () => {
    assert.equal(docOf('State Machine Retry processor refactor'), 2);
    assert.equal(docOf('ADR-0007'), 1);
  });

  it('a component is not a record by its name, a title two records share names neither, and a changelog is not a record', () => {
    assert.equal(docOf('Retry processor'), undefined);
    assert.equal(docOf('Shared title'), undefined);
    assert.equal(docOf('Changelog'), undefined);
  });
});
