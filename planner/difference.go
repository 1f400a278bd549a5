package planner

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A comparison may ask how far apart two issuers' figures are ("how many
// more people did Amazon employ than Costco", "the difference between
// Alphabet's and Meta's capex"). That is an asked item of its own: the
// plan computes it from the two figures where both are facts, and records
// it as a requirement either way, so that an answer that cannot compute
// it names it as missing instead of dropping it.

// asksDifference matches a question that asks how far apart two figures
// are.
var asksDifference = regexp.MustCompile(`(?i)\bhow\s+(much|many)\s+(more|less|fewer|higher|lower|bigger|larger|smaller|greater)\b|\bdifference\b|\bgap\s+between\b|\bby\s+how\s+much\b`)

// planDifference plans the difference between the figures of the two
// issuers the question sets against each other, for each figure both have
// a required requirement for.
func (b *builder) planDifference() {
	loc := asksDifference.FindStringIndex(b.question)
	if loc == nil || len(b.rt.Issuers) < 2 {
		return
	}
	first, second := b.differenceOrder(b.question[loc[0]:])
	for _, ra := range slices.Clone(b.g.Requirements) {
		if ra.Issuer != first || !ra.Required || !statesFigure(ra) {
			continue
		}
		rest := strings.TrimPrefix(ra.ID, first+"-"+ra.Period+"-")
		i := slices.IndexFunc(b.g.Requirements, func(r Requirement) bool {
			return r.Issuer == second && r.Required && r.ID == second+"-"+r.Period+"-"+rest
		})
		if i < 0 {
			continue
		}
		rb := b.g.Requirements[i]
		b.planDifferenceOf(ra, rb)
	}
}

// versus matches the word setting one thing against another.
var versus = regexp.MustCompile(`(?i)\s(?:vs\.?|versus)\s`)

// planFigureDifference plans, for one issuer, how far apart the two
// figures the question sets against each other are ("SBC vs D&A — which
// was bigger and by how much?"): the first less the second, for each
// period both are asked for.
func (b *builder) planFigureDifference() {
	if len(b.rt.Issuers) != 1 || !asksDifference.MatchString(b.question) {
		return
	}
	m := versus.FindStringIndex(b.question)
	if m == nil {
		return
	}
	var before, after *FigureAsk
	for i, f := range b.rt.Figures {
		switch {
		case f.Metric == "":
		case f.at+len(f.Phrase) <= m[0] && (before == nil || f.at > before.at):
			before = &b.rt.Figures[i]
		case f.at >= m[1] && (after == nil || f.at < after.at):
			after = &b.rt.Figures[i]
		}
	}
	if before == nil || after == nil || before.Metric == after.Metric {
		return
	}
	t := b.rt.Issuers[0]
	for _, ra := range slices.Clone(b.g.Requirements) {
		if ra.Issuer != t || ra.Completion.Kind != CondFact || !readsMetric(ra, before.Metric) {
			continue
		}
		i := slices.IndexFunc(b.g.Requirements, func(r Requirement) bool {
			return r.Issuer == t && r.Period == ra.Period && r.Required && r.Completion.Kind == CondFact && readsMetric(r, after.Metric)
		})
		if i < 0 {
			continue
		}
		rb := b.g.Requirements[i]
		refA, nodeA, okA := b.figureRef(ra)
		refB, nodeB, okB := b.figureRef(rb)
		if !okA || !okB {
			continue
		}
		na, nb := figureName(ra), figureName(rb)
		va, vb := slugName(na), slugName(nb)
		id := t + "-" + ra.Period + "-difference-" + before.Metric + "-" + after.Metric
		if !b.addReq(Requirement{
			ID: id, Issuer: t, Period: ra.Period, Kind: KindCalculation, Aspect: ra.Aspect, Required: true,
			Need:       fmt.Sprintf("how far apart %s's %s and %s were for %s (%s less %s), computed from the two figures", b.cat.ShortName(t), na, nb, ra.Period, na, nb),
			Completion: Condition{Kind: CondCalculation, Issuer: t, Period: ra.Period, Topic: na + " less " + nb, Of: []string{ra.ID, rb.ID}},
		}, reqMeta{aspect: b.meta[ra.ID].aspect, issuer: b.meta[ra.ID].issuer}) {
			continue
		}
		b.addNode(tools.Calculate, tools.CalculateArgs{Expression: va + " - " + vb, Facts: map[string]tools.FactRef{va: refA, vb: refB}},
			[]string{id}, nodeA, nodeB)
	}
}

// readsMetric reports whether r is the requirement lookupFigure plans for
// a catalogue metric of the company as a whole: its id ends in
// "-figure-" and the metric's name.
func readsMetric(r Requirement, metric string) bool {
	return strings.HasSuffix(r.ID, "-figure-"+metric)
}

// statesFigure reports whether a requirement is met by a figure: a fact,
// or a passage that must state a number.
func statesFigure(r Requirement) bool {
	switch r.Completion.Kind {
	case CondFact:
		return true
	case CondPassage:
		return slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.ContainsFunc(g, IsNumberTerm) })
	}
	return false
}

// planDifferenceOf plans the difference of the figures of ra and rb.
func (b *builder) planDifferenceOf(ra, rb Requirement) {
	what := ra.Completion.Topic
	if what == "" {
		what = ra.Aspect
	}
	// The label names the periods, so that the line stating the
	// difference says which years it sets apart: "Capital expenditures
	// difference, FY2024", or "..., FY2024 and FY2023" for two.
	topic := what + " difference"
	switch {
	case ra.Period == "":
	case ra.Period == rb.Period || rb.Period == "":
		topic += ", " + ra.Period
	default:
		topic += ", " + ra.Period + " and " + rb.Period
	}
	id := "difference-" + slug(ra.Issuer+" "+rb.Issuer+" "+strings.TrimPrefix(ra.ID, ra.Issuer+"-"+ra.Period+"-"))
	a, o := b.cat.ShortName(ra.Issuer), b.cat.ShortName(rb.Issuer)
	need := fmt.Sprintf("the difference between %s's and %s's %s (%s's minus %s's), computed from the two figures", a, o, what, a, o)
	refA, nodeA, okA := b.figureRef(ra)
	refB, nodeB, okB := b.figureRef(rb)
	if !okA || !okB {
		// A figure no fact holds and no sentence states as a count is
		// not one a calculation can read: the difference is still asked,
		// and stays a gap.
		b.addCalcGap(Requirement{
			ID: id, Kind: KindCalculation, Aspect: ra.Aspect, Required: true,
			Need:       need + "; one of them is read from no fact or sentence a calculation can name",
			Completion: Condition{Kind: CondCalculation, Topic: topic, Of: []string{ra.ID, rb.ID}},
		}, reqMeta{aspect: b.meta[ra.ID].aspect, issuer: -1}, ra.ID, rb.ID)
		return
	}
	va, vb := differenceVar(b.cat.ShortName(ra.Issuer)), differenceVar(b.cat.ShortName(rb.Issuer))
	if va == vb {
		va, vb = va+"_a", vb+"_b"
	}
	if !b.addReq(Requirement{
		ID: id, Kind: KindCalculation, Aspect: ra.Aspect, Required: true, Need: need,
		Completion: Condition{Kind: CondCalculation, Topic: topic, Of: []string{ra.ID, rb.ID}},
	}, reqMeta{aspect: b.meta[ra.ID].aspect, issuer: -1}) {
		return
	}
	b.addNode(tools.Calculate, tools.CalculateArgs{Expression: va + " - " + vb, Facts: map[string]tools.FactRef{va: refA, vb: refB}},
		[]string{id}, nodeA, nodeB)
}

// factOf returns the fact a fact requirement is met by, as its lookup node
// asks for it, and the node.
func (b *builder) factOf(r Requirement) (tools.FactRef, string, bool) {
	if r.Completion.Kind != CondFact {
		return tools.FactRef{}, "", false
	}
	for _, n := range b.g.Nodes {
		var a tools.LookupFactArgs
		if n.Tool != tools.LookupFact || !slices.Contains(n.Serves, r.ID) || json.Unmarshal(n.Args, &a) != nil {
			continue
		}
		if a.Concept == "" || a.YearToDate {
			// Looked up by label, or a year-to-date column: no reference
			// a calculation can name.
			return tools.FactRef{}, "", false
		}
		return tools.FactRef{Ticker: a.Ticker, Concept: a.Concept, Period: a.Period}, n.ID, true
	}
	return tools.FactRef{}, "", false
}

// differenceVar is a calculation's name for an issuer's figure: its short
// name in lower case, letters and digits joined by underscores.
func differenceVar(name string) string {
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	v := strings.Join(f, "_")
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		v = "x_" + v
	}
	return v
}

// differenceOrder returns the issuer whose figure is reduced by the other's
// in a clause asking for a difference: the one named before "than" and the
// one after it ("how many more people did Amazon employ than Costco"), or
// the first two named ("the difference between Alphabet and Meta"), or
// else the question's first two issuers.
func (b *builder) differenceOrder(clause string) (string, string) {
	text := normalizeText(clause)
	at := map[string]int{}
	var named []string
	for _, t := range b.rt.Issuers {
		var names []string
		for _, n := range append([]string{t, b.cat.ShortName(t)}, b.cat.issuerNames(t)...) {
			if n = normalizeTerm(n); n != "" {
				names = append(names, n)
			}
		}
		if ps := termPositions(text, names); len(ps) > 0 {
			at[t] = slices.Min(ps)
			named = append(named, t)
		}
	}
	slices.SortStableFunc(named, func(x, y string) int { return at[x] - at[y] })
	if than := termPositions(text, []string{"than"}); len(than) > 0 {
		var before, after string
		for _, t := range named {
			switch {
			case at[t] < than[0] && before == "":
				before = t
			case at[t] > than[0] && after == "":
				after = t
			}
		}
		if before != "" && after != "" {
			return before, after
		}
	}
	if len(named) >= 2 {
		return named[0], named[1]
	}
	return b.rt.Issuers[0], b.rt.Issuers[1]
}
