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

func TestLabelVocabularyLabelsIn(t *testing.T) {
	var labels []FactLabel
	for _, l := range []string{
		"Total assets", "Total current assets", "Total current liabilities", "Inventories",
		"Research and development", "Net income", "Total",
	} {
		labels = append(labels, FactLabel{Start: -1, Label: l})
	}
	v := newLabelVocabulary(labels)
	for _, tt := range []struct {
		name  string
		words []string
		want  []string
	}{
		{"a label written out", []string{"balance", "sheet", "total", "assets", "2021"}, []string{"Total assets"}},
		{"the longer of two labels at one place", []string{"total", "current", "assets", "over", "total", "current", "liabilities"},
			[]string{"Total current assets", "Total current liabilities"}},
		{"a label's stop words are not the question's", []string{"research", "development", "intensity"}, []string{"Research and development"}},
		{"one-word labels name no row", []string{"inventories", "total"}, nil},
		{"words of a label apart", []string{"net", "cash", "income"}, nil},
		{"nothing", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := v.labelsIn(tt.words); !slices.Equal(got, tt.want) {
				t.Errorf("labelsIn(%q) = %q, want %q", tt.words, got, tt.want)
			}
		})
	}
}
