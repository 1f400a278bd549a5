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
