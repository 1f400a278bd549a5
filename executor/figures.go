package executor

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
)

// FigureKind says whether a filing reported a figure or the run computed it.
type FigureKind string

// Figure kinds.
const (
	FigureReported FigureKind = "reported" // a number a filing states
	FigureDerived  FigureKind = "derived"  // computed by calculate from reported figures
)

// FigureSource says where a figure's numbers were read.
type FigureSource string

// Figure sources.
const (
	SourceXBRL  FigureSource = "xbrl"  // a tagged inline XBRL fact, company-wide or for a dimension member
	SourceTable FigureSource = "table" // a row of a financial table: of a text or PDF filing, or one a tagged filing prints untagged ("Gross margin percentage")
	SourceText  FigureSource = "text"  // a count a sentence of the filing states ("we employed approximately 221,000 people")
)

// Figure is one number the answer rests on, with where it came from.
//
// Value is a decimal string in JSON ("391035000000", "0.4621"), as the
// ledger's facts and calculations write numbers, so no digit is lost; read
// it with a decimal parser, or as a float where a tolerance is compared.
type Figure struct {
	Issuer string `json:"issuer"`
	// Metric names the figure: the requirement's topic; without one, the
	// catalogue label of its concept ("revenue", "cost of revenue"; a
	// segment's adds its member: "revenue (IPhoneMember)"), else its aspect.
	// A derived figure without a topic is its aspect and " calculation".
	Metric string `json:"metric"`
	// Period is the fact's own period: "2023-10-01/2024-09-28", or an
	// instant "2024-09-28"; a derived figure takes its inputs' latest.
	Period      string          `json:"period"`
	Value       decimal.Decimal `json:"value"`
	Unit        string          `json:"unit"` // "USD", "shares"; "pure" for a ratio of amounts of one unit
	Kind        FigureKind      `json:"kind"`
	Source      FigureSource    `json:"source"`       // a derived figure's is its least tagged input's: text, then table, then xbrl
	EvidenceIDs []string        `json:"evidence_ids"` // the evidence that shows it (a derived figure: its inputs')
	Concept     string          `json:"concept,omitempty"`
	Formula     string          `json:"formula,omitempty"` // a derived figure's expression
	// RequirementID is the requirement the figure serves; the first one
	// when several ask for the same figure.
	RequirementID string `json:"requirement_id,omitempty"`
}

// figuresOf lists the figures an answer rests on, reported ones first.
//
// Reported figures are the facts of supported figure requirements: facts
// shown in evidence linked to the requirement (in l), of one of its
// condition's concepts compared by local name (a table row by its label,
// case and spacing aside), of its issuer. Every period found is listed, so
// prior-period comparatives come along; for one (issuer, metric, period)
// the first fact wins — the condition's most preferred concept, then the
// evidence linked first. Derived figures are calcs, the calculations the
// validator kept; byReq (requirement id -> what calculate returned for it)
// names their calculation requirement, and without it the calculation
// requirement whose figures hold every input fact does.
func figuresOf(reqs []planner.Requirement, l *ledger.RunLedger, calcs []tools.Calculation, byReq map[string]*tools.Calculation) []Figure {
	out := []Figure{}
	if l == nil {
		return out
	}
	fx := newFigureIndex(l)
	seen := map[[3]string]bool{}
	add := func(f Figure) {
		k := [3]string{f.Issuer, f.Metric, f.Period}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, f)
	}
	for _, r := range reqs {
		if r.Kind != planner.KindFigure || fx.status[r.ID] != ledger.RequirementSupported {
			continue
		}
		for _, f := range fx.reported(r) {
			add(f)
		}
	}
	for _, c := range calcs {
		if f, ok := fx.derived(reqs, c, byReq); ok {
			add(f)
		}
	}
	return out
}

// figureIndex is a run ledger looked up by id.
type figureIndex struct {
	evidence map[string]*ledger.Evidence
	facts    map[string]*ledger.Fact
	status   map[string]ledger.RequirementStatus
	linked   map[string][]string // requirement id -> linked evidence ids
	l        *ledger.RunLedger
}

func newFigureIndex(l *ledger.RunLedger) *figureIndex {
	fx := &figureIndex{
		evidence: make(map[string]*ledger.Evidence, len(l.Evidence)),
		facts:    make(map[string]*ledger.Fact, len(l.Facts)),
		status:   make(map[string]ledger.RequirementStatus, len(l.Requirements)),
		linked:   make(map[string][]string, len(l.Requirements)),
		l:        l,
	}
	for i := range l.Evidence {
		fx.evidence[l.Evidence[i].ID] = &l.Evidence[i]
	}
	for i := range l.Facts {
		fx.facts[l.Facts[i].ID] = &l.Facts[i]
	}
	for _, r := range l.Requirements {
		fx.status[r.ID] = r.Status
		fx.linked[r.ID] = r.Evidence
	}
	return fx
}

// requirementFacts returns the facts that serve figure requirement r, in
// preference order: by the rank of their concept in the condition, then by
// when their evidence was linked, then as the ledger holds them.
func (fx *figureIndex) requirementFacts(r planner.Requirement) []*ledger.Fact {
	issuer := cmp.Or(r.Completion.Issuer, r.Issuer)
	rank := map[string]int{}
	for i, c := range r.Completion.Concepts {
		if k := tools.LocalKey(c); k != "" {
			if _, ok := rank[k]; !ok {
				rank[k] = i
			}
		}
	}
	order := map[string]int{}
	for i, id := range fx.linked[r.ID] {
		if _, ok := order[id]; !ok {
			order[id] = i
		}
	}
	type cand struct {
		f           *ledger.Fact
		rank, order int
	}
	var cands []cand
	for i := range fx.l.Facts {
		f := &fx.l.Facts[i]
		o, linked := order[f.EvidenceID]
		if !linked {
			continue
		}
		rk, ok := rank[tools.LocalKey(f.Concept)]
		if !ok {
			continue
		}
		if e := fx.evidence[f.EvidenceID]; issuer != "" && e != nil && e.Ticker != "" && e.Ticker != issuer {
			continue
		}
		cands = append(cands, cand{f, rk, o})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.order, b.order))
	})
	fs := make([]*ledger.Fact, len(cands))
	for i, c := range cands {
		fs[i] = c.f
	}
	return fs
}

// reported lists a supported figure requirement's figures, one per period,
// the latest period first.
func (fx *figureIndex) reported(r planner.Requirement) []Figure {
	var figs []Figure
	periods := map[string]bool{}
	for _, f := range fx.requirementFacts(r) {
		period := fx.factPeriod(f, r)
		if periods[period] {
			continue
		}
		periods[period] = true
		issuer := r.Issuer
		if e := fx.evidence[f.EvidenceID]; issuer == "" && e != nil {
			issuer = e.Ticker
		}
		figs = append(figs, Figure{
			Issuer: issuer, Metric: reportedMetric(r), Period: period, Value: f.Value, Unit: f.Unit,
			Kind: FigureReported, Source: factSource(f.Concept), EvidenceIDs: []string{f.EvidenceID},
			Concept: f.Concept, RequirementID: r.ID,
		})
	}
	slices.SortStableFunc(figs, func(a, b Figure) int { return comparePeriods(b.Period, a.Period) })
	return figs
}

// factPeriod is a fact's period; a fact without one takes its evidence's
// period label, then the requirement's.
func (fx *figureIndex) factPeriod(f *ledger.Fact, r planner.Requirement) string {
	if p := strings.TrimSpace(f.Period); p != "" {
		return p
	}
	if e := fx.evidence[f.EvidenceID]; e != nil && e.Period != "" {
		return e.Period
	}
	return cmp.Or(r.Completion.Period, r.Period)
}

// derived returns calculation c as a figure.
func (fx *figureIndex) derived(reqs []planner.Requirement, c tools.Calculation, byReq map[string]*tools.Calculation) (Figure, bool) {
	names := inputNames(c)
	if len(names) == 0 {
		return Figure{}, false
	}
	var inputs []*ledger.Fact
	for _, n := range names {
		f := fx.facts[c.Inputs[n]]
		if f == nil {
			return Figure{}, false // the validator keeps only calculations over ledger facts
		}
		inputs = append(inputs, f)
	}
	fig := Figure{Value: c.Result, Kind: FigureDerived, Source: SourceXBRL, Formula: c.Expression, EvidenceIDs: []string{}}
	for _, f := range inputs {
		if !slices.Contains(fig.EvidenceIDs, f.EvidenceID) {
			fig.EvidenceIDs = append(fig.EvidenceIDs, f.EvidenceID)
		}
		if src := factSource(f.Concept); src == SourceText || src == SourceTable && fig.Source == SourceXBRL {
			fig.Source = src // the least tagged of its inputs
		}
		if p := fx.factPeriod(f, planner.Requirement{}); fig.Period == "" || comparePeriods(p, fig.Period) > 0 {
			fig.Period = p
		}
		if fig.Issuer == "" {
			if e := fx.evidence[f.EvidenceID]; e != nil {
				fig.Issuer = e.Ticker
			}
		}
	}
	fig.Unit = derivedUnit(c.Expression, inputs)
	if r, ok := fx.calculationRequirement(reqs, c, inputs, byReq); ok {
		fig.RequirementID = r.ID
		fig.Issuer = cmp.Or(r.Issuer, fig.Issuer)
		fig.Metric = r.Completion.Topic
		if fig.Metric == "" {
			fig.Metric = strings.TrimSpace(r.Aspect + " calculation")
		}
	} else {
		fig.Metric = "calculation"
	}
	return fig, true
}

// calculationRequirement finds the calculation requirement c was computed
// for: the one byReq names with the same expression and inputs, else the one
// whose figure requirements (Completion.Of) have every input fact in their
// linked evidence.
func (fx *figureIndex) calculationRequirement(reqs []planner.Requirement, c tools.Calculation, inputs []*ledger.Fact, byReq map[string]*tools.Calculation) (planner.Requirement, bool) {
	for _, r := range reqs {
		if r.Kind != planner.KindCalculation {
			continue
		}
		if bc := byReq[r.ID]; bc != nil && bc.Expression == c.Expression && maps.Equal(bc.Inputs, c.Inputs) {
			return r, true
		}
	}
	for _, r := range reqs {
		if r.Kind != planner.KindCalculation || len(r.Completion.Of) == 0 {
			continue
		}
		linked := map[string]bool{}
		for _, id := range r.Completion.Of {
			for _, ev := range fx.linked[id] {
				linked[ev] = true
			}
		}
		all := true
		for _, f := range inputs {
			all = all && linked[f.EvidenceID]
		}
		if all {
			return r, true
		}
	}
	return planner.Requirement{}, false
}

// exprName matches a name in a calculate expression.
var exprName = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// inputNames lists a calculation's input names in the order the expression
// first uses them, then any other input in name order.
func inputNames(c tools.Calculation) []string {
	var names []string
	for _, n := range exprName.FindAllString(c.Expression, -1) {
		if _, ok := c.Inputs[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Inputs)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// derivedUnit is a calculation's unit: "pure" for a division of amounts
// of one unit (a margin, a growth rate), the units divided for a division
// of different ones ("USD/shares"), else the first input's unit.
func derivedUnit(expr string, inputs []*ledger.Fact) string {
	var units []string
	for _, f := range inputs {
		if !slices.Contains(units, f.Unit) {
			units = append(units, f.Unit)
		}
	}
	if strings.Contains(expr, "/") {
		if len(units) == 1 {
			return "pure"
		}
		return strings.Join(units, "/")
	}
	return units[0]
}

// reportedMetric names a figure requirement's figure: its topic; else the
// catalogue label of its first concept the catalogue knows (a segment's
// with its member, a table row's by its label); else its aspect.
func reportedMetric(r planner.Requirement) string {
	if t := strings.TrimSpace(r.Completion.Topic); t != "" {
		return t
	}
	for _, c := range r.Completion.Concepts {
		concept, member, row := tools.SplitFigureKey(c)
		if row != "" {
			if m, ok := tools.MetricForLabel(row); ok {
				return m.Label
			}
			continue
		}
		for _, m := range tools.Metrics {
			if !slices.ContainsFunc(m.Concepts, func(mc string) bool { return tools.LocalKey(mc) == tools.LocalKey(concept) }) {
				continue
			}
			if member != "" {
				return m.Label + " (" + strings.Trim(strings.TrimPrefix(tools.LocalKey(c), tools.LocalKey(concept)), "[]") + ")"
			}
			return m.Label
		}
	}
	return r.Aspect
}

// factSource says where a fact with ledger concept concept was read.
func factSource(concept string) FigureSource {
	if strings.HasPrefix(concept, tools.StatedPrefix) {
		return SourceText
	}
	if _, _, row := tools.SplitFigureKey(concept); row != "" {
		return SourceTable
	}
	return SourceXBRL
}

// comparePeriods orders fact periods by their end date, then their start
// (a longer period first); periods that are not dates compare as text,
// after dated ones.
func comparePeriods(a, b string) int {
	as, ae, aok := periodDates(a)
	bs, be, bok := periodDates(b)
	switch {
	case aok && bok:
		return cmp.Or(ae.Compare(be), bs.Compare(as))
	case aok:
		return 1
	case bok:
		return -1
	}
	return strings.Compare(a, b)
}

// periodDates reads "2023-10-01/2024-09-28" or the instant "2024-09-28"
// (whose start is its end).
func periodDates(p string) (start, end time.Time, ok bool) {
	a, b, isRange := strings.Cut(strings.TrimSpace(p), "/")
	if !isRange {
		t, err := time.Parse(time.DateOnly, a)
		return t, t, err == nil
	}
	s, err1 := time.Parse(time.DateOnly, a)
	e, err2 := time.Parse(time.DateOnly, b)
	return s, e, err1 == nil && err2 == nil
}
