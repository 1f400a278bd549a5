package tools

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

// QualifyConcept returns a concept with its taxonomy prefix: a bare name
// such as "GrossProfit" is taken as "us-gaap:GrossProfit"; a qualified
// name is returned unchanged.
func QualifyConcept(c string) string {
	c = strings.TrimSpace(c)
	if c == "" || strings.Contains(c, ":") {
		return c
	}
	return "us-gaap:" + c
}

// maxFilings bounds the filings of one fiscal year a lookup consults.
const maxFilings = 3

// maxLine bounds the bytes of a fact's evidence line: a displayed value
// with its row label and neighbouring columns, not a paragraph.
const maxLine = 400

// runLookup finds the displayed, undimensioned value of a concept for a
// ticker and fiscal year. It consults every filing of that year (10-K
// first, at most maxFilings) and returns the value each shows, so filings
// that disagree are all registered, with the prior-year comparative each
// shows beside it. When no filing of the year shows the concept, the
// comparative column of the next year's annual filing (when in scope) is
// used, with the year before it where that filing prints it. Finding nothing is not an error: the response says what was tried.
func runLookup(ctx context.Context, env *Env, c *lookupCall) (*result, error) {
	mine, year, err := lookupFilings(ctx, env, c)
	if err != nil {
		return nil, err
	}
	ff := &factFinder{ctx: ctx, store: env.Store, texts: map[string]*docText{}, cache: env.Texts, above: c.Above}
	res := &result{}
	what := c.Ticker + " " + strings.Join(c.Concepts, " or ")
	if c.Metric != "" {
		what = c.Ticker + " " + c.Metric
	}
	var tried []string
	if year != 0 {
		filings := filingsOf(mine, year, false)
		for _, d := range filings {
			tried = append(tried, fmt.Sprintf("%s for %s (period ended %s)", d.Form, PeriodLabel(d.FiscalYear), d.PeriodEnd.Format(time.DateOnly)))
		}
		for _, concept := range c.Concepts {
			found := false
			for _, d := range filings {
				cur, err := ff.current(d, concept, c)
				if err != nil {
					return nil, err
				}
				if cur == nil {
					continue
				}
				found = true
				note := ownNote(d)
				if c.FiscalQuarter > 0 {
					note = quarterNote(d, *cur, c.FiscalQuarter)
				}
				if err := ff.add(res, d, concept, outflow(*cur, c.Outflow), note); err != nil {
					return nil, err
				}
				prior, err := ff.comparative(d, concept, *cur)
				if err != nil {
					return nil, err
				}
				if prior != nil {
					note := comparativeNote(d)
					if c.FiscalQuarter > 0 {
						note = priorQuarterNote(d, *prior, c.FiscalQuarter)
					}
					if err := ff.add(res, d, concept, outflow(*prior, c.Outflow), note); err != nil {
						return nil, err
					}
				}
			}
			if found {
				break
			}
		}
		// A later annual filing shows this year beside its own: the next
		// year's as its comparative, the one after as the comparative's
		// comparative (an income statement prints three years).
		for back := 1; back <= 2 && len(res.facts) == 0; back++ {
			later := filingsOf(mine, year+back, true)
			for _, d := range later {
				tried = append(tried, fmt.Sprintf("the %s comparative in the %s for %s", PeriodLabel(year), d.Form, PeriodLabel(d.FiscalYear)))
			}
			for _, concept := range c.Concepts {
				for _, d := range later {
					var f *corpus.Fact
					note := comparativeNoteBack(d, back)
					if c.FiscalQuarter > 0 {
						// The later report's table of quarters prints the
						// year's quarters beside its own.
						f, err = ff.quarterOfYear(d, concept, year, c.FiscalQuarter)
						if f != nil {
							note = quarterNote(d, *f, c.FiscalQuarter)
						}
					} else {
						f, err = ff.current(d, concept, c)
						for step := 0; step < back && f != nil && err == nil; step++ {
							f, err = ff.comparative(d, concept, *f)
						}
					}
					if err != nil {
						return nil, err
					}
					if f != nil {
						if err := ff.add(res, d, concept, outflow(*f, c.Outflow), note); err != nil {
							return nil, err
						}
						// With the year before it, which the filing prints
						// too, as for a year's own filing: a change computed
						// from the two does not wait on another lookup.
						prior, err := ff.comparative(d, concept, *f)
						if err != nil {
							return nil, err
						}
						if prior != nil {
							note := comparativeNoteBack(d, back+1)
							if c.FiscalQuarter > 0 {
								note = priorQuarterNote(d, *prior, c.FiscalQuarter)
							}
							if err := ff.add(res, d, concept, outflow(*prior, c.Outflow), note); err != nil {
								return nil, err
							}
						}
					}
				}
				if len(res.facts) > 0 {
					break
				}
			}
		}
	}
	res.candidates = ff.seen
	header := lookupHeader(c, what, year, res, tried, ff)
	res.render = func(r *result) string { return renderFacts(r, header) }
	return res, nil
}

// lookupFilings returns the filings of the call's ticker in the run's
// scope, without superseded ones, and the fiscal year asked: the call's,
// or else the latest with an annual filing.
func lookupFilings(ctx context.Context, env *Env, c *lookupCall) ([]corpus.Document, int, error) {
	docs, err := env.Store.Documents(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("tools: %s: %w", LookupFact, err)
	}
	var mine []corpus.Document
	for _, d := range docs {
		if d.Ticker == c.Ticker && env.Scope.hasYear(d.FiscalYear) {
			mine = append(mine, d)
		}
	}
	mine = withoutSuperseded(mine)
	year := c.Year
	if year == 0 {
		year = latestAnnual(mine)
	}
	return mine, year, nil
}

// lookupHeader says what a lookup asked for and, when it found nothing,
// what it tried, so the gap can be recorded precisely.
func lookupHeader(c *lookupCall, what string, year int, res *result, tried []string, ff *factFinder) string {
	var b strings.Builder
	switch {
	case year == 0:
		fmt.Fprintf(&b, "%s: no filing of %s in the run's scope, so no fact for %s.", LookupFact, c.Ticker, what)
	case len(tried) == 0:
		fmt.Fprintf(&b, "%s: no filing of %s for %s in the run's scope, nor an annual filing for %s or %s showing it, so no fact for %s.",
			LookupFact, c.Ticker, PeriodLabel(year), PeriodLabel(year+1), PeriodLabel(year+2), what)
	case len(res.facts) == 0:
		fmt.Fprintf(&b, "%s: no displayed fact for %s %s. Tried %s in: %s.", LookupFact, what, PeriodLabel(year),
			strings.Join(c.Concepts, ", "), strings.Join(tried, "; "))
		b.WriteString(" Only undimensioned facts shown in the filing's text count; search the filing's text instead.")
	default:
		fmt.Fprintf(&b, "%s: %s %s: %s (concept %s).", LookupFact, what, PeriodLabel(year), plural(len(res.facts), "fact"), res.facts[0].Concept)
	}
	if ff.truncated {
		fmt.Fprintf(&b, " It examined its limit of %d facts; more may exist.", MaxFactsSeen)
	}
	return b.String()
}

func ownNote(d corpus.Document) string {
	if isQuarterly(d.Form) {
		return fmt.Sprintf("the period the %s for %s reports", d.Form, PeriodLabel(d.FiscalYear))
	}
	return fmt.Sprintf("%s, from the %s for %s", PeriodLabel(d.FiscalYear), d.Form, PeriodLabel(d.FiscalYear))
}

func comparativeNote(d corpus.Document) string { return comparativeNoteBack(d, 1) }

// comparativeNoteBack names a comparative back years before filing d's
// own period.
func comparativeNoteBack(d corpus.Document, back int) string {
	if isQuarterly(d.Form) {
		if back == 1 {
			return fmt.Sprintf("the same period a year earlier, a comparative in the %s for %s", d.Form, PeriodLabel(d.FiscalYear))
		}
		return fmt.Sprintf("the same period %d years earlier, a comparative in the %s for %s", back, d.Form, PeriodLabel(d.FiscalYear))
	}
	return fmt.Sprintf("%s, the comparative in the %s for %s", PeriodLabel(d.FiscalYear-back), d.Form, PeriodLabel(d.FiscalYear))
}

// outflow returns a table fact of a payment as its magnitude, when asked;
// a tagged fact is returned as it is (a payment's concept is positive).
func outflow(f corpus.Fact, asked bool) corpus.Fact {
	if asked && f.Kind == corpus.FactTable {
		f.Value = f.Value.Abs()
	}
	return f
}

// formRank orders forms for a lookup: annual reports first.
func formRank(form string) int {
	switch f := strings.ToUpper(form); {
	case f == "10-K":
		return 0
	case strings.HasPrefix(f, "10-K"):
		return 1
	case strings.HasPrefix(f, "10-Q"):
		return 3
	}
	return 2
}

func isAnnual(form string) bool    { return formRank(form) < 2 }
func isQuarterly(form string) bool { return formRank(form) == 3 }

// latestAnnual is the latest fiscal year with an annual filing, or else
// the latest with any filing; 0 when there is none.
func latestAnnual(docs []corpus.Document) int {
	annual, any := 0, 0
	for _, d := range docs {
		any = max(any, d.FiscalYear)
		if isAnnual(d.Form) {
			annual = max(annual, d.FiscalYear)
		}
	}
	if annual != 0 {
		return annual
	}
	return any
}

// filingsOf returns the filings of a fiscal year, annual ones first and
// the latest period first, at most maxFilings; only annual ones when asked.
func filingsOf(docs []corpus.Document, year int, annualOnly bool) []corpus.Document {
	var out []corpus.Document
	for _, d := range docs {
		if d.FiscalYear == year && (!annualOnly || isAnnual(d.Form)) {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b corpus.Document) int {
		if r := formRank(a.Form) - formRank(b.Form); r != 0 {
			return r
		}
		return b.PeriodEnd.Compare(a.PeriodEnd)
	})
	return out[:min(len(out), maxFilings)]
}

// factFinder reads facts for one lookup, within MaxFactsSeen facts.
type factFinder struct {
	ctx       context.Context
	store     CorpusReader
	seen      int  // facts the store returned
	truncated bool // a read may have stopped short at the bound
	texts     map[string]*docText
	cache     *TextCache // nil: none
	above     string     // a total row's table key its table rows are read above; "" for none
}

// aboveReach bounds how far above its total's row a table row is read as
// one of its table's (LookupFactArgs.Above).
const aboveReach = 2000

// docText is a document's text with what evidence needs of it. It may be
// shared by concurrent calls (see TextCache): all but the memo under mu is
// read only.
type docText struct {
	text     string
	pages    *corpus.PageIndex
	sections []corpus.Section

	mu        sync.Mutex
	statement map[int]int // otherStatement by offset
}

// facts returns the facts matching f, within what is left of the bound.
func (ff *factFinder) facts(f corpus.FactFilter) ([]corpus.Fact, error) {
	left := MaxFactsSeen - ff.seen
	if left <= 0 {
		ff.truncated = true
		return nil, nil
	}
	f.Limit = left
	facts, err := ff.store.Facts(ff.ctx, f)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", LookupFact, err)
	}
	if len(facts) > left {
		facts = facts[:left]
	}
	ff.seen += len(facts)
	if len(facts) == left {
		ff.truncated = true
	}
	return facts, nil
}

// current returns the fact a filing shows for its own period under a
// figure key (see FigureKey): displayed, of the key's member (none for a
// plain concept), ending on the filing's period end, and of the duration
// nearest to the filing's (a year for an annual report, a quarter for a
// 10-Q, or the longest up to a year for its year to date), or an
// instant; nil when there is none. With quarter, a 10-Q's figure is its
// quarter's or none: a duration of more than a quarter is no answer.
func (ff *factFinder) current(d corpus.Document, key string, c *lookupCall) (*corpus.Fact, error) {
	if c.FiscalQuarter > 0 {
		return ff.quarterOfYear(d, key, d.FiscalYear, c.FiscalQuarter)
	}
	facts, err := ff.statementsFirst(d, key, keyFilter(d, key, d.PeriodEnd))
	if err != nil {
		return nil, err
	}
	want := 365
	if isQuarterly(d.Form) && !c.YearToDate {
		want = 91
	}
	return nearest(facts, key, d.PeriodEnd, func(f *corpus.Fact) (int, bool) {
		if f.Instant {
			return 0, !c.Flow
		}
		if days(f) <= MaxQuarterDays && !isQuarterly(d.Form) {
			return 0, false // an annual report's fourth quarter is not its year
		}
		if c.Quarter && isQuarterly(d.Form) && days(f) > MaxQuarterDays {
			return 0, false
		}
		return abs(days(f) - want), true
	}), nil
}

// quarterOfYear returns the fact under key for quarter q of fiscal year
// fy from annual report d's table of quarters (fy is d's year or one
// before it, which the table may print too): three months ending in that
// quarter of the year; nil when the report prints none, and always for a
// quarterly report, whose own quarter is asked by Quarter.
func (ff *factFinder) quarterOfYear(d corpus.Document, key string, fy, q int) (*corpus.Fact, error) {
	if !isAnnual(d.Form) {
		return nil, nil
	}
	facts, err := ff.statementsFirst(d, key, keyFilter(d, key, time.Time{}))
	if err != nil {
		return nil, err
	}
	var end time.Time
	for _, f := range facts {
		if y, fq, ok := fiscalQuarterOf(f, d); ok && y == fy && fq == q {
			end = f.PeriodEnd
			break
		}
	}
	if end.IsZero() {
		return nil, nil
	}
	return nearest(facts, key, end, func(f *corpus.Fact) (int, bool) {
		if f.Instant || days(f) > MaxQuarterDays {
			return 0, false
		}
		return abs(days(f) - 91), true
	}), nil
}

// fiscalQuarterOf returns the fiscal year and quarter (1-4) of a
// quarter's fact an annual report shows: the year of the report's or one
// of the two before it whose span holds the fact's end, and the quarter
// counted back from that year's end. ok is false for an instant, a
// duration longer than a quarter, or an end outside those years.
func fiscalQuarterOf(f corpus.Fact, d corpus.Document) (fy, q int, ok bool) {
	if f.Instant || days(&f) > MaxQuarterDays || d.PeriodEnd.IsZero() {
		return 0, 0, false
	}
	return quarterInYear(f.PeriodEnd, d)
}

// quarterInYear returns the fiscal year and quarter an end date of three
// months falls in, judged by annual report d (see fiscalQuarterOf).
func quarterInYear(end time.Time, d corpus.Document) (fy, q int, ok bool) {
	for back := 0; back <= 2; back++ {
		yearEnd := d.PeriodEnd.AddDate(-back, 0, 0)
		// A 52/53-week year ends up to a week either side of the date.
		if !end.After(yearEnd.AddDate(-1, 0, weekSlack)) || end.After(yearEnd.AddDate(0, 0, weekSlack)) {
			continue
		}
		before := yearEnd.Sub(end).Hours() / 24
		q = 4 - int(math.Round(before/(365.25/4)))
		if q < 1 || q > 4 {
			return 0, 0, false
		}
		return d.FiscalYear - back, q, true
	}
	return 0, 0, false
}

// weekSlack is the days a 52/53-week calendar moves a period's end.
const weekSlack = 7

// quarterNote says where a quarter of an annual report's year is from.
func quarterNote(d corpus.Document, f corpus.Fact, q int) string {
	fy, fq, ok := fiscalQuarterOf(f, d)
	if !ok {
		fy, fq = d.FiscalYear, q
	}
	return fmt.Sprintf("the quarter ended %s (Q%d of %s), from the table of quarters in the %s for %s",
		f.PeriodEnd.Format(time.DateOnly), fq, PeriodLabel(fy), d.Form, PeriodLabel(d.FiscalYear))
}

// priorQuarterNote says where the year-ago quarter beside a quarter of an
// annual report's year is from.
func priorQuarterNote(d corpus.Document, f corpus.Fact, q int) string {
	return "the same quarter a year earlier, " + strings.TrimPrefix(quarterNote(d, f, q), "the ")
}

// MaxQuarterDays is the longest duration read as a quarter: thirteen or
// fourteen weeks, with room for a calendar's days.
const MaxQuarterDays = 100

// statementsFirst returns the facts f selects, those of a table row in
// the financial statements (see statementSection) before the same row
// printed in the discussion or elsewhere, each in the filing's order: a row label recurs across a
// filing's tables ("Research and development" in the statement of
// operations, in a stock-based compensation table and in the discussion's
// own table), and the audited statement is the one to cite.
func (ff *factFinder) statementsFirst(d corpus.Document, key string, f corpus.FactFilter) ([]corpus.Fact, error) {
	facts, err := ff.facts(f)
	if err != nil || !strings.HasPrefix(key, TablePrefix) || len(facts) < 2 {
		return facts, err
	}
	t, err := ff.text(d.ID)
	if err != nil {
		return nil, err
	}
	outside := func(f corpus.Fact) int {
		return boolInt(!statementSection(d.Form, sectionAt(t.sections, f.Start)))
	}
	// Among the statements, the statement of operations before the others
	// that print the row too: "Net income (loss)" opens the statement of
	// cash flows, which some filers print first. Within each, the row
	// printed first: the store's order of facts is not the filing's.
	other := make(map[int]int, len(facts))
	for _, f := range facts {
		if _, ok := other[f.Start]; !ok {
			other[f.Start] = t.otherStatement(f.Start)
		}
	}
	slices.SortStableFunc(facts, func(a, b corpus.Fact) int {
		return cmp.Or(outside(a)-outside(b), other[a.Start]-other[b.Start], cmp.Compare(a.Start, b.Start))
	})
	if ff.above != "" && ff.above != key {
		// The row of the total's own table first: the one printed
		// nearest above a value of the total row for the same period.
		wholes, err := ff.facts(keyFilter(d, ff.above, f.PeriodEnd))
		if err != nil {
			return nil, err
		}
		gap := make(map[int]int, len(facts))
		for _, r := range facts {
			gap[r.Start] = aboveReach + 1
			for _, w := range wholes {
				if g := w.Start - r.Start; g > 0 && g <= aboveReach && g < gap[r.Start] && w.PeriodEnd.Equal(r.PeriodEnd) {
					gap[r.Start] = g
				}
			}
		}
		slices.SortStableFunc(facts, func(a, b corpus.Fact) int { return cmp.Compare(gap[a.Start], gap[b.Start]) })
	}
	return facts, nil
}

// otherStatement is 0 for a row under the title of a statement of
// operations (of income, of earnings), 1 under another statement's title
// or none within statementReach bytes above it.
func otherStatement(text string, at int) int {
	from := max(0, at-statementReach)
	titles := statementTitle.FindAllStringSubmatch(text[from:min(at, len(text))], -1)
	if len(titles) == 0 || titles[len(titles)-1][1] == "" {
		return 1
	}
	return 0
}

// otherStatement is otherStatement of the text at an offset, computed once
// per offset while t is kept.
func (t *docText) otherStatement(at int) int {
	t.mu.Lock()
	v, ok := t.statement[at]
	t.mu.Unlock()
	if ok {
		return v
	}
	v = otherStatement(t.text, at)
	t.mu.Lock()
	if t.statement == nil {
		t.statement = map[int]int{}
	}
	t.statement[at] = v
	t.mu.Unlock()
	return v
}

// statementReach is how far above a row its statement's title is looked
// for: a statement runs a page or two.
const statementReach = 8000

// statementTitle matches a financial statement's title; its group is set
// for a statement of operations.
var statementTitle = regexp.MustCompile(`(?i)\bstatements?\s+of\s+(?:(operations|income|earnings)\b|comprehensive|cash\s+flows|financial\s+position|stockholders|shareholders|changes)|\bbalance\s+sheets?\b`)

// statementSection reports whether a section of a filing of form holds its
// financial statements. Form 10-K puts them in Item 8, or in Item 15 with
// the schedules when Item 8 refers there (as many filers do); Form 10-Q in
// Part I, Item 1 (Part II's Item 1 is legal proceedings, which prints no
// statement).
func statementSection(form, section string) bool {
	switch {
	case isQuarterly(form):
		return section == "Item 1"
	case isAnnual(form):
		return section == "Item 8" || section == "Item 15"
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keyFilter selects the facts of a filing a figure key names, ending on end.
func keyFilter(d corpus.Document, key string, end time.Time) corpus.FactFilter {
	concept, member, row := SplitFigureKey(key)
	if row != "" {
		return corpus.FactFilter{DocumentID: d.ID, Kind: corpus.FactTable, Label: row, Member: member, PeriodEnd: end}
	}
	first, _, _ := strings.Cut(member, ",") // nearest checks the rest
	return corpus.FactFilter{DocumentID: d.ID, Concept: concept, Member: first, PeriodEnd: end}
}

// comparative returns the fact under the same key a filing shows for the
// period a year before cur: ending about a year earlier, of cur's kind and
// nearest its duration; nil when the filing shows none.
func (ff *factFinder) comparative(d corpus.Document, key string, cur corpus.Fact) (*corpus.Fact, error) {
	for _, end := range priorEnds(cur) {
		facts, err := ff.statementsFirst(d, key, keyFilter(d, key, end))
		if err != nil {
			return nil, err
		}
		best := nearest(facts, key, end, func(f *corpus.Fact) (int, bool) {
			if f.Instant != cur.Instant {
				return 0, false
			}
			if f.Instant {
				return 0, true
			}
			if d := abs(days(f) - days(&cur)); d <= maxComparativeSlack {
				return d, true
			}
			return 0, false // a quarter is not a year's comparative, nor a year a quarter's
		})
		if best != nil {
			return best, nil
		}
		if ff.truncated {
			break
		}
	}
	return nil, nil
}

// maxComparativeSlack bounds, in days, how much a comparative's duration
// may differ from its period's: a 53-week year beside a 52-week one.
const maxComparativeSlack = 45

// priorEnds lists the period ends a comparative a year before cur may
// have, likeliest first: the day before an annual duration starts, then
// the days around the anniversary (52/53-week years shift the end by up to
// a week).
func priorEnds(cur corpus.Fact) []time.Time {
	var out []time.Time
	add := func(t time.Time) {
		for _, o := range out {
			if sameDay(o, t) {
				return
			}
		}
		out = append(out, t)
	}
	if !cur.Instant && !cur.PeriodStart.IsZero() && days(&cur) > 300 {
		add(cur.PeriodStart.AddDate(0, 0, -1))
	}
	anniversary := cur.PeriodEnd.AddDate(-1, 0, 0)
	add(anniversary)
	for i := 1; i <= 7; i++ {
		add(anniversary.AddDate(0, 0, -i))
		add(anniversary.AddDate(0, 0, i))
	}
	return out
}

// nearest returns the first displayed fact under key ending on end with
// the lowest score; score's false excludes a fact. A plain concept's fact
// has no dimensions; a member's has that member and no other dimension
// (a segment's figure, not one product within one segment).
func nearest(facts []corpus.Fact, key string, end time.Time, score func(*corpus.Fact) (int, bool)) *corpus.Fact {
	_, member, row := SplitFigureKey(key)
	// A row of a table titled by a part ("United States and Canada
	// (UCAN)") is stored both plain and as the part's; its plain copy is
	// the part's figure, not the company's.
	parts := map[[2]int]bool{}
	for _, f := range facts {
		if f.Dimensions[corpus.TablePartAxis] != "" {
			parts[[2]int{f.Start, f.End}] = true
		}
	}
	var best *corpus.Fact
	bestScore := 0
	for i := range facts {
		f := &facts[i]
		if f.Start < 0 || f.End <= f.Start || !sameDay(f.PeriodEnd, end) {
			continue
		}
		switch {
		case row != "":
			// A part's row has its part and no other; the plain row has none.
			if f.Kind != corpus.FactTable || f.Label != row || f.Dimensions[corpus.TablePartAxis] != member || len(f.Dimensions) > boolInt(member != "") {
				continue
			}
			if member == "" && parts[[2]int{f.Start, f.End}] {
				continue
			}
		case member != "":
			if m, ok := FigureMember(f.Dimensions); !ok || m != member {
				continue
			}
		default:
			if len(f.Dimensions) > 0 || f.Kind == corpus.FactTable {
				continue
			}
		}
		s, ok := score(f)
		if !ok {
			continue
		}
		if row != "" && f.Unit == "pure" {
			s++ // a table's percentage column of the row, after its amount
		}
		// Of two equally near, the one stated more precisely: a table's
		// "23,248,931" (in thousands) over a sentence's "$23.2 billion"
		// tagged with the same concept.
		if best == nil || s < bestScore || s == bestScore && precision(f) > precision(best) {
			best, bestScore = f, s
		}
	}
	return best
}

// precision is the number of decimal places a fact is stated to, as
// tagged ("-6" for millions); a value tagged exact ("INF") is the most
// precise, one without the attribute the least.
func precision(f *corpus.Fact) int {
	switch f.Decimals {
	case "INF":
		return math.MaxInt32
	case "":
		return math.MinInt32
	}
	n, err := strconv.Atoi(f.Decimals)
	if err != nil {
		return math.MinInt32
	}
	return n
}

// days is the length of a duration fact in days.
func days(f *corpus.Fact) int {
	return int(f.PeriodEnd.Sub(f.PeriodStart).Hours()/24 + 0.5)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// add registers fact f of document d in res: its evidence is the line of
// text showing the value.
func (ff *factFinder) add(res *result, d corpus.Document, key string, f corpus.Fact, note string) error {
	t, err := ff.text(d.ID)
	if err != nil {
		return err
	}
	if f.End > len(t.text) {
		return nil // a span the text does not hold: nothing to cite
	}
	start, end := lineSpan(t.text, f.Start, f.End)
	ev := ledger.Evidence{
		Kind:       ledger.KindFact,
		DocumentID: d.ID,
		Start:      start,
		End:        end,
		Excerpt:    t.text[start:end],
		Ticker:     d.Ticker,
		Form:       d.Form,
		Period:     PeriodLabel(d.FiscalYear),
		Page:       t.pages.Page(start),
		Section:    sectionAt(t.sections, start),
	}
	res.addEvidence(ev, "")
	res.addFact(ledger.Fact{
		EvidenceID: ledger.EvidenceID(d.ID, start, end),
		Concept:    key,
		Value:      f.Value,
		Unit:       f.Unit,
		Period:     factPeriod(f),
	}, note)
	return nil
}

// text returns a document's text, read once per lookup, or once while the
// Env's TextCache keeps it.
func (ff *factFinder) text(id string) (*docText, error) {
	if t, ok := ff.texts[id]; ok {
		return t, nil
	}
	if t, ok := ff.cache.get(id); ok {
		ff.texts[id] = t
		return t, nil
	}
	doc, err := ff.store.Document(ff.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: document %s: %w", LookupFact, id, err)
	}
	t := newDocText(doc.Text)
	ff.texts[id] = t
	ff.cache.put(id, t)
	return t, nil
}

// factPeriod is a fact's period as the ledger keeps it.
func factPeriod(f corpus.Fact) string {
	if f.Instant || f.PeriodStart.IsZero() {
		return f.PeriodEnd.Format(time.DateOnly)
	}
	return f.PeriodStart.Format(time.DateOnly) + "/" + f.PeriodEnd.Format(time.DateOnly)
}

// sectionAt returns the name of the section holding offset.
func sectionAt(sections []corpus.Section, offset int) string {
	for _, s := range sections {
		if s.Start <= offset && offset < s.End {
			return s.Name
		}
	}
	return ""
}

// lineSpan widens the value at [start, end) to the line holding it, so the
// evidence reads "Total net sales | 391,035 | 383,285 | 394,328". A line
// longer than maxLine bytes is cut to a window of maxLine bytes around the
// value, on rune boundaries.
func lineSpan(text string, start, end int) (int, int) {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	le := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		le = end + i
	}
	if le-ls <= maxLine {
		return ls, le
	}
	room := max(0, maxLine-(end-start))
	s := max(ls, start-room/2)
	e := min(le, end+(room-(start-s)))
	s = max(ls, min(s, e-maxLine))
	if s > start {
		s = start
	}
	if e < end {
		e = end
	}
	for s < start && !runeStart(text[s]) {
		s++
	}
	for e > end && e < len(text) && !runeStart(text[e]) {
		e--
	}
	return s, e
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// renderFacts is lookup_fact's response: per evidence line, the facts it
// shows and the wrapped line.
func renderFacts(r *result, header string) string {
	resp := &response{noun: "facts"}
	resp.line("%s", header)
	if len(r.facts) == 0 {
		return resp.String()
	}
	resp.note()
	for _, d := range disagreements(r.facts) {
		resp.line("%s", d)
	}
	for i := range r.evidence {
		e := &r.evidence[i]
		var b strings.Builder
		for _, f := range r.facts {
			if f.EvidenceID != e.ID {
				continue
			}
			fmt.Fprintf(&b, "fact %s: %s %s = %s %s for %s (period %s)\n",
				f.ID, e.Ticker, f.Concept, f.Value.String(), f.Unit, r.notes[f.ID], f.Period)
		}
		b.WriteString(EvidenceBlock(*e, MaxExcerpt, nil) + "\n")
		resp.item(b.String())
	}
	return resp.String()
}

// disagreements says where facts of one concept and period differ in value.
func disagreements(facts []ledger.Fact) []string {
	var out []string
	for i, a := range facts {
		for _, b := range facts[i+1:] {
			if a.Concept == b.Concept && a.Period == b.Period && a.Unit == b.Unit && !a.Value.Equal(b.Value) {
				out = append(out, fmt.Sprintf("The filings disagree: %s for %s is %s in fact %s and %s in fact %s.",
					a.Concept, a.Period, a.Value, a.ID, b.Value, b.ID))
			}
		}
	}
	return out
}
