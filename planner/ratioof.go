package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A question may ask one reported figure as a share of another that is
// not revenue ("capex as a percentage of operating cash flow", "dividends
// as a share of net income"). FindFigures turns a share of revenue into the
// catalogue's ratio to revenue; any other base is an asked item of its
// own: the plan computes the ratio from the two figures where both are
// facts, and records it as a requirement either way, so that an answer
// giving the two figures alone names the ratio as missing instead of
// ending supported without it.

// asksRatioOf finds the words that set a figure over another: "as a share
// of", "as a % of", "divided by", "relative to".
var asksRatioOf = regexp.MustCompile(`(?i)\b(?:as\s+(?:an?\s+)?)?(?:share|percent(?:age)?|proportion|fraction|portion)\s+of\b|%\s+of\b|\bdivided\s+by\b|\brelative\s+to\b`)

// ratioOperands returns the figure named last before the words that set a
// figure over another and the one named first after them, both reported
// figures of the catalogue; false when either is missing or the base is
// revenue (a share of revenue is a catalogue ratio of its own).
func (b *builder) ratioOperands() (num, den string, ok bool) {
	loc := asksRatioOf.FindStringIndex(b.question)
	if loc == nil || len(b.rt.Figures) < 2 {
		return "", "", false
	}
	// FigureAsk.at counts in FindFigures' padded, normalised question;
	// the order of the names is what matters, read from the question
	// itself.
	q := normLabel(b.question)
	cue := len(normLabel(b.question[:loc[0]]))
	for _, f := range b.rt.Figures {
		if f.Metric == "" {
			continue
		}
		at := strings.Index(q, normLabel(f.Phrase))
		switch {
		case at < 0:
		case at < cue:
			num = f.Metric
		case den == "":
			den = f.Metric
		}
	}
	if num == "" || den == "" || num == den || den == "revenue" {
		return "", "", false
	}
	return num, den, true
}

// planRatioOf plans, for each issuer and period, the ratio of the two
// figures the question sets one over the other.
func (b *builder) planRatioOf() {
	num, den, ok := b.ratioOperands()
	if !ok {
		return
	}
	mn, okN := tools.MetricByName(num)
	md, okD := tools.MetricByName(den)
	if !okN || !okD {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || p.ahead > 0 {
				continue
			}
			label := tools.PeriodLabel(p.fy)
			m := reqMeta{aspect: 0, issuer: ii}
			id := t + "-" + label + "-ratio-" + num + "-to-" + den
			need := fmt.Sprintf("%s's %s as a share of its %s for %s, computed from its reported figures", b.cat.ShortName(t), mn.Label, md.Label, label)
			cond := Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: mn.Label + " to " + md.Label}
			// A ratio the plan cannot compute stays an asked item: a
			// requirement on the figures gathered for the period, unmet.
			gap := func(why string) {
				var of []string
				for _, r := range b.g.Requirements {
					if r.Issuer == t && r.Period == label && r.Required && statesFigure(r) {
						of = append(of, r.ID)
					}
				}
				if len(of) > 0 {
					c := cond
					c.Of = of
					b.addCalcGap(Requirement{ID: id, Issuer: t, Period: label, Kind: KindCalculation, Required: true,
						Need: need + "; " + why, Completion: c}, m, of...)
				}
			}
			if !b.cat.KnowsFigures(p.doc.ID) {
				gap("the filing's figures are read from no facts a calculation can name")
				continue
			}
			ln, foundN := b.lookupFigure(t, p, "figures", num, label, nil, true, m)
			ld, foundD := b.lookupFigure(t, p, "figures", den, label, nil, true, m)
			if !foundN || !foundD {
				gap("one of the two is not reported as a figure")
				continue
			}
			cond.Of = []string{ln.req, ld.req}
			if b.addReq(Requirement{ID: id, Issuer: t, Period: label, Kind: KindCalculation, Required: true, Need: need, Completion: cond}, m) {
				facts := map[string]tools.FactRef{
					num: {Ticker: t, Concept: ln.key, Period: label},
					den: {Ticker: t, Concept: ld.key, Period: label},
				}
				b.addNode(tools.Calculate, tools.CalculateArgs{Expression: num + " / " + den, Facts: facts}, []string{id},
					slices.DeleteFunc([]string{ln.node, ld.node}, func(n string) bool { return n == "" })...)
			}
		}
	}
}
