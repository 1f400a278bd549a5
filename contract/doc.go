// Package contract holds the value types that one stage of a run produces
// and another consumes: the evidence requirements a plan sets, with their
// completion conditions (the planner writes them; the executor, the
// synthesizers and the validator read them), and the answer with its
// citations, gaps and calculations (the synthesizers write it; the
// validator checks it and the executor reports it).
//
// Only data belongs here: types, their constants, and methods that read
// nothing but the value itself. Anything that decides (checking a
// condition against the ledger, validating an answer, planning) stays with
// the package that owns the decision, so that this one depends on the
// ledger's value types alone and every package can import it without a
// cycle.
package contract
