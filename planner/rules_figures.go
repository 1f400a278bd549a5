package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// looked is a planned figure: its requirement, the lookup_fact node that
// serves it and the figure key the node looks up.
type looked struct{ req, node, key string }

// lookupFigure plans one reported figure of an issuer for a period: a fact
// requirement and the lookup_fact node that serves it. The key is read
// from what the filing reports (see Catalog.ResolveMetric): the first of
// the metric's concepts it tags, a row printed with one of the metric's
// names, or a table row of a text filing. The figure of the parts segs
// names (a segment, a product, a region, or one within another) is looked
// up under their members only, never as the company-wide figure. When the
// catalog does not know the filing's figures, the lookup goes by the
// metric's name and the tool tries its concepts. It reports false when a
// filing the catalog knows shows the company-wide figure nowhere, so the
// caller can plan a passage instead.
func (b *builder) lookupFigure(t string, p filingPeriod, aspect, metric, period string, segs []Segment, required bool, m reqMeta) (looked, bool) {
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return looked{}, false
	}
	company := b.cat.ShortName(t)
	var names []string
	for _, s := range segs {
		names = append(names, s.Name)
	}
	segName := strings.Join(names, " ")
	what := mt.Label
	if segName != "" {
		what = segName + " " + mt.Label
	}
	key := ""
	args := tools.LookupFactArgs{Ticker: t, Label: metric, Period: period}
	concepts := slices.Clone(mt.Concepts)
	if p.found && b.cat.KnowsFigures(p.doc.ID) {
		choices := memberChoices(segs)
		// A part's figure the question narrows further ("Walmart U.S.
		// comparable sales") is the part's row that names it ("Calendar
		// comparable sales increase"), never the part's sales.
		narrowed := b.narrowedWithin(t, metric, segs)
		if narrowed != nil {
			what = segName + " " + strings.Join(narrowed, " ")
		}
		if p.fq > 0 && len(segs) == 0 {
			// A quarter from an annual report's table of quarters: the
			// figure under the name that table prints it by.
			key, _ = b.cat.resolveQuarterly(p.doc.ID, mt, b.question)
		}
		for _, mem := range choices {
			if key != "" {
				break
			}
			if narrowed != nil {
				if k, ok := b.cat.resolveNarrowed(p.doc.ID, narrowed, mem); ok && mem != "" {
					key = k
					break
				}
				continue
			}
			if k, ok := b.cat.ResolveMetric(p.doc.ID, mt, mem, b.question); ok {
				key = k
				break
			}
		}
		if key == "" && len(segs) == 1 && !hasFacts(p.doc) && narrowed == nil {
			// A text filing names a part by its table row: "Mac" in the
			// net sales by category table.
			key, _ = b.cat.resolveRow(p.doc.ID, segs[0].Name, metric)
		}
		if _, mem, _ := tools.SplitFigureKey(key); strings.HasPrefix(mem, corpus.TablePartPrefix) && !hasFacts(p.doc) &&
			partOfPart(b.question, segs, wordsOf(strings.ToLower(strings.Join(append([]string{mt.Label}, mt.Aliases...), " ")))) {
			// "Mac net sales in Europe": a part of a part, which a table
			// of each part alone does not print. It is looked up as
			// asked, so the gap names it, never as one of the parts.
			key = tools.TablePartKey(mt.Label, corpus.TablePartPrefix+segName)
		} else if strings.HasPrefix(mem, corpus.TablePartPrefix) {
			// A table's part stands alone: named by itself, not with the
			// other parts the question was read to name.
			what = segmentName(mem) + " " + mt.Label
			if narrowed != nil {
				what = segmentName(mem) + " " + strings.Join(narrowed, " ")
			}
		}
		switch {
		case key != "":
		case len(segs) > 0:
			// The filing shows no such figure for the parts: look it up
			// under their members all the same, so the gap says so; never
			// fall back to the company-wide figure.
			key = tools.FigureKey(mt.Concepts[0], choices[0])
			if strings.HasPrefix(choices[0], corpus.TablePartPrefix) {
				key = tools.TablePartKey(mt.Label, choices[0])
			}
		default:
			return looked{}, false
		}
		table := strings.HasPrefix(key, tools.TablePrefix)
		args = tools.LookupFactArgs{Ticker: t, Concept: key, Period: period, Outflow: mt.Outflow && table, Flow: !mt.Instant && table}
		concepts = []string{key}
	} else if len(segs) > 0 {
		return looked{}, false
	}
	switch {
	case !p.found || !strings.HasPrefix(p.doc.Form, "10-Q"):
	case yearToDate.MatchString(b.question):
		args.YearToDate = true
		what += " (year to date)"
	case asksOneQuarter.MatchString(b.question):
		// "buybacks in the June quarter": the quarter's own column, not
		// the nine months a cash-flow statement prints alone.
		args.Quarter = true
	}
	if key == "" {
		key = mt.Concepts[0]
	}
	id := t + "-" + period + "-" + aspect + "-figure-" + metric
	if segName != "" {
		id += "-" + slug(segName)
	}
	source := "as reported in its " + tools.PeriodLabel(p.doc.FiscalYear) + " " + p.doc.Form
	if strings.HasPrefix(key, tools.TablePrefix) {
		source = "from a table of its " + tools.PeriodLabel(p.doc.FiscalYear) + " " + p.doc.Form
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindFigure, Required: required,
		Need:       fmt.Sprintf("%s's %s for %s, %s", company, what, period, source),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: concepts},
	}, m)
	node := b.addNode(tools.LookupFact, args, []string{id})
	return looked{id, node, key}, true
}

// lookupInput plans the figure of metric as an input of the derived
// figure d (see lookupFigure): the row the filing prints d from where it
// prints d as the difference of two rows (Catalog.printedFrom), the
// company's own definition of it.
func (b *builder) lookupInput(t string, p filingPeriod, aspect string, d tools.Derived, metric, period string, segs []Segment, required bool, m reqMeta) (looked, bool) {
	if len(segs) == 0 && p.found {
		if key := b.cat.printedFrom(p.doc.ID, d)[metric]; key != "" {
			return b.lookupRow(t, p, aspect, metric, key, period, required, m)
		}
	}
	return b.lookupFigure(t, p, aspect, metric, period, segs, required, m)
}

// lookupRow plans the figure of metric for issuer t and period as the row
// key of the filing of p prints it: an input of a figure the filing
// prints as the difference of two rows (Catalog.printedFrom), named by the
// row's own label ("net sales", not "revenue").
func (b *builder) lookupRow(t string, p filingPeriod, aspect, metric, key, period string, required bool, m reqMeta) (looked, bool) {
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return looked{}, false
	}
	what := lowerLabel(strings.TrimPrefix(key, tools.TablePrefix))
	id := t + "-" + period + "-" + aspect + "-figure-" + metric + "-" + slug(what)
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindFigure, Required: required,
		Need: fmt.Sprintf("%s's %s for %s, as the row of its %s %s that its %s is printed from", b.cat.ShortName(t), what, period,
			tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form, mt.Label),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: []string{key}},
	}, m)
	node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period, Outflow: mt.Outflow, Flow: !mt.Instant}, []string{id})
	return looked{id, node, key}, true
}

// lowerLabel returns a row label as a sentence names it: its first
// letter in lower case ("net sales"), unless the first word is initials
// ("SG&A expenses").
func lowerLabel(label string) string {
	first, _, _ := strings.Cut(label, " ")
	if strings.IndexFunc(first[min(1, len(first)):], unicode.IsUpper) >= 0 {
		return label
	}
	r, n := utf8.DecodeRuneInString(label)
	return string(unicode.ToLower(r)) + label[n:]
}

// printedFrom returns, for a derived figure d the filing documentID prints
// as the difference of two rows (FigureEntry.From) under d's name ("Free
// cash flow", "Gross margin", "Gross margin percentage"), the row key of
// each of d's two inputs: the filing's own definition, which may differ
// from the metric's usual inputs (Costco's gross margin is on net sales,
// not on total revenue; Amazon's free cash flow subtracts purchases of
// property and equipment net of proceeds and incentives). It returns nil
// where d is not a difference, or a share of its first term, or the filing
// prints no such row.
func (c *Catalog) printedFrom(documentID string, d tools.Derived) map[string]string {
	if m := shareShape.FindStringSubmatch(d.Expression); m != nil && d.Ratio {
		return c.printedOver(documentID, m[1], m[2])
	}
	m := differenceShape.FindStringSubmatch(d.Expression)
	if m == nil || d.Ratio != (m[3] != "") || m[3] != "" && m[3] != m[1] {
		return nil
	}
	minuend, ok1 := tools.MetricByName(m[1])
	subtrahend, ok2 := tools.MetricByName(m[2])
	if !ok1 || !ok2 {
		return nil
	}
	names := []string{normLabel(d.Label)}
	for _, a := range d.Aliases {
		names = append(names, normLabel(a))
	}
	for _, e := range c.figures[documentID] {
		if len(e.From) != 2 || e.Member != "" || !slices.Contains(names, normLabel(e.Label)) {
			continue
		}
		if labelNamesMetric(c.FigureLabel(documentID, e.From[0]), minuend) && labelNamesMetric(c.FigureLabel(documentID, e.From[1]), subtrahend) {
			return map[string]string{m[1]: e.From[0], m[2]: e.From[1]}
		}
	}
	return nil
}

// printedOver returns, for a share of num over den that the filing
// prints as a row of rates naming its whole (FigureEntry.Over: "SG&A
// expenses as a percentage of net sales"), the row key of each: the whole
// the filing divides by (Costco's net sales, not its total revenue).
func (c *Catalog) printedOver(documentID, num, den string) map[string]string {
	mn, ok1 := tools.MetricByName(num)
	md, ok2 := tools.MetricByName(den)
	if !ok1 || !ok2 {
		return nil
	}
	for _, e := range c.figures[documentID] {
		if len(e.Over) == 2 && e.Member == "" && labelNamesMetric(c.FigureLabel(documentID, e.Over[0]), mn) && labelNamesMetric(c.FigureLabel(documentID, e.Over[1]), md) {
			return map[string]string{num: e.Over[0], den: e.Over[1]}
		}
	}
	return nil
}

// shareShape matches a derived figure's expression that is one input
// over another: "sga_expense / revenue".
var shareShape = regexp.MustCompile(`^([a-z_]+) / ([a-z_]+)$`)

// differenceShape matches a derived figure's expression that is the
// difference of two inputs, or that difference as a share of the first:
// "operating_cash_flow - capex", "(revenue - cost_of_revenue) / revenue".
var differenceShape = regexp.MustCompile(`^\(?([a-z_]+) - ([a-z_]+)\)?(?: / ([a-z_]+))?$`)

// labelNamesMetric reports whether a row label names metric mt: one of
// its names whole, at the label's start or its end, once what the
// label's parentheses hold ("(used in)") and a leading "less" are set
// aside ("Less merchandise costs", "Purchases of property and equipment,
// net of proceeds from sales and incentives").
func labelNamesMetric(label string, mt tools.Metric) bool {
	l := normLabel(parenthesised.ReplaceAllString(label, " "))
	l = strings.TrimPrefix(l, "less ")
	if l == "" {
		return false
	}
	for _, name := range append([]string{mt.Label}, mt.Aliases...) {
		n := normLabel(name)
		if n != "" && (l == n || strings.HasPrefix(l, n+" ") || strings.HasSuffix(l, " "+n)) {
			return true
		}
	}
	return false
}

// parenthesised matches a parenthesised run of a label.
var parenthesised = regexp.MustCompile(`\([^()]*\)`)

// lookupByName plans a company-wide figure by its metric's name, the
// concepts the tool then tries, for a filing whose figures do not show it
// under any name the catalogue knows: the lookup reports what it tried,
// and the requirement becomes a gap that names the figure.
func (b *builder) lookupByName(t string, p filingPeriod, metric, period string, m reqMeta) (looked, bool) {
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return looked{}, false
	}
	id := t + "-" + period + "-figures-figure-" + metric
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
		Need: fmt.Sprintf("%s's %s for %s; its %s %s prints no row named as the figure (%s)", b.cat.ShortName(t), mt.Label, period,
			tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form, strings.Join(mt.Aliases[:min(3, len(mt.Aliases))], ", ")),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: mt.Label, Concepts: slices.Clone(mt.Concepts)},
	}, m)
	node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Label: metric, Period: period}, []string{id})
	return looked{id, node, mt.Concepts[0]}, true
}

// memberChoices returns the member keys that name every part of segs, one
// member of each part's alternatives, in order (segment members first);
// [""] when segs is empty.
func memberChoices(segs []Segment) []string {
	out := []string{""}
	for _, s := range samePartsMerged(segs) {
		var next []string
		for _, prefix := range out {
			for _, m := range s.Members {
				switch {
				case prefix == "":
					next = append(next, m)
				case strings.HasPrefix(prefix, corpus.TablePartPrefix):
					// A table's part is one part, never tagged within
					// another: it stands for the part alone.
					next = appendNew(next, prefix)
				case strings.HasPrefix(m, corpus.TablePartPrefix):
				default:
					next = append(next, tools.JoinMembers(append(strings.Split(prefix, ","), m)...))
				}
			}
		}
		if len(next) > 0 {
			out = next
		}
	}
	// Tagged members first: a table's part is the figure where the filing
	// tags none.
	slices.SortStableFunc(out, func(a, b string) int {
		return boolRank(strings.HasPrefix(a, corpus.TablePartPrefix)) - boolRank(strings.HasPrefix(b, corpus.TablePartPrefix))
	})
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// samePartsMerged returns segs with each table's part that is another
// of segs under the title a table prints it by merged into that segment,
// as one more of its alternatives: "UCAN" names the tagged member
// "United States and Canada" and the table titled "United States and
// Canada (UCAN)", one part twice, not one part within another. A filing
// that tags the part answers by the tag; one that only prints the table
// answers by the table.
func samePartsMerged(segs []Segment) []Segment {
	if len(segs) < 2 {
		return segs
	}
	out := make([]Segment, 0, len(segs))
	merged := make([]bool, len(segs))
	for i, s := range segs {
		if merged[i] {
			continue
		}
		s.Members = slices.Clone(s.Members)
		for j := i + 1; j < len(segs); j++ {
			if !merged[j] && (titles(segs[j], s.Name) || titles(s, segs[j].Name)) {
				s.Members = append(s.Members, segs[j].Members...)
				merged[j] = true
			}
		}
		out = append(out, s)
	}
	return out
}

// titles reports whether every member of s is a table's part whose title,
// less a parenthesised short form, is name: "United States and Canada
// (UCAN)" titles "United States And Canada".
func titles(s Segment, name string) bool {
	if len(s.Members) == 0 {
		return false
	}
	for _, m := range s.Members {
		title, ok := strings.CutPrefix(m, corpus.TablePartPrefix)
		if !ok {
			return false
		}
		if i := strings.LastIndex(title, "("); i > 0 && strings.HasSuffix(strings.TrimSpace(title), ")") {
			title = title[:i]
		}
		if normLabel(title) != normLabel(name) {
			return false
		}
	}
	return true
}

// narrowedWithin returns the words that name a part's figure where the
// question narrows the figure within the parts segs name: the qualifier
// before the metric's name, less the parts' own words and "segment"
// ("Walmart U.S. comparable sales": comparable sales); nil when it does
// not narrow it.
func (b *builder) narrowedWithin(t, metric string, segs []Segment) []string {
	if len(segs) == 0 {
		return nil
	}
	// Every part the question names, not only segs: the others of a list
	// ("Europe and Japan net sales") are parts of their own, not words
	// narrowing this one's figure.
	var own []string
	for _, s := range append(slices.Clone(segs), b.cat.SegmentsIn(b.question, t)...) {
		own = append(own, wordsOf(s.Name)...)
	}
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return nil
	}
	// The metric's own names: an aspect's words ("margin" for revenue, an
	// input of margins) name another figure.
	names := map[string][]string{metric: append([]string{mt.Label}, mt.Aliases...)}
	// What a thing did to the figure ("how much revenue did those price
	// cuts cost") is a figure beside the part's (partsBeside), not a
	// narrowing of it.
	mentions := slices.DeleteFunc(qualifiedMentions(b.question, b.cat, b.rt.Issuers, b.rt.NotCovered, names), func(q qualifiedFigure) bool {
		return q.Metric != metric || q.Contributor && !slices.ContainsFunc(q.Part, func(w string) bool {
			return slices.ContainsFunc(own, func(o string) bool { return strings.EqualFold(o, w) })
		})
	})
	if len(mentions) > 1 {
		// "YouTube ads revenue and Google Cloud revenue": a mention by
		// another name (partsBeside) is a part of its own, not words
		// narrowing this one.
		mentions = slices.DeleteFunc(mentions, func(q qualifiedFigure) bool { return namesOtherPart(q, own, b.cat.TextStats()) })
	}
	for _, q := range mentions {
		var rest []string
		for _, w := range wordsOf(strings.Join(q.Part, " ")) {
			lw := strings.ToLower(w)
			if lw == "segment" || lw == "segments" || lw == "and" || lw == "from" || wholeWords[lw] ||
				slices.ContainsFunc(own, func(o string) bool { return strings.EqualFold(o, w) || clips(lw, strings.ToLower(o)) }) {
				continue
			}
			rest = append(rest, lw)
		}
		if len(rest) == 0 {
			return nil
		}
		return append(rest, strings.Fields(q.Name)...)
	}
	return nil
}

// resolveNarrowed is ResolvePhrase for a narrowed part's figure, read
// also without the words of a change ("comparable sales growth" is the row
// "Calendar comparable sales increase").
func (c *Catalog) resolveNarrowed(documentID string, words []string, member string) (string, bool) {
	if k, ok := c.ResolvePhrase(documentID, words, member); ok {
		return k, true
	}
	level := slices.DeleteFunc(slices.Clone(words), func(w string) bool {
		return slices.ContainsFunc(growthWords, func(g string) bool { return strings.HasPrefix(w, g) })
	})
	if len(level) == len(words) || len(level) == 0 {
		return "", false
	}
	return c.ResolvePhrase(documentID, level, member)
}

// resolvesPart reports whether filing d reports metric m for the parts
// segs name, as lookupFigure finds it: under one of their members, or in
// a text filing the row labelled with the one part's name.
func (c *Catalog) resolvesPart(d corpus.Document, m tools.Metric, segs []Segment, hint string) bool {
	for _, mem := range memberChoices(segs) {
		if _, ok := c.ResolveMetric(d.ID, m, mem, hint); ok && mem != "" {
			return true
		}
	}
	if len(segs) == 1 && !hasFacts(d) {
		_, ok := c.resolveRow(d.ID, segs[0].Name, m.Name)
		return ok
	}
	return false
}

// resolveRow returns the key of a table row of a text filing labelled
// with a part's name, for a revenue figure: the part's row of the net
// sales by category or by segment table.
func (c *Catalog) resolveRow(documentID, name, metric string) (string, bool) {
	if metric != "revenue" {
		return "", false
	}
	want := normLabel(name)
	for _, e := range c.figures[documentID] {
		if e.Table && normLabel(e.Label) == want {
			return e.Key, true
		}
	}
	return "", false
}

// yearToDate shows that a question asks for a quarterly report's
// year-to-date column.
var yearToDate = regexp.MustCompile(`(?i)\b(year[- ]to[- ]date|ytd|(first\s+)?(six|nine)[- ]months?|first\s+half|first\s+three\s+quarters)\b`)

// instantOnly reports whether every figure a question asks for is a
// balance at a date (cash, assets, debt), so "now" is the latest balance
// sheet of any filing, a quarterly one included.
func (b *builder) instantOnly() bool {
	if len(b.rt.Figures) == 0 {
		return false
	}
	for _, n := range b.rt.Aspects {
		if a, ok := AspectByName(n); ok && len(a.Metrics) > 0 {
			return false
		}
	}
	for _, f := range b.rt.Figures {
		mt, ok := tools.MetricByName(f.Metric)
		if !ok || !mt.Instant {
			return false
		}
	}
	return true
}

// slug turns a name into an id part: "Amazon Web Services" ->
// "amazon-web-services".
func slug(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(normLabel(s))), "-")
}

// canLookup reports whether a filing's figures are read through
// lookup_fact: an inline-XBRL annual report, or a filing whose reported
// figures the catalog knows and that shows the first of the metrics.
func (b *builder) canLookup(p filingPeriod, metrics []string) bool {
	if !p.found || b.cat.passagesOnly {
		return false
	}
	if !b.cat.KnowsFigures(p.doc.ID) {
		return hasFacts(p.doc) && p.doc.Form == "10-K"
	}
	if len(metrics) == 0 {
		return false
	}
	mt, ok := tools.MetricByName(metrics[0])
	if !ok {
		return false
	}
	_, ok = b.cat.ResolveMetric(p.doc.ID, mt, "", b.question)
	return ok
}

// planFigureAsks plans the figures a question names by name (see
// FindFigures) that its aspects do not plan already: reported ones as
// lookups, derived ones as lookups of their inputs and a calculation.
// A segment the question names (see Catalog.SegmentsIn) makes them the
// segment's figures.
func (b *builder) planFigureAsks() {
	planned := map[string]bool{} // metric names the aspects plan
	for _, n := range b.rt.Aspects {
		if a, ok := AspectByName(n); ok {
			for _, mt := range a.Metrics {
				planned[mt] = true
			}
			switch n {
			case "margins":
				planned["gross_margin"] = true
			case "revenue_growth":
				planned["revenue_growth"] = true
			}
		}
	}
	for ii, t := range b.rt.Issuers {
		segs := b.cat.SegmentsIn(b.question, t)
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			for _, ask := range b.rt.Figures {
				if planned[ask.Metric+ask.Derived] {
					continue
				}
				m := reqMeta{aspect: 0, issuer: ii}
				if ask.Derived != "" {
					if q, ok := b.qualifiedFor(t, ask.Derived); ok && len(segs) == 0 && b.narrows(q.Part) {
						// "Costco's e-commerce operating margin": a part's
						// ratio, as the filing states it or a gap, never
						// the company's.
						b.planQualifiedFigure(t, p, q, m)
						continue
					}
					if d, ok := tools.DerivedByName(ask.Derived); ok && len(segs) == 0 {
						// The ratio as the filing prints it ("Effective
						// tax rate 16.7 %"), beside the one computed.
						b.planReportedRatio(t, p, "figures", strings.Fields(normLabel(d.Label)), m)
						// So is a figure computed within it that the
						// filing prints ("Free cash flow" within the free
						// cash flow margin).
						for _, in := range tools.DerivedMetrics {
							if in.Name != d.Name && strings.Contains(d.Expression, in.Expression) {
								b.planReportedRatio(t, p, "figures", strings.Fields(normLabel(in.Label)), m)
							}
						}
					}
					for _, segs := range listedSegments(b.question, segs) {
						b.planDerived(t, p, "figures", ask.Derived, segs, m)
					}
				} else if q, ok := b.qualifiedFor(t, ask.Metric); ok {
					b.planQualifiedFigure(t, p, q, m)
					if q.Whole {
						b.lookupFigure(t, p, "figures", ask.Metric, tools.PeriodLabel(p.fy), segs, true, m)
					}
				} else if len(segs) > 1 && len(listedSegments(b.question, segs)) > 1 {
					// Each part of a list its own figure.
					for _, one := range listedSegments(b.question, segs) {
						b.lookupFigure(t, p, "figures", ask.Metric, tools.PeriodLabel(p.fy), one, true, m)
					}
				} else if _, ok := b.lookupFigure(t, p, "figures", ask.Metric, tools.PeriodLabel(p.fy), segs, true, m); !ok && len(segs) == 0 {
					if d, ok := tools.IdentityFor(ask.Metric); ok && b.resolvesInputs(p, d) {
						// The statement lists each operating expense and
						// no total: the total is its own arithmetic.
						b.planDerivedAs(t, p, "figures", d, nil, m)
						continue
					}
					// The filing prints no row the catalogue names: the
					// figure is still asked, by its concepts, and reported
					// as a gap if no fact is found.
					b.lookupByName(t, p, ask.Metric, tools.PeriodLabel(p.fy), m)
				}
			}
		}
	}
}

// narrows reports whether a part's words narrow a figure: one of them, at
// least, is not a word every filing of the corpus uses ("positive",
// "adjusted" and "overall" are; "e-commerce" is not).
func (b *builder) narrows(part []string) bool {
	stats := b.cat.TextStats()
	return slices.ContainsFunc(part, func(w string) bool { return !isAnd(w) && !stats.Everywhere(w) })
}

// planDerived plans a derived figure: a lookup of each input (as a figure
// of aspect) and the calculation over them.
func (b *builder) planDerived(t string, p filingPeriod, aspect, name string, segs []Segment, m reqMeta) {
	if d, ok := tools.DerivedByName(name); ok {
		b.planDerivedAs(t, p, aspect, d, segs, m)
	}
}

// resolvesInputs reports whether the filing of p shows every input of d,
// company-wide, under a name the catalogue knows.
func (b *builder) resolvesInputs(p filingPeriod, d tools.Derived) bool {
	if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
		return false
	}
	for _, in := range d.Inputs() {
		mt, ok := tools.MetricByName(strings.TrimSuffix(in, "_prior"))
		if !ok {
			return false
		}
		if _, ok := b.cat.ResolveMetric(p.doc.ID, mt, "", b.question); !ok {
			return false
		}
	}
	return true
}

// planDerivedAs is planDerived of d.
func (b *builder) planDerivedAs(t string, p filingPeriod, aspect string, d tools.Derived, segs []Segment, m reqMeta) {
	label := tools.PeriodLabel(p.fy)
	facts := map[string]tools.FactRef{}
	var of, deps []string
	for _, in := range d.Inputs() {
		metric, period := in, label
		if base, ok := strings.CutSuffix(in, "_prior"); ok {
			metric, period = base, tools.PeriodLabel(p.fy-1)
		}
		l, ok := b.lookupInput(t, p, aspect, d, metric, period, segs, true, m)
		if !ok {
			// The filing prints no row the catalogue names: the input is
			// still asked for, by the metric's concepts, so that the run
			// reports it as a gap rather than dropping the figure asked.
			l, ok = b.lookupByName(t, p, metric, period, m)
			if !ok {
				return
			}
		}
		facts[in] = tools.FactRef{Ticker: t, Concept: l.key, Period: period}
		of = append(of, l.req)
		deps = append(deps, l.node)
	}
	what := d.Label
	var names []string
	for _, s := range segs {
		names = append(names, s.Name)
	}
	if len(names) > 0 {
		what = strings.Join(names, " ") + " " + d.Label
	}
	id := t + "-" + label + "-" + d.Name + "-calculation"
	if len(names) > 0 {
		id += "-" + slug(strings.Join(names, " "))
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: true,
		Need:       fmt.Sprintf("%s's %s for %s, computed as %s from its reported figures", b.cat.ShortName(t), what, label, d.Expression),
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: of},
	}, m)
	b.addNode(tools.Calculate, tools.CalculateArgs{Expression: d.Expression, Facts: facts}, []string{id}, deps...)
	if len(names) == 0 {
		b.planPrinted(t, p, d, id, m)
	} else if d.Ratio && p.found {
		// A part's ratio as the filing prints it on the part's own row
		// ("Products | 34.5% | 35.3%" of the gross margin percentage
		// table), beside the one computed.
		part := strings.Join(names, " ")
		b.planPrintedAs(t, p, what, []string{strings.ToLower(part)}, part+" "+printedQuery(d)+" percentage", id, m)
	}
	b.planRatioBefore(t, p, d, what, id, facts, of, deps, m)
}

// planRatioBefore plans, for a question on how a ratio moved ("products
// gross margin % went down y/y", "give the GM% both years"), the ratio's
// change from the year before: the ratio less the same ratio over the
// prior-year column of the filing that prints the inputs, so that the
// answer shows both and the move between them. Optional: the question's
// own period is the one asked first. A ratio whose move the question
// asserts is the premise's to check (planRatioPremise).
func (b *builder) planRatioBefore(t string, p filingPeriod, d tools.Derived, what, calcID string, facts map[string]tools.FactRef, of, deps []string, m reqMeta) {
	// A part's ratio whose move a one-issuer question asserts ("Apple's
	// Services gross margin percentage expanded in the June 2023
	// quarter"): the change is the premise, required to have the sign
	// asserted, as planRatioPremise checks the company's ratio.
	sign := 0
	if what != d.Label && len(b.rt.Issuers) == 1 && strings.Contains(normalizeText(assertingSentence(b.question)), strings.ToLower(what)) {
		sign = assertedSign(b.question)
	}
	if !d.Ratio || !p.found || (p.doc.Form != "10-K" && p.doc.Form != "10-Q") || sign == 0 && !asksRatioMove(b.question) {
		return
	}
	if premise, _, ok := b.ratioPremise(); ok && premise.Name == d.Name && what == d.Label {
		return
	}
	both := map[string]tools.FactRef{}
	for in, ref := range facts {
		if strings.HasSuffix(in, "_prior") || ref.Prior {
			return // the ratio is itself a change
		}
		both[in] = ref
		ref.Prior = true
		both[in+"_prior"] = ref
	}
	label := tools.PeriodLabel(p.fy)
	id := calcID + "-change"
	need := fmt.Sprintf("how %s's %s moved over the year to the period of its %s %s, computed from its reported figures and those a year before",
		b.cat.ShortName(t), what, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form)
	if sign != 0 {
		moved := "rose"
		if sign < 0 {
			moved = "fell"
		}
		need = fmt.Sprintf("whether %s's %s %s over the year to the period of its %s %s, as the question says, computed from its reported figures and those a year before",
			b.cat.ShortName(t), what, moved, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form)
	}
	if b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: sign != 0, Need: need,
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what + " change", Of: of, Sign: sign},
	}, m) {
		prior := exprNames.ReplaceAllString(d.Expression, "${0}_prior")
		b.addNode(tools.Calculate, tools.CalculateArgs{Expression: "(" + d.Expression + ") - (" + prior + ")", Facts: both}, []string{id}, deps...)
	}
}

// asksRatioMove reports whether a question asks how a figure moved over
// the year, or for it in both years.
func asksRatioMove(question string) bool {
	norm := normalizeText(question)
	return asksGrowth(norm) || anyTerm(norm, []string{"both years", "each year", "prior year", "year before", "year earlier", "a year ago"})
}

// figureShaped shows that a question asks for a number: "what was", "how
// much", "how many", "what is the number of", "what share of", at the
// start of the question or of a clause of it ("Netflix paid members at year-end: what was the
// count?"), "rank them", "with each number", or a dollar sign standing for
// the amount asked ("TAC $ and TAC rate", "revenue, $mm").
var figureShaped = regexp.MustCompile(`(?i)(^|[:;?!]|\.\s)\W*(what(\s+(was|were|is|are)\b|\s*['’]s\b)|how\s+(much|many)\b|give\s+me\b|tell\s+me\b|report\b|show\s+me\b)|\bhow\s+(much|many|big|large|small)\b|\b(number|amount|total|size)\s+of\b|\bwhat\s+(` + shareNouns + `)\s+of\b|(\by/y|\byoy|\byear[\s-]over[\s-]year|%|\bpercent(age)?)\s+change\b|\brank\s+(?:them|these|those|the\s+three|the\s+two)\b|\b` + recordedAs + `\b|\bwith\s+each\s+(?:one['’]s\s+)?(?:number|figure|amount|total)\b|(?:^|[\s(,])\$(?:mm|m|bn|b|k)?(?:[\s),?]|$)`)

// recordedAs is the asking of an amount an issuer recorded as a thing it
// names: "what did Oracle record as operating lease expense", "what does
// the fiscal 2022 10-K report for membership fees".
const recordedAs = `what\s+(?:did|does|do)\s+(?:[\w.&'’-]+\s+){1,5}?(?:record|report|book|recognize|recognise|post|show)\s+(?:as|for)`

// asksNumber reports whether a question asks for a number: it is shaped
// as one (figureShaped), or it is a bare phrase naming what to look up
// ("NFLX paid memberships at YE2024", "META FY2024 revenue"), with no
// word that asks or bids anything else and no call for reasons or
// expectations.
func asksNumber(question string) bool {
	if figureShaped.MatchString(question) {
		return true
	}
	n := normalizeText(question)
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if askingWords[w] {
			return false
		}
	}
	return !asksWhy(question) && !anyTerm(n, outlookTriggers) && !anyTerm(n, riskWords)
}

// askingWords ask or bid something in a question: with none, a question is
// a bare phrase.
var askingWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what what's whats which how how's why when where who whom whose did does do is
	are was were has have had can could should would will shall may might must explain describe compare discuss
	summarize summarise tell give show list outline characterize characterise assess evaluate analyze analyse
	vs versus against between`) {
		askingWords[w] = true
	}
}

// riskWords name risks, which a bare phrase may ask about ("Apple supply
// chain risks").
var riskWords = []string{"risk", "risks", "threat", "threats", "uncertaint", "exposure", "competition", "litigation", "regulation"}

// phraseStopwords are words of a figure question that name no figure:
// periods, positions in time and the verbs around a number.
var phraseStopwords = map[string]bool{
	"year": true, "years": true, "quarter": true, "quarters": true, "qtr": true, "qtrs": true, "month": true, "months": true, "period": true,
	"fiscal": true, "latest": true, "last": true, "current": true, "prior": true, "previous": true, "ended": true,
	"ending": true, "end": true, "total": true, "amount": true, "number": true, "figure": true, "value": true,
	"report": true, "reported": true, "have": true, "does": true, "much": true, "many": true, "spend": true,
	"spent": true, "hold": true, "held": true, "record": true, "recorded": true, "company": true, "annual": true,
	"carry": true, "carried": true,
	"january": true, "february": true, "march": true, "april": true, "june": true, "july": true, "august": true,
	"september": true, "october": true, "november": true, "december": true, "date": true, "today": true,
	"count": true, "level": true, "full": true,
	// words for figures in general ("Meta's ad KPIs for 2024: ...")
	"kpi": true, "kpis": true, "metric": true, "metrics": true, "numbers": true, "figures": true, "stats": true,
	// units an answer is asked in ("Answer in billions and dollars")
	"dollars": true, "dollar": true, "usd": true, "billions": true, "millions": true, "thousands": true,
}

// phraseWords are the words of a figure question that may name its figure:
// its content words without periods and the words around a number.
func (b *builder) phraseWords() []string {
	content := map[string]bool{}
	for _, w := range b.questionWords() {
		// (A scale after a number, "301.6 million paid memberships", is
		// the number's, not the figure's name.)
		if !phraseStopwords[w] && !scaleWords[w] && strings.Trim(w, "0123456789") != "" {
			content[w] = true
		}
	}
	// In the question's order, with the short acronyms content words leave
	// out ("GMV", "ARR"): written in capitals, not a ticker or a period.
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	// "How did active buyers trend": the verb of the move, and a "count"
	// of what is counted, name no figure.
	moved := howDidMove.MatchString(normalizeText(b.question))
	// A clause asking how much of the thing named before it ("and how many
	// did it add over the year") narrows that thing: its words are no
	// part of the thing's name.
	question := withoutAsides(b.question)
	for _, c := range askClauses(question) {
		if m := subjectlessDid.FindStringSubmatch(strings.TrimSpace(c)); m != nil && b.verbNamesRow(strings.ToLower(m[1])) {
			question = strings.Replace(question, strings.TrimSpace(c), " ", 1)
		}
	}
	var out []string
	for _, w := range strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) && r != '&' }) {
		lw := strings.TrimSuffix(strings.ToLower(w), "s'")
		switch {
		case moved && (moveVerbs[lw] || lw == "count"):
		case (lw == "grow" || lw == "grew" || lw == "rise" || lw == "rose" || lw == "fall" || lw == "fell") && eachMoved.MatchString(b.question):
			// "by how much did ad impressions and average price per ad
			// each grow": the move asked, named by no row.
		case content[lw] && !slices.Contains(out, lw):
			out = append(out, lw)
		case len(w) >= 2 && len(w) <= 3 && allCaps(w) && !skip[lw] && !periodAcronyms[lw] && !slices.Contains(out, w):
			out = append(out, w)
		}
	}
	return out
}

// eachMoved matches a question asking by how much figures moved: "by how
// much did X and Y each grow".
var eachMoved = regexp.MustCompile(`(?i)\bhow\s+much\s+(?:did|have|has)\b[^.?!]*\b(?:grow|rise|fall|decline)\b`)

// moveVerbs are the verbs howDidMove asks a figure's move with.
var moveVerbs = map[string]bool{"trend": true, "trended": true, "move": true, "moved": true, "change": true, "changed": true,
	"evolve": true, "evolved": true, "develop": true, "developed": true}

// periodAcronyms are capitalised words that name a period or a form, not a
// figure.
var periodAcronyms = map[string]bool{"fy": true, "ye": true, "fye": true, "ytd": true, "ttm": true, "ltm": true, "yoy": true,
	"qoq": true, "mrq": true, "us": true, "usd": true, "sec": true, "ceo": true, "cfo": true, "q": true, "h": true}

// ResolvePhrase returns the key of the figure a filing reports whose
// concept or printed row label holds every one of words (a word's first
// five letters standing for its forms: "memberships" for "membership"),
// the entry with the fewest other words first, a tagged one before a
// table row; for member a part's figure. It reports false when no entry
// holds them all.
func (c *Catalog) ResolvePhrase(documentID string, words []string, member string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	want := make([]string, len(words))
	for i, w := range words {
		want[i] = stem5(w)
	}
	best, bestExtra := "", 0
	bestTable := true
	for _, e := range c.figures[documentID] {
		if e.Member != member {
			continue
		}
		var have []string
		for _, w := range namingWords(strings.Fields(normLabel(e.Label))) {
			have = append(have, stem5(w))
		}
		// A label that holds every word asked names the figure as the
		// filing prints it, and is weighed alone: "Content amortization"
		// beside a concept of more words.
		labelled := allIn(want, have)
		if !e.Table && !labelled {
			_, local, _ := strings.Cut(e.Concept, ":")
			for _, w := range splitCamelWords(local) {
				have = append(have, stem5(w))
			}
		}
		if !allIn(want, have) || joinsAnother(strings.Fields(normLabel(e.Label)), want) || changesKind(have, want) {
			continue
		}
		// "Intangible assets, net" is the intangible assets as a balance
		// states them: "net" and "total" add nothing to what is asked.
		extra := len(slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(have))), func(w string) bool {
			return (w == "net" || w == "total") && !slices.Contains(want, w)
		})) - len(want)
		// Words saying the figure is the period's end add nothing to what
		// it is: "paid memberships" is "Paid memberships at end of
		// period" before "Paid net membership additions".
		if core := strings.Fields(atPeriodEnd.ReplaceAllString(normLabel(e.Label), "")); e.Table && len(core) < len(strings.Fields(normLabel(e.Label))) {
			if cs := stems(core); allIn(want, cs) {
				extra = len(cs) - len(want)
			}
		}
		key := e.Key
		if !e.Table {
			key = tools.FigureKey(e.Concept, member)
		}
		if best == "" || (bestTable && !e.Table) || (bestTable == e.Table && extra < bestExtra) {
			best, bestExtra, bestTable = key, extra, e.Table
		}
	}
	return best, best != ""
}

// namingWords returns the words of a label that name its figure: those
// before what it takes out of the figure ("Released, less amortization"
// is a balance net of amortization, not an amortization); a label
// that opens so ("Less: Accumulated depreciation") is named by all of it.
func namingWords(label []string) []string {
	for i, w := range label {
		if i > 0 && (w == "less" || w == "excluding" || w == "net" && i+1 < len(label) && label[i+1] == "of") {
			return label[:i]
		}
	}
	return label
}

// kindWords are words of a figure's name that make it another kind of
// figure than the words without them: a share, a rate, an average, a count.
var kindWords = map[string]bool{"perce": true, "ratio": true, "rate": true, "avera": true, "numbe": true}

// changesKind reports whether the stems have (a figure's name) hold a
// word of kind that the stems want (the question's) do not: "content
// amortization" is not the "average produced content asset amortization
// percentage".
func changesKind(have, want []string) bool {
	for _, w := range have {
		if kindWords[w] && !slices.Contains(want, w) {
			return true
		}
	}
	return false
}

// joinsAnother reports whether a label joins a figure the question names
// to another by "and" ("R&D and MG&A as a percentage of revenue" for "R&D
// as a percentage of revenue"): the label's figure is the two together, not
// the one asked. want holds the question's stems (stem5); a question that
// itself joins two names ("general and administrative") is met by labels
// that do.
func joinsAnother(label, want []string) bool {
	if slices.Contains(want, "and") {
		return false
	}
	for i := 1; i+1 < len(label); i++ {
		if label[i] != "and" {
			continue
		}
		if slices.Contains(want, stem5(label[i-1])) != slices.Contains(want, stem5(label[i+1])) {
			return true
		}
	}
	return false
}

// labelNames reports whether the figure key of a filing is labelled with
// a word beginning as word does: its row label, not its concept's name.
// isMoney reports whether the figure of the document under key is an
// amount of money.
func (c *Catalog) isMoney(documentID, key string) bool {
	for _, e := range c.figures[documentID] {
		k := e.Key
		if !e.Table {
			k = tools.FigureKey(e.Concept, e.Member)
		}
		if k == key {
			return e.Money
		}
	}
	return false
}

func (c *Catalog) labelNames(documentID, key, word string) bool {
	stem := stem5(word)
	for _, e := range c.figures[documentID] {
		k := e.Key
		if !e.Table {
			k = tools.FigureKey(e.Concept, e.Member)
		}
		if k != key {
			continue
		}
		for _, w := range strings.Fields(normLabel(e.Label)) {
			if stem5(w) == stem {
				return true
			}
		}
	}
	return false
}

// ResolvePartRow returns the key of the figure a filing prints under a
// part's own name, where the question names the part with a word of its
// own for the whole ("membership fee income" for the row "Membership
// fees"): a row label or tagged label holding every word of part and no
// word but those of part, of name (the question's word for the whole) and
// "total" or "net". The part must have two words of its own at least. The
// label with the fewest words wins, a tagged one before a table row. It
// reports false when no label is so made.
func (c *Catalog) ResolvePartRow(documentID string, part, name []string) (string, bool) {
	stem := func(w string) string {
		w = strings.ToLower(w)
		if len(w) > 5 {
			return w[:5]
		}
		return strings.TrimSuffix(w, "s")
	}
	whole := []string{"total", "net", "and"} // words of a whole, not of a part
	var want, allowed []string
	named := 0
	for _, w := range part {
		if w = stem(w); w != "and" {
			want = append(want, w)
			if !slices.Contains(whole, w) {
				named++
			}
		}
	}
	// One word is too little to go by: a row labelled "International"
	// may be of any table (income before taxes, properties, employees).
	if named < 2 {
		return "", false
	}
	allowed = append(allowed, want...)
	for _, w := range name {
		allowed = append(allowed, stem(w))
	}
	allowed = append(allowed, whole...)
	best, bestLen, bestTable := "", 0, true
	for _, e := range c.figures[documentID] {
		if e.Member != "" || e.Label == "" {
			continue
		}
		var have []string
		for _, w := range strings.Fields(normLabel(e.Label)) {
			have = append(have, stem(w))
		}
		if !allIn(want, have) || !allIn(have, allowed) {
			continue
		}
		key := e.Key
		if !e.Table {
			key = tools.FigureKey(e.Concept, "")
		}
		if best == "" || (bestTable && !e.Table) || (bestTable == e.Table && len(have) < bestLen) {
			best, bestLen, bestTable = key, len(have), e.Table
		}
	}
	return best, best != ""
}

// planPhraseFigure plans a figure the catalogue does not name, asked with
// the question's own words ("paid memberships", "employee turnover"): for
// each issuer and period, the fact whose concept or row label holds them
// all, or, where no fact is so labelled, a sentence of the filing that
// holds them all with a figure. A figure no filing states is then a gap
// that names it, never a passage on its words. It reports false, planning
// nothing, when the question's words are too few or too many to name one
// figure.
func (b *builder) planPhraseFigure() bool {
	words := b.phraseWords()
	if items := b.listedItems(words); len(items) > 1 {
		// "Costco FY22 paid members and renewal rate?": two figures, each
		// planned on its own, where no row a filing prints holds every
		// word.
		planned := false
		for _, item := range items {
			planned = b.planPhraseFigureOf(item) || planned
		}
		return planned
	}
	return b.planPhraseFigureOf(words)
}

// listedItems splits words, the phrase a question names its figure by,
// into the items of the question's list (listSplit) each holds, where the
// question lists two or more, each of two to four words, and no figure of
// the filings asked holds every word ("research and development expense"
// is one row); nil otherwise.
func (b *builder) listedItems(words []string) [][]string {
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if _, ok := b.cat.ResolvePhrase(p.doc.ID, words, ""); p.found && ok {
				return nil
			}
		}
	}
	// "Xbox content and services growth": the filings print "content and
	// services" as one name; its "and" lists nothing.
	toks := strings.FieldsFunc(strings.ToLower(b.question), func(r rune) bool { return !unicode.IsLetter(r) && r != '&' })
	for i := 1; i+1 < len(toks); i++ {
		if toks[i] != "and" || !slices.Contains(words, toks[i-1]) || !slices.Contains(words, toks[i+1]) {
			continue
		}
		if slices.ContainsFunc(b.rt.Issuers, func(t string) bool { return b.cat.TextStats().Joins(t, toks[i-1], toks[i+1]) }) {
			return nil
		}
	}
	var items [][]string
	n := 0
	for _, part := range listSplit.Split(b.question, -1) {
		have := map[string]bool{}
		for _, w := range strings.FieldsFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && r != '&' }) {
			have[strings.TrimSuffix(strings.ToLower(w), "s'")] = true
			have[w] = true
		}
		var item []string
		for _, w := range words {
			if have[w] {
				item = append(item, w)
			}
		}
		if len(item) > 0 {
			items = append(items, item)
			n += len(item)
		}
	}
	// Each item a figure's name of two to four words ("paid members",
	// "renewal rate"), or a short form an issuer's filings define ("DAP
	// and ARPP"); another lone word is as likely a name ("US & Canada").
	// A count asked of a lone word ("how many members and what was the
	// renewal rate") is an item of its own too.
	counted := countedNoun(b.question)
	if len(items) < 2 || n != len(words) || slices.ContainsFunc(items, func(item []string) bool {
		return len(item) > 4 || len(item) < 2 && b.definedShort(item[0]) == "" && item[0] != counted
	}) {
		return nil
	}
	return items
}

// definedShort returns the long form a filing of an issuer the question
// names defines w as a short form of ("DAP": "daily active people"); ""
// when none does.
func (b *builder) definedShort(w string) string {
	for _, t := range b.rt.Issuers {
		if long := b.cat.TextStats().LongForm(t, strings.ToUpper(w)); long != "" {
			return long
		}
	}
	return ""
}

// howMany matches "how many" (or "the number of") and the words after it.
var howMany = regexp.MustCompile(`(?i)\b(?:how\s+many|number\s+of)\s+((?:[a-z][a-z-]*\s*){1,4})`)

// countedNoun returns what a question asks the number of: the last word
// of the phrase after "how many", up to its verb ("how many new
// warehouses did Costco open": "warehouses"); "" when it asks none.
func countedNoun(q string) string {
	m := howMany.FindStringSubmatch(q)
	if m == nil {
		return ""
	}
	noun := ""
	for _, w := range strings.Fields(strings.ToLower(m[1])) {
		switch {
		case countedStops[w] || labelBreaks[w]:
			return noun
		case !questionStopwords[w]:
			noun = w // "new" and the like qualify it
		}
	}
	return noun
}

// inDollars matches a question's asking for an amount of money in so many
// words: "in dollars", "in $", "the dollar amount", "how many dollars".
var inDollars = regexp.MustCompile(`(?i)\b(?:in|as)\s+(?:us\s+)?(?:dollars|\$)|\bdollar\s+(?:amount|figure|value|size|terms|impact)\b|\bhow\s+many\s+dollars\b|\bin\s+\$\s*(?:terms|millions|billions|bn|m)\b`)

// dollarsAskedOf reports whether the question asks the item its words
// name as an amount of money: the asking ("in dollars") in the clause
// that names the item, after it ("how big was the LIFO charge in
// dollars") or before it ("the dollar amount of the LIFO charge").
func dollarsAskedOf(question string, words []string) bool {
	lower := strings.ToLower(question)
	at := strings.Index(lower, strings.ToLower(asWritten(question, words)))
	if at < 0 || len(words) == 0 {
		return false
	}
	start := strings.LastIndexAny(lower[:at], "?;.!") + 1
	end := len(lower)
	if i := strings.IndexAny(lower[at:], "?;!"); i >= 0 {
		end = at + i
	}
	return inDollars.MatchString(lower[start:end])
}

// countedStops end the phrase after "how many": its verb or a preposition.
var countedStops = map[string]bool{}

func init() {
	for _, w := range strings.Fields("did does do was were is are has have had will would can could should may might in at on for by of during from to and or as with that which who work works worked working") {
		countedStops[w] = true
	}
}

// planPhraseFigureOf plans the figure words name (at most four), for each
// issuer and period, as planPhraseFigure does, within the parts the
// question names.
func (b *builder) planPhraseFigureOf(words []string) bool {
	return b.planPhraseFigureWithin(words, func(t string) []Segment { return b.cat.SegmentsIn(b.question, t) })
}

// planPhraseFigureWithin is planPhraseFigureOf within the parts partsOf
// gives for each issuer.
func (b *builder) planPhraseFigureWithin(words []string, partsOf func(t string) []Segment) bool {
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	what := asWritten(b.question, words)
	for ii, t := range b.rt.Issuers {
		segs := partsOf(t)
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			m := reqMeta{aspect: 0, issuer: ii}
			key, aliased := "", false
			if b.cat.KnowsFigures(p.doc.ID) {
				// A part's figure is labelled without the part's name:
				// "APAC paid memberships" is the row "Paid memberships at
				// end of period" of the table for Asia-Pacific (APAC).
				own := withoutSegmentWords(words, segs)
				for _, mem := range memberChoices(segs) {
					ws := words
					if mem != "" && len(own) > 0 {
						ws = own
					}
					if k, ok := b.cat.ResolvePhrase(p.doc.ID, ws, mem); ok {
						key = k
						break
					}
					// Initials joined by "&" name the row of the words
					// they join, whatever generic noun follows: "G&A
					// expense" is "General and administrative".
					if mem == "" && len(ws) >= 1 && strings.Contains(ws[0], "&") && allGeneric(ws[1:]) {
						if k, ok := b.cat.labelKey(p.doc.ID, ws[:1], false); ok {
							key = k
							break
						}
					}
					// A short form the filings define names the row of
					// its long form: "ARM" is "Average monthly revenue
					// per paying membership".
					if len(ws) == 1 {
						if long := b.cat.TextStats().LongForm(t, strings.ToUpper(ws[0])); long != "" {
							if k, ok := b.cat.ResolvePhrase(p.doc.ID, strings.Fields(long), mem); ok {
								key = k
								break
							}
						}
					}
				}
				if key == "" && len(words) > 1 && len(segs) == 0 {
					// "membership fee income": the row printed under the
					// part's own name, "Membership fees".
					key, _ = b.cat.ResolvePartRow(p.doc.ID, words[:len(words)-1], words[len(words)-1:])
				}
				if key == "" && len(segs) == 0 {
					// A name the filings give as another of a row's
					// ("paid subscriptions" for "Paid memberships").
					key, aliased = b.aliasKey(t, p.doc.ID, words)
				}
			}
			groups := make([][]string, 0, len(words)+1)
			for _, w := range words {
				g := wordForms(w)
				if u := b.cat.TextStats().Unclipped(w); u != "" {
					g = append(g, u) // "avg price per ad": "average price per ad"
				}
				groups = append(groups, g)
			}
			if _, ok := growthName(strings.ToLower(strings.Join(words, " "))); ok {
				// "ARPP growth" is stated in any word of change: "ARPP
				// ... was $49.63, an increase of 15% from 2023".
				groups[len(groups)-1] = ChangeWords
			}
			if len(words) == 1 || len(words) == 2 && slices.Equal(groups[1], ChangeWords) {
				// A short form the filings define is stated under
				// either form: "DAP" or "daily active people".
				if long := b.cat.TextStats().LongForm(t, strings.ToUpper(words[0])); long != "" {
					groups[0] = append(groups[0], long)
				}
			}
			number := FigureTerm
			if dollarsAskedOf(b.question, words) {
				// "how big was the LIFO charge in dollars": an amount of
				// money ("a $438 charge"), not the basis points the
				// margin discussion gives it.
				number = AmountTerm
			}
			if noun := countedNoun(b.question); noun != "" && slices.Contains(words, noun) {
				number = NumberTerm + noun // "how many new warehouses": 26 of them
				if verb := actionVerb(noun); verb != "" {
					// "How many openings": the sentence says what was
					// opened ("plan to open ... 29 additional new
					// warehouses").
					i := slices.Index(words, noun)
					groups[i] = append(groups[i], verb)
				}
				if key != "" && (!aliased && !b.cat.labelNames(p.doc.ID, key, noun) || b.cat.isMoney(p.doc.ID, key)) {
					// A count is of a row labelled so ("Paid memberships
					// at end of period"), not of a tag whose concept
					// holds the word ("Revenue from contract with
					// customer" is no number of customers).
					key = ""
				}
			}
			groups = append(groups, []string{number})
			if p.ahead > 0 {
				// A year after the latest report's ("how many new
				// warehouses were they planning to open in FY23") is
				// read from what that report expects for it: "plan to
				// open approximately up to 29 additional new warehouses
				// ... in 2023", not from the year's own figure.
				year := strconv.Itoa(p.ahead)
				groups = append(groups, OutlookWords, []string{year})
				b.planNamedFigure(t, p, m, what+" expected for "+year, "", false, groups)
				continue
			}
			named := what
			if key != "" && len(segs) > 0 && len(withoutSegmentWords(words, segs)) == len(words) {
				// "UCAN ... and ARM": the item is the part's row, and is
				// named with the part.
				named = segmentNames(samePartsMerged(segs)) + " " + what
			}
			b.planNamedFigure(t, p, m, named, key, key != "", groups)
			if key == "" && strings.HasPrefix(number, NumberTerm) && p.doc.FiscalYear == p.fy && !p.doc.PeriodEnd.IsZero() {
				// A count is stated at the period's end, by its date: "At
				// August 28, 2022, we operated 838 membership warehouses".
				id := t + "-" + tools.PeriodLabel(p.fy) + "-figure-" + slug(what)
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, what+" "+p.doc.PeriodEnd.Format("January 2, 2006"), "", 8), []string{id})
			}
		}
	}
	return true
}

// withoutSegmentWords returns words less those of the parts' names.
func withoutSegmentWords(words []string, segs []Segment) []string {
	var out []string
	for _, w := range words {
		if !slices.ContainsFunc(segs, func(s Segment) bool {
			return slices.ContainsFunc(wordsOf(s.Name), func(n string) bool { return strings.EqualFold(n, w) })
		}) {
			out = append(out, w)
		}
	}
	return out
}

// excludedClause finds what a question takes out of a figure: "excluding
// gas", "ex-fuel", "exclusive of currency", "net of acquisitions".
var excludedClause = regexp.MustCompile(`(?i)(?:\b(?:excluding|excludes?|exclusive\s+of|excl\.|excl\b|net\s+of|without)\s+|\bex-)(?:the\s+)?(?:(?:impacts?|effects?)\s+(?:of\s+)?(?:changes\s+in\s+)?)?([a-z][a-z-]+)`)

// exclusionTerms are the words a sentence states a figure without
// something with.
var exclusionTerms = []string{"exclud", "exclusive of", "ex-", "without", "net of"}

// withExclusion returns the groups of a condition on a figure stated in
// a sentence, with what the question takes out of the figure ("comparable
// sales growth excluding gas"): a sentence stating the figure with it in
// is not the figure asked.
func (b *builder) withExclusion(groups [][]string) [][]string {
	m := excludedClause.FindStringSubmatch(b.question)
	if m == nil {
		return groups
	}
	return append(slices.Clone(groups), exclusionTerms, []string{strings.ToLower(m[1])})
}

// genericFigureNouns are the nouns that say a figure is a cost without
// naming which: "G&A expense", "S&M spend".
var genericFigureNouns = map[string]bool{"expense": true, "expenses": true, "cost": true, "costs": true, "spend": true, "spending": true}

// allGeneric reports whether every word is a generic figure noun.
func allGeneric(words []string) bool {
	for _, w := range words {
		if !genericFigureNouns[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// actionVerb returns the verb an action's plural noun is made of
// ("openings": "open", "closings": "clos"), "" for another word.
func actionVerb(noun string) string {
	if base, ok := strings.CutSuffix(strings.ToLower(noun), "ings"); ok && len(base) >= 3 {
		return base
	}
	return ""
}

// wordForms are the forms a condition accepts for a word of the question:
// the word, and its base without a suffix that makes a noun of a noun
// ("membership" is said "member": "Our member renewal rate was 93%").
func wordForms(w string) []string {
	for _, suffix := range []string{"ships", "ship"} {
		if base, ok := strings.CutSuffix(strings.ToLower(w), suffix); ok && len(base) >= 4 {
			return []string{w, base}
		}
	}
	return []string{w}
}
