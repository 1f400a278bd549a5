package synth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// Rules is the extractive synthesizer: it states what the ledger holds and
// nothing else. Per issuer and requirement, in plan order, it states each
// tagged figure with its period, each calculation with its inputs and
// result, and quotes the sentences of the evidence that meet each passage
// requirement (explanations, outlook, risks, causal links) in double
// quotes, never paraphrased. Every figure and quote is cited; a citation's
// excerpt is the evidence's excerpt for a figure and the quoted sentence
// exactly as the evidence holds it for a quote. What was not found is said
// on a "Not found:" line, an unmet causal link plainly, and when the
// issuers' fiscal years end on different dates a line says so. It gives no
// advice and makes no prediction. When no requirement is met the answer
// says the corpus does not answer the question and cites nothing.
type Rules struct {
	MaxQuotesPerRequirement int // sentences quoted for one passage requirement; 0 means 2
}

// ErrNoInput is returned for a nil Input.
var ErrNoInput = errors.New("synth: no input: pass the run's route, plan and ledger")

// maxQuotesPerTopic bounds the sentences quoted for one issuer and aspect
// (its explanation and its outlook together).
const maxQuotesPerTopic = 3

// Synthesize writes the answer. Its Status is a proposal from in.Met:
// supported when every required requirement is met, partial when some are,
// insufficient_evidence when none is (refused for a refused route).
func (r Rules) Synthesize(ctx context.Context, in *Input) (*validator.Answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, ErrNoInput
	}
	w := newWriter(r, in)
	return w.answer(), nil
}

// writer builds one answer.
type writer struct {
	in        *Input
	maxQuotes int
	rel       *planner.Relevance  // the question's words and the corpus's statistics, made on first use
	subjects  map[string][]string // per issuer, the parts of its business the question names
	restrain  int                 // whether the question asks what held a figure back: 0 not yet read, 1 yes, -1 no
	qYears    []int               // the years the question names, read on first use
	l         *ledger.RunLedger
	reqs      []planner.Requirement
	evidence  map[string]*ledger.Evidence
	facts     map[string]*ledger.Fact
	calcsMet  map[string]bool
	conflicts []ledger.Contradiction

	cites   []validator.Citation
	citeKey map[string]int // document id (or evidence id) + excerpt -> citation index
	calcs   []tools.Calculation
	gaps    []validator.Gap
	gapOf   map[string]validator.Gap // requirement id -> its gap

	tabled      map[string]bool // fact requirements the comparison table states
	stated      map[string]bool // facts a figure line states already, by id
	quoted      map[string]bool // sentences quoted so far, normalised
	topicQuotes map[string]int  // sentences quoted per issuer and aspect
}

func newWriter(r Rules, in *Input) *writer {
	w := &writer{in: in, maxQuotes: r.MaxQuotesPerRequirement, citeKey: map[string]int{}, gapOf: map[string]validator.Gap{},
		quoted: map[string]bool{}, topicQuotes: map[string]int{}, tabled: map[string]bool{}, stated: map[string]bool{}}
	if w.maxQuotes <= 0 {
		w.maxQuotes = 2
	}
	w.l = in.Ledger
	if w.l == nil {
		w.l = &ledger.RunLedger{}
	}
	if in.Graph != nil {
		w.reqs = in.Graph.Requirements
	}
	w.evidence = make(map[string]*ledger.Evidence, len(w.l.Evidence))
	for i := range w.l.Evidence {
		w.evidence[w.l.Evidence[i].ID] = &w.l.Evidence[i]
	}
	w.facts = make(map[string]*ledger.Fact, len(w.l.Facts))
	for i := range w.l.Facts {
		w.facts[w.l.Facts[i].ID] = &w.l.Facts[i]
	}
	w.calcsMet = make(map[string]bool, len(in.Calculations))
	for id, c := range in.Calculations {
		if c == nil {
			continue
		}
		i := slices.IndexFunc(w.reqs, func(r planner.Requirement) bool { return r.ID == id })
		if i < 0 || planner.CalculationMeets(w.reqs[i], c.Result) {
			w.calcsMet[id] = true
		}
	}
	w.conflicts = append(slices.Clone(w.l.Contradictions), validator.DetectContradictions(w.reqs, w.l)...)
	return w
}

func (w *writer) answer() *validator.Answer {
	in := w.in
	if in.Route.Refused {
		reason := in.Route.Reason
		if reason == "" {
			reason = "The question was refused."
		}
		return &validator.Answer{Answer: reason, Citations: []validator.Citation{}, Status: ledger.StatusRefused,
			Gaps: []validator.Gap{}, Contradictions: []ledger.Contradiction{}}
	}
	w.collectGaps()
	issuers := w.issuers()

	var lines []string
	metAny := false
	for _, r := range w.reqs {
		if in.Met[r.ID] {
			metAny = true
		}
	}
	if !metAny {
		lines = append(lines, w.nothing()...)
	} else {
		lines = append(lines, w.opening(issuers)...)
		if table := w.comparisonTable(issuers); len(table) > 0 {
			lines = append(lines, "")
			lines = append(lines, table...)
		}
		for _, t := range issuers {
			section := w.section(t)
			if len(section) == 0 {
				continue
			}
			lines = append(lines, "")
			lines = append(lines, section...)
		}
		if rest := w.crossIssuer(); len(rest) > 0 {
			lines = append(lines, "")
			lines = append(lines, rest...)
		}
	}
	return &validator.Answer{
		Answer:         strings.Join(lines, "\n"),
		Citations:      w.cites,
		Status:         w.status(),
		Gaps:           w.gaps,
		Contradictions: []ledger.Contradiction{},
		Calculations:   w.calcs,
	}
}

// collectGaps keeps the executor's gaps and adds one for each required
// requirement that is not met and has none.
func (w *writer) collectGaps() {
	w.gaps = []validator.Gap{}
	for _, g := range w.in.Gaps {
		w.gaps = append(w.gaps, g)
		if _, ok := w.gapOf[g.RequirementID]; g.RequirementID != "" && !ok {
			w.gapOf[g.RequirementID] = g
		}
	}
	for _, r := range w.reqs {
		if !r.Required || w.in.Met[r.ID] {
			continue
		}
		if _, ok := w.gapOf[r.ID]; ok {
			continue
		}
		why := "no evidence meeting: " + validator.DescribeCondition(r.Completion)
		if row, ok := w.blankRow(r); ok {
			why = fmt.Sprintf("the %s filing's table prints no value for %s: %s", r.Period, r.Period, quoteText(row))
		}
		g := validator.Gap{RequirementID: r.ID, Issuer: r.Issuer, What: r.Need, Why: why}
		w.gaps = append(w.gaps, g)
		w.gapOf[r.ID] = g
	}
}

// issuers returns the route's issuers, then any other the plan names.
func (w *writer) issuers() []string {
	out := slices.Clone(w.in.Route.Issuers)
	if w.in.Graph != nil {
		for _, t := range w.in.Graph.Tickers {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	for _, r := range w.reqs {
		if r.Issuer != "" && !slices.Contains(out, r.Issuer) {
			out = append(out, r.Issuer)
		}
	}
	return out
}

func (w *writer) status() ledger.RunStatus {
	judged := 0
	met := 0
	anyRequired := slices.ContainsFunc(w.reqs, func(r planner.Requirement) bool { return r.Required })
	for _, r := range w.reqs {
		if anyRequired && !r.Required {
			continue
		}
		judged++
		if w.in.Met[r.ID] {
			met++
		}
	}
	switch {
	case judged == 0 || met == 0 || len(w.cites) == 0:
		return ledger.StatusInsufficientEvidence
	case met == judged:
		return ledger.StatusSupported
	}
	return ledger.StatusPartial
}

// nothing is the answer when no requirement is met: it says so, names what
// was looked for, and cites nothing.
func (w *writer) nothing() []string {
	lines := []string{"The corpus does not answer this question: the run found no evidence meeting any of the plan's requirements, so nothing is stated."}
	if s := w.notCovered(); s != "" {
		lines = append(lines, s)
	}
	if w.in.Graph != nil && len(w.reqs) == 0 {
		// The planner's notes say why nothing was planned; the issuers the
		// corpus lacks are named above already.
		for _, n := range w.in.Graph.Notes {
			if !strings.HasPrefix(n, "Not in the corpus") {
				lines = append(lines, unmarked(n))
			}
		}
	}
	var notFound []string
	for _, g := range w.gaps {
		notFound = append(notFound, notFoundLine(g))
	}
	if len(notFound) > 0 {
		lines = append(lines, "")
		lines = append(lines, notFound...)
	}
	return lines
}

// opening names the issuers and periods covered, the issuers the corpus
// does not hold, and where fiscal calendars differ.
func (w *writer) opening(issuers []string) []string {
	var covered, left []string
	type end struct {
		ticker string
		date   time.Time
	}
	var ends []end
	for _, t := range issuers {
		periods := w.periodsOf(t)
		if len(periods) == 0 {
			left = append(left, w.name(t))
			continue
		}
		var ps []string
		for i, p := range periods {
			desc, date := w.period(t, p)
			ps = append(ps, desc)
			if i == 0 && !date.IsZero() {
				ends = append(ends, end{t, date})
			}
		}
		covered = append(covered, w.name(t)+" "+andList(ps))
	}
	var lines []string
	if len(covered) > 0 {
		lines = append(lines, "This answer covers "+andList(covered)+".")
	}
	if s := w.notCovered(); s != "" {
		lines = append(lines, s)
	}
	for _, n := range left {
		lines = append(lines, n+" was left out of the plan; nothing is said about it.")
	}
	differ := false
	for _, e := range ends[min(1, len(ends)):] {
		if !e.date.Equal(ends[0].date) {
			differ = true
		}
	}
	if differ {
		var parts []string
		for _, e := range ends {
			parts = append(parts, e.ticker+" "+e.date.Format(time.DateOnly))
		}
		lines = append(lines, "Fiscal years end on different dates: "+strings.Join(parts, ", ")+"; figures are not for the same twelve months.")
	}
	return lines
}

// notCovered says which named issuers the corpus does not hold.
func (w *writer) notCovered() string {
	nc := w.in.Route.NotCovered
	var out string
	switch len(nc) {
	case 0:
		return ""
	case 1:
		out = nc[0] + " is not in the corpus; nothing is said about it."
	default:
		out = andList(nc) + " are not in the corpus; nothing is said about them."
	}
	if cmd := fetchCommand(nc, w.in.Route.FiscalYears); cmd != "" {
		whose := "their"
		if strings.Count(cmd, ",") == 1 { // one ticker; the forms hold the comma
			whose = "its"
		}
		out += " `" + cmd + "` adds " + whose + " filings from SEC EDGAR."
	}
	return out
}

// fetchCommand is the research fetch command that adds the issuers of nc
// the SEC's issuer list resolved ("AMD (ADVANCED MICRO DEVICES INC)") for
// the years asked (the latest reports when none): "" when it resolved
// none.
func fetchCommand(nc []string, years []int) string {
	var tickers []string
	for _, n := range nc {
		t, _, ok := strings.Cut(n, " (")
		if ok && t != "" && strings.ToUpper(t) == t && !strings.ContainsAny(t, " ,") {
			tickers = append(tickers, t)
		}
	}
	if len(tickers) == 0 {
		return ""
	}
	cmd := "research fetch --ticker " + strings.Join(tickers, ",") + " --forms 10-K,10-Q"
	if len(years) > 0 {
		return cmd + fmt.Sprintf(" --since %d --until %d", slices.Min(years), slices.Max(years))
	}
	return cmd + " --latest 1"
}

// name is "Apple (AAPL)".
func (w *writer) name(t string) string {
	if w.in.Catalog == nil {
		return t
	}
	n := w.in.Catalog.ShortName(t)
	if n == "" || n == t {
		return t
	}
	return n + " (" + t + ")"
}

// company is what a sentence calls the issuer: "Apple".
func (w *writer) company(t string) string {
	if w.in.Catalog == nil {
		return t
	}
	if n := w.in.Catalog.ShortName(t); n != "" {
		return n
	}
	return t
}

// periodsOf returns the periods of an issuer's requirements in plan order.
func (w *writer) periodsOf(t string) []string {
	var out []string
	for _, r := range w.reqs {
		if r.Issuer == t && r.Period != "" && !slices.Contains(out, r.Period) {
			out = append(out, r.Period)
		}
	}
	return out
}

// period describes one period of an issuer: "FY2024 (fiscal year ended
// 2024-09-28)", and returns the period end when the catalog knows it.
func (w *writer) period(t, p string) (string, time.Time) {
	fy, ok := planner.FiscalYearOf(p)
	if !ok {
		return p, time.Time{}
	}
	if w.in.Catalog == nil {
		if end, ok := w.factPeriodEnd(t, p); ok {
			return fmt.Sprintf("%s (fiscal year ended %s)", p, end.Format(time.DateOnly)), end
		}
		return p, time.Time{}
	}
	var d corpus.Document
	found := false
	if w.in.Route.Quarterly {
		d, found = w.in.Catalog.Filing(t, fy, "10-Q")
	}
	if !found {
		d, found = w.in.Catalog.Filing(t, fy, "")
	}
	if !found {
		// A period the corpus holds no filing for, known from the fact a
		// later filing shows for it.
		if end, ok := w.factPeriodEnd(t, p); ok {
			return fmt.Sprintf("%s (fiscal year ended %s)", p, end.Format(time.DateOnly)), time.Time{}
		}
		return p, time.Time{}
	}
	if !strings.HasPrefix(d.Form, "10-K") && !w.in.Route.Quarterly {
		// An annual figure read from a later annual report's prior-year
		// column, though the corpus holds only a quarterly report of
		// that year: the year as the fact shows it.
		if end, ok := w.factPeriodEnd(t, p); ok {
			return fmt.Sprintf("%s (fiscal year ended %s)", p, end.Format(time.DateOnly)), end
		}
	}
	date := d.PeriodEnd.Format(time.DateOnly)
	if strings.HasPrefix(d.Form, "10-K") {
		return fmt.Sprintf("%s (fiscal year ended %s)", p, date), d.PeriodEnd
	}
	return fmt.Sprintf("%s (%s for the period ended %s)", p, d.Form, date), d.PeriodEnd
}

// factPeriodEnd returns the end of an annual period as the fact meeting a
// met fact requirement of the issuer and period shows it.
func (w *writer) factPeriodEnd(t, p string) (time.Time, bool) {
	for _, r := range w.reqs {
		if r.Issuer != t || r.Period != p || r.Completion.Kind != planner.CondFact || !w.in.Met[r.ID] {
			continue
		}
		ids, _ := planner.Check(r, w.l, w.calcsMet, w.in.Met)
		f, _ := w.pickFact(r, ids)
		if f == nil {
			continue
		}
		a, b, isRange := strings.Cut(f.Period, "/")
		if !isRange {
			continue
		}
		start, err1 := time.Parse(time.DateOnly, a)
		end, err2 := time.Parse(time.DateOnly, b)
		if err1 == nil && err2 == nil && end.Sub(start) >= 300*24*time.Hour {
			return end, true
		}
	}
	return time.Time{}, false
}

// section is one issuer's part of the answer: its figures first, then its
// calculations, then the passages that explain them. Figures the
// comparison table states (tabled) are not repeated.
func (w *writer) section(t string) []string {
	var mine []planner.Requirement
	for _, r := range w.reqs {
		if r.Issuer == t && !w.tabled[r.ID] {
			mine = append(mine, r)
		}
	}
	slices.SortStableFunc(mine, func(a, b planner.Requirement) int { return cmp.Compare(figureRank(a), figureRank(b)) })
	var body []string
	for _, r := range mine {
		// Two requirements may read one figure (capex asked, and capex as
		// an input of free cash flow): it is stated once.
		for _, l := range w.requirement(r) {
			if !slices.Contains(body, l) {
				body = append(body, l)
			}
		}
	}
	if len(body) == 0 {
		return nil
	}
	return append([]string{w.name(t) + ":"}, body...)
}

// figureRank orders an issuer's requirements: figures, calculations, the
// rest.
func figureRank(r planner.Requirement) int {
	switch {
	case r.Completion.Kind == planner.CondFact:
		return 0
	case r.Completion.Kind == planner.CondCalculation:
		return 1
	case r.Kind == planner.KindFigure:
		return 0
	}
	return 2
}

// comparisonTable sets the met figures and calculations of two or more
// issuers side by side: a row per issuer and period, a column per figure,
// each cell cited, "–" where that row has no such figure (one not asked
// for that period, or not found: a gap line below says which). It marks
// the fact requirements it states in w.tabled,
// so the issuers' sections do not repeat them; calculations stay there too,
// with their formula and inputs.
func (w *writer) comparisonTable(issuers []string) []string {
	type row struct {
		issuer, period string
		cells          map[string]string
		values         map[string]decimal.Decimal // the number of each cell, to rank by
	}
	var cols []string
	var rows []*row
	rowOf := map[string]*row{}
	var tabled []string
	for _, r := range w.reqs {
		if r.Issuer == "" || !w.in.Met[r.ID] {
			continue
		}
		var label, value string
		var number decimal.Decimal
		switch r.Completion.Kind {
		case planner.CondFact:
			ids, _ := planner.Check(r, w.l, w.calcsMet, w.in.Met)
			f, e := w.pickFact(r, ids)
			if f == nil || strings.TrimSpace(e.Excerpt) == "" || slices.ContainsFunc(w.conflicts, func(c ledger.Contradiction) bool {
				return slices.Contains(c.EvidenceIDs, e.ID)
			}) {
				continue // filings that disagree are shown side by side below
			}
			label = upperFirst(metricLabel(f.Concept))
			if r.Completion.Topic != "" {
				label = upperFirst(r.Completion.Topic)
			}
			amount, _, _ := strings.Cut(readableAmount(f.Value, f.Unit), " (")
			value, number = amount+" "+w.citeEvidence(e), f.Value
			tabled = append(tabled, r.ID)
		case planner.CondCalculation:
			calc := w.in.Calculations[r.ID]
			if calc == nil {
				continue
			}
			ratio := strings.Contains(calc.Expression, "/")
			label, _, _ = strings.Cut(w.calcLabel(r), ",")
			var marks strings.Builder
			units := map[string]bool{}
			for _, n := range exprNamePattern.FindAllString(calc.Expression, -1) {
				if f := w.facts[calc.Inputs[n]]; f != nil && w.evidence[f.EvidenceID] != nil {
					marks.WriteString(w.citeEvidence(w.evidence[f.EvidenceID]))
					units[f.Unit] = true
				}
			}
			if marks.Len() == 0 {
				continue
			}
			if u := w.perUnit(calc); u != "" {
				value, number = readableAmount(calc.Result, u)+" "+dedupMarkers(marks.String()), calc.Result
			} else if ratio {
				value, number = calc.Result.Mul(oneHundred).StringFixed(1)+"% "+dedupMarkers(marks.String()), calc.Result
			} else {
				// An amount made of amounts of one unit (free cash flow:
				// operating cash flow less capex) is that unit's amount.
				if len(units) != 1 {
					continue
				}
				var unit string
				for u := range units {
					unit = u
				}
				amount, _, _ := strings.Cut(readableAmount(calc.Result, unit), " (")
				value, number = amount+" "+dedupMarkers(marks.String()), calc.Result
			}
			if printed, ok := w.printed(r, calc); ok {
				value += " (printed: " + printed + ")"
			}
		default:
			continue
		}
		key := r.Issuer + "\x00" + r.Period
		rw := rowOf[key]
		if rw == nil {
			rw = &row{issuer: r.Issuer, period: r.Period, cells: map[string]string{}, values: map[string]decimal.Decimal{}}
			rowOf[key] = rw
			rows = append(rows, rw)
		}
		if _, dup := rw.cells[label]; dup {
			continue
		}
		rw.cells[label], rw.values[label] = value, number
		if !slices.Contains(cols, label) {
			cols = append(cols, label)
		}
	}
	distinct := map[string]bool{}
	for _, rw := range rows {
		distinct[rw.issuer] = true
	}
	if len(distinct) < 2 || len(cols) == 0 {
		return nil
	}
	for _, id := range tabled {
		w.tabled[id] = true
	}
	slices.SortStableFunc(rows, func(a, b *row) int {
		return cmp.Compare(slices.Index(issuers, a.issuer), slices.Index(issuers, b.issuer))
	})
	lines := []string{"| Issuer | Period | " + strings.Join(cols, " | ") + " |", "|---|---|" + strings.Repeat("--:|", len(cols))}
	for _, rw := range rows {
		desc, _ := w.period(rw.issuer, rw.period)
		cells := []string{w.name(rw.issuer), desc}
		for _, c := range cols {
			cells = append(cells, cmp.Or(rw.cells[c], "–"))
		}
		lines = append(lines, "| "+strings.Join(cells, " | ")+" |")
	}
	// "Which had the highest operating margin", "ranked high to low": the
	// order the question asks for, by the figure it names.
	if desc, ok := asksOrder(w.in.Question); ok {
		col := orderColumn(w.in.Question, cols)
		var ranked []*row
		for _, rw := range rows {
			if _, ok := rw.values[col]; ok {
				ranked = append(ranked, rw)
			}
		}
		if len(ranked) >= 2 {
			slices.SortStableFunc(ranked, func(a, b *row) int {
				if desc {
					return b.values[col].Cmp(a.values[col])
				}
				return a.values[col].Cmp(b.values[col])
			})
			first := "highest first"
			if !desc {
				first = "lowest first"
			}
			parts := make([]string, len(ranked))
			for i, rw := range ranked {
				parts[i] = w.name(rw.issuer) + " " + rw.cells[col]
			}
			lines = append(lines, "", fmt.Sprintf("Ranked by %s, %s: %s.", lowerFirst(col), first, strings.Join(parts, ", ")))
		}
	}
	return lines
}

// orderWords match a question asking for issuers in order of a figure:
// a superlative, a comparative after "which" or "who", or a ranking. "most"
// and "least" alone are not one ("their most recent fiscal year").
var (
	orderWords = regexp.MustCompile(`(?i)\b(highest|largest|biggest|greatest|lowest|smallest|rank|ranks|ranked|ranking|order(?:ed)?\s+(?:by|from)|(?:high|higher|highest)\s+to\s+(?:low|lower|lowest)|(?:low|lower|lowest)\s+to\s+(?:high|higher|highest)|ascending|descending)\b|\b(?:which|who)\b[^.?!]{0,60}\b(higher|lower|larger|smaller|bigger|more|less|fewer)\b`)
	ascending  = regexp.MustCompile(`(?i)\b(lowest|smallest|ascending|lower|smaller|less|fewer)\b|\b(?:low|lower|lowest)\s+to\s+(?:high|higher|highest)\b`)
	descending = regexp.MustCompile(`(?i)\b(highest|largest|biggest|greatest|descending|higher|larger|bigger|more)\b|\b(?:high|higher|highest)\s+to\s+(?:low|lower|lowest)\b`)
)

// asksOrder reports whether the question asks for its issuers in order,
// and whether highest first (the default when it says no direction).
func asksOrder(q string) (desc, ok bool) {
	if !orderWords.MatchString(q) {
		return false, false
	}
	if ascending.MatchString(q) && !descending.MatchString(q) {
		return false, true
	}
	return true, true
}

// orderColumn returns the column the question orders by: the one whose
// label's words the question names most of, the first on a tie.
func orderColumn(q string, cols []string) string {
	words := strings.Fields(strings.ToLower(q))
	best, bestN := cols[0], 0
	for _, c := range cols {
		n := 0
		for _, cw := range strings.Fields(strings.ToLower(c)) {
			if slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(strings.Trim(w, ",.?!;:()"), cw) }) {
				n++
			}
		}
		if n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

// crossIssuer is what concerns no single issuer: unmet cross-issuer
// requirements, gaps of no planned requirement, and cuts to the plan.
func (w *writer) crossIssuer() []string {
	var lines []string
	planned := map[string]bool{}
	for _, r := range w.reqs {
		planned[r.ID] = true
		if r.Issuer == "" {
			lines = append(lines, w.requirement(r)...)
		}
	}
	for _, g := range w.gaps {
		if !planned[g.RequirementID] {
			lines = append(lines, notFoundLine(g))
		}
	}
	if w.in.Graph != nil {
		for _, n := range w.in.Graph.Notes {
			if strings.HasPrefix(n, "The plan was cut") {
				lines = append(lines, "- "+unmarked(n))
			}
		}
	}
	return lines
}

// requirement returns the lines stating one requirement.
func (w *writer) requirement(r planner.Requirement) []string {
	if !w.in.Met[r.ID] {
		if w.isCausal(r) {
			return []string{w.causalUnmet(r)}
		}
		if r.Completion.Sign != 0 && w.in.Calculations[r.ID] != nil {
			lines := w.calculation(r)
			if identity(w.in.Calculations[r.ID].Expression) {
				lines = nil // the figure itself, stated with the figures
			}
			if len(lines) > 0 || identity(w.in.Calculations[r.ID].Expression) || w.calculated(w.in.Calculations[r.ID]) {
				// A premise the figures contradict: what they show.
				moved := "rose"
				if w.in.Calculations[r.ID].Result.IsNegative() {
					moved = "fell"
				} else if w.in.Calculations[r.ID].Result.IsZero() {
					moved = "did not change"
				}
				if rate, err := decimal.NewFromString(r.Completion.Rate); err == nil && r.Completion.Rate != "" {
					// A rate the question states: what the rate was.
					asserted := "a rise"
					if rate.IsNegative() {
						asserted = "a fall"
					}
					moved = fmt.Sprintf("changed by %s%%, where the question states %s of %s%%,",
						w.in.Calculations[r.ID].Result.Shift(2).StringFixed(1), asserted, rate.Abs().Shift(2).String())
				}
				calc := w.in.Calculations[r.ID]
				if identity(calc.Expression) {
					// A level, not a change: a loss the question takes for
					// granted that the figure shows was a profit (or a
					// profit that was a loss), or a rate
					// of change of the other sign than the question says.
					unit := "USD"
					for _, id := range calc.Inputs {
						if f := w.facts[id]; f != nil {
							unit = f.Unit
						}
					}
					not := "a loss"
					switch {
					case !strings.EqualFold(unit, "pure") && r.Completion.Sign > 0:
						not = "a profit" // "turned an operating profit"
					case strings.EqualFold(unit, "pure") && r.Completion.Sign < 0:
						not = "a fall"
					case strings.EqualFold(unit, "pure"):
						not = "a rise"
					}
					return append([]string{fmt.Sprintf("- The reported figures do not bear out the question: %s's %s for %s was %s, not %s.",
						w.company(r.Issuer), r.Completion.Topic, r.Period, readableAmount(calc.Result, unit), not)}, lines...)
				}
				return append([]string{fmt.Sprintf("- The reported figures do not bear out the question: %s's %s %s over the period.",
					w.company(r.Issuer), strings.TrimSuffix(strings.TrimSuffix(r.Completion.Topic, " change"), " growth"), moved)}, lines...)
			}
		}
		if g, ok := w.gapOf[r.ID]; ok {
			return []string{notFoundLine(g)}
		}
		return nil // an optional requirement not met
	}
	var lines []string
	switch r.Completion.Kind {
	case planner.CondFact:
		if ids, _ := planner.Check(r, w.l, w.calcsMet, w.in.Met); w.statedAlready(r, ids) {
			return nil
		}
		lines = w.figure(r)
	case planner.CondCalculation:
		if c := w.in.Calculations[r.ID]; c != nil && (w.calculated(c) || identity(c.Expression)) {
			return nil // stated above, for another requirement, or the figure itself
		}
		lines = w.calculation(r)
	case planner.CondPassage:
		lines = w.passage(r)
	case planner.CondComparable:
		return nil // the periods are stated above, with any calendar difference
	}
	if len(lines) == 0 {
		if !r.Required {
			// An optional passage whose sentences all fall short of what
			// the answer quotes (a table row for a figure's statement)
			// adds nothing; nothing asked is missing.
			return nil
		}
		g := validator.Gap{RequirementID: r.ID, Issuer: r.Issuer, What: r.Need, Why: "the evidence meeting it could not be quoted", Unstated: true}
		w.gaps = append(w.gaps, g)
		return []string{notFoundLine(g)}
	}
	return lines
}

// cite returns the marker of a citation of excerpt from evidence id,
// numbering it on first use.
//
// The same words of one filing are cited once, whichever evidence item
// they are read from: a sentence a lookup read a count from and a search
// found again is one source, not two.
func (w *writer) cite(id, excerpt string) string {
	key := id + "\x00" + excerpt
	if e := w.evidence[id]; e != nil {
		key = e.DocumentID + "\x00" + excerpt
	}
	n, ok := w.citeKey[key]
	if !ok {
		n = len(w.cites) + 1
		w.citeKey[key] = n
		w.cites = append(w.cites, validator.Citation{Index: n, EvidenceID: id, Excerpt: excerpt})
	}
	return "[" + strconv.Itoa(n) + "]"
}

// citeEvidence cites a fact's evidence: its whole excerpt, a line of the
// filing showing the value.
func (w *writer) citeEvidence(e *ledger.Evidence) string {
	return w.cite(e.ID, strings.TrimSpace(e.Excerpt))
}

// figure states a tagged fact.
func (w *writer) figure(r planner.Requirement) []string {
	ids, _ := planner.Check(r, w.l, w.calcsMet, w.in.Met)
	f, e := w.pickFact(r, ids)
	if f == nil || strings.TrimSpace(e.Excerpt) == "" {
		return nil
	}
	w.stated[f.ID] = true
	label := upperFirst(metricLabel(f.Concept))
	if r.Completion.Topic != "" {
		label = upperFirst(r.Completion.Topic)
	}
	lines := []string{fmt.Sprintf("- %s, %s: %s %s %s.", label, r.Period, readableAmount(f.Value, f.Unit), factPeriodText(f.Period), w.citeEvidence(e))}
	// Sources that disagree on the figure are shown side by side.
	for _, c := range w.conflicts {
		if !slices.Contains(c.EvidenceIDs, e.ID) {
			continue
		}
		for _, other := range c.EvidenceIDs {
			if other == e.ID {
				continue
			}
			oe := w.evidence[other]
			of := w.factOf(other, f.Concept, f.Period)
			if oe == nil || of == nil || strings.TrimSpace(oe.Excerpt) == "" {
				continue
			}
			lines = append(lines, fmt.Sprintf("- The filings disagree on this figure: %s in the %s %s %s versus %s in the %s %s %s.",
				readableAmount(f.Value, f.Unit), e.Period, e.Form, w.citeEvidence(e),
				readableAmount(of.Value, of.Unit), oe.Period, oe.Form, w.citeEvidence(oe)))
		}
	}
	return lines
}

// statedAlready reports whether a figure line states the fact that meets
// fact requirement r already: a fact two requirements name (the operating
// cash flow asked, and the row a free cash flow is printed from) is
// stated once.
func (w *writer) statedAlready(r planner.Requirement, ids []string) bool {
	f, _ := w.pickFact(r, ids)
	return f != nil && w.stated[f.ID]
}

// factOf returns the fact of evidence id with the concept and period.
func (w *writer) factOf(id, concept, period string) *ledger.Fact {
	for i := range w.l.Facts {
		f := &w.l.Facts[i]
		if f.EvidenceID == id && f.Concept == concept && f.Period == period {
			return f
		}
	}
	return nil
}

// pickFact returns the fact meeting a fact requirement: of the condition's
// first concept that has one, preferably shown by the filing for the
// period itself rather than as a later filing's comparative, among the
// evidence Check found.
func (w *writer) pickFact(r planner.Requirement, ids []string) (*ledger.Fact, *ledger.Evidence) {
	c := r.Completion
	issuer := cmp.Or(c.Issuer, r.Issuer)
	period := cmp.Or(c.Period, r.Period)
	rank := map[string]int{}
	for i, concept := range c.Concepts {
		if _, ok := rank[conceptName(concept)]; !ok {
			rank[conceptName(concept)] = i
		}
	}
	allowed := map[string]bool{}
	for _, id := range ids {
		allowed[id] = true
	}
	type cand struct {
		f         *ledger.Fact
		e         *ledger.Evidence
		rank, own int
	}
	var cands []cand
	for i := range w.l.Facts {
		f := &w.l.Facts[i]
		rk, ok := rank[conceptName(f.Concept)]
		e := w.evidence[f.EvidenceID]
		if !ok || e == nil || !allowed[e.ID] || e.Ticker != issuer || !planner.FactMeets(*f, *e, c, period) {
			continue
		}
		own := 1
		if e.Period == period {
			own = 0
		}
		cands = append(cands, cand{f, e, rk, own})
	}
	if len(cands) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.own, b.own))
	})
	return cands[0].f, cands[0].e
}

// exprNamePattern matches a name in a calculate expression.
var exprNamePattern = regexp.MustCompile(`[a-z_][a-z0-9_]*`)

// calculation states a computed ratio or change with its inputs.
func (w *writer) calculation(r planner.Requirement) []string {
	calc := w.in.Calculations[r.ID]
	if calc == nil || w.calculated(calc) {
		return nil // stated once, under the requirement it came first for
	}
	var names []string
	for _, n := range exprNamePattern.FindAllString(calc.Expression, -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	inputs := map[string]*ledger.Fact{}
	scaled := true // every input is an amount of millions: shown in millions
	rates := true  // every input is a rate ("13.25 %"): shown as printed
	for _, n := range names {
		f := w.facts[calc.Inputs[n]]
		if f == nil || w.evidence[f.EvidenceID] == nil || strings.TrimSpace(w.evidence[f.EvidenceID].Excerpt) == "" {
			return nil
		}
		inputs[n] = f
		if f.Value.Abs().Cmp(oneMillion) < 0 {
			scaled = false
		}
		if !strings.EqualFold(f.Unit, "pure") || f.Value.IsInteger() {
			rates = false
		}
	}
	words := exprNamePattern.ReplaceAllStringFunc(calc.Expression, nameLabel)
	numbers := exprNamePattern.ReplaceAllStringFunc(calc.Expression, func(n string) string {
		v := inputs[n].Value
		switch {
		case scaled:
			return thousands(v.Div(oneMillion).StringFixed(0))
		case rates:
			return v.Mul(oneHundred).String() + "%"
		}
		return thousands(v.String())
	})
	if scaled {
		numbers += " (millions)"
	}
	result := readableAmount(calc.Result, inputs[names[0]].Unit)
	switch {
	case ratioDifference(calc.Expression):
		// A ratio less the ratio a year before: a move in points, from
		// the two ratios, each stated with its period ("6.8% for the
		// fiscal year ended 2023-05-31 - 12.2% for the fiscal year
		// ended 2022-05-31").
		result = calc.Result.Mul(oneHundred).StringFixed(1) + " percentage points"
		if sides := ratioSides(calc.Expression, inputs); sides != "" {
			result = sides + " = " + result
		}
	case w.perUnit(calc) != "":
		result = readableAmount(calc.Result, w.perUnit(calc))
	case strings.Contains(calc.Expression, "/"):
		result = calc.Result.Mul(oneHundred).StringFixed(1) + "%"
	case rates:
		// One rate less another: a move in points.
		result = calc.Result.Mul(oneHundred).String() + " percentage points"
	}
	var markers strings.Builder
	for _, n := range names {
		markers.WriteString(w.citeEvidence(w.evidence[inputs[n].EvidenceID]))
	}
	marks := dedupMarkers(markers.String())
	w.calcs = append(w.calcs, calc.Clone())
	line := fmt.Sprintf("- %s = %s = %s = %s %s", w.calcLabel(r), words, numbers, result, marks)
	if printed, ok := w.printed(r, calc); ok {
		line += "; the filing prints " + printed
	}
	return []string{line + "."}
}

// perUnit returns the unit of a calculation that divides an amount by a
// count a sentence states ("USD/employees"): an amount per head
// ("$897,149.32 per employee"), not a ratio; "" for any other.
func (w *writer) perUnit(calc *tools.Calculation) string {
	num, den, ok := strings.Cut(calc.Expression, " / ")
	if !ok || !exprNamePattern.MatchString(num) || exprNamePattern.FindString(num) != num || exprNamePattern.FindString(den) != den {
		return ""
	}
	a, b := w.facts[calc.Inputs[num]], w.facts[calc.Inputs[den]]
	if a == nil || b == nil || !strings.EqualFold(a.Unit, "USD") || !strings.HasPrefix(b.Concept, tools.StatedPrefix) {
		return ""
	}
	return "USD/" + den
}

// printed returns the calculation r's ratio as the filing prints it
// ("42% [6]", citing the line that prints it), where its printed
// requirement (planner.PrintedID) is met.
func (w *writer) printed(r planner.Requirement, calc *tools.Calculation) (string, bool) {
	id := planner.PrintedID(r.ID)
	if !w.in.Met[id] {
		return "", false
	}
	for _, pr := range w.reqs {
		if pr.ID != id {
			continue
		}
		ids, _ := planner.CheckPrinted(pr, w.l, calc)
		names := planner.PrintedNames(pr, w.l, calc)
		// Of the lines printing the result, the one naming most of the
		// figure's names and words ("Greater China 15,758 14,604 8%" over
		// "Percentage of total net sales 9% 8% 8% 6%" for Greater China's
		// growth), then the one first in the filing: the evidence's order
		// follows which search finished first, which is no ranking.
		type found struct {
			id, line, number string
			named, at        int
		}
		var best *found
		for _, eid := range ids {
			e := w.evidence[eid]
			if e == nil {
				continue
			}
			if line, number, ok := planner.PrintedLine(e.Excerpt, names, calc.Result); ok {
				f := found{id: e.ID, line: line, number: number, named: printedRank(line, pr.Completion.Topic, names), at: e.Start}
				if best == nil || f.named > best.named || f.named == best.named && (f.at < best.at || f.at == best.at && f.id < best.id) {
					best = &f
				}
			}
		}
		if best != nil {
			return best.number + " " + w.cite(best.id, best.line), true
		}
	}
	return "", false
}

// printedRank ranks a line printing a calculation's result by how it
// names the figure: two for each of names it holds whole (the
// requirement's names, the numerator's row label), one for each word of
// the figure's topic.
func printedRank(line, topic string, names []string) int {
	rank := wordsNamed(line, topic)
	for _, n := range names {
		if n != "" && strings.Contains(strings.ToLower(line), strings.ToLower(n)) {
			rank += 2
		}
	}
	return rank
}

// wordsNamed counts the distinct words of three letters or more of name
// that line holds, as words, ignoring case.
func wordsNamed(line, name string) int {
	n := 0
	seen := map[string]bool{}
	for _, word := range strings.Fields(strings.ToLower(name)) {
		if len(word) < 3 || seen[word] {
			continue
		}
		seen[word] = true
		if containsWord(strings.ToLower(line), word) {
			n++
		}
	}
	return n
}

func ratioSides(expr string, inputs map[string]*ledger.Fact) string {
	l, r, _ := strings.Cut(expr, ") - (")
	var out []string
	for _, side := range []string{strings.TrimPrefix(l, "("), strings.TrimSuffix(r, ")")} {
		names := exprNamePattern.FindAllString(side, -1)
		vars := map[string]decimal.Decimal{}
		for _, n := range names {
			if inputs[n] == nil {
				return ""
			}
			vars[n] = inputs[n].Value
		}
		ratio, err := tools.Evaluate(side, vars)
		if len(names) == 0 || err != nil {
			return ""
		}
		out = append(out, ratio.Mul(oneHundred).StringFixed(1)+"% "+factPeriodText(inputs[names[0]].Period))
	}
	return out[0] + " - " + out[1]
}

// ratioDifference reports whether an expression is one ratio less
// another: "(a / b) - (a_prior / b_prior)".
func ratioDifference(expr string) bool {
	l, r, ok := strings.Cut(expr, ") - (")
	return ok && strings.HasPrefix(l, "(") && strings.HasSuffix(r, ")") && strings.Contains(l, "/") && strings.Contains(r, "/")
}

// calculated reports whether the answer states calc already: the same
// expression over the same facts.
func (w *writer) calculated(calc *tools.Calculation) bool {
	return slices.ContainsFunc(w.calcs, func(c tools.Calculation) bool {
		return c.Expression == calc.Expression && maps.Equal(c.Inputs, calc.Inputs)
	})
}

// calcLabel names a calculation: "Gross margin, FY2024".
func (w *writer) calcLabel(r planner.Requirement) string {
	if r.Completion.Sign != 0 && r.Completion.Topic != "" {
		// A premise's change: "iPhone revenue change, FY2023", whose
		// inputs may be a quarter and its year-ago quarter.
		return upperFirst(r.Completion.Topic) + ", " + r.Period
	}
	switch r.Aspect {
	case "margins":
		return "Gross margin, " + r.Period
	case "revenue_growth":
		// A part's growth is named by its part ("Gaming revenue growth").
		name := "Revenue growth"
		if t := r.Completion.Topic; strings.HasSuffix(strings.ToLower(t), "growth") && !strings.EqualFold(t, "revenue growth") {
			name = upperFirst(t)
		}
		if t := r.Completion.Topic; strings.Contains(t, r.Period) {
			return upperFirst(t) // a quarter's growth names its quarters
		}
		if fy, ok := planner.FiscalYearOf(r.Period); ok {
			return fmt.Sprintf("%s, %s over %s", name, r.Period, tools.PeriodLabel(fy-1))
		}
		return name + ", " + r.Period
	}
	if r.Completion.Topic != "" && (r.Period == "" || strings.Contains(r.Completion.Topic, r.Period)) {
		// Across issuers ("Revenue difference"), or a topic that names
		// its periods ("Employees change from FY2021 to FY2022").
		return upperFirst(r.Completion.Topic)
	}
	if r.Completion.Topic != "" {
		return upperFirst(r.Completion.Topic) + ", " + r.Period
	}
	if a, ok := planner.AspectByName(r.Aspect); ok {
		return upperFirst(a.Label) + ", " + r.Period
	}
	return "Result, " + r.Period
}

// passage quotes the best sentences meeting a passage requirement: every
// sentence of the evidence Check found that meets the condition, ranked by
// the condition words it holds (ties keep Check's order, then the text's).
func (w *writer) passage(r planner.Requirement) []string {
	ids, _ := planner.Check(r, w.l, w.calcsMet, w.in.Met)
	groups := r.Completion.AllOf
	causal := planner.IsCausal(r)
	// The evidence in filing order, not in the order concurrent searches
	// happened to return it, so that equal sentences and equal scores
	// resolve the same way in every run.
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b string) int {
		ea, eb := w.evidence[a], w.evidence[b]
		if ea == nil || eb == nil {
			return cmp.Compare(a, b)
		}
		return cmp.Or(cmp.Compare(ea.DocumentID, eb.DocumentID), cmp.Compare(ea.Start, eb.Start), cmp.Compare(a, b))
	})
	type cand struct {
		sentence, id string
		score        float64
		glued        bool // a sentence and the reason after it that points back
	}
	var cands []cand
	seen := map[string]bool{}
	// A passage stating a figure the answer gives from a table states
	// that figure: a sentence with the metric's words and another number
	// is about something else.
	var stated []decimal.Decimal
	if r.Kind == planner.KindFigure {
		stated = w.figureValues(r)
	}
	count := asksCount(groups)
	describes := !causal && r.Kind != planner.KindOutlook && r.Kind != planner.KindFigure &&
		!slices.ContainsFunc(groups, func(g []string) bool { return sameSet(g, planner.DriverWords) })
	for _, id := range ids {
		e := w.evidence[id]
		if e == nil {
			continue
		}
		heads := headingsOf(e.Excerpt)
		cursor := 0
		above := "" // a heading just above, whose words the next sentence takes
		before := len(cands)
		sentences := planner.Sentences(e.Excerpt)
		for si, s := range sentences {
			// A heading is not a statement: one standing alone is not
			// quoted, and one run into the sentence below it is left out
			// of the quotation. The words of either count for the
			// sentence under it, as planner.Check counts the heading
			// ("Digital Markets Act Investigations", then "On March 25,
			// 2024, the Commission ...").
			whole := above + "\n" + s
			if s = dropHeadings(s); heading(s) {
				above = s
				continue
			}
			above = ""
			at := -1
			if i := strings.Index(e.Excerpt[cursor:], s); i >= 0 {
				at = cursor + i
				cursor = at
			}
			if _, ok := planner.SentenceMatch(whole, groups); !ok || strings.TrimSpace(s) == "" {
				continue
			}
			if causal && !planner.Linked(s, groups) {
				continue
			}
			// A table row gives no reason and no expectation; it may only
			// state a figure.
			if r.Kind != planner.KindFigure && tableRow(s) {
				continue
			}
			if len(stated) > 0 && (tableRow(s) || !statesValue(s, stated)) {
				continue
			}
			// A reason the next sentence goes on with
			// ("... It also increased due to the reduction in our foreign
			// derived intangible income benefit in 2020.") is quoted with
			// it, as the filing writes the two. So is the reason a
			// sentence that names the move but gives none is followed by
			// ("General and administrative expenses in 2024 decreased
			// $1.67 billion ... The decrease was mostly driven by ..."),
			// ranked as the sentence that meets the condition.
			ranked := ""
			if r.Kind == planner.KindExplanation && at >= 0 && si+1 < len(sentences) && givesReason(sentences[si+1]) {
				next := sentences[si+1]
				glue := continues.MatchString(next)
				_, reasoned := planner.SentenceMatch(s, [][]string{planner.ReasonWords})
				if !glue && !reasoned && pointsBack.MatchString(strings.TrimSpace(next)) {
					glue, ranked = true, s
				}
				// A reason the next sentence explains in turn ("...
				// driven by an increase in RL costs and expenses. RL costs
				// and expenses increased primarily due to increases in
				// employee compensation ..."): the two are one account.
				glue = glue || reasoned && explainsReason(s, next)
				if j := strings.Index(e.Excerpt[at+len(s):], next); glue && j >= 0 && strings.TrimSpace(e.Excerpt[at+len(s):at+len(s)+j]) == "" {
					s = e.Excerpt[at : at+len(s)+j+len(next)]
				}
			}
			key := validator.Normalize(s)
			if seen[key] {
				continue
			}
			seen[key] = true
			score := w.rank(cmp.Or(ranked, s), e, r)
			// A sentence under a heading that names what the question asks
			// ("Competition") is the filing's own account of it. (Reasons
			// and expectations are told under headings of figures, which
			// name every sentence's topic alike.)
			if h := headingBefore(heads, at); describes && h != "" && w.rel.Score(h) > 0 {
				score += 2
			}
			// A figure asked by a name of several words ("International
			// net sales") is best stated by a sentence that writes the name
			// whole (or its plural: "average prices"), not one holding its
			// words apart.
			if t := r.Completion.Topic; r.Kind == planner.KindFigure && strings.Contains(t, " ") && namesAny(s, []string{t, t + "s", t + "es"}) {
				score += 2
			}
			// A figure the catalogue does not hold, read from prose, is best
			// stated by a sentence that names the period asked ("In 2022,
			// we generated $74 billion in GMV"), not by a row cut from the
			// header that names its period. (A catalogue figure's statement
			// sits beside the figure itself, whose period the answer gives.)
			if r.Kind == planner.KindFigure && r.Aspect == "figures" || count {
				if y := strings.TrimPrefix(r.Period, "FY"); len(y) == 4 && !tableRow(s) && containsWord(s, y) {
					score += 1.5
				}
			}
			// An explanation of the year asked, over one of the years
			// before it the same filing also explains ("increased in
			// 2019 compared to 2018" for a question on 2020).
			if r.Kind == planner.KindExplanation && asksWhy(groups) && questionYear.MatchString(s) {
				if y := strings.TrimPrefix(r.Period, "FY"); len(y) == 4 {
					if containsWord(s, y) {
						score += 1.5
					} else {
						score -= 1.5
					}
				}
			}
			cands = append(cands, cand{s, id, score, ranked != ""})
		}
		// No one sentence states the figure with its subject: a run of
		// sentences of one paragraph may, whose last states the figure
		// and points back to the one naming its subject ("... agreed to
		// sell our storage business. [...] The transaction will occur in
		// two closings for total consideration of $9.0 billion"), as
		// planner.Check reads it.
		if len(cands) == before && asksFigure(groups) {
			if run, ok := planner.SentenceMatch(e.Excerpt, groups); ok && len(planner.Sentences(run)) > 1 {
				run = dropHeadings(run)
				key := validator.Normalize(run)
				if !seen[key] && (len(stated) == 0 || statesValue(run, stated)) {
					seen[key] = true
					cands = append(cands, cand{run, id, w.rank(run, e, r) - 1, false})
				}
			}
		}
	}
	// Whole sentences first: a passage that starts mid-sentence yields a
	// fragment, quoted only when no whole sentence holds the words. Between
	// equal scores the shorter sentence wins, as in planner.Check, then the
	// one earlier in the filing.
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(fragment(a.sentence), fragment(b.sentence)), cmp.Compare(b.score, a.score),
			cmp.Compare(len(a.sentence), len(b.sentence)))
	})
	// The cap is on explanations, outlook and risks together; passages
	// stating a figure count apart.
	topic := r.Issuer + "\x00" + r.Aspect
	if r.Kind == planner.KindFigure {
		topic += "\x00figure"
	}
	room := min(w.maxQuotes, maxQuotesPerTopic-w.topicQuotes[topic])
	var chosen, later []cand
	subjects := map[string]bool{}
	for _, c := range cands {
		if len(chosen) >= room || (len(chosen) > 0 && fragment(c.sentence) == 1) {
			break
		}
		// The reason chosen already, with the sentence before it that
		// names what moved: quoted whole in its place.
		if k := slices.IndexFunc(chosen, func(o cand) bool {
			return c.glued && strings.Contains(strings.ToLower(validator.Normalize(c.sentence)), strings.ToLower(validator.Normalize(o.sentence)))
		}); k >= 0 {
			chosen[k].sentence, chosen[k].id = c.sentence, c.id
			continue
		}
		// A further quotation earns its place: one scoring less than half
		// the best one's holds the condition's words by chance ("A
		// decision from the ECJ is expected in calendar year 2024" under
		// an expectation about deferred revenue).
		if len(chosen) > 0 && chosen[0].score > 0 && c.score < chosen[0].score/2 {
			continue
		}
		// The same holds against the best sentence when another
		// requirement quoted it already: what is left is the topic's words
		// by chance, and the answer points to the quotation above instead.
		if len(chosen) == 0 && len(cands) > 0 && cands[0].score > 0 && c.score < cands[0].score/2 {
			continue
		}
		// A count asked (of employees, of members) is stated by the first
		// sentence; a further one earns its place only by stating the same
		// count, since another number in it counts something else ("Over
		// 240,000 Amazon employees ... have participated in Career Choice"
		// after the headcount).
		if len(chosen) > 0 && count && !sharesCount(chosen[0].sentence, c.sentence) {
			continue
		}
		// Overlapping passages give the same sentence whole and cut short;
		// a sentence quoted for another requirement is not quoted again.
		n := strings.ToLower(validator.Normalize(c.sentence))
		if slices.ContainsFunc(chosen, func(o cand) bool {
			m := strings.ToLower(validator.Normalize(o.sentence))
			return strings.Contains(m, n) || strings.Contains(n, m)
		}) || w.quotedWithin(n) {
			continue
		}
		// Quotations about different things before a second one about
		// the same ("Services gross margin ..." twice): a sentence whose
		// subject is already quoted waits until the others are taken.
		if k := subjectKey(c.sentence); k != "" {
			if subjects[k] {
				later = append(later, c)
				continue
			}
			subjects[k] = true
		}
		chosen = append(chosen, c)
	}
	for _, c := range later {
		if len(chosen) >= room {
			break
		}
		chosen = append(chosen, c)
	}
	for _, c := range chosen {
		w.quoted[strings.ToLower(validator.Normalize(c.sentence))] = true
	}
	w.topicQuotes[topic] += len(chosen)
	if len(chosen) == 0 && len(cands) > 0 {
		// Every sentence meeting it is quoted above already (or the
		// topic's quotations are spent): point to the best one.
		for _, c := range cands {
			if w.quotedWithin(strings.ToLower(validator.Normalize(c.sentence))) {
				return []string{"- " + w.passageLabel(r) + ": the sentence quoted above " + w.cite(c.id, strings.TrimSpace(c.sentence)) + "."}
			}
		}
		chosen = cands[:1]
		w.quoted[strings.ToLower(validator.Normalize(cands[0].sentence))] = true
	}
	cands = chosen
	if len(cands) == 0 {
		return nil
	}
	// A quoted sentence that points back to the one the filing writes
	// just before it, also quoted ("The increase in operating income was
	// primarily driven by ..." after "Google Cloud operating income
	// increased $4.4 billion from 2023 to 2024."), is quoted with it, in
	// the filing's order, as one quotation: alone it does not say what
	// increased.
	for i := 0; i < len(cands); i++ {
		for j := i + 1; j < len(cands); j++ {
			if run, id, ok := w.adjacent(cands[i].id, cands[i].sentence, cands[j].id, cands[j].sentence); ok {
				cands[i].sentence, cands[i].id = run, id
				cands = slices.Delete(cands, j, j+1)
				j = i
			}
		}
	}
	quotes := make([]string, len(cands))
	expected := true
	for i, c := range cands {
		quotes[i] = quoteText(c.sentence) + " " + w.cite(c.id, strings.TrimSpace(c.sentence))
		_, ok := planner.SentenceMatch(c.sentence, [][]string{{planner.ExpectedTerm}})
		expected = expected && ok
	}
	label := w.passageLabel(r)
	if ahead := w.yearAhead(r.Period); r.Kind == planner.KindFigure && ahead > 0 && expected {
		// A figure stated as what is expected for a later year the
		// question names ("Net sales are expected to be between $121.0
		// billion and $126.0 billion" in the 2022 report) is that year's,
		// read from the earlier filing.
		label = fmt.Sprintf("%s for %d, from the %s filing, as the filing expects it (forward-looking, quoted as written)",
			upperFirst(asWritten(r.Completion.Topic, w.in.Question)), ahead, r.Period)
	}
	return []string{"- " + label + ": " + strings.Join(quotes, " ")}
}

// adjacent returns the run of the filing that holds sentences a and b one
// right after the other, in either order with only white space between,
// the second pointing back to the first (pointsBack), and the evidence
// (ida or idb) whose excerpt holds the run whole.
func (w *writer) adjacent(ida, a, idb, b string) (string, string, bool) {
	for _, id := range []string{ida, idb} {
		e := w.evidence[id]
		if e == nil {
			continue
		}
		for _, pair := range [][2]string{{a, b}, {b, a}} {
			first, second := strings.TrimSpace(pair[0]), strings.TrimSpace(pair[1])
			if first == "" || !pointsBack.MatchString(second) {
				continue
			}
			for from := 0; ; {
				i := strings.Index(e.Excerpt[from:], first)
				if i < 0 {
					break
				}
				start := from + i
				end := start + len(first)
				rest := e.Excerpt[end:]
				gap := len(rest) - len(strings.TrimLeft(rest, " \t\r\n"))
				if gap > 0 && strings.HasPrefix(rest[gap:], second) {
					return e.Excerpt[start : end+gap+len(second)], id, true
				}
				from = end
			}
		}
	}
	return "", "", false
}

// pointsBack matches a sentence whose subject is the one before it: a
// pronoun, or a change named with a demonstrative ("The increase in
// operating income was ...", "This decrease was driven by ...").
var pointsBack = regexp.MustCompile(`^(?:(?:It|They|These|This|That|Those|Such)\b|The\s+(?:\w+\s+)?(?:increase|decrease|decline|growth|change|improvement|reduction|rise|drop)s?\b)`)

// continues matches a sentence that goes on with the one before it: "It
// also increased due to ...", "This was also driven by ...", "In addition,
// ...".
var continues = regexp.MustCompile(`^\s*(?:(?:It|They|This|These|That)\s+(?:was\s+|were\s+|is\s+|are\s+)?also\b|Also,|In\s+addition,|Additionally,)`)

// explainsReason reports whether next explains what s gives as its reason:
// next opens with the move of a thing s names after its reason's words.
func explainsReason(s, next string) bool {
	m := reasonSubject.FindStringSubmatch(strings.TrimSpace(next))
	if m == nil || len(strings.Fields(m[1])) < 2 {
		return false
	}
	at := reasonOpens.FindStringIndex(s)
	return at != nil && strings.Contains(strings.ToLower(s[at[1]:]), strings.ToLower(m[1]))
}

// reasonSubject matches a sentence opening with what moved and its verb
// of moving ("RL costs and expenses increased"); reasonOpens finds where a
// sentence starts giving its reason.
var (
	reasonSubject = regexp.MustCompile(`^([A-Za-z][\w&,' -]{2,80}?)\s+(?:increased|decreased|rose|fell|grew|declined)\b`)
	reasonOpens   = regexp.MustCompile(`(?i)\b(?:driven\s+by|due\s+to|primarily\s+by|as\s+a\s+result\s+of|reflect(?:s|ed|ing)?)\b`)
)

// givesReason reports whether a sentence gives a reason (a driver word:
// "due to", "driven by", "primarily").
func givesReason(s string) bool {
	_, ok := planner.SentenceMatch(s, [][]string{planner.DriverWords})
	return ok
}

// figureValues returns the values of the met figures of r's issuer,
// period and aspect that the answer states from a fact.
func (w *writer) figureValues(r planner.Requirement) []decimal.Decimal {
	var out []decimal.Decimal
	for _, q := range w.reqs {
		if q.ID == r.ID || q.Issuer != r.Issuer || q.Period != r.Period || q.Aspect != r.Aspect || q.Completion.Kind != planner.CondFact {
			continue
		}
		// Figures asked one by one ("membership fee revenue and renewal
		// rate") are each their own: a sentence stating one need not state
		// another.
		if r.Aspect == "figures" && q.Completion.Topic != r.Completion.Topic {
			continue
		}
		ids, _ := planner.Check(q, w.l, w.calcsMet, w.in.Met)
		if f, _ := w.pickFact(q, ids); f != nil {
			out = append(out, f.Value)
		}
	}
	return out
}

// statesValue reports whether sentence s states one of values: a number of
// it that, read at its scale, rounds to the value at the precision it is
// printed with ("$514.0 billion" and "513,983" both state
// 513,983,000,000).
func statesValue(s string, values []decimal.Decimal) bool {
	for _, loc := range numberPattern.FindAllStringIndex(s, -1) {
		m := s[loc[0]:loc[1]]
		n, err := decimal.NewFromString(strings.ReplaceAll(m, ",", ""))
		if err != nil || n.IsZero() {
			continue
		}
		// The scale a number is read at: the one its word names ("$9.8
		// billion"); else, for a number of three digits or more as tables
		// print them, units, thousands or millions. A small bare number
		// or a percentage states no amount.
		after := strings.ToLower(strings.TrimLeft(s[loc[1]:], " "))
		var scales []int32
		switch {
		case strings.HasPrefix(after, "%") || strings.HasPrefix(after, "percent"):
		case strings.HasPrefix(after, "billion"):
			scales = []int32{9}
		case strings.HasPrefix(after, "million"):
			scales = []int32{6}
		case strings.HasPrefix(after, "thousand"):
			scales = []int32{3}
		case len(strings.Trim(strings.ReplaceAll(strings.Split(m, ".")[0], ",", ""), "0")) >= 3:
			scales = []int32{0, 3, 6}
		}
		half := decimal.New(5, -1-decimalPlaces(m))
		for _, scale := range scales {
			unit := decimal.New(1, scale)
			for _, v := range values {
				if n.Mul(unit).Sub(v.Abs()).Abs().LessThanOrEqual(half.Mul(unit)) {
					return true
				}
			}
		}
	}
	return false
}

// subjectKey names what a sentence is about by its first two words
// after an article or pronoun ("services gross" for "Services gross
// margin increased ..."); "" when it has fewer.
func subjectKey(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		if len(words) == 0 && subjectSkip[w] {
			continue
		}
		words = append(words, w)
		if len(words) == 2 {
			return words[0] + " " + words[1]
		}
	}
	return ""
}

// subjectSkip are the words a sentence may open with before its subject.
var subjectSkip = map[string]bool{"the": true, "a": true, "an": true, "our": true, "we": true, "in": true,
	"for": true, "during": true, "this": true, "these": true, "its": true, "their": true, "as": true}

// headingLine is a heading of an excerpt and where it starts.
type headingLine struct {
	at   int
	text string
}

// headingsOf returns the heading lines of an excerpt, in order.
func headingsOf(excerpt string) []headingLine {
	var out []headingLine
	at := 0
	for line := range strings.SplitSeq(excerpt, "\n") {
		if heading(line) {
			out = append(out, headingLine{at, strings.TrimSpace(line)})
		}
		at += len(line) + 1
	}
	return out
}

// headingBefore returns the last heading of heads that starts before at,
// or "" (also for at < 0, a sentence not found in its excerpt).
func headingBefore(heads []headingLine, at int) string {
	h := ""
	for _, l := range heads {
		if at < 0 || l.at >= at {
			break
		}
		h = l.text
	}
	return h
}

// dropHeadings returns s without the heading lines it starts with
// ("Competition\nThe market for ... is intensely competitive.").
func dropHeadings(s string) string {
	for {
		first, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(rest) == "" || !heading(first) {
			return s
		}
		// A line the next continues in lower case ("For the fiscal
		// year\nending January 31, 2023, we project ...") opens the
		// sentence; it heads nothing.
		if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, "\n ")); unicode.IsLower(r) {
			return s
		}
		s = strings.TrimLeft(rest, "\n ")
	}
}

// heading reports whether a line reads as a heading rather than a
// sentence: a few words with no closing punctuation, no amount and no
// table cells (a table's row is evidence of its figures). A date is no
// amount: "Year Ended December 31," is a heading.
func heading(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" || strings.Contains(line, " | ") || strings.ContainsRune(line, '\n') || holdsAmount.MatchString(line) {
		return false
	}
	// A short lead-in ending in a colon ("Net Sales Mix:") heads what
	// follows; a longer one is a sentence introducing a list.
	if strings.HasSuffix(line, ":") {
		return len(strings.Fields(line)) <= 5
	}
	if strings.ContainsAny(line[len(line)-1:], ".;?!)”\"") {
		return false
	}
	return len(strings.Fields(line)) <= 12
}

// holdsAmount matches an amount as a row prints it: a currency sign, a
// percentage, or a number of three digits or more.
var holdsAmount = regexp.MustCompile(`[$€£%]|\d[\d,.]*\d{2}`)

// identity reports whether a calculation's expression is one figure
// itself (a premise on its sign): nothing to show beyond the figure.
func identity(expr string) bool {
	return exprNamePattern.FindString(strings.TrimSpace(expr)) == strings.TrimSpace(expr)
}

// asksFigure reports whether condition groups ask for a figure: a group
// matching a number other than an expected one.
func asksFigure(groups [][]string) bool {
	return slices.ContainsFunc(groups, func(g []string) bool {
		return slices.ContainsFunc(g, func(t string) bool { return planner.IsNumberTerm(t) && t != planner.ExpectedTerm })
	})
}

// tableRow reports whether s is a row of a table rather than a sentence:
// cells set apart by bars, or mostly numbers.
func tableRow(s string) bool {
	if strings.Contains(s, " | ") {
		return true
	}
	words := strings.Fields(s)
	numbers := 0
	for _, w := range words {
		if strings.Trim(w, "$%()-—–,.") == "" || strings.IndexFunc(w, unicode.IsLetter) < 0 {
			numbers++
		}
	}
	// Rows of a converted table run together ("Foreign currency –
	// Revenue 10% decrease in foreign exchange rates $ (6,822) Earnings
	// Foreign currency – Investments ...") hold figures but end as no
	// sentence does. A closing bracket or quote is looked behind:
	// "(see Note 5.)" ends a sentence, "(181)" a row.
	if numbers >= 3 && !strings.ContainsAny(lastRune(strings.TrimRight(s, " \n)\"”’")), ".?!:;") {
		return true
	}
	return numbers >= 3 && 10*numbers >= 4*len(words)
}

// lastRune returns the last character of s, "" for an empty one.
func lastRune(s string) string {
	r, n := utf8.DecodeLastRuneInString(s)
	if n == 0 {
		return ""
	}
	return string(r)
}

// numberPattern matches a number as filings print it: 513,983 or 514.0.
var numberPattern = regexp.MustCompile(`\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?`)

// decimalPlaces is the number of digits after a printed number's point.
func decimalPlaces(m string) int32 {
	if i := strings.IndexByte(m, '.'); i >= 0 {
		return int32(len(m) - i - 1)
	}
	return 0
}

// passageLabel introduces the quotations of a passage requirement.
func (w *writer) passageLabel(r planner.Requirement) string {
	topic := r.Completion.Topic
	if a, ok := planner.AspectByName(r.Aspect); ok && a.Name != "general" {
		topic = a.Label
	}
	if topic == "" {
		topic = "the question"
	}
	switch {
	case w.isCausal(r):
		cause, effect := w.causeEffect(r)
		return fmt.Sprintf("Sentences of the %s filing that mention %s and %s together (quoted as written)", r.Period, cause, effect)
	case r.Kind == planner.KindFigure:
		return fmt.Sprintf("%s, %s, as the filing states it", upperFirst(asWritten(topic, w.in.Question)), r.Period)
	case r.Aspect != "general" && slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Equal(g, []string{planner.CountTerm}) }):
		// "How many employees": a number asked of a topic, stated in a
		// sentence.
		return fmt.Sprintf("%s, %s, as the filing states it", upperFirst(topic), r.Period)
	case r.Kind == planner.KindOutlook:
		on := ""
		if topic != "outlook" && topic != "the question" {
			on = " on " + topic
		}
		// Guidance for a year after the filing's, as the question asks it
		// ("Q1 2025 net sales" from the FY2024 10-K), is named by that
		// year, and the filing it is read from by its own.
		if ahead := w.yearAhead(r.Period); ahead > 0 {
			return fmt.Sprintf("Outlook%s for %d, from the %s filing, in management's words (forward-looking statements, quoted as written)", on, ahead, r.Period)
		}
		return fmt.Sprintf("Outlook%s, %s, in management's words (forward-looking statements, quoted as written)", on, r.Period)
	case r.Kind == planner.KindRisk:
		if strings.Contains(topic, "risk") {
			return fmt.Sprintf("Risk factors, %s", r.Period)
		}
		return fmt.Sprintf("Risk factors on %s, %s", topic, r.Period)
	case slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return sameSet(g, planner.DriverWords) }):
		return fmt.Sprintf("Management's explanation of %s, %s", topic, r.Period)
	case r.Aspect == "general":
		return fmt.Sprintf("What the %s filing says", r.Period)
	}
	return fmt.Sprintf("What the %s filing says about %s", r.Period, topic)
}

// isCausal reports whether r is the requirement that one sentence link a
// question's cause to its effect.
func (w *writer) isCausal(r planner.Requirement) bool {
	if planner.IsCausal(r) {
		return true
	}
	c := w.in.Route.Causal
	if c == nil || r.Completion.Kind != planner.CondPassage || len(r.Completion.AllOf) != 2 {
		return false
	}
	return sameSet(r.Completion.AllOf[0], c.Cause) && sameSet(r.Completion.AllOf[1], c.Effect)
}

// causeEffect names a causal requirement's cause and effect.
func (w *writer) causeEffect(r planner.Requirement) (cause, effect string) {
	label := func(aspects, words []string) string {
		var out []string
		for _, n := range aspects {
			if a, ok := planner.AspectByName(n); ok {
				out = append(out, a.Label)
			}
		}
		if len(out) == 0 && len(words) > 0 {
			out = append(out, words[0])
		}
		return andList(out)
	}
	if c := w.in.Route.Causal; c != nil {
		cause, effect = label(c.CauseAspects, c.Cause), label(c.EffectAspects, c.Effect)
		if len(c.CauseWords) > 0 {
			cause = strings.Join(c.CauseWords, " ")
		}
	}
	if cause == "" && len(r.Completion.AllOf) > 0 && len(r.Completion.AllOf[0]) > 0 {
		cause = r.Completion.AllOf[0][0]
	}
	if effect == "" && len(r.Completion.AllOf) > 1 && len(r.Completion.AllOf[1]) > 0 {
		effect = r.Completion.AllOf[1][0]
	}
	return cmp.Or(cause, "the cause"), cmp.Or(effect, "the effect")
}

// causalUnmet says plainly that no sentence links cause and effect. It
// cites nothing: separate mentions are not evidence of a link.
func (w *writer) causalUnmet(r planner.Requirement) string {
	cause, effect := w.causeEffect(r)
	verb := "affected"
	q := strings.ToLower(w.in.Question)
	switch {
	case strings.Contains(q, "improv"):
		verb = "improved"
	case strings.Contains(q, "drove") || strings.Contains(q, "drive") || strings.Contains(q, "driving"):
		verb = "drove"
	case strings.Contains(q, "hurt"):
		verb = "hurt"
	}
	where := ""
	if r.Issuer != "" {
		where = " at " + w.company(r.Issuer)
		if r.Period != "" {
			where += " in " + r.Period
		}
	}
	return fmt.Sprintf("- The filings do not state that %s %s %s%s; mentions of the two in separate passages do not establish a link.", cause, verb, effect, where)
}

// notFoundLine is the line of one gap.
func notFoundLine(g validator.Gap) string {
	what := strings.TrimRight(unmarked(g.What), ". ")
	why := strings.TrimRight(unmarked(g.Why), ". ")
	if what == "" {
		what = "evidence for requirement " + g.RequirementID
	}
	if why == "" {
		return "- Not found: " + what + "."
	}
	return "- Not found: " + what + " (" + why + ")."
}

// unmarked keeps text the answer shows from reading as markers.
func unmarked(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "\n", " ").Replace(s)
}

// quoteText is how a quoted sentence is shown: the filing's bytes, curly
// quotes, dashes and all, with each run of white space (a line break of a
// converted filing's layout) as one space, and wrapped in quotation marks
// that cannot be mistaken for the sentence's own: straight ones, or curly
// ones when the sentence holds a straight one (and no curly one; with both,
// its straight marks become single ones). A bracketed number, which
// would read as a citation marker, is the only other change: its brackets
// become parentheses. The sentence is never shortened; the citation's
// excerpt is the sentence exactly as the evidence holds it.
func quoteText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if bracketNumber.MatchString(s) {
		s = bracketNumber.ReplaceAllString(s, "($1)")
	}
	if strings.Contains(s, "\"") {
		if !strings.ContainsAny(s, "“”") {
			return "“" + s + "”"
		}
		// Both kinds: the straight marks become single ones, so that the
		// quotation still reads as one.
		s = strings.ReplaceAll(s, "\"", "'")
	}
	return "\"" + s + "\""
}

// bracketNumber is a bracketed number in quoted text.
var bracketNumber = regexp.MustCompile(`\[(\d+)\]`)

// fragment is 1 when a sentence starts in lower case: the tail of a
// sentence cut at a passage's start. A first word with a capital inside
// it is a name written so ("iPad net sales decreased", "eBay's"), which
// opens a sentence as it is.
func fragment(s string) int {
	s = strings.TrimSpace(s)
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return 0
	}
	first, _, _ := strings.Cut(s, " ")
	if strings.IndexFunc(first, unicode.IsUpper) > 0 {
		return 0
	}
	return 1
}

// countTerms counts the condition words a sentence holds, for ranking.
// frontMatter is the rank a sentence loses for standing before a filing's
// first item, on its first pages: the cover page, the table of contents and
// the forward-looking-statements notice, whose sentences are much the same
// in every issuer's filing and say nothing specific to the point asked.
func frontMatter(e *ledger.Evidence) int {
	if e.Section == "" && e.Page > 0 && e.Page <= 5 {
		return 3
	}
	return 0
}

// namesQuarter and namesMonthsToDate tell a sentence about a quarter from
// one about the months of the year to date.
var (
	namesQuarter      = regexp.MustCompile(`(?i)\b(quarter|three months)\b`)
	namesMonthsToDate = regexp.MustCompile(`(?i)\b(six|nine) months\b|\b(first|1st) half\b|\byear[- ]to[- ]date\b`)
)

// mainCause and addedCause tell the cause a filing puts first from one it
// adds to another.
var (
	mainCause  = regexp.MustCompile(`(?i)\b(primarily|mainly|largely|principally|predominantly|chiefly|in large part|for the most part)\b`)
	addedCause = regexp.MustCompile(`(?i)\b(also|additionally|to a lesser extent|in addition|partially|partly)\b`)
)

// rank orders the sentences meeting a passage condition: the condition's
// words it holds (at most four count), plus its relevance to the question
// itself (the share of the question's own words it holds, each weighted by
// how rare it is in filings: six points for all of them), less what of it
// is boilerplate (a shape many issuers' filings share: up to four points)
// and a front-matter penalty; a sentence that gives the reason for the
// topic (planner.Explains) gains three points for an explanation; r is the
// requirement the sentence is ranked for, whose condition the groups are.
func (w *writer) rank(s string, e *ledger.Evidence, r planner.Requirement) float64 {
	groups := r.Completion.AllOf
	if w.rel == nil {
		w.rel = planner.NewRelevance(w.in.Question, w.in.Catalog, w.in.Route.Issuers)
	}
	score := float64(min(countTerms(s, groups), 4)) + 6*w.rel.Score(s) - 4*w.rel.Boilerplate(s) - float64(frontMatter(e))
	// A line that opens with an amount is a row of a converted table (a
	// bridge of the year's changes: "(1,360) Lower gross margin from
	// adjacent businesses primarily due to ..."), whose year its header
	// gives, not management's sentence.
	if opensWithAmount.MatchString(s) {
		score -= 2
	}
	// Text laid out in columns (a slide-like page converted to text) runs
	// phrases of different columns into one "sentence": "Strong demand in
	// notebook PCs Higher gross margin dollars driven Higher ...".
	if columnRuns(s) >= 3 {
		score -= 3
	}
	// A sentence ending in a colon introduces a list it does not hold
	// ("... will continue to increase due to:"): quoted alone it says
	// nothing of what it leads to, unless it states a number itself ("At
	// August 28, 2022, we operated 838 membership warehouses:").
	if strings.HasSuffix(strings.TrimSpace(s), ":") && !statesNumber.MatchString(questionYear.ReplaceAllString(s, "")) {
		score -= 1.5
	}
	// A sentence that runs on (a list of every factor) gathers the
	// question's words by its length; past forty words it reads worse.
	if n := len(strings.Fields(s)); n > 40 {
		score -= float64(n-40) / 40
	}
	// What management expects is stated with a view ("the Company
	// believes ... gross margins will be subject to volatility"), not by a
	// sentence that names what could move the figure.
	if r.Kind == planner.KindOutlook || len(groups) > 1 && sameSet(groups[len(groups)-1], planner.OutlookWords) {
		if holdsView.MatchString(s) {
			score += 2
		}
		// Asked whether something will keep moving one way ("expect
		// Reality Labs losses to keep growing?"), the expectation that
		// names that way ("expect our RL operating losses to increase")
		// answers it, over one that something will merely go on.
		if d := planner.ExpectedDirection(w.in.Question); d != 0 && planner.Direction(s) == d {
			score += 1.5
		}
		// Guidance for the year the question names ("2025 capex
		// guide": "capital expenditures of approximately $60 billion
		// to $65 billion in 2025").
		for _, n := range w.questionYears() {
			if y := strconv.Itoa(n); strings.Contains(s, y) {
				score += 2
				// A year after the filing's own is the period the
				// guidance is for; an amount put to it is guidance.
				if fy, ok := planner.FiscalYearOf(e.Period); ok && n > fy {
					score++
					if planner.StatesAmount(s) {
						score++
					}
				}
				break
			}
		}
		// Guidance asked as a number ("what did Amazon guide for net
		// sales") is a sentence that gives one: "Net sales are expected
		// to be between $151.0 billion and $155.5 billion".
		if (w.in.Route.AsksFigure || planner.AsksGuidance.MatchString(w.in.Question)) && planner.StatesAmount(s) {
			score += 2
		}
		// The notes' estimates ("forecasts of future cash flows are based
		// on our best estimate of future net sales") are accounting, not
		// what management expects.
		if e.Section == "Item 8" || strings.HasPrefix(e.Form, "10-Q") && e.Section == "Item 1" {
			score -= 2
		}
	}
	// A quarter asked is explained by what the filing says of the
	// quarter ("during the third quarter of 2025"), not of the months to
	// date ("during the first nine months").
	if w.in.Route.Quarterly {
		switch {
		case namesQuarter.MatchString(s):
			score += 1.5
		case namesMonthsToDate.MatchString(s):
			score -= 1.5
		}
	}
	explaining := asksWhy(groups)
	// Risk factors say what may move a figure, never what moved it in the
	// period ("Our revenue growth may not be sustainable").
	if explaining && e.Section == "Item 1A" {
		score -= 3
	}
	// An explanation is best met by a sentence about the topic that gives
	// its reason, not one naming the topic inside another's reason.
	if explaining && planner.Explains(s, groups[0]) {
		score += 3
		// What moved the figure in the period, over what may move it:
		// "increased during 2024 due to" before "are subject to
		// volatility due to a variety of factors".
		if reportsChange.MatchString(s) {
			score += 2
			// The more so a sentence that gives the move in numbers
			// ("Net revenues decreased 6% to $9.8 billion primarily due
			// to"), over one that explains it against another figure
			// ("decreased at a lower rate than GMV").
			if reportsChangeBy.MatchString(s) {
				score += 0.5
			}
		}
		if hedged.MatchString(s) {
			score -= 2
		}
		// The main cause before one added to it: "decreased 65 basis
		// points, driven primarily by" over "was also negatively
		// impacted by one basis point".
		switch {
		case mainCause.MatchString(s):
			score++
		case addedCause.MatchString(s):
			score--
		}

		// A question about what held the figure back is answered by what
		// offset or reduced it, not by what lifted it.
		if w.restraint() && restraining.MatchString(s) {
			score += 2
		}
		// The more so when what the sentence explains is the part of the
		// business the question names ("Services net sales increased ...
		// due to"), not a whole whose growth the part explains.
		// A sentence that does not name the part but follows one that does
		// ("Google Cloud operating income increased $4.4 billion. The
		// increase in operating income was primarily driven by ...")
		// explains it too.
		// A sentence about another part ("North America operating income"
		// for a question on AWS) explains the wrong thing.
		if subject := w.subjectTerms(e.Ticker); len(subject) > 0 {
			switch {
			case planner.Explains(s, subject) || namesAny(sentenceBefore(e.Excerpt, s), subject):
				score += 3
			case !namesAny(s, subject) && namesAny(s, w.otherParts(e.Ticker, subject)):
				score -= 3
			}
		} else if planner.Explains(s, withAmpersands(w.otherParts(e.Ticker, nil))) {
			// A question about the whole ("why did NVIDIA's gross margin
			// fall") is not answered by what moved a part's figure ("The
			// gross margin of our Compute & Networking segment decreased
			// ... due to"), ahead of what moved the company's.
			score -= 3
		}
	}
	return score
}

// statesNumber matches a quantity in a sentence (its years taken out): a
// number of three digits or more, a percentage or a dollar amount, not a
// day of a date ("as of June 30, 2022:").
var statesNumber = regexp.MustCompile(`\d{3,}|\d\s*%|\$\s*\d`)

// columnRuns counts the places where a capitalised word follows a
// lower-case content word with no punctuation between, as when two columns
// of a slide-like page are read across: "notebook PCs Higher gross margin
// dollars driven Higher ... lower Working capital". A name in a sentence
// mostly follows a function word ("in Japan", "our Data Center Group",
// "from Google Cloud"), which does not count; so only several runs make a
// sentence suspect.
func columnRuns(s string) int {
	n := 0
	f := strings.Fields(s)
	for i := 1; i < len(f); i++ {
		prev, w := f[i-1], f[i]
		last, _ := utf8.DecodeLastRuneInString(prev)
		head, _ := utf8.DecodeRuneInString(prev)
		first, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(head) && unicode.IsLetter(last) && unicode.IsUpper(first) && !functionWords[strings.ToLower(prev)] {
			n++
		}
	}
	return n
}

// functionWords are the words a name in running text usually follows.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("the a an our its their his her this that these those of in on at by to for from with and or as than into over under about including include includes including such like via per between across within named called versus vs") {
		functionWords[w] = true
	}
}

// reportsChange matches a sentence that reports a change that happened.
var reportsChange = regexp.MustCompile(`(?i)\b(` + changedVerbs + `)\b`)

// changedVerbs are the verbs a filing reports a figure's move with.
const changedVerbs = `increased|decreased|rose|fell|grew|declined|improved|dropped|expanded|contracted|narrowed|widened`

// reportsChangeBy matches a change stated with its size: "decreased 6%",
// "increased $10.1 billion", "rose 65 basis points".
var reportsChangeBy = regexp.MustCompile(`(?i)\b(` + changedVerbs + `)\s+(?:by\s+)?(?:\$\s?\d|\d+(?:\.\d+)?\s?(?:%|percent|basis points|percentage points))`)

// restraining matches a sentence that names what offset or reduced a
// figure.
var restraining = regexp.MustCompile(`(?i)\b(offset|decrease|decreases|decreased|declines?|declined|lower|headwinds?|unfavorabl[ey]|reduced|reduction|weaker|negatively|hurt|divestitures?)\b`)

// asksWhy reports whether a passage condition asks why a figure moved:
// its last group is the words of a reason (planner.DriverWords).
func asksWhy(groups [][]string) bool {
	return len(groups) > 1 && sameSet(groups[len(groups)-1], planner.DriverWords)
}

// restraint reports whether the question asks what held a figure back.
func (w *writer) restraint() bool {
	if w.restrain == 0 {
		w.restrain = -1
		if planner.AsksRestraint(w.in.Question) {
			w.restrain = 1
		}
	}
	return w.restrain > 0
}

// questionYears are the years the question names, as analysts write them
// ("FY2023", "FY23", "fiscal 2023", "2023").
func (w *writer) questionYears() []int {
	if w.qYears == nil {
		w.qYears = append([]int{}, corpus.AnalyzeQuestion(w.in.Question, nil, nil).Years...)
	}
	return w.qYears
}

// yearAhead returns the first year the question names after the fiscal
// year of period (a filing's "FY2024"), or 0 for none.
func (w *writer) yearAhead(period string) int {
	fy, ok := planner.FiscalYearOf(period)
	if !ok {
		return 0
	}
	for _, y := range w.questionYears() {
		if y > fy {
			return y
		}
	}
	return 0
}

// questionYear matches a year, as a question or a sentence names it.
var questionYear = regexp.MustCompile(`\b(19|20)\d\d\b`)

// holdsView matches a sentence that states someone's expectation: a verb
// of expecting or believing before a "will" or "to".
var holdsView = regexp.MustCompile(`(?i)\b(expects?|expected|anticipates?|believes?|intends?|intention|plans?|estimates?|projects?)\b[^.;]*\b(will|to)\b`)

// hedged matches the language of what may happen (risk factors,
// cautionary statements) rather than of what did.
var hedged = regexp.MustCompile(`(?i)\b(may|might|could|can|would|subject to)\b`)

// subjectTerms returns the names of the parts of issuer t's business the
// question names, which an explanation should be about.
func (w *writer) subjectTerms(t string) []string {
	if w.subjects == nil {
		w.subjects = map[string][]string{}
	}
	if terms, ok := w.subjects[t]; ok {
		return terms
	}
	var terms []string
	if w.in.Catalog != nil {
		for _, seg := range w.in.Catalog.SegmentsIn(w.in.Question, t) {
			terms = append(terms, strings.ToLower(seg.Name))
			if in := initials(seg.Name); in != "" {
				terms = append(terms, in) // a name of three words or more is often written by its initials
			}
		}
		if len(terms) == 0 && len(w.in.Route.Issuers) == 1 {
			// A part the filings print no member for: "Walmart
			// International's net sales" in a text filing.
			for _, p := range planner.PartsAsked(w.in.Question, w.in.Catalog, w.in.Route) {
				terms = append(terms, strings.ToLower(p))
			}
		}
	}
	w.subjects[t] = terms
	return terms
}

// otherParts returns the names of issuer t's parts other than those in
// subject (and other than names holding one of them), lower case.
func (w *writer) otherParts(t string, subject []string) []string {
	if w.in.Catalog == nil {
		return nil
	}
	var out []string
	for _, n := range w.in.Catalog.PartNames(t) {
		l := strings.ToLower(n)
		if len(l) < 4 || slices.ContainsFunc(subject, func(s string) bool { return strings.Contains(l, s) || strings.Contains(s, l) }) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// withAmpersands returns names with, beside each name joining words by
// "and", its form with "&" ("compute & networking"), as filings write
// them either way.
func withAmpersands(names []string) []string {
	out := slices.Clone(names)
	for _, n := range names {
		if strings.Contains(n, " and ") {
			out = append(out, strings.ReplaceAll(n, " and ", " & "))
		}
	}
	return out
}

// initials returns the lower-case initials of a name of three words or
// more ("aws"); "" for a shorter name.
func initials(name string) string {
	ws := strings.Fields(name)
	if len(ws) < 3 {
		return ""
	}
	var b strings.Builder
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// sentenceBefore returns the sentence of excerpt just before s, or "".
func sentenceBefore(excerpt, s string) string {
	sens := planner.Sentences(excerpt)
	for i := 1; i < len(sens); i++ {
		if sens[i] == s {
			return sens[i-1]
		}
	}
	return ""
}

// containsWord reports whether w stands in s as a word of its own.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, _ := utf8.DecodeLastRuneInString(s[:j])
		after, _ := utf8.DecodeRuneInString(s[j+len(w):])
		if (j == 0 || !unicode.IsLetter(before) && !unicode.IsDigit(before)) && (j+len(w) == len(s) || !unicode.IsLetter(after) && !unicode.IsDigit(after)) {
			return true
		}
		i = j + 1
	}
}

// namesAny reports whether s names one of the terms as words of its own,
// in any case ("aws" in "AWS operating income", not in "laws").
func namesAny(s string, terms []string) bool {
	lower := strings.ToLower(s)
	for _, t := range terms {
		t = strings.ToLower(t)
		if t == "" {
			continue
		}
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], t)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			before, _ := utf8.DecodeLastRuneInString(lower[:i])
			after, _ := utf8.DecodeRuneInString(lower[i+len(t):])
			if (i == 0 || !unicode.IsLetter(before)) && (i+len(t) == len(lower) || !unicode.IsLetter(after)) {
				return true
			}
		}
	}
	return false
}

func countTerms(s string, groups [][]string) int {
	lower := strings.ToLower(strings.NewReplacer("-", " ", "\n", " ").Replace(validator.Normalize(s)))
	n := 0
	for _, g := range groups {
		for _, t := range g {
			if !planner.IsNumberTerm(t) && t != "" && strings.Contains(lower, strings.ToLower(t)) {
				n++
			}
		}
	}
	return n
}

var (
	oneMillion = decimal.New(1, 6)
	oneBillion = decimal.New(1, 9)
	oneHundred = decimal.NewFromInt(100)
)

// readableAmount writes a value for a reader: "$391.04 billion (391,035
// million)", "$6.11 per share", "15,408 million shares".
func readableAmount(v decimal.Decimal, unit string) string {
	sign := ""
	if v.IsNegative() {
		sign = "-"
		v = v.Abs()
	}
	u := strings.ToUpper(unit)
	switch {
	case u == "USD":
		switch {
		case v.Cmp(oneBillion) >= 0:
			return fmt.Sprintf("%s$%s billion (%s million)", sign, v.Div(oneBillion).StringFixed(2), thousands(v.Div(oneMillion).StringFixed(0)))
		case v.Cmp(oneMillion) >= 0:
			return fmt.Sprintf("%s$%s million", sign, thousands(v.Div(oneMillion).StringFixed(2)))
		}
		return sign + "$" + thousands(v.StringFixed(2))
	case strings.HasPrefix(u, "USD/"):
		return fmt.Sprintf("%s$%s per %s", sign, thousands(v.StringFixed(2)), strings.TrimSuffix(strings.ToLower(unit[4:]), "s"))
	case u == "SHARES":
		if v.Cmp(oneMillion) >= 0 {
			return fmt.Sprintf("%s%s million shares", sign, thousands(v.Div(oneMillion).StringFixed(0)))
		}
		return sign + thousands(v.String()) + " shares"
	case u == "PURE" || u == "":
		// A count ("301,626,000" memberships) or a rate, which filings
		// print as a percentage.
		if v.IsInteger() {
			return sign + thousands(v.String())
		}
		return sign + v.Mul(oneHundred).Round(2).String() + "%"
	}
	return sign + thousands(v.String()) + " " + unit
}

// factPeriodText says which period a fact covers.
func factPeriodText(p string) string {
	a, b, isRange := strings.Cut(strings.TrimSpace(p), "/")
	if !isRange {
		if _, err := time.Parse(time.DateOnly, a); err == nil {
			return "as of " + a
		}
		return "for " + p
	}
	start, err1 := time.Parse(time.DateOnly, a)
	end, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return "for " + p
	}
	switch d := end.Sub(start); {
	case d >= 300*24*time.Hour:
		return "for the fiscal year ended " + b
	case d >= 80*24*time.Hour && d <= 100*24*time.Hour:
		return "for the quarter ended " + b + " (from " + a + ")"
	}
	return "for the period " + a + " to " + b
}

// conceptName drops the prefixes of a figure key's concept and member.
func conceptName(concept string) string {
	return tools.LocalKey(concept)
}

// metricLabel names the figure a figure key names: "revenue", "revenue
// (iPhone)", or a table row's printed label.
func metricLabel(key string) string {
	concept, member, row := tools.SplitFigureKey(key)
	if row != "" {
		return row
	}
	local := conceptName(concept)
	label := splitCamel(local)
	for _, m := range tools.Metrics {
		if slices.ContainsFunc(m.Concepts, func(c string) bool { return conceptName(c) == local }) {
			label = m.Label
			break
		}
	}
	if member != "" {
		label += " (" + splitCamel(strings.TrimSuffix(conceptName(member), "Member")) + ")"
	}
	return label
}

// splitCamel turns "OperatingIncomeLoss" into "operating income loss".
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// nameLabel turns an expression name into words: "cost_of_revenue" ->
// "cost of revenue", "revenue_prior" -> "prior-year revenue".
func nameLabel(n string) string {
	if m, ok := tools.MetricByName(n); ok {
		return m.Label
	}
	if base, ok := strings.CutSuffix(n, "_prior"); ok {
		return "prior-year " + nameLabel(base)
	}
	// A name made of initials joined by "&" ("g_a" of "G&A", "mg_a" of
	// "MG&A": a letter on one side at least) is written as the initials.
	if parts := strings.Split(n, "_"); len(parts) >= 2 && !slices.ContainsFunc(parts, func(p string) bool { return p == "" || len(p) > 2 }) &&
		slices.ContainsFunc(parts, func(p string) bool { return len(p) == 1 }) {
		return strings.ToUpper(strings.Join(parts, "&"))
	}
	return strings.ReplaceAll(n, "_", " ")
}

// dedupMarkers drops repeated markers of a run like "[1][2][1]".
func dedupMarkers(s string) string {
	var out []string
	for _, m := range strings.SplitAfter(s, "]") {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return strings.Join(out, "")
}

// thousands inserts thousands separators into a plain decimal string.
func thousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// upperFirst capitalises the first letter of s, unless its first word is
// written with a capital inside it ("iPhone", "eCommerce"): a name keeps
// its own spelling.
// asWritten returns topic with each word the question writes in capitals
// ("TAC", "GMV") written so, not as the lower-case topic has it.
func asWritten(topic, question string) string {
	if strings.ToUpper(question) == question {
		return topic // a question typed in capitals says nothing of its words
	}
	caps := map[string]string{}
	for _, w := range strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) && r != '&' }) {
		if len(w) > 1 && strings.ToUpper(w) == w {
			caps[strings.ToLower(w)] = w
		}
	}
	ws := strings.Fields(topic)
	for i, w := range ws {
		if c, ok := caps[w]; ok {
			ws[i] = c
		}
	}
	return strings.Join(ws, " ")
}

// lowerFirst returns s with its first letter in lower case, for use
// inside a sentence, unless its first word is an abbreviation or a name
// with an inner capital ("R&D as a percentage of revenue", "AWS revenue",
// "iPhone revenue").
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	word, _, _ := strings.Cut(s, " ")
	if strings.ContainsFunc(word[size:], unicode.IsUpper) || strings.ContainsAny(word, "&0123456789") {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	word, _, _ := strings.Cut(s, " ")
	if strings.ContainsFunc(word[size:], unicode.IsUpper) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// andList joins "a", "a and b", "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// asksCount reports whether condition groups ask for a count of things
// (CountTerm or a NumberTerm).
func asksCount(groups [][]string) bool {
	return slices.ContainsFunc(groups, func(g []string) bool {
		return slices.ContainsFunc(g, func(t string) bool {
			return t == planner.CountTerm || strings.HasPrefix(t, planner.NumberTerm)
		})
	})
}

// sharesCount reports whether sentence b prints a count, with thousands
// separators or a scale ("2.3 million"), that sentence a prints too.
func sharesCount(a, b string) bool {
	for _, n := range countNumber.FindAllString(b, -1) {
		if slices.Contains(countNumber.FindAllString(a, -1), n) {
			return true
		}
	}
	return false
}

// countNumber matches a number printed with thousands separators.
var countNumber = regexp.MustCompile(`\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)? (?:thousand|million|billion)`)

// blankRow returns a table row among the evidence linked to r, a figure
// asked, that names the figure and prints a dash where the period's value
// would be ("DVD revenues (1) | — | 82,839 | 145,698 | (100)%"): the
// filing says there is none, which is what the gap says.
func (w *writer) blankRow(r planner.Requirement) (string, bool) {
	if r.Kind != planner.KindFigure || r.Completion.Kind != planner.CondPassage || w.in.Ledger == nil {
		return "", false
	}
	var words [][]string
	for _, g := range r.Completion.AllOf {
		if !slices.ContainsFunc(g, planner.IsNumberTerm) {
			words = append(words, g)
		}
	}
	if len(words) == 0 {
		return "", false
	}
	for _, lr := range w.in.Ledger.Requirements {
		if lr.ID != r.ID {
			continue
		}
		for _, id := range lr.Evidence {
			e := w.evidence[id]
			if e == nil || e.Ticker != r.Issuer || e.Period != r.Period {
				continue
			}
			for _, line := range strings.Split(e.Excerpt, "\n") {
				if planner.RowOmitsOwnPeriod(line) {
					if _, ok := planner.SentenceMatch(line, words); ok {
						return strings.TrimSpace(line), true
					}
				}
			}
		}
	}
	return "", false
}

// opensWithAmount matches a line that opens with an amount, bare or in
// brackets ("1,855 Higher gross margin", "(1,360) Lower", "$ 412 Higher"),
// not a year ("2024 was a record year").
var opensWithAmount = regexp.MustCompile(`^\s*\(?\$?\s?(\d{1,3}(,\d{3})+|\d+\.\d+|\d{1,3})\)?\s+[A-Z]`)

// quotedWithin reports whether the normalised sentence n is quoted
// already, alone or within a longer quotation ("... in 65 countries. Of
// these, approximately 9,000 ..."): no sentence is quoted twice.
func (w *writer) quotedWithin(n string) bool {
	if w.quoted[n] {
		return true
	}
	for q := range w.quoted {
		if strings.Contains(q, n) {
			return true
		}
	}
	return false
}
