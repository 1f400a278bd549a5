package planner

import (
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
	"github.com/shopspring/decimal"
)

// TestResolveMetricLinkingWords: an issuer's own row for a figure may join
// the words of the figure's name differently ("Purchases related to
// property and equipment and intangible assets", tagged with the issuer's
// own concept, is its capital expenditures); the words that name
// something must all be there, in any order.
func TestResolveMetricLinkingWords(t *testing.T) {
	t.Parallel()
	tagged := func(concept, label string) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactXBRL, Concept: concept, Label: label, Value: decimal.NewFromInt(1), Start: 1, End: 2}
	}
	cat := NewCatalog(nil)
	cat.SetFigures("d", FigureEntries([]corpus.Fact{
		tagged("us-gaap:PaymentsToAcquireAvailableForSaleSecuritiesDebt", "Purchases of marketable securities"),
		tagged("xmpl:PurchasesOfPropertyAndEquipmentAndIntangibleAssets", "Purchases related to property and equipment and intangible assets"),
		tagged("xmpl:ProceedsFromSaleOfEquipment", "Proceeds from sales of equipment"),
	}))
	for _, tc := range []struct{ metric, want string }{
		{"capex", "xmpl:PurchasesOfPropertyAndEquipmentAndIntangibleAssets"},
		{"revenue", ""},
		{"inventory", ""},
	} {
		m, _ := tools.MetricByName(tc.metric)
		if got, _ := cat.ResolveMetric("d", m, "", ""); got != tc.want {
			t.Errorf("ResolveMetric(%s) = %q; want %q", tc.metric, got, tc.want)
		}
	}
}

// TestInitialsJoined: initials joined by "&" name the row whose words
// they are the initials of ("S&M" is "Sales and marketing"); a label of
// another shape has none.
func TestInitialsJoined(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ label, want string }{
		{"sales and marketing", "SM"},
		{"general and administrative", "GA"},
		{"research & development", "RD"},
		{"depreciation and amortization", "DA"},
		// A list whose last word alone is joined ("Marketing, general
		// and administrative", as normLabel leaves it).
		{"selling general and administrative", "SGA"},
		{"marketing general and administrative", "MGA"},
		{"property plant and equipment", "PPE"},
		{"a b and c and d", ""},
		{"and a b", ""},
		{"cost of revenue", ""},
		{"revenue", ""},
		{"a and b and c", "ABC"},
	} {
		if got := joinedInitials(strings.Fields(tc.label)); got != tc.want {
			t.Errorf("joinedInitials(%q) = %q; want %q", tc.label, got, tc.want)
		}
	}
	cat := NewCatalog(nil)
	row := func(label string, start int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(int64(start)), Start: start, End: start + 1}
	}
	cat.SetFigures("d", FigureEntries([]corpus.Fact{row("Sales and marketing", 1), row("General and administrative", 3),
		row("Marketing, general and administrative", 5)}))
	for _, tc := range []struct{ word, want string }{
		{"s&m", "table:Sales and marketing"},
		{"G&A", "table:General and administrative"},
		{"MG&A", "table:Marketing, general and administrative"},
		{"r&d", ""},
		{"sm", ""},
	} {
		if got, _ := cat.labelKey("d", []string{tc.word}, true); got != tc.want {
			t.Errorf("labelKey(%q) = %q; want %q", tc.word, got, tc.want)
		}
	}
	for _, w := range []string{"S&M", "GMV", "R&D"} {
		if !acronymWord(w) {
			t.Errorf("%q is not read as an acronym", w)
		}
	}
	for _, w := range []string{"&M", "S&", "Sales"} {
		if acronymWord(w) {
			t.Errorf("%q is read as an acronym", w)
		}
	}
}
