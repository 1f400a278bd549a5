-- Budget leases: a process takes a slice of a run's and a tenant day's
-- budgets at once (a reservation row with lease = true, whose amounts are
-- what the lease still holds), reserves its calls against the slice in
-- process, and writes their reservations and settlements in batches. A
-- lease is not a call: the audit counts of a scope leave lease rows out.
--
-- Closing a lease returns what it holds unused: a settlement of kind
-- 'return', which is not the release of a call (it is not counted in the
-- budgets' released columns). A lease whose process died is returned the
-- same way when it expires or when its run finishes elsewhere.
ALTER TABLE reservations ADD COLUMN lease boolean NOT NULL DEFAULT false;

ALTER TABLE settlements DROP CONSTRAINT settlements_kind_check;
ALTER TABLE settlements ADD CONSTRAINT settlements_kind_check
    CHECK (kind IN ('settle', 'release', 'expire', 'rejected', 'return'));
