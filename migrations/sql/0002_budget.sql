-- Budgets: limits and usage per scope (a run, or a tenant's day), the
-- reservations held against them, and every settlement, release, sweep and
-- refused settlement, so that spend can be audited per run, per tenant and
-- per day, and a crashed worker's holds can be returned.
--
-- Usage columns are kept in the budgets row and changed only under a row
-- lock (SELECT ... FOR UPDATE, scopes locked in (scope_kind, scope_id)
-- order), in the same transaction as the reservation's state change, so the
-- totals always equal the sum of the reservations and settlements.

CREATE TABLE budgets (
    tenant_id  text NOT NULL,
    scope_kind text NOT NULL CHECK (scope_kind IN ('run', 'tenant_day')),
    scope_id   text NOT NULL,
    -- Limits: NULL means unlimited.
    limit_model_calls              bigint,
    limit_search_calls             bigint,
    limit_read_calls               bigint,
    limit_fact_calls               bigint,
    limit_calculate_calls          bigint,
    limit_input_tokens             bigint,
    limit_output_tokens            bigint,
    limit_retrieval_candidates     bigint,
    limit_spend_usd                numeric,
    wall_clock_ms                  bigint, -- NULL: no deadline
    -- Held by open reservations.
    reserved_model_calls           bigint  NOT NULL DEFAULT 0 CHECK (reserved_model_calls >= 0),
    reserved_search_calls          bigint  NOT NULL DEFAULT 0 CHECK (reserved_search_calls >= 0),
    reserved_read_calls            bigint  NOT NULL DEFAULT 0 CHECK (reserved_read_calls >= 0),
    reserved_fact_calls            bigint  NOT NULL DEFAULT 0 CHECK (reserved_fact_calls >= 0),
    reserved_calculate_calls       bigint  NOT NULL DEFAULT 0 CHECK (reserved_calculate_calls >= 0),
    reserved_input_tokens          bigint  NOT NULL DEFAULT 0 CHECK (reserved_input_tokens >= 0),
    reserved_output_tokens         bigint  NOT NULL DEFAULT 0 CHECK (reserved_output_tokens >= 0),
    reserved_retrieval_candidates  bigint  NOT NULL DEFAULT 0 CHECK (reserved_retrieval_candidates >= 0),
    reserved_spend_usd             numeric NOT NULL DEFAULT 0 CHECK (reserved_spend_usd >= 0),
    -- Used by settled calls.
    settled_model_calls            bigint  NOT NULL DEFAULT 0 CHECK (settled_model_calls >= 0),
    settled_search_calls           bigint  NOT NULL DEFAULT 0 CHECK (settled_search_calls >= 0),
    settled_read_calls             bigint  NOT NULL DEFAULT 0 CHECK (settled_read_calls >= 0),
    settled_fact_calls             bigint  NOT NULL DEFAULT 0 CHECK (settled_fact_calls >= 0),
    settled_calculate_calls        bigint  NOT NULL DEFAULT 0 CHECK (settled_calculate_calls >= 0),
    settled_input_tokens           bigint  NOT NULL DEFAULT 0 CHECK (settled_input_tokens >= 0),
    settled_output_tokens          bigint  NOT NULL DEFAULT 0 CHECK (settled_output_tokens >= 0),
    settled_retrieval_candidates   bigint  NOT NULL DEFAULT 0 CHECK (settled_retrieval_candidates >= 0),
    settled_spend_usd              numeric NOT NULL DEFAULT 0 CHECK (settled_spend_usd >= 0),
    -- Returned by releases and sweeps.
    released_model_calls           bigint  NOT NULL DEFAULT 0 CHECK (released_model_calls >= 0),
    released_search_calls          bigint  NOT NULL DEFAULT 0 CHECK (released_search_calls >= 0),
    released_read_calls            bigint  NOT NULL DEFAULT 0 CHECK (released_read_calls >= 0),
    released_fact_calls            bigint  NOT NULL DEFAULT 0 CHECK (released_fact_calls >= 0),
    released_calculate_calls       bigint  NOT NULL DEFAULT 0 CHECK (released_calculate_calls >= 0),
    released_input_tokens          bigint  NOT NULL DEFAULT 0 CHECK (released_input_tokens >= 0),
    released_output_tokens         bigint  NOT NULL DEFAULT 0 CHECK (released_output_tokens >= 0),
    released_retrieval_candidates  bigint  NOT NULL DEFAULT 0 CHECK (released_retrieval_candidates >= 0),
    released_spend_usd             numeric NOT NULL DEFAULT 0 CHECK (released_spend_usd >= 0),
    rejected_settlements           bigint NOT NULL DEFAULT 0, -- refused settlements, recorded in settlements
    created_at                     timestamptz NOT NULL DEFAULT now(),
    updated_at                     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, scope_kind, scope_id)
);

CREATE TABLE reservations (
    tenant_id  text        NOT NULL,
    key        text        NOT NULL, -- the caller's idempotency key
    scope_keys text[]      NOT NULL, -- 'kind/id', sorted: the lock order
    -- The amounts held.
    model_calls            bigint  NOT NULL CHECK (model_calls >= 0),
    search_calls           bigint  NOT NULL CHECK (search_calls >= 0),
    read_calls             bigint  NOT NULL CHECK (read_calls >= 0),
    fact_calls             bigint  NOT NULL CHECK (fact_calls >= 0),
    calculate_calls        bigint  NOT NULL CHECK (calculate_calls >= 0),
    input_tokens           bigint  NOT NULL CHECK (input_tokens >= 0),
    output_tokens          bigint  NOT NULL CHECK (output_tokens >= 0),
    retrieval_candidates   bigint  NOT NULL CHECK (retrieval_candidates >= 0),
    spend_usd              numeric NOT NULL CHECK (spend_usd >= 0),
    state      text        NOT NULL CHECK (state IN ('reserved', 'settled', 'released', 'expired')),
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    closed_at  timestamptz,
    PRIMARY KEY (tenant_id, key)
);

-- Sweep finds expired open holds without reading closed ones.
CREATE INDEX reservations_open_idx ON reservations (expires_at) WHERE state = 'reserved';
-- The audit counts a scope's reservations.
CREATE INDEX reservations_scope_idx ON reservations USING gin (scope_keys);

CREATE TABLE settlements (
    id         bigserial   PRIMARY KEY,
    tenant_id  text        NOT NULL,
    key        text        NOT NULL,
    -- settle: charged; release, expire: returned; rejected: refused, with
    -- the amounts the caller asked for (which may be negative).
    kind       text        NOT NULL CHECK (kind IN ('settle', 'release', 'expire', 'rejected')),
    model_calls            bigint  NOT NULL,
    search_calls           bigint  NOT NULL,
    read_calls             bigint  NOT NULL,
    fact_calls             bigint  NOT NULL,
    calculate_calls        bigint  NOT NULL,
    input_tokens           bigint  NOT NULL,
    output_tokens          bigint  NOT NULL,
    retrieval_candidates   bigint  NOT NULL,
    spend_usd              numeric NOT NULL,
    reason     text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, key) REFERENCES reservations (tenant_id, key)
);

-- A reservation is closed once: settled, released or expired.
CREATE UNIQUE INDEX settlements_once_idx ON settlements (tenant_id, key) WHERE kind <> 'rejected';
