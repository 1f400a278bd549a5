package budget

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// ScopeKind is the kind of thing a budget belongs to.
type ScopeKind string

// The scope kinds. A run's budget nests inside its tenant's daily budget.
const (
	KindRun       ScopeKind = "run"
	KindTenantDay ScopeKind = "tenant_day"
)

// Scope names one budget of the accountant's tenant: a run (ID is the run
// id) or a day of the tenant (ID is the UTC date, YYYY-MM-DD).
type Scope struct {
	Kind ScopeKind
	ID   string
}

// RunScope is the scope of run id.
func RunScope(id string) Scope { return Scope{Kind: KindRun, ID: id} }

// DayScope is the tenant's daily scope that holds t, by its UTC date.
func DayScope(t time.Time) Scope {
	return Scope{Kind: KindTenantDay, ID: t.UTC().Format(time.DateOnly)}
}

// String is "run ID" or "tenant_day YYYY-MM-DD".
func (s Scope) String() string { return string(s.Kind) + " " + s.ID }

func (s Scope) validate() error {
	switch s.Kind {
	case KindRun:
		if s.ID == "" {
			return fmt.Errorf("budget: Scope.ID: empty run id")
		}
	case KindTenantDay:
		if _, err := time.Parse(time.DateOnly, s.ID); err != nil {
			return fmt.Errorf("budget: Scope.ID %q: want a tenant day as YYYY-MM-DD", s.ID)
		}
	default:
		return fmt.Errorf("budget: Scope.Kind %q: want %q or %q", s.Kind, KindRun, KindTenantDay)
	}
	return nil
}

func compareScopes(a, b Scope) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
}

// normalizeScopes validates scopes and returns them sorted, the order in
// which every implementation locks them (so two reservations never wait on
// each other in a cycle).
func normalizeScopes(scopes []Scope) ([]Scope, error) {
	if len(scopes) == 0 {
		return nil, fmt.Errorf("budget: scopes: none given")
	}
	s := slices.Clone(scopes)
	for _, sc := range s {
		if err := sc.validate(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s, compareScopes)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return nil, fmt.Errorf("budget: scopes: %s given twice", s[i])
		}
	}
	return s, nil
}
