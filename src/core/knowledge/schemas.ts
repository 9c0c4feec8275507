import * as z from 'zod';

/*
 * What a model (or the offline handlers) must return for each task. Every
 * reply is checked against these before anything is stored; schemas are
 * lenient where models are harmlessly inconsistent (type names, number
 * strings) and strict where bad data would mislead (names, ids, ranges).
 */

export const ENTITY_TYPES = ['decision', 'incident', 'constraint', 'component', 'system', 'organization', 'person', 'concept', 'event', 'document'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

const TYPE_ALIASES: Record<string, EntityType> = {
  decision: 'decision', adr: 'decision', choice: 'decision', tradeoff: 'decision', 'design decision': 'decision', policy_decision: 'decision',
  incident: 'incident', outage: 'incident', failure: 'incident', bug: 'incident', postmortem: 'incident', 'post-mortem': 'incident', problem: 'incident',
  constraint: 'constraint', requirement: 'constraint', sla: 'constraint', slo: 'constraint', regulation: 'constraint', rule: 'constraint', limit: 'constraint', deadline: 'constraint', policy: 'constraint', contract: 'constraint', obligation: 'constraint',
  component: 'component', code: 'component', class: 'component', function: 'component', method: 'component', module: 'component', constant: 'component', field: 'component', interface: 'component', service: 'component', file: 'component', api: 'component', 'code symbol': 'component', code_symbol: 'component',
  system: 'system', tool: 'system', technology: 'system', product: 'system', platform: 'system', database: 'system', library: 'system', infrastructure: 'system', protocol: 'system', rail: 'system', network: 'system',
  organization: 'organization', organisation: 'organization', company: 'organization', team: 'organization', partner: 'organization', vendor: 'organization', customer: 'organization', bank: 'organization', counterparty: 'organization', geo: 'organization',
  person: 'person', people: 'person', engineer: 'person', author: 'person', reviewer: 'person', user: 'person',
  concept: 'concept', idea: 'concept', metric: 'concept', process: 'concept', practice: 'concept', pattern: 'concept', term: 'concept',
  event: 'event', meeting: 'event', release: 'event', change: 'event', migration: 'event', deployment: 'event',
  document: 'document', doc: 'document', 'pull request': 'document', pr: 'document', commit: 'document', issue: 'document', ticket: 'document', rfc: 'document',
};

export function normaliseType(raw: string): EntityType {
  const t = raw.trim().toLowerCase().replace(/s$/, '');
  return TYPE_ALIASES[t] ?? TYPE_ALIASES[raw.trim().toLowerCase()] ?? 'concept';
}

const Name = z.string().trim().min(1).max(200);
const Weight = z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().finite()).transform((n) => Math.max(0, Math.min(10, n)));

export const ExtractedEntity = z.object({
  name: Name,
  type: z.string().max(60).transform(normaliseType),
  description: z.string().max(4000).default(''),
});
export const ExtractedRelationship = z.object({
  source: Name,
  target: Name,
  description: z.string().max(4000).default(''),
  weight: Weight.default(1),
});
export const Extraction = z.object({
  entities: z.array(ExtractedEntity).max(400),
  relationships: z.array(ExtractedRelationship).max(800).default([]),
});
export type Extraction = z.infer<typeof Extraction>;

export const Summary = z.object({ description: z.string().trim().min(1).max(6000) });
export type Summary = z.infer<typeof Summary>;

/**
 * A text a report may not exceed: a longer one is cut at a word with an
 * ellipsis, never rejected — a community of hundreds of sub-communities (or a
 * verbose model) must not fail the run.
 */
function cutText(max: number) {
  return z.string().trim().min(1).transform((s) => {
    if (s.length <= max) return s;
    const cut = s.slice(0, max - 1);
    const at = cut.lastIndexOf(' ');
    return `${at > max * 0.8 ? cut.slice(0, at) : cut}…`;
  });
}

const Ids = z.array(z.number().int()).max(200).default([]);
export const Finding = z.object({
  summary: cutText(1000),
  explanation: cutText(6000),
  entities: Ids,
  relationships: Ids,
});
export type Finding = z.infer<typeof Finding>;

export const Report = z.object({
  title: cutText(300),
  summary: cutText(6000),
  rating: z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().min(0).max(10)),
  rating_explanation: z.string().trim().max(2000).default(''),
  findings: z.array(Finding).min(1).transform((f) => f.slice(0, 12)),
});
export type Report = z.infer<typeof Report>;

export const MapPoints = z.object({
  points: z
    .array(
      z.object({
        description: z.string().trim().min(1).max(4000),
        score: z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().min(0).max(100)),
        reports: Ids,
      }),
    )
    .max(30),
});
export type MapPoints = z.infer<typeof MapPoints>;

export const Answer = z.object({
  answer: z.string().trim().min(1).max(20_000),
});
export type Answer = z.infer<typeof Answer>;
