package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// EvidenceKind says what a piece of evidence is.
type EvidenceKind string

// Evidence kinds.
const (
	KindPassage EvidenceKind = "passage" // a span of running text
	KindFact    EvidenceKind = "fact"    // the displayed value of a tagged fact
)

// Evidence is an immutable source span a tool returned, with what the run
// needs to cite it.
type Evidence struct {
	ID         string       `json:"id"` // EvidenceID(DocumentID, Start, End); filled in by the store
	Kind       EvidenceKind `json:"kind"`
	DocumentID string       `json:"document_id"` // hex sha256 of the canonical text
	Start      int          `json:"start"`       // byte offset into the canonical text
	End        int          `json:"end"`         // one past the last byte
	Excerpt    string       `json:"excerpt"`     // canonical text[Start:End]
	Ticker     string       `json:"ticker"`
	Form       string       `json:"form"`
	Period     string       `json:"period"`    // e.g. "FY2024" or "2024-09-28"
	Page       int          `json:"page"`      // 0 when the source has no pages
	Section    string       `json:"section"`   // "Item 7", ...
	ToolCallID string       `json:"tool_call"` // the call that first found it; filled in by the store
}

// EvidenceID returns the id of the span [start, end) of a document: "E" and
// the first 12 hex digits of sha256("<documentID>:<start>:<end>"). It
// depends on nothing but the span, so it is stable across processes.
func EvidenceID(documentID string, start, end int) string {
	sum := sha256.Sum256([]byte(documentID + ":" + strconv.Itoa(start) + ":" + strconv.Itoa(end)))
	return "E" + hex.EncodeToString(sum[:6])
}

// Contains reports whether e's span holds [start, end) of the same document.
func (e *Evidence) Contains(documentID string, start, end int) bool {
	return e.DocumentID == documentID && e.Start <= start && end <= e.End
}

// Validate checks one evidence item of a tool result and fills in its ID.
func (e *Evidence) Validate(field string) error {
	switch e.Kind {
	case KindPassage, KindFact:
	default:
		return invalid(field+".kind", "%q is not passage or fact", e.Kind)
	}
	if e.DocumentID == "" {
		return invalid(field+".document_id", "empty")
	}
	if e.Start < 0 {
		return invalid(field+".start", "%d is negative", e.Start)
	}
	if e.End <= e.Start {
		return invalid(field+".end", "%d is not after start %d", e.End, e.Start)
	}
	if e.Page < 0 {
		return invalid(field+".page", "%d is negative", e.Page)
	}
	id := EvidenceID(e.DocumentID, e.Start, e.End)
	if e.ID != "" && e.ID != id {
		return invalid(field+".id", "%q is not the id of its span, %s", e.ID, id)
	}
	e.ID = id
	return nil
}

// Outcome says what recording one evidence item did.
type Outcome string

// Outcomes of recording evidence. Only OutcomeNew counts as new evidence
// for the stop rule.
const (
	OutcomeNew       Outcome = "new"       // a span the run did not hold
	OutcomeDuplicate Outcome = "duplicate" // the very span was held already: nothing recorded
	OutcomeContained Outcome = "contained" // recorded, but inside a span held already
)

// EvidenceOutcome is the outcome of one evidence item of a tool result.
type EvidenceOutcome struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Within  string  `json:"within,omitempty"` // the holding evidence id when contained
}

// String formats the outcome for logs.
func (o EvidenceOutcome) String() string {
	if o.Within != "" {
		return fmt.Sprintf("%s %s in %s", o.ID, o.Outcome, o.Within)
	}
	return fmt.Sprintf("%s %s", o.ID, o.Outcome)
}
