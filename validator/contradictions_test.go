package validator

import (
	"strings"
	"testing"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

func TestDetectContradictions(t *testing.T) {
	const concept = "us-gaap:Revenues"
	base := newEvidence("docA", 100, ledger.KindFact, "AAPL", "FY2024", "391,035")
	baseFact := newFact(base, concept, "391035000000", aaplPeriod)
	tests := []struct {
		name   string
		doc    string
		ticker string
		value  string
		period string
		want   int
	}{
		{"beyond tolerance in another document", "docB", "AAPL", "401000000000", aaplPeriod, 1},
		{"within 0.5% is corroboration", "docB", "AAPL", "392000000000", aaplPeriod, 0},
		{"equal values agree", "docB", "AAPL", "391035000000", aaplPeriod, 0},
		{"same document never contradicts itself", "docA", "AAPL", "401000000000", aaplPeriod, 0},
		{"another period is another figure", "docB", "AAPL", "383285000000", "2022-09-25/2023-09-30", 0},
		{"another issuer is another figure", "docB", "MSFT", "401000000000", aaplPeriod, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := newEvidence(tc.doc, 900, ledger.KindFact, tc.ticker, "FY2025", "401,000")
			l := &ledger.RunLedger{
				Evidence: []ledger.Evidence{base, other},
				Facts:    []ledger.Fact{baseFact, newFact(other, concept, tc.value, tc.period)},
			}
			got := DetectContradictions(nil, l)
			if len(got) != tc.want {
				t.Fatalf("got %d contradictions, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			c := got[0]
			if c.RequirementID != "figures" || len(c.EvidenceIDs) != 2 {
				t.Errorf("contradiction = %+v", c)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("contradiction does not validate: %v", err)
			}
			want := "AAPL us-gaap:Revenues " + aaplPeriod + ": 391035000000 in " + base.ID + " vs 401000000000 in " + other.ID
			if c.Difference != want {
				t.Errorf("difference = %q\nwant %q", c.Difference, want)
			}
		})
	}
}

func TestDetectContradictionsSmallValues(t *testing.T) {
	// 0.5% of 100 is 0.5, but a difference of one unit or less is rounding.
	a := newEvidence("docA", 1, ledger.KindFact, "AAPL", "FY2024", "100")
	b := newEvidence("docB", 1, ledger.KindFact, "AAPL", "FY2024", "101")
	c := newEvidence("docC", 1, ledger.KindFact, "AAPL", "FY2024", "103")
	l := &ledger.RunLedger{
		Evidence: []ledger.Evidence{a, b, c},
		Facts: []ledger.Fact{
			newFact(a, "us-gaap:EarningsPerShareBasic", "100", "p"),
			newFact(b, "us-gaap:EarningsPerShareBasic", "101", "p"),
			newFact(c, "us-gaap:EarningsPerShareBasic", "103", "p"),
		},
	}
	got := DetectContradictions(nil, l)
	if len(got) != 2 { // a-c and b-c; a-b agree
		t.Fatalf("got %+v, want two", got)
	}
	for _, x := range got {
		if !strings.Contains(x.Difference, "103") {
			t.Errorf("unexpected contradiction %+v", x)
		}
	}
}

func TestDetectContradictionsRequirement(t *testing.T) {
	f := setup(t)
	// A later filing restating the FY2024 figure as its prior year.
	later := newEvidence("docNew", 50, ledger.KindFact, "AAPL", "FY2025", "380,000")
	l := &ledger.RunLedger{
		Evidence: []ledger.Evidence{f.rev, later},
		Facts:    []ledger.Fact{f.revFact, newFact(later, f.revFact.Concept, "380000000000", aaplPeriod)},
	}
	rev2025 := contract.Requirement{ID: "aapl-revenue-2025", Issuer: "AAPL", Period: "FY2025", Kind: contract.KindFigure, Required: true,
		Completion: contract.Condition{Kind: contract.CondFact, Issuer: "AAPL", Period: "FY2025", Concepts: []string{"RevenueFromContractWithCustomerExcludingAssessedTax"}}}
	tests := []struct {
		name   string
		reqs   []contract.Requirement
		linked string
		want   string
	}{
		{"fact requirement for the concept", f.reqs, "", "aapl-revenue"},
		{"the earliest evidence period decides between two", append([]contract.Requirement{rev2025}, f.reqs...), "", "aapl-revenue"},
		{"ledger link decides first", append([]contract.Requirement{rev2025}, f.reqs...), "aapl-revenue-2025", "aapl-revenue-2025"},
		{"else the issuer's first requirement", f.reqs[2:], "", "aapl-drivers"},
		{"else figures", nil, "", "figures"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ll := *l
			if tc.linked != "" {
				ll.Requirements = []ledger.Requirement{{ID: tc.linked, Evidence: []string{f.rev.ID}}}
			}
			got := DetectContradictions(tc.reqs, &ll)
			if len(got) != 1 || got[0].RequirementID != tc.want {
				t.Fatalf("got %+v, want one on %s", got, tc.want)
			}
		})
	}
}
