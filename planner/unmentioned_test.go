package planner

import (
	"slices"
	"strings"
	"testing"
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
