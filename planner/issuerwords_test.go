package planner

import (
	"slices"
	"strings"
	"testing"
)

// Of a comparison's words, another asked issuer's own ("nuance" in
// Microsoft's filings alone) are not asked of an issuer's passage; and a
// comparative ("faster") names no topic.
func TestIssuerWordsAndComparatives(t *testing.T) {
	cat := sampleCatalog(t)
	own := func(word string, n int) string {
		return strings.Repeat("We completed the acquisition of "+word+". ", n)
	}
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "o", Issuer: "ORCL", Text: own("Cerner", 5) + "Goodwill was recorded. Membership grew."},
		{ID: "m", Issuer: "MSFT", Text: own("Nuance", 5) + "Goodwill was recorded. Membership grew."},
		{ID: "c", Issuer: "COST", Text: "Membership fees grew. Goodwill was recorded."},
	}))
	b := newBuilder("goodwill in Oracle's Cerner acquisition versus Microsoft's Nuance acquisition", Route{Issuers: []string{"ORCL", "MSFT"}}, cat)
	if got := b.issuerWords("ORCL", []string{"goodwill", "cerner", "nuance"}); slices.Contains(got, "nuance") || !slices.Contains(got, "cerner") {
		t.Errorf("issuerWords(ORCL) = %v, want cerner and not nuance", got)
	}
	if got := b.issuerWords("MSFT", []string{"goodwill", "cerner", "nuance"}); slices.Contains(got, "cerner") {
		t.Errorf("issuerWords(MSFT) = %v, want no cerner", got)
	}
	for _, g := range b.topicGroups([]string{"membership", "faster", "goodwill"}) {
		if slices.Contains(g, "faster") {
			t.Errorf("topicGroups holds the comparative: %v", g)
		}
	}
}
