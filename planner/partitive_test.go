package planner

import (
	"strings"
	"testing"
)

// A sentence opening "Of these," takes its subject from the one before:
// the pair meets a count narrowed to a region, the sentence before naming
// the people counted. A sentence that points back to nothing does not.
func TestPartitiveSentenceMatch(t *testing.T) {
	groups := [][]string{{"employee", "headcount", "workforce"}, {CountTerm}, {"united states and canada", "ucan"}}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"As of December 31, 2022, we had approximately 12,800 full-time employees located globally in 65 countries. Of these, approximately 9,000 (70%) were located in the United States and Canada, 2,000 (16%) in Europe.", true},
		{"As of December 31, 2022, we had approximately 12,800 full-time employees located globally in 65 countries. Separately, approximately 9,000 stores were located in the United States and Canada.", false},
	} {
		got, ok := SentenceMatch(tt.text, groups)
		if ok != tt.want || ok && !strings.Contains(got, "Of these") {
			t.Errorf("SentenceMatch(%q) = %q, %v; want %v", tt.text, got, ok, tt.want)
		}
	}
}

// "How many employees ..., and how many of them were in the United States
// and Canada?" asks the whole's count as well as the region's.
func TestWholeCountBesidePart(t *testing.T) {
	cat := textCatalog("n22", "NFLX", "Netflix, Inc.", 2022, "2022-12-31")
	cat.SetFigures("n22", partRows("2022-01-01", "2022-12-31",
		[3]string{"Revenues", "United States and Canada (UCAN)", "14084643000"},
		[3]string{"Revenues", "Latin America (LATAM)", "4069973000"},
		[3]string{"Revenues", "", "31615550000"},
	))
	for _, tt := range []struct {
		question string
		whole    bool
	}{
		{"How many full-time employees did Netflix have at the end of 2022, and roughly how many of them sat in the US and Canada?", true},
		{"How many Netflix employees were in the United States and Canada at the end of 2022?", false},
	} {
		g := planOver(t, cat, tt.question)
		whole, part := false, false
		for _, r := range g.Requirements {
			if !strings.Contains(strings.ToLower(r.Need), "employees") {
				continue
			}
			if strings.HasSuffix(r.ID, "-whole") {
				whole = true
			} else {
				part = true
			}
		}
		if whole != tt.whole || !part {
			t.Errorf("%q: whole's count %v (want %v), part's count %v\n%v", tt.question, whole, tt.whole, part, g.Requirements)
		}
	}
}
