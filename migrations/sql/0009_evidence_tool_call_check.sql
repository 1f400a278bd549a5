-- Every evidence row names the tool call that returned it, and the call
-- must exist in the same tenant and run. The foreign key that said so
-- checked each row on its own: a query and a row lock per inserted row,
-- about a third of writing a tool result's 100 evidence rows. All the rows
-- of a result name one call, so the same rule is now checked once per
-- statement, for each distinct call the statement's rows name, by the
-- triggers below, with the foreign key's behaviour:
--
--   - inserting or updating evidence locks each named call (FOR KEY
--     SHARE, as the key's check did: a concurrent delete of the call waits
--     for this transaction, and a deleted call is not found) and fails
--     with SQLSTATE 23503 (foreign_key_violation) if one is missing;
--   - deleting calls deletes their evidence (ON DELETE CASCADE), which
--     cascades on to the links and facts that name it;
--   - changing a call's key while evidence names the old one fails, 23503
--     (ON UPDATE NO ACTION);
--   - truncating tool_calls (TRUNCATE runs CASCADE, say) deletes every
--     evidence row, and with them what references them.
--
-- The functions keep the search_path they were created with, so that they
-- find this schema's tables whoever fires them.

ALTER TABLE evidence DROP CONSTRAINT evidence_tenant_id_run_id_tool_call_id_fkey;

CREATE FUNCTION evidence_tool_call_check() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    missing record;
BEGIN
    -- One probe of tool_calls' key per call (the lateral subquery is not
    -- flattened: it locks), stopping at the first call that is missing.
    SELECT n.tenant_id, n.run_id, n.tool_call_id INTO missing
    FROM (SELECT DISTINCT tenant_id, run_id, tool_call_id FROM new_evidence) n
    LEFT JOIN LATERAL (
        SELECT true AS held FROM tool_calls c
        WHERE c.tenant_id = n.tenant_id AND c.run_id = n.run_id AND c.id = n.tool_call_id
        FOR KEY SHARE) l ON true
    WHERE l.held IS NULL
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'insert or update on table "evidence" names a tool call that does not exist'
            USING ERRCODE = 'foreign_key_violation',
                  DETAIL = format('Key (tenant_id, run_id, tool_call_id)=(%s, %s, %s) is not present in table "tool_calls".',
                                  missing.tenant_id, missing.run_id, missing.tool_call_id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER evidence_tool_call_insert AFTER INSERT ON evidence
    REFERENCING NEW TABLE AS new_evidence
    FOR EACH STATEMENT EXECUTE FUNCTION evidence_tool_call_check();

CREATE TRIGGER evidence_tool_call_update AFTER UPDATE ON evidence
    REFERENCING NEW TABLE AS new_evidence
    FOR EACH STATEMENT EXECUTE FUNCTION evidence_tool_call_check();

CREATE FUNCTION tool_calls_delete_evidence() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM evidence e
    USING (SELECT DISTINCT tenant_id, run_id, id FROM old_calls) o
    WHERE e.tenant_id = o.tenant_id AND e.run_id = o.run_id AND e.tool_call_id = o.id;
    RETURN NULL;
END $$;

CREATE TRIGGER tool_calls_delete_evidence AFTER DELETE ON tool_calls
    REFERENCING OLD TABLE AS old_calls
    FOR EACH STATEMENT EXECUTE FUNCTION tool_calls_delete_evidence();

CREATE FUNCTION tool_calls_update_check() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    orphan record;
BEGIN
    SELECT o.tenant_id, o.run_id, o.id INTO orphan
    FROM (SELECT DISTINCT tenant_id, run_id, id FROM old_calls) o
    WHERE NOT EXISTS (SELECT 1 FROM tool_calls c
                      WHERE c.tenant_id = o.tenant_id AND c.run_id = o.run_id AND c.id = o.id)
      AND EXISTS (SELECT 1 FROM evidence e
                  WHERE e.tenant_id = o.tenant_id AND e.run_id = o.run_id AND e.tool_call_id = o.id)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'update on table "tool_calls" changes the key of a call that evidence names'
            USING ERRCODE = 'foreign_key_violation',
                  DETAIL = format('Key (tenant_id, run_id, id)=(%s, %s, %s) is still referenced from table "evidence".',
                                  orphan.tenant_id, orphan.run_id, orphan.id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tool_calls_update_check AFTER UPDATE ON tool_calls
    REFERENCING OLD TABLE AS old_calls
    FOR EACH STATEMENT EXECUTE FUNCTION tool_calls_update_check();

-- DELETE, not TRUNCATE: the TRUNCATE that fired this may already be
-- truncating the tables that reference evidence.
CREATE FUNCTION tool_calls_truncate_evidence() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM evidence;
    RETURN NULL;
END $$;

CREATE TRIGGER tool_calls_truncate_evidence AFTER TRUNCATE ON tool_calls
    FOR EACH STATEMENT EXECUTE FUNCTION tool_calls_truncate_evidence();
