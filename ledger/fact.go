package ledger

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/shopspring/decimal"
)

// Fact is a number a tool read from the evidence, exactly as a decimal.
type Fact struct {
	ID         string          `json:"id"` // FactID(...); filled in by the store
	EvidenceID string          `json:"evidence_id"`
	Concept    string          `json:"concept"`   // XBRL concept, or a label for an untagged number
	Value      decimal.Decimal `json:"value"`     // JSON: a string, so no digit is lost
	Unit       string          `json:"unit"`      // "USD", "shares", "pure", ...
	Period     string          `json:"period"`    // "2023-10-01/2024-09-28" or an instant
	ToolCallID string          `json:"tool_call"` // filled in by the store
}

// FactID returns the id of a fact: "F" and the first 12 hex digits of
// sha256 over its evidence id, concept, period and unit. The value is not
// part of it: one displayed span shows one value.
func FactID(evidenceID, concept, period, unit string) string {
	sum := sha256.Sum256([]byte(evidenceID + "\x00" + concept + "\x00" + period + "\x00" + unit))
	return "F" + hex.EncodeToString(sum[:6])
}

// Validate checks one fact of a tool result and fills in its ID.
func (f *Fact) Validate(field string) error {
	if f.EvidenceID == "" {
		return invalid(field+".evidence_id", "empty")
	}
	if f.Concept == "" {
		return invalid(field+".concept", "empty")
	}
	id := FactID(f.EvidenceID, f.Concept, f.Period, f.Unit)
	if f.ID != "" && f.ID != id {
		return invalid(field+".id", "%q is not the fact's id, %s", f.ID, id)
	}
	f.ID = id
	return nil
}
