-- Deleting a tenant deletes everything it held: its documents (their chunks
-- and facts), its runs (their ledgers), batches, budgets, reservations and
-- settlements. A tenant created later with the same name (its id) starts
-- empty and reads nothing of the one before, however the row was deleted
-- (research tenant delete, or SQL). Its API keys, request log and
-- admissions already went with the row (ON DELETE CASCADE).

CREATE FUNCTION delete_tenant_data() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM batches WHERE tenant_id = OLD.id;
    DELETE FROM run_submissions WHERE tenant_id = OLD.id;
    DELETE FROM runs WHERE tenant_id = OLD.id;
    DELETE FROM settlements WHERE tenant_id = OLD.id;
    DELETE FROM reservations WHERE tenant_id = OLD.id;
    DELETE FROM budgets WHERE tenant_id = OLD.id;
    DELETE FROM documents WHERE tenant_id = OLD.id;
    RETURN OLD;
END;
$$;

CREATE TRIGGER tenants_delete_data AFTER DELETE ON tenants
    FOR EACH ROW EXECUTE FUNCTION delete_tenant_data();
