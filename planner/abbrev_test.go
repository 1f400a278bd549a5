package planner

import (
	"slices"
	"strings"
	"testing"
)

func TestDefinedAbbreviations(t *testing.T) {
	text := "We pay our traffic acquisition costs (TAC) to partners. Asia-Pacific (APAC) grew.\n" +
		"Our remaining performance obligations (RPO) rose. Revenues (in millions) were flat.\n" +
		"See Note 2 (Revenues). The company (AAPL) is not a definition. Net sales (NS) fell (see below).\n" +
		"Research and development (R&D) expense rose. Earnings per share (EPS) were higher. (TAC) again.\n"
	got := definedAbbreviations(text)
	want := []string{"TAC", "APAC", "RPO", "NS", "R&D", "EPS"}
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
		for _, short := range definedAbbreviations(text) {
			if !shortForm(short) || !strings.Contains(text, "("+short+")") {
				t.Fatalf("%q: short form %q", text, short)
			}
		}
	})
}
