// Package pgledger is the ledger.Store on Postgres, the system of record.
// Its tables come from migrations/sql/0003_ledger.sql; 0009 checks an
// evidence row's tool call once per statement rather than per row, and
// 0010 orders the evidence key so that a span lookup cannot take it.
//
// Every write to a run first locks the run's row (SELECT … FOR UPDATE), so
// the writes to one run are serialised: deciding whether a span is new and
// numbering events need no retry loop, and runs of different tenants or
// different runs never wait for each other.
//
// Writes cost as few round trips as their reads allow, and each returns
// only once its transaction has committed. A write that decides nothing
// from what it reads (AppendEvent, UpdateRequirement, FinishRun) is one
// pgx.Batch, which Postgres runs as one transaction committed at the
// batch's end: one round trip. A write that must read first
// (RecordToolResult reads the spans the run holds) sends BEGIN with its
// first batch and COMMIT with its last: two round trips. A tool result's
// new evidence rows are one multi-row INSERT in its commit batch (see
// BenchmarkRecordEvidence, and TestRoundTripsPerOperation for what each
// operation costs).
package pgledger
