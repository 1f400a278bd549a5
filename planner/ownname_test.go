package planner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/shopspring/decimal"
)

// ownNameStats are statistics in which "Widgetron" is Text Filer's own
// name: its filing uses it six times, another issuer's once (a
// competitor's mention), a third's never.
func ownNameStats() *TextStats {
	return NewTextStats([]StatsDoc{
		{ID: "t22", Issuer: "TXTF", Text: "Widgetron revenue grew 40% driven by consumption. Widgetron and Widgetron again. Widgetron, Widgetron, Widgetron."},
		{ID: "x24", Issuer: "XMPL", Text: "Example Web Services net sales grew. We compete with Widgetron."},
		{ID: "g22", Issuer: "GPRO", Text: "Printers sold well. Revenue grew."},
	})
}

func TestOwnIssuer(t *testing.T) {
	t.Parallel()
	s := ownNameStats()
	for _, tc := range []struct{ word, want string }{
		{"Widgetron", "TXTF"}, // 6 uses against 1
		{"widgetron", "TXTF"},
		{"Printers", ""}, // one issuer's, but used once
		{"grew", ""},     // several issuers'
		{"Azure", ""},    // no issuer's
	} {
		if got := s.OwnIssuer(tc.word); got != tc.want {
			t.Errorf("OwnIssuer(%q) = %q; want %q", tc.word, got, tc.want)
		}
	}
	shared := NewTextStats([]StatsDoc{
		{ID: "a", Issuer: "AAA", Text: "Gizmo Gizmo Gizmo Gizmo"},
		{ID: "b", Issuer: "BBB", Text: "Gizmo Gizmo"},
	})
	if got := shared.OwnIssuer("Gizmo"); got != "" {
		t.Errorf("a name two issuers use 4 and 2 times is %q's; want no issuer's", got)
	}
	if got := (*TextStats)(nil).OwnIssuer("Widgetron"); got != "" {
		t.Errorf("nil statistics: %q", got)
	}
}

// TestOwnNamePart: a comparison that asks each issuer's part of a figure
// names one issuer's part by a name no segment of its filings gives it
// ("Azure in Microsoft's FY2021, AWS in Amazon's 2022 ... revenue growth
// for each"). The part is the issuer's own name, read from the corpus's
// words; the plan asks for that part's figure, never the company's. A
// question naming no other issuer's part, or naming the product as a
// cause, keeps the company's figure.
func TestOwnNamePart(t *testing.T) {
	t.Parallel()
	plan := func(q string) *Graph {
		t.Helper()
		cat := figureCatalog(t)
		cat.SetTextStats(ownNameStats())
		return planOver(t, cat, q)
	}
	ids := func(g *Graph, issuer string) []string {
		var out []string
		for _, r := range g.Requirements {
			if r.Issuer == issuer {
				out = append(out, r.ID)
			}
		}
		return out
	}
	g := plan("Widgetron in Text Filer's fiscal 2022 and Example Web Services in Example Cloud's 2024 — revenue growth for each.")
	txtf := ids(g, "TXTF")
	if !slices.Contains(txtf, "TXTF-FY2022-figure-widgetron-revenue-growth") || slices.ContainsFunc(txtf, func(id string) bool { return strings.HasSuffix(id, "-calculation") }) {
		t.Errorf("Text Filer's requirements %q; want Widgetron's revenue growth and not the company's", txtf)
	}
	if xmpl := ids(g, "XMPL"); !slices.Contains(xmpl, "XMPL-FY2024-figure-example-web-services-revenue-growth") {
		t.Errorf("Example Cloud's requirements %q; want its segment's revenue growth", xmpl)
	}
	g = plan("How did Text Filer's revenue grow in fiscal 2022, given Widgetron's strength, and Example Cloud's in 2024?")
	if txtf := ids(g, "TXTF"); slices.ContainsFunc(txtf, func(id string) bool { return strings.Contains(id, "widgetron") }) {
		t.Errorf("a product named beside no other issuer's part became the figure asked: %q", txtf)
	}
}

// TestShareOfQualifiedPart: a share of a figure taken by a part no
// segment names ("What share of revenue came from cloud services", "cloud
// services revenue as a % of total revenue") is the part's row over the
// whole, computed, and asks for the number, not for what drove revenue.
func TestShareOfQualifiedPart(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"What share of Shared Text's fiscal 2022 revenues came from cloud services?",
		"Shared Text fiscal 2022 cloud services revenues as a % of total revenues",
	} {
		g := planOver(t, textFilingCatalog("Cloud services", "License support", "Total revenues"), q)
		var calc *Requirement
		for i, r := range g.Requirements {
			if r.Kind == KindExplanation {
				t.Errorf("%q: plans an explanation %s", q, r.ID)
			}
			if r.Kind == KindCalculation && strings.Contains(r.ID, "-share-") {
				calc = &g.Requirements[i]
			}
		}
		if calc == nil || len(calc.Completion.Of) != 2 {
			t.Errorf("%q: no share of the part over the whole in %+v", q, g.Requirements)
			continue
		}
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.ID == calc.Completion.Of[0] && slices.Contains(r.Completion.Concepts, "table:Cloud services")
		}) {
			t.Errorf("%q: the share's part is not the cloud services row: %+v", q, g.Requirements)
		}
	}
}

// TestListedShortForms: short forms an issuer's filings define, listed
// ("DAP and ARPP"), are each a figure asked, stated under either form;
// lone words the filings define nothing by stay one phrase.
func TestListedShortForms(t *testing.T) {
	t.Parallel()
	cat := figureCatalog(t)
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "t22", Issuer: "TXTF", Text: "We measure Daily Active People (DAP) and Average Revenue Per Person (ARPP). DAP was 3.35 billion."},
		{ID: "x24", Issuer: "XMPL", Text: "Example Web Services net sales grew."},
		{ID: "g22", Issuer: "GPRO", Text: "Printers sold well."},
	}))
	q := "Text Filer fiscal 2022 DAP and ARPP?"
	g := planOver(t, cat, q)
	for _, tc := range []struct{ id, long string }{
		{"TXTF-FY2022-figure-dap", "daily active people"},
		{"TXTF-FY2022-figure-arpp", "average revenue per person"},
	} {
		r, ok := reqByID(g, tc.id)
		if !ok {
			t.Errorf("no requirement %s in %+v", tc.id, g.Requirements)
			continue
		}
		if len(r.Completion.AllOf) == 0 || !slices.Contains(r.Completion.AllOf[0], tc.long) {
			t.Errorf("%s: groups %q; want the long form %q beside the short", tc.id, r.Completion.AllOf, tc.long)
		}
	}
}

// TestListedLabels: a question that lists the rows it asks, one written as
// the acronym a filing labels its row by ("GMV and take rate"), asks each
// row, whatever the order; a label alone asks only itself.
func TestListedLabels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"Shared Text fiscal 2022 GMV and take rate", []string{"table:GMV (2)", "table:Take rate (3)"}},
		{"Shared Text fiscal 2022 take rate and GMV?", []string{"table:GMV (2)", "table:Take rate (3)"}},
		{"Shared Text fiscal 2022 take rate?", []string{"table:Take rate (3)"}},
	} {
		g := planOver(t, textFilingCatalog("Net revenues", "GMV (2)", "Take rate (3)"), tc.q)
		var got []string
		for _, r := range g.Requirements {
			if r.Completion.Kind == CondFact {
				got = append(got, r.Completion.Concepts...)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: looks up %q; want %q", tc.q, got, tc.want)
		}
	}
}

// TestPartBesideSegment: a part named beside a segment, each with the
// figure's name ("Cloud revenue and WidgetTube ads revenue"), is a figure
// of its own, never words narrowing the segment's; a part the filing
// tags only within a segment is found by the label printed beside it
// ("WidgetTube ads" for xmpl:WidgetTubeAdvertisingMember, whose name the
// camel case splits).
func TestPartBesideSegment(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	fact := func(label string, dims map[string]string) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactXBRL, Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Label: label,
			Value: decimal.NewFromInt(1), Start: 1, End: 2, Dimensions: dims}
	}
	const seg = "us-gaap:StatementBusinessSegmentsAxis"
	for _, q := range []string{
		"Gizmo Holdings 2024: Cloud revenue and WidgetTube ads revenue",
		"What were Gizmo Holdings' 2024 WidgetTube ads revenue and Cloud revenue?",
	} {
		cat := NewCatalog([]corpus.Document{{ID: "w24", Ticker: "GZMO", Company: "Gizmo Holdings, Inc.", Form: "10-K", FiscalYear: 2024,
			PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML, Entity: corpus.Entity{Registrant: "GIZMO HOLDINGS, INC.", Symbols: []string{"GZMO"},
				Members: []string{"xmpl:CloudSegmentMember", "xmpl:ServicesSegmentMember", "xmpl:WidgetTubeAdvertisingMember"}}}})
		cat.SetFigures("w24", FigureEntries([]corpus.Fact{
			fact("Total revenues", nil),
			fact("Cloud", map[string]string{seg: "xmpl:CloudSegmentMember"}),
			fact("Services", map[string]string{seg: "xmpl:ServicesSegmentMember"}),
			fact("WidgetTube ads", map[string]string{seg: "xmpl:ServicesSegmentMember", "srt:ProductOrServiceAxis": "xmpl:WidgetTubeAdvertisingMember"}),
		}))
		g := planOver(t, cat, q)
		var keys []string
		for _, r := range g.Requirements {
			if r.Completion.Kind == CondFact {
				keys = append(keys, r.Completion.Concepts...)
			}
		}
		if q2 := strings.Replace(q, "WidgetTube ads", "Sparkle", 1); q2 != q {
			// A part no member names: a figure of its own all the same.
			g2 := planOver(t, cat, q2)
			if _, ok := reqByID(g2, "GZMO-FY2024-figure-sparkle-revenue"); !ok {
				t.Errorf("%q: no figure of Sparkle in %+v", q2, g2.Requirements)
			}
		}
		for _, want := range []string{"[xmpl:CloudSegmentMember]", "xmpl:WidgetTubeAdvertisingMember"} {
			if !slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, want) }) {
				t.Errorf("%q: looks up %q; want a figure of %s", q, keys, want)
			}
		}
	}
}

// textFilingCatalog is a catalog of one text filing, Shared Text Corp's
// (SHTX) 10-K for fiscal 2022, whose tables print rows of these labels, in
// this order.
func textFilingCatalog(labels ...string) *Catalog {
	end, _ := time.Parse(time.DateOnly, "2022-12-31")
	cat := NewCatalog([]corpus.Document{{ID: "s22", Ticker: "SHTX", Company: "Shared Text Corp", Form: "10-K", FiscalYear: 2022,
		PeriodEnd: end, Format: corpus.FormatText}})
	var rows []corpus.Fact
	for i, l := range labels {
		rows = append(rows, corpus.Fact{Kind: corpus.FactTable, Label: l, Value: decimal.NewFromInt(int64(i + 1)), Start: 2 * i, End: 2*i + 1})
	}
	cat.SetFigures("s22", FigureEntries(rows))
	return cat
}

// planOver routes and plans q over cat with the rules planner.
func planOver(t *testing.T, cat *Catalog, q string) *Graph {
	t.Helper()
	g, err := (&RulesPlanner{}).Plan(t.Context(), q, RouteQuestion(q, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
