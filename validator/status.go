package validator

import (
	"fmt"
	"strings"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

// StatusInput is what DecideStatus judges.
type StatusInput struct {
	Refused         bool                   // the router refused the question
	BudgetExhausted bool                   // gathering stopped at a budget limit
	Requirements    []contract.Requirement // the plan's requirements
	Met             map[string]bool        // requirement id -> met
	Contradictions  []ledger.Contradiction // the validated answer's contradictions
	CitedEvidence   map[string]bool        // evidence ids the validated answer cites or calculates from
	Citations       int                    // citations of the validated answer
	NotCovered      []string               // issuers the question names that the corpus does not hold
}

// DecideStatus returns a run's terminal status. The first rule that holds
// decides:
//
//  1. refused: the router refused the question;
//  2. budget_exhausted: gathering stopped at a budget limit (the answer
//     still stands over what was gathered);
//  3. conflicting_evidence: a contradiction is on a required requirement,
//     or involves evidence the answer cites or calculates from;
//  4. insufficient_evidence: the answer cites nothing, there are no
//     requirements, or no required requirement is met;
//  5. supported when every required requirement is met and the question
//     names no issuer outside the corpus, partial otherwise: an answer
//     that covers Apple but not Samsung does not answer "compare Apple and
//     Samsung".
//
// When no requirement is marked required, rules 4 and 5 judge all of them.
func DecideStatus(in StatusInput) ledger.RunStatus {
	if in.Refused {
		return ledger.StatusRefused
	}
	if in.BudgetExhausted {
		return ledger.StatusBudgetExhausted
	}
	judged := make([]contract.Requirement, 0, len(in.Requirements))
	for _, r := range in.Requirements {
		if r.Required {
			judged = append(judged, r)
		}
	}
	if len(judged) == 0 {
		judged = in.Requirements
	}
	required := make(map[string]bool, len(judged))
	for _, r := range judged {
		required[r.ID] = true
	}
	for _, c := range in.Contradictions {
		if required[c.RequirementID] {
			return ledger.StatusConflictingEvidence
		}
		for _, id := range c.EvidenceIDs {
			if in.CitedEvidence[id] {
				return ledger.StatusConflictingEvidence
			}
		}
	}
	met := 0
	for _, r := range judged {
		if in.Met[r.ID] {
			met++
		}
	}
	switch {
	case in.Citations == 0 || len(judged) == 0 || met == 0:
		return ledger.StatusInsufficientEvidence
	case met == len(judged) && len(in.NotCovered) == 0:
		return ledger.StatusSupported
	default:
		return ledger.StatusPartial
	}
}

// maxDescribedTerms is how many of a group's terms a description names;
// it says how many more there are.
const maxDescribedTerms = 8

// describeGroup says in words what one group of a passage condition
// asks: its terms joined by " / ", the planner's terms for kinds of
// figures and sentences in words ("#level": "an amount stated as a level,
// not a change"), at most maxDescribedTerms of them.
func describeGroup(g []string) string {
	var out []string
	for i, t := range g {
		if i == maxDescribedTerms {
			out = append(out, fmt.Sprintf("… (%d more)", len(g)-i))
			break
		}
		out = append(out, describeTerm(t))
	}
	return strings.Join(out, " / ")
}

// describeTerm says a condition term in words: a word as it is, a term of
// the planner's (planner.FigureTerm and its kin) as what it matches.
func describeTerm(t string) string {
	switch {
	case t == "#figure":
		return "a figure"
	case t == "#amount":
		return "an amount"
	case t == "#expected":
		return "a figure stated as expected"
	case t == "#count":
		return "a count"
	case t == "#level":
		return "an amount stated as a level, not a change"
	case strings.HasPrefix(t, "#number:"):
		return "a number of " + strings.TrimPrefix(t, "#number:")
	case strings.HasPrefix(t, "#subject:"):
		return strings.TrimPrefix(t, "#subject:") + " as what is stated, not a reason"
	}
	return t
}

// DescribeCondition says in words what meets a completion condition.
func DescribeCondition(c contract.Condition) string {
	scope := strings.TrimSpace(c.Issuer + " " + c.Period)
	switch c.Kind {
	case contract.CondFact:
		s := "a tagged fact"
		if scope != "" {
			s += " for " + scope
		}
		if len(c.Concepts) > 0 {
			s += " (" + strings.Join(c.Concepts, " or ") + ")"
		}
		return s
	case contract.CondPassage:
		s := "a passage"
		if scope != "" {
			s += " from the " + scope + " filing"
		}
		if c.Topic != "" {
			s += " discussing " + c.Topic
		}
		if len(c.AllOf) > 0 {
			groups := make([]string, len(c.AllOf))
			for i, g := range c.AllOf {
				groups[i] = describeGroup(g)
			}
			s += ", with one sentence naming each of: " + strings.Join(groups, "; ")
		}
		return s
	case contract.CondCalculation:
		s := "a calculation from the supported facts of " + orNone(c.Of)
		switch {
		case c.Rate != "":
			s += " showing a change of about " + c.Rate + " (as a fraction), as the question says"
		case c.Sign > 0:
			s += " showing a rise, as the question says"
		case c.Sign < 0:
			s += " showing a fall, as the question says"
		}
		return s
	case contract.CondComparable:
		return "every issuer's requirement among " + orNone(c.Of) + " supported, with its period stated"
	case contract.CondPrinted:
		return "a line of the " + scope + " filing naming " + c.Topic + " and printing the result of " + orNone(c.Of)
	default:
		return fmt.Sprintf("a %q condition", c.Kind)
	}
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "(none)"
	}
	return strings.Join(ids, ", ")
}
