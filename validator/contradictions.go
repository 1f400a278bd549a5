package validator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

// Tolerances within which two reported values of one figure agree: a
// restated or rounded figure corroborates, it does not contradict.
var (
	relativeTolerance = decimal.RequireFromString("0.005") // 0.5% of the larger magnitude
	absoluteTolerance = decimal.NewFromInt(1)              // one unit
)

// DetectContradictions finds facts that disagree. It groups the ledger's
// facts by the ticker of their evidence, concept, period and unit; two
// facts of a group from different documents whose values differ by more
// than relativeTolerance of the larger magnitude and by more than
// absoluteTolerance contradict. Facts from one document are never compared
// (a filing showing a figure twice is not a source disagreeing), and
// facts whose evidence the ledger lacks are skipped. Each contradicting pair
// of documents and values is reported once, against the requirement it
// concerns (see requirementFor), with its id filled in.
func DetectContradictions(reqs []contract.Requirement, l *ledger.RunLedger) []ledger.Contradiction {
	if l == nil {
		return nil
	}
	evidence := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		evidence[l.Evidence[i].ID] = &l.Evidence[i]
	}
	type key struct{ ticker, concept, period, unit string }
	var order []key
	groups := map[key][]*ledger.Fact{}
	for i := range l.Facts {
		f := &l.Facts[i]
		e, ok := evidence[f.EvidenceID]
		if !ok {
			continue
		}
		k := key{e.Ticker, f.Concept, f.Period, f.Unit}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}

	var out []ledger.Contradiction
	seen := map[string]bool{}
	for _, k := range order {
		fs := groups[k]
		for i := range fs {
			for j := i + 1; j < len(fs); j++ {
				a, b := fs[i], fs[j]
				ea, eb := evidence[a.EvidenceID], evidence[b.EvidenceID]
				if ea.DocumentID == eb.DocumentID || !disagree(a.Value, b.Value) {
					continue
				}
				pair := ea.DocumentID + "\x00" + eb.DocumentID + "\x00" + a.Value.String() + "\x00" + b.Value.String()
				if seen[pair] {
					continue
				}
				seen[pair] = true
				c := ledger.Contradiction{
					RequirementID: requirementFor(reqs, l, k.ticker, k.concept, ea, eb),
					EvidenceIDs:   slices.Sorted(slices.Values([]string{a.EvidenceID, b.EvidenceID})),
					Difference: fmt.Sprintf("%s %s %s: %s in %s vs %s in %s",
						k.ticker, k.concept, k.period, a.Value.String(), a.EvidenceID, b.Value.String(), b.EvidenceID),
				}
				c.ID = ledger.ContradictionID(c.RequirementID, c.EvidenceIDs)
				if seen[c.ID] {
					continue
				}
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// disagree reports whether two values differ beyond both tolerances.
func disagree(a, b decimal.Decimal) bool {
	diff := a.Sub(b).Abs()
	if diff.Cmp(absoluteTolerance) <= 0 {
		return false
	}
	larger := a.Abs()
	if b.Abs().Cmp(larger) > 0 {
		larger = b.Abs()
	}
	return diff.Cmp(larger.Mul(relativeTolerance)) > 0
}

// requirementFor returns the requirement two facts of ticker and concept
// concern: among the requirements whose completion is a fact condition
// for that ticker and concept, the one the ledger linked either evidence
// to, else the one with the earliest period that is either evidence's
// period (a filing restates earlier years, never later ones), else the
// first; failing those the first requirement for the issuer; else
// "figures".
func requirementFor(reqs []contract.Requirement, l *ledger.RunLedger, ticker, concept string, ea, eb *ledger.Evidence) string {
	var candidates []contract.Requirement
	for _, r := range reqs {
		c := r.Completion
		issuer := c.Issuer
		if issuer == "" {
			issuer = r.Issuer
		}
		if c.Kind != contract.CondFact || !strings.EqualFold(issuer, ticker) {
			continue
		}
		for _, want := range c.Concepts {
			if sameConcept(want, concept) {
				candidates = append(candidates, r)
				break
			}
		}
	}
	if len(candidates) > 0 {
		linked := map[string]bool{}
		for _, q := range l.Requirements {
			if slices.Contains(q.Evidence, ea.ID) || slices.Contains(q.Evidence, eb.ID) {
				linked[q.ID] = true
			}
		}
		for _, r := range candidates {
			if linked[r.ID] {
				return r.ID
			}
		}
		best := ""
		bestPeriod := ""
		for _, r := range candidates {
			if r.Period != "" && (r.Period == ea.Period || r.Period == eb.Period) && (best == "" || r.Period < bestPeriod) {
				best, bestPeriod = r.ID, r.Period
			}
		}
		if best != "" {
			return best
		}
		return candidates[0].ID
	}
	for _, r := range reqs {
		if strings.EqualFold(r.Issuer, ticker) {
			return r.ID
		}
	}
	return "figures"
}

// sameConcept compares concepts, qualified or not: "GrossProfit" names
// "us-gaap:GrossProfit".
func sameConcept(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	_, la, qa := strings.Cut(a, ":")
	_, lb, qb := strings.Cut(b, ":")
	if qa && qb {
		return false
	}
	if !qa {
		la = a
	}
	if !qb {
		lb = b
	}
	return strings.EqualFold(la, lb)
}
