package planner

import (
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// houseCatalog is one filing of an issuer whose parts are named members
// on the segment axis.
func houseCatalog(t *testing.T, members ...string) *Catalog {
	t.Helper()
	cat := NewCatalog([]corpus.Document{{ID: "h24", Ticker: "HSE", Company: "Holding House Inc.", Form: "10-K", FiscalYear: 2024,
		PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML}})
	var facts []corpus.Fact
	for i, m := range members {
		facts = append(facts, corpus.Fact{Kind: corpus.FactXBRL, Concept: "us-gaap:Revenues", Label: "Revenues",
			Value: decimal.NewFromInt(int64(i + 1)), Start: 10 * i, End: 10*i + 2,
			Dimensions: map[string]string{"us-gaap:StatementBusinessSegmentsAxis": m}})
	}
	cat.SetFigures("h24", FigureEntries(facts))
	return cat
}

// A part is asked by what follows the house name its issuer's parts open
// with ("cloud" for Acme Cloud, among Acme Services and Acme Network), not
// where the word opens too few parts to be a house name, nor where the
// rest names another part too.
func TestSegmentsInHouseName(t *testing.T) {
	house := []string{"hse:AcmeCloudMember", "hse:AcmeServicesMember", "hse:AcmeNetworkMember", "hse:OtherBetsMember"}
	tests := []struct {
		name    string
		members []string
		q       string
		want    []string // members
	}{
		{"the rest after the house name", house, "HSE cloud revenue 2024", []string{"hse:AcmeCloudMember"}},
		{"another part's rest", house, "HSE network revenue in 2024", []string{"hse:AcmeNetworkMember"}},
		{"the whole name still", house, "Acme Cloud revenue 2024", []string{"hse:AcmeCloudMember"}},
		{"two parts open with the word: no house name", []string{"hse:AcmeCloudMember", "hse:AcmeServicesMember", "hse:OtherBetsMember"},
			"HSE cloud revenue 2024", nil},
		{"a rest another part holds", append(slices.Clone(house), "hse:AcmeCloudServicesMember"), "HSE cloud revenue 2024", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range houseCatalog(t, tt.members...).SegmentsIn(tt.q, "HSE") {
				got = append(got, s.Members...)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SegmentsIn(%q) members %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}
