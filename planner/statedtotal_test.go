package planner

import (
	"slices"
	"strings"
	"testing"
)

// A tax table's rows ("Current", "Deferred" under "Federal:", "State:")
// are read as parts; "deferred revenue" in a question is the filing's row
// so labelled, not the revenue of a part "Deferred". "Services revenue",
// which no row is labelled, still asks the part's revenue.
func TestOneWordPartBeforeOwnRow(t *testing.T) {
	cat := textCatalog("a22", "AAPL", "Apple Inc.", 2022, "2022-09-24")
	cat.SetFigures("a22", partRows("2021-09-26", "2022-09-24",
		[3]string{"Federal", "Current", "7890000000"},
		[3]string{"Federal", "Deferred", "-2265000000"},
		[3]string{"State", "Current", "1519000000"},
		[3]string{"State", "Deferred", "84000000"},
		[3]string{"Net sales", "Services", "78129000000"},
		[3]string{"Net sales", "Products", "316199000000"},
		[3]string{"Deferred revenue", "", "7912000000"},
	))
	tests := []struct {
		question string
		part     string // the part read, "" for none
	}{
		{"How much deferred revenue did Apple carry at the end of fiscal 2022?", ""},
		{"What was Apple's Services revenue in fiscal 2022?", "Services"},
		// Named alone as well as before the row's words: the part is named.
		{"What was Apple's deferred revenue in fiscal 2022, and how did Deferred taxes move?", "Deferred"},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range cat.SegmentsIn(tt.question, "AAPL") {
			got = append(got, s.Name)
		}
		if tt.part == "" && len(got) > 0 || tt.part != "" && !strings.Contains(strings.Join(got, "|"), tt.part) {
			t.Errorf("SegmentsIn(%q) = %v, want part %q", tt.question, got, tt.part)
		}
	}
}

// A filing whose sentences state a figure's total ("total deferred revenue
// of $12.8 billion") where its row prints a part of it (the balance
// sheet's current "Deferred revenue") answers "total deferred revenue"
// from the sentence, not the row.
func TestStatedTotalOverRow(t *testing.T) {
	cat := textCatalog("a22", "AAPL", "Apple Inc.", 2022, "2022-09-24")
	cat.SetFigures("a22", partRows("2021-09-26", "2022-09-24",
		[3]string{"Deferred revenue", "", "7912000000"},
		[3]string{"Total net sales", "", "394328000000"},
	))
	text := "Deferred revenue 7,912 7,612\nAs of September 24, 2022 and September 25, 2021, the Company had total deferred revenue of $12.4 billion and $11.9 billion, respectively.\n"
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "a22", Issuer: "AAPL", Text: text}}))
	for _, tt := range []struct {
		question string
		row      bool // the row is looked up
	}{
		{"How much total deferred revenue did Apple carry at the end of fiscal 2022?", false},
		{"How much deferred revenue did Apple carry at the end of fiscal 2022?", true},
	} {
		g := planOver(t, cat, tt.question)
		var row, stated bool
		for _, n := range g.Nodes {
			row = row || strings.Contains(string(n.Args), "table:") && strings.Contains(strings.ToLower(string(n.Args)), "deferred")
		}
		for _, r := range g.Requirements {
			stated = stated || strings.Contains(strings.ToLower(r.Completion.Topic), "total deferred revenue")
		}
		if row != tt.row || stated == tt.row {
			t.Errorf("%q: row looked up %v, total from a sentence %v; want row %v\n%v\n%v", tt.question, row, stated, tt.row, g.Requirements, g.Nodes)
		}
	}
}

func TestStatedTotals(t *testing.T) {
	text := "the Company had total deferred revenue of $12.4 billion. Total unrecognized compensation cost was $1.2 billion. Total net sales 394,328"
	got := strings.Join(statedTotals(text), "|")
	if got != "deferred revenue|unrecognized compensation cost" {
		t.Errorf("statedTotals = %q", got)
	}
}

// A part's name is named with a run of its capitalised words written as
// their initials ("US & Canada", "us and canada" for "United States and
// Canada (UCAN)"); words that are not the name's do not name it.
func TestNamesPartByInitials(t *testing.T) {
	for _, tt := range []struct {
		question, name string
		want           bool
	}{
		{"what percentage of streaming revenue came from the US & Canada region?", "United States and Canada (UCAN)", true},
		{"how much revenue did netflix get from its us and canada region in 2022?", "United States And Canada", true},
		{"how much revenue did netflix get from the United States and Canada?", "United States and Canada (UCAN)", true},
		{"what did it tell us about Canada?", "United States and Canada (UCAN)", false},
		{"Latin America revenue in 2022?", "Europe, Middle East, and Africa (EMEA)", false},
	} {
		if got := namesPart(wordsOf(tt.question), tt.name); got != tt.want {
			t.Errorf("namesPart(%q, %q) = %v, want %v", tt.question, tt.name, got, tt.want)
		}
	}
}

// Initials standing for a whole name ("FoA" for "Family Of Apps") are not
// this rule's: the name is named by its abbreviation where the filing
// defines it.
func TestNamesPartInitialsNotWhole(t *testing.T) {
	if namesPart(wordsOf("Meta FoA revenue 2024"), "Family Of Apps") {
		t.Error(`namesPart("Meta FoA revenue 2024", "Family Of Apps") = true, want false`)
	}
}

// A part whose own figures are the figure asked ("Streaming" and its
// revenues) stays the part, though a row is labelled with its name and the
// figure's word ("Streaming revenues").
func TestPartReportingFigureBeforeOwnRow(t *testing.T) {
	cat := textCatalog("n22", "NFLX", "Netflix, Inc.", 2022, "2022-12-31")
	cat.SetFigures("n22", partRows("2022-01-01", "2022-12-31",
		[3]string{"Revenues", "Streaming", "31469852000"},
		[3]string{"Revenues", "DVD", "145698000"},
		[3]string{"Streaming revenues", "", "31469852000"},
	))
	var got []string
	for _, s := range cat.SegmentsIn("What was Netflix's streaming revenue in 2022?", "NFLX") {
		got = append(got, s.Name)
	}
	if !slices.Contains(got, "Streaming") {
		t.Errorf("SegmentsIn = %v, want the part Streaming", got)
	}
}
