package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// tableDoc is a filing whose canonical text is text.
func tableDoc(t testing.TB, form string, fiscalYear int, periodEnd, text string) *Document {
	t.Helper()
	if Canonicalize(text) != text {
		t.Fatalf("fixture is not canonical text:\n%q\n%q", text, Canonicalize(text))
	}
	end, err := time.Parse(time.DateOnly, periodEnd)
	if err != nil {
		t.Fatal(err)
	}
	return &Document{ID: DocumentID(text), Form: form, FiscalYear: fiscalYear, PeriodEnd: end, Text: text}
}

// tableWant is what a test expects of one fact: its label, its printed
// text, its value, unit and period ("2022-01-01..2022-12-31" for a
// duration, "2022-12-31" for an instant).
type tableWant struct {
	label, printed, value, unit, period string
}

func tablePeriodOf(f Fact) string {
	if f.Instant {
		return f.PeriodEnd.Format(time.DateOnly)
	}
	return f.PeriodStart.Format(time.DateOnly) + ".." + f.PeriodEnd.Format(time.DateOnly)
}

// tableFind returns the fact of a label, period and unit.
func tableFind(facts []Fact, label, period, unit string) (Fact, bool) {
	for _, f := range facts {
		if f.Label == label && tablePeriodOf(f) == period && f.Unit == unit {
			return f, true
		}
	}
	return Fact{}, false
}

// tableCheck holds facts to the invariants every table fact keeps and to
// the facts wanted.
func tableCheck(t *testing.T, doc *Document, facts []Fact, want []tableWant) {
	t.Helper()
	tableCheckSpans(t, doc, facts)
	for _, w := range want {
		f, ok := tableFind(facts, w.label, w.period, w.unit)
		if !ok {
			t.Errorf("no fact %q for %s; facts:\n%s", w.label, w.period, tableDump(doc, facts))
			continue
		}
		if got := doc.Text[f.Start:f.End]; got != w.printed {
			t.Errorf("%q %s: span holds %q, want %q", w.label, w.period, got, w.printed)
		}
		if !f.Value.Equal(decimal.RequireFromString(w.value)) || f.Unit != w.unit {
			t.Errorf("%q %s = %s %s, want %s %s", w.label, w.period, f.Value, f.Unit, w.value, w.unit)
		}
	}
}

func tableCheckSpans(t *testing.T, doc *Document, facts []Fact) {
	t.Helper()
	pages := NewPageIndex(doc.Text)
	for _, f := range facts {
		if f.Start < 0 || f.Start >= f.End || f.End > len(doc.Text) {
			t.Fatalf("fact %q has span [%d:%d] in a text of %d bytes", f.Label, f.Start, f.End, len(doc.Text))
		}
		span := doc.Text[f.Start:f.End]
		if !strings.ContainsAny(span, "0123456789") || strings.ContainsAny(span, "\n\f$") {
			t.Errorf("fact %q spans %q", f.Label, span)
		}
		if pages.Page(f.Start) != pages.Page(f.End-1) {
			t.Errorf("fact %q spans a page break", f.Label)
		}
		part, hasPart := f.Dimensions[TablePartAxis]
		if f.Kind != FactTable || f.Concept != "" || f.DocumentID != doc.ID || f.Label == "" ||
			f.Dimensions != nil && (len(f.Dimensions) != 1 || !hasPart || len(part) <= len(TablePartPrefix) || !strings.HasPrefix(part, TablePartPrefix)) {
			t.Errorf("fact %q: kind %q, concept %q, dimensions %v, document %q", f.Label, f.Kind, f.Concept, f.Dimensions, f.DocumentID)
		}
		switch {
		case f.Instant && !f.PeriodStart.IsZero(),
			!f.Instant && !f.PeriodStart.Before(f.PeriodEnd),
			f.PeriodEnd.After(doc.PeriodEnd.AddDate(0, 0, maxTableFutureDays)):
			t.Errorf("fact %q has period %s", f.Label, tablePeriodOf(f))
		}
		switch f.Unit {
		case "USD", "USD/shares", "shares", "pure":
		default:
			t.Errorf("fact %q has unit %q", f.Label, f.Unit)
		}
	}
}

func tableDump(doc *Document, facts []Fact) string {
	var b strings.Builder
	for _, f := range facts {
		fmt.Fprintf(&b, "  %q %s %s %s dec %s %q\n", f.Label, tablePeriodOf(f), f.Value, f.Unit, f.Decimals, doc.Text[f.Start:f.End])
	}
	return b.String()
}

func TestTableFactsIncomeStatement(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-12-31", `ACME CORP
CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share amounts)
2022 2021 2020
Revenue $ 1,234 $ 1,100 $ 990
Cost of sales 700 650 600
Gross margin 534 450 390
Other income (expense), net (45) 12 —
Net income $ 400 $ 350 $ 300
Earnings per share:
Basic $ 2.01 $ 1.75 $ 1.50
Diluted $ 1.99 $ 1.73 $ 1.48
Weighted-average shares outstanding:
Basic 199 200 201
Diluted 201 202 203
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Revenue", "1,234", "1234000000", "USD", "2022-01-01..2022-12-31"},
		{"Revenue", "1,100", "1100000000", "USD", "2021-01-01..2021-12-31"},
		{"Revenue", "990", "990000000", "USD", "2020-01-01..2020-12-31"},
		{"Cost of sales", "650", "650000000", "USD", "2021-01-01..2021-12-31"},
		{"Other income (expense), net", "(45)", "-45000000", "USD", "2022-01-01..2022-12-31"},
		{"Diluted", "1.99", "1.99", "USD/shares", "2022-01-01..2022-12-31"},
		{"Basic", "1.50", "1.5", "USD/shares", "2020-01-01..2020-12-31"},
		{"Diluted", "201", "201000000", "shares", "2022-01-01..2022-12-31"},
	})
	if _, ok := tableFind(facts, "Other income (expense), net", "2020-01-01..2020-12-31", "USD"); ok {
		t.Error("a dash gave a fact")
	}
	if f, _ := tableFind(facts, "Revenue", "2022-01-01..2022-12-31", "USD"); f.Decimals != "-6" {
		t.Errorf("revenue decimals = %q, want -6", f.Decimals)
	}
	if f, _ := tableFind(facts, "Diluted", "2022-01-01..2022-12-31", "USD/shares"); f.Decimals != "2" {
		t.Errorf("EPS decimals = %q, want 2", f.Decimals)
	}
	if n := len(facts); n != 9*3-1 {
		t.Errorf("%d facts, want %d", n, 9*3-1)
	}
}

func TestTableFactsBalanceSheet(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-09-24", `CONSOLIDATED BALANCE SHEETS
(In millions, except number of shares, which are reflected in thousands, and par value)
September 24, September 25,
2022 2021
ASSETS:
Current assets:
Cash and cash equivalents $ 23,646 $ 34,940
Inventories 4,946 6,580
Total assets $ 352,755 $ 351,002
Shareholders’ equity:
Common stock and additional paid-in capital, $0.00001 par value: 50,400,000 shares
authorized; 15,943,425 and 16,426,786 shares issued and outstanding, respectively 64,849 57,365
Retained earnings/(Accumulated deficit) (3,068) 5,562
`)
	facts := TableFacts(doc)
	const label = "Common stock and additional paid-in capital, $0.00001 par value: 50,400,000 shares " +
		"authorized; 15,943,425 and 16,426,786 shares issued and outstanding, respectively"
	tableCheck(t, doc, facts, []tableWant{
		{"Cash and cash equivalents", "23,646", "23646000000", "USD", "2022-09-24"},
		{"Cash and cash equivalents", "34,940", "34940000000", "USD", "2021-09-25"},
		{"Inventories", "6,580", "6580000000", "USD", "2021-09-25"},
		{"Total assets", "352,755", "352755000000", "USD", "2022-09-24"},
		{label, "64,849", "64849000000", "USD", "2022-09-24"},
		{"Retained earnings/(Accumulated deficit)", "(3,068)", "-3068000000", "USD", "2022-09-24"},
	})
	for _, f := range facts {
		if !f.Instant {
			t.Errorf("%q is not an instant", f.Label)
		}
	}
}

func TestTableFactsQuarterAndYearToDate(t *testing.T) {
	doc := tableDoc(t, "10-Q", 2023, "2023-07-01", `CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)
(In millions, except number of shares which are reflected in thousands and per share amounts)

Three Months Ended Nine Months Ended
July 1, June 25, July 1, June 25,
2023 2022 2023 2022
Net sales:
Products $ 60,584 $ 63,355 $ 230,901 $ 245,241
Services 21,213 19,604 62,886 58,941
Total net sales 81,797 82,959 293,787 304,182
Earnings per share:
Diluted $ 1.26 $ 1.20 $ 4.67 $ 4.82
Shares used in computing earnings per share:
Diluted 15,775,021 16,262,203 15,859,263 16,394,937
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Total net sales", "81,797", "81797000000", "USD", "2023-04-02..2023-07-01"},
		{"Total net sales", "82,959", "82959000000", "USD", "2022-03-26..2022-06-25"},
		{"Total net sales", "293,787", "293787000000", "USD", "2022-10-02..2023-07-01"},
		{"Total net sales", "304,182", "304182000000", "USD", "2021-09-26..2022-06-25"},
		{"Products", "60,584", "60584000000", "USD", "2023-04-02..2023-07-01"},
		{"Diluted", "4.67", "4.67", "USD/shares", "2022-10-02..2023-07-01"},
		{"Diluted", "15,775,021", "15775021000", "shares", "2023-04-02..2023-07-01"},
	})
	if len(facts) != 5*4 {
		t.Errorf("%d facts, want 20:\n%s", len(facts), tableDump(doc, facts))
	}
}

// TestTableFactsHeaders reads the period headers filings print.
func TestTableFactsHeaders(t *testing.T) {
	for _, tt := range []struct {
		name, form, end string
		fy              int
		header          string
		want            []string // periods of the columns, in order
	}{
		{"years ended, dates on their own line", "10-K", "2022-09-24", 2022,
			"Years ended\nSeptember 24, September 25, September 26,\n2022 2021 2020",
			[]string{"2021-09-26..2022-09-24", "2020-09-27..2021-09-25", "2019-09-27..2020-09-26"}},
		{"month and day before bare years", "10-K", "2022-06-30", 2022,
			"Year Ended June 30, 2022 2021 2020",
			[]string{"2021-07-01..2022-06-30", "2020-07-01..2021-06-30", "2019-07-01..2020-06-30"}},
		{"years ended line above years", "10-K", "2022-12-31", 2022,
			"Year Ended December 31,\n2021 2022",
			[]string{"2021-01-01..2021-12-31", "2022-01-01..2022-12-31"}},
		{"caption and dates on the header line", "10-K", "2020-12-26", 2020,
			"Years Ended (In Millions) Dec 26, 2020 Dec 28, 2019",
			// The earliest column starts 12 months before its end: a
			// 52/53-week year is off by a few days.
			[]string{"2019-12-29..2020-12-26", "2018-12-29..2019-12-28"}},
		{"balance sheet dates", "10-K", "2020-12-26", 2020,
			"(In Millions, Except Par Value) Dec 26, 2020 Dec 28, 2019",
			[]string{"2020-12-26", "2019-12-28"}},
		{"as of", "10-K", "2022-12-31", 2022,
			"As of December 31,\n2022 2021",
			[]string{"2022-12-31", "2021-12-31"}},
		{"fiscal year", "10-K", "2023-05-31", 2023,
			"Fiscal Year 2023",
			[]string{"2022-06-01..2023-05-31"}},
		{"six months on one line", "10-Q", "2023-07-01", 2023,
			"Six Months Ended July 1, 2023 June 25, 2022",
			[]string{"2023-01-02..2023-07-01", "2021-12-26..2022-06-25"}},
		{"52 weeks", "10-K", "2022-08-28", 2022,
			"52 Weeks Ended\nAugust 28, August 29, August 30,\n2022 2021 2020",
			[]string{"2021-08-30..2022-08-28", "2020-08-31..2021-08-29", "2019-08-31..2020-08-30"}},
		{"fiscal years of a retailer", "10-K", "2022-01-31", 2022,
			"Fiscal Years Ended January 31,\n(Amounts in millions) 2022 2021 2020",
			[]string{"2021-02-01..2022-01-31", "2020-02-01..2021-01-31", "2019-02-01..2020-01-31"}},
		{"bare years in a 10-K name fiscal years", "10-K", "2022-09-24", 2022,
			"2022 2021 2020",
			[]string{"2021-09-25..2022-09-24", "2020-09-25..2021-09-24", "2019-09-25..2020-09-24"}},
		{"change columns", "10-K", "2023-05-31", 2023,
			"Year Ended May 31,\nPercent Change\n(Dollars in millions) 2023 Actual Constant 2022",
			[]string{"2022-06-01..2023-05-31", "2021-06-01..2022-05-31"}},
		{"versus column", "10-K", "2022-12-31", 2022,
			"Year ended December 31,\n2022 2021 2020 2022 vs. 2021",
			[]string{"2022-01-01..2022-12-31", "2021-01-01..2021-12-31", "2020-01-01..2020-12-31"}},
		{"years only in a 10-Q", "10-Q", "2023-07-01", 2023, "2023 2022", nil},
		{"months without days", "10-K", "2022-09-24", 2022,
			"September September September\n2020 2021 2022", nil},
		{"future years", "10-K", "2022-12-31", 2022, "2023 2024 2025", nil},
		{"the same year twice", "10-K", "2022-01-31", 2022,
			"Fiscal Years Ended January 31,\n2022 2021 2022 2021", nil},
		{"as of and ended", "10-K", "2022-12-31", 2022,
			"As of/ Year Ended December 31,\n2022 2021 2020", nil},
		{"a date in a sentence", "10-K", "2022-12-31", 2022, "Dated June 1, 2020", nil},
		{"comparisons only", "10-K", "2020-12-26", 2020, "2020 vs. 2019 2019 vs. 2018", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// One row of as many cells as columns, each cell its column's number.
			var cells []string
			for i := range max(len(tt.want), 1) {
				cells = append(cells, fmt.Sprintf("%d", 101+i))
			}
			if strings.Contains(tt.header, "Change") || strings.Contains(tt.header, "vs.") {
				cells = append(cells, "5%")
			}
			text := "(In millions)\n" + tt.header + "\nRevenue $ " + strings.Join(cells, " ") + "\n"
			doc := tableDoc(t, tt.form, tt.fy, tt.end, text)
			facts := TableFacts(doc)
			tableCheckSpans(t, doc, facts)
			var got []string
			for _, f := range facts {
				got = append(got, tablePeriodOf(f))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("periods %v, want %v\n%s", got, tt.want, tableDump(doc, facts))
			}
		})
	}
}

func TestTableFactsPageBreak(t *testing.T) {
	t.Run("continued", func(t *testing.T) {
		doc := tableDoc(t, "10-K", 2022, "2022-12-31", `CONSOLIDATED STATEMENTS OF CASH FLOWS
(In millions)
Year Ended December 31,
2022 2021
Net income $ 100 $ 90
Depreciation 60 55
Acme Corp. | 2022 Form 10-K | 41
`+"\f\n"+`Table of Contents
Acme Corp.
CONSOLIDATED STATEMENTS OF CASH FLOWS (continued)
Purchases of property and equipment (20) (18)
Net cash used in investing activities $ (20) $ (18)
`)
		facts := TableFacts(doc)
		tableCheck(t, doc, facts, []tableWant{
			{"Depreciation", "60", "60000000", "USD", "2022-01-01..2022-12-31"},
			{"Purchases of property and equipment", "(18)", "-18000000", "USD", "2021-01-01..2021-12-31"},
			{"Net cash used in investing activities", "(20)", "-20000000", "USD", "2022-01-01..2022-12-31"},
		})
		if len(facts) != 8 {
			t.Errorf("%d facts, want 8 (the page footer is not a row):\n%s", len(facts), tableDump(doc, facts))
		}
	})
	t.Run("new header wins", func(t *testing.T) {
		doc := tableDoc(t, "10-K", 2022, "2022-12-31", `(In millions)
Year Ended December 31,
2022 2021
Revenue $ 100 $ 90
41
`+"\f\n"+`Year Ended December 31,
2021 2020
Revenue $ 90 $ 80
`)
		facts := TableFacts(doc)
		tableCheck(t, doc, facts, []tableWant{
			{"Revenue", "100", "100000000", "USD", "2022-01-01..2022-12-31"},
			{"Revenue", "80", "80000000", "USD", "2020-01-01..2020-12-31"},
		})
		if len(facts) != 4 {
			t.Errorf("%d facts, want 4:\n%s", len(facts), tableDump(doc, facts))
		}
	})
}

func TestTableFactsWithoutHeader(t *testing.T) {
	for name, text := range map[string]string{
		"no period header": "(In millions)\nRevenue $ 1,234 $ 1,100 $ 990\nCost of sales 700 650 600\n",
		"after prose": "(In millions)\n2022 2021\nRevenue $ 1,234 $ 1,100\n" +
			"Revenue grew because customers bought more anvils than they did in any year before, as the table above shows.\n" +
			"Anvils $ 500 $ 400\n",
		"no unit":    "2022 2021\nCustomers 1,234 1,100\nStores 70 65\n",
		"chart axis": "$21.8 $22.1 $16.9\n$14.3 $12.2\n2018 2019 2020\n",
	} {
		t.Run(name, func(t *testing.T) {
			doc := tableDoc(t, "10-K", 2022, "2022-12-31", text)
			facts := TableFacts(doc)
			if name == "after prose" {
				// The table before the paragraph gives facts; the rows after it do not.
				for _, f := range facts {
					if f.Label != "Revenue" {
						t.Errorf("fact %q after the table ended", f.Label)
					}
				}
				return
			}
			if len(facts) > 0 {
				t.Errorf("facts from a table without a period header or unit:\n%s", tableDump(doc, facts))
			}
		})
	}
}

func TestTableFactsChangeColumns(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-09-24", `The following table shows net sales by category for 2022, 2021 and 2020 (dollars in millions):
2022 Change 2021 Change 2020
Net sales by category:
iPhone (1) $ 205,489 7% $ 191,973 39 % $ 137,781
iPad (1) 29,292 (8)% 31,862 34 % 23,724
Total net sales $ 394,328 8% $ 365,817 33 % $ 274,515

Year Ended September 24, Change
2022 2021 2020 2022 vs. 2021
(in millions, except percentages)
Cost of revenues $ 19,168 $ 17,332 $ 15,276 $ 1,836 11 %
As a percentage of revenues 61 % 58 % 61 %

SUMMARY RESULTS OF OPERATIONS
Percentage
(In millions, except percentages and per share amounts) 2022 2021 Change
Revenue $ 198,270 $ 168,088 18%
Gross margin percentage 68% 69%
Diluted earnings per share $ 9.65 $ 8.05 20%
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"iPhone (1)", "205,489", "205489000000", "USD", "2021-09-25..2022-09-24"},
		{"iPad (1)", "31,862", "31862000000", "USD", "2020-09-25..2021-09-24"},
		{"Total net sales", "274,515", "274515000000", "USD", "2019-09-25..2020-09-24"},
		{"Revenue", "168,088", "168088000000", "USD", "2020-09-25..2021-09-24"},
		{"Gross margin percentage", "68%", "0.68", "pure", "2021-09-25..2022-09-24"},
		{"Diluted earnings per share", "9.65", "9.65", "USD/shares", "2021-09-25..2022-09-24"},
		{"Cost of revenues", "15,276", "15276000000", "USD", "2019-09-25..2020-09-24"},
		{"As a percentage of revenues", "58 %", "0.58", "pure", "2020-09-25..2021-09-24"},
	})
	for _, f := range facts {
		if s := doc.Text[f.Start:f.End]; s == "7%" || s == "39 %" || s == "(8)%" || s == "18%" || s == "20%" || s == "1,836" || s == "11 %" {
			t.Errorf("a change column gave a fact: %q %s", f.Label, s)
		}
	}
	if len(facts) != 3*3+2*3+2*3 {
		t.Errorf("%d facts, want 21:\n%s", len(facts), tableDump(doc, facts))
	}
}

// TestTableFactsGroupedChanges: a table of two groups of periods, each with
// two change columns, whose ratio row prints one change per group (a
// difference in points), gives the ratio of each period; the change cells
// give none.
func TestTableFactsGroupedChanges(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-12-31", `The following table presents net revenues, GMV and take rate for the periods indicated (in millions, except percentages):
Year Ended December 31, % Change Year Ended December 31, % Change
2022 2021 As Reported FX-Neutral 2021 2020 As Reported FX-Neutral
Net revenues (1) $ 9,795 $ 10,420 (6)% (4)% $ 10,420 $ 8,894 17 % 15 %
Take rate (3) 13.25 % 11.93 % 1.32 % 11.93 % 10.15 % 1.78 %
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Net revenues (1)", "9,795", "9795000000", "USD", "2022-01-01..2022-12-31"},
		{"Take rate (3)", "13.25 %", "0.1325", "pure", "2022-01-01..2022-12-31"},
		{"Take rate (3)", "10.15 %", "0.1015", "pure", "2020-01-01..2020-12-31"},
	})
	for _, f := range facts {
		if s := doc.Text[f.Start:f.End]; s == "1.32 %" || s == "1.78 %" {
			t.Errorf("a change cell gave a fact: %q %s", f.Label, s)
		}
	}
}

// TestTableFactsProForma: a table of pro forma figures, introduced as such,
// gives no facts; the reported table after it does.
func TestTableFactsProForma(t *testing.T) {
	doc := tableDoc(t, "10-K", 2023, "2023-05-31", `The unaudited pro forma financial information is as
follows:
Year Ended May 31,
(in millions, except per share data) 2023 2022
Total revenues $ 50,065 $ 48,218
Diluted earnings per share $ 3.06 $ 1.79

The following table presents our results (in millions, except per share data):
Year Ended May 31,
2023 2022
Total revenues $ 49,954 $ 42,440
Diluted earnings per share $ 3.07 $ 2.41
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Total revenues", "49,954", "49954000000", "USD", "2022-06-01..2023-05-31"},
		{"Diluted earnings per share", "3.07", "3.07", "USD/shares", "2022-06-01..2023-05-31"},
	})
	if len(facts) != 4 {
		t.Errorf("%d facts, want the reported table's 4:\n%s", len(facts), tableDump(doc, facts))
	}
}

// TestTableFactsUnits reads units from captions, labels and headings, and
// leaves out rows whose unit cannot be told.
func TestTableFactsUnits(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-12-31", `(in thousands, except revenue per membership and percentages)
Year ended December 31,
2022 2021
Revenues $ 31,615,550 $ 29,697,844
Paid memberships at end of period 230,747 221,844
Average monthly revenue per paying membership $ 11.76 $ 11.67
Operating margin 18 % 21 %

The following table shows the shares used (shares in 000’s):
2022 2021 2020
Net income $ 5,844 $ 5,007 $ 4,002
Weighted average basic shares 443,651 443,089 442,297
RSUs 1,106 1,257 1,604
Common stock equivalents excluded from income per diluted share 13 1 5
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Revenues", "31,615,550", "31615550000", "USD", "2022-01-01..2022-12-31"},
		{"Operating margin", "18 %", "0.18", "pure", "2022-01-01..2022-12-31"},
		{"Weighted average basic shares", "443,651", "443651000", "shares", "2022-01-01..2022-12-31"},
		// A count the caption scales, at the end of the period: an
		// instant, whatever the header.
		{"Paid memberships at end of period", "230,747", "230747000", "pure", "2022-12-31"},
		// An amount the caption excepts from its scale, printed with "$".
		{"Average monthly revenue per paying membership", "11.76", "11.76", "USD", "2022-01-01..2022-12-31"},
	})
	for _, f := range facts {
		switch f.Label {
		case "RSUs", "Net income",
			"Common stock equivalents excluded from income per diluted share":
			t.Errorf("fact %q = %s %s, whose unit the table does not tell", f.Label, f.Value, f.Unit)
		}
	}
}

// TestTableFactsDifferenceRow: under a caption that excepts counts, a row
// without "$" is read as an amount where it sits between two rows of "$"
// and is, in every column, the first less the second; a row between them
// that is no such difference stays out.
func TestTableFactsDifferenceRow(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-08-28", `Item 7 (amounts in millions, except per share, share, and warehouse count data)

Gross Margin

2022 2021 2020
Net sales $ 222,730 $ 192,052 $ 163,220
Less merchandise costs 199,382 170,684 144,939
Gross margin $ 23,348 $ 21,368 $ 18,281
Warehouses in operation 838 815 795
Total revenue $ 226,954 $ 195,929 $ 166,761
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Net sales", "222,730", "222730000000", "USD", "2021-08-29..2022-08-28"},
		{"Less merchandise costs", "199,382", "199382000000", "USD", "2021-08-29..2022-08-28"},
		{"Less merchandise costs", "144,939", "144939000000", "USD", "2019-08-29..2020-08-28"},
		{"Gross margin", "23,348", "23348000000", "USD", "2021-08-29..2022-08-28"},
	})
	for _, f := range facts {
		if f.Label == "Warehouses in operation" {
			t.Errorf("fact %q = %s %s: a count between two amounts is no amount", f.Label, f.Value, f.Unit)
		}
	}
}

func TestTableFactsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("(In millions)\nYear Ended December 31,\n2022 2021 2020\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "Item %d cost $ %d $ %d $ %d\n", i, i+1, i+2, i+3)
	}
	doc := tableDoc(t, "10-K", 2022, "2022-12-31", b.String())
	if n := len(TableFacts(doc)); n != maxTableFacts {
		t.Errorf("%d facts, want the bound %d", n, maxTableFacts)
	}
}

// tableCorpus reads the text filings of the sample corpus through the
// package's own text path, with their manifest metadata.
func tableCorpus(t *testing.T) []*Document {
	t.Helper()
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("sample corpus: %v", err)
		}
		t.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	defer f.Close()
	entries, errs := ReadManifest(f, "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var docs []*Document
	for _, e := range entries {
		if format, err := DetectFormat(e.Path); err != nil || format != FormatText {
			continue
		}
		src, err := os.Open(e.Path)
		if err != nil {
			t.Fatal(err)
		}
		text, pages, err := ParseText(src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &Document{
			ID: DocumentID(text), Ticker: e.Ticker, Company: e.Company, Form: e.Form, FiscalYear: e.FiscalYear,
			PeriodEnd: e.PeriodEnd, Source: e.Path, Format: FormatText, Pages: pages, Text: text,
		})
	}
	if len(docs) == 0 {
		t.Fatal("no text filings in the manifest")
	}
	return docs
}

// TestTableFactsCorpus reads the sample text filings and checks rows whose
// values were read off the filings by hand.
func TestTableFactsCorpus(t *testing.T) {
	type tableKnown struct {
		label  string
		unit   string
		end    string // period end; "~" before it allows 52/53-week drift of a week
		months int    // 0 for an instant
		value  string
	}
	wants := map[string][]tableKnown{
		"APPLE_2022_10K.txt": {
			{"Total net sales", "USD", "2022-09-24", 12, "394328000000"},
			{"Total net sales", "USD", "~2021-09-25", 12, "365817000000"},
			{"Total net sales", "USD", "~2020-09-26", 12, "274515000000"},
			{"Diluted", "USD/shares", "2022-09-24", 12, "6.11"},
			{"Diluted", "shares", "2022-09-24", 12, "16325819000"},
			{"Total assets", "USD", "2022-09-24", 0, "352755000000"},
		},
		"APPLE_2023Q3_10Q.txt": {
			{"Total net sales", "USD", "2023-07-01", 3, "81797000000"},
			{"Total net sales", "USD", "2023-07-01", 9, "293787000000"},
		},
		"MICROSOFT_2022_10K.txt": {{"Total revenue", "USD", "2022-06-30", 12, "198270000000"}},
		"AMAZON_2022_10K.txt":    {{"Total net sales", "USD", "2022-12-31", 12, "513983000000"}},
		"NETFLIX_2022_10K.txt":   {{"Revenues", "USD", "2022-12-31", 12, "31615550000"}},
		"ORACLE_2023_10K.txt":    {{"Operating income", "USD", "2023-05-31", 12, "13093000000"}},
		"COSTCO_2022_10K.txt":    {{"Diluted", "USD/shares", "2022-08-28", 12, "13.14"}},
	}
	for _, doc := range tableCorpus(t) {
		name := filepath.Base(doc.Source)
		facts := TableFacts(doc)
		t.Logf("%s: %d table facts", name, len(facts))
		tableCheckSpans(t, doc, facts)
		if len(facts) < 100 {
			t.Errorf("%s: only %d table facts", name, len(facts))
		}
		// A part's figure (a row of a table titled by a part, "United
		// States and Canada (UCAN)", and the row's plain fact beside it)
		// is no company figure to hold to the company's value.
		partSpan := map[[2]int]bool{}
		for _, f := range facts {
			if _, ok := f.Dimensions[TablePartAxis]; ok {
				partSpan[[2]int{f.Start, f.End}] = true
			}
		}
		for _, k := range wants[name] {
			end, drift := k.end, 0
			if strings.HasPrefix(end, "~") {
				end, drift = end[1:], 7
			}
			want := tableMust(time.Parse(time.DateOnly, end))
			found := 0
			for _, f := range facts {
				if f.Label != k.label || f.Unit != k.unit || tableAbsDays(f.PeriodEnd, want) > drift || f.Instant != (k.months == 0) {
					continue
				}
				if k.months > 0 && tableAbsDays(f.PeriodStart, f.PeriodEnd.AddDate(0, -k.months, 0)) > 10 {
					continue
				}
				if len(f.Dimensions) > 0 || partSpan[[2]int{f.Start, f.End}] {
					continue
				}
				found++
				if !f.Value.Equal(decimal.RequireFromString(k.value)) {
					t.Errorf("%s: %q ending %s = %s, want %s (%q)", name, k.label, k.end, f.Value, k.value, doc.Text[f.Start:f.End])
				}
			}
			if found == 0 {
				t.Errorf("%s: no fact %q ending %s over %d months", name, k.label, k.end, k.months)
			}
		}
	}
}

func tableMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func FuzzTableFacts(f *testing.F) {
	f.Add("(In millions, except per share amounts)\n2022 2021 2020\nRevenue $ 1,234 $ 1,100 $ 990\nNet loss (45) 12 —\nDiluted $ 1.99 $ 1.73 $ 1.48\n")
	f.Add("Three Months Ended Nine Months Ended\nJuly 1, June 25, July 1, June 25,\n2023 2022 2023 2022\nNet sales $ 1 $ 2 $ 3 $ 4\n")
	f.Add("(dollars in millions):\n2022 Change 2021\niPhone (1) $ 205,489 7% $ 191,973\nTotal $ (2,136 ) $ 39 %\n")
	f.Add("(In millions)\nYear Ended December 31,\n2022 2021\nRevenue $ 100 $ 90\n41\n\f\nCost 60 55\n")
	f.Add("Dec 26, 2020 Dec 28, 2019\n(in\nmillions):\nA $ — $ NM\n(1)\n")
	f.Add("(In millions)\n2022 2021\nNet revenue:\nData Center Group\nPlatform $ 2 $ 1\nAdjacent 3 4\n5 5\nMemory Group 7 8\nTotal net revenue $ 12 $ 13\nOperating income:\nData Center Group $ 1 $ 1\nMemory Group 2 3\nTotal operating income $ 3 $ 4\n")
	f.Add("2020 for Quarter Ended\n(In millions) December 26 September 26\nNet revenue $ 19,978 $ 18,333\nQuarter Ended\nMarch 31 December 31\n2022\nNet revenues $ 1 $ 2\n2021\nNet revenues $ 3 $ 4\n")
	f.Add("East Segment\n(In millions) 2022 2021\nNet sales $ 1 $ 2\nOperating income $ 3 $ 4\n\nWest Segment\n(In millions) 2022 2021\nNet sales $ 5 $ 6\nOperating income $ 7 $ 8\n\nNorth Segment\n(In millions) 2022 2021\nNet sales $ 9 $ 1\nOperating income $ 2 $ 3\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, form := range []string{"10-K", "10-Q"} {
			doc := &Document{Form: form, FiscalYear: 2022, PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), Text: text}
			facts := TableFacts(doc)
			if len(facts) > maxTableFacts {
				t.Fatalf("%d facts", len(facts))
			}
			for _, f := range facts {
				if f.Start < 0 || f.Start >= f.End || f.End > len(text) {
					t.Fatalf("fact %q has span [%d:%d] in %d bytes", f.Label, f.Start, f.End, len(text))
				}
				if !strings.ContainsAny(text[f.Start:f.End], "0123456789") {
					t.Fatalf("fact %q spans %q", f.Label, text[f.Start:f.End])
				}
				if part, ok := f.Dimensions[TablePartAxis]; f.Dimensions != nil && (len(f.Dimensions) != 1 || !ok || len(part) <= len(TablePartPrefix)) {
					t.Fatalf("fact %q has dimensions %v", f.Label, f.Dimensions)
				}
				if f.Label == "" {
					t.Fatalf("a fact without a label at [%d:%d]", f.Start, f.End)
				}
			}
		}
	})
}

// A filing's canonical text gives facts with their label, unit, period and
// the span of the printed number.
func ExampleTableFacts() {
	text := Canonicalize("ACME CORP\n(In millions, except per share amounts)\n" +
		"                         Year Ended December 31,\n" +
		"                             2022        2021\n" +
		"Revenue                  $  1,234     $ 1,100\n" +
		"Other income (expense)      (45)          12\n" +
		"Diluted earnings per share $ 0.62     $  0.55\n")
	doc := &Document{Form: "10-K", FiscalYear: 2022, PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), Text: text}
	for _, f := range TableFacts(doc) {
		fmt.Printf("%s | %s %s | %s..%s | %q\n", f.Label, f.Value, f.Unit,
			f.PeriodStart.Format(time.DateOnly), f.PeriodEnd.Format(time.DateOnly), text[f.Start:f.End])
	}
	// Output:
	// Revenue | 1234000000 USD | 2022-01-01..2022-12-31 | "1,234"
	// Revenue | 1100000000 USD | 2021-01-01..2021-12-31 | "1,100"
	// Other income (expense) | -45000000 USD | 2022-01-01..2022-12-31 | "(45)"
	// Other income (expense) | 12000000 USD | 2021-01-01..2021-12-31 | "12"
	// Diluted earnings per share | 0.62 USD/shares | 2022-01-01..2022-12-31 | "0.62"
	// Diluted earnings per share | 0.55 USD/shares | 2021-01-01..2021-12-31 | "0.55"
}

// BenchmarkTableFacts reads the largest sample text filing:
// go test ./corpus/ -run '^$' -bench TableFacts
func BenchmarkTableFacts(b *testing.B) {
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	f, err := os.Open(filepath.Join(dir, "text", "WALMART_2022_10K.txt"))
	if err != nil {
		b.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	text, _, err := ParseText(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	doc := &Document{Form: "10-K", FiscalYear: 2022, PeriodEnd: time.Date(2022, 1, 31, 0, 0, 0, 0, time.UTC), Text: text}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		TableFacts(doc)
	}
}

// htmlTableDoc is an HTML filing whose canonical text is text.
func htmlTableDoc(t testing.TB, form string, fiscalYear int, periodEnd, text string) *Document {
	doc := tableDoc(t, form, fiscalYear, periodEnd, text)
	doc.Format = FormatHTML
	return doc
}

// TestTableFactsHTMLRows reads the untagged KPI tables of HTML filings,
// whose rows are cells joined by " | ".
func TestTableFactsHTMLRows(t *testing.T) {
	doc := htmlTableDoc(t, "10-K", 2024, "2024-12-31", `Results of Operations
The following represents our key metrics:
Year Ended December 31, | Change
2024 | 2023 | 2022 | 2024 vs. 2023
(in thousands, except revenue per membership and percentages)
Global Streaming Memberships:
Paid net membership additions | 41,350 | 29,529 | 8,903 | 40%
Average paying memberships | 277,730 | 240,889 | 222,924 | 15%
Average monthly revenue per paying membership | 11.70 | 11.64 | 11.76 | 1%
Operating margin | 27% | 21% | 18%
Streaming revenues | 39,000,966 | 33,640,458 | 31,469,852 | 16%
Our revenues grew because members watched more of our shows than they did in any year before.
As of/Year Ended December 31,
| 2024 | 2023
(in thousands)
Paid net membership additions | 41,350 | 29,529
Paid memberships at end of period (1) | 301,626 | 260,276
Paid customers | 12 | 11 3
Employees | 14,000 | —
Subscriptions | 1,234 | 1,100
(in millions)
As of December 31, | 2024 | 2023
Cash and cash equivalents | $7,805 | $7,117
Short-term investments | 1,779 | 20
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Paid net membership additions", "41,350", "41350000", "pure", "2024-01-01..2024-12-31"},
		{"Paid net membership additions", "8,903", "8903000", "pure", "2022-01-01..2022-12-31"},
		{"Average paying memberships", "240,889", "240889000", "pure", "2023-01-01..2023-12-31"},
		{"Operating margin", "27%", "0.27", "pure", "2024-01-01..2024-12-31"},
		{"Paid memberships at end of period (1)", "301,626", "301626000", "pure", "2024-12-31"},
		{"Paid memberships at end of period (1)", "260,276", "260276000", "pure", "2023-12-31"},
		{"Cash and cash equivalents", "7,117", "7117000000", "USD", "2023-12-31"},
		{"Short-term investments", "20", "20000000", "USD", "2023-12-31"},
	})
	for _, f := range facts {
		switch f.Label {
		case "Average monthly revenue per paying membership", "Streaming revenues", "Paid customers", "Employees", "Subscriptions":
			t.Errorf("fact %q = %s %s, whose unit or cells the table does not tell", f.Label, f.Value, f.Unit)
		case "Paid net membership additions":
			if f.Instant {
				t.Errorf("an additions row under \"As of/Year Ended\" read as an instant: %s", tablePeriodOf(f))
			}
		}
		if s := doc.Text[f.Start:f.End]; strings.HasSuffix(s, "%") && f.Label != "Operating margin" {
			t.Errorf("a change column gave a fact: %q %s", f.Label, s)
		}
	}
	// The second table's additions row is the years' too.
	if len(facts) != 3*3+2+2+2*2 {
		t.Errorf("%d facts, want 17:\n%s", len(facts), tableDump(doc, facts))
	}
	// The same text read as a text filing: " | " is not a cell separator
	// there, and the text rules give what they gave before.
	doc.Format = FormatText
	for _, f := range TableFacts(doc) {
		if f.Unit == "pure" && f.Label != "Operating margin" {
			t.Errorf("text filing: a count %q = %s", f.Label, f.Value)
		}
	}
}

// TestTableFactsHTMLHeaders reads the period headers of HTML tables.
func TestTableFactsHTMLHeaders(t *testing.T) {
	for _, tt := range []struct {
		name, header string
		want         []string
	}{
		{"years ended, one line", "Year Ended December 31, | 2024 | 2023 | 2022",
			[]string{"2024-01-01..2024-12-31", "2023-01-01..2023-12-31", "2022-01-01..2022-12-31"}},
		{"years ended above", "Year Ended December 31,\n2024 | 2023 | 2022",
			[]string{"2024-01-01..2024-12-31", "2023-01-01..2023-12-31", "2022-01-01..2022-12-31"}},
		{"an empty first cell", "Year Ended December 31,\n| 2024 | 2023 | 2022",
			[]string{"2024-01-01..2024-12-31", "2023-01-01..2023-12-31", "2022-01-01..2022-12-31"}},
		{"as of", "As of December 31, | 2024 | 2023", []string{"2024-12-31", "2023-12-31"}},
		{"bare years of a 10-K", "2024 | 2023 | 2022",
			[]string{"2024-01-01..2024-12-31", "2023-01-01..2023-12-31", "2022-01-01..2022-12-31"}},
		{"years without separators", "Year Ended December 31,\n2024 2023 2022", nil},
		{"as of and ended", "As of and for the Year Ended December 31,\n2024 | 2023 | 2022", nil},
		{"future years", "2025 | 2026 | 2027", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := "(in thousands)\n" + tt.header + "\nPaid members | 101 | 102 | 103\n"
			if strings.Count(tt.header, "20") == 2 {
				text = strings.Replace(text, " | 103", "", 1)
			}
			doc := htmlTableDoc(t, "10-K", 2024, "2024-12-31", text)
			facts := TableFacts(doc)
			tableCheckSpans(t, doc, facts)
			var got []string
			for _, f := range facts {
				got = append(got, tablePeriodOf(f))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("periods %v, want %v\n%s", got, tt.want, tableDump(doc, facts))
			}
		})
	}
}

func TestTableFactsHTMLWithoutHeader(t *testing.T) {
	for name, text := range map[string]string{
		"no period header":  "(in thousands)\nPaid memberships at end of period | 301,626 | 260,276\n",
		"a header of words": "(in thousands)\nUCAN | EMEA\nPaid memberships | 89,625 | 101,133\n",
		"no unit":           "Year Ended December 31, | 2024 | 2023\nPaid memberships | 301,626 | 260,276\n",
		"after prose": "(in thousands)\nYear Ended December 31, | 2024 | 2023\n" +
			"Membership grew because members watched more of our shows than they did in any year before.\n" +
			"Paid memberships | 301,626 | 260,276\n",
	} {
		t.Run(name, func(t *testing.T) {
			doc := htmlTableDoc(t, "10-K", 2024, "2024-12-31", text)
			if facts := TableFacts(doc); len(facts) > 0 {
				t.Errorf("facts from a table without a period header or unit:\n%s", tableDump(doc, facts))
			}
		})
	}
}

// TestUntaggedTableFacts reads an HTML table one of whose cells is tagged:
// only the untagged cell becomes a table fact.
func TestUntaggedTableFacts(t *testing.T) {
	parsed, err := ParseHTML(strings.NewReader(ixDoc(`<p>(in thousands)</p>
<table><tr><td></td><td>2024</td><td>2023</td></tr>
<tr><td>Paid memberships at end of period</td>
<td><ix:nonFraction name="a:PaidMemberships" contextRef="NOW" unitRef="pure" decimals="-3" scale="3">301,626</ix:nonFraction></td>
<td>260,276</td></tr></table>`)))
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{Form: "10-K", FiscalYear: 2024, PeriodEnd: time.Date(2024, 9, 28, 0, 0, 0, 0, time.UTC), Format: FormatHTML, Text: parsed.Text}
	table := TableFacts(doc)
	if len(table) != 2 {
		t.Fatalf("%d table facts, want 2:\n%s", len(table), tableDump(doc, table))
	}
	got := untaggedTableFacts(table, parsed.Facts)
	tableCheck(t, doc, got, []tableWant{
		{"Paid memberships at end of period", "260,276", "260276000", "pure", "2023-09-28"},
	})
	if len(got) != 1 {
		t.Errorf("%d untagged facts, want 1:\n%s", len(got), tableDump(doc, got))
	}
	if got := untaggedTableFacts(table, nil); len(got) != 2 {
		t.Errorf("without tags, %d facts, want 2", len(got))
	}
}

// TestTableFactsTaggedAmounts: an HTML filing prints "$" in a cell of its
// own, which its text drops, so an untagged MD&A table of amounts carries
// no "$". Where two of its cells print, at the caption's scale, amounts the
// filing tags in USD, it is read as a table of amounts; a table whose cells
// match no tagged amount, or one only, stays unread.
func TestTableFactsTaggedAmounts(t *testing.T) {
	doc := htmlTableDoc(t, "10-K", 2024, "2024-12-31", `Cost of Revenues
The following table presents cost of revenues, including TAC (in millions, except percentages):
Year Ended December 31,
2023 | 2024
TAC | 50,886 | 54,900
Other cost of revenues | 82,446 | 91,406
Total cost of revenues | 133,332 | 146,306
Total cost of revenues as a percentage of revenues | 43% | 42%
`)
	usd := func(v int64) Fact { return Fact{Unit: "USD", Value: decimal.NewFromInt(v), Start: -1, End: -1} }
	tagged := []Fact{usd(133_332_000_000), usd(146_306_000_000), {Unit: "shares", Value: decimal.NewFromInt(50_886_000_000)}}
	facts := tableFacts(doc, tagged)
	tableCheck(t, doc, facts, []tableWant{
		{"TAC", "54,900", "54900000000", "USD", "2024-01-01..2024-12-31"},
		{"Other cost of revenues", "82,446", "82446000000", "USD", "2023-01-01..2023-12-31"},
		{"Total cost of revenues as a percentage of revenues", "42%", "0.42", "pure", "2024-01-01..2024-12-31"},
	})
	if len(facts) != 8 {
		t.Errorf("%d facts, want 8:\n%s", len(facts), tableDump(doc, facts))
	}
	for name, tags := range map[string][]Fact{
		"no tags":                    nil,
		"one tagged amount":          tagged[:1],
		"tagged shares, not amounts": tagged[2:],
		"amounts at another scale":   {usd(133_332_000), usd(146_306_000)},
	} {
		for _, f := range tableFacts(doc, tags) {
			if f.Unit == "USD" {
				t.Errorf("%s: an amount %q = %s read from a table without \"$\"", name, f.Label, f.Value)
			}
		}
	}
}

// TestTableFactsTaggedAmountsExcepted: in an HTML table of amounts by its
// tagged cells, a row the caption excepts from its scale ("except revenue
// per membership") prints its dollars and cents unscaled, its "$" dropped
// with the others; without the tags, or printing whole numbers, it stays
// unread.
func TestTableFactsTaggedAmountsExcepted(t *testing.T) {
	doc := htmlTableDoc(t, "10-K", 2024, "2024-12-31", `The following tables summarize streaming revenues by region.
United States and Canada (UCAN)
Year Ended December 31,
2023 | 2024
(in thousands, except revenue per membership and percentages)
Streaming revenues | 14,873,783 | 17,359,369
Other revenues | 12,000 | 13,000
Average monthly revenue per paying membership | 16.28 | 17.20
Average revenue per membership rounded | 16 | 17
`)
	usd := func(v int64) Fact { return Fact{Unit: "USD", Value: decimal.NewFromInt(v), Start: -1, End: -1} }
	tagged := []Fact{usd(14_873_783_000), usd(17_359_369_000)}
	facts := tableFacts(doc, tagged)
	tableCheck(t, doc, facts, []tableWant{
		{"Average monthly revenue per paying membership", "17.20", "17.2", "USD", "2024-01-01..2024-12-31"},
		{"Average monthly revenue per paying membership", "16.28", "16.28", "USD", "2023-01-01..2023-12-31"},
	})
	for _, f := range facts {
		if f.Label == "Average revenue per membership rounded" {
			t.Errorf("whole dollars of an excepted row read: %s", f.Value)
		}
	}
	for _, f := range tableFacts(doc, nil) {
		if f.Unit == "USD" {
			t.Errorf("without tags: an amount %q = %s read from a table without \"$\"", f.Label, f.Value)
		}
	}
}

// TestTableFactsHTMLCorpus reads the sample HTML filings through ParseHTML
// and the ingest's path for them: the untagged table cells.
func TestTableFactsHTMLCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if d := os.Getenv("CORPUS"); d != "" {
		dir = d
	}
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("sample corpus: %v", err)
		}
		t.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	defer f.Close()
	entries, errs := ReadManifest(f, "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sawNetflix := false
	for _, e := range entries {
		if format, err := DetectFormat(e.Path); err != nil || format != FormatHTML {
			continue
		}
		parsed := parseEdgarFile(t, e.Path).parsed
		doc := &Document{ID: DocumentID(parsed.Text), Ticker: e.Ticker, Form: e.Form, FiscalYear: e.FiscalYear,
			PeriodEnd: e.PeriodEnd, Format: FormatHTML, Text: parsed.Text}
		table := TableFacts(doc)
		untagged := untaggedTableFacts(table, parsed.Facts)
		tableCheckSpans(t, doc, untagged)
		t.Logf("%s: %d table facts, %d untagged (beside %d tagged)", filepath.Base(e.Path), len(table), len(untagged), len(parsed.Facts))
		if filepath.Base(e.Path) != "nflx-10-k-2025-01-27.html" {
			continue
		}
		sawNetflix = true
		const label = "Paid memberships at end of period (2)"
		got, ok := tableFind(untagged, label, "2024-12-31", "pure")
		if !ok {
			t.Fatalf("no untagged %q at 2024-12-31:\n%s", label, tableDump(doc, untagged))
		}
		if !got.Value.Equal(decimal.NewFromInt(301626000)) || doc.Text[got.Start:got.End] != "301,626" {
			t.Errorf("%q = %s (%q), want 301626000 printed 301,626", label, got.Value, doc.Text[got.Start:got.End])
		}
	}
	if !sawNetflix && os.Getenv("CI") != "" {
		t.Error("the Netflix 10-K is not in the sample corpus")
	}
}

// TestTableFactsWrappedLongLabel: a row label longer than a line, wrapped
// onto the line of its numbers, which goes on in lower case, is a label,
// not prose: the balance sheet goes on after it. A long line of prose
// that goes on without numbers still ends the table.
func TestTableFactsWrappedLongLabel(t *testing.T) {
	doc := tableDoc(t, "10-K", 2023, "2023-05-31", `CONSOLIDATED BALANCE SHEETS
May 31,
(in millions, except per share data) 2023 2022
Current assets:
Cash and cash equivalents $ 9,765 $ 21,383
Marketable securities 422 519
Trade receivables, net of allowances for credit losses of $428 and $362 as of May 31, 2023 and May 31, 2022,
respectively 6,915 5,953
Intangible assets, net 9,837 1,440
Total assets $ 134,384 $ 109,297
The following table presents the amounts of our other borrowings and the interest rates we pay on them as of the
balance sheet dates described in the notes that follow this section
Other borrowings 12 14
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Intangible assets, net", "9,837", "9837000000", "USD", "2023-05-31"},
		{"Total assets", "134,384", "134384000000", "USD", "2023-05-31"},
	})
	for _, f := range facts {
		if f.Label == "Other borrowings" {
			t.Errorf("a row after prose read into the table above: %s", tableDump(doc, []Fact{f}))
		}
	}
}
