package tools

import (
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
)

func TestWithoutSuperseded(t *testing.T) {
	end := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	doc := func(id, ticker, form, pe string, f corpus.Format) corpus.Document {
		return corpus.Document{ID: id, Ticker: ticker, Form: form, PeriodEnd: end(pe), Format: f}
	}
	tests := []struct {
		name string
		docs []corpus.Document
		want []string
	}{
		{"the filing's own document supersedes its company facts",
			[]corpus.Document{doc("cf", "ACME", "10-K XBRL", "2024-12-31", corpus.FormatCompanyFacts), doc("own", "ACME", "10-K", "2024-12-31", corpus.FormatHTML)},
			[]string{"own"}},
		{"a text copy of the filing supersedes them too",
			[]corpus.Document{doc("txt", "ACME", "10-K", "2024-12-31", corpus.FormatText), doc("cf", "ACME", "10-K XBRL", "2024-12-31", corpus.FormatCompanyFacts)},
			[]string{"txt"}},
		{"another year, form or issuer does not",
			[]corpus.Document{doc("cf23", "ACME", "10-K XBRL", "2023-12-31", corpus.FormatCompanyFacts), doc("own", "ACME", "10-K", "2024-12-31", corpus.FormatHTML),
				doc("cfq", "ACME", "10-Q XBRL", "2024-12-31", corpus.FormatCompanyFacts), doc("cfb", "BETA", "10-K XBRL", "2024-12-31", corpus.FormatCompanyFacts)},
			[]string{"cf23", "own", "cfq", "cfb"}},
		{"company facts alone stay", []corpus.Document{doc("cf", "ACME", "10-K XBRL", "2024-12-31", corpus.FormatCompanyFacts)}, []string{"cf"}},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range withoutSuperseded(tt.docs) {
			got = append(got, d.ID)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			}
		}
	}
}

func TestCheckFormReadsCompanyFactsForms(t *testing.T) {
	for in, want := range map[string]string{"10-K XBRL": "10-K", "10-q xbrl": "10-Q", "10-K": "10-K", "": ""} {
		if got, err := checkForm(SearchFilings, in); err != nil || got != want {
			t.Errorf("checkForm(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := checkForm(SearchFilings, "8-K XBRL"); err == nil {
		t.Error("8-K XBRL accepted")
	}
}
