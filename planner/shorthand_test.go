package planner

import (
	"slices"
	"testing"
)

// Initials of a catalogue figure's name, written in capitals, read as the
// figure; tickers, possessives, cashtags and lists of tickers stay names.
func TestReadShorthand(t *testing.T) {
	cat := smallCatalog()
	tests := []struct{ in, want string }{
		{"FY22 GM% for COST?", "FY22 gross margin% for COST?"},
		// Money made from a thing, no figure named: revenue from it.
		{"What did Apple make from services in 2024?", "What did Apple make in revenue from services in 2024?"},
		{"How much revenue did Apple make from services?", "How much revenue did Apple make from services?"},
		{"How much cash did Apple generate from operations?", "How much cash did Apple generate from operations?"},
		{"What did Apple earn from interest in 2024?", "What did Apple earn from interest in 2024?"},
		{"MSFT FY22 NI and OCF", "MSFT FY22 net income and operating cash flow"},
		{"NFLX OM 2024?", "NFLX operating margin 2024?"},
		{"COST FY22 GP %", "COST FY22 gross profit %"},
		// Not a general abbreviation and no "%": a ticker may be meant.
		{"CE revenue 2022", "CE revenue 2022"},
		// Written as an issuer.
		{"GM's revenue in 2022", "GM's revenue in 2022"},
		{"$GM revenue", "$GM revenue"},
		{"GM, F and TSLA margins", "GM, F and TSLA margins"},
		// Lower case is a word; capitals inside a word are no initials.
		{"gm for costco", "gm for costco"},
		// Lower case before a percent sign names a rate.
		{"aapl products gm% slipped", "aapl products gross margin% slipped"},
		{"what was the xyz% rate", "what was the xyz% rate"},
		{"FYGM and R&D", "FYGM and R&D"},
		// A corpus ticker is the issuer.
		{"AAPL FY24 revenue", "AAPL FY24 revenue"},
		// A general abbreviation clipping one figure's name.
		{"nvda fy23 data center rev", "nvda fy23 data center revenue"},
		{"revenue review", "revenue review"},
	}
	for _, tc := range tests {
		if got := ReadShorthand(tc.in, cat); got != tc.want {
			t.Errorf("ReadShorthand(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// A question whose shorthand is in capitals ("GM%") is not a question in
// capitals: the ticker beside it is still read ("FY22 GM% for COST?").
func TestShorthandIsNotShouting(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{"FY22 GM% for COST?", "What was GM% for COST in FY22?", "COST FY22 GM%?"} {
		rt := RouteQuestion(q, cat, nil)
		if !slices.Equal(rt.Issuers, []string{"COST"}) {
			t.Errorf("%q: issuers %v; want COST", q, rt.Issuers)
		}
		if !slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Derived == "gross_margin" }) &&
			!slices.Contains(rt.Aspects, "margins") {
			t.Errorf("%q: gross margin not asked: figures %+v, aspects %v", q, rt.Figures, rt.Aspects)
		}
	}
	if !shouted("WHAT WAS APPLE'S REVENUE IN FY22") {
		t.Error("a question in capitals is not read as one")
	}
}

// A scale after a dollar sign is a unit, not a cashtag.
func TestDollarScaleIsNoTicker(t *testing.T) {
	rt := RouteQuestion("Costco's operating income for fiscal 2022 — give it in $bn.", smallCatalog(), nil)
	if len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"COST"}) {
		t.Errorf("issuers %v, not covered %v; want COST alone", rt.Issuers, rt.NotCovered)
	}
	rt = RouteQuestion("$BN revenue 2022", smallCatalog(), nil)
	if len(rt.NotCovered) != 1 {
		t.Errorf("$BN in capitals: not covered %v; want the ticker", rt.NotCovered)
	}
}
