package corpus

import (
	"regexp"
	"time"
)

// Tables of quarters in an annual report.
//
// Annual reports print their quarters in tables whose columns are
// month-days without years: "Financial Information by Quarter
// (Unaudited)" with its year on the line above the header ("2020 for
// Quarter Ended" / "(In Millions, ...) December 26 September 26 June 27
// March 28"), or a seasonality table with one header and a line of its
// own naming each block's year ("Quarter Ended" / "March 31 June 30
// September 30 December 31" / "2021" / "Net revenues $ 2,638 ..."). Each
// column is a quarter of the block's fiscal year: the year that ends on
// the filing's period end shifted by whole years, so a month-day is dated
// within that year (a fiscal year ending in September puts "December 26"
// of fiscal 2021 in 2020). A block is read only when one of its columns
// ends within a week of its year's end, as a fiscal year's fourth quarter
// does, and its columns are distinct dates; otherwise its rows give no
// facts. The rows are read as any table's, each cell a fact of three
// months ending on its column's date.

// tableQuarters is the header of a table of quarters whose blocks are
// named by year lines.
type tableQuarters struct {
	monthDays []tableHeaderItem
	line      int // the line of the header or of the latest year line
}

// Bounds of a table of quarters.
const (
	minQuarterColumns = 2
	maxQuarterColumns = 4
	maxQuarterYearGap = 1 // the first year line follows its header
)

// tableQuarterPhrase is the line above a header of quarters: "Quarter
// Ended", "2020 for Quarter Ended", "Fiscal 2022 Quarters Ended".
var tableQuarterPhrase = regexp.MustCompile(`(?i)^(?:(?:fiscal\s+)?((?:19|20)\d\d)\s+)?(?:for\s+(?:the\s+)?)?(?:quarters?|three\s+months)\s+end(?:ed|ing),?$`)

// tableYearLine is a line naming a block's year: "2021", "Fiscal 2021".
var tableYearLine = regexp.MustCompile(`(?i)^(?:fiscal\s+)?((?:19|20)\d\d)$`)

// quarterLine reads line i as a header of quarters or as the year line of
// one's block, starting the block's table, and reports whether it was
// one. A header whose year is still to come starts no table; neither
// does a block whose periods cannot be told.
func (r *tableReader) quarterLine(i int, toks []tableToken, line string, caption *tableCaption) (handled bool) {
	if r.pipes || !r.annual {
		return false
	}
	if q := r.quarters; q != nil && (r.tbl != nil || i-q.line <= maxQuarterYearGap) {
		if m := tableYearLine.FindStringSubmatch(line); m != nil {
			y, _ := tableYear(m[1])
			q.line = i
			r.startQuarters(i, q, y, caption)
			return true
		}
	}
	mds, ok := tableMonthDays(toks)
	if !ok {
		return false
	}
	above := r.neighbour(i, -1)
	if above == "" {
		above = r.neighbour(i, -2)
	}
	m := tableQuarterPhrase.FindStringSubmatch(above)
	if m == nil {
		return false
	}
	q := &tableQuarters{monthDays: mds, line: i}
	if m[1] == "" {
		// The year comes on a line of its own before each block.
		// The caption before it waits for the first block.
		pending, pendingLine := r.pending, r.pendingLine
		r.startTable(i, nil, nil)
		r.pending, r.pendingLine = pending, pendingLine
		if caption != nil {
			r.pending, r.pendingLine = caption, i
		}
		r.quarters = q
		return true
	}
	y, _ := tableYear(m[1])
	r.startQuarters(i, q, y, caption)
	return true
}

// startQuarters starts the block of fiscal year y of a table of quarters,
// or ends the table above when its periods cannot be told.
func (r *tableReader) startQuarters(i int, q *tableQuarters, y int, caption *tableCaption) {
	h := r.quarterHeader(q.monthDays, y)
	r.startTable(i, h, caption)
	if h != nil {
		r.quarters = q
	}
}

// quarterHeader returns the header of fiscal year y's quarters ending on
// the month-days, or nil when they cannot be dated within that year.
func (r *tableReader) quarterHeader(mds []tableHeaderItem, y int) *tableHeader {
	yearEnd := tableShiftYears(r.anchor, y-r.fiscalYear)
	if yearEnd.After(r.anchor.AddDate(0, 0, maxTableFutureDays)) || y < r.fiscalYear-maxTablePastYears {
		return nil
	}
	// The year runs from just after the previous year's end (a 52-53 week
	// year may end up to a week either side of it) to its own end.
	from, to := yearEnd.AddDate(-1, 0, maxTableFutureDays), yearEnd.AddDate(0, 0, maxTableFutureDays)
	h := &tableHeader{}
	closes := false
	for _, md := range mds {
		var end time.Time
		for cy := yearEnd.Year() - 1; cy <= yearEnd.Year()+1; cy++ {
			if md.day > tableDaysIn(md.month, cy) {
				continue
			}
			d := time.Date(cy, md.month, md.day, 0, 0, 0, 0, time.UTC)
			if d.After(from) && !d.After(to) {
				end = d
			}
		}
		if end.IsZero() {
			return nil
		}
		for _, p := range h.periods {
			if p.end.Equal(end) {
				return nil // a period twice
			}
		}
		closes = closes || tableAbsDays(end, yearEnd) <= maxTableFutureDays
		h.cols = append(h.cols, true)
		h.periods = append(h.periods, tablePeriod{start: tablePeriodStart(end, 3), end: end})
	}
	if !closes {
		return nil
	}
	return h
}

// tableMonthDays reads a line of month-days and nothing else, after an
// optional caption in parentheses: "(In Millions, Except Per Share
// Amounts) December 26 September 26 June 27 March 28".
func tableMonthDays(toks []tableToken) ([]tableHeaderItem, bool) {
	words := make([]string, 0, len(toks))
	for _, t := range toks {
		words = append(words, t.s)
	}
	words, ok := tableWithoutCaption(words)
	if !ok {
		return nil, false
	}
	items := tableLexHeader(words)
	if len(items) < minQuarterColumns || len(items) > maxQuarterColumns {
		return nil, false
	}
	for _, it := range items {
		if it.kind != hdrMonthDay {
			return nil, false
		}
	}
	return items, true
}
