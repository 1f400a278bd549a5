package corpus

import "testing"

// Under an "As of/ Year Ended" header a row of revenues, sales or expenses
// is the year's, as an average's or additions' row is; a row that says
// none of these ("Paid members") may be either, and is left out.
func TestTableFactsMixedHeaderFlows(t *testing.T) {
	doc := tableDoc(t, "10-K", 2022, "2022-12-31", `United States and Canada (UCAN)

As of/ Year Ended December 31, Change
2022 2021 2020 2022 vs. 2021
(in thousands, except revenue per membership and percentages)
Revenues $ 14,084,643 $ 12,972,100 $ 11,455,396 $ 1,112,543 9%
Paid net membership additions (losses) (919) 1,279 6,274 (2,198) (172)%
Paid members 74,296 75,215 73,936 (919) (1)%
`)
	facts := TableFacts(doc)
	tableCheck(t, doc, facts, []tableWant{
		{"Revenues", "14,084,643", "14084643000", "USD", "2022-01-01..2022-12-31"},
		{"Revenues", "11,455,396", "11455396000", "USD", "2020-01-01..2020-12-31"},
		{"Paid net membership additions (losses)", "(919)", "-919000", "pure", "2022-01-01..2022-12-31"},
	})
	for _, f := range facts {
		if f.Label == "Paid members" {
			t.Errorf("a row neither at the period's end nor a flow read as %s: %s", tablePeriodOf(f), f.Value)
		}
	}
}
