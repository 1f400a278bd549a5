package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseHTMLEntity(t *testing.T) {
	doc := ixDoc(`<div><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="FY">Example <b>Devices</b>, Inc.</ix:nonNumeric></div>
<div>Trading symbol <ix:nonNumeric name="dei:TradingSymbol" contextRef="FY">exd</ix:nonNumeric> and
<ix:nonNumeric name="dei:TradingSymbol" contextRef="FY">EXDW</ix:nonNumeric>, CIK <ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="FY">0000012345</ix:nonNumeric></div>
<table><tr><td>Total net sales</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">391,035</ix:nonFraction></td></tr>
<tr><td>Products</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY_iPhone" unitRef="usd" decimals="-6" scale="6">201,183</ix:nonFraction></td></tr></table>
<p>Revenue was $<ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">391,035</ix:nonFraction> million.</p>`)
	p, err := ParseHTML(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	e := p.Entity
	if e.Registrant != "Example Devices, Inc." || e.CIK != "12345" || !slices.Equal(e.Symbols, []string{"EXD", "EXDW"}) {
		t.Errorf("entity = %+v", e)
	}
	if !slices.Equal(e.Members, []string{"country:US", "us-gaap:ProductMember"}) {
		t.Errorf("members = %q", e.Members)
	}
	var labels []string
	for _, f := range p.Facts {
		if f.Kind != FactXBRL {
			t.Errorf("fact %s kind %q, want %q", f.Concept, f.Kind, FactXBRL)
		}
		if f.Concept == "us-gaap:Revenues" {
			labels = append(labels, f.Label)
		}
	}
	if want := []string{"Total net sales", "Products", ""}; !slices.Equal(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
}

func TestRowLabel(t *testing.T) {
	long := strings.Repeat("é", maxLabel)
	tests := []struct {
		text, value, want string
	}{
		{"Total net sales | 391,035 | 383,285\n", "383,285", "Total net sales"},
		{"x\nCost of sales | 210,352\n", "210,352", "Cost of sales"},
		{"Revenue was 391,035 in 2024.\n", "391,035", ""},
		{"2024 | 2023\n", "2023", ""},
		{long + " | 5\n", "5", long[:maxLabel]},
	}
	for _, tt := range tests {
		i := strings.LastIndex(tt.text, tt.value)
		if got := rowLabel(tt.text, i, i+len(tt.value)); got != tt.want {
			t.Errorf("rowLabel(%q, %q) = %q, want %q", tt.text, tt.value, got, tt.want)
		}
	}
}

func TestParseHTMLEntityOfFiling(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "corpus", "edgar", "amzn-10-k-2025-02-07.html")
	f, err := os.Open(path)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the sample corpus is required under CI: %v", err)
		}
		t.Skipf("sample corpus not found: %v", err)
	}
	defer f.Close()
	p, err := ParseHTML(f)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Entity
	if e.Registrant != "AMAZON.COM, INC." || e.CIK != "1018724" || !slices.Equal(e.Symbols, []string{"AMZN"}) {
		t.Errorf("entity = %q %q %q", e.Registrant, e.CIK, e.Symbols)
	}
	if !slices.Contains(e.Members, "amzn:AmazonWebServicesSegmentMember") {
		t.Errorf("members lack the AWS segment: %q", e.Members)
	}
}
