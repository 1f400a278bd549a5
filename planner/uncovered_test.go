package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// An item of a question's list is covered by a requirement only when the
// requirement names the item's own words: "subscriptions revenue" beside
// "licenses revenue" is a figure of its own, though the licenses
// requirement names "revenue".
func TestUncoveredItemOwnWords(t *testing.T) {
	cat := textFilingCatalog("Licenses revenue", "Total revenues", "Operating income")
	g := planOver(t, cat, "What was SHTX's FY22 licenses revenue and subscriptions revenue?")
	var licenses, subscriptions bool
	for _, r := range g.Requirements {
		need := strings.ToLower(r.Need)
		licenses = licenses || strings.Contains(need, "licenses revenue")
		subscriptions = subscriptions || strings.Contains(need, "subscriptions")
	}
	if !licenses || !subscriptions {
		t.Errorf("requirements %v: want licenses revenue and subscriptions revenue each asked", g.Requirements)
	}
}

// A total asked beside a share ("total revenues and membership fees, and
// what share of revenue came from membership fees") leaves the share its
// part: the share is computed.
func TestShareBesideTotal(t *testing.T) {
	cat := textFilingCatalog("Net sales", "Membership fees", "Total revenue", "Operating income")
	g := planOver(t, cat, "SHTX FY22 total revenues and membership fees, and what share of revenue came from membership fees?")
	for _, n := range g.Nodes {
		if n.Tool == tools.Calculate && strings.Contains(string(n.Args), "Membership fees") && strings.Contains(string(n.Args), " / ") {
			return
		}
	}
	t.Errorf("no share of membership fees computed:\n%v\n%v", g.Requirements, g.Nodes)
}

// "What share of revenue were membership fees": the share's part follows
// a form of "be" without "from"; a verb there ("is expected to") names no
// part.
func TestShareAfterBe(t *testing.T) {
	cat := textFilingCatalog("Net sales", "Membership fees", "Total revenue", "Operating income")
	shareOf := func(q string) bool {
		for _, n := range planOver(t, cat, q).Nodes {
			if n.Tool == tools.Calculate && strings.Contains(string(n.Args), "Membership fees") && strings.Contains(string(n.Args), " / ") {
				return true
			}
		}
		return false
	}
	if !shareOf("What share of SHTX's FY22 revenue were membership fees?") {
		t.Error("no share of membership fees computed")
	}
	for _, tt := range []struct {
		w    string
		verb bool
	}{
		{"expected", true}, {"growing", true}, {"declined", true},
		{"advertising", false}, {"licensing", false}, {"membership", false},
	} {
		if got := verbForm(tt.w); got != tt.verb {
			t.Errorf("verbForm(%q) = %v, want %v", tt.w, got, tt.verb)
		}
	}
}

func TestExcludedClause(t *testing.T) {
	tests := map[string]string{
		"comparable sales growth excluding gas":                    "gas",
		"comps ex-fuel":                                            "fuel",
		"net sales exclusive of currency":                          "currency",
		"revenue excl. acquisitions":                               "acquisitions",
		"sales excluding the impact of changes in gasoline prices": "gasoline",
		"revenue net of returns":                                   "returns",
		"total revenue, and the exchange rate":                     "",
	}
	for q, want := range tests {
		got := ""
		if m := excludedClause.FindStringSubmatch(q); m != nil {
			got = strings.ToLower(m[1])
		}
		if got != want {
			t.Errorf("%q excludes %q, want %q", q, got, want)
		}
	}
}

// A figure asked without something ("excluding gas") is stated by a
// sentence that says what it excludes, not by one stating the figure with
// it in.
func TestExcludedFromStatedFigure(t *testing.T) {
	cat := textFilingCatalog("Net sales", "Total revenue")
	g := planOver(t, cat, "What was SHTX's comparable sales growth in fiscal 2022 excluding gas?")
	for _, r := range g.Requirements {
		if r.Completion.Kind != CondPassage {
			continue
		}
		s := "Comparable sales increased 14% during 2022."
		if _, ok := SentenceMatch(s, r.Completion.AllOf); ok {
			t.Errorf("%s is met by %q, which excludes nothing", r.ID, s)
		}
		s = "Comparable sales excluding the impact of gas prices increased 11% during 2022."
		if _, ok := SentenceMatch(s, r.Completion.AllOf); !ok {
			t.Errorf("%s is not met by %q (groups %v)", r.ID, s, r.Completion.AllOf)
		}
		return
	}
	t.Fatalf("no stated requirement: %v", g.Requirements)
}

// "How much senior notes face value was outstanding": a clause asking how
// much of a thing there was, the thing the subject of "was", asks that
// thing as an item of its own; a topic's passage on debt does not answer
// it. "How much higher was that" asks a difference, no thing.
func TestHowMuchSubjectClause(t *testing.T) {
	tests := []struct {
		clause, want string
	}{
		{"how much senior notes face value was outstanding", "senior notes face value"},
		{"and how much deferred revenue was recognized", "deferred revenue"},
		{"how much higher was that than in 2023?", ""},
		{"how much cash did Netflix pay for content assets in 2024", ""},
		{"how much of the debt comes due within a year", ""},
	}
	for _, tt := range tests {
		if got := clauseItem(tt.clause); got != tt.want {
			t.Errorf("clauseItem(%q) = %q, want %q", tt.clause, got, tt.want)
		}
	}
	cat := textFilingCatalog("Total revenues", "Long-term debt", "Operating income")
	g := planOver(t, cat, "Credit check on SHTX at FY22 year-end: how much senior notes face value was outstanding, and is the company in compliance with its covenants?")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(strings.ToLower(r.Need), "senior notes") }) {
		t.Errorf("requirements %v: want the senior notes asked as an item", g.Requirements)
	}
}

// "What was the total loss on equity investments and warrant": the clause
// names, to its end, a row the filing prints ("Total gain (loss) on equity
// investments and warrant, net"), which is asked, not only the words
// before its first preposition.
func TestClauseNamesARow(t *testing.T) {
	cat := textFilingCatalog("Net income (loss)", "Unrealized change in fair value of equity investment in Rivet",
		"Total gain (loss) on equity investments and warrant, net", "Operating income")
	g := planOver(t, cat, "SHTX 2022: what was the total loss on equity investments and warrant, and what was the net loss?")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return slices.ContainsFunc(r.Completion.Concepts, func(c string) bool { return strings.Contains(c, "equity investments and warrant") })
	}) {
		t.Errorf("requirements %v: want the row of the total loss on equity investments and warrant asked", g.Requirements)
	}
}

// An item of the question's list that is a word of the row label printed
// for a figure planned already ("property, equipment and intangibles" of
// "Purchases of property and equipment and intangible assets") is that
// figure, not one of its own.
func TestItemOfPlannedRow(t *testing.T) {
	cat := textFilingCatalog("Total revenues", "Purchases of property and equipment and intangible assets", "Intangible assets, net", "Operating income")
	g := planOver(t, cat, "What were SHTX's FY22 capex, i.e. what it spent on property, equipment and intangibles?")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "figure-capex") }) {
		t.Fatalf("requirements %v: want the capital expenditures", reqIDs(g))
	}
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "intangible") }) {
		t.Errorf("requirements %v: the intangibles are a word of the capital expenditures row, no figure of their own", reqIDs(g))
	}
}

// A bid lists its items with commas ("Give me the global net adds,
// year-end paid memberships, and ..."): each is an asked item, its period
// words ("year-end") saying when, not what.
func TestBidListedWithCommas(t *testing.T) {
	cat := textFilingCatalog("Total revenues", "Paid memberships at end of period", "Operating income")
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "s22", Issuer: "SHTX", Text: "We had 230 million paid memberships globally. Net adds slowed. Churn was low."}}))
	g := planOver(t, cat, "Everyone says SHTX lost members in 2022. Did it? Give me the global net adds, year-end paid memberships, and the churn.")
	for _, want := range []string{"global net adds", "paid memberships"} {
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(strings.ToLower(r.Need), want) }) {
			t.Errorf("requirements %v: want %q asked", reqIDs(g), want)
		}
	}
}
