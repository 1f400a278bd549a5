// Package embeddedledger is the ledger.Store that needs no database: each
// run is one append-only file under a data directory.
//
// # Layout
//
//	<dir>/ledger/<tenant>/<run id>.jsonl
//
// Each line of a run file is one JSON record holding everything one write
// recorded (the run's creation, a batch of requirements, one tool result
// with its evidence, facts, search and event, ...), so a write is one
// append of one line, synced before the call returns. A line counts once
// its terminating newline is on disk: a crash mid-write leaves a torn last
// line, which readers ignore and the next writer cuts off. A damaged line
// before the last one is reported as ledger.ErrCorrupt, naming the file and
// line, rather than dropped.
//
// Writers take an exclusive flock on the run file and readers a shared one
// (on Unix), and every call first reads what other processes appended since,
// so several processes may record into one run: whether a span is new is
// decided under the lock, against everything recorded. Each record is
// replayed through the same code that built it, so reopening a run gives
// back exactly the state that was written.
package embeddedledger
