-- Corpus: documents, their chunks (full text and embeddings) and their
-- tagged XBRL facts. Objects are created unqualified, in the first schema of
-- search_path; the vector extension lives in public, which search_path must
-- include.

CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

CREATE TABLE documents (
    tenant_id   text        NOT NULL,
    id          text        NOT NULL, -- hex sha256 of the canonical text
    ticker      text        NOT NULL,
    company     text        NOT NULL DEFAULT '',
    form        text        NOT NULL,
    fiscal_year int         NOT NULL,
    period_end  date        NOT NULL,
    filed       date,                 -- NULL when unknown
    source      text        NOT NULL DEFAULT '',
    format      text        NOT NULL,
    pages       int         NOT NULL DEFAULT 0,
    embedder    text        NOT NULL DEFAULT '',
    text        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

-- FindFiling. Not unique: the ingester detects duplicate filings itself.
CREATE INDEX documents_filing_idx ON documents (tenant_id, ticker, form, period_end);

CREATE TABLE chunks (
    tenant_id    text     NOT NULL,
    id           text     NOT NULL,
    document_id  text     NOT NULL,
    ordinal      int      NOT NULL,
    section      text     NOT NULL DEFAULT '',
    page         int      NOT NULL DEFAULT 0,
    start_offset int      NOT NULL,
    end_offset   int      NOT NULL,
    text         text     NOT NULL,
    tsv          tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    embedding    vector(384),         -- NULL until embedded
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

-- Keep vectors in the row: an exact scan under a selective filter reads
-- every candidate's vector, and fetching it from TOAST made that scan five
-- times slower (20,000 chunks: 74 ms against 13 ms).
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE PLAIN;

CREATE INDEX chunks_document_idx ON chunks (tenant_id, document_id, ordinal);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_embedding_idx ON chunks USING hnsw (embedding vector_cosine_ops);

CREATE TABLE facts (
    tenant_id    text    NOT NULL,
    document_id  text    NOT NULL,
    ordinal      int     NOT NULL, -- position in the document's fact list
    concept      text    NOT NULL,
    value        numeric NOT NULL,
    unit         text    NOT NULL DEFAULT '',
    decimals     text    NOT NULL DEFAULT '',
    period_start date,             -- NULL for an instant
    period_end   date    NOT NULL, -- end of the duration, or the instant
    instant      boolean NOT NULL DEFAULT false,
    dimensions   jsonb   NOT NULL DEFAULT '{}',
    context_id   text    NOT NULL DEFAULT '',
    start_offset int     NOT NULL,
    end_offset   int     NOT NULL,
    PRIMARY KEY (tenant_id, document_id, ordinal),
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX facts_concept_idx ON facts (tenant_id, concept, period_end);
