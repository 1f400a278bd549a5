package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// A total asked as one, the sum of a figure and words of the question's
// ("cash plus unrestricted marketable securities ... just the total"), is
// asked of a sentence naming every summand with an amount, not of the
// cash balance; two figures added without asking one total are each
// gathered.
func TestSummedFigure(t *testing.T) {
	cat := smallCatalog()
	q := "How much cash plus unrestricted marketable securities did AAPL have at FY2022 year end? Just the total."
	rt, g := planFor(t, cat, q, 0)
	if len(rt.Figures) > 0 {
		t.Errorf("figures %+v; a summand is no figure asked", rt.Figures)
	}
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool {
		return strings.Contains(r.ID, "cash-plus-unrestricted-marketable-securities")
	})
	if i < 0 {
		t.Fatalf("no requirement of the total: %+v", g.Requirements)
	}
	var words []string
	for _, grp := range g.Requirements[i].Completion.AllOf {
		words = append(words, grp[0])
	}
	if want := []string{"cash", "unrestricted", "marketable", "securities", FigureTerm}; !slices.Equal(words, want) {
		t.Errorf("groups %v, want %v", words, want)
	}
	if rt := RouteQuestion("Apple R&D + SG&A in fiscal 2024?", cat, nil); !slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Metric == "sga_expense" }) {
		t.Errorf("figures %+v; want SG&A asked", rt.Figures)
	}
}

// "How did X trend" asks how a figure moved, not why: its figure, named
// without the verb of the move.
func TestHowDidFigureMove(t *testing.T) {
	for q, why := range map[string]bool{
		"How did eBay's active buyers trend in 2022?":                      false,
		"How has Netflix's paid membership count trended in 2024?":         false,
		"How did higher fuel prices affect Costco's gross margin in 2022?": true,
	} {
		if got := asksWhy(q); got != why {
			t.Errorf("asksWhy(%q) = %v, want %v", q, got, why)
		}
	}
	cat := smallCatalog()
	rt := RouteQuestion("How did eBay's active buyers trend in 2022?", cat, nil)
	if !rt.AsksFigure {
		t.Errorf("a move asked is a figure asked: %+v", rt)
	}
}

// A move the question asserts of a figure named by a row's label is a
// premise on its rate of change; a change named as a thing ("after the
// fee hike") asserts nothing of the figure.
func TestLabelledFigurePremise(t *testing.T) {
	if got := assertedSign("Costco's membership fee income fell in FY22 after the fee hike — why?"); got != -1 {
		t.Errorf("assertedSign = %d, want -1", got)
	}
	cat := textCatalog("c22", "COST", "Costco Wholesale Corporation", 2022, "2022-08-28")
	cat.SetFigures("c22", partRows("2021-08-30", "2022-08-28",
		[3]string{"Membership fees", "", "4224000000"},
		[3]string{"Net sales", "", "222730000000"},
	))
	_, g := planFor(t, cat, "Costco's membership fee income fell in FY22 after the fee hike — why?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-premise-") })
	if i < 0 {
		t.Fatalf("no premise: %+v", g.Requirements)
	}
	if r := g.Requirements[i]; r.Completion.Sign != -1 || r.Completion.Kind != CondCalculation {
		t.Errorf("premise %+v; want a calculation with sign -1", r)
	}
}

// A year named beside the report a question reads from is asked too; a
// general word for figures ("KPIs") and the move asked of each figure
// ("each grow") name no row.
func TestReportYearAlsoAsked(t *testing.T) {
	if got := yearsBesideReport("Google Cloud op income for 2024 and 2023 — give me both numbers from Alphabet's FY2024 10-K."); !slices.Contains(got, 2024) || !slices.Contains(got, 2023) {
		t.Errorf("yearsBesideReport = %v, want 2023 and 2024", got)
	}
	if got := yearsBesideReport("Amazon's 2023 net income according to its 2024 10-K"); slices.Contains(got, 2024) {
		t.Errorf("yearsBesideReport = %v; 2024 names the report only", got)
	}
	cat := smallCatalog()
	q := "Meta's ad KPIs for 2024: by how much did ad impressions and average price per ad each grow year over year?"
	rt := RouteQuestion(q, cat, nil)
	b := newBuilder(q, rt, cat)
	for _, w := range b.phraseWords() {
		if w == "kpis" || w == "grow" {
			t.Errorf("phraseWords %v hold %q", b.phraseWords(), w)
		}
	}
}

// "How much stock did X repurchase" asks the share repurchases, as does
// "investing cash flow" its own figure; the rows filings print them by
// name them.
func TestRepurchaseVerbAsksBuybacks(t *testing.T) {
	rt := RouteQuestion("Buyback firepower: how much stock did Intel (2020) and Walmart (fiscal 2022) each repurchase?", smallCatalog(), nil)
	if !slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Metric == "buybacks" }) {
		t.Errorf("figures %+v; want the share repurchases", rt.Figures)
	}
	for label, metric := range map[string]string{"Repurchase of common stock": "buybacks", "Repurchases of Class A common stock": "buybacks",
		"Net cash used in investing activities": "investing_cash_flow", "Cash flows from financing activities": "financing_cash_flow"} {
		if m, ok := tools.MetricForLabel(label); !ok || m.Name != metric {
			t.Errorf("MetricForLabel(%q) = %q, %v; want %s", label, m.Name, ok, metric)
		}
	}
}

// Verbs of holding name no figure ("how much goodwill did Microsoft
// carry"), nor does "FYE"; a row's "net" or "total" adds nothing to the
// words it is asked by ("intangible assets" is "Intangible assets, net"
// before "Acquired intangible assets").
func TestCarryAndNetRows(t *testing.T) {
	cat := textCatalog("o23", "ORCL", "Oracle Corporation", 2023, "2023-05-31")
	rows := partRows("2022-06-01", "2023-05-31",
		[3]string{"Acquired intangible assets", "", "-2124000000"},
		[3]string{"Intangible assets, net", "", "9837000000"},
	)
	cat.SetFigures("o23", rows)
	if k, ok := cat.ResolvePhrase("o23", []string{"intangible", "assets"}, ""); !ok || k != "table:Intangible assets, net" {
		t.Errorf("ResolvePhrase = %q, %v; want the net row", k, ok)
	}
	q := "What intangible assets did Oracle carry at FYE23?"
	rt := RouteQuestion(q, cat, nil)
	b := newBuilder(q, rt, cat)
	if got := b.phraseWords(); !slices.Equal(got, []string{"intangible", "assets"}) {
		t.Errorf("phraseWords = %q, want intangible assets", got)
	}
}
