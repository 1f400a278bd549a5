package planner

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
	"github.com/shopspring/decimal"
)

// FigureEntry is one figure a filing reports, as the planner knows it: the
// key lookup_fact finds it under, and the words the filing prints beside
// it. The planner reads which concept, member or table row answers a
// question's figure from these, not from a list.
type FigureEntry struct {
	Key     string // tools figure key: concept, concept[member] or table:row
	Concept string // qualified concept; "" for a table row
	Member  string // the members as a key names them (tools.FigureMember); "" for none
	// Axes are the axis of each of its members.
	Axes  map[string]string
	Label string // the row label printed beside the value; "" for none
	Table bool   // read from a table of a text or PDF filing
	// Varies marks a table row printed with different values for one
	// period: the row of several parts ("Net sales" of each segment).
	Varies bool
	// Stale marks a table row with no value for the period most of the
	// filing's rows end on (its own fiscal period): a row of a table about
	// something else, such as an investee's "Revenue" for a year ending
	// three months earlier.
	Stale bool
	// Rate marks a table row of rates: every value a fraction without
	// a unit ("Calendar comparable sales increase 6.4% 8.7%"), a change
	// in itself: its growth is not computed, its sign is its move.
	Rate bool
	// Money marks a figure of amounts of money (unit USD): no count of
	// things ("how many members" is not "Membership fees").
	Money bool
	// PartOf are the keys of the figures a table row is a part of: the
	// rows above a bare "Total" row that add up to it, where another
	// figure of the filing states the total's amount for the same period
	// ("LinkedIn 13,816" above "Total $ 198,270", the "Total revenue" of
	// the income statement).
	PartOf []string
	// From are the keys of the two rows a table row is printed as the
	// difference of, the first less the second: the rows just above it,
	// for the same period, whose amounts give its own ("Net sales" and
	// "Less merchandise costs" above "Gross margin"; "Net cash provided
	// by (used in) operating activities" and "Purchases of property and
	// equipment, net of proceeds from sales and incentives" above "Free
	// cash flow"), or, for a row of rates, its rate as a share of the
	// first ("Gross margin percentage 10.48 %"). It is how the filing
	// defines the figure, whatever a metric's usual inputs are.
	From []string
	// Over are the keys of the two rows a table row of rates is printed
	// as the share of, the first over the second: the row its label
	// names before "as a percentage of" (or the amount row just above
	// it) and the row named after ("SG&A expenses as a percentage of net
	// sales 8.88 %" is "SG&A expenses" over "Net sales"), where their
	// amounts give the rate at the digits it prints.
	Over []string
	// Quarterly marks a figure printed for periods of three months: a
	// quarterly report's own, or a row of an annual report's table of
	// quarters, whose quarters a lookup reads with FiscalQuarter.
	Quarterly bool
}

// maxFigureEntries bounds the entries kept per filing.
const maxFigureEntries = 20000

// FigureEntries reduces a filing's facts to the distinct figures it
// displays: facts with no dimension or one explicit member, shown in the
// text.
func FigureEntries(facts []corpus.Fact) []FigureEntry {
	seen := map[string]bool{}
	var out []FigureEntry
	// A table row's values per period, to tell a row of parts.
	// A table row is told by its label and its part.
	row := func(f corpus.Fact) string { return tools.TablePartKey(f.Label, f.Dimensions[corpus.TablePartAxis]) }
	values := map[string]string{}
	varies := map[string]bool{}
	for _, f := range facts {
		if f.Kind != corpus.FactTable || f.Label == "" || f.Unit == "pure" {
			continue
		}
		p := row(f) + "\x00" + f.PeriodStart.Format(time.DateOnly) + "\x00" + f.PeriodEnd.Format(time.DateOnly)
		v := f.Value.String()
		if old, ok := values[p]; ok && old != v {
			varies[row(f)] = true
		}
		values[p] = v
	}
	// A row of rates: every value of the row pure and one a fraction.
	pure, fraction := map[string]bool{}, map[string]bool{}
	for _, f := range facts {
		if f.Kind != corpus.FactTable || f.Label == "" {
			continue
		}
		r := row(f)
		if _, ok := pure[r]; !ok {
			pure[r] = true
		}
		pure[r] = pure[r] && f.Unit == "pure"
		fraction[r] = fraction[r] || !f.Value.IsInteger()
	}
	partOf := partsOfTotals(facts, row)
	from := differencesAbove(facts, row)
	over := sharesNamed(facts, row)
	own := ownPeriodEnd(facts)
	current := map[string]bool{}
	quarterly := map[string]bool{} // by figure key
	for _, f := range facts {
		if f.Kind == corpus.FactTable && f.PeriodEnd.Equal(own) {
			current[row(f)] = true
		}
		if !f.Instant && f.PeriodEnd.Sub(f.PeriodStart) <= tools.MaxQuarterDays*24*time.Hour {
			if f.Kind == corpus.FactTable {
				quarterly[row(f)] = true
			} else if member, ok := tools.FigureMember(f.Dimensions); ok {
				quarterly[tools.FigureKey(f.Concept, member)] = true
			}
		}
	}
	for _, f := range facts {
		member, ok := tools.FigureMember(f.Dimensions)
		if f.Start < 0 || f.End <= f.Start || !ok {
			continue
		}
		e := FigureEntry{Concept: f.Concept, Label: f.Label, Money: f.Unit == "USD"}
		switch {
		case f.Kind == corpus.FactTable:
			if f.Label == "" {
				continue
			}
			e.Table, e.Concept, e.Key, e.Varies = true, "", row(f), varies[row(f)]
			e.PartOf = partOf[row(f)]
			e.From = from[row(f)]
			e.Over = over[row(f)]
			e.Rate = pure[row(f)] && fraction[row(f)]
			e.Stale = !own.IsZero() && !current[row(f)]
			if part := f.Dimensions[corpus.TablePartAxis]; part != "" {
				e.Member, e.Axes = part, map[string]string{part: corpus.TablePartAxis}
			}
		default:
			e.Member = member
			for a, m := range f.Dimensions {
				if member != "" && slices.Contains(strings.Split(member, ","), m) {
					if e.Axes == nil {
						e.Axes = map[string]string{}
					}
					e.Axes[m] = a
				}
			}
			e.Key = tools.FigureKey(f.Concept, e.Member)
		}
		e.Quarterly = quarterly[e.Key]
		k := e.Key + "\x00" + e.Label
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
		if len(out) == maxFigureEntries {
			break
		}
	}
	return out
}

// maxTotalParts bounds the rows above a total read as its parts.
const maxTotalParts = 16

// partsOfTotals returns, by row key, the keys of the figures each table
// row is a part of (FigureEntry.PartOf): for each bare "Total" row of
// amounts, the rows just above it, in the text and for the same period,
// whose amounts add up to the total's, when another figure of the filing
// (tagged, or a row of another label) states that amount for the period;
// for a total row labelled as a figure, the rows adding up to it are
// parts of that row and of any figure stating its amount.
func partsOfTotals(facts []corpus.Fact, row func(corpus.Fact) string) map[string][]string {
	type period struct{ start, end time.Time }
	byPeriod := map[period][]corpus.Fact{}
	amounts := map[string][]string{} // period and amount -> keys of figures stating it
	amountKey := func(f corpus.Fact) string {
		return f.PeriodStart.Format(time.DateOnly) + "\x00" + f.PeriodEnd.Format(time.DateOnly) + "\x00" + f.Value.String()
	}
	for _, f := range facts {
		if f.Unit != "USD" || f.Start < 0 {
			continue
		}
		if f.Kind == corpus.FactTable {
			if f.Label == "" {
				continue
			}
			byPeriod[period{f.PeriodStart, f.PeriodEnd}] = append(byPeriod[period{f.PeriodStart, f.PeriodEnd}], f)
			if normLabel(f.Label) != "total" && len(f.Dimensions) == 0 {
				amounts[amountKey(f)] = appendNew(amounts[amountKey(f)], row(f))
			}
			continue
		}
		if member, ok := tools.FigureMember(f.Dimensions); ok && member == "" {
			amounts[amountKey(f)] = appendNew(amounts[amountKey(f)], tools.FigureKey(f.Concept, ""))
		}
	}
	out := map[string][]string{}
	for _, rows := range byPeriod {
		slices.SortFunc(rows, func(a, b corpus.Fact) int { return a.Start - b.Start })
		for i, total := range rows {
			wholes := amounts[amountKey(total)]
			if normLabel(total.Label) != "total" {
				// A total row labelled as a figure ("Income before income
				// taxes $ 83,716" under "U.S. $ 47,837" and "Foreign
				// 35,879") is the whole its rows above add up to.
				if len(total.Dimensions) > 0 {
					continue
				}
				wholes = appendNew(slices.Clone(wholes), row(total))
			}
			if len(wholes) == 0 || total.Value.IsZero() {
				continue
			}
			sum := decimal.Zero
			for k := i - 1; k >= max(0, i-maxTotalParts); k-- {
				if normLabel(rows[k].Label) == "total" || len(rows[k].Dimensions) > 0 {
					break
				}
				sum = sum.Add(rows[k].Value)
				if sum.Equal(total.Value) && k < i-1 {
					for _, r := range rows[k:i] {
						for _, w := range wholes {
							out[row(r)] = appendNew(out[row(r)], w)
						}
					}
					break
				}
			}
		}
	}
	return out
}

// maxDifferenceRows bounds the rows above a row read as the two it is the
// difference of (FigureEntry.From): a reconciliation prints them just
// above, a gross margin percentage with the gross margin between.
const maxDifferenceRows = 3

// differencesAbove returns, by row key, the two rows each table row of a
// filing is printed as the difference of (FigureEntry.From): among the
// rows just above it for the same period, in the text's order, the first
// two, a and b, whose amounts give its own as a less b (a cost or an
// outflow is subtracted however its sign is printed), or, for a rate,
// (a less b) over a at the digits it prints. Every period that prints the
// three rows must agree.
func differencesAbove(facts []corpus.Fact, row func(corpus.Fact) string) map[string][]string {
	type period struct{ start, end time.Time }
	byPeriod := map[period][]corpus.Fact{}
	for _, f := range facts {
		if f.Kind == corpus.FactTable && f.Label != "" && f.Start >= 0 && len(f.Dimensions) == 0 && (f.Unit == "USD" || f.Unit == "pure") {
			byPeriod[period{f.PeriodStart, f.PeriodEnd}] = append(byPeriod[period{f.PeriodStart, f.PeriodEnd}], f)
		}
	}
	out := agreedRows{}
	for _, rows := range byPeriod {
		slices.SortFunc(rows, func(a, b corpus.Fact) int { return a.Start - b.Start })
		for i, t := range rows {
			var found []string
			for j := max(0, i-maxDifferenceRows); j < i && found == nil; j++ {
				for k := j + 1; k < i; k++ {
					a, b := rows[j], rows[k]
					if a.Unit == "USD" && b.Unit == "USD" && !a.Value.IsZero() && !b.Value.IsZero() && row(a) != row(b) && differenceOf(t, a.Value, b.Value.Abs()) {
						found = []string{row(a), row(b)}
						break
					}
				}
			}
			out.read(row(t), found)
		}
	}
	return out.rows()
}

// agreedRows keeps, by row key, the rows a row was found to be printed
// from, where every period that shows it agrees: a period finding other
// rows refutes it, once and for all; nil is a period finding none.
type agreedRows map[string][]string

func (a agreedRows) read(key string, found []string) {
	old, seen := a[key]
	switch {
	case found == nil:
	case !seen:
		a[key] = found
	case old != nil && !slices.Equal(old, found):
		a[key] = nil // refuted
	}
}

// rows returns the rows every period agreed on.
func (a agreedRows) rows() map[string][]string {
	out := map[string][]string{}
	for k, v := range a {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// differenceOf reports whether row t prints a less b: the amount exactly,
// or, for a rate, (a - b) / a at the digits t prints.
func differenceOf(t corpus.Fact, a, b decimal.Decimal) bool {
	d := a.Sub(b)
	if t.Unit == "USD" {
		return d.Equal(t.Value)
	}
	if t.Value.IsInteger() || a.Sign() <= 0 {
		return false
	}
	places := -t.Value.Exponent()
	return d.DivRound(a, places+2).Round(places).Equal(t.Value)
}

// shareLabel matches the label of a row of rates that names what it is a
// share of: "SG&A expenses as a percentage of net sales".
var shareLabel = regexp.MustCompile(`(?i)^(.+?)\s+as\s+an?\s+(?:percent(?:age)?|%|share)\s+of\s+(?:total\s+)?(.+)$`)

// sharesNamed returns, by row key, the two rows each row of rates whose
// label names its numerator and its whole is printed as the share of
// (FigureEntry.Over): the row labelled with the numerator's words, or the
// amount row just above, over the row labelled with the whole's words, of
// the same period end, whose amounts give the rate at the digits it
// prints. Every period must agree.
func sharesNamed(facts []corpus.Fact, row func(corpus.Fact) string) map[string][]string {
	type amount struct {
		key   string
		label string
		value decimal.Decimal
		start int
	}
	byEnd := map[time.Time][]amount{}
	for _, f := range facts {
		if f.Kind == corpus.FactTable && f.Unit == "USD" && f.Label != "" && len(f.Dimensions) == 0 && f.Start >= 0 && !f.Instant {
			byEnd[f.PeriodEnd] = append(byEnd[f.PeriodEnd], amount{row(f), normLabel(f.Label), f.Value, f.Start})
		}
	}
	out := agreedRows{}
	for _, f := range facts {
		if f.Kind != corpus.FactTable || f.Unit != "pure" || len(f.Dimensions) > 0 || f.Value.IsInteger() {
			continue
		}
		m := shareLabel.FindStringSubmatch(f.Label)
		if m == nil {
			continue
		}
		num, den := normLabel(m[1]), normLabel(m[2])
		rows := byEnd[f.PeriodEnd]
		above, aboveStart := "", -1
		for _, a := range rows {
			if a.start < f.Start && a.start > aboveStart {
				above, aboveStart = a.key, a.start
			}
		}
		places := -f.Value.Exponent()
		var found []string
		for _, n := range rows {
			if n.label != num && n.key != above {
				continue
			}
			for _, d := range rows {
				if d.label != den || d.value.Sign() <= 0 || n.key == d.key {
					continue
				}
				if n.value.Abs().DivRound(d.value, places+2).Round(places).Equal(f.Value.Abs()) {
					found = []string{n.key, d.key}
					break
				}
			}
			if found != nil {
				break
			}
		}
		out.read(row(f), found)
	}
	return out.rows()
}

// isChangeRate reports whether key is a table row of rates of change in a
// filing: a row of rates (FigureEntry.Rate) whose label says it is a change
// ("Calendar comparable sales increase"), not a ratio of levels ("Gross
// profit rate").
func (c *Catalog) isChangeRate(documentID, key string) bool {
	return slices.ContainsFunc(c.figures[documentID], func(e FigureEntry) bool {
		return e.Key == key && e.Rate && changeLabel.MatchString(e.Label)
	})
}

// changeLabel matches a row label naming a change.
var changeLabel = regexp.MustCompile(`(?i)\b(increase|decrease|growth|change|decline)s?\b`)

// ownPeriodEnd is the period end a filing's table values are reported
// for, its own fiscal period's; zero when it shows no table.
func ownPeriodEnd(facts []corpus.Fact) time.Time {
	n := map[time.Time]int{}
	most := 0
	for _, f := range facts {
		if f.Kind != corpus.FactTable || f.PeriodEnd.IsZero() {
			continue
		}
		n[f.PeriodEnd]++
		most = max(most, n[f.PeriodEnd])
	}
	// The latest end nearly as common as the commonest: a filing's tables
	// print the year before beside its own, sometimes in more tables
	// than its own year (Amazon's 2022 10-K dates more values 2021-12-31
	// than 2022-12-31), while an investee's odd period is rare.
	var best time.Time
	for end, c := range n {
		if 2*c >= most && end.After(best) {
			best = end
		}
	}
	return best
}

// SetFigures gives the catalog the figures a filing reports, so the
// planner can tell which key answers a figure for it.
func (c *Catalog) SetFigures(documentID string, entries []FigureEntry) {
	c.SetIndexedFigures(documentID, &IndexedFigures{Entries: entries})
}

// IndexedFigures is a filing's figures with the index the planner finds
// them by label with, built once (IndexFigures) to be given to every
// catalog of the filing.
type IndexedFigures struct {
	Entries []FigureEntry
	labels  *labelIndex // nil until built
}

// IndexFigures returns entries with their label index built.
func IndexFigures(entries []FigureEntry) *IndexedFigures {
	return &IndexedFigures{Entries: entries, labels: newLabelIndex(entries)}
}

// SetIndexedFigures is SetFigures with the index f was built with, if
// any; the catalog builds it on first use otherwise.
func (c *Catalog) SetIndexedFigures(documentID string, f *IndexedFigures) {
	if c.figures == nil {
		c.figures = map[string][]FigureEntry{}
	}
	c.figures[documentID] = f.Entries
	if c.memo != nil {
		c.memo.forget(documentID)
		if f.labels != nil {
			c.memo.mu.Lock()
			c.memo.labels[documentID] = f.labels
			c.memo.mu.Unlock()
		}
	}
}

// WithoutFigures returns a copy of the catalog that knows no filing's
// figures, for a plan served by passages alone (the fixed retrieval pass):
// its figures are then passages stating them, not facts to look up.
func (c *Catalog) WithoutFigures() *Catalog {
	cp := *c
	cp.figures = nil
	cp.memo = newCatalogMemo()
	cp.passagesOnly = true
	return &cp
}

// FigureLabel returns the row label the filing prints beside the figure
// under key; "" when it prints none or the catalog does not know it.
func (c *Catalog) FigureLabel(documentID, key string) string {
	for _, e := range c.figures[documentID] {
		if e.Key == key && e.Label != "" {
			return e.Label
		}
	}
	return ""
}

// KnowsFigures reports whether the catalog was given the figures of a
// filing.
func (c *Catalog) KnowsFigures(documentID string) bool {
	_, ok := c.figures[documentID]
	return ok
}

// ResolveMetric returns the key under which a filing reports metric m, for
// member a segment's figure ("" for the company-wide one): the first of
// the metric's concepts the filing tags; else the row whose printed label
// names the metric (a tagged row before a table row of a text filing):
// first a label the question itself uses (hint, any case), then by the
// order of the metric's names ("total revenues" before "net sales"), then
// the shortest label holding every word of one of its names of two or
// more words ("diluted net income per common share attributable to the
// company" for "diluted net income per share"). It reports false when the
// filing shows none, or when the catalog does not know the filing's
// figures.
func (c *Catalog) ResolveMetric(documentID string, m tools.Metric, member, hint string) (string, bool) {
	entries := c.figures[documentID]
	if k, ok := resolveAmong(entries, m, hint, func(e FigureEntry) bool { return e.Member == member }); ok {
		return k, true
	}
	if member == "" || strings.Contains(member, ",") {
		return "", false
	}
	// A part the filing tags only within another ("Advertising" within its
	// one segment): the figure whose members hold it and one more, when
	// the filing shows one such figure only.
	within := func(e FigureEntry) bool {
		ms := strings.Split(e.Member, ",")
		return len(ms) == 2 && slices.Contains(ms, member)
	}
	k, ok := resolveAmong(entries, m, hint, within)
	if !ok {
		return "", false
	}
	concept, _, row := tools.SplitFigureKey(k)
	for _, e := range entries {
		if within(e) && !e.Table && row == "" && e.Concept == concept && tools.FigureKey(e.Concept, e.Member) != k {
			return "", false // several: which one is meant is not known
		}
	}
	return k, true
}

// resolveQuarterly is ResolveMetric among the company-wide figures a
// filing prints by quarter (FigureEntry.Quarterly).
func (c *Catalog) resolveQuarterly(documentID string, m tools.Metric, hint string) (string, bool) {
	return resolveFit(c.figures[documentID], m, hint, func(e FigureEntry) bool { return e.Quarterly && e.Member == "" })
}

// resolveAmong is ResolveMetric over the entries fit accepts: a table row
// that reports the filing's own period before one that does not.
func resolveAmong(entries []FigureEntry, m tools.Metric, hint string, fit func(FigureEntry) bool) (string, bool) {
	if k, ok := resolveFit(entries, m, hint, func(e FigureEntry) bool { return !e.Stale && fit(e) }); ok {
		return k, true
	}
	return resolveFit(entries, m, hint, fit)
}

// resolveFit is resolveAmong over the entries fit accepts, rows as they come.
func resolveFit(entries []FigureEntry, m tools.Metric, hint string, fit func(FigureEntry) bool) (string, bool) {
	for _, concept := range m.Concepts {
		for _, e := range entries {
			if !e.Table && e.Concept == concept && fit(e) {
				return e.Key, true
			}
		}
	}
	key := func(e FigureEntry) string {
		if e.Table {
			return e.Key
		}
		return tools.FigureKey(e.Concept, e.Member)
	}
	var names []string
	for _, a := range append([]string{m.Label}, m.Aliases...) {
		a = normLabel(a)
		names = appendNew(names, "total "+a, a)
	}
	// Totals first: "total revenues" is the revenue, "revenues" may be a
	// part's; keep the catalogue's order within each.
	slices.SortStableFunc(names, func(a, b string) int {
		return boolRank(!strings.HasPrefix(a, "total ")) - boolRank(!strings.HasPrefix(b, "total "))
	})
	q := " " + stemWords(hint) + " "
	for _, table := range []bool{false, true} {
		var cands []FigureEntry
		for _, e := range entries {
			if e.Table == table && fit(e) && slices.Contains(names, normLabel(e.Label)) {
				cands = append(cands, e)
			}
		}
		// A row as a reader writes it before the same row set in capitals.
		slices.SortStableFunc(cands, func(a, b FigureEntry) int {
			return boolRank(allCaps(a.Label)) - boolRank(allCaps(b.Label))
		})
		// The figure as the accounting standard defines it: net income is
		// the owners' share ("Net income attributable to the company").
		for _, pre := range m.Prefer {
			var found *FigureEntry
			for i, e := range entries {
				if l := normLabel(e.Label); e.Table == table && fit(e) && preferred(l, pre) && !strings.Contains(l, "noncontrolling") &&
					(found == nil || allCaps(found.Label) && !allCaps(e.Label)) {
					found = &entries[i]
				}
			}
			if found != nil {
				return key(*found), true
			}
		}
		// A label the question itself uses, the longest first (footnote
		// marks aside: "Net revenues (1)" is no longer than "Net revenues").
		var hinted *FigureEntry
		for i, e := range cands {
			if slices.ContainsFunc(signVariants(e.Label), func(l string) bool { return strings.Contains(q, " "+stemWords(l)+" ") }) &&
				(hinted == nil || len(normLabel(e.Label)) > len(normLabel(hinted.Label))) {
				hinted = &cands[i]
			}
		}
		if hinted != nil {
			// The total of the row the question names, where the filing
			// prints the row for several parts: "net sales" of a company
			// is its "Total net sales", not the first segment's "Net
			// sales".
			if hinted.Varies {
				total := "total " + normLabel(hinted.Label)
				for _, e := range cands {
					if normLabel(e.Label) == total {
						return key(e), true
					}
				}
			}
			return key(*hinted), true
		}
		for _, n := range names {
			for _, e := range cands {
				if normLabel(e.Label) == n {
					return key(e), true
				}
			}
		}
		// A label holding every word of a name in another order or with
		// more words ("Earnings per share—diluted"): the one holding the
		// longest name, then the shortest label, so that "diluted earnings
		// per share" is not read from "Earnings per share—basic" by the
		// shorter alias "earnings per share".
		var best *FigureEntry
		bestName := 0
		for i, e := range entries {
			if e.Table != table || !fit(e) || e.Label == "" {
				continue
			}
			lw := strings.Fields(normLabel(e.Label))
			// "Other comprehensive income (loss), net of income taxes"
			// holds "net income (loss)" word by word, and is another
			// figure: a label of "other" things is not the thing.
			if len(lw) > 0 && lw[0] == "other" {
				continue
			}
			for _, n := range names {
				// The name's joining words need not be the label's:
				// "purchases of property and equipment" is the row
				// "Purchases related to property and equipment and
				// intangible assets".
				nw := slices.DeleteFunc(strings.Fields(n), func(w string) bool { return linkingWords[w] })
				if len(nw) < 2 || strings.HasPrefix(n, "total ") || !allIn(nw, lw) {
					continue
				}
				if best == nil || len(nw) > bestName || len(nw) == bestName && len(e.Label) < len(best.Label) {
					best, bestName = &entries[i], len(nw)
				}
			}
		}
		if best != nil {
			return key(*best), true
		}
	}
	return "", false
}

// preferred reports whether label l is the figure a metric prefers,
// pre: at its start, or after the word "consolidated" ("Consolidated net
// income attributable to Walmart").
func preferred(l, pre string) bool {
	return strings.HasPrefix(strings.TrimPrefix(l, "consolidated "), pre)
}

// allCaps reports whether a label is set in capitals.
func allCaps(s string) bool {
	return strings.ToUpper(s) == s && strings.ToLower(s) != s
}

// stemWords is a label through normLabel with each word's plural s
// dropped, so "total revenues" reads as "total revenue".
func stemWords(s string) string {
	ws := strings.Fields(normLabel(s))
	for i, w := range ws {
		switch {
		case len(w) > 4 && strings.HasSuffix(w, "ies"):
			ws[i] = w[:len(w)-3] + "y" // "inventories" is "inventory"
		case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			ws[i] = w[:len(w)-1]
		}
	}
	return strings.Join(ws, " ")
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// linkingWords link the words of a figure's name without naming anything
// (linkingWords["of"]), so a row may link them with others; joiningWords
// are the words no name starts with, listJoins those between the items of
// a list.
var linkingWords = map[string]bool{"of": true, "to": true, "for": true, "the": true, "in": true, "from": true, "on": true, "at": true, "by": true}

// allIn reports whether every word of words is in in.
func allIn(words, in []string) bool {
	for _, w := range words {
		if !slices.Contains(in, w) {
			return false
		}
	}
	return true
}

// normLabel is a row label as labels are compared: lower case, footnote
// marks, a trailing colon and punctuation runs dropped, spaces collapsed.
// signVariants returns the labels a row printed for either sign stands
// for: "Net income (loss)" is the statement's row for "net income" and for
// "net loss" alike, and so is what a question asking for a net loss means
// (a row labelled "Net loss" alone is one of a table of parts or quarters).
// A label of another shape stands for itself.
func signVariants(label string) []string {
	m := signVariant.FindStringSubmatch(strings.TrimSpace(label))
	if m == nil {
		return []string{label}
	}
	return []string{label, m[1] + m[2], m[1] + m[3]}
}

var signVariant = regexp.MustCompile(`^(.*?)(\pL+)\s*\((\pL+)\)$`)

func normLabel(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '&' || r == '\'':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		case r == '’':
			b.WriteByte('\'')
		default:
			space = true
		}
	}
	out := b.String()
	// "(1)" footnote marks read as a trailing number word.
	for {
		i := strings.LastIndexByte(out, ' ')
		if i < 0 || strings.TrimLeft(out[i+1:], "0123456789") != "" || len(out)-i > 3 {
			break
		}
		out = out[:i]
	}
	return out
}

// standardPrefixes are the namespaces of the public XBRL taxonomies; a
// member in any other namespace is the filer's own (its segments,
// products and brands).
var standardPrefixes = map[string]bool{
	"us-gaap": true, "srt": true, "dei": true, "country": true, "currency": true, "exch": true, "stpr": true,
	"ifrs-full": true, "naics": true, "sic": true, "ecd": true, "cyd": true, "invest": true, "xbrli": true,
}

// segmentName turns a filer's own member into the words a question uses
// for it: "amzn:AmazonWebServicesSegmentMember" is "Amazon Web Services";
// "" for a standard member or one whose name holds no word.
func segmentName(member string) string {
	if name, ok := strings.CutPrefix(member, corpus.TablePartPrefix); ok {
		// A part a table prints: its name as printed, an abbreviation in
		// parentheses aside ("Asia-Pacific (APAC)"; see partAbbreviation).
		if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
			name = name[:i]
		}
		return strings.TrimSpace(name)
	}
	prefix, local, ok := strings.Cut(member, ":")
	if !ok || standardPrefixes[strings.ToLower(prefix)] {
		return ""
	}
	local = strings.TrimSuffix(local, "Member")
	local = strings.TrimSuffix(local, "Segment")
	words := splitCamelWords(local)
	if len(words) == 0 {
		return ""
	}
	return strings.Join(words, " ")
}

// partAbbreviation returns the abbreviation a table's part is printed
// with in parentheses after its name ("APAC" in "part:Asia-Pacific
// (APAC)"); "" when none.
func partAbbreviation(member string) string {
	name, ok := strings.CutPrefix(member, corpus.TablePartPrefix)
	i := strings.LastIndex(name, " (")
	if !ok || i < 0 || !strings.HasSuffix(name, ")") {
		return ""
	}
	ab := name[i+2 : len(name)-1]
	if ab == "" || strings.ContainsFunc(ab, func(r rune) bool { return !unicode.IsUpper(r) && !unicode.IsDigit(r) && r != '&' }) {
		return ""
	}
	return ab
}

// splitCamelWords splits "AmazonWebServices" into its words, keeping runs
// of capitals ("AWSCloud" -> "AWS", "Cloud") and reading a lone capital
// before a lower-case word as a brand's ("IPhone" -> "iPhone").
func splitCamelWords(s string) []string {
	rs := []rune(s)
	var words []string
	start := 0
	for i := 1; i <= len(rs); i++ {
		boundary := i == len(rs)
		if !boundary {
			prev, cur := rs[i-1], rs[i]
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(cur):
				boundary = true
			case unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next) && i-start > 1:
				boundary = true
			case unicode.IsLetter(prev) != unicode.IsLetter(cur):
				boundary = true
			}
		}
		if boundary {
			w := string(rs[start:i])
			if w = strings.Trim(w, "._-"); w != "" {
				words = append(words, w)
			}
			start = i
		}
	}
	for i, w := range words {
		r := []rune(w)
		if len(r) >= 3 && r[0] == 'I' && unicode.IsUpper(r[1]) && unicode.IsLower(r[2]) {
			words[i] = "i" + string(r[1:])
		}
	}
	return words
}

// Segment is a segment, product or other part of an issuer that a
// question names, read from the issuer's XBRL members.
type Segment struct {
	Name    string   // as the filing names it: a member's words or the row label printed beside it
	Members []string // the members that name it, segment members first
}

// partAxis reports whether a standard member on axis names a part of the
// issuer (a segment, product or service line, geography, market) rather
// than, say, a column of the statement of equity.
func partAxis(axis string) bool {
	a := strings.ToLower(axis)
	for _, w := range []string{"segment", "productorservice", "geograph", "region", "market", "consolidationitems"} {
		if strings.Contains(a, w) {
			return true
		}
	}
	return false
}

// segmentNames returns the names of ticker's parts by member: each of
// its own members' words, each standard member the filings show on a
// segment, product or geography axis, and the row labels the filings print
// beside a member's figures that share a word with the member's name
// ("Advertising services" for us-gaap:AdvertisingMember).
func (c *Catalog) segmentNames(ticker string) map[string][]string {
	if c.memo == nil {
		return c.buildSegmentNames(ticker)
	}
	c.memo.mu.Lock()
	defer c.memo.mu.Unlock()
	names, ok := c.memo.segments[ticker]
	if !ok {
		names = c.buildSegmentNames(ticker)
		c.memo.segments[ticker] = names
	}
	return names
}

// orgNouns close a part's name by saying what kind of unit it is, and a
// question may leave them out: "data center revenue" for the "Data Center
// Group".
var orgNouns = map[string]bool{"group": true, "segment": true, "division": true, "business": true, "unit": true}

// withoutOrgNoun returns a part's name without its closing organisational
// noun, where two words or more are left ("Data Center Group": "Data
// Center"); "" otherwise.
func withoutOrgNoun(name string) string {
	words := strings.Fields(name)
	if n := len(words); n >= 3 && orgNouns[strings.ToLower(words[n-1])] {
		return strings.Join(words[:n-1], " ")
	}
	return ""
}

// buildSegmentNames is segmentNames, built.
func (c *Catalog) buildSegmentNames(ticker string) map[string][]string {
	labels := map[string][]string{} // member -> row labels naming it
	words := map[string][]string{}  // member -> its name in words
	parts := map[string]string{}    // member on a part axis -> its name
	add := func(to map[string][]string, member, name string) {
		name = strings.TrimSpace(name)
		if name != "" && !slices.Contains(to[member], name) {
			to[member] = append(to[member], name)
		}
	}
	for _, d := range c.filings[ticker] {
		for _, m := range d.Entity.Members {
			add(words, m, segmentName(m))
		}
		for _, e := range c.figures[d.ID] {
			for m, axis := range e.Axes {
				if axis == corpus.TablePartAxis {
					// A table's part: its name, and the abbreviation the
					// filing gives it ("Asia-Pacific (APAC)").
					add(words, m, segmentName(m))
					if ab := partAbbreviation(m); ab != "" {
						add(words, m, ab)
					}
					if short := withoutOrgNoun(segmentName(m)); short != "" {
						add(words, m, short)
					}
					continue
				}
				own := segmentName(m)
				if own == "" && partAxis(axis) {
					own = memberWords(m)
				}
				if own == "" {
					continue
				}
				if partAxis(axis) {
					parts[m] = own
				}
				add(words, m, own)
				if l := labelName(e.Label); l != "" && shareWord(l, own) {
					add(labels, m, l)
				}
			}
		}
	}
	for m, rest := range houseNameRests(parts) {
		add(words, m, rest)
	}
	// A name that says what it takes in ("China Including Hong Kong") is
	// named by its head ("China").
	for m, ws := range words {
		for _, w := range ws {
			if head, _, ok := cutIncluding(w); ok {
				add(words, m, head)
			}
		}
	}
	// The filing's printed name first, then the member's words.
	for m, ws := range words {
		labels[m] = append(labels[m], ws...)
	}
	return labels
}

// cutIncluding splits a part's name at a word of what it takes in
// ("China Including Hong Kong", "Americas Excluding U.S."): the head
// before it, of one word or more.
func cutIncluding(name string) (head, rest string, ok bool) {
	ws := strings.Fields(name)
	for i := 1; i < len(ws)-1; i++ {
		switch strings.ToLower(ws[i]) {
		case "including", "excluding", "incl", "excl":
			return strings.Join(ws[:i], " "), strings.Join(ws[i+1:], " "), true
		}
	}
	return "", "", false
}

// houseNameRests names parts without the house name they share: where at
// least minHouseParts of an issuer's parts open with one word ("Google
// Cloud", "Google Services", "Google Network" of Alphabet), the word is
// the issuer's own name for its business, and what follows it names the
// part alone ("Cloud"), so "Alphabet's cloud revenue" asks Google Cloud's.
// A rest that another part's name holds too names none. parts maps each
// member shown on a part axis to its name.
func houseNameRests(parts map[string]string) map[string]string {
	first := map[string][]string{} // opening word, lower case -> members
	for m, name := range parts {
		ws := strings.Fields(name)
		prefix, _, _ := strings.Cut(m, ":")
		if len(ws) < 2 || standardPrefixes[strings.ToLower(prefix)] {
			continue // a standard member's words are no issuer's house name
		}
		k := strings.ToLower(ws[0])
		first[k] = append(first[k], m)
	}
	out := map[string]string{}
	for _, ms := range first {
		if len(ms) < minHouseParts {
			continue
		}
		for _, m := range ms {
			rest := strings.Join(strings.Fields(parts[m])[1:], " ")
			shared := false
			for o, name := range parts {
				if o != m && (strings.EqualFold(name, rest) || holdsWords(name, rest)) {
					shared = true
				}
			}
			if !shared {
				out[m] = rest
			}
		}
	}
	return out
}

// minHouseParts is how many of an issuer's parts must open with one word
// for the word to be taken as its house name (see houseNameRests).
const minHouseParts = 3

// PartNames returns the names of ticker's parts of business its filings
// show (segments, products, regions), each once, in no set order.
func (c *Catalog) PartNames(ticker string) []string {
	var out []string
	for _, names := range c.segmentNames(ticker) {
		for _, n := range names {
			if !isMetricName(n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// holdsWords reports whether name a holds the words of name b in order,
// plurals read as their singular: "Example Web Services" holds "Service".
func holdsWords(a, b string) bool {
	stem := func(ws []string) []string {
		out := make([]string, 0, len(ws))
		for _, w := range ws {
			if !isAnd(w) {
				out = append(out, strings.TrimSuffix(strings.ToLower(w), "s"))
			}
		}
		return out
	}
	wa, wb := stem(wordsOf(a)), stem(wordsOf(b))
	if len(wb) == 0 || len(wb) >= len(wa) {
		return false
	}
	for i := 0; i+len(wb) <= len(wa); i++ {
		if slices.Equal(wa[i:i+len(wb)], wb) {
			return true
		}
	}
	return false
}

// labelName is a row label as a name: footnote marks and a trailing colon
// dropped; "" when it is long or holds no letter.
func labelName(label string) string {
	l := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(label), ":"))
	for strings.HasSuffix(l, ")") {
		i := strings.LastIndexByte(l, '(')
		if i < 0 || strings.Trim(l[i+1:len(l)-1], "0123456789*") != "" {
			break
		}
		l = strings.TrimSpace(l[:i])
	}
	if len(l) > 60 || !hasLetter(l) {
		return ""
	}
	return l
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// shareWord reports whether two names share a word of four or more
// letters, a plural's stem included.
func shareWord(a, b string) bool {
	stem := func(w string) string { return strings.TrimSuffix(strings.ToLower(w), "s") }
	ws := wordsOf(b)
	ys := slices.Clone(ws)
	// A name the member's camel case splits ("You Tube" of
	// YouTubeAdvertisingRevenueMember) is the label's one word.
	for i := 0; i+1 < len(ws); i++ {
		ys = append(ys, ws[i]+ws[i+1])
	}
	for _, x := range wordsOf(a) {
		if len(x) < 4 {
			continue
		}
		for _, y := range ys {
			if stem(x) == stem(y) {
				return true
			}
		}
	}
	return false
}

// memberWords is a member's name in words, whatever its namespace:
// "srt:AsiaPacificMember" is "Asia Pacific".
func memberWords(member string) string {
	_, local, _ := strings.Cut(member, ":")
	local = strings.TrimSuffix(strings.TrimSuffix(local, "Member"), "Segment")
	return strings.Join(splitCamelWords(local), " ")
}

// listsParts reports whether name is a list of the names of other parts
// of segs, joined by "and", "&" or commas: every piece another part's name.
func listsParts(name string, segs []Segment) bool {
	pieces := partJoins.Split(strings.ToLower(name), -1)
	if len(pieces) < 2 {
		return false
	}
	for _, p := range pieces {
		if !slices.ContainsFunc(segs, func(o Segment) bool {
			return !strings.EqualFold(o.Name, name) && strings.EqualFold(o.Name, strings.TrimSpace(p))
		}) {
			return false
		}
	}
	return true
}

// partJoins joins the names of a list of parts.
var partJoins = regexp.MustCompile(`\s*(?:,\s*and\s+|,|\s+and\s+|\s*&\s*)\s*`)

// SegmentsIn returns the parts of ticker's business that question names,
// by the names segmentNames reads from its filings: a name of several
// words in order, in any case ("&" and "and" alike, hyphens as spaces);
// the initials of a name of three or more capitalised words ("AWS"); a
// one-word name as the filing writes it ("Services", "Mac"), in any case
// when it is no ordinary word ("iphone") or when a figure's word follows
// it ("automotive revenue").
func (c *Catalog) SegmentsIn(question, ticker string) []Segment {
	question = withoutIncludedParts(question)
	qWords := wordsOf(question)
	byName := map[string]*Segment{}
	var order []string
	names := c.segmentNames(ticker)
	// A short form the issuer's filings define for a part's name
	// ("Non-Volatile Memory Solutions Group (NSG)") names the part.
	defined := map[string]bool{}
	var clipped []string
	// Apostrophes stay in their words: "isn't" is no clipped "isn".
	for _, w := range strings.FieldsFunc(question, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' && r != '\'' && r != '’'
	}) {
		if long := c.longForm(ticker, strings.TrimSuffix(strings.TrimSuffix(strings.Trim(w, "'’"), "'s"), "’s")); long != "" {
			defined[normalizeText(long)] = true
		}
		// A word no filing uses, written as a part's word clipped ("intl"
		// for "International"): see below.
		if lw := strings.ToLower(w); len(lw) >= 3 && strings.IndexFunc(lw, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 &&
			c.stats.Documents() > 0 && c.stats.DocumentFrequency(lw) == 0 {
			clipped = append(clipped, lw)
		}
	}
	// A clipped word names the parts whose names hold the one word it
	// clips, when it clips one word of the issuer's parts' names only.
	for _, w := range clipped {
		var full string
		for _, m := range slices.Sorted(maps.Keys(names)) {
			for _, name := range names[m] {
				for _, nw := range strings.Fields(strings.ToLower(name)) {
					if clips(w, nw) {
						if full != "" && full != nw {
							full = "\x00"
						} else if full == "" {
							full = nw
						}
					}
				}
			}
		}
		if full == "" || full == "\x00" {
			continue
		}
		for _, ns := range names {
			for _, name := range ns {
				if slices.Contains(strings.Fields(strings.ToLower(name)), full) {
					defined[normalizeText(name)] = true
				}
			}
		}
	}
	members := make([]string, 0, len(names))
	for m := range names {
		members = append(members, m)
	}
	slices.Sort(members)
	// A member the question names in words already is not named again
	// by a short form's long name ("APAC" is a part's name of its own).
	named := map[string]bool{}
	for _, m := range members {
		for _, name := range names[m] {
			if !isMetricName(name) && namesPart(qWords, name) {
				named[m] = true
			}
		}
	}
	for _, m := range members {
		for _, name := range names[m] {
			if isMetricName(name) || !namesPart(qWords, name) && (named[m] || !defined[normalizeText(name)]) {
				continue
			}
			if c.namesOwnRow(ticker, qWords, name, m) {
				continue
			}
			key := strings.ToLower(name)
			s := byName[key]
			if s == nil {
				s = &Segment{Name: name}
				byName[key] = s
				order = append(order, key)
			}
			if !slices.Contains(s.Members, m) {
				s.Members = append(s.Members, m)
			}
		}
	}
	out := make([]Segment, 0, len(order))
	for _, n := range order {
		s := byName[n]
		sort.SliceStable(s.Members, func(i, j int) bool {
			return strings.Contains(s.Members[i], "Segment") && !strings.Contains(s.Members[j], "Segment")
		})
		out = append(out, *s)
	}
	// A name that lists other names found ("North America and
	// International", a member of its own) is the question listing those
	// parts, each asked alone.
	out = slices.DeleteFunc(out, func(s Segment) bool { return listsParts(s.Name, out) })
	// One part named once: a longer name holding a shorter one wins
	// ("Google Cloud" over "Google"), and names sharing a member are one.
	out = slices.DeleteFunc(out, func(s Segment) bool {
		for _, o := range out {
			if o.Name == s.Name {
				continue
			}
			if holdsWords(o.Name, s.Name) {
				return true
			}
		}
		return false
	})
	var merged []Segment
	for _, s := range out {
		if i := slices.IndexFunc(merged, func(o Segment) bool {
			return slices.ContainsFunc(o.Members, func(m string) bool { return slices.Contains(s.Members, m) }) ||
				abbreviates(o.Name, s.Name) || abbreviates(s.Name, o.Name)
		}); i >= 0 {
			for _, m := range s.Members {
				if !slices.Contains(merged[i].Members, m) {
					merged[i].Members = append(merged[i].Members, m)
				}
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// namesPart reports whether the question's words name a part by name:
// its words (namedIn), with or without the abbreviation in parentheses
// that closes it, or, for a name of three words or more, its words
// with a run of two or three capitalised ones written as their initials
// ("US & Canada", "us and canada" for "United States and Canada (UCAN)",
// the abbreviation in parentheses left out).
func namesPart(qWords []string, name string) bool {
	if namedIn(qWords, wordsOf(name)) {
		return true
	}
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i]
		if len(wordsOf(name)) >= 2 && namedIn(qWords, wordsOf(name)) {
			return true
		}
	}
	words := slices.DeleteFunc(wordsOf(name), isAnd)
	if len(words) < 3 {
		return false
	}
	q := slices.DeleteFunc(slices.Clone(qWords), isAnd)
	for start := range q {
		if initialsMatch(q[start:], words, false, 0) {
			return true
		}
	}
	return false
}

// initialsMatch reports whether q opens with words, a word matching
// itself or a run of two or three capitalised words matching their
// initials (two letters or more); used reports whether initials stood for
// a run already, which a match needs, and matched how many of q's words
// matched before, of which a match needs two: initials standing for the
// whole name ("FoA") name it another way (abbreviates, partAbbreviation).
func initialsMatch(q, words []string, used bool, matched int) bool {
	if len(words) == 0 {
		return used && matched >= 2
	}
	if len(q) == 0 {
		return false
	}
	if strings.EqualFold(q[0], words[0]) && initialsMatch(q[1:], words[1:], used, matched+1) {
		return true
	}
	var ini strings.Builder
	for n := 1; n <= min(3, len(words)); n++ {
		r := []rune(words[n-1])
		if len(r) == 0 || !unicode.IsUpper(r[0]) {
			return false
		}
		ini.WriteRune(r[0])
		if n >= 2 && strings.EqualFold(q[0], ini.String()) && initialsMatch(q[1:], words[n:], true, matched+1) {
			return true
		}
	}
	return false
}

// namesOwnRow reports whether every place the question writes a part's
// one-word name, the name and the figure word after it are the label of a
// row of their own in one of the issuer's filings: "deferred revenue" is
// the balance sheet's "Deferred revenue", not the revenue of a part
// "Deferred" (a tax table's rows under "Federal:" and "State:"), while
// "services revenue" names no row and asks the part's revenue.
func (c *Catalog) namesOwnRow(ticker string, qWords []string, name, member string) bool {
	nw := wordsOf(name)
	if len(nw) != 1 {
		return false
	}
	// A part whose own figures name the word ("Streaming" and its
	// tagged revenues, beside the row "Streaming revenues") is asked its
	// figure.
	reports := func(word string) bool {
		stem := stem5(strings.ToLower(word))
		for _, d := range c.filings[ticker] {
			for _, e := range c.figures[d.ID] {
				if !slices.Contains(strings.Split(e.Member, ","), member) {
					continue
				}
				_, local, _ := strings.Cut(e.Concept, ":")
				for _, w := range append(wordsOf(strings.ToLower(e.Label)), splitCamelWords(local)...) {
					if stem5(strings.ToLower(w)) == stem {
						return true
					}
				}
			}
		}
		return false
	}
	found := false
	for i, w := range qWords {
		if !strings.EqualFold(w, nw[0]) {
			continue
		}
		if i+1 >= len(qWords) || !figureWords[strings.ToLower(qWords[i+1])] {
			return false
		}
		label := []string{strings.ToLower(w), strings.ToLower(qWords[i+1])}
		if !slices.ContainsFunc(c.filings[ticker], func(d corpus.Document) bool { return c.labels(d.ID, label) }) || reports(qWords[i+1]) {
			return false
		}
		found = true
	}
	return found
}

// totalAsked matches the words that ask a whole company's figure.
var totalAsked = regexp.MustCompile(`(?i)\b(total|consolidated|company[\s-]?wide|overall|whole|entire|all[\s-]in)\b`)

// includedPart matches a capitalised name after a word of inclusion
// ("incl. International", "including Sam's Club").
var includedPart = regexp.MustCompile(`\b(?:[Ii]ncl\.?|[Ii]ncluding|[Ii]nclusive of)\s+((?:[A-Z][\w'’&.-]*)(?:\s+(?:[A-Z][\w'’&.-]*|&))*)`)

// withoutIncludedParts blanks the parts a question asking a whole
// company's figure names only as included in it ("total company incl.
// International"): the total is asked, not the part.
func withoutIncludedParts(question string) string {
	// "the market-platform number, not the Compute & Networking segment":
	// a part named to say it is not the one asked.
	question = blankPart(negatedPart, question)
	if !totalAsked.MatchString(question) {
		return question
	}
	return blankPart(includedPart, question)
}

// negatedPart matches a capitalised name a question says is not what it
// asks: "not the Compute & Networking segment", "rather than Graphics".
var negatedPart = regexp.MustCompile(`\b(?:[Nn]ot|[Rr]ather\s+than|[Ii]nstead\s+of)\s+(?:the\s+|its\s+)?((?:[A-Z][\w'’&.-]*)(?:\s+(?:[A-Z][\w'’&.-]*|&))*)`)

// blankPart blanks, in question, the name re's first group matches.
func blankPart(re *regexp.Regexp, question string) string {
	return re.ReplaceAllStringFunc(question, func(m string) string {
		sub := re.FindStringSubmatchIndex(m)
		return m[:sub[2]] + strings.Repeat(" ", sub[3]-sub[2])
	})
}

// abbreviates reports whether short is the initials of the words of long
// ("AWS" of "Amazon Web Services"): one part by two names.
func abbreviates(long, short string) bool {
	ac := initialsOf(slices.DeleteFunc(wordsOf(long), isAnd))
	return ac != "" && strings.EqualFold(ac, short)
}

// isMetricName reports whether name is the name of a catalogue figure
// ("Net Income" for goog:NetIncomeMember, a member of an axis that breaks
// down an equity statement): a figure, not a part of the business.
func isMetricName(name string) bool {
	n := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	for _, m := range tools.Metrics {
		if slices.Contains(m.Aliases, n) {
			return true
		}
	}
	return false
}

// figureWords follow a part's name when a question asks for its figure.
var figureWords = map[string]bool{
	"revenue": true, "revenues": true, "sales": true, "net": true, "operating": true, "segment": true,
	"income": true, "loss": true, "profit": true, "margin": true, "gross": true, "cost": true, "costs": true,
	"business": true, "unit": true,
}

// namedIn reports whether a name's words appear in the question's words.
func namedIn(qWords, words []string) bool {
	words = slices.DeleteFunc(slices.Clone(words), isAnd)
	if len(words) == 0 {
		return false
	}
	q := slices.DeleteFunc(slices.Clone(qWords), isAnd)
	if len(words) == 1 {
		w := words[0]
		if len(w) < 3 || !hasUpperRune(w) {
			return false
		}
		for i, x := range q {
			switch {
			case x == w || x == w+"s":
			case strings.EqualFold(x, w) && (innerUpper(w) || !ordinaryWord(w)):
			case strings.EqualFold(x, w) && i+1 < len(q) && figureWords[strings.ToLower(q[i+1])]:
			default:
				continue
			}
			return true
		}
		return false
	}
	for i := 0; i+len(words) <= len(q); i++ {
		match := true
		for j, w := range words {
			if !strings.EqualFold(q[i+j], w) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	if len(words) >= 3 {
		var initials strings.Builder
		for _, w := range words {
			r := []rune(w)
			if !unicode.IsUpper(r[0]) {
				return false
			}
			initials.WriteRune(r[0])
		}
		return slices.Contains(qWords, initials.String())
	}
	return false
}

func isAnd(w string) bool { return w == "&" || strings.EqualFold(w, "and") }

// innerUpper reports whether a word has a capital after its first letter
// ("iPhone", "YouTube"): a brand, not an ordinary word.
func innerUpper(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return !unicode.IsUpper([]rune(w)[0])
}

// longForm returns the long form ticker's filings define the short form
// w for ("Data Center Group" for "DCG"), w written as the filing writes
// it or, where it is no English word, typed in lower case ("intc dcg
// operating income"); "" when they define none.
func (c *Catalog) longForm(ticker, w string) string {
	if long := c.stats.LongForm(ticker, w); long != "" {
		return long
	}
	if strings.ToLower(w) == w && len(w) >= 2 && len(w) <= 5 && !ordinaryWord(w) {
		return c.stats.LongForm(ticker, strings.ToUpper(w))
	}
	return ""
}

// ordinaryWord reports whether w is an English word of the common lists.
func ordinaryWord(w string) bool {
	words, err := configs.Words()
	if err != nil {
		return true // without the list, read every word as ordinary
	}
	return words.Level(strings.ToLower(w)) > 0
}

func hasUpperRune(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// wordsOf splits text into words of letters and digits, "&" kept inside a
// word ("R&D"), a possessive dropped.
func wordsOf(text string) []string {
	f := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '&' || r == '\'' || r == '’')
	})
	out := f[:0]
	for _, w := range f {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		w = strings.Trim(w, "'’")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// FigureAsk is a figure a question asks for by name.
type FigureAsk struct {
	Metric  string // a tools metric name; "" for a derived one
	Derived string // a tools derived metric name
	Phrase  string // the words of the question that name it
	at      int
}

// pluralPhrase returns a name of two words or more with its last word in
// the plural ("net losses" for "net loss"); "" for a one-word name or one
// whose last word is plural already, or is no noun to pluralise.
func pluralPhrase(name string) string {
	ws := strings.Fields(name)
	if len(ws) < 2 {
		return ""
	}
	last := ws[len(ws)-1]
	switch {
	case len(last) < 3 || strings.ContainsAny(last, "&()0123456789"):
		return ""
	case strings.HasSuffix(last, "ss") || strings.HasSuffix(last, "sh") || strings.HasSuffix(last, "ch") || strings.HasSuffix(last, "x"):
		last += "es"
	case strings.HasSuffix(last, "s"):
		return ""
	case strings.HasSuffix(last, "y") && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		last = last[:len(last)-1] + "ies"
	default:
		last += "s"
	}
	ws[len(ws)-1] = last
	return strings.Join(ws, " ")
}

// figureCand is a name a catalogue gives a figure, normalised, with the
// figure it names.
type figureCand struct {
	phrase string
	needle string // the phrase between spaces
	words  int
	ask    FigureAsk
}

// figureCands returns the names FindFigures looks for, the longest first:
// with the catalogue's broad words for a question that asks for a number
// (number), without them otherwise. Both lists are built once.
func figureCands(number bool) []figureCand {
	if number {
		return numberCands()
	}
	return namedCands()
}

var (
	namedCands  = sync.OnceValue(func() []figureCand { return buildFigureCands(false) })
	numberCands = sync.OnceValue(func() []figureCand { return buildFigureCands(true) })
)

func buildFigureCands(number bool) []figureCand {
	var cands []figureCand
	add := func(phrase string, ask FigureAsk) {
		cands = append(cands, figureCand{phrase: phrase, needle: " " + phrase + " ", words: len(strings.Fields(phrase)), ask: ask})
	}
	for _, d := range tools.DerivedMetrics {
		for _, a := range d.Aliases {
			add(normLabel(a), FigureAsk{Derived: d.Name})
			// "Compare net income margins": a ratio asked of several
			// issuers is plural too.
			if pl := pluralPhrase(normLabel(a)); pl != "" {
				add(pl, FigureAsk{Derived: d.Name})
			}
		}
	}
	for _, m := range tools.Metrics {
		phrases := tools.MetricPhrases(m)
		if number {
			phrases = m.Aliases
		}
		for _, a := range phrases {
			add(normLabel(a), FigureAsk{Metric: m.Name})
			// Asked of several issuers or years, a name is plural: "both
			// posted net losses".
			if pl := pluralPhrase(normLabel(a)); pl != "" {
				add(pl, FigureAsk{Metric: m.Name})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].phrase) > len(cands[j].phrase) })
	return cands
}

// figureText is question as figure names are found in it: normalised
// as labels are (normLabel), "%" read as "percent", single-spaced and
// padded with a space each side. FigureAsk.at indexes it.
func figureText(question string) string {
	return " " + strings.Join(strings.Fields(normLabel(strings.ReplaceAll(question, "%", " percent "))), " ") + " "
}

// FindFigures returns the figures of the catalogues (tools.Metrics and
// tools.DerivedMetrics) a question names, in the order named; a longer
// name wins over one it holds ("operating margin" over "margin").
func FindFigures(question string) []FigureAsk {
	norm := figureText(question)
	// A question that asks for a number ("how much cash") names its figure
	// with the broad words too.
	cands := figureCands(asksNumber(question))
	// Every place a name is found: as the catalogue writes it, or, where
	// it is not, in the question's own words ("cash did GOOGL generate from
	// operating activities" names "cash generated by operating
	// activities"; "cash from ops", "cash from operations"). Names as
	// written of two words or more come first, then names in the
	// question's words, then one-word names ("cash" in "cash from ops" is
	// not the cash balance); within each, the longer name first.
	type match struct {
		ask          FigureAsk
		start, end   int
		words, order int
		exact        bool
	}
	var ms []match
	free := make([]bool, len(norm))
	for ci, c := range cands {
		if c.phrase == "" {
			continue
		}
		n, needle := c.words, c.needle
		found := false
		for from := 0; ; {
			i := strings.Index(norm[from:], needle)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			a := c.ask
			a.Phrase, a.at = c.phrase, i+1
			ms = append(ms, match{a, i + 1, i + len(needle) - 1, n, ci, true})
			found = true
		}
		if found {
			continue
		}
		if s, e, ok := looseMatch(norm, c.phrase, free); ok {
			a := c.ask
			a.Phrase, a.at = norm[s:e], s
			ms = append(ms, match{a, s, e, n, ci, false})
		}
	}
	tier := func(m match) int {
		switch {
		case m.exact && m.words > 1:
			return 0
		case !m.exact:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ms, func(a, b match) int {
		return cmp.Or(cmp.Compare(tier(a), tier(b)), cmp.Compare(b.words, a.words), cmp.Compare(a.order, b.order))
	})
	taken := make([]bool, len(norm))
	var out []FigureAsk
	for _, m := range ms {
		if slices.Contains(taken[m.start:m.end], true) {
			continue
		}
		for k := m.start; k < m.end; k++ {
			taken[k] = true
		}
		if !slices.ContainsFunc(out, func(o FigureAsk) bool { return o.Metric == m.ask.Metric && o.Derived == m.ask.Derived }) {
			out = append(out, m.ask)
		}
	}
	out = append(out, incomeMargins(norm, out, taken)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	// A one-word name right before another figure's name qualifies it:
	// "cash capex" and "cash dividends" ask the capex and the dividends
	// paid in cash, not the cash balance.
	out = slices.DeleteFunc(out, func(a FigureAsk) bool {
		if strings.Contains(a.Phrase, " ") {
			return false
		}
		next := a.at + len(a.Phrase) + 1
		return next < len(taken) && taken[next] && norm[next-1] == ' '
	})
	if ratioCue.MatchString(norm) {
		// "What share of revenue went to R&D?": the metric over revenue,
		// and revenue is no figure of its own.
		converted := false
		for i, a := range out {
			if a.Metric == "" || a.Metric == "revenue" {
				continue
			}
			d := a.Metric + tools.ToRevenue
			dm, ok := tools.DerivedByName(d)
			if !ok || slices.ContainsFunc(out, func(o FigureAsk) bool {
				od, named := tools.DerivedByName(o.Derived)
				return named && od.Expression == dm.Expression
			}) {
				// "R&D expense and R&D as a percent of revenue": the
				// ratio is asked by its own name; the expense is asked
				// as itself.
				continue
			}
			out[i] = FigureAsk{Derived: d, Phrase: a.Phrase, at: a.at}
			converted = true
		}
		if converted {
			out = slices.DeleteFunc(out, func(a FigureAsk) bool { return a.Metric == "revenue" })
		}
	}
	return out
}

// incomeMargin maps an income figure to the margin it makes over revenue.
var incomeMargin = map[string]string{"operating_income": "operating_margin", "net_income": "net_margin"}

// incomeMargins returns the margins a question asks as a bare "margin"
// joined to an income figure ("AWS operating income and margin", "net
// income & margins"): that income's margin over revenue, not the gross
// margin a bare "margin" names on its own. norm is the question as
// FindFigures pads it, asks the figures found and taken the bytes their
// names cover.
func incomeMargins(norm string, asks []FigureAsk, taken []bool) []FigureAsk {
	var out []FigureAsk
	for _, a := range asks {
		d, ok := incomeMargin[a.Metric]
		if !ok || slices.ContainsFunc(asks, func(o FigureAsk) bool { return o.Derived == d }) {
			continue
		}
		end := a.at + len(a.Phrase)
		if end > len(norm) {
			continue
		}
		rest := norm[end:]
		for _, join := range []string{" and its ", " and the ", " and ", " & "} {
			after, ok := strings.CutPrefix(rest, join)
			if !ok {
				continue
			}
			if w, _, _ := strings.Cut(after, " "); (w == "margin" || w == "margins") && !taken[end+len(join)] {
				out = append(out, FigureAsk{Derived: d, Phrase: w, at: end + len(join)})
			}
			break
		}
	}
	return out
}

// looseMatch finds in norm (a question through normLabel, padded with
// spaces) a figure's name not written as the catalogue writes it:
//   - a name of three content words or more, its content words in order
//     with at most three other words between the first and the last ("cash
//     did GOOGL generate from operating activities" names "cash generated
//     by operating activities");
//   - a shorter name word for word, a word of it shortened ("cash from
//     ops" names "cash from operations").
//
// A word stands for its forms by its first five letters, and a short word
// for a longer one it abbreviates. None of the span may be in taken. It
// returns the span from the first word to the last.
func looseMatch(norm, phrase string, taken []bool) (start, end int, ok bool) {
	type word struct {
		text       string
		start, end int
	}
	var words []word
	for i := 0; i < len(norm); {
		if norm[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(norm) && norm[j] != ' ' {
			j++
		}
		words = append(words, word{norm[i:j], i, j})
		i = j
	}
	free := func(first, last int) bool {
		return !slices.Contains(taken[words[first].start:words[last].end], true)
	}
	all := strings.Fields(phrase)
	var want []string
	for _, w := range all {
		if !looseFiller[w] {
			want = append(want, w)
		}
	}
	if len(want) >= 3 {
		const slack = 3
		for first := range words {
			if !sameWord(words[first].text, want[0]) {
				continue
			}
			k, last := 1, first
			for i := first + 1; i < len(words) && k < len(want) && i-first+1 <= len(want)+slack; i++ {
				if sameWord(words[i].text, want[k]) {
					k, last = k+1, i
				}
			}
			if k == len(want) && free(first, last) {
				return words[first].start, words[last].end, true
			}
		}
		return 0, 0, false
	}
	if len(want) < 2 {
		return 0, 0, false
	}
	for first := 0; first+len(all) <= len(words); first++ {
		ok := true
		for k, w := range all {
			if q := words[first+k].text; q != w && (looseFiller[w] || !sameWord(q, w)) {
				ok = false
				break
			}
		}
		if last := first + len(all) - 1; ok && free(first, last) {
			return words[first].start, words[last].end, true
		}
	}
	return 0, 0, false
}

// sameWord reports whether q, a word of a question, stands for w, a word
// of a figure's name: the same first five letters ("percent" for
// "percentage"), or a shortening of it of three or four letters, no
// common word, that starts as it does and keeps its letters in order
// ("ops" for "operations", "rev" for "revenue").
func sameWord(q, w string) bool {
	if prefix5(q) == prefix5(w) {
		return true
	}
	if len(q) < 3 || len(q) > 4 || len(q) >= len(w) || q[0] != w[0] || questionStopwords[q] || looseFiller[q] {
		return false
	}
	i := 0
	for j := 0; j < len(w) && i < len(q); j++ {
		if w[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}

// looseFiller are the small words a figure's name may hold that a
// question need not repeat ("cash generated by operating activities").
var looseFiller = map[string]bool{"by": true, "from": true, "of": true, "the": true, "in": true, "to": true,
	"for": true, "and": true, "on": true, "a": true, "an": true, "&": true}

// prefix5 is a word's first five letters, which stand for its forms.
func prefix5(w string) string {
	if len(w) > 5 {
		return w[:5]
	}
	return w
}

// ratioCue shows, in a question through normLabel, that a figure is asked
// as a share of revenue.
var ratioCue = regexp.MustCompile(`\b((percent|percentage|share|proportion|fraction|portion|ratio)\s+of|relative\s+to|compared\s+to|to)\s+((total|net)\s+)*(revenue|revenues|sales)\b|\bintensity\b`)

// qualifiesTopic reports whether a reported figure asked is one no aspect
// of the lexicon plans, named by words before the trigger of an aspect
// that plans figures of its own: "investing cash flow" is a sibling of the
// operating cash flow the topic of cash flow plans.
func qualifiesTopic(f FigureAsk) bool {
	for _, a := range Lexicon {
		if slices.Contains(a.Metrics, f.Metric) {
			return false
		}
	}
	for _, a := range Lexicon {
		if len(a.Metrics) == 0 {
			continue // a topic of passages, which the figure may be asked beside
		}
		for _, t := range a.Triggers {
			if strings.HasSuffix(f.Phrase, " "+t) {
				return true
			}
		}
	}
	return false
}

// claimFigures marks, in a copy of taken, the parts of norm (the question
// through routerNorm) that name a derived figure (or a reported one no
// aspect plans), so that the words of
// "operating margin" are read as that figure and not again as the broader
// aspect ("margins") they hold.
func claimFigures(norm string, asks []FigureAsk, taken claims) claims {
	out := slices.Clone(taken)
	if len(out) < len(norm) {
		out = append(out, make(claims, len(norm)-len(out))...)
	}
	for _, a := range asks {
		if a.Derived == "" && !qualifiesTopic(a) || aspectFigure(a) {
			// A reported figure's words may also name a topic ("buybacks",
			// "R&D") that the question asks about; a derived one's are its
			// own, and an aspect plans its own calculation. So are those
			// of a reported figure no topic plans whose name qualifies a
			// topic's ("investing cash flow" is not the topic of cash
			// flow).
			continue
		}
		words := strings.Fields(a.Phrase)
		if len(words) == 0 {
			continue
		}
		for i := range words {
			words[i] = regexp.QuoteMeta(words[i])
			if words[i] == "percent" {
				// FindFigures reads "%" as "percent": "SG&A as a % of sales".
				words[i] = "(?:percent|%)"
			}
		}
		re, err := regexp.Compile(`\b` + strings.Join(words, `[^a-z0-9&']+`) + `(?:\b|$|[^a-z0-9])`)
		if err != nil {
			continue
		}
		for _, m := range re.FindAllStringIndex(norm, -1) {
			out.claim(m[0], m[1])
		}
	}
	return out
}

// aspectFigure reports whether an aspect of the lexicon plans the figure
// itself: a metric of its figures, or the calculation it makes of them.
func aspectFigure(a FigureAsk) bool {
	for _, asp := range Lexicon {
		if slices.Contains(asp.Metrics, a.Metric) {
			return true
		}
	}
	return a.Derived == "gross_margin" || a.Derived == "revenue_growth"
}

// asksWhy reports whether a question asks for reasons or an account, not
// only for figures.
func asksWhy(question string) bool {
	// "net income attributable to Costco" says whose income, not why.
	n := ownersShareOf.ReplaceAllString(normalizeText(question), "$1")
	// "How did active buyers trend" asks how the figure moved, not why.
	n = howDidMove.ReplaceAllString(n, " ")
	return anyTerm(n, whyWords) || whatCaused.MatchString(n) || whatMade.MatchString(n) || whatPushed.MatchString(n) || pastTenseWhat(n) || creditsFor.MatchString(n) ||
		whatItSays.MatchString(n) && (fallWords.MatchString(question) || riseWords.MatchString(question))
}

// whatMade matches, in normalised text, a question asking what made a
// figure move: "what does Meta say made the loss bigger", "what made
// margins worse".
var whatMade = regexp.MustCompile(`\bwhat\b[^.?!]{0,40}?\bmade\s+(?:the\s+|its\s+|their\s+|it\s+|them\s+)?(?:[a-z&']+\s+){0,4}?(?:bigger|larger|higher|greater|worse|smaller|lower|better|wider|narrower|grow|rise|fall|increase|decrease|decline|jump|drop|shrink)\b`)

// whatPushed matches, in normalised text, a question asking what moved a
// figure up or down: "what does the 10-K say pushed it up", "what sent
// margins lower", "what dragged earnings down".
var whatPushed = regexp.MustCompile(`\bwhat\b[^.?!]{0,40}?\b(?:pushed|pushes|push|drove|drives|sent|sends|pulled|pulls|dragged|drags|lifted|lifts|knocked|brought|boosted)\s+(?:the\s+|its\s+|their\s+|it\s+|them\s+)?(?:[a-z&']+\s+){0,4}?(?:up|down|higher|lower)\b`)

// whatItSays matches, in normalised text, a question asking what a filing
// or its issuer says: of a move the question asserts ("net sales dropped
// sharply in fiscal 2022 ... What does the 10-K say?"), its account of
// why.
var whatItSays = regexp.MustCompile(`\bwhat\s+(?:does|did|do)\s+(?:the\s+|its\s+|their\s+)?(?:10 k|10 q|10k|10q|filing|filings|report|annual report|management|mgmt|company)\s+(?:say|said|attribute|cite)\b`)

// howDidMove matches, in normalised text, a question asking how a figure
// moved: "how did X trend", "how has X changed", "how did X evolve".
var howDidMove = regexp.MustCompile(`\bhow (?:did|has|have)\b([^.?!]{1,60}?)\b(?:trend|trended|move|moved|change|changed|evolve|evolved|develop|developed)\b`)

// pastTenseWhat reports whether normalised text asks what did something
// (whatDid), not which figure ("what consolidated operating income did
// Walmart report", "what adjusted EPS was reported"): there "what" and its
// word in -ed are the object of an auxiliary that follows in the clause.
func pastTenseWhat(n string) bool {
	for _, m := range whatDid.FindAllStringIndex(n, -1) {
		rest := n[m[1]:]
		if i := strings.IndexAny(rest, "?.;!"); i >= 0 {
			rest = rest[:i]
		}
		if !auxiliaryAfter.MatchString(rest) {
			return true
		}
	}
	return false
}

// auxiliaryAfter finds an auxiliary verb: after "what <word>", it makes
// the word's noun the object asked.
var auxiliaryAfter = regexp.MustCompile(`\b(did|does|do|was|were|is|are|has|have|had)\b`)

// creditsFor matches a cause asked as what is credited with a move: "what
// does eBay credit for the increase", "what did management credit the
// improvement to".
var creditsFor = regexp.MustCompile(`\bcredit(s|ed)?\s+(?:[a-z]+\s+){0,3}?(for|with|to)\s+(?:the|its|their|this|that)\s+(increase|decrease|rise|decline|growth|drop|improvement|gain|jump|fall|expansion|contraction|change)\b|\bcredit(s|ed)?\s+(?:the|its|their|this|that)\s+(increase|decrease|rise|decline|growth|drop|improvement|gain|jump|fall|expansion|contraction|change)\s+to\b`)

// ownersShareOf matches "attributable to" after a figure it says whose
// share of it is ("net income attributable to Costco").
var ownersShareOf = regexp.MustCompile(`\b(income|loss|losses|earnings|profit|eps|share|shares)\s+(?:\(loss\)\s+)?attributable\s+to\b`)

// whatDid matches "what" as the subject of a verb in the past tense: the
// question asks what did something to the figure, its cause, whatever the
// verb ("what squeezed Netflix's operating margin", "what powered
// LinkedIn's growth", "what happened to margins"). A past tense is a word
// in -ed (not -eed: "what speed").
var whatDid = regexp.MustCompile(`\bwhat\s+[a-z]{2,}[^e\s]ed\b`)

// whatCaused matches a question that asks what brought a change about
// with a verb of causing: "what pushed the tax rate up", "what hurt
// margins".
var whatCaused = regexp.MustCompile(`\bwhat(\s+has|\s+had|'s|\s+is)?\s+(` + causalVerbs.String()[2:] + `|` + restrainingVerbs + `)`)

// AsksRestraint reports whether a question asks what held a figure back
// rather than what moved it: "what held net sales growth back", "what
// weighed on margins", "what hurt operating income".
func AsksRestraint(question string) bool {
	n := normalizeText(question)
	return whatRestrained.MatchString(n)
}

var whatRestrained = regexp.MustCompile(`\bwhat(\s+has|\s+had|'s|\s+is)?\s+(` + restrainingVerbs + `|hurt|weigh(s|ed)?\s+on|pressured|erode[sd]?|dampen(s|ed)?|reduce[sd]?|lower(s|ed)?|compress(es|ed)?)`)

// restrainingVerbs ask what kept a figure from moving, with the figure
// between the verb and its particle: "what held net sales growth back",
// "what kept margins down", "what dragged on growth".
const restrainingVerbs = `(held|holds|hold|holding|kept|keeps|keep|dragged|drags|drag|slowed|slows|limited|limits|constrained|constrains|offset|offsets|capped|caps|restrained|restrains|tempered|tempers)\b`

// whyWords show that a question asks for an explanation.
var whyWords = []string{"why", "explain", "explanation", "drive", "driven", "driver", "driving", "drove", "reason", "cause", "because", "factor", "attribut",
	"contribut", "behind", "blame", "responsible for", "how did", "how has", "how have", "discuss", "describe", "commentary", "persist",
	"expect", "outlook"}

// clips reports whether w is word written short: its first letter, then
// the rest of its letters in order, at most five and three fewer than the
// word's ("intl" clips "international", "mgmt" "management").
func clips(w, word string) bool {
	// A clipping is short and leaves out much of a word of letters:
	// "pulled" is no clipping of "publicly-held".
	if len(w) > 5 || len(w)+3 > len(word) || w == "" || w[0] != word[0] || strings.IndexFunc(word, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return false
	}
	j := 1
	for i := 1; i < len(w); i++ {
		for j < len(word) && word[j] != w[i] {
			j++
		}
		if j == len(word) {
			return false
		}
		j++
	}
	return true
}
