package corpus

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// partFacts returns the facts of one part, by figure label and period.
func partFacts(facts []Fact, part string) map[string]string {
	out := map[string]string{}
	for _, f := range facts {
		if f.Dimensions[TablePartAxis] == TablePartMember(part) {
			out[f.Label+" "+tablePeriodOf(f)] = f.Value.String()
		}
	}
	return out
}

// plainLabels returns the labels of the facts without dimensions.
func plainLabels(facts []Fact) map[string]bool {
	out := map[string]bool{}
	for _, f := range facts {
		if len(f.Dimensions) == 0 {
			out[f.Label] = true
		}
	}
	return out
}

func TestTablePartsUnderFigureHeadings(t *testing.T) {
	doc := tableDoc(t, "10-K", 2020, "2020-12-26", `Net revenue and operating income (loss) for each period were as follows:
Years Ended (In Millions) Dec 26, 2020 Dec 28, 2019
Net revenue:
Data Center Group
Platform $ 23,056 $ 21,441
Adjacent 3,047 2,040
26,103 23,481
Internet of Things
IOTG 3,007 3,821
Mobileye 967 879
3,974 4,700
Non-Volatile Memory Solutions Group 5,358 4,362
All other 522 289
Total net revenue $ 35,955 $ 32,832
Operating income (loss):
Data Center Group $ 10,571 $ 10,227
Internet of Things
IOTG 497 1,097
Mobileye 241 245
738 1,342
Non-Volatile Memory Solutions Group 361 (1,176)
All other (3,381) (3,878)
Total operating income $ 8,289 $ 6,535
`)
	facts := TableFacts(doc)
	tableCheckSpans(t, doc, facts)
	const y20, y19 = "2019-12-29..2020-12-26", "2018-12-29..2019-12-28"
	for part, want := range map[string]map[string]string{
		// The part's figure is the row of numbers under its rows, which
		// is their sum; a part printed as a row is its own figure.
		"Data Center Group": {
			"Net revenue " + y20: "26103000000", "Net revenue " + y19: "23481000000",
			"Operating income (loss) " + y20: "10571000000", "Operating income (loss) " + y19: "10227000000",
		},
		"Internet of Things": {
			"Net revenue " + y20: "3974000000", "Net revenue " + y19: "4700000000",
			"Operating income (loss) " + y20: "738000000", "Operating income (loss) " + y19: "1342000000",
		},
		"Non-Volatile Memory Solutions Group": {
			"Net revenue " + y20: "5358000000", "Net revenue " + y19: "4362000000",
			"Operating income (loss) " + y20: "361000000", "Operating income (loss) " + y19: "-1176000000",
		},
		"All other": {}, // the rest is no part
		"IOTG":      {}, // a part of a part stays its row
	} {
		got := partFacts(facts, part)
		if len(got) != len(want) {
			t.Errorf("%s: %d facts %v, want %v", part, len(got), got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s = %q, want %s", part, k, got[k], v)
			}
		}
	}
	plain := plainLabels(facts)
	// "Data Center Group 10,571" is operating income, not the group's
	// revenue: the label alone names no one figure.
	for _, l := range []string{"Data Center Group", "Non-Volatile Memory Solutions Group"} {
		if plain[l] {
			t.Errorf("a fact labelled %q alone", l)
		}
	}
	for _, l := range []string{"Platform", "IOTG", "Mobileye", "All other", "Total net revenue", "Total operating income"} {
		if !plain[l] {
			t.Errorf("no fact labelled %q", l)
		}
	}
}

func TestTablePartsAcrossFigureHeadings(t *testing.T) {
	// Headings without a colon are figures where they print the same parts.
	doc := tableDoc(t, "10-K", 2021, "2021-06-30", `SEGMENT RESULTS OF OPERATIONS
Percentage
(In millions, except percentages) 2021 2020 Change
Revenue
Productivity and Business Processes $ 53,915 $ 46,398 16%
Intelligent Cloud 60,080 48,366 24%
More Personal Computing 54,093 48,251 12%
Total $ 168,088 $ 143,015 18%
Operating Income
Productivity and Business Processes $ 24,351 $ 18,724 30%
Intelligent Cloud 26,126 18,324 43%
More Personal Computing 19,439 15,911 22%
Total $ 69,916 $ 52,959 32%
`)
	facts := TableFacts(doc)
	tableCheckSpans(t, doc, facts)
	got := partFacts(facts, "Intelligent Cloud")
	if got["Revenue 2020-07-01..2021-06-30"] != "60080000000" || got["Operating Income 2020-07-01..2021-06-30"] != "26126000000" {
		t.Errorf("Intelligent Cloud: %v", got)
	}
	if plainLabels(facts)["Intelligent Cloud"] {
		t.Error("a fact labelled \"Intelligent Cloud\" alone: revenue or operating income?")
	}
}

func TestTablePartsTitled(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-01-31", `Table of Contents
Walmart U.S. Segment
Fiscal Years Ended January 31,
(Amounts in millions, except unit counts) 2022 2021
Net sales $ 393,247 $ 369,963
Calendar comparable sales increase 6.4 % 8.7 %
Operating income $ 21,587 $ 19,116

Net sales for the Walmart U.S. segment increased $23.3 billion or 6.3% and $29.0 billion or 8.5% for fiscal 2022 and 2021.
40
`+"\f"+`
Table of Contents
Walmart International Segment
Fiscal Years Ended January 31,
(Amounts in millions, except unit counts) 2022 2021
Net sales $ 100,959 $ 121,360
Operating income $ 2,965 $ 3,660

Net sales for the Walmart International segment decreased $20.4 billion or 16.8% for fiscal 2022 when compared to the previous fiscal year.

Sam's Club Segment
41
`+"\f"+`
Table of Contents
Fiscal Years Ended January 31,
(Amounts in millions, except unit counts) 2022 2021
Net sales $ 73,556 $ 63,910
Calendar comparable sales increase 15.0 % 8.7 %
Operating income $ 1,717 $ 1,906
`)
	facts := TableFacts(doc)
	tableCheckSpans(t, doc, facts)
	// The last title closes its page, above the page's number; the next
	// page opens with its running head.
	const y22 = "2021-02-01..2022-01-31"
	for part, want := range map[string]map[string]string{
		"Walmart U.S.":          {"Operating income " + y22: "21587000000", "Calendar comparable sales increase " + y22: "0.064"},
		"Walmart International": {"Operating income " + y22: "2965000000", "Net sales " + y22: "100959000000"},
		"Sam's Club":            {"Operating income " + y22: "1717000000", "Calendar comparable sales increase " + y22: "0.15"},
	} {
		got := partFacts(facts, part)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s = %q, want %s (facts %v)", part, k, got[k], v, got)
			}
		}
	}
	// The rows keep their own facts beside the parts'.
	if f, ok := tableFind(facts, "Operating income", y22, "USD"); !ok || len(f.Dimensions) != 0 || !f.Value.Equal(decimal.RequireFromString("21587000000")) {
		t.Errorf("the first table's own row: %+v %v", f, ok)
	}
}

func TestTablePartsNotParts(t *testing.T) {
	cases := []struct{ name, text string }{
		{"one figure's lines", `CONSOLIDATED BALANCE SHEETS
(In millions)
September 24, 2022 September 25, 2021
Current assets:
Cash and cash equivalents $ 23,646 $ 34,940
Inventories 4,946 6,580
Total current assets 28,592 41,520
Non-current assets:
Property, plant and equipment, net 42,117 39,440
Total assets $ 70,709 $ 80,960
`},
		{"per share and shares", `(In millions, except per share amounts)
2022 2021
Net income $ 400 $ 350
Earnings per share:
Basic $ 2.01 $ 1.75
Diluted $ 1.99 $ 1.73
Weighted-average shares outstanding:
Basic 199 200
Diluted 201 202
`},
		{"a subtotal that is no sum", `(In millions)
2022 2021
Net revenue:
Data Center Group
Platform $ 23,056 $ 21,441
Adjacent 3,047 2,040
26,000 23,481
Total net revenue $ 26,103 $ 23,481
`},
		{"titles of two tables", `Volume of Derivative Activity
(In millions)
2022 2021
Foreign currency contracts $ 31,209 $ 26,000
Interest rate contracts 14,461 10,000

Notional amounts of the contracts are shown gross.

Income on Derivatives
(In millions)
2022 2021
Foreign currency contracts $ 209 $ 260
Interest rate contracts 461 100
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := tableDoc(t, "10-K", 2022, "2022-09-24", c.text)
			facts := TableFacts(doc)
			if len(facts) == 0 {
				t.Fatal("no facts")
			}
			for _, f := range facts {
				if len(f.Dimensions) > 0 {
					t.Errorf("fact %q has part %v", f.Label, f.Dimensions)
				}
			}
		})
	}
}

func TestTablePartName(t *testing.T) {
	for name, want := range map[string]bool{
		"Data Center Group": true, "Internet of Things": true, "Productivity and Business Processes": true,
		"Walmart U.S.": true, "Sam's Club": true, "Europe, Middle East, and Africa (EMEA)": true, "Services": true,
		"All other": false, "Other": false, "Total": false, "Consolidated Results of Operations": false,
		"Balance, beginning of period": false, "U.S. federal": false, "Common stock repurchased": false, "": false,
	} {
		if got := tablePartName(name); got != want {
			t.Errorf("tablePartName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPrintedLabels(t *testing.T) {
	labels := []FactLabel{{10, "Walmart U.S."}, {10, "Operating income"}, {20, "Data Center Group"}, {30, "Revenue"}}
	got := PrintedLabels(labels, []bool{true, false, true, false})
	var s []string
	for _, l := range got {
		s = append(s, l.Label)
	}
	// A part's name where its row prints no label of its own.
	if strings.Join(s, "|") != "Operating income|Data Center Group|Revenue" {
		t.Errorf("PrintedLabels = %v", s)
	}
	if PartLabel("Operating income (loss)", TablePartMember("Data Center Group")) != "Data Center Group" || PartLabel("Revenue", "") != "Revenue" {
		t.Error("PartLabel")
	}
}

func TestTablePartsAsHeadings(t *testing.T) {
	// The parts as headings over the same figures.
	doc := tableDoc(t, "10-Q", 2023, "2023-07-01", `Note 10 – Segment Information and Geographic Data
The following table shows information by reportable segment for the three-month periods ended July 1, 2023 and June 25, 2022 (in millions):
Three Months Ended
July 1, June 25,
2023 2022
Americas:
Net sales $ 35,383 $ 37,472
Operating income $ 13,117 $ 13,914

Europe:
Net sales $ 20,205 $ 19,287
Operating income $ 7,995 $ 7,124

Greater China:
Net sales $ 15,758 $ 14,604
Operating income $ 6,207 $ 5,760
`)
	facts := TableFacts(doc)
	tableCheckSpans(t, doc, facts)
	const q = "2023-04-02..2023-07-01"
	got := partFacts(facts, "Greater China")
	if got["Net sales "+q] != "15758000000" || got["Operating income "+q] != "6207000000" {
		t.Errorf("Greater China: %v", got)
	}
	if got := partFacts(facts, "Europe"); got["Operating income "+q] != "7995000000" {
		t.Errorf("Europe: %v", got)
	}
	// "Net sales" alone is each region's: no fact of its own.
	if plainLabels(facts)["Net sales"] {
		t.Error("a fact labelled \"Net sales\" alone")
	}
}
