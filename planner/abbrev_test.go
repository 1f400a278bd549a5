package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"

	"github.com/ledgerline/research/tools"
)

func TestDefinedAbbreviations(t *testing.T) {
	text := "We pay our traffic acquisition costs (TAC) to partners. Asia-Pacific (APAC) grew.\n" +
		"Our remaining performance obligations (RPO) rose. Revenues (in millions) were flat.\n" +
		"See Note 2 (Revenues). The company (AAPL) is not a definition. Net sales (NS) fell (see below).\n" +
		"Research and development (R&D) expense rose. Earnings per share (EPS) were higher. (TAC) again.\n" +
		"Average monthly revenue per paying membership (“ARM”) rose, as did standalone selling prices (\"SSPs\"). The (“Company”) is none.\n"
	got := definedAbbreviations(text)
	want := []abbreviation{{"TAC", "traffic acquisition costs"}, {"APAC", "asia-pacific"}, {"RPO", "remaining performance obligations"},
		{"NS", "net sales"}, {"R&D", "research and development"}, {"EPS", "earnings per share"},
		{"ARM", "average monthly revenue per paying membership"}, {"SSPs", "standalone selling prices"}}
	if !slices.Equal(got, want) {
		t.Errorf("definedAbbreviations = %q, want %q", got, want)
	}
}

// A short form the issuer's own filing defines is the issuer's term, not
// another issuer's ticker: "Alphabet's TAC rate" is not TransAlta (TAC).
func TestDefinedAbbreviationIsNoIssuer(t *testing.T) {
	q := "Alphabet's TAC rate declined in 2024 - from what to what, and why?"
	cat := smallCatalog()
	rt := RouteQuestion(q, cat, nil)
	if !slices.Contains(rt.NotCovered, "TAC (TRANSALTA CORP)") {
		t.Skipf("the SEC list here does not read TAC as an issuer: %+v", rt.NotCovered)
	}
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "GOOGL", Text: "Our traffic acquisition costs (TAC) and the associated TAC rate will fluctuate."},
		{Issuer: "META", Text: "Our costs grew."},
	}))
	rt, g := planFor(t, cat, q, 0)
	if len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"GOOGL"}) {
		t.Errorf("issuers %v, not covered %v; want GOOGL alone", rt.Issuers, rt.NotCovered)
	}
	// The explanation asked is of the question's own topic, with a reason.
	r, ok := reqByID(g, "GOOGL-FY2024-general-explanation")
	if !ok || !slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, "tac") }) ||
		!slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Equal(grp, DriverWords) }) {
		t.Errorf("requirement %+v; want a sentence naming TAC with a reason", r)
	}
	// Defined by another issuer's filing only, the short form is still
	// that issuer's.
	cat.SetTextStats(NewTextStats([]StatsDoc{{Issuer: "META", Text: "Our traffic acquisition costs (TAC) rose."}, {Issuer: "GOOGL", Text: "Costs."}}))
	if rt := RouteQuestion(q, cat, nil); !slices.ContainsFunc(rt.NotCovered, func(s string) bool { return strings.HasPrefix(s, "TAC") }) {
		t.Errorf("not covered %v; TAC defined by another issuer only", rt.NotCovered)
	}
}

func FuzzDefinedAbbreviations(f *testing.F) {
	for _, s := range []string{"traffic acquisition costs (TAC)", "(", ")", "a (AB", "x (ÄÖ) y", "Asia-Pacific (APAC)\n(BB)", "(R&D) (E-2)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range definedAbbreviations(text) {
			if !shortForm(a.Short) || !strings.Contains(text, "("+a.Short+")") || len(strings.Fields(a.Long)) == 0 {
				t.Fatalf("%q: short form %q of %q", text, a.Short, a.Long)
			}
			for _, w := range strings.Fields(a.Long) {
				if !strings.Contains(strings.ToLower(text), w) {
					t.Fatalf("%q: the long form %q of %q holds %q, not in the text", text, a.Long, a.Short, w)
				}
			}
		}
	})
}

// A long form an issuer's filing defines a short form of is looked for
// under both: the plan searches the issuer's filings with the short form
// in its place too, a sentence writing the short form meets a condition
// naming the long one, and it is as relevant to the question as one
// writing the long form. Another issuer's filings, which define nothing,
// are searched as asked.
func TestShortFormsSearchedAndRelevant(t *testing.T) {
	q := "Does Meta expect Reality Labs losses to keep growing?"
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "META", Text: "We report two segments: Family of Apps (FoA) and Reality Labs (RL). Our losses grew."},
		{Issuer: "AAPL", Text: "Our costs grew."},
	}))
	if got := cat.TextStats().ShortForms("META"); got["reality labs"] != "RL" || got["family of apps"] != "FoA" {
		t.Fatalf("ShortForms(META) = %v", got)
	}
	_, g := planFor(t, cat, q, 0)
	var queries []string
	for _, n := range g.Nodes {
		var a tools.SearchArgs
		if n.Tool == tools.SearchFilings && json.Unmarshal(n.Args, &a) == nil {
			queries = append(queries, a.Query)
		}
	}
	long := slices.ContainsFunc(queries, func(s string) bool { return strings.Contains(strings.ToLower(s), "reality labs") })
	short := slices.ContainsFunc(queries, func(s string) bool { return strings.Contains(s, "rl ") && !strings.Contains(s, "reality") })
	if !long || !short {
		t.Errorf("searches %q: want one for Reality Labs and one for RL", queries)
	}
	rel := NewRelevance(q, cat, []string{"META"})
	withShort := rel.Score("We expect our RL operating losses to increase.")
	withLong := rel.Score("We expect our Reality Labs operating losses to increase.")
	if withShort != withLong || withShort == rel.Score("We expect our operating losses to increase.") {
		t.Errorf("relevance: short form %.2f, long form %.2f; want equal, and above a sentence naming neither", withShort, withLong)
	}
	if other := NewRelevance(q, cat, []string{"AAPL"}); other.Score("We expect our RL losses to increase.") >= other.Score("We expect our Reality Labs losses to increase.") {
		t.Error("relevance reads a short form another issuer defines")
	}

	// A passage condition's term holding the long form gains the short.
	b := &builder{cat: cat, g: &Graph{Requirements: []Requirement{{ID: "r", Issuer: "META",
		Completion: Condition{Kind: CondPassage, Issuer: "META", AllOf: [][]string{{"reality labs losses"}, DriverWords}}}}}}
	b.shortForms()
	if got := b.g.Requirements[0].Completion.AllOf[0]; !slices.Equal(got, []string{"reality labs losses", "rl losses"}) {
		t.Errorf("condition group %q; want the short form beside the long", got)
	}
}

// TestDefinedAliases: a term's other name, given in a parenthesis that
// says so, is read with the term before it; an analyst's word for the
// other name finds the term.
func TestDefinedAliases(t *testing.T) {
	t.Parallel()
	text := "Highlights\n(2) A paid membership (also referred to as a paid subscription) is defined as a membership that has the right to receive service.\n" +
		"Costs of fit-outs for our buildings and building improvements (also referred to as \"fit-outs\") are capitalized.\n" +
		"Our retail calendar (also known as the 4-5-4 calendar) ends in January.\n" +
		"The notes (collectively, the \"Notes\") pay interest."
	got := definedAliases(text)
	want := map[string][]string{
		"paid subsc": {"paid", "membership"},
		"fit-o":      {"our", "buildings", "and", "building"},
		"calen":      {"our", "retail", "calendar"},
	}
	if len(got) != 3 {
		t.Fatalf("definedAliases = %+v; want 3", got)
	}
	for _, a := range got {
		w, ok := want[a.key]
		if !ok {
			t.Errorf("alias %q read; want none such", a.key)
			continue
		}
		if a.key != "fit-o" && !slices.Equal(a.term, w) {
			t.Errorf("alias %q: term %q, want %q", a.key, a.term, w)
		}
	}
	stats := NewTextStats([]StatsDoc{{ID: "n", Issuer: "NFLX", Text: text}})
	terms := stats.AliasTerms("NFLX", []string{"paid", "subscribers"})
	if len(terms) == 0 || !slices.Equal(terms[0], []string{"paid", "membership"}) {
		t.Errorf("AliasTerms(paid subscribers) = %q; want [paid membership] first", terms)
	}
	// One more word qualifies the other name; two more name something else.
	if terms := stats.AliasTerms("NFLX", []string{"paid", "streaming", "subscribers"}); len(terms) == 0 {
		t.Errorf("AliasTerms(paid streaming subscribers) = %q; want the paid membership", terms)
	}
	if terms := stats.AliasTerms("NFLX", []string{"paid", "ad", "tier", "subscribers"}); terms != nil {
		t.Errorf("AliasTerms(paid ad tier subscribers) = %q; want none", terms)
	}
	if terms := stats.AliasTerms("NFLX", []string{"paid", "memberships"}); terms != nil {
		t.Errorf("AliasTerms(paid memberships) = %q; the term itself is no alias", terms)
	}
	if terms := stats.AliasTerms("AAPL", []string{"paid", "subscribers"}); terms != nil {
		t.Errorf("another issuer's alias: %q", terms)
	}
	// The other name's head noun alone ("subscribers") names it too; a word
	// that only qualifies it ("paid") does not.
	if terms := stats.AliasTerms("NFLX", []string{"subscribers"}); len(terms) == 0 || !slices.Equal(terms[0], []string{"paid", "membership"}) {
		t.Errorf("AliasTerms(subscribers) = %q; want [paid membership] first", terms)
	}
	if terms := stats.AliasTerms("NFLX", []string{"paid"}); terms != nil {
		t.Errorf("AliasTerms(paid) = %q; want none", terms)
	}
}

// A short form a filing defines for another company's name, in a list
// with an issuer the corpus holds, is that company, outside the corpus
// and reported with the short form written; named as a topic of the
// issuer's ("competition from TSMC") it is no issuer asked. A short form
// the issuer defines for a term of its own stays its own, though another
// company's ticker.
func TestDefinedCompany(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	cat := NewCatalog([]corpus.Document{
		{ID: "i20", Ticker: "INTC", Company: "Intel Corporation", Form: "10-K", FiscalYear: 2020, PeriodEnd: day("2020-12-26"), Format: corpus.FormatText},
		{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
	})
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "i20", Issuer: "INTC", Text: "Most of our competitors rely on third-party foundries, such as Taiwan Semiconductor Manufacturing Company, Ltd. (TSMC) or others. We compete with Advanced Micro Devices, Inc. (AMD), providers of GPU products."},
		{ID: "n24", Issuer: "NFLX", Text: "Trends in average monthly revenue per paying membership (“ARM”) absent currency fluctuations."},
	}))
	tsmc := func(rt Route) bool {
		return slices.ContainsFunc(rt.NotCovered, func(s string) bool { return strings.HasPrefix(s, "TSM (") && strings.Contains(s, "as TSMC") })
	}
	if rt := RouteQuestion("Who spent more on capex in 2020 — Intel or TSMC?", cat, nil); !tsmc(rt) || !slices.Equal(rt.Issuers, []string{"INTC"}) {
		t.Errorf("Intel or TSMC: issuers %v, not covered %v; want INTC, and TSM as TSMC outside the corpus", rt.Issuers, rt.NotCovered)
	}
	// A short form the SEC's list holds as a ticker ("AMD"), set beside
	// an issuer of the corpus, is that issuer too.
	if rt := RouteQuestion("Intel vs AMD: compare their gross margins for 2020.", cat, nil); !slices.ContainsFunc(rt.NotCovered, func(s string) bool { return strings.HasPrefix(s, "AMD (") }) {
		t.Errorf("Intel vs AMD: not covered %v; want AMD outside the corpus", rt.NotCovered)
	}
	if rt := RouteQuestion("What does Intel say about competition from AMD in 2020?", cat, nil); len(rt.NotCovered) > 0 {
		t.Errorf("competition from AMD: not covered %v; want none", rt.NotCovered)
	}
	if rt := RouteQuestion("What does Intel say about competition from TSMC in 2020?", cat, nil); len(rt.NotCovered) > 0 {
		t.Errorf("competition from TSMC: not covered %v; want none", rt.NotCovered)
	}
	if rt := RouteQuestion("Netflix ARM in 2024 versus 2023?", cat, nil); len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"NFLX"}) {
		t.Errorf("Netflix ARM: issuers %v, not covered %v; want NFLX alone", rt.Issuers, rt.NotCovered)
	}
}
