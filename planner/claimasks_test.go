package planner

import (
	"strings"
	"testing"
)

// A causal claim stated in a sentence of its own ("A newsletter says ...
// because ...") beside a sentence asking what the filing reports keeps
// what that sentence asks required; a question that asks only whether the
// cause drove the effect is answered by the link alone.
func TestAsksBesideClaim(t *testing.T) {
	for _, tt := range []struct {
		question string
		want     bool
	}{
		{"A newsletter says Apple's Products gross margin improved in the June 2025 quarter because suppliers absorbed the new tariffs. What does the 10-Q report for that percentage, and what reasons does it give?", true},
		{"A blog claims Intel's revenue grew because of PC demand. How much did revenue grow in 2020?", true},
		// A decimal ends no sentence.
		{"A post says Intel's revenue grew in 2020 because of PC demand. What made up the 8.2% growth, per the 10-K?", true},
		{"Did AI spending drive Microsoft's margin expansion in fiscal 2022?", false},
		{"AMZN posted a net loss in 2022 — that was driven by AWS turning unprofitable, right?", false},
		{"Meta's tax rate fell in 2024. Was that because of the OECD minimum tax?", false},
	} {
		if got := asksBesideClaim(tt.question); got != tt.want {
			t.Errorf("asksBesideClaim(%q) = %v, want %v", tt.question, got, tt.want)
		}
	}
}

// With a claim beside an asking sentence, the figures the plan gathers stay
// required: the answer is partial, not insufficient, when the claim's link
// is missing but the figure asked is found.
func TestClaimKeepsAskedFiguresRequired(t *testing.T) {
	cat := textFilingCatalog("Total revenue", "Operating income", "Research and development")
	g := planOver(t, cat, "A blog says SHTX's operating income rose in fiscal 2022 because of lower research and development spending. What operating income does the 10-K report for fiscal 2022?")
	var causal, required bool
	for _, r := range g.Requirements {
		causal = causal || strings.HasSuffix(r.ID, "-causal")
		if r.Kind == KindFigure && strings.Contains(strings.ToLower(r.Need), "operating income") {
			required = required || r.Required
		}
	}
	if !causal || !required {
		t.Errorf("causal link planned %v, operating income required %v\n%v", causal, required, g.Requirements)
	}
}
