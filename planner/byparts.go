package planner

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// byParts matches a question asking a figure for each part of the
// business on one axis: "operating income by segment", "revenue by
// reportable segment", "for each segment", "segment breakdown"; group 1
// names segments, group 2 regions.
var byParts = regexp.MustCompile(`(?i)\b(?:by|for\s+each|per|for\s+every|across)\s+(?:(?:its|their|the|each|every|business|reportable|operating)\s+)*(?:(segments?)|(geograph(?:y|ies|ic\s+(?:areas?|regions?|segments?))|regions?))\b|\b(segment)(?:al)?\s+(?:breakdown|split|mix)\b`)

// askedAxis returns the word an axis's name holds for the parts the
// question asks each of: "segment" or "geograph"; "" for none.
func askedAxis(question string) string {
	m := byParts.FindStringSubmatch(question)
	switch {
	case m == nil:
		return ""
	case m[1] != "" || m[3] != "":
		return "segment"
	default:
		return "geograph"
	}
}

// partsReporting returns the members of a filing's parts, on an axis
// whose name holds axis ("segment" for us-gaap:StatementBusinessSegmentsAxis),
// for which the filing reports one of concepts alone (a figure of that one
// part), in the order the filing's figures give them.
func (c *Catalog) partsReporting(documentID string, concepts []string, axis string) []string {
	var out []string
	for _, e := range c.figures[documentID] {
		if len(e.Axes) != 1 || !slices.Contains(concepts, e.Concept) {
			continue
		}
		for m, a := range e.Axes {
			if strings.Contains(strings.ToLower(a), axis) && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// planByParts plans, for a question asking a figure by segment ("Amazon
// 2024 operating income by segment"), the figure of each segment the
// filing reports it for, beside the company's: each part is an asked item
// the answer states, cited, or names as a gap. A question that names its
// parts asks those only, and a filing that reports the figure for no part
// leaves the company's figure and its segments passage.
func (b *builder) planByParts() {
	axis := askedAxis(b.question)
	if axis == "" {
		return
	}
	for ii, t := range b.rt.Issuers {
		if len(b.cat.SegmentsIn(b.question, t)) > 0 {
			continue
		}
		names := b.cat.segmentNames(t)
		for _, p := range b.periodsOf(t) {
			if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			m := reqMeta{aspect: 0, issuer: ii}
			for _, ask := range b.rt.Figures {
				metric := ask.Metric
				if ask.Derived != "" {
					d, ok := tools.DerivedByName(ask.Derived)
					if !ok || len(d.Inputs()) == 0 {
						continue
					}
					metric = strings.TrimSuffix(d.Inputs()[0], "_prior")
				}
				mt, ok := tools.MetricByName(metric)
				if !ok {
					continue
				}
				members := b.cat.partsReporting(p.doc.ID, mt.Concepts, axis)
				if len(members) == 0 && axis == "segment" {
					members = b.tableSegments(t, p, mt)
				}
				for _, mem := range members {
					seg := []Segment{{Name: partName(mem, names[mem]), Members: []string{mem}}}
					if ask.Derived != "" {
						b.planDerived(t, p, "figures", ask.Derived, seg, m)
						continue
					}
					b.lookupFigure(t, p, "figures", ask.Metric, tools.PeriodLabel(p.fy), seg, true, m)
				}
			}
		}
	}
}

// partName is how an answer names a member's part: the first name the
// filing prints beside its figures that holds every word of the member's
// own name ("Compute & Networking" for nvda:ComputeAndNetworkingMember,
// "Rest of Asia Pacific"), else the member's words (for a standard
// member, the first name printed beside it). A printed label that
// only shares a word with it ("Google Search & other" beside
// goog:GoogleServicesMember) names another thing.
func partName(member string, printed []string) string {
	own := memberWords(member)
	words := func(s string) []string {
		var out []string
		for _, w := range wordsOf(strings.ToLower(s)) {
			if !isAnd(w) && w != "&" {
				out = append(out, w)
			}
		}
		return out
	}
	want := words(own)
	for _, name := range printed {
		have := words(name)
		if len(want) > 0 && !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(have, w) }) {
			return name
		}
	}
	if segmentName(member) == "" && len(printed) > 0 {
		// A standard member ("us-gaap:AllOtherSegmentsMember") is the
		// taxonomy's name; the filing's own is what it prints ("Other
		// Bets").
		return printed[0]
	}
	return own
}

// tableSegments returns the parts of a converted filing's tables that its
// issuer's filings call segments ("our Intelligent Cloud segment") and
// for which the filing prints mt's row: a converted filing tags no axis,
// and its tables' parts are segments, tax jurisdictions and balances
// alike.
func (b *builder) tableSegments(t string, p filingPeriod, mt tools.Metric) []string {
	stats := b.cat.TextStats()
	var out []string
	for _, e := range b.cat.figures[p.doc.ID] {
		for m, axis := range e.Axes {
			if axis != corpus.TablePartAxis || slices.Contains(out, m) || !stats.CallsSegment(t, segmentName(m)) {
				continue
			}
			if _, ok := b.cat.ResolveMetric(p.doc.ID, mt, m, ""); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// splitInto matches a question asking how a figure divides among parts it
// lists: "how did income before income taxes split between U.S. and
// foreign operations", "broken down into", "the breakdown between";
// group 1 is the list, to the end of the clause (a full stop within an
// abbreviation, "U.S. and", does not end it).
var splitInto = regexp.MustCompile(`(?i)\b(?:split|splits|divided|broken\s+down|break\s*down|breakdown|allocated)\s+(?:between|among|into|across)\s+(?:the\s+)?((?:[^?.;:()]|\.(?:[A-Za-z]|\s+[a-z]))+)`)

// listItem splits a list of parts: "U.S. and foreign operations", "A, B
// and C", "A vs B".
var listItem = regexp.MustCompile(`(?i)\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+|/)\s*`)

// listEnd matches where a list of parts ends before the clause does: a
// period or a source named after it ("... and foreign operations in
// fiscal 2022", "... for the year").
var listEnd = regexp.MustCompile(`(?i)\s+(?:in|for|during|over|at|as\s+of|from|per|according|based|using|,\s*(?:and\s+)?(?:what|how|why))\b|\s+\d`)

// planSplitParts plans, for a question asking how a figure splits among
// parts it lists, each part's row of the table that prints the figure as
// their total: "U.S. $ 47,837" and "Foreign 35,879" above "Income before
// income taxes $ 83,716". A part is found by its words, or without its
// last word where the list's noun is shared ("foreign operations" is the
// row "Foreign"). It plans nothing unless every part listed is found.
func (b *builder) planSplitParts() {
	m := splitInto.FindStringSubmatch(b.question)
	if m == nil {
		return
	}
	list := m[1]
	if loc := listEnd.FindStringIndex(list); loc != nil {
		list = list[:loc[0]]
	}
	var items [][]string
	for _, it := range listItem.Split(strings.TrimSpace(list), -1) {
		if ws := strings.Fields(normLabel(it)); len(ws) > 0 {
			items = append(items, ws)
		}
	}
	if len(items) < 2 || len(items) > maxTotalParts {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			for _, ask := range b.rt.Figures {
				mt, ok := tools.MetricByName(ask.Metric)
				if ask.Metric == "" || !ok {
					continue
				}
				whole, ok := b.cat.ResolveMetric(p.doc.ID, mt, "", b.question)
				if !ok {
					continue
				}
				keys := make([]string, 0, len(items))
				for _, ws := range items {
					key, ok := b.partOfWhole(p.doc.ID, whole, ws)
					if !ok && len(ws) > 1 {
						key, ok = b.partOfWhole(p.doc.ID, whole, ws[:len(ws)-1])
					}
					if !ok || slices.Contains(keys, key) {
						keys = nil
						break
					}
					keys = append(keys, key)
				}
				for i, key := range keys {
					what := b.cat.FigureLabel(p.doc.ID, key)
					if what == "" {
						what = strings.Join(items[i], " ")
					}
					b.planPartOfWhole(t, p, reqMeta{aspect: 0, issuer: ii}, what+" ("+mt.Label+")", key, whole)
				}
			}
		}
	}
}

// partOfWhole returns the key of the row labelled part, word for word,
// that is a part of the figure whole: a row just above the whole's own, or
// one of rows adding up to it (Catalog.rowAbove, Catalog.partRow).
func (b *builder) partOfWhole(documentID, whole string, part []string) (string, bool) {
	if key, ok := b.cat.rowAbove(documentID, whole, part); ok {
		return key, true
	}
	return b.cat.partRow(documentID, whole, part)
}

// planPartOfWhole plans part of the figure whole, a row of key printed
// above whole's row (see LookupFactArgs.Above) where both are table rows.
func (b *builder) planPartOfWhole(t string, p filingPeriod, m reqMeta, what, key, whole string) {
	args := tools.LookupFactArgs{Ticker: t, Concept: key, Period: tools.PeriodLabel(p.fy)}
	if strings.HasPrefix(key, tools.TablePrefix) && strings.HasPrefix(whole, tools.TablePrefix) {
		args.Above = whole
	}
	b.planNamedFact(t, p, m, what, args)
}
