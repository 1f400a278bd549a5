package planner

import (
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/shopspring/decimal"
)

// TestLabelKeyIndexed: labelKey finds a figure by the words of its label,
// its label's core or its concept's name, a tagged fact before a table
// row and a row of one value before a row of parts; the same through the
// index a catalog keeps, an index built beforehand (IndexFigures) and a
// catalog that keeps none; and figures set again replace what the index
// held.
func TestLabelKeyIndexed(t *testing.T) {
	t.Parallel()
	row := func(label string, start int, part string) corpus.Fact {
		f := corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(int64(start)), Start: start, End: start + 1}
		if part != "" {
			f.Dimensions = map[string]string{corpus.TablePartAxis: part}
		}
		return f
	}
	tagged := func(concept, label string) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactXBRL, Concept: concept, Label: label, Value: decimal.NewFromInt(1), Start: 1, End: 2}
	}
	entries := FigureEntries([]corpus.Fact{
		row("Paid memberships at end of period", 1, ""),
		row("Total cloud services and license support revenues", 3, ""),
		row("Net sales", 5, ""),
		tagged("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Net sales"),
		tagged("xmpl:GrossMerchandiseVolume", "Gross merchandise volume"),
	})
	tests := []struct {
		words []string
		atEnd bool
		want  string // "" for none
	}{
		{[]string{"paid", "memberships", "at", "end", "of", "period"}, false, "table:Paid memberships at end of period"},
		{[]string{"paid", "memberships"}, false, ""},
		{[]string{"paid", "memberships"}, true, "table:Paid memberships at end of period"},
		{[]string{"membership", "paid"}, true, "table:Paid memberships at end of period"},
		{[]string{"cloud", "services", "and", "license", "support", "revenues"}, true, "table:Total cloud services and license support revenues"},
		{[]string{"net", "sales"}, false, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"},
		{[]string{"gross", "merchandise", "volume"}, false, "xmpl:GrossMerchandiseVolume"},
		{[]string{"operating", "income"}, true, ""},
	}
	kept := NewCatalog(nil)
	kept.SetFigures("d", entries)
	built := NewCatalog(nil)
	built.SetIndexedFigures("d", IndexFigures(entries))
	none := &Catalog{}
	none.SetFigures("d", entries)
	for name, c := range map[string]*Catalog{"kept": kept, "built": built, "none": none} {
		for _, tt := range tests {
			got, ok := c.labelKey("d", tt.words, tt.atEnd)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("%s: labelKey(%q, atEnd %v) = %q, %v; want %q", name, tt.words, tt.atEnd, got, ok, tt.want)
			}
		}
		if _, ok := c.labelKey("other", []string{"net", "sales"}, false); ok {
			t.Errorf("%s: a filing whose figures the catalog lacks has a label", name)
		}
	}
	kept.SetFigures("d", FigureEntries([]corpus.Fact{row("Operating income", 7, "")}))
	if got, _ := kept.labelKey("d", []string{"net", "sales"}, false); got != "" {
		t.Errorf("figures set again: the old figure %q is still found", got)
	}
	if got, _ := kept.labelKey("d", []string{"operating", "income"}, false); got != "table:Operating income" {
		t.Errorf("figures set again: the new figure is not found (%q)", got)
	}
	if _, ok := kept.WithoutFigures().labelKey("d", []string{"operating", "income"}, false); ok {
		t.Error("a catalog without figures finds a label")
	}
}
