package ledger

import "time"

// Mode is how a run is driven.
type Mode string

// Modes of a run.
const (
	ModeRules    Mode = "rules"    // deterministic planner and extractive synthesizer
	ModeModel    Mode = "model"    // planner and synthesizer are model calls
	ModeBaseline Mode = "baseline" // one fixed retrieval pass and the extractive synthesizer
)

// RunStatus is where a run stands.
type RunStatus string

// Run statuses: StatusRunning until FinishRun sets one of the terminal ones.
const (
	StatusRunning              RunStatus = "running"
	StatusSupported            RunStatus = "supported"
	StatusPartial              RunStatus = "partial"
	StatusInsufficientEvidence RunStatus = "insufficient_evidence"
	StatusConflictingEvidence  RunStatus = "conflicting_evidence"
	StatusBudgetExhausted      RunStatus = "budget_exhausted"
	StatusFailed               RunStatus = "failed"  // stopped by an error, not by a verdict
	StatusRefused              RunStatus = "refused" // the router refused the question before any call
)

// Terminal reports whether s is a status FinishRun accepts.
func (s RunStatus) Terminal() bool {
	switch s {
	case StatusSupported, StatusPartial, StatusInsufficientEvidence, StatusConflictingEvidence,
		StatusBudgetExhausted, StatusFailed, StatusRefused:
		return true
	}
	return false
}

// Run is one research run.
type Run struct {
	ID             string    `json:"id"`       // caller-chosen; see ValidName
	Tenant         string    `json:"tenant"`   // set by the store
	Question       string    `json:"question"` // the analyst's question
	Mode           Mode      `json:"mode"`     // "" means ModeRules
	Status         RunStatus `json:"status"`   // set by the store
	CorpusSnapshot string    `json:"corpus_snapshot"`
	Created        time.Time `json:"created"`           // set by the store
	Finished       time.Time `json:"finished,omitzero"` // zero while running
}

// Validate checks a run passed to OpenRun and defaults its Mode.
func (r *Run) Validate() error {
	if err := CheckRunID(r.ID); err != nil {
		return err
	}
	if r.Question == "" {
		return invalid("question", "empty")
	}
	switch r.Mode {
	case "":
		r.Mode = ModeRules
	case ModeRules, ModeModel, ModeBaseline:
	default:
		return invalid("mode", "%q is not rules, model or baseline", r.Mode)
	}
	return nil
}
