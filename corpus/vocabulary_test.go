package corpus

import (
	"slices"
	"testing"
)

func TestLabelVocabularyExpand(t *testing.T) {
	var labels []FactLabel
	for _, l := range []string{
		"Selling, general and administrative", "Selling, general and administrative expenses",
		"Research and development", "Capital expenditures", "Total capital expenditures",
		"Cost of sales", "Common stock", "Free cash flow", "Net cash used in financing activities",
	} {
		labels = append(labels, FactLabel{Start: -1, Label: l})
	}
	v := newLabelVocabulary(labels)
	for tok, want := range map[string][]string{
		"SG&A":  {"selling", "general", "administrative"},
		"R&D":   {"research", "development"},
		"capex": {"capital", "expenditures"},
		"FCF":   {"free", "cash", "flow"},
		"cost":  nil, // a word the labels use: "co"+"st" is not "common stock"
		"rd":    nil, // lower case and short: a word, not an acronym
		"EBIT":  nil, // no label reads so
	} {
		if got := v.expand(tok); !slices.Equal(got, want) {
			t.Errorf("expand(%q) = %q, want %q", tok, got, want)
		}
	}
}
