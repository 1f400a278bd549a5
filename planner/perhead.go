package planner

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/ledgerline/research/tools"
)

// perHead matches a question asking a figure per employee: "revenue per
// full-time employee", "most productive per head".
var perHead = regexp.MustCompile(`(?i)\bper\s+(?:full[\s-]*time\s+)?(?:employees?|heads?|headcount|workers?|persons?|staff(?:er)?s?|ftes?)\b`)

// planPerHead plans, for a question asking a figure per employee, the
// figure of each issuer and period divided by the headcount its filing
// states: "revenue per full-time employee" is the revenue looked up over
// the count of a sentence ("we employed approximately 221,000 people on a
// full-time basis"), computed. A period whose figure or count the plan
// does not gather has the calculation as a gap.
func (b *builder) planPerHead() {
	if !perHead.MatchString(b.question) {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			label := tools.PeriodLabel(p.fy)
			count := slices.IndexFunc(b.g.Requirements, func(r Requirement) bool {
				return r.Issuer == t && r.Period == label && r.Aspect == "headcount" && r.Completion.Kind == CondPassage &&
					slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Equal(g, []string{CountTerm}) })
			})
			figure := slices.IndexFunc(b.g.Requirements, func(r Requirement) bool {
				return r.Issuer == t && r.Period == label && r.Required && r.Kind == KindFigure && r.Completion.Kind == CondFact && r.Aspect != "headcount"
			})
			if count < 0 || figure < 0 {
				continue
			}
			fr, cr := b.g.Requirements[figure], b.g.Requirements[count]
			name := figureName(fr)
			what := name + " per employee"
			id := t + "-" + label + "-per-employee-calculation"
			m := reqMeta{aspect: b.meta[fr.ID].aspect, issuer: ii}
			need := fmt.Sprintf("%s's %s for %s, computed as its %s over the headcount its %s %s states", b.cat.ShortName(t), what, label, name, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form)
			refF, nodeF, okF := b.figureRef(fr)
			refC, nodeC, okC := b.figureRef(cr)
			if !okF || !okC {
				b.addCalcGap(Requirement{
					ID: id, Issuer: t, Period: label, Kind: KindCalculation, Aspect: fr.Aspect, Required: true,
					Need:       need + "; the figure or the count is read from no fact or sentence a calculation can name",
					Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{fr.ID, cr.ID}},
				}, m, fr.ID, cr.ID)
				continue
			}
			v := slugName(name)
			if !b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Kind: KindCalculation, Aspect: fr.Aspect, Required: true, Need: need,
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{fr.ID, cr.ID}},
			}, m) {
				continue
			}
			b.addNode(tools.Calculate, tools.CalculateArgs{Expression: v + " / employees", Facts: map[string]tools.FactRef{v: refF, "employees": refC}},
				[]string{id}, nodeF, nodeC)
		}
	}
}
