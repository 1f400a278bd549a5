package corpus

import (
	"testing"
	"time"
)

// TestTableFactsQuarters reads the tables of quarters an annual report
// prints: the year above the header, and a year line before each block.
func TestTableFactsQuarters(t *testing.T) {
	tests := []struct {
		name       string
		fiscalYear int
		periodEnd  string
		text       string
		want       []tableWant
		facts      int
	}{
		{
			name: "year above the header", fiscalYear: 2020, periodEnd: "2020-12-26",
			text: `Financial Information by Quarter (Unaudited)
2020 for Quarter Ended
(In Millions, Except Per Share Amounts) December 26 September 26 June 27 March 28
Net revenue $ 19,978 $ 18,333 $ 19,728 $ 19,828
Earnings per share—diluted $ 1.42 $ 1.02 $ 1.19 $ 1.31

2019 for Quarter Ended
(In Millions, Except Per Share Amounts) December 28 September 28 June 29 March 30
Net revenue $ 20,209 $ 19,190 $ 16,505 $ 16,061
Earnings per share—diluted $ 1.58 $ 1.35 $ 0.92 $ 0.87
`,
			want: []tableWant{
				{"Net revenue", "19,978", "19978000000", "USD", "2020-09-27..2020-12-26"},
				{"Net revenue", "18,333", "18333000000", "USD", "2020-06-27..2020-09-26"},
				{"Net revenue", "19,828", "19828000000", "USD", "2019-12-29..2020-03-28"},
				{"Net revenue", "20,209", "20209000000", "USD", "2019-09-29..2019-12-28"},
				{"Earnings per share—diluted", "0.87", "0.87", "USD/shares", "2018-12-31..2019-03-30"},
			},
			facts: 16,
		},
		{
			name: "a year line before each block", fiscalYear: 2022, periodEnd: "2022-12-31",
			text: `The following table presents our total net revenues for the periods indicated (in millions, except percentages):
Quarter Ended
March 31 June 30 September 30 December 31
2021
Net revenues $ 2,638 $ 2,668 $ 2,501 $ 2,613
% change from prior quarter 6% 1% (6)% 4%
2022
Net revenues $ 2,483 $ 2,422 $ 2,380 $ 2,510
% change from prior quarter (5)% (2)% (2)% 5%
`,
			want: []tableWant{
				{"Net revenues", "2,638", "2638000000", "USD", "2021-01-01..2021-03-31"},
				{"Net revenues", "2,613", "2613000000", "USD", "2021-10-01..2021-12-31"},
				{"Net revenues", "2,510", "2510000000", "USD", "2022-10-01..2022-12-31"},
				{"% change from prior quarter", "5%", "0.05", "pure", "2022-10-01..2022-12-31"},
			},
			facts: 16,
		},
		{
			// A fiscal year ending in September: its December quarter
			// is of the calendar year before.
			name: "a fiscal year across calendar years", fiscalYear: 2021, periodEnd: "2021-09-25",
			text: `Fiscal 2021 Quarters Ended
(In millions) September 25 June 26 March 27 December 26
Net sales $ 83,360 $ 81,434 $ 89,584 $ 111,439
`,
			want: []tableWant{
				{"Net sales", "111,439", "111439000000", "USD", "2020-09-27..2020-12-26"},
				{"Net sales", "83,360", "83360000000", "USD", "2021-06-26..2021-09-25"},
			},
			facts: 4,
		},
		{
			// No column closes the year: the year line names a calendar
			// year the fiscal year does not end in, so nothing is read.
			name: "no column ends the year", fiscalYear: 2021, periodEnd: "2021-09-25",
			text: `2021 for Quarter Ended
(In millions) December 31 March 31
Net sales $ 1,000 $ 2,000
`,
			facts: 0,
		},
		{
			name: "month-days without a quarter phrase", fiscalYear: 2022, periodEnd: "2022-12-31",
			text: `(In millions)
March 31 June 30 September 30 December 31
Net revenues $ 2,483 $ 2,422 $ 2,380 $ 2,510
`,
			facts: 0,
		},
		{
			name: "a year line far from its header", fiscalYear: 2022, periodEnd: "2022-12-31",
			text: `(in millions)
Quarter Ended
March 31 June 30 September 30 December 31
Revenue grew in every quarter of the year as the business expanded across regions.
2022
Net revenues $ 2,483 $ 2,422 $ 2,380 $ 2,510
`,
			facts: 0,
		},
		{
			name: "a year after the filing's", fiscalYear: 2022, periodEnd: "2022-12-31",
			text: `2023 for Quarter Ended
(In millions) March 31 December 31
Net revenues $ 2,483 $ 2,510
`,
			facts: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tableDoc(t, "10-K", tt.fiscalYear, tt.periodEnd, tt.text)
			facts := TableFacts(doc)
			tableCheck(t, doc, facts, tt.want)
			if len(facts) != tt.facts {
				t.Errorf("%d facts, want %d:\n%s", len(facts), tt.facts, tableDump(doc, facts))
			}
			for _, f := range facts {
				if d := f.PeriodEnd.Sub(f.PeriodStart); d > 100*24*time.Hour {
					t.Errorf("fact %q lasts %v, not a quarter", f.Label, d)
				}
			}
		})
	}
	// A quarterly report's month-days are not read as an annual report's
	// quarters.
	doc := tableDoc(t, "10-Q", 2022, "2022-09-30", "2022 for Quarter Ended\n(In millions) September 30 June 30\nNet revenues $ 2,380 $ 2,422\n")
	if facts := TableFacts(doc); len(facts) != 0 {
		t.Errorf("a 10-Q gave %d facts:\n%s", len(facts), tableDump(doc, facts))
	}
}
