-- Tenants of the HTTP API, their API keys, and the state of the limits the
-- API enforces, kept here so that they hold across restarts and across
-- every server process sharing the database.
--
-- A tenant's id is the tenant_id of every other table (documents, runs,
-- budgets): `research ingest --tenant ID` gives the tenant its filings.
-- Every table below carries tenant_id and every query filters on it.

CREATE TABLE tenants (
    id                  text        PRIMARY KEY,
    name                text        NOT NULL UNIQUE,
    created_at          timestamptz NOT NULL DEFAULT now(),
    -- Limits.
    requests_per_minute integer     NOT NULL DEFAULT 10  CHECK (requests_per_minute > 0),  -- per API key, sliding window
    daily_runs          integer     NOT NULL DEFAULT 50  CHECK (daily_runs >= 0),          -- runs admitted per UTC day
    daily_spend_usd     numeric     NOT NULL DEFAULT 5   CHECK (daily_spend_usd >= 0),     -- the tenant_day budget scope
    max_concurrent_runs integer     NOT NULL DEFAULT 4   CHECK (max_concurrent_runs > 0),  -- queued or running at once
    -- The most a run may ask for in its budget.
    max_run_spend_usd   numeric     NOT NULL DEFAULT 0.50 CHECK (max_run_spend_usd >= 0),
    max_run_seconds     integer     NOT NULL DEFAULT 120 CHECK (max_run_seconds > 0),
    max_run_calls       integer     NOT NULL DEFAULT 200 CHECK (max_run_calls > 0)
);

-- Only the SHA-256 of a key is kept; the key itself is shown once, when it
-- is issued. prefix is the key's first characters, for telling keys apart.
CREATE TABLE api_keys (
    key_hash   bytea       PRIMARY KEY CHECK (octet_length(key_hash) = 32),
    tenant_id  text        NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    prefix     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz                          -- NULL while the key works
);

CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

-- The request log of the per-key sliding-window rate limit: one row per
-- admitted request, deleted once it falls out of the window. Requests of a
-- key are admitted one at a time under a lock on its api_keys row.
CREATE TABLE api_requests (
    tenant_id text        NOT NULL,
    key_hash  bytea       NOT NULL REFERENCES api_keys (key_hash) ON DELETE CASCADE,
    at        timestamptz NOT NULL
);

CREATE INDEX api_requests_window ON api_requests (tenant_id, key_hash, at);

-- Runs admitted through the API: the daily cap counts them, the concurrency
-- limit counts those not finished. id is the client's idempotency key, or a
-- random one; run_id is set once the run is queued.
CREATE TABLE run_admissions (
    tenant_id  text        NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         text        NOT NULL,
    day        date        NOT NULL,                -- UTC
    mode       text        NOT NULL,
    run_id     text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX run_admissions_day ON run_admissions (tenant_id, day);
CREATE UNIQUE INDEX run_admissions_run ON run_admissions (tenant_id, run_id);
