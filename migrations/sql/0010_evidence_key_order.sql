-- Evidence is looked up two ways: by span, to find what a run already holds
-- in a document (every recorded tool result does it), and by id, from the
-- requirement links and facts that name it. Both keys began (tenant_id,
-- run_id, ...), so for a run that the table's statistics do not know yet,
-- a new run above all, Postgres estimated one row for that prefix, found
-- the two indexes equally good, and took the narrower primary key for the
-- span lookup, reading every span of the run and filtering on the document
-- (6 ms a result at 30,000 spans, growing with the run).
--
-- The primary key is now (tenant_id, id, run_id): the same columns, still
-- led by the tenant, still what the links and facts reference, but no
-- longer able to serve a lookup by (tenant_id, run_id, document_id) beyond
-- its first column, so the span index is the only good plan for one.
-- Lookups by id use the key as before (they name all three columns).
--
-- On a large ledger this rebuilds the key and checks the two foreign keys
-- again, holding the three tables' locks until it commits.

ALTER TABLE requirement_evidence DROP CONSTRAINT requirement_evidence_tenant_id_run_id_evidence_id_fkey;
ALTER TABLE ledger_facts DROP CONSTRAINT ledger_facts_tenant_id_run_id_evidence_id_fkey;
ALTER TABLE evidence DROP CONSTRAINT evidence_pkey;
ALTER TABLE evidence ADD CONSTRAINT evidence_pkey PRIMARY KEY (tenant_id, id, run_id);
ALTER TABLE requirement_evidence ADD CONSTRAINT requirement_evidence_tenant_id_run_id_evidence_id_fkey
    FOREIGN KEY (tenant_id, run_id, evidence_id) REFERENCES evidence (tenant_id, run_id, id) ON DELETE CASCADE;
ALTER TABLE ledger_facts ADD CONSTRAINT ledger_facts_tenant_id_run_id_evidence_id_fkey
    FOREIGN KEY (tenant_id, run_id, evidence_id) REFERENCES evidence (tenant_id, run_id, id) ON DELETE CASCADE;
