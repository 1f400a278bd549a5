package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// A claim someone else made, reported in a sentence of its own beside a
// question of what the filing shows, is checked, not the asker's premise.
func TestChecksReportedClaim(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"A commentator says Meta's tax rate fell in 2024 because of the new OECD global minimum tax. What was Meta's 2024 effective tax rate, and what does the 10-K say drove the decrease?": true,
		"A post on a forum says Intel's revenue shrank about 5% in 2020. Is that what the 10-K shows? What was full-year revenue?":                                                            true,
		// the asker's own claim
		"Meta's tax rate fell in 2024 because of the OECD minimum tax. What does the 10-K say drove the decrease?": false,
		// a claim asked of, nothing else
		"A newsletter says Apple's margin improved because of tariffs. Is that right?": false,
	} {
		if got := checksReportedClaim(q); got != want {
			t.Errorf("checksReportedClaim(%q) = %v, want %v", q, got, want)
		}
	}
}

// A reported claim's link, asserted move and the topics only it names do
// not decide the run; what the filing says drove the figure does.
func TestReportedClaimTopics(t *testing.T) {
	t.Parallel()
	g := &Graph{Requirements: []Requirement{
		{ID: "META-FY2024-margins-explanation", Aspect: "margins", Kind: KindExplanation, Required: true},
		{ID: "META-FY2024-regulation-explanation", Aspect: "regulation", Kind: KindExplanation, Required: true},
	}}
	reportedClaim(g, "A commentator says Meta's margins fell because of the new tariffs. What were Meta's margins, and what drove them?")
	if !g.Requirements[0].Required || g.Requirements[1].Required {
		t.Errorf("required %v, %v; want the margins' account required and the tariffs' not", g.Requirements[0].Required, g.Requirements[1].Required)
	}
}

// A reported claim's link and asserted move do not decide the run; what
// the filing says drove the figure does.
func TestReportedClaimRequirements(t *testing.T) {
	t.Parallel()
	g := &Graph{Requirements: []Requirement{
		{ID: "META-FY2024-causal", Required: true},
		{ID: "META-FY2024-causal-context", Required: false},
		{ID: "META-FY2024-figure-change", Required: true, Completion: Condition{Sign: -1}},
		{ID: "META-FY2024-figure-rate", Required: true},
	}}
	reportedClaim(g, "A commentator says Meta's tax rate fell because of the OECD minimum tax. What was Meta's effective tax rate?")
	want := map[string]bool{"META-FY2024-causal": false, "META-FY2024-causal-context": true, "META-FY2024-figure-change": false, "META-FY2024-figure-rate": true}
	for _, r := range g.Requirements {
		if r.Required != want[r.ID] {
			t.Errorf("%s: required %v, want %v", r.ID, r.Required, want[r.ID])
		}
	}
}

// A cause and an effect named by figures, not aspects ("the net loss was
// due to AWS swinging to an operating loss"), are searched for by their
// terms: no search of the plan is left without words.
func TestCausalSearchOfFigures(t *testing.T) {
	cat := sampleCatalog(t)
	g := planOver(t, cat, "Amazon's 2022 net loss was due to AWS swinging to an operating loss. How big was that AWS loss?")
	causal := false
	for _, r := range g.Requirements {
		causal = causal || strings.HasSuffix(r.ID, "-causal")
	}
	if !causal {
		t.Fatalf("requirements %v: want the causal link planned", reqIDs(g))
	}
	for _, n := range g.Nodes {
		if n.Tool != tools.SearchFilings {
			continue
		}
		var args struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(n.Args, &args); err != nil || strings.TrimSpace(args.Query) == "" {
			t.Errorf("node %s searches for %q (%v)", n.ID, args.Query, err)
		}
	}
}

// A cause the question asks about ("was that because ...") is a claimed
// cause; the asker's own reason for asking is not.
func TestWasThatBecause(t *testing.T) {
	cat := sampleCatalog(t)
	for q, want := range map[string]bool{
		"Oracle's buybacks collapsed in fiscal 2023 - was that because it needed the cash to pay for Cerner?": true,
		"What were Oracle's buybacks in fiscal 2023? I ask because I am updating a model.":                    false,
	} {
		if got := RouteQuestion(q, cat, nil).Causal != nil; got != want {
			t.Errorf("%q: causal %v, want %v", q, got, want)
		}
	}
}
