package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// A figure asked by segment is looked up for each segment the filing
// reports it for, beside the company's; a question that names a part, or
// asks no breakdown, asks no other part.
func TestPlanByParts(t *testing.T) {
	cat := NewCatalog([]corpus.Document{{ID: "p24", Ticker: "PRTS", Company: "Parts Corp", Form: "10-K", FiscalYear: 2024,
		PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML}})
	fact := func(concept, axis, member string, v int64) corpus.Fact {
		f := corpus.Fact{Kind: corpus.FactXBRL, Concept: concept, Label: "Operating income", Value: decimal.NewFromInt(v), Start: int(v), End: int(v) + 1}
		if member != "" {
			f.Dimensions = map[string]string{axis: member}
		}
		return f
	}
	const seg, geo = "us-gaap:StatementBusinessSegmentsAxis", "srt:StatementGeographicalAxis"
	cat.SetFigures("p24", FigureEntries([]corpus.Fact{
		fact("us-gaap:OperatingIncomeLoss", "", "", 100),
		fact("us-gaap:OperatingIncomeLoss", seg, "prts:WidgetsSegmentMember", 60),
		fact("us-gaap:OperatingIncomeLoss", seg, "prts:GadgetsSegmentMember", 40),
		fact("us-gaap:Revenues", geo, "srt:EuropeMember", 7),
		fact("us-gaap:Revenues", "", "", 300),
	}))
	lookups := func(q string) []string {
		var out []string
		for _, n := range planOver(t, cat, q).Nodes {
			if n.Tool != tools.LookupFact {
				continue
			}
			var a tools.LookupFactArgs
			if err := json.Unmarshal(n.Args, &a); err != nil {
				t.Fatal(err)
			}
			out = append(out, a.Concept+a.Label)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"PRTS 2024 operating income by segment", []string{"us-gaap:OperatingIncomeLoss",
			"us-gaap:OperatingIncomeLoss[prts:GadgetsSegmentMember]", "us-gaap:OperatingIncomeLoss[prts:WidgetsSegmentMember]"}},
		{"PRTS 2024 operating income for each reportable segment", []string{"us-gaap:OperatingIncomeLoss",
			"us-gaap:OperatingIncomeLoss[prts:GadgetsSegmentMember]", "us-gaap:OperatingIncomeLoss[prts:WidgetsSegmentMember]"}},
		{"PRTS 2024 revenue by geography", []string{"us-gaap:Revenues", "us-gaap:Revenues[srt:EuropeMember]"}},
		{"PRTS 2024 operating income", []string{"us-gaap:OperatingIncomeLoss"}},
		{"PRTS 2024 Widgets operating income by segment", []string{"us-gaap:OperatingIncomeLoss[prts:WidgetsSegmentMember]"}},
	}
	for _, tt := range tests {
		if got := lookups(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%q looks up %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestPartName(t *testing.T) {
	tests := []struct {
		member  string
		printed []string
		want    string
	}{
		{"nvda:ComputeAndNetworkingMember", []string{"Compute & Networking"}, "Compute & Networking"},
		{"goog:GoogleServicesMember", []string{"Google Search & other", "Google Services"}, "Google Services"},
		{"goog:GoogleServicesMember", []string{"Google Search & other"}, "Google Services"},
		{"us-gaap:AllOtherSegmentsMember", []string{"Other Bets"}, "Other Bets"},
		{"aapl:RestOfAsiaPacificSegmentMember", nil, "Rest Of Asia Pacific"},
	}
	for _, tt := range tests {
		if got := partName(tt.member, tt.printed); got != tt.want {
			t.Errorf("partName(%s, %q) = %q, want %q", tt.member, tt.printed, got, tt.want)
		}
	}
}

// "What percentage of revenue came from services": the part is the
// filing's Services part, in lower case, and its share is computed.
func TestShareFromPartLowerCase(t *testing.T) {
	g := planOver(t, figureCatalog(t), "What percentage of XMPL's 2024 revenue came from services?")
	var share string
	for _, n := range g.Nodes {
		if n.Tool == tools.Calculate {
			share = string(n.Args)
		}
	}
	if !strings.Contains(share, "[us-gaap:ServiceMember]") || !strings.Contains(share, " / ") {
		t.Errorf("calculation %s; want the Services part's revenue over the whole\n%v", share, g.Requirements)
	}
}

// In a converted filing, whose tables' parts are segments and tax
// jurisdictions alike, a figure by segment is looked up for the parts the
// issuer's filings call segments.
func TestPlanByPartsTextFiling(t *testing.T) {
	end := time.Date(2022, 6, 30, 0, 0, 0, 0, time.UTC)
	cat := NewCatalog([]corpus.Document{{ID: "t22", Ticker: "TXTS", Company: "Text Segments Corp", Form: "10-K", FiscalYear: 2022,
		PeriodEnd: end, Format: corpus.FormatText}})
	row := func(label, part string, v int64) corpus.Fact {
		f := corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(v), Start: int(v), End: int(v) + 1,
			PeriodEnd: end, PeriodStart: end.AddDate(-1, 0, 1)}
		if part != "" {
			f.Dimensions = map[string]string{corpus.TablePartAxis: corpus.TablePartPrefix + part}
		}
		return f
	}
	cat.SetFigures("t22", FigureEntries([]corpus.Fact{
		row("Total revenue", "", 100),
		row("Revenue", "Cloud Services", 60),
		row("Revenue", "Devices", 40),
		row("Revenue", "Federal", 7), // a tax table's part
	}))
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "t22", Issuer: "TXTS",
		Text: "Revenue in our Cloud Services segment grew. The Devices segment declined. Federal taxes rose."}}))
	g := planOver(t, cat, "TXTS FY22 revenue by segment")
	var parts []string
	for _, n := range g.Nodes {
		if n.Tool == tools.LookupFact && strings.Contains(string(n.Args), corpus.TablePartPrefix) {
			parts = append(parts, string(n.Args))
		}
	}
	if len(parts) != 2 || !strings.Contains(strings.Join(parts, " "), "Cloud Services") || !strings.Contains(strings.Join(parts, " "), "Devices") {
		t.Errorf("part lookups %q; want Cloud Services and Devices, not Federal", parts)
	}
}

func TestCalledSegments(t *testing.T) {
	got := calledSegments("Our Intelligent Cloud segment grew. The Walmart U.S. and Sam's Club segments. Revenue by segment rose. Our Other International segment.")
	for _, want := range []string{"intelligent cloud", "walmart u.s", "sam's club", "other international"} {
		if !slices.Contains(got, want) {
			t.Errorf("calledSegments = %q; want %q among them", got, want)
		}
	}
}

// A question asking how a figure splits between parts it lists gets each
// part's row of the table that totals to the figure, read above that
// total; the list's shared noun ("operations") may be left off a row's
// label; a part no row prints plans nothing.
func TestPlanSplitParts(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	row := func(label, value string, at int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.RequireFromString(value), Unit: "USD",
			PeriodStart: day("2023-06-01"), PeriodEnd: day("2024-05-31"), Start: at, End: at + 5}
	}
	cat := smallCatalog()
	cat.SetFigures("c22", FigureEntries([]corpus.Fact{
		row("Foreign", "6672", 10),
		row("U.S.", "47837", 100),
		row("Foreign", "35879", 120),
		row("Income before income taxes", "83716", 140),
	}))
	_, g := planFor(t, cat, "How did Costco's income before income taxes split between U.S. and foreign operations in fiscal 2022?", 0)
	for _, key := range []string{"table:U.S.", "table:Foreign"} {
		i := slices.IndexFunc(g.Nodes, func(n Node) bool {
			var a tools.LookupFactArgs
			return n.Tool == tools.LookupFact && json.Unmarshal(n.Args, &a) == nil && a.Concept == key && a.Above == "table:Income before income taxes"
		})
		if i < 0 {
			t.Errorf("no lookup of %s above the total: %v", key, g.Nodes)
		}
	}
	_, g = planFor(t, cat, "How did Costco's income before income taxes split between U.S. and Canadian operations in fiscal 2022?", 0)
	if slices.ContainsFunc(g.Nodes, func(n Node) bool { return strings.Contains(string(n.Args), `"above"`) }) {
		t.Errorf("a part no row prints was planned: %v", g.Nodes)
	}
}
