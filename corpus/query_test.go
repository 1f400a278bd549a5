package corpus_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
)

func TestAnalyzeQuestion(t *testing.T) {
	tests := []struct {
		name    string
		q       string
		drop    []string
		tickers []string
		want    []string
		years   []int
	}{
		{
			name:  "instructions and definitions go, line items and statements stay",
			q:     "What was the capital expenditure intensity in FY2021, defined as purchases of property and equipment divided by total revenue? Give the answer as a percentage rounded to one decimal place, relying on the cash flow statement.",
			want:  []string{"capital", "expenditure", "intensity", "purchases", "property", "equipment", "total", "revenue", "cash", "flow", "statement", "2021"},
			years: []int{2021},
		},
		{
			name:  "a statement's shorthand is the statement's name",
			q:     "From the P&L and the B/S, what were FY22 net sales and total assets?",
			want:  []string{"income", "statement", "balance", "sheet", "net", "sales", "total", "assets", "2022"},
			years: []int{2022},
		},
		{
			name:    "the issuer the filter selects is not searched for",
			q:       "How much did Acme Widgets return to shareholders in fiscal 2022 through ACME's buybacks? Answer in USD millions.",
			drop:    []string{"acme", "widgets", "inc"},
			tickers: []string{"ACME"},
			want:    []string{"return", "shareholders", "fiscal", "2022", "buybacks"},
			years:   []int{2022},
		},
		{
			name:  "two-digit fiscal years and typographic apostrophes",
			q:     "Compare the company’s gross margin in FY23 versus 2022 and explain the change in one or two sentences.",
			want:  []string{"company", "gross", "margin", "2022", "change", "2023"},
			years: []int{2023, 2022},
		},
		{
			name:  "a year end and a quarter written as analysts write them",
			q:     "How much did inventory change between YE19 and YE20, and what was revenue in Q3'23 vs. 3Q22?",
			want:  []string{"inventory", "change", "revenue", "q3", "2019", "2020", "2023", "2022"},
			years: []int{2019, 2020, 2023, 2022},
		},
		{
			name:  "halves, runs of months and a year after an apostrophe",
			q:     "Compare 1H24 capex with 9M25 and with the June ’23 quarter, in percent of sales.",
			want:  []string{"capex", "june", "23", "quarter", "sales", "2024", "2025", "2023"},
			years: []int{2024, 2025, 2023},
		},
		{
			name:  "no year where none is written as one",
			q:     "What did the 3M 10-K say about Q4 and H1 demand, and about 10m units?",
			want:  []string{"3m", "10", "k", "say", "q4", "h1", "demand", "10m", "units"},
			years: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := corpus.AnalyzeQuestion(tt.q, tt.drop, tt.tickers)
			if !slices.Equal(got.Words, tt.want) {
				t.Errorf("words = %q, want %q", got.Words, tt.want)
			}
			if !slices.Equal(got.Years, tt.years) {
				t.Errorf("years = %v, want %v", got.Years, tt.years)
			}
		})
	}
}

// FuzzAnalyzeQuestion checks that any question is read without panic, that
// every year it finds is a four-digit year, and that no word searched for
// is a period word ("FY21") whose year is already in Years.
func FuzzAnalyzeQuestion(f *testing.F) {
	for _, q := range []string{
		"What was capex in FY2021 and FY'22?",
		"Inventory at YE19 vs. YE20, and 1H24 sales in the June ’23 quarter; 9M25 Q3'23 3Q22.",
		"'23 '9 FY fy2 q5'23 4h21 100m2021",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := corpus.AnalyzeQuestion(q, nil, nil)
		for _, y := range got.Years {
			if y < 1900 || y > 9999 {
				t.Errorf("AnalyzeQuestion(%q): year %d", q, y)
			}
		}
		for _, w := range got.Words {
			if len(w) > 2 && (strings.HasPrefix(w, "fy") || strings.HasPrefix(w, "ye")) && strings.Trim(w[2:], "0123456789") == "" && (len(w) == 4 || len(w) == 6) {
				t.Errorf("AnalyzeQuestion(%q): period word %q searched for", q, w)
			}
		}
	})
}

func TestIsLongQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"gross margin decreased due to": false,
		"What was the company's capital expenditure in fiscal 2021 relying on the cash flow statement?": true,
		`What was the "free cash flow" the company reported for fiscal 2021 in its annual report?`:      false,
		"What was the company's revenue in fiscal 2021 excluding -tariff effects on the top line?":      false,
		"Acme FY22 capex as a share of revenue, one decimal, from the cash flow statement.":             true,
		// Short, but written as a question or a sentence: analyst shorthand.
		"META 2025 capex guide?": true,
		"Meta 2024 FCF, $bn.":    true,
		"Apple FY24 revenue":     false,
		"capex?":                 false,
		// A planner's keywords, however many, are searched as written.
		"total net sales cost of sales gross margin operating income research and development expense": false,
	} {
		if got := corpus.IsLongQuestion(q); got != want {
			t.Errorf("IsLongQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestAnalyzeQuestionReasons(t *testing.T) {
	for q, want := range map[string]bool{
		"Why did the company's effective tax rate rise in fiscal 2022 compared with 2021?":          true,
		"Does management expect gross margin pressure to persist into fiscal 2025, and why?":        true,
		"What was the company's capital expenditure in fiscal 2022 per the cash flow statement?":    false,
		"How much did the company return to shareholders through buybacks and dividends in FY2021?": false,
	} {
		if got := corpus.AnalyzeQuestion(q, nil, nil).Reasons; got != want {
			t.Errorf("AnalyzeQuestion(%q).Reasons = %v, want %v", q, got, want)
		}
	}
}
