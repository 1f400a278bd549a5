package ledger

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// ErrNotFound is returned for a run, requirement or evidence id the store
// does not hold for its tenant. A run of another tenant is not found either.
var ErrNotFound = errors.New("ledger: not found")

// ErrCorrupt is wrapped by the error a store returns when what it persisted
// cannot be read back; the error names the place.
var ErrCorrupt = errors.New("ledger: corrupt")

// ValidationError reports an argument the ledger refuses; nothing was
// recorded. Reach it with errors.As.
type ValidationError struct {
	Field   string // the offending field, e.g. "evidence[2].end"
	Problem string // what is wrong with it
}

// Error implements error.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("ledger: %s: %s", e.Field, e.Problem)
}

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// namePattern is what run ids and tenants look like: they name files of the
// embedded store, so they stay portable path elements.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidName reports whether s may be a run id or a tenant: 1 to 128 ASCII
// letters, digits, '.', '_' or '-', starting with a letter or digit.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// checkKey validates a requirement or tool call id: non-empty, at most 256
// bytes, no control characters.
func checkKey(field, s string) error {
	if s == "" {
		return invalid(field, "empty")
	}
	if len(s) > 256 {
		return invalid(field, "longer than 256 bytes")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return invalid(field, "holds a control character")
		}
	}
	return nil
}

// CheckRunID returns a *ValidationError unless id is a valid run id.
func CheckRunID(id string) error {
	if !ValidName(id) {
		return invalid("run id", "%q is not 1-128 letters, digits, '.', '_' or '-'", id)
	}
	return nil
}

// Store is the ledger's storage seam. Every method is scoped to the
// store's tenant, and every method but OpenRun returns ErrNotFound for a
// run the tenant does not hold. Writes are atomic: a method that returns an
// error has recorded nothing. Implementations are safe for concurrent use.
type Store interface {
	// OpenRun creates the run r.ID, or reopens it when it exists (resumed
	// is then true and the stored run is returned unchanged: its question,
	// mode and corpus snapshot are the ones first recorded). It appends a
	// run_created or run_resumed event.
	OpenRun(ctx context.Context, r Run) (run Run, resumed bool, err error)

	// Run returns the run without its records.
	Run(ctx context.Context, runID string) (Run, error)

	// Runs returns the tenant's latest runs without their records, newest
	// first (by creation time, then by id), at most limit of them; a limit
	// of 0 or less means every run. A run whose records cannot be read
	// back (ErrCorrupt from Run) is left out rather than hiding the others.
	Runs(ctx context.Context, limit int) ([]Run, error)

	// FinishRun sets a terminal status and the finish time and appends a
	// run_finished event. Finishing again overwrites both.
	FinishRun(ctx context.Context, runID string, status RunStatus) error

	// AddRequirements records the requirements whose ids the run does not
	// hold yet and returns how many it added; requirements already held are
	// kept as they are (their status and evidence too).
	AddRequirements(ctx context.Context, runID string, reqs []Requirement) (added int, err error)

	// UpdateRequirement sets a requirement's status and links evidence ids
	// to it (links already held are kept). Unknown requirement or evidence
	// ids are ErrNotFound.
	UpdateRequirement(ctx context.Context, runID, reqID string, status RequirementStatus, evidenceIDs []string) error

	// RecordToolResult records one tool call with the evidence and facts
	// it returned and its search, in one transaction, and says per
	// evidence item whether it was new, a duplicate or contained in a span
	// held. A call id already recorded changes nothing: the result then
	// has Replayed set and every item a duplicate.
	RecordToolResult(ctx context.Context, runID string, res *ToolResult) (*RecordResult, error)

	// AddContradiction records a contradiction; its id is derived from the
	// requirement and the evidence ids, so recording it again adds nothing
	// (added is false). Unknown ids are ErrNotFound.
	AddContradiction(ctx context.Context, runID string, c Contradiction) (stored Contradiction, added bool, err error)

	// AppendEvent appends a caller's event (a decision, say) to the run's
	// log and returns it with its sequence number and time.
	AppendEvent(ctx context.Context, runID string, e Event) (Event, error)

	// Events returns the run's event log in order.
	Events(ctx context.Context, runID string) ([]Event, error)

	// Load returns everything recorded for the run, each list in the order
	// it was recorded.
	Load(ctx context.Context, runID string) (*RunLedger, error)

	// Close releases the store's resources.
	Close() error
}

// RunLedger is everything a store holds for one run.
type RunLedger struct {
	Run            Run
	Requirements   []Requirement
	ToolCalls      []ToolCall
	Evidence       []Evidence
	Facts          []Fact
	Contradictions []Contradiction
	Searches       []Search
	Events         []Event
}
