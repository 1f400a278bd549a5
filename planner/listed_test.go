package planner

import (
	"slices"
	"strings"
	"testing"
)

// TestListedSegments: parts a question lists are each asked on its own;
// one part narrowed by another is one part of a part; parts named apart
// are neither.
func TestListedSegments(t *testing.T) {
	t.Parallel()
	segs := []Segment{{Name: "Mac"}, {Name: "Europe"}}
	figure := []string{"net", "sales", "revenue"}
	for _, tt := range []struct {
		q              string
		listed, nested bool
	}{
		{"What were Apple's Mac and Europe net sales in fiscal 2022?", true, false},
		{"Mac, Europe: net sales in fiscal 2022", true, false},
		{"What was Apple's Mac revenue in Europe in fiscal 2022?", false, true},
		{"Europe's Mac net sales in fiscal 2022?", false, true},
		{"Mac net sales for fiscal 2022, and what did management say about Europe?", false, false},
		{"What were Apple's Mac net sales in fiscal 2022?", false, false},
		// the figure's name repeated after each part
		{"Apple FY22 Mac net sales and Europe net sales?", true, false},
		{"Mac net sales vs Europe net sales, fiscal 2022", true, false},
		{"Mac gross margin % vs Europe gross margin %", true, false},
		{"Mac net sales in 2022 and Europe?", false, false},
	} {
		listed := len(listedSegments(tt.q, segs)) == 2
		nested := partOfPart(tt.q, segs, figure)
		if listed != tt.listed || nested != tt.nested {
			t.Errorf("%q: listed %v, part of a part %v; want %v, %v", tt.q, listed, nested, tt.listed, tt.nested)
		}
	}
}

// TestListedByInitials: a part written by its initials ("AWS") is found
// in the list as by its name.
func TestListedByInitials(t *testing.T) {
	t.Parallel()
	segs := []Segment{{Name: "Amazon Web Services"}, {Name: "North America"}}
	if got := listedSegments("Compare Amazon's AWS and North America operating income in 2024", segs); len(got) != 2 {
		t.Errorf("listedSegments = %v; want each part alone", got)
	}
}

// TestTopicGroupsLeaveVerbs: the question's topic is named by its rarest
// words that are not the verbs it asks with ("rise", "drove").
func TestTopicGroupsLeaveVerbs(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "c22", Issuer: "COST", Text: "Membership fee income increased. Fees were paid."},
		{ID: "a22", Issuer: "AAPL", Text: "Membership income fees."},
		{ID: "z24", Issuer: "AMZN", Text: "Fee income membership grew."},
	}))
	b := &builder{cat: cat}
	for _, words := range [][]string{{"membership", "fee", "income", "rise", "drove"}, {"membership", "weakened", "fee"}, {"strengthened", "membership", "fee"}} {
		got := b.topicGroups(words)
		for _, g := range got {
			if g[0] == "rise" || g[0] == "drove" || g[0] == "weakened" || g[0] == "strengthened" {
				t.Errorf("topicGroups(%v) = %v; a verb of the question names no topic", words, got)
			}
		}
	}
}

// TestMeasureBeyondTopic: a ratio asked within a topic the catalogue has
// no figure for ("the debt-to-equity ratio", "dividends per share") must
// be named by the sentence that states it; a count of the topic itself
// ("how many employees") needs no more words.
func TestMeasureBeyondTopic(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q, want string
	}{
		{"What was TXTF's debt-to-equity ratio at the end of fiscal 2022?", "ratio"},
		{"How much were TXTF's dividends per share in fiscal 2022?", "per share"},
		{"How many employees did TXTF have at the end of fiscal 2022?", ""},
	} {
		g := planOf(t, tt.q, "TXTF")
		got := ""
		for _, r := range g.Requirements {
			for _, grp := range r.Completion.AllOf {
				if slices.Contains(grp, "ratio") || slices.Contains(grp, "per share") {
					got = grp[0]
				}
			}
		}
		if got != tt.want {
			t.Errorf("%q: measure named %q, want %q: %v", tt.q, got, tt.want, g.Requirements)
		}
	}
}

// TestNamedRatioAsked: a ratio the question names beside figures the plan
// gathers ("inventory turnover") is asked as itself, stated or a gap.
func TestNamedRatioAsked(t *testing.T) {
	t.Parallel()
	g := planOf(t, "How did TXTF's inventory turnover compare with the year before in fiscal 2022?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Required && r.Completion.Topic == "inventory turnover"
	}) {
		t.Errorf("requirements %v: the inventory turnover is not asked", reqIDs(g))
	}
}

// TestStemWordsPlurals: a label's plural reads as its singular, "-ies"
// as "-y".
func TestStemWordsPlurals(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"Inventories": "inventory", "Total revenues": "total revenue", "Gross margin": "gross margin", "Loss": "loss"} {
		if got := stemWords(in); got != want {
			t.Errorf("stemWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchWordsKeepTheLastClause: a long question's search keeps its
// rarest words, wherever they stand, and leaves out the verbs of how a
// figure moved.
func TestSearchWordsKeepTheLastClause(t *testing.T) {
	cat := smallCatalog()
	var docs []StatsDoc
	for i, issuer := range []string{"AAA", "BBB", "CCC", "DDD"} {
		text := "Cloud services and license support expenses rose. Management reviews support."
		if i == 0 {
			text += " We expect datacenter growth in fiscal 2024."
		}
		docs = append(docs, StatsDoc{ID: issuer, Issuer: issuer, Text: text})
	}
	cat.SetTextStats(NewTextStats(docs))
	q := "Cloud services and license support expenses jumped in FY2023. Does management expect datacenter expense growth to continue into FY2024?"
	b := &builder{cat: cat, question: q}
	got := b.searchWords()
	if !slices.Contains(got, "datacenter") || slices.Contains(got, "jumped") || len(got) > questionWordCap {
		t.Errorf("searchWords = %v; want at most %d words, the rare one of the last clause among them, no verb of change", got, questionWordCap)
	}
	b = &builder{cat: cat, question: "Why did cloud expenses jump?"}
	if got := b.searchWords(); !slices.Equal(got, []string{"cloud", "expenses"}) {
		t.Errorf("searchWords = %v; want the words of what moved, in order", got)
	}
}

// TestPhraseFigureListsItems: a figure question listing figures no row of
// the filing names whole plans each item on its own ("paid members and
// renewal rate"), not one figure of all their words; a row named with
// "and" ("research and development expense") stays one.
func TestPhraseFigureListsItems(t *testing.T) {
	t.Parallel()
	topics := func(g *Graph) []string {
		var out []string
		for _, r := range g.Requirements {
			if r.Kind == KindFigure {
				out = append(out, strings.ToLower(r.Completion.Topic))
			}
		}
		return out
	}
	g := planOf(t, "Text Filer FY22 paid members and renewal rate?", "TXTF")
	got := topics(g)
	if !slices.Contains(got, "paid members") || !slices.Contains(got, "renewal rate") {
		t.Errorf("figures %q; want paid members and renewal rate, each on its own", got)
	}
	g = planOf(t, "Text Filer FY22 paid members and interest expense?", "TXTF")
	if got := topics(g); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "members") && strings.Contains(s, "interest") }) {
		t.Errorf("figures %q; want the items apart", got)
	}
}
