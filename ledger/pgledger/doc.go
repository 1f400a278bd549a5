// Package pgledger is the ledger.Store on Postgres, the system of record.
// Its tables come from migrations/sql/0003_ledger.sql.
//
// Every write to a run first locks the run's row (SELECT … FOR UPDATE), so
// the writes to one run are serialised: deciding whether a span is new and
// numbering events need no retry loop, and runs of different tenants or
// different runs never wait for each other. A tool result's new evidence
// rows go in with one CopyFrom inside the result's transaction (see
// BenchmarkRecordEvidence for what that buys over row-at-a-time inserts).
package pgledger
