-- Runs submitted as jobs (package jobs) and the batches that submitted
-- them. A submission's runs row, its run_submissions row and its River job
-- (river_job, from River's own migrations) are written in one transaction,
-- so a run is queued exactly when it is recorded.

CREATE TABLE run_submissions (
    tenant_id       text        NOT NULL,
    run_id          text        NOT NULL,
    -- The submitter's idempotency key; NULL when none was given. A key
    -- submitted again names the run it first submitted.
    idempotency_key text,
    -- The River job executing the run. No foreign key: River deletes
    -- finished jobs after its retention period; the run stays.
    job_id          bigint,
    batch_id        text,                           -- the batch that first submitted the run, if any
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, run_id),
    -- Deferred: the key is claimed before the run row is written.
    FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

CREATE UNIQUE INDEX run_submissions_key ON run_submissions (tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

CREATE TABLE batches (
    tenant_id  text        NOT NULL,
    id         text        NOT NULL,
    source     text        NOT NULL DEFAULT '',     -- the file submitted, as named by the submitter
    lines      integer     NOT NULL CHECK (lines >= 0),    -- questions read (blank lines not counted)
    rejected   integer     NOT NULL CHECK (rejected >= 0), -- lines refused at submission, not queued
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

-- One row per accepted line. Lines whose idempotency key was submitted
-- before (in this batch or earlier) name that run, with reused set.
CREATE TABLE batch_items (
    tenant_id       text    NOT NULL,
    batch_id        text    NOT NULL,
    line            integer NOT NULL CHECK (line > 0),
    run_id          text    NOT NULL,
    idempotency_key text,
    question        text    NOT NULL,
    reused          boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tenant_id, batch_id, line),
    FOREIGN KEY (tenant_id, batch_id) REFERENCES batches (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, run_id) REFERENCES run_submissions (tenant_id, run_id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

CREATE INDEX batch_items_run ON batch_items (tenant_id, run_id);
