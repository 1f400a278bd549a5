package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
)

func TestGenerateQueries(t *testing.T) {
	t.Parallel()
	v := BuiltinVocabulary(1000, 1)
	tickers := []string{"AAPL", "MSFT", "NVDA"}
	qs := GenerateQueries(v, tickers, 90, 5)
	if !slices.EqualFunc(qs, GenerateQueries(v, tickers, 90, 5), queryEqual) {
		t.Error("the same seed gave other queries")
	}
	if slices.EqualFunc(qs, GenerateQueries(v, tickers, 90, 6), queryEqual) {
		t.Error("another seed gave the same queries")
	}
	content := map[string]bool{}
	for _, r := range v.content {
		content[v.words[r]] = true
	}
	var rare, filtered int
	for i, q := range qs {
		words := strings.Fields(q.Text)
		if len(words) < 2 || len(words) > 5 || len(slices.Compact(slices.Sorted(slices.Values(words)))) != len(words) {
			t.Errorf("query %q: want 2 to 5 distinct words", q.Text)
		}
		for _, w := range words {
			if !content[w] {
				t.Errorf("query %q: %q is not a content word", q.Text, w)
			}
			if slices.Index(v.words, w) >= 300 {
				rare++
			}
		}
		switch {
		case i%3 == 2 && (len(q.Filter.Tickers) != 1 || !slices.Contains(tickers, q.Filter.Tickers[0])):
			t.Errorf("query %d: filter %+v, want one of the tickers", i, q.Filter)
		case i%3 != 2 && q.filtered():
			t.Errorf("query %d: filter %+v, want none", i, q.Filter)
		}
		if q.filtered() {
			filtered++
		}
	}
	if rare == 0 {
		t.Error("no query has a rare word")
	}
	if filtered != 30 {
		t.Errorf("%d filtered queries, want 30", filtered)
	}
}

func queryEqual(a, b Query) bool {
	return a.Text == b.Text && slices.Equal(a.Filter.Tickers, b.Filter.Tickers)
}

func TestReadQueries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []Query
		wantErr string
	}{
		{"plain", `{"query":"gross margin"}` + "\n" + `{"query":"data center revenue","id":"r2"}`,
			[]Query{{Text: "gross margin"}, {Text: "data center revenue"}}, ""},
		{"filters", `{"query":"margin","tickers":["AAPL"],"fiscal_years":[2024],"form":"10-K","section":"Item 7","answers":[]}`,
			[]Query{{Text: "margin", Filter: corpus.Filter{Tickers: []string{"AAPL"}, FiscalYears: []int{2024}, Form: "10-K", Section: "Item 7"}}}, ""},
		{"blank lines", "\n  \n" + `{"query":"a b"}` + "\n\n", []Query{{Text: "a b"}}, ""},
		{"empty", "", nil, ""},
		{"bad json", `{"query":"a"}` + "\n{oops", nil, "line 2"},
		{"no query", `{"question":"a"}`, nil, `line 1: no "query"`},
	}
	for _, tt := range tests {
		got, err := ReadQueries(strings.NewReader(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want one mentioning %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.EqualFunc(got, tt.want, func(a, b Query) bool {
			return a.Text == b.Text && slices.Equal(a.Filter.Tickers, b.Filter.Tickers) &&
				slices.Equal(a.Filter.FiscalYears, b.Filter.FiscalYears) && a.Filter.Form == b.Filter.Form && a.Filter.Section == b.Filter.Section
		}) {
			t.Errorf("%s: ReadQueries = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestDefaultQueries(t *testing.T) {
	t.Parallel()
	qs := DefaultQueries()
	if len(qs) != 30 {
		t.Errorf("%d default queries, want 30", len(qs))
	}
	for _, q := range qs {
		if q.filtered() || len(strings.Fields(q.Text)) < 2 {
			t.Errorf("default query %+v", q)
		}
	}
}
