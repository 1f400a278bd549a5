package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// TestUnmentionedNames: a name the question writes with a capital that no
// filing of the corpus holds is an asked item of its own, required and
// reported as a gap that says the corpus does not mention it; names the
// filings hold, issuers, months written short and a question's first word
// are not.
func TestUnmentionedNames(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "a22", Issuer: "AAPL", Text: "Greater China net sales increased due to higher iPhone sales. Apple competes in Greater China."},
		{ID: "c22", Issuer: "COST", Text: "Costco operates warehouses in Japan."},
	}))
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"How much of Apple's Greater China growth in fiscal 2022 came from Huawei losing share?", []string{"Huawei"}},
		{"Did Apple's Greater China sales in fiscal 2022 (Sept year) rise because of iPhone demand?", nil},
		{"Huawei: how did it affect Apple's Greater China sales in fiscal 2022?", nil},
		{"Did Costco open warehouses in Japan in fiscal 2022?", nil},
	} {
		_, g := planFor(t, cat, tt.q, 0)
		var got []string
		for _, r := range g.Requirements {
			if strings.Contains(r.ID, "-named-") && r.Required && strings.Contains(r.Need, "no filing in the corpus mentions") {
				got = append(got, r.Completion.Topic)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: unmentioned names %q, want %q", tt.q, got, tt.want)
		}
	}
	for w, want := range map[string]bool{"Huawei": true, "GMV": false, "iPhone": false, "US": false, "Ab": false, "Nadella": true} {
		if got := titleCase(w); got != want {
			t.Errorf("titleCase(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestQuarterWithoutItsReport: a quarter asked where the corpus holds the
// year's annual report alone is a gap, looked for in quarterly reports
// only, never the year's figure in its place; a quarterly figure of the
// year ("quarterly dividends") is read from the annual report.
// TestUnmentionedOwner: what a question asks of a name no filing mentions
// ("Jensen Huang's total compensation") is that name's; the issuer's
// figures of the same words are not planned in its place. Another owner
// set beside it keeps its figures.
func TestUnmentionedOwner(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "a22", Issuer: "AAPL", Text: "Net sales increased due to higher iPhone sales. Tim Cook is our chief executive."},
	}))
	for _, tt := range []struct {
		q       string
		figures bool
	}{
		{"What was Jensen Huang's total compensation for Apple's fiscal 2022, salary plus revenue share?", false},
		{"What was Apple's revenue in fiscal 2022, and what did Jensen Huang say?", true},
		{"Compare Jensen Huang's pay with Apple's revenue in fiscal 2022", true},
		{"What was Tim Cook's pay against Apple's revenue in fiscal 2022?", true},
	} {
		_, g := planFor(t, cat, tt.q, 0)
		got := slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return !strings.Contains(r.ID, "-named-") })
		if got != tt.figures {
			t.Errorf("%q: figures planned %v, want %v (%v)", tt.q, got, tt.figures, g.Requirements)
		}
	}
}

func TestQuarterWithoutItsReport(t *testing.T) {
	cat := smallCatalog()
	_, g := planFor(t, cat, "What was Meta's Q3 2024 revenue?", 0)
	for _, r := range g.Requirements {
		if r.Completion.Kind == CondFact {
			t.Errorf("requirement %s looks up a figure of the annual report: %v", r.ID, r.Completion.Concepts)
		}
	}
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.Need, "no 10-Q of that year") }) {
		t.Errorf("requirements %v: no gap for the quarter", g.Requirements)
	}
	for _, n := range g.Nodes {
		var a tools.SearchArgs
		if n.Tool != tools.SearchFilings {
			continue
		}
		if err := json.Unmarshal(n.Args, &a); err != nil || a.Form != "10-Q" {
			t.Errorf("node %s searches form %q (%v); want 10-Q only", n.ID, a.Form, err)
		}
	}
	_, g = planFor(t, cat, "How much did Meta pay in quarterly dividends in 2024?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.Need, "no 10-Q of that year") }) {
		t.Errorf("quarterly dividends of a year: requirements %v; want the annual report read", g.Requirements)
	}
}

// TestPartOfARatio: a ratio narrowed to a part ("Costco's e-commerce
// operating margin") is the part's, stated or a gap, never the company's
// computed one; a word every filing uses ("positive") narrows nothing.
func TestPartOfARatio(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("c22", tableRows("2021-08-30", "2022-08-28", row{"Operating income", 7_793}, row{"Total revenue", 226_954}))
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "c22", Issuer: "COST", Text: "Our e-commerce sales grew. Results were positive and healthy."},
		{ID: "a22", Issuer: "AAPL", Text: "Results were positive and healthy."},
		{ID: "z24", Issuer: "AMZN", Text: "Results were positive and healthy."},
	}))
	for _, tt := range []struct {
		q          string
		calculated bool // the company's margin computed
	}{
		{"Costco's e-commerce operating margin in fiscal 2022?", false},
		{"Did Costco have a positive operating margin in fiscal 2022?", true},
		{"What was Costco's healthy operating margin in fiscal 2022?", true},
	} {
		_, g := planFor(t, cat, tt.q, 0)
		calc := slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindCalculation })
		part := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Required && r.Completion.Kind == CondPassage && strings.Contains(r.Completion.Topic, "e-commerce operating margin")
		})
		if calc != tt.calculated || part == tt.calculated {
			t.Errorf("%q: company's margin computed %v, part asked %v; want computed %v", tt.q, calc, part, tt.calculated)
		}
	}
}
