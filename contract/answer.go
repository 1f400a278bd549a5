package contract

import "github.com/ledgerline/research/ledger"

// Citation is one cited piece of evidence: Index is the n of the answer's
// [n] markers; Excerpt must be a verbatim part of the evidence's excerpt.
type Citation struct {
	Index      int    `json:"index"`
	EvidenceID string `json:"evidence_id"`
	Excerpt    string `json:"excerpt"`
}

// Gap is something the answer needed and could not support.
type Gap struct {
	RequirementID string `json:"requirement,omitempty"`
	Issuer        string `json:"issuer,omitempty"`
	What          string `json:"what"`
	Why           string `json:"why"`
	// Unstated marks the gap of a requirement the run's evidence meets
	// but the answer could not state (no quotable sentence of it): what
	// the answer does not say is not answered, and the requirement does
	// not count as met.
	Unstated bool `json:"unstated,omitempty"`
}

// Answer is a synthesizer's answer, and once validated the validated one.
type Answer struct {
	Answer         string                 `json:"answer"` // plain text with [n] markers
	Citations      []Citation             `json:"citations"`
	Status         ledger.RunStatus       `json:"status"`
	Gaps           []Gap                  `json:"gaps"`
	Contradictions []ledger.Contradiction `json:"contradictions"`
	Calculations   []Calculation          `json:"calculations,omitempty"`
}
