import { createHash } from 'node:crypto';
import { entityKey } from '../linking/names.js';
import { ENTITY_TYPES, type EntityType, type Extraction } from './schemas.js';
import { RECORD_KINDS, type DocKind } from './sources/document.js';

/*
 * Per-chunk extractions → one graph. Mentions of one entity merge by key
 * (names normalised: handles, code identifiers, prose); its type is the one
 * most often given, its descriptions are kept in source order for the
 * summariser. Relationships are undirected and merge by their two ends,
 * weights adding up. Pure: no I/O.
 */

export interface ChunkExtraction {
  readonly chunkId: number;
  readonly docId: number;
  readonly extraction: Extraction;
  /** offline or a model id. */
  readonly extractedBy: string;
}

export interface DocHandle {
  readonly id: number;
  readonly ref?: string;
  readonly title: string;
  readonly kind: DocKind;
}

export interface GraphEntity {
  readonly key: string;
  name: string;
  type: EntityType;
  readonly descriptions: string[];
  description: string;
  describedBy: string;
  readonly mentions: { chunkId: number; description: string; extractedBy: string }[];
  readonly docs: Set<number>;
  readonly extractedBy: Set<string>;
  docId?: number;
  degree: number;
  readonly names: Map<string, number>;
  readonly types: Map<EntityType, number>;
}

export interface GraphRelationship {
  /** Entity keys, a < b. */
  readonly a: string;
  readonly b: string;
  readonly descriptions: string[];
  description: string;
  describedBy: string;
  weight: number;
  readonly sources: { chunkId: number; description: string }[];
}

export interface KnowledgeGraph {
  readonly entities: Map<string, GraphEntity>;
  readonly relationships: Map<string, GraphRelationship>;
}

export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

function entity(key: string, name: string): GraphEntity {
  return { key, name, type: 'concept', descriptions: [], description: '', describedBy: 'single', mentions: [], docs: new Set(), extractedBy: new Set(), degree: 0, names: new Map(), types: new Map() };
}

/** The entity types that stand for a whole record when a record (of these kinds) has their name as its title. */
const RECORD_TYPES: ReadonlySet<EntityType> = new Set(['decision', 'incident']);

export function buildGraph(items: readonly ChunkExtraction[], docs: readonly DocHandle[]): KnowledgeGraph {
  const entities = new Map<string, GraphEntity>();
  const relationships = new Map<string, GraphRelationship>();
  const docByKey = new Map<string, number>();
  // A record with no handle (a MADR folder's README.md) is named by its title: a decision or incident of that name is
  // the record, when no other document has the title. A changelog or a guide is not a record of a decision.
  const byTitle = new Map<string, number | null>();
  for (const d of docs) {
    if (d.ref) docByKey.set(entityKey(d.ref), d.id);
    const title = entityKey(d.title);
    if (title && RECORD_KINDS.has(d.kind)) byTitle.set(title, byTitle.has(title) ? null : d.id);
  }
  const chunkDoc = new Map<number, number>();
  for (const item of items) chunkDoc.set(item.chunkId, item.docId);

  for (const item of items) {
    const local = new Map<string, string>();
    for (const e of item.extraction.entities) {
      const key = entityKey(e.name);
      if (!key) continue;
      local.set(e.name.trim().toLowerCase(), key);
      let g = entities.get(key);
      if (!g) entities.set(key, (g = entity(key, e.name.trim())));
      g.names.set(e.name.trim(), (g.names.get(e.name.trim()) ?? 0) + 1);
      g.types.set(e.type, (g.types.get(e.type) ?? 0) + 1);
      const description = e.description.trim();
      if (description && !g.descriptions.includes(description)) g.descriptions.push(description);
      g.mentions.push({ chunkId: item.chunkId, description, extractedBy: item.extractedBy });
      g.docs.add(item.docId);
      g.extractedBy.add(item.extractedBy);
    }
    for (const r of item.extraction.relationships) {
      const a = local.get(r.source.trim().toLowerCase()) ?? entityKey(r.source);
      const b = local.get(r.target.trim().toLowerCase()) ?? entityKey(r.target);
      if (!a || !b || a === b) continue;
      // A relationship to something the extraction did not list as an entity still names a thing: keep it as a concept.
      for (const [key, name] of [
        [a, r.source],
        [b, r.target],
      ] as const) {
        if (!entities.has(key)) {
          const g = entity(key, name.trim());
          g.names.set(name.trim(), 1);
          g.mentions.push({ chunkId: item.chunkId, description: '', extractedBy: item.extractedBy });
          g.docs.add(item.docId);
          g.extractedBy.add(item.extractedBy);
          entities.set(key, g);
        }
      }
      const k = pairKey(a, b);
      let rel = relationships.get(k);
      if (!rel) relationships.set(k, (rel = { a: a < b ? a : b, b: a < b ? b : a, descriptions: [], description: '', describedBy: 'single', weight: 0, sources: [] }));
      const description = r.description.trim();
      if (description && !rel.descriptions.includes(description)) rel.descriptions.push(description);
      rel.weight += r.weight || 1;
      rel.sources.push({ chunkId: item.chunkId, description });
    }
  }

  const priority = (t: EntityType) => ENTITY_TYPES.indexOf(t);
  for (const g of entities.values()) {
    g.name = [...g.names.entries()].sort((x, y) => y[1] - x[1] || y[0].length - x[0].length || x[0].localeCompare(y[0]))[0]?.[0] ?? g.name;
    g.type = [...g.types.entries()].sort((x, y) => y[1] - x[1] || priority(x[0]) - priority(y[0]))[0]?.[0] ?? 'concept';
    g.description = g.descriptions[0] ?? '';
    const docId = docByKey.get(g.key) ?? (RECORD_TYPES.has(g.type) ? (byTitle.get(g.key) ?? undefined) : undefined);
    if (docId !== undefined) g.docId = docId;
  }
  for (const r of relationships.values()) {
    r.description = r.descriptions[0] ?? '';
    entities.get(r.a)!.degree++;
    entities.get(r.b)!.degree++;
  }
  return { entities, relationships };
}

/** The cache key of a merge of descriptions: the same set of descriptions is merged once per summariser. */
export function descriptionsKey(name: string, descriptions: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify([name, [...descriptions].sort()])).digest('hex');
}
