import type { Migration } from '../store/migrations.js';

/*
 * Knowledge memory: documents → chunks → per-chunk extractions (a cache that
 * survives edits) → the entity graph (rebuilt from extractions, cheap) →
 * hierarchical communities and their reports → links from entities to
 * structural symbols (by symbol id, so they survive a structural re-index) →
 * embeddings (by text hash). Plus the model-call cache and cost log, and the
 * record of pipeline runs and their workflows (resumable). All derived: can be
 * rebuilt; model-call results are the expensive part, so llm_cache,
 * kn_extractions, kn_summaries, kn_reports and kn_embeddings are kept across
 * rebuilds of the graph.
 */
export const KNOWLEDGE_MIGRATIONS: readonly Migration[] = [
  {
    id: 'knowledge-001-graphrag',
    sql: `
  CREATE TABLE kn_documents (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,        -- stable key: a workspace path, path#pull/142, git:<sha>
    kind TEXT NOT NULL,                 -- adr | postmortem | rfc | design | pr | issue | commit | readme | doc
    title TEXT NOT NULL,
    ref TEXT,                           -- short handle people use: ADR-0007, INC-2041, PR #142, commit 1a2b3c4
    path TEXT,                          -- workspace-relative file it came from (NULL for git history)
    url TEXT,
    author TEXT,
    created_at TEXT,
    hash TEXT NOT NULL,                 -- sha256 of the text as chunked
    words INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    sections TEXT,                      -- JSON [{start, end, url, author}] for threads: where each comment sits in the text
    indexed_at INTEGER NOT NULL
  );

  CREATE TABLE kn_chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES kn_documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    hash TEXT NOT NULL,                 -- sha256 of text: the extraction cache key
    text TEXT NOT NULL,
    start INTEGER NOT NULL,             -- character offsets into the document text
    end INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    heading TEXT
  );
  CREATE INDEX kn_chunks_doc ON kn_chunks(doc_id);
  CREATE INDEX kn_chunks_hash ON kn_chunks(hash);
  CREATE VIRTUAL TABLE kn_chunks_fts USING fts5(text, heading, content='kn_chunks', content_rowid='id', tokenize='porter unicode61');
  CREATE TRIGGER kn_chunks_ai AFTER INSERT ON kn_chunks BEGIN
    INSERT INTO kn_chunks_fts(rowid, text, heading) VALUES (new.id, new.text, coalesce(new.heading, ''));
  END;
  CREATE TRIGGER kn_chunks_ad AFTER DELETE ON kn_chunks BEGIN
    INSERT INTO kn_chunks_fts(kn_chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, coalesce(old.heading, ''));
  END;

  -- One row per (chunk text, extractor): kept when documents change, so an
  -- unchanged chunk is never extracted twice by the same extractor.
  CREATE TABLE kn_extractions (
    chunk_hash TEXT NOT NULL,
    extractor TEXT NOT NULL,            -- offline:tenure-1/extract-1#<vocabulary hash> or openai:<model>/extract-1
    status TEXT NOT NULL,               -- ok | dropped (invalid model output, recorded in llm_rejects)
    result TEXT NOT NULL,               -- JSON {entities, relationships}
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chunk_hash, extractor)
  );

  -- The graph, rebuilt from the extractions of the current chunks.
  CREATE TABLE kn_entities (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,           -- normalised name: what merges mentions across chunks
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    description TEXT NOT NULL,
    described_by TEXT NOT NULL,         -- single | offline | <model id>: how the description was merged
    extracted_by TEXT NOT NULL,         -- offline | <model id>
    mentions INTEGER NOT NULL,
    docs INTEGER NOT NULL,
    degree INTEGER NOT NULL DEFAULT 0,
    doc_id INTEGER                      -- set when the entity stands for a whole document (ADR-0007, PR #142)
  );
  CREATE TABLE kn_mentions (
    entity_id INTEGER NOT NULL REFERENCES kn_entities(id) ON DELETE CASCADE,
    chunk_id INTEGER NOT NULL REFERENCES kn_chunks(id) ON DELETE CASCADE,
    description TEXT NOT NULL
  );
  CREATE INDEX kn_mentions_entity ON kn_mentions(entity_id);
  CREATE INDEX kn_mentions_chunk ON kn_mentions(chunk_id);
  CREATE VIRTUAL TABLE kn_entities_fts USING fts5(name, description, content='kn_entities', content_rowid='id', tokenize='porter unicode61');

  CREATE TABLE kn_relationships (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES kn_entities(id) ON DELETE CASCADE,
    target_id INTEGER NOT NULL REFERENCES kn_entities(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    weight REAL NOT NULL,
    described_by TEXT NOT NULL
  );
  CREATE INDEX kn_relationships_source ON kn_relationships(source_id);
  CREATE INDEX kn_relationships_target ON kn_relationships(target_id);
  CREATE TABLE kn_relationship_sources (
    relationship_id INTEGER NOT NULL REFERENCES kn_relationships(id) ON DELETE CASCADE,
    chunk_id INTEGER NOT NULL REFERENCES kn_chunks(id) ON DELETE CASCADE,
    description TEXT NOT NULL
  );
  CREATE INDEX kn_relationship_sources_rel ON kn_relationship_sources(relationship_id);

  -- Merged descriptions, by the hash of the descriptions merged and the summariser: a cache.
  CREATE TABLE kn_summaries (
    key TEXT NOT NULL,
    summarizer TEXT NOT NULL,
    summary TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (key, summarizer)
  );

  CREATE TABLE kn_communities (
    id INTEGER PRIMARY KEY,
    level INTEGER NOT NULL,
    parent_id INTEGER,
    content_hash TEXT NOT NULL,         -- members, their descriptions, child reports: the report cache key
    size INTEGER NOT NULL
  );
  CREATE INDEX kn_communities_level ON kn_communities(level);
  CREATE TABLE kn_community_entities (
    community_id INTEGER NOT NULL REFERENCES kn_communities(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES kn_entities(id) ON DELETE CASCADE
  );
  CREATE INDEX kn_community_entities_entity ON kn_community_entities(entity_id);
  CREATE INDEX kn_community_entities_community ON kn_community_entities(community_id);

  -- Reports by community content: a community whose content did not change keeps its report without a model call.
  CREATE TABLE kn_reports (
    content_hash TEXT NOT NULL,
    reporter TEXT NOT NULL,             -- offline:tenure-1/report-1 or <model id>/report-1
    title TEXT NOT NULL,
    summary TEXT NOT NULL,
    rating REAL NOT NULL,
    rating_explanation TEXT NOT NULL,
    findings TEXT NOT NULL,             -- JSON [{summary, explanation, sources: [chunk ids]}]
    created_at INTEGER NOT NULL,
    PRIMARY KEY (content_hash, reporter)
  );
  CREATE VIRTUAL TABLE kn_reports_fts USING fts5(title, summary, findings, tokenize='porter unicode61');

  -- Entity → symbol links with their tier. Unresolved entities have one row with symbol_sid NULL.
  CREATE TABLE kn_links (
    entity_id INTEGER NOT NULL REFERENCES kn_entities(id) ON DELETE CASCADE,
    tier TEXT NOT NULL,                 -- exact | strong | weak | unresolved
    symbol_sid TEXT,
    score REAL NOT NULL,
    reason TEXT NOT NULL
  );
  CREATE INDEX kn_links_entity ON kn_links(entity_id);
  CREATE INDEX kn_links_sid ON kn_links(symbol_sid);

  -- Code that cites a document (a comment naming docs/adr/0007-….md or ADR-0007).
  CREATE TABLE kn_citations (
    doc_id INTEGER NOT NULL REFERENCES kn_documents(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    symbol_sid TEXT,
    text TEXT NOT NULL
  );
  CREATE INDEX kn_citations_sid ON kn_citations(symbol_sid);

  -- Vectors by the hash of the text embedded and the embedder.
  CREATE TABLE kn_embeddings (
    hash TEXT NOT NULL,
    embedder TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector TEXT NOT NULL,               -- base64 of little-endian float32
    PRIMARY KEY (hash, embedder)
  );

  CREATE TABLE kn_runs (
    id INTEGER PRIMARY KEY,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    mode TEXT NOT NULL,                 -- offline | model
    model TEXT NOT NULL,
    embedder TEXT NOT NULL,
    status TEXT NOT NULL,               -- running | done | stopped | failed
    budget_tokens INTEGER,
    spent_tokens INTEGER NOT NULL DEFAULT 0,
    message TEXT,
    report TEXT
  );
  CREATE TABLE kn_workflows (
    run_id INTEGER NOT NULL REFERENCES kn_runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    status TEXT NOT NULL,               -- running | done | stopped | failed | skipped
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    stats TEXT,
    PRIMARY KEY (run_id, name)
  );

  CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY,               -- sha256(model, task, prompt version, sha256(messages))
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    output TEXT NOT NULL,               -- validated JSON
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE llm_calls (
    id INTEGER PRIMARY KEY,
    run_id INTEGER,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,               -- ok | repaired | dropped | failed
    attempts INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    error TEXT,
    at INTEGER NOT NULL
  );
  CREATE INDEX llm_calls_run ON llm_calls(run_id);
  CREATE TABLE llm_rejects (
    id INTEGER PRIMARY KEY,
    run_id INTEGER,
    key TEXT NOT NULL,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    error TEXT NOT NULL,
    output TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  `,
  },
  {
    // How each mention was extracted (a document read offline after a model reply was dropped, beside others a model read).
    id: 'knowledge-002-mention-provenance',
    sql: `ALTER TABLE kn_mentions ADD COLUMN extracted_by TEXT;`,
  },
  {
    // Model answers shared through a team store (src/core/team): which came from the team, which this clone has shared.
    id: 'knowledge-003-team',
    sql: `
  ALTER TABLE llm_cache ADD COLUMN origin TEXT;       -- NULL: made here; 'team': pulled from the team store
  ALTER TABLE llm_cache ADD COLUMN shared INTEGER;    -- 1 once pushed to the team store (a rewrite of the row clears it)
  ALTER TABLE kn_extractions ADD COLUMN origin TEXT;
  ALTER TABLE kn_extractions ADD COLUMN shared INTEGER;
  ALTER TABLE kn_summaries ADD COLUMN origin TEXT;
  ALTER TABLE kn_summaries ADD COLUMN shared INTEGER;
  ALTER TABLE kn_reports ADD COLUMN origin TEXT;
  ALTER TABLE kn_reports ADD COLUMN shared INTEGER;
  ALTER TABLE kn_embeddings ADD COLUMN origin TEXT;
  ALTER TABLE kn_embeddings ADD COLUMN shared INTEGER;
  CREATE INDEX llm_cache_unshared ON llm_cache(model) WHERE shared IS NULL AND origin IS NULL;
  CREATE INDEX kn_extractions_unshared ON kn_extractions(extractor) WHERE shared IS NULL AND origin IS NULL;
  CREATE INDEX kn_summaries_unshared ON kn_summaries(summarizer) WHERE shared IS NULL AND origin IS NULL;
  CREATE INDEX kn_reports_unshared ON kn_reports(reporter) WHERE shared IS NULL AND origin IS NULL;
  CREATE INDEX kn_embeddings_unshared ON kn_embeddings(embedder) WHERE shared IS NULL AND origin IS NULL;
  `,
  },
  {
    // A decision record's own status (sources/recordStatus.ts). Records already stored are read again by the next
    // index: their key (workflows/loadDocuments.ts documentHash) now holds the status they give.
    id: 'knowledge-004-record-status',
    sql: `
  ALTER TABLE kn_documents ADD COLUMN status TEXT;       -- accepted | proposed | rejected | superseded | deprecated; NULL: none given
  ALTER TABLE kn_documents ADD COLUMN status_said TEXT;  -- as the record says it, short: superseded by ADR-0012
  `,
  },
];
