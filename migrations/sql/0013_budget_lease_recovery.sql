-- Budget leases count their writes. Every transaction that writes a lease
-- (a slice taken, calls written, the lease returned) adds one to its row's
-- lease_writes in the same commit, so a process whose connection broke
-- after it sent a COMMIT can learn whether that write landed, and neither
-- apply it twice nor lose it.
ALTER TABLE reservations ADD COLUMN lease_writes bigint NOT NULL DEFAULT 0;

-- A scope closed by ExpireScope (a run that has its verdict) gives no
-- slice to a lease: a stale attempt of the run in another process would
-- hold it after every reservation of the run was closed. Setting the
-- scope's limits (an attempt that resumes the run) opens it again.
ALTER TABLE budgets ADD COLUMN closed_at timestamptz;
