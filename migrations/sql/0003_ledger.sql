-- Evidence ledger: runs and, per run, requirements, tool calls, evidence
-- spans, facts, contradictions, search history and an append-only event
-- log. Every table carries tenant_id and every key starts with it; writes to
-- a run lock its runs row first, so a run's records are written one tool
-- result at a time and in order.

CREATE TABLE runs (
    tenant_id       text        NOT NULL,
    id              text        NOT NULL,
    question        text        NOT NULL,
    mode            text        NOT NULL,
    status          text        NOT NULL,
    corpus_snapshot text        NOT NULL DEFAULT '',
    last_event      bigint      NOT NULL DEFAULT 0, -- seq of the last run_events row
    created_at      timestamptz NOT NULL,
    finished_at     timestamptz,                    -- NULL while running
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE requirements (
    tenant_id            text   NOT NULL,
    run_id               text   NOT NULL,
    id                   text   NOT NULL,
    ord                  bigint GENERATED ALWAYS AS IDENTITY, -- order planned
    issuer               text   NOT NULL DEFAULT '',
    period               text   NOT NULL DEFAULT '',
    description          text   NOT NULL DEFAULT '',
    completion_condition text   NOT NULL DEFAULT '',
    status               text   NOT NULL CHECK (status IN ('pending', 'supported', 'missing', 'conflicting')),
    PRIMARY KEY (tenant_id, run_id, id),
    FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE tool_calls (
    tenant_id      text        NOT NULL,
    run_id         text        NOT NULL,
    id             text        NOT NULL,
    ord            bigint      GENERATED ALWAYS AS IDENTITY,
    tool           text        NOT NULL,
    requirement_id text        NOT NULL DEFAULT '',
    arguments      jsonb,
    started_at     timestamptz,
    finished_at    timestamptz,
    error          text        NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, run_id, id),
    FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id) ON DELETE CASCADE
);

-- One row per immutable span: id is derived from (document_id, start, end)
-- (ledger.EvidenceID), and the span is unique within a run as well.
CREATE TABLE evidence (
    tenant_id    text   NOT NULL,
    run_id       text   NOT NULL,
    id           text   NOT NULL,
    ord          bigint GENERATED ALWAYS AS IDENTITY,
    kind         text   NOT NULL CHECK (kind IN ('passage', 'fact')),
    document_id  text   NOT NULL,
    start_offset int    NOT NULL,
    end_offset   int    NOT NULL,
    excerpt      text   NOT NULL DEFAULT '',
    ticker       text   NOT NULL DEFAULT '',
    form         text   NOT NULL DEFAULT '',
    period       text   NOT NULL DEFAULT '',
    page         int    NOT NULL DEFAULT 0,
    section      text   NOT NULL DEFAULT '',
    tool_call_id text   NOT NULL,
    PRIMARY KEY (tenant_id, run_id, id),
    UNIQUE (tenant_id, run_id, document_id, start_offset, end_offset),
    CHECK (0 <= start_offset AND start_offset < end_offset),
    FOREIGN KEY (tenant_id, run_id, tool_call_id) REFERENCES tool_calls (tenant_id, run_id, id) ON DELETE CASCADE
);

CREATE TABLE requirement_evidence (
    tenant_id      text   NOT NULL,
    run_id         text   NOT NULL,
    requirement_id text   NOT NULL,
    evidence_id    text   NOT NULL,
    ord            bigint GENERATED ALWAYS AS IDENTITY, -- order linked
    PRIMARY KEY (tenant_id, run_id, requirement_id, evidence_id),
    FOREIGN KEY (tenant_id, run_id, requirement_id) REFERENCES requirements (tenant_id, run_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, run_id, evidence_id) REFERENCES evidence (tenant_id, run_id, id) ON DELETE CASCADE
);

CREATE TABLE ledger_facts (
    tenant_id    text    NOT NULL,
    run_id       text    NOT NULL,
    id           text    NOT NULL,
    ord          bigint  GENERATED ALWAYS AS IDENTITY,
    evidence_id  text    NOT NULL,
    concept      text    NOT NULL,
    value        numeric NOT NULL, -- exact: no scale limit, never float
    unit         text    NOT NULL DEFAULT '',
    period       text    NOT NULL DEFAULT '',
    tool_call_id text    NOT NULL,
    PRIMARY KEY (tenant_id, run_id, id),
    FOREIGN KEY (tenant_id, run_id, evidence_id) REFERENCES evidence (tenant_id, run_id, id) ON DELETE CASCADE
);

CREATE TABLE contradictions (
    tenant_id      text   NOT NULL,
    run_id         text   NOT NULL,
    id             text   NOT NULL,
    ord            bigint GENERATED ALWAYS AS IDENTITY,
    requirement_id text   NOT NULL,
    evidence_ids   text[] NOT NULL, -- sorted; each checked against evidence on insert
    difference     text   NOT NULL,
    PRIMARY KEY (tenant_id, run_id, id),
    FOREIGN KEY (tenant_id, run_id, requirement_id) REFERENCES requirements (tenant_id, run_id, id) ON DELETE CASCADE
);

CREATE TABLE search_history (
    tenant_id       text   NOT NULL,
    run_id          text   NOT NULL,
    tool_call_id    text   NOT NULL,
    ord             bigint GENERATED ALWAYS AS IDENTITY,
    query_key       text   NOT NULL,
    query           text   NOT NULL DEFAULT '',
    filters         jsonb  NOT NULL DEFAULT '{}',
    candidates_seen int    NOT NULL DEFAULT 0,
    new_evidence    int    NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, run_id, tool_call_id),
    FOREIGN KEY (tenant_id, run_id, tool_call_id) REFERENCES tool_calls (tenant_id, run_id, id) ON DELETE CASCADE
);

-- The stop rule asks how often a query key was tried and what it brought.
CREATE INDEX search_history_key_idx ON search_history (tenant_id, run_id, query_key);

CREATE TABLE run_events (
    tenant_id   text        NOT NULL,
    run_id      text        NOT NULL,
    seq         bigint      NOT NULL, -- 1, 2, ... per run, from runs.last_event
    at          timestamptz NOT NULL,
    kind        text        NOT NULL,
    subject     text        NOT NULL DEFAULT '',
    duration_us bigint      NOT NULL DEFAULT 0,
    message     text        NOT NULL DEFAULT '',
    data        jsonb,
    PRIMARY KEY (tenant_id, run_id, seq),
    FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id) ON DELETE CASCADE
);

-- The event log is append-only: rows are never changed or deleted one by
-- one (deleting a run still cascades; triggers do not see DROP or TRUNCATE).
CREATE FUNCTION run_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
        RETURN OLD; -- a cascade from deleting the run
    END IF;
    RAISE EXCEPTION 'run_events is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON run_events
    FOR EACH ROW EXECUTE FUNCTION run_events_append_only();
