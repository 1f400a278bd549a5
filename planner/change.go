package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A question may ask how one issuer's figure moved between two periods it
// names ("msft full-time headcount growth FY21 -> FY22, in %?"). The move
// is an asked item of its own: the plan computes it from the two figures
// and records it as a requirement either way, so that an answer which
// cannot compute it names it as missing instead of listing the two figures
// as though they answered.

// planPeriodChange plans, when the question asks how a figure changed,
// the change of each figure the plan requires of one issuer for exactly
// two periods, unless a calculation of it is planned already.
func (b *builder) planPeriodChange() {
	if !asksGrowth(normalizeText(b.reportedClauses())) || len(b.rt.NotCovered) > 0 {
		return
	}
	// Across issuers, the periods a question names may be each issuer's
	// own ("TGT's FY2021 against WMT's fiscal 2022"): only the growth of
	// one period over the year before is planned ("NFLX vs META 2024
	// operating income — who grew faster?").
	across := len(b.rt.Issuers) != 1
	faster := across && grewFaster.MatchString(b.question)
	type key struct{ issuer, rest string }
	groups := map[key][]Requirement{}
	var order []key
	for _, r := range b.g.Requirements {
		if !r.Required || r.Issuer == "" || !statesFigure(r) {
			continue
		}
		if _, ok := FiscalYearOf(r.Period); !ok {
			continue
		}
		k := key{r.Issuer, strings.TrimPrefix(r.ID, r.Issuer+"-"+r.Period+"-")}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		rs := groups[k]
		if len(rs) == 1 && (len(b.rt.FiscalYears) == 1 || across) && !isRate(figureName(rs[0])) && !b.calculates(rs[0]) && (b.growthInClauseOf(rs[0]) || faster) {
			// One period asked ("Google Services operating income and its
			// growth"): the growth over the year before, whose figure the
			// filing prints beside it.
			b.planGrowthOverPrior(rs[0])
			continue
		}
		if across || len(rs) != 2 || rs[0].Period == rs[1].Period || isRate(figureName(rs[0])) {
			continue
		}
		slices.SortFunc(rs, func(a, b Requirement) int { return cmp.Compare(a.Period, b.Period) })
		if b.calculates(rs[1]) {
			continue
		}
		b.planChangeOf(rs[0], rs[1])
	}
}

// grewFaster matches a comparison of how fast figures grew: "who grew
// faster", "which grew the most", "faster-growing".
var grewFaster = regexp.MustCompile(`(?i)\b(?:grew|grow|grows|growing|growth|increased|rose)\s+(?:the\s+)?(?:faster|quicker|more|most|fastest|slower|less|least)\b|\bfaster[- ]growing\b|\bgrowth\s+(?:rates?\s+)?(?:compare|comparison)\b`)

// reportedClauses returns the question without its clauses that name
// only years after every asked issuer's latest report: "AMZN FY24 cash
// capex vs 2023, and does mgmt see it going up in 2025" asks the move
// expected in 2025, not one between the two years reported.
func (b *builder) reportedClauses() string {
	ahead := map[int]bool{}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if p.ahead > 0 {
				ahead[p.ahead] = true
			}
		}
	}
	if len(ahead) == 0 {
		return b.question
	}
	var kept []string
	for _, c := range askClauses(b.question) {
		years := findFiscalYears(c)
		if len(years) > 0 && !slices.ContainsFunc(years, func(y int) bool { return !ahead[y] }) {
			continue
		}
		kept = append(kept, c)
	}
	return strings.Join(kept, ", ")
}

// growthInClauseOf reports whether the clause of the question naming r's
// figure asks how it grew ("... operating income and its growth"), not
// another clause ("Why did revenue fall? What was the order backlog?").
func (b *builder) growthInClauseOf(r Requirement) bool {
	name := normalizeText(figureName(r))
	// The figure as the question writes it ("R&D" for research and
	// development expense).
	var written []string
	for _, f := range b.rt.Figures {
		if f.Metric != "" && f.Phrase != "" && readsMetric(r, f.Metric) {
			written = append(written, normalizeText(f.Phrase))
		}
	}
	named := false // a clause before named the figure
	for _, c := range clauseBreak.Split(b.question, -1) {
		n := normalizeText(c)
		if termIn(n, name) || slices.ContainsFunc(written, func(w string) bool { return termIn(n, w) }) ||
			slices.ContainsFunc(strings.Fields(name), func(w string) bool { return len(w) > 3 && termIn(n, w) && !issuerWordSet(b.cat, b.rt.Issuers)[w] }) {
			if asksGrowth(n) {
				return true
			}
			named = true
			continue
		}
		// "... revenue, and how fast did it grow?": the figure pointed
		// back to, when the plan asks no other figure.
		if named && pointsToFigure.MatchString(n) && asksGrowth(n) && len(b.rt.Figures) <= 1 {
			return true
		}
	}
	return false
}

// pointsToFigure matches a pronoun standing for a figure named before:
// "how fast did it grow", "has that been rising".
var pointsToFigure = regexp.MustCompile(`\b(it|that|this|they)\b`)

// planGrowthOverPrior plans the growth of a figure looked up as a fact
// over the same figure a year before, read from the same filing.
func (b *builder) planGrowthOverPrior(now Requirement) {
	ref, node, ok := b.factOf(now)
	if !ok || now.Completion.Kind != CondFact {
		return
	}
	what := figureName(now)
	v := slugName(what)
	prior := ref
	prior.Prior = true
	id := now.ID + "-change"
	if !b.addReq(Requirement{ID: id, Issuer: now.Issuer, Period: now.Period, Kind: KindCalculation, Aspect: now.Aspect, Required: true,
		Need:       fmt.Sprintf("the growth of %s's %s over the year to %s, from the figure and the one a year before, computed", b.cat.ShortName(now.Issuer), what, now.Period),
		Completion: Condition{Kind: CondCalculation, Issuer: now.Issuer, Period: now.Period, Topic: what + " growth", Of: []string{now.ID}},
	}, reqMeta{aspect: b.meta[now.ID].aspect, issuer: b.meta[now.ID].issuer}) {
		return
	}
	b.addNode(tools.Calculate, tools.CalculateArgs{
		Expression: fmt.Sprintf("(%s - %s_prior) / %s_prior", v, v, v),
		Facts:      map[string]tools.FactRef{v: ref, v + "_prior": prior},
	}, []string{id}, node)
	// The growth as the filing prints it, where it does: the discussion's
	// table of the figure's change ("Research and development expenses |
	// 7,339 | 5,268 | 2,071 | 39%"), cited beside the one computed.
	for _, p := range b.periodsOf(now.Issuer) {
		if p.found && tools.PeriodLabel(p.fy) == now.Period && p.doc.FiscalYear == p.fy {
			b.planPrintedAs(now.Issuer, p, what+" growth", []string{strings.ToLower(what)}, what+" change", id, b.meta[now.ID])
			break
		}
	}
}

// rateWords name a figure that is a rate or a change already: its change
// between periods is a difference in points, or the change itself is the
// figure ("comparable sales growth").
var rateWords = append([]string{"margin", "rate", "ratio", "percentage", "percent", "%", "yield", "share", "mix"}, ChangeWords...)

// isRate reports whether a figure's name says it is a rate or a change.
func isRate(name string) bool {
	return anyTerm(normalizeText(name), rateWords)
}

// calculates reports whether a calculation of the plan already uses the
// figure r asks for: one computed from it, or one of the same issuer,
// period and aspect (revenue growth from the prior year's revenue).
func (b *builder) calculates(r Requirement) bool {
	return slices.ContainsFunc(b.g.Requirements, func(c Requirement) bool {
		if c.Completion.Kind != CondCalculation {
			return false
		}
		return slices.Contains(c.Completion.Of, r.ID) || c.Issuer == r.Issuer && c.Period == r.Period && c.Aspect == r.Aspect
	})
}

// planChangeOf plans the change of a figure from the requirement before's
// period to now's, as a share of the earlier figure.
func (b *builder) planChangeOf(before, now Requirement) {
	what := figureName(now)
	id := now.ID + "-change"
	need := fmt.Sprintf("the change in %s's %s from %s to %s, as a percentage of the %s figure, computed from the two figures",
		b.cat.ShortName(now.Issuer), what, before.Period, now.Period, before.Period)
	cond := Condition{Kind: CondCalculation, Issuer: now.Issuer, Period: now.Period,
		Topic: fmt.Sprintf("%s change from %s to %s", what, before.Period, now.Period), Of: []string{before.ID, now.ID}}
	refA, nodeA, okA := b.figureRef(before)
	refB, nodeB, okB := b.figureRef(now)
	if !okA || !okB {
		b.addCalcGap(Requirement{ID: id, Issuer: now.Issuer, Period: now.Period, Kind: KindCalculation, Aspect: now.Aspect,
			Required: true, Need: need + "; one of them is read from no fact or sentence a calculation can name", Completion: cond},
			reqMeta{aspect: b.meta[now.ID].aspect, issuer: b.meta[now.ID].issuer}, before.ID, now.ID)
		return
	}
	v := slugName(what)
	va, vb := v+"_"+strings.ToLower(before.Period), v+"_"+strings.ToLower(now.Period)
	if !b.addReq(Requirement{ID: id, Issuer: now.Issuer, Period: now.Period, Kind: KindCalculation, Aspect: now.Aspect,
		Required: true, Need: need, Completion: cond}, reqMeta{aspect: b.meta[now.ID].aspect, issuer: b.meta[now.ID].issuer}) {
		return
	}
	b.addNode(tools.Calculate, tools.CalculateArgs{
		Expression: fmt.Sprintf("(%s - %s) / %s", vb, va, va),
		Facts:      map[string]tools.FactRef{va: refA, vb: refB},
	}, []string{id}, nodeA, nodeB)
}

// addCalcGap records a calculation the plan cannot make as a requirement
// served by the nodes that gather its inputs, so that it stays unmet and
// the answer names it.
func (b *builder) addCalcGap(r Requirement, m reqMeta, of ...string) {
	var serves []string
	for _, n := range b.g.Nodes {
		if slices.ContainsFunc(of, func(id string) bool { return slices.Contains(n.Serves, id) }) {
			serves = append(serves, n.ID)
		}
	}
	if len(serves) == 0 || !b.addReq(r, m) {
		return
	}
	for i := range b.g.Nodes {
		if slices.Contains(serves, b.g.Nodes[i].ID) {
			b.g.Nodes[i].Serves = appendNew(b.g.Nodes[i].Serves, r.ID)
		}
	}
}

// figureName names the figure a requirement asks for: its topic, or the
// metric its id ends with ("operating income" of "...-figure-operating_income").
func figureName(r Requirement) string {
	if r.Completion.Topic != "" {
		return r.Completion.Topic
	}
	if _, m, ok := strings.Cut(r.ID, "-figure-"); ok {
		if metric, ok := tools.MetricByName(m); ok {
			return metric.Label
		}
		return strings.ReplaceAll(m, "_", " ")
	}
	if a, ok := AspectByName(r.Aspect); ok {
		return a.Label
	}
	return r.Aspect
}

// figureRef returns how a calculation names the figure a requirement is
// met by: its fact, or the count a sentence of the filing states, read by
// a lookup planned here.
func (b *builder) figureRef(r Requirement) (tools.FactRef, string, bool) {
	if ref, node, ok := b.factOf(r); ok {
		return ref, node, true
	}
	return b.statedOf(r)
}

// statedOf plans the lookup of the count a passage requirement asks a
// sentence to state ("we employed approximately 221,000 people"), read by
// the words the requirement's sentence must hold, and returns its
// reference.
func (b *builder) statedOf(r Requirement) (tools.FactRef, string, bool) {
	c := r.Completion
	if c.Kind != CondPassage || r.Issuer == "" || !slices.ContainsFunc(c.AllOf, func(g []string) bool { return slices.Equal(g, []string{CountTerm}) }) {
		return tools.FactRef{}, "", false
	}
	if _, ok := FiscalYearOf(r.Period); !ok {
		return tools.FactRef{}, "", false
	}
	var words []string
	for _, g := range c.AllOf {
		if slices.ContainsFunc(g, IsNumberTerm) {
			continue
		}
		for _, w := range g {
			if w = strings.ToLower(strings.TrimSpace(w)); statedWord(w) && len(words) < 12 {
				words = appendNew(words, w)
			}
		}
		break
	}
	if len(words) == 0 {
		return tools.FactRef{}, "", false
	}
	key := tools.StatedKey(slugName(figureName(r)))
	node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: r.Issuer, Concept: key, Period: r.Period, Stated: words}, []string{r.ID})
	return tools.FactRef{Ticker: r.Issuer, Concept: key, Period: r.Period}, node, true
}

// statedWord reports whether w can be one of a stated lookup's words:
// letters, with spaces or hyphens inside.
func statedWord(w string) bool {
	if len(w) < 2 || len(w) > 40 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		inner := (c == ' ' || c == '-') && i > 0 && i < len(w)-1
		if !(c >= 'a' && c <= 'z' || inner) {
			return false
		}
	}
	return true
}

// stillAsked matches a question asking whether something is still so:
// "is the segment still losing money", "does it still pay a dividend".
var stillAsked = regexp.MustCompile(`(?i)\bstill\b`)

// planStillAsked plans, for a question asking whether something is still
// so of one year, each figure the plan requires of an issuer for that year
// also for the year before, as the filing's comparative shows it: "still"
// asks how the figure stood then too. The year before is context, not
// required: the year asked answers the question.
func (b *builder) planStillAsked() {
	if !stillAsked.MatchString(b.question) || len(b.rt.FiscalYears) > 1 {
		return
	}
	for _, r := range slices.Clone(b.g.Requirements) {
		if !r.Required || r.Kind != KindFigure || r.Completion.Kind != CondFact || r.Completion.QuarterEnded != "" {
			continue
		}
		fy, ok := FiscalYearOf(r.Period)
		if !ok {
			continue
		}
		for _, n := range slices.Clone(b.g.Nodes) {
			var a tools.LookupFactArgs
			if n.Tool != tools.LookupFact || !slices.Contains(n.Serves, r.ID) || json.Unmarshal(n.Args, &a) != nil || a.Quarter || a.YearToDate {
				continue
			}
			prior := tools.PeriodLabel(fy - 1)
			id := strings.Replace(r.ID, r.Period, prior, 1)
			if id == r.ID {
				id = r.ID + "-" + prior
			}
			req := r
			req.ID, req.Period, req.Required = id, prior, false
			req.Need = fmt.Sprintf("%s's %s for %s, the year before, to show whether it is still so", b.cat.ShortName(r.Issuer), cmp.Or(r.Completion.Topic, r.Aspect), prior)
			req.Completion.Period = prior
			if b.addReq(req, b.meta[r.ID]) {
				a.Period = prior
				b.addNode(tools.LookupFact, a, []string{id})
			}
			break
		}
	}
}
