// Package ledger is the evidence ledger of a research run: what the run set
// out to find (requirements with completion conditions and a status), what
// its tools found (evidence spans and tagged facts), where sources disagree
// (contradictions), what it searched for (search history), which corpus it
// could see (a snapshot hash) and an append-only log of its decisions and
// tool calls with their timings.
//
// # Evidence identity
//
// Evidence is deduplicated by immutable source span, never by wording: a
// span is a document id (the hex sha256 of the document's canonical text)
// and byte offsets [start, end) into that text. Its id is
//
//	"E" + the first 12 hex digits of sha256("<document id>:<start>:<end>")
//
// (EvidenceID), so the same span found by two searches, in two processes or
// after a resume, is one evidence id. When a tool returns a span contained in
// one the run already holds, the span is kept (it may be cited on its own)
// but it is reported as OutcomeContained and does not count as new evidence
// for the stop rule.
//
// # Stores
//
// Store is implemented by package pgledger (Postgres, the system of record)
// and package embeddedledger (files under a data directory); both pass the
// contract suite in package ledgertest. A store is scoped to one tenant: a
// run of another tenant is ErrNotFound, exactly like a missing run.
//
// # Resume
//
// OpenRun creates a run or reopens the one with the same id. Everything
// already recorded is kept and nothing is recorded twice: requirements are
// added only when their id is new, evidence only when its span is new, and a
// tool result whose call id is already recorded changes nothing at all.
package ledger
