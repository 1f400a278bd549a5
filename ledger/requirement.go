package ledger

import "fmt"

// RequirementStatus is how far a requirement is met.
type RequirementStatus string

// Requirement statuses.
const (
	RequirementPending     RequirementStatus = "pending"
	RequirementSupported   RequirementStatus = "supported"
	RequirementMissing     RequirementStatus = "missing"
	RequirementConflicting RequirementStatus = "conflicting"
)

// Valid reports whether s is one of the four statuses.
func (s RequirementStatus) Valid() bool {
	switch s {
	case RequirementPending, RequirementSupported, RequirementMissing, RequirementConflicting:
		return true
	}
	return false
}

// Requirement is one piece of evidence a run needs, as planned.
type Requirement struct {
	ID                  string            `json:"id"`
	Issuer              string            `json:"issuer"` // ticker; "" for a cross-issuer requirement
	Period              string            `json:"period"` // e.g. "FY2024"
	Description         string            `json:"description"`
	CompletionCondition string            `json:"completion_condition"`
	Status              RequirementStatus `json:"status"`   // "" means pending
	Evidence            []string          `json:"evidence"` // linked evidence ids, in the order linked
}

// Validate checks a requirement passed to AddRequirements and defaults its
// status; a new requirement's Evidence must be empty (link evidence with
// UpdateRequirement or ToolCall.RequirementID).
func (r *Requirement) Validate(field string) error {
	if err := checkKey(field+".id", r.ID); err != nil {
		return err
	}
	if r.Status == "" {
		r.Status = RequirementPending
	}
	if !r.Status.Valid() {
		return invalid(field+".status", "%q is not pending, supported, missing or conflicting", r.Status)
	}
	if len(r.Evidence) > 0 {
		return invalid(field+".evidence", "a new requirement has no evidence; link it with UpdateRequirement")
	}
	return nil
}

// ValidateRequirements validates a batch for AddRequirements: each one,
// and no id twice.
func ValidateRequirements(reqs []Requirement) error {
	seen := make(map[string]bool, len(reqs))
	for i := range reqs {
		field := fmt.Sprintf("requirements[%d]", i)
		if err := reqs[i].Validate(field); err != nil {
			return err
		}
		if seen[reqs[i].ID] {
			return invalid(field+".id", "%q appears twice", reqs[i].ID)
		}
		seen[reqs[i].ID] = true
	}
	return nil
}
