package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// The quarters a question names.
//
// A 10-Q reports one quarter: Apple's 10-Q for the period ended June 28,
// 2025 states the June quarter, not the March one, though both are of
// fiscal 2025. A question naming a quarter ("Q2 FY25", "the March-2025
// quarter", "the quarter ended March 29, 2025") is answered from the 10-Q
// of that quarter; a quarter the corpus holds no 10-Q of is a gap, never
// another quarter's figures in its place. A quarter is matched to a 10-Q
// by its fiscal number, counted from the issuer's fiscal year end (the
// month its 10-K's period ends in), or by the month it ends in.

// quarterAsk is a quarter a question names.
type quarterAsk struct {
	fq, fy int        // fiscal quarter 1-4 and fiscal year ("Q2 FY25"); fq 0 when named by its month
	month  time.Month // the month it ends in ("the March-2025 quarter"); 0 when named by number
	year   int        // calendar year of month
	day    int        // the day it ends on, where written ("quarter ended March 29, 2025"); 0 otherwise
}

var (
	// "Q2 FY25", "Q3 2023", "Q3 fiscal 2024", "3Q23".
	quarterNumbered = regexp.MustCompile(`(?i)\b(?:q([1-4])|([1-4])q)[\s-]*(?:of\s+)?(?:fy|fiscal\s*(?:year\s*)?)?\s*'?(\d{2}|\d{4})\b`)
	// "FY25 Q4", "FY25 (Q4, ended ...)", "fiscal 2024 Q1": the year first.
	quarterAfterYear = regexp.MustCompile(`(?i)\b(?:fy|fiscal\s*(?:year\s*)?)\s*'?(\d{2}|\d{4})\s*[(,]?\s*(?:q([1-4])|([1-4])q)\b`)
	// "second quarter of fiscal 2025", "the third fiscal quarter of 2023".
	quarterOrdinal = regexp.MustCompile(`(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fy|fiscal\s*(?:year\s*)?)?\s*'?(\d{2}|\d{4})\b`)
	// "the March-2025 quarter", "June 2023 quarter", "the quarter ended
	// March 29, 2025", "quarter ending December 2024".
	quarterMonthFirst = regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?[\s-]+(\d{4})[\s-]+(?:quarter|qtr)\b`)
	quarterEnded      = regexp.MustCompile(`(?i)\bquarter\s+end(?:ed|ing)\s+(?:on\s+)?(` + monthNames + `)\.?\s+(?:(\d{1,2}),?\s+)?(\d{4})\b`)
)

const monthNames = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

// askedQuarters returns the quarters question names, each once.
func askedQuarters(question string) []quarterAsk {
	var out []quarterAsk
	add := func(q quarterAsk) {
		if !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	for _, ix := range quarterNumbered.FindAllStringSubmatchIndex(question, -1) {
		if ix[1] < len(question) && question[ix[1]] == '%' {
			continue // "Q1 25% growth": a rate, not fiscal 2025
		}
		fq, _ := strconv.Atoi(sub(question, ix, 1) + sub(question, ix, 2))
		add(quarterAsk{fq: fq, fy: fullYear(sub(question, ix, 3))})
	}
	for _, m := range quarterAfterYear.FindAllStringSubmatch(question, -1) {
		fq, _ := strconv.Atoi(m[2] + m[3])
		add(quarterAsk{fq: fq, fy: fullYear(m[1])})
	}
	for _, m := range quarterOrdinal.FindAllStringSubmatch(question, -1) {
		add(quarterAsk{fq: ordinalQuarter(m[1]), fy: fullYear(m[2])})
	}
	for _, m := range quarterMonthFirst.FindAllStringSubmatch(question, -1) {
		add(quarterAsk{month: monthOf(m[1]), year: fullYear(m[2])})
	}
	for _, m := range quarterEnded.FindAllStringSubmatch(question, -1) {
		day, _ := strconv.Atoi(m[2])
		add(quarterAsk{month: monthOf(m[1]), year: fullYear(m[3]), day: day})
	}
	return out
}

// sub returns group g of a match given by its indexes; "" when the group
// did not take part.
func sub(s string, ix []int, g int) string {
	if ix[2*g] < 0 {
		return ""
	}
	return s[ix[2*g]:ix[2*g+1]]
}

func fullYear(s string) int {
	y, _ := strconv.Atoi(s)
	if y < 100 {
		y += 2000
	}
	return y
}

func ordinalQuarter(s string) int {
	switch strings.ToLower(s) {
	case "first", "1st":
		return 1
	case "second", "2nd":
		return 2
	case "third", "3rd":
		return 3
	}
	return 4
}

func monthOf(s string) time.Month {
	s = strings.ToLower(s)
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s[:3]) {
			return m
		}
	}
	return 0
}

// quarterMonth is the month a period ending on end is named by: a 52-53
// week quarter ending in the first days of a month ("July 1, 2023") is
// the month before's ("the June quarter").
func quarterMonth(end time.Time) (time.Month, int) {
	d := end.AddDate(0, 0, -7)
	return d.Month(), d.Year()
}

// fiscalYearEnd returns the month issuer t's fiscal year ends in, read from
// its annual reports' period ends.
func (c *Catalog) fiscalYearEnd(t string) (time.Month, bool) {
	for _, d := range c.filings[t] {
		if d.Form == "10-K" && !d.PeriodEnd.IsZero() {
			m, _ := quarterMonth(d.PeriodEnd)
			return m, true
		}
	}
	return 0, false
}

// fiscalQuarter returns which quarter of its fiscal year a 10-Q ending on
// end reports, for a fiscal year ending in month fyEnd.
func fiscalQuarter(end time.Time, fyEnd time.Month) int {
	m, _ := quarterMonth(end)
	months := (int(m) - int(fyEnd) + 12) % 12
	return (months + 1) / 3
}

// fiscalYear returns the fiscal year holding the quarter, for a fiscal
// year ending in month fyEnd; 0 when it cannot be told.
func (q quarterAsk) fiscalYear(fyEnd time.Month) int {
	if q.fq > 0 {
		return q.fy
	}
	if q.month == 0 || fyEnd == 0 {
		return 0
	}
	if q.month > fyEnd {
		return q.year + 1
	}
	return q.year
}

// endMonth returns the month the quarter ends in, for a fiscal year ending
// in month fyEnd.
func (q quarterAsk) endMonth(fyEnd time.Month) time.Month {
	if q.month != 0 {
		return q.month
	}
	return time.Month((int(fyEnd)+3*q.fq-1)%12 + 1)
}

// reports reports whether the 10-Q d reports the quarter, for a fiscal
// year ending in month fyEnd.
func (q quarterAsk) reports(d corpus.Document, fyEnd time.Month) bool {
	if d.PeriodEnd.IsZero() {
		return false
	}
	if q.fq > 0 {
		return fiscalQuarter(d.PeriodEnd, fyEnd) == q.fq && d.FiscalYear == q.fy
	}
	if q.day > 0 {
		asked := time.Date(q.year, q.month, q.day, 0, 0, 0, 0, time.UTC)
		diff := d.PeriodEnd.Sub(asked)
		return diff <= 7*24*time.Hour && diff >= -7*24*time.Hour
	}
	m, y := quarterMonth(d.PeriodEnd)
	return m == q.month && y == q.year || d.PeriodEnd.Month() == q.month && d.PeriodEnd.Year() == q.year
}

// String names the quarter as a reader would: "Q2 of fiscal 2025", "the
// quarter ended March 2025".
func (q quarterAsk) String() string {
	if q.fq > 0 {
		return fmt.Sprintf("Q%d of fiscal %d", q.fq, q.fy)
	}
	if q.day > 0 {
		return fmt.Sprintf("the quarter ended %s %d, %d", q.month, q.day, q.year)
	}
	return fmt.Sprintf("the quarter ended %s %d", q.month, q.year)
}

// slug is the quarter in a requirement id: "q2", "2025-03".
func (q quarterAsk) slug() string {
	if q.fq > 0 {
		return fmt.Sprintf("q%d", q.fq)
	}
	return fmt.Sprintf("%d-%02d", q.year, int(q.month))
}

// quartersAsked splits the quarters the question names for issuer t's
// fiscal year fy into the 10-Q of the corpus that reports the first of
// them held (read, ok), the quarters no 10-Q reports (missing), and the
// quarters another 10-Q of the year reports (unread: a plan reads one
// report per fiscal year, so each of those is asked as a passage of its
// own). All are empty when the question names no quarter of fy, or when
// t's fiscal year end cannot be read.
func (b *builder) quartersAsked(t string, fy int) (read corpus.Document, ok bool, missing, unread []quarterAsk) {
	fyEnd, known := b.cat.fiscalYearEnd(t)
	if !known {
		return corpus.Document{}, false, nil, nil
	}
	var filings []corpus.Document
	for _, d := range b.cat.Filings(t) {
		if d.Form == "10-Q" && d.FiscalYear == fy {
			filings = append(filings, d)
		}
	}
	for _, q := range askedQuarters(b.question) {
		if q.fiscalYear(fyEnd) != fy {
			continue
		}
		i := slices.IndexFunc(filings, func(d corpus.Document) bool { return q.reports(d, fyEnd) })
		switch {
		case i < 0:
			missing = append(missing, q)
		case !ok:
			read, ok = filings[i], true
		case filings[i].ID != read.ID:
			unread = append(unread, q)
		}
	}
	return read, ok, missing, unread
}

// onlyDatesQuarter reports whether fiscal year fy is written in the
// question only as the calendar year of a quarter named by its month that
// falls in another of issuer t's fiscal years: "the December 2023 quarter,
// i.e. fiscal Q1 2024" asks Apple's fiscal 2024, not fiscal 2023.
func (b *builder) onlyDatesQuarter(t string, fy int) bool {
	fyEnd, known := b.cat.fiscalYearEnd(t)
	if !known {
		return false
	}
	dated := false
	for _, q := range askedQuarters(b.question) {
		switch {
		case q.fiscalYear(fyEnd) == fy:
			return false
		case q.month != 0 && q.year == fy:
			dated = true
		}
	}
	if !dated {
		return false
	}
	// The year written anywhere else asks it in its own right.
	rest := quarterMonthFirst.ReplaceAllString(quarterEnded.ReplaceAllString(b.question, ""), "")
	return !slices.Contains(findFiscalYears(rest), fy)
}

// annualQuarter returns, for a quarter of issuer t's fiscal year fy that
// the question names, the annual report whose table of quarters prints
// it and the quarter's number (1-4): fy's own 10-K, else the next year's,
// which prints the year before's quarters beside its own. ok is false
// when the question names no quarter of fy, or no such report prints
// its figures by quarter.
func (b *builder) annualQuarter(t string, fy int) (d corpus.Document, fq int, ok bool) {
	fyEnd, known := b.cat.fiscalYearEnd(t)
	if !known {
		return corpus.Document{}, 0, false
	}
	for _, q := range askedQuarters(b.question) {
		if q.fiscalYear(fyEnd) != fy {
			continue
		}
		n := q.fq
		if n == 0 {
			months := (int(q.month) - int(fyEnd) + 12) % 12
			if months%3 != 0 {
				continue // a month no quarter of the year ends in
			}
			if n = months / 3; n == 0 {
				n = 4
			}
		}
		for _, year := range []int{fy, fy + 1} {
			if d, found := b.cat.Filing(t, year, "10-K"); found && d.FiscalYear == year && b.cat.printsQuarters(d.ID) {
				return d, n, true
			}
		}
	}
	return corpus.Document{}, 0, false
}

// printsQuarters reports whether an annual report prints figures by
// quarter (a table of quarters).
func (c *Catalog) printsQuarters(documentID string) bool {
	return slices.ContainsFunc(c.figures[documentID], func(e FigureEntry) bool { return e.Quarterly })
}

// asksSequential matches a question asking a quarter's change over the
// quarter before it: "sequential", "quarter over quarter", "QoQ", "vs the
// prior quarter", "from Q3" (a quarter written without a year).
var asksSequential = regexp.MustCompile(`(?i)\bsequential(?:ly)?\b|\bquarter[- ]over[- ]quarter\b|\bq/?o/?q\b|\b(?:from|vs\.?|versus|over|against|compared\s+(?:to|with))\s+(?:the\s+)?(?:(?:prior|previous|preceding|last)\s+quarter|q[1-4]\b(?:\s*(?:fy\s*)?'?\d{2,4})?)`)

// planQuarterBefore plans, when the question asks a quarter's change over
// the quarter before it, that quarter's figure for metric (figure key
// key) from the annual report's table of quarters: Q(fq-1) of the year,
// or Q4 of the year before for a first quarter. It returns the figure's
// requirement and node, and the reference a calculation names it by. ok
// is false when the question asks no such change, or names the quarter
// before with a year of its own (asked as a period of its own).
func (b *builder) planQuarterBefore(t string, p filingPeriod, aspect, metric, key string, m reqMeta) (looked, tools.FactRef, bool) {
	match := asksSequential.FindString(b.question)
	if match == "" || len(findFiscalYears(match)) > 0 {
		return looked{}, tools.FactRef{}, false
	}
	fy, fq := p.fy, p.fq-1
	if fq == 0 {
		fy, fq = p.fy-1, 4
	}
	period := tools.PeriodLabel(fy)
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return looked{}, tools.FactRef{}, false
	}
	id := fmt.Sprintf("%s-%s-%s-figure-%s-q%d", t, period, aspect, metric, fq)
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindFigure, Required: true,
		Need: fmt.Sprintf("%s's %s for Q%d of %s, the quarter before, from the table of quarters in its %s %s",
			b.cat.ShortName(t), mt.Label, fq, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: mt.Label + " for Q" + strconv.Itoa(fq), Concepts: []string{key},
			QuarterEnded: b.quarterEnded(t, fy, fq)},
	}, m)
	node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period, FiscalQuarter: fq, Flow: true}, []string{id})
	return looked{id, node, key}, tools.FactRef{Ticker: t, Concept: key, Period: period, FiscalQuarter: fq}, true
}

// quarterEnded names quarter fq of issuer t's fiscal year fy by the year
// and month it ends in ("2020-09"), as Condition.QuarterEnded does; ""
// when t's fiscal year end cannot be read.
func (b *builder) quarterEnded(t string, fy, fq int) string {
	fyEnd, ok := b.cat.fiscalYearEnd(t)
	if !ok || fq < 1 || fq > 4 {
		return ""
	}
	m := quarterAsk{fq: fq, fy: fy}.endMonth(fyEnd)
	y := fy
	if m > fyEnd {
		y-- // a quarter ending after the year's end month ends in the calendar year before
	}
	return fmt.Sprintf("%04d-%02d", y, int(m))
}
