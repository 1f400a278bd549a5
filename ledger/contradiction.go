package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Contradiction records evidence that disagrees about a requirement.
type Contradiction struct {
	ID            string   `json:"id"` // ContradictionID(...); filled in by the store
	RequirementID string   `json:"requirement"`
	EvidenceIDs   []string `json:"evidence"`   // sorted, at least two
	Difference    string   `json:"difference"` // what differs, in words
}

// ContradictionID returns "C" and the first 12 hex digits of sha256 over
// the requirement id and the sorted evidence ids.
func ContradictionID(requirementID string, evidenceIDs []string) string {
	ids := slices.Sorted(slices.Values(evidenceIDs))
	sum := sha256.Sum256([]byte(requirementID + "\x00" + strings.Join(ids, ",")))
	return "C" + hex.EncodeToString(sum[:6])
}

// Validate checks a contradiction, sorts and dedups its evidence ids and
// fills in its ID.
func (c *Contradiction) Validate() error {
	if err := checkKey("contradiction.requirement", c.RequirementID); err != nil {
		return err
	}
	c.EvidenceIDs = slices.Compact(slices.Sorted(slices.Values(c.EvidenceIDs)))
	if len(c.EvidenceIDs) < 2 {
		return invalid("contradiction.evidence", "needs at least two distinct evidence ids, got %d", len(c.EvidenceIDs))
	}
	if c.Difference == "" {
		return invalid("contradiction.difference", "empty")
	}
	id := ContradictionID(c.RequirementID, c.EvidenceIDs)
	if c.ID != "" && c.ID != id {
		return invalid("contradiction.id", "%q is not the contradiction's id, %s", c.ID, id)
	}
	c.ID = id
	return nil
}
