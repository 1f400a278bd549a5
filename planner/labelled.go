package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A question may name a figure the catalogue does not hold by the very
// words an issuer's filing prints beside it: "Oracle's interest expense
// climbed in FY2023. How much was it, and what does the 10-K attribute the
// increase to?" names the row "Interest expense" of Oracle's statements.
// The question's other words (climbed, attribute, increase) are no part of
// its name, so the words that name the figure are found as the longest run
// of the question's words that is, word for word, a label the filing
// prints or a concept it tags.

// labelledFigure returns the longest run of the question's words, within
// one clause and of two words or more, that is exactly the label of a
// figure one of the issuers' filings reports; nil when none is.
func (b *builder) labelledFigure() []string {
	toks := qualifierTokens(b.question, b.cat, b.rt.Issuers, nil)
	var runs [][]string
	var run []string
	for _, t := range toks {
		if t.stop || t.after {
			if len(run) >= 2 {
				runs = append(runs, run)
			}
			run = nil
			if t.stop {
				continue
			}
		}
		run = append(run, t.lower)
	}
	if len(run) >= 2 {
		runs = append(runs, run)
	}
	var docs []string
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if p.found && b.cat.KnowsFigures(p.doc.ID) {
				docs = append(docs, p.doc.ID)
			}
		}
	}
	var best []string
	for _, r := range runs {
		for n := len(r); n >= 2 && n > len(best); n-- {
			for i := 0; i+n <= len(r); i++ {
				words := r[i : i+n]
				if slices.ContainsFunc(docs, func(d string) bool { return b.cat.labelled(d, words) }) {
					best = words
					break
				}
			}
		}
	}
	return best
}

// labelled reports whether a figure of the document is labelled, or its
// concept named, with exactly words (a word's first five letters standing
// for its forms).
func (c *Catalog) labelled(documentID string, words []string) bool {
	want := stems(words)
	for _, e := range c.figures[documentID] {
		if e.Member != "" {
			continue
		}
		if slices.Equal(stems(strings.Fields(normLabel(e.Label))), want) {
			return true
		}
		if !e.Table {
			_, local, _ := strings.Cut(e.Concept, ":")
			if slices.Equal(stems(splitCamelWords(local)), want) {
				return true
			}
		}
	}
	return false
}

// stems returns the sorted, distinct five-letter stems of words.
func stems(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		w = strings.ToLower(w)
		if len(w) > 5 {
			w = w[:5]
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// planLabelledFigure plans the figure a question names by a label of the
// filings (labelledFigure) for each issuer and period: the fact so
// labelled, or a sentence stating it, or its gap; and where the question
// asks why, management's explanation of that figure. It reports false,
// planning nothing, when no run of the question's words is such a label.
func (b *builder) planLabelledFigure(explain bool) bool {
	words := b.labelledFigure()
	if len(words) == 0 {
		return false
	}
	what := strings.Join(words, " ")
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			period := tools.PeriodLabel(p.fy)
			m := reqMeta{aspect: 0, issuer: ii}
			id := t + "-" + period + "-figure-" + slug(what)
			key, ok := "", false
			if b.cat.KnowsFigures(p.doc.ID) {
				key, ok = b.cat.ResolvePhrase(p.doc.ID, words, "")
			}
			if ok {
				b.addReq(Requirement{
					ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
					Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
					Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: []string{key}},
				}, m)
				b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period}, []string{id})
			} else {
				b.addReq(Requirement{
					ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
					Need: fmt.Sprintf("%s's %s for %s, stated in its %s %s (no figure it tags or tabulates is labelled so)",
						b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
					Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: what, AllOf: [][]string{{what}, {FigureTerm}}},
				}, m)
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, what, "", 8), []string{id})
			}
			if !explain {
				continue
			}
			eid := t + "-" + period + "-explanation-" + slug(what)
			b.addReq(Requirement{
				ID: eid, Issuer: t, Period: period, Aspect: "figures", Kind: KindExplanation, Required: true,
				Need:       fmt.Sprintf("%s's explanation of what drove its %s in its %s %s", b.cat.ShortName(t), what, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
				Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: what, AllOf: [][]string{{what}, DriverWords}},
			}, m)
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, what+" primarily due to", "", 8), []string{eid})
		}
	}
	return true
}

// planReportedRatio plans, beside a ratio computed from the catalogue's
// figures, the ratio as the filing itself reports it where a row or concept
// is labelled with words ("Gross margin percentage"): an issuer's own
// definition (Costco's margin on net sales, not on total revenue) may
// differ from the computed one, and the reader is owed both.
func (b *builder) planReportedRatio(t string, p filingPeriod, aspect string, words []string, m reqMeta) {
	if !b.cat.KnowsFigures(p.doc.ID) {
		return
	}
	key, ok := b.cat.ResolvePhrase(p.doc.ID, words, "")
	if !ok {
		return
	}
	what := strings.Join(words, " ")
	period := tools.PeriodLabel(p.fy)
	id := t + "-" + period + "-" + aspect + "-reported-" + slug(what)
	if b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindFigure, Required: false,
		Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: []string{key}},
	}, m) {
		b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period}, []string{id})
	}
}
