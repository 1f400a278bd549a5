package planner

import (
	"slices"
	"testing"
)

func TestLinked(t *testing.T) {
	capex := []string{"capital expenditures"}
	opInc := []string{"operating income"}
	tests := []struct {
		name     string
		sentence string
		groups   [][]string
		want     bool
	}{
		{"effect due to cause", "Operating income increased primarily due to lower capital expenditures.", [][]string{capex, opInc}, true},
		{"cause drove effect", "Lower capital expenditures drove the increase in operating income.", [][]string{capex, opInc}, true},
		{"cause only in an offsetting clause",
			"Increases in operating income primarily result from increases in sales of products and services, partially offset by investments we make, including capital expenditures focused on improving the customer experience.",
			[][]string{capex, opInc}, false},
		{"both named, neither causes the other",
			"Free cash flows are driven primarily by increasing operating income and efficiently managing accounts receivable, inventory, accounts payable, and cash capital expenditures.",
			[][]string{capex, opInc}, false},
		{"listed side by side", "Capital expenditures and operating income both increased in 2024.", [][]string{capex, opInc}, false},
		{"every cause word needed", "Operating margin increased due to growth in advertising revenue.", [][]string{{"advertising"}, {"tier"}, {"operating margin"}}, false},
		{"cause in the question's own words", "Operating margin increased due to growth of our advertising tier.", [][]string{{"advertising"}, {"tier"}, {"operating margin"}}, true},
		{"cause before the effect without a verb of causing", "Capital expenditures rose; operating income rose.", [][]string{capex, opInc}, false},
		{"one group", "Operating income increased due to sales.", [][]string{opInc}, false},
		{"a cause's plural in -ies", "Changes in foreign currencies relative to the U.S. dollar negatively impacted gross margin by approximately $176.", [][]string{{"foreign"}, {"currency"}, {"gross margin"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Linked(tc.sentence, tc.groups); got != tc.want {
				t.Errorf("Linked(%q) = %v; want %v", tc.sentence, got, tc.want)
			}
		})
	}
}

func TestRouteCausalOwnWords(t *testing.T) {
	cat := NewCatalog(nil)
	tests := []struct {
		question  string
		wantWords []string
		causal    bool
	}{
		{"Did the advertising tier cause operating margin to rise in 2024?", []string{"advertising", "tier"}, true},
		{"What drove the increase in operating margin in 2024?", nil, false},
		{"Why did gross margin increase in 2024?", nil, false},
	}
	for _, tc := range tests {
		rt := RouteQuestion(tc.question, cat, nil)
		if (rt.Causal != nil) != tc.causal {
			t.Fatalf("%q: causal = %+v; want causal %v", tc.question, rt.Causal, tc.causal)
		}
		if rt.Causal != nil && !equalStrings(rt.Causal.CauseWords, tc.wantWords) {
			t.Errorf("%q: cause words %q; want %q", tc.question, rt.Causal.CauseWords, tc.wantWords)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A cause named by one term of an aspect that gathers distinct causes is
// that cause: inflation is not a currency's move, though both are
// macroeconomic conditions.
func TestCausalCauseNarrowed(t *testing.T) {
	cat := NewCatalog(nil)
	for q, want := range map[string]string{
		"Did inflation hurt XMPL's gross margin in 2024?":      "inflation",
		"Did interest rates hurt XMPL's gross margin in 2024?": "interest rate",
	} {
		c := RouteQuestion(q, cat, nil).Causal
		if c == nil {
			t.Fatalf("%q: no causal reading", q)
		}
		if !slices.Contains(c.Cause, want) || slices.Contains(c.Cause, "foreign currenc") {
			t.Errorf("%q: cause terms %q, want %q's only", q, c.Cause, want)
		}
	}
}
