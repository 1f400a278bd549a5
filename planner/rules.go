package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// RulesPlanner is the deterministic planner: it builds a graph from the
// route and the catalog alone, with no model call.
//
// For each issuer and aspect it plans, for the period asked (the fiscal
// years named, else the issuer's latest 10-K, or latest 10-Q for a
// quarterly question):
//   - figures: a fact requirement per metric of the aspect, served by a
//     lookup_fact node, when the filing is an inline-XBRL 10-K; otherwise a
//     passage stating the figure, served by a search;
//   - a calculation (gross margin, revenue growth) from the looked-up facts;
//   - management's explanation: a passage with the aspect's words and a
//     reason, served by a search in the item that usually holds it;
//   - outlook, when the question asks: a forward-looking passage;
//   - for a causal question, a passage linking the cause to the effect in
//     one sentence;
//   - across two or more issuers, an optional comparability requirement
//     over the figures, with notes when fiscal years end on different dates.
//
// Figures and explanations are required, outlook when asked, comparability
// is optional. The graph is trimmed to MaxNodes: optional requirements
// first, then later aspects, outlook and causal requirements, then later
// issuers, with a note for each cut.
type RulesPlanner struct {
	MaxNodes int // 0 means DefaultMaxNodes
}

// Plan builds the graph for question as routed. A refused route or one
// with no issuer in the corpus gets a graph with no requirements and a
// note saying why (the executor then ends the run without a tool call).
func (p *RulesPlanner) Plan(ctx context.Context, question string, rt Route, cat *Catalog) (*Graph, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cat == nil {
		cat = NewCatalog(nil)
	}
	b := newBuilder(question, rt, cat)
	if b.g.Tickers == nil {
		b.g.Tickers = []string{}
	}
	g := b.g
	if rt.Refused {
		g.Notes = append(g.Notes, "Refused before planning: "+rt.Reason)
		return g, nil
	}
	if len(rt.NotCovered) > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("Not in the corpus, so not covered: %s.", strings.Join(rt.NotCovered, ", ")))
	}
	if rt.PartOwner != "" && len(rt.Issuers) == 1 {
		g.Notes = append(g.Notes, fmt.Sprintf("The question names no issuer; %q is a segment of %s's filings alone, so it is read as asking about %s (%s).",
			rt.PartOwner, cat.ShortName(rt.Issuers[0]), cat.ShortName(rt.Issuers[0]), rt.Issuers[0]))
	}
	if len(rt.Issuers) == 0 {
		held := cat.Tickers()
		msg := "The question names no issuer the corpus holds, so there is nothing to research"
		if len(held) > 0 {
			msg += fmt.Sprintf(" (the corpus holds %s)", strings.Join(held, ", "))
		}
		g.Notes = append(g.Notes, msg+".")
		g.FiscalYears = slices.Clone(rt.FiscalYears)
		return g, nil
	}
	b.build()
	b.shortForms()
	b.trim((&Limits{MaxNodes: p.MaxNodes}).maxNodes())
	b.finish()
	if !asksBesideClaim(question) {
		causalCore(g)
	}
	if checksReportedClaim(question) {
		reportedClaim(g, question)
	}
	return g, nil
}

// checksReportedClaim reports whether a question reports, in a sentence
// of its own, what someone other than the issuer claims (withoutHearsay:
// "A commentator says Meta's tax rate fell in 2024 because of the new
// OECD global minimum tax.") and asks, in another, what a filing reports
// ("What was Meta's 2024 effective tax rate, and what does the 10-K say
// drove the decrease?").
func checksReportedClaim(question string) bool {
	return claimBesideAsk(question, func(s string) bool { return withoutHearsay(s) != s }, func(string) bool { return true })
}

// claimBesideAsk reports whether a question has a sentence that states
// (ends without a question mark) what claim accepts, and another that asks
// what, how or why (asksWhat) and that ask accepts.
func claimBesideAsk(question string, claim, ask func(string) bool) bool {
	claimed, asked := false, false
	for _, m := range sentenceWithEnd.FindAllString(question, -1) {
		s := strings.TrimSpace(m)
		switch {
		case !strings.HasSuffix(s, "?") && claim(s):
			claimed = true
		case strings.HasSuffix(s, "?") && asksWhat.MatchString(s) && ask(s):
			asked = true
		}
	}
	return claimed && asked
}

// reportedClaim plans a claim someone else made as what is checked, not
// as the asker's premise: the answer to "is that what the filing shows"
// is what the filing does show. The link the claim asserts, and the move
// it asserts, are reported either way (borne out or not) without deciding
// the run; what the filing says drove the figure is required instead.
// An account of a topic only the claim names ("because suppliers absorbed
// the new tariffs": regulation) is reported where found, not required.
func reportedClaim(g *Graph, question string) {
	var asked strings.Builder
	for _, m := range sentenceWithEnd.FindAllString(question, -1) {
		if s := strings.TrimSpace(m); withoutHearsay(s) == s {
			asked.WriteString(" " + s)
		}
	}
	askedText := normalizeText(asked.String())
	for i := range g.Requirements {
		r := &g.Requirements[i]
		switch {
		case strings.HasSuffix(r.ID, "-causal"), r.Completion.Sign != 0:
			r.Required = false
		case strings.HasSuffix(r.ID, "-causal-context"):
			r.Required = true
		case r.Kind == KindExplanation && r.Aspect != "" && r.Aspect != "general":
			if a, ok := AspectByName(r.Aspect); ok && !anyTerm(askedText, a.Triggers) {
				r.Required = false
			}
		}
	}
	g.Notes = append(g.Notes, "The question reports someone else's claim and asks what the filings show: the claim's link and move are checked and reported, and the run is judged on what the filings state.")
}

// claimLinks are the words that link a cause to its effect in a claim.
var claimLinks = regexp.MustCompile(`(?i)\b(because|thanks\s+to|due\s+to|driven\s+by|caused|led\s+to|result(?:ed)?\s+(?:of|from|in)|on\s+the\s+back\s+of)\b`)

// asksBesideClaim reports whether a question states a causal claim in a
// sentence of its own and asks, in another sentence, what a filing
// reports: "A newsletter says Apple's Products gross margin improved
// because suppliers absorbed the new tariffs. What does the 10-Q report
// for that percentage, and what reasons does it give?". What the second
// sentence asks is asked whatever the claim's link: the claim does not
// make it context.
func asksBesideClaim(question string) bool {
	return claimBesideAsk(question, claimLinks.MatchString, func(s string) bool { return !claimLinks.MatchString(s) })
}

// sentenceWithEnd matches a sentence of a question with the mark that
// ends it (a dot inside "$1.2B" or "U.S." ends none); asksWhat a sentence that asks what, how much, how many, which
// or why.
var (
	sentenceWithEnd = regexp.MustCompile(`(?:[^.?!]|\.[^\s.?!])+(?:[.?!]+|$)`)
	asksWhat        = regexp.MustCompile(`(?i)^\W*(?:and\s+|so\s+|then\s+)?(?:what|how|which|why|give|provide|list)\b`)
)

// newBuilder returns the builder of a plan for question as routed, over
// cat (not nil).
func newBuilder(question string, rt Route, cat *Catalog) *builder {
	return &builder{
		cat:       cat,
		question:  ReadShorthand(question, cat),
		rt:        rt,
		g:         &Graph{Question: question, Tickers: slices.Clone(rt.Issuers), Planner: "rules"},
		nodeKey:   map[string]int{},
		reqIdx:    map[string]int{},
		meta:      map[string]reqMeta{},
		periods:   map[string][]filingPeriod{},
		quarterOf: map[string]int{},
	}
}

// causalCore makes the causal link the one thing a causal question needs:
// "did AI improve margins?" is answered by a sentence that links the two,
// not by the margin figures, so those become optional context. Without the
// link the run ends insufficient_evidence, however much context it found.
func causalCore(g *Graph) {
	hasCausal := false
	for _, r := range g.Requirements {
		if strings.HasSuffix(r.ID, "-causal") {
			hasCausal = true
		}
	}
	if !hasCausal {
		return
	}
	for i := range g.Requirements {
		// The question's premise (that the figure moved as it says) stays
		// required: a cause of a change that did not happen is no answer.
		if !strings.HasSuffix(g.Requirements[i].ID, "-causal") && g.Requirements[i].Completion.Sign == 0 {
			g.Requirements[i].Required = false
		}
	}
	g.Notes = append(g.Notes, "A causal question is answered by a passage that links the cause to the effect; the figures and explanations gathered alongside are context, not support.")
}

// reqMeta is what trimming needs to know of a requirement.
type reqMeta struct {
	aspect int  // index of the aspect in the route; -1 for none
	issuer int  // index of the issuer; -1 for a cross-issuer requirement
	extra  bool // outlook or causal: cut before the issuers
}

// filingPeriod is one period planned for an issuer.
type filingPeriod struct {
	fy    int
	doc   corpus.Document
	found bool
	// next is set when the corpus holds no filing for fy and doc is the
	// next year's annual report, whose comparative column shows fy.
	next bool
	// ahead is the fiscal year asked when it is after doc's, the latest
	// annual report, whose expectations are read for it; 0 otherwise.
	ahead int
	// source is the fiscal year of the annual report the question reads
	// fy from ("according to its 2022 10-K") when fy is after it: that
	// report prints no later year, and no other report stands in for it.
	source int
	// quarter is the quarter asked of a period not found when the corpus
	// holds no 10-Q that reports it, or holds it beside the 10-Q the plan
	// reads for the year (unread; quartersAsked); zero otherwise.
	quarter quarterAsk
	unread  bool
	// fq is the quarter (1-4) of fy asked of doc, an annual report read
	// for the table of quarters it prints (annualQuarter); 0 otherwise.
	fq int
}

type builder struct {
	cat      *Catalog
	question string
	rt       Route
	g        *Graph
	nodeKey  map[string]int // tool and arguments -> index in g.Nodes
	reqIdx   map[string]int // requirement id -> index in g.Requirements
	meta     map[string]reqMeta
	periods  map[string][]filingPeriod
	compared []comparison
	nextNode int
	// shareParts holds, per issuer, the names of the parts whose share of
	// a whole the plan computes (planShareOf), in the question's words.
	shareParts map[string][]string
	// explained is the figure the question names by a label whose
	// explanation the plan asks for (planLabelledFigure); nil for none.
	explained []string
	// quarterOf is, by issuer and period label ("INTC|FY2020"), the
	// quarter of that year read from an annual report's table of quarters
	// (filingPeriod.fq): every lookup and calculation of that issuer and
	// period names it, so that no figure of the year stands in for it.
	quarterOf map[string]int
	// stated lets a total an issuer's sentence states name a figure as a
	// label does (statedTotal), while a figure asked beside an aspect is
	// planned; elsewhere the question's own words plan such a figure,
	// qualifiers and all (planPhraseFigure).
	stated bool
}

func (b *builder) addReq(r Requirement, m reqMeta) bool {
	if _, ok := b.reqIdx[r.ID]; ok {
		return false
	}
	if c := &r.Completion; c.Kind == CondFact && c.QuarterEnded == "" {
		// A figure of a quarter read from an annual report's table of
		// quarters is that quarter's, never the year's.
		if fq := b.quarterOf[c.Issuer+"|"+c.Period]; fq > 0 {
			if fy, ok := FiscalYearOf(c.Period); ok {
				c.QuarterEnded = b.quarterEnded(c.Issuer, fy, fq)
			}
		}
	}
	b.reqIdx[r.ID] = len(b.g.Requirements)
	b.g.Requirements = append(b.g.Requirements, r)
	b.meta[r.ID] = m
	return true
}

// addNode adds a node serving the requirements, or, when a node with the
// same tool and arguments exists, makes that one serve them too. It
// returns the node's id.
func (b *builder) addNode(tool string, args any, serves []string, deps ...string) string {
	args = b.inQuarter(args)
	raw, err := json.Marshal(args)
	if err != nil { // the argument structs always marshal
		panic(fmt.Sprintf("planner: marshal %s arguments: %v", tool, err))
	}
	key := tool + "\x00" + string(raw)
	if i, ok := b.nodeKey[key]; ok {
		n := &b.g.Nodes[i]
		n.Serves = appendNew(n.Serves, serves...)
		n.DependsOn = appendNew(n.DependsOn, deps...)
		return n.ID
	}
	b.nextNode++
	id := fmt.Sprintf("n%d", b.nextNode)
	b.nodeKey[key] = len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, Node{ID: id, Tool: tool, Args: raw, Serves: slices.Clone(serves), DependsOn: slices.Clone(deps)})
	return id
}

// inQuarter returns a lookup's or a calculation's arguments naming the
// quarter asked of their issuer and period where it is read from an
// annual report's table of quarters (quarterOf).
func (b *builder) inQuarter(args any) any {
	if len(b.quarterOf) == 0 {
		return args
	}
	switch a := args.(type) {
	case tools.LookupFactArgs:
		if fq := b.quarterOf[a.Ticker+"|"+a.Period]; fq > 0 && a.FiscalQuarter == 0 && len(a.Stated) == 0 {
			a.FiscalQuarter, a.Quarter, a.YearToDate = fq, false, false
		}
		return a
	case tools.CalculateArgs:
		facts := make(map[string]tools.FactRef, len(a.Facts))
		for name, ref := range a.Facts {
			if fq := b.quarterOf[ref.Ticker+"|"+ref.Period]; fq > 0 && ref.FiscalQuarter == 0 && !strings.HasPrefix(ref.Concept, tools.StatedPrefix) {
				ref.FiscalQuarter = fq
			}
			facts[name] = ref
		}
		a.Facts = facts
		return a
	}
	return args
}

func (b *builder) note(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if !slices.Contains(b.g.Notes, msg) {
		b.g.Notes = append(b.g.Notes, msg)
	}
}

// periodsOf returns the periods planned for an issuer, noting the ones the
// corpus lacks.
func (b *builder) periodsOf(t string) []filingPeriod {
	if ps, ok := b.periods[t]; ok {
		return ps
	}
	var ps []filingPeriod
	years := b.rt.FiscalYears
	if ys, ok := b.rt.IssuerYears[t]; ok {
		years = ys
	}
	source := 0
	if len(years) > 1 && !b.rt.Outlook {
		// "Amazon's 2023 net income according to its 2022 10-K": 2022
		// names the report read, not a period asked.
		if s, ok := namedReportYear(b.question); ok && slices.Contains(years, s) && !slices.Contains(yearsBesideReport(b.question), s) && len(reportYears(b.question)) < 2 {
			if d, found := b.cat.Filing(t, s, "10-K"); found && d.FiscalYear == s {
				source = s
				years = slices.DeleteFunc(slices.Clone(years), func(y int) bool { return y == s })
			}
		}
	}
	if len(years) > 0 {
		for _, fy := range years {
			if source > 0 && fy > source {
				b.note("The question reads fiscal %d from %s's fiscal %d 10-K, which reports no later year; its figures for %d are not taken from another report in its place.", fy, t, source, fy)
				ps = append(ps, filingPeriod{fy: fy, source: source, doc: corpus.Document{Ticker: t, Form: "10-K", FiscalYear: fy}})
				continue
			}
			var d corpus.Document
			ok := false
			if b.rt.Quarterly && len(years) > 1 && b.onlyDatesQuarter(t, fy) {
				continue
			}
			if b.rt.Quarterly && slices.Contains(b.rt.BaseYears, fy) && slices.ContainsFunc(years, func(y int) bool {
				d, held := b.cat.Filing(t, y, "10-Q")
				return y > fy && held && d.FiscalYear == y
			}) {
				// "Mac revenue for the 9M ended July 1 2023 vs the 9M ended
				// June 25 2022": the period compared with, whose figures
				// the later 10-Q prints beside its own.
				continue
			}
			if b.rt.Quarterly {
				d, ok = b.cat.Filing(t, fy, "10-Q")
				// The quarters named: each from the 10-Q that reports it,
				// a quarter no 10-Q reports a gap of its own, never
				// another quarter's figures ("the March-2025 quarter"
				// where the corpus holds the June one).
				// (A year of which the corpus holds no 10-Q is a gap as a
				// whole, below.)
				if read, held, missing, unread := b.quartersAsked(t, fy); ok && !b.rt.Outlook && (held || len(missing) > 0) {
					for _, q := range missing {
						m, y := quarterMonth(d.PeriodEnd)
						b.note("The corpus holds no 10-Q of %s for %s; its 10-Q for fiscal %d reports the quarter ended %s %d, whose figures are not given in its place.", t, q, fy, m, y)
						ps = append(ps, filingPeriod{fy: fy, quarter: q, doc: corpus.Document{Ticker: t, Form: "10-Q", FiscalYear: fy}})
					}
					for _, q := range unread {
						b.note("%s's figures for %s are asked of its own 10-Q as a passage: the plan reads one 10-Q of fiscal %d, the one for %s.", t, q, fy, read.PeriodEnd.Format(time.DateOnly))
						ps = append(ps, filingPeriod{fy: fy, quarter: q, unread: true, doc: corpus.Document{Ticker: t, Form: "10-Q", FiscalYear: fy}})
					}
					if !held {
						continue
					}
					d = read
				}
			}
			if !ok && b.rt.Quarterly && !b.rt.Outlook {
				// "Q4 2020 net revenue" where the corpus holds the
				// issuer's 2020 10-K alone: the 10-K's table of quarters
				// prints it.
				if annual, fq, found := b.annualQuarter(t, fy); found {
					b.note("The corpus holds no 10-Q of %s for fiscal %d; Q%d of fiscal %d is read from the table of quarters in its %s 10-K.", t, fy, fq, fy, tools.PeriodLabel(annual.FiscalYear))
					b.quarterOf[t+"|"+tools.PeriodLabel(fy)] = fq
					ps = append(ps, filingPeriod{fy: fy, doc: annual, found: true, next: annual.FiscalYear != fy, fq: fq})
					continue
				}
			}
			if !ok && b.rt.Quarterly && !b.rt.Outlook && asksOneQuarter.MatchString(b.question) {
				// "Meta's Q3 2024 revenue" where the corpus holds Meta's
				// 10-K for 2024 alone: the annual report states the year,
				// not the quarter asked, so the quarter's figures are
				// gaps, never the year's in their place.
				if annual, found := b.cat.Filing(t, fy, "10-K"); found {
					b.note("The corpus holds no 10-Q of %s for fiscal %d; its %s 10-K reports the year, not the quarter asked, so the quarter's figures are reported as gaps.", t, fy, tools.PeriodLabel(annual.FiscalYear))
				}
				ps = append(ps, filingPeriod{fy: fy, doc: corpus.Document{Ticker: t, Form: "10-Q", FiscalYear: fy}})
				continue
			}
			if !ok {
				d, ok = b.cat.Filing(t, fy, "")
			}
			next := false
			ahead := 0
			if b.rt.Outlook && (!b.rt.Quarterly || !ok) && !ownReport(d, ok, fy) && slices.Contains(years, fy-1) {
				// (A quarter of the later year the corpus holds no report
				// of, "what first-quarter sales was Amazon guiding to in
				// its 2022 10-K", is guidance of the earlier year's report
				// too.)
				// "Heading into 2023, did Amazon expect the headwinds it
				// saw in 2022 to persist?": the later year is the one the
				// earlier year's report expects something for, not a
				// period of its own.
				if prev, found := b.cat.Filing(t, fy-1, "10-K"); found && prev.FiscalYear == fy-1 {
					d, ok, ahead, fy = prev, true, fy, fy-1
				}
			}
			if ok && !b.rt.Quarterly && !b.rt.Outlook && strings.HasPrefix(d.Form, "10-Q") && !mentionsForm(b.question, "10-Q") {
				// A year asked of which the corpus holds only a quarter's
				// report: the quarter is not the year. A later annual
				// report prints the year as a comparative; read it there.
				if later, found := b.cat.Filing(t, fy+1, "10-K"); found && later.FiscalYear == fy+1 {
					b.note("The corpus holds %s's 10-Q for fiscal %d, which reports a quarter, not the year; the year's figures are read from the prior-year columns of its 10-K for fiscal %d.", t, fy, fy+1)
					d, next = later, true
				}
			}
			if !ok && !b.rt.Quarterly {
				// An annual report prints two or three years: a later
				// 10-K holds the year as a comparative.
				for later := fy + 1; later <= fy+2 && !ok; later++ {
					if d, ok = b.cat.Filing(t, later, "10-K"); ok {
						next = true
						b.note("The corpus holds no %s filing for fiscal %d; its figures are read from the prior-year columns of the %s 10-K for fiscal %d.", t, fy, t, later)
					}
				}
			}
			if !ok && b.rt.Outlook {
				// Expectations for a year after the latest filing are
				// that filing's forward-looking statements.
				if latest, found := b.cat.Latest(t, "10-K"); found && latest.FiscalYear < fy {
					d, ok = latest, true
					b.note("Fiscal %d is after %s's latest annual report (fiscal %d); what management expects for it is read from that report.", fy, t, latest.FiscalYear)
					ahead, fy = fy, latest.FiscalYear
				}
			}
			if !ok {
				b.note("The corpus holds no %s filing for fiscal %d; its requirements for that year will be reported as gaps.", t, fy)
			}
			ps = append(ps, filingPeriod{fy: fy, doc: d, found: ok, next: next, ahead: ahead})
		}
	} else {
		var d corpus.Document
		ok := false
		if b.rt.Quarterly {
			d, ok = b.cat.Latest(t, "10-Q")
		}
		if !ok && b.instantOnly() {
			// A balance "now" is the latest balance sheet, whatever the form.
			d, ok = b.cat.Latest(t, "")
		}
		if !ok {
			d, ok = b.cat.Latest(t, "10-K")
		}
		if !ok {
			d, ok = b.cat.Latest(t, "")
		}
		if ok {
			ps = append(ps, filingPeriod{fy: d.FiscalYear, doc: d, found: true})
		} else {
			b.note("The corpus holds no filing of %s.", t)
		}
	}
	b.periods[t] = ps
	return ps
}

// asksOneQuarter finds a question naming one quarter ("Q3 2024", "the
// third quarter", "the June quarter", "three months ended"), not a
// quarterly figure of the year ("quarterly dividends").
var asksOneQuarter = regexp.MustCompile(`(?i)\b(q[1-4]|(first|second|third|fourth|1st|2nd|3rd|4th)\s+(fiscal\s+)?quarter|three\s+months|quarter\s+end(ed|ing)?|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(\s+\d{4})?\s+(quarter|qtr))\b`)

func (b *builder) build() {
	rt := b.rt
	if n := b.unmentionedOwner(); n != "" {
		// "What was Jensen Huang's total compensation": every figure asked
		// is the person's, which no filing mentions; the issuer's figures
		// of the same words ("stock awards") are not what is asked.
		b.note("What the question asks is %s's, and no filing in the corpus mentions %s; the issuer's figures are not gathered in its place.", n, n)
		b.planUnmentionedNames()
		return
	}
	aspects := rt.Aspects
	if len(aspects) == 0 {
		aspects = []string{"general"}
	}
	phrase := false
	general := slices.Equal(aspects, []string{"general"}) && len(rt.Figures) == 0 && rt.Causal == nil
	switch {
	case rt.Paid != "" && len(rt.Figures) == 0 && rt.Causal == nil && !asksWhy(b.question) && b.planPaid():
		// What the issuer paid for something: its payments' figure.
		aspects = nil
	case general && rt.AsksFigure && !asksWhy(b.question) && b.planSummedFigure():
		// A total asked as the sum of named figures: the filing's
		// sentence stating it.
		aspects = nil
	case general && (asksWhy(b.question) || rt.AsksFigure || whatReported.MatchString(b.question)) && b.planLabelledFigure(asksWhy(b.question)):
		// A figure named by a label of the filings ("interest expense"),
		// and why it moved where the question asks; and the other labels
		// it lists ("GMV and take rate").
		aspects = nil
		b.planLabelledFigures()
	case rt.AsksFigure && len(rt.Figures) == 0 && rt.Causal == nil && !asksWhy(b.question) && !rt.Outlook &&
		topicsOnly(aspects) && b.phraseFigureResolves():
		// A figure asked by the words a filing tags or prints it with,
		// where those words also name a topic ("produced content
		// amortization" beside the topic of content spending and
		// amortization): the figure, not what the filing says on the
		// topic.
		if phrase = b.planPhraseFigure(); phrase {
			aspects = nil
		}
	case !slices.Equal(aspects, []string{"general"}) || asksWhy(b.question) || rt.Causal != nil:
	case len(rt.Figures) > 0:
		// A question that names its figures asks for them, not for a
		// passage on its words.
		aspects = nil
	case rt.AsksFigure:
		// A number the catalogue does not name, asked in the question's
		// words: that figure, or its gap.
		if phrase = b.planPhraseFigure(); phrase {
			aspects = nil
		}
	}
	for ai, name := range aspects {
		a, ok := AspectByName(name)
		if !ok {
			b.note("Aspect %q is not in the lexicon; it was not planned.", name)
			continue
		}
		var figures []string // required figure requirements of every issuer, for comparability
		var issuersWithFigures []string
		for ii, t := range rt.Issuers {
			for _, p := range b.periodsOf(t) {
				ids := b.planAspect(t, p, a, reqMeta{aspect: ai, issuer: ii})
				if len(ids) > 0 {
					figures = append(figures, ids...)
					issuersWithFigures = appendNew(issuersWithFigures, t)
				}
			}
		}
		if len(issuersWithFigures) >= 2 {
			b.planComparability(a, figures, issuersWithFigures, ai)
		}
	}
	b.planFigureAsks()
	b.planFigureWhy()
	b.planByParts()
	b.planSplitParts()
	if aspects != nil && !general && rt.Causal == nil && (!b.asksAhead() || b.asksReportedLabel()) && (!b.plansFigure() || b.asksUnplannedLabel()) {
		// "Total deferred revenue at quarter-end, and what % did Apple
		// expect to realize within a year?": an outlook (or a risk, an
		// explanation) asked beside a figure the filings label. The figure
		// is an asked item of its own, gathered or named as a gap; so is
		// one asked in a clause of its own beside the aspect's figures
		// ("... What was the 2022 take rate?"), when a filing asked labels
		// a row so and no figure planned is that row; or, with no row so
		// labelled, a total a sentence states ("Meta's total deferred
		// revenue, and how much does it expect to realize within a year").
		b.stated = true
		b.planLabelledFigure(false)
		b.stated = false
	}
	if aspects != nil && rt.Causal == nil {
		b.planLabelledFigures()
	}
	b.planTailAsk()
	b.planPremises()
	b.planLossPremise()
	b.planDifference()
	b.planFigureDifference()
	b.planPerHead()
	b.planFormula()
	b.planRatioOf()
	b.planPeriodChange()
	b.planStillAsked()
	if c := rt.Causal; c != nil {
		for ii, t := range rt.Issuers {
			for _, p := range b.periodsOf(t) {
				if p.found {
					b.planCausal(t, p, c, ii)
				}
			}
		}
	}
	b.planUncoveredItems()
	b.planNamedRatio()
	b.planUnmentionedNames()
	b.planUnservedParts()
	b.planCurrencyEffect()
	b.planQuestionSearches()
}

// periodTail matches the period a list part ends with: "at end of fiscal
// 2022", "in FY22", "as of year-end 2024", "for the year".
var periodTail = regexp.MustCompile(`(?i)\s+(?:at|as\s+of|in|for|during|by)\s+(?:the\s+)?(?:(?:end|close)\s+of\s+)?(?:(?:fiscal|calendar)\s+)?(?:(?:fy|q[1-4])\s*'?\d{2,4}|\d{4}|year(?:[- ]end)?(?:\s+\d{4})?|ye\s*'?\d{2,4}|(?:(?:first|second|third|fourth|june|march|september|december|latest|last)\s+)?quarter|period|(?:three|six|nine|twelve)\s+months)\W*$`)

// bidSplit separates the items a bid lists: "A, B, and C".
var bidSplit = regexp.MustCompile(`(?i)\s*(?:,\s*(?:and\s+)?|\B&\B|\s&|&\s|\band\b|\bplus\b|\bas well as\b)\s*`)

// changeOf matches the words that open a bid for a thing's change: "the
// yoy growth in", "the change of", "in".
var changeOf = regexp.MustCompile(`(?i)^\s*(?:the\s+)?(?:(?:yoy|y/y|year[- ]over[- ]year|annual|percentage|percent)\s+)?(?:(?:growth|change|increase|decrease|decline|rise)\s+)?(?:in|of)\s+`)

// listSplit separates the items of a question's list: "membership fee
// revenue and renewal rate", "capex plus buybacks". (Commas separate
// clauses as often as items: "Using NVIDIA's 10-K for ..., how much".)
var listSplit = regexp.MustCompile(`(?i)\s*(?:\B&\B|\s&|&\s|\band\b|\bplus\b|\bas well as\b)\s*`)

// planUncoveredItems plans, in a question asking for figures, each item of
// its list that no requirement of the plan names ("Costco FY22 membership
// fee revenue and renewal rate": the renewal rate) as a figure of its own,
// stated in the filing or named as a gap. An item is a list part of the
// question's content words alone (issuers, periods and the words that ask
// are none); it is covered when a requirement names any of its words.
func (b *builder) planUncoveredItems() {
	if len(b.g.Requirements) == 0 {
		return
	}
	var parts []string
	if b.rt.AsksFigure {
		if ps := listSplit.Split(b.question, -1); len(ps) >= 2 {
			parts = ps
		}
	}
	// A sentence bidding figures ("... to keep climbing in FY24? Give FY23
	// amortization and the FY24 estimate.") lists its items after the verb.
	for _, sen := range sentenceSplit.Split(b.question, -1) {
		m := bidsFigures.FindStringSubmatch(sen)
		if m == nil || notFigureBid[strings.ToLower(m[2])] {
			continue
		}
		// "Give me the global paid net adds, year-end paid memberships,
		// and ...": a bid lists its items with commas too.
		for _, p := range bidSplit.Split(sen[len(m[0])-len(m[2]):], -1) {
			// "the yoy growth in ad impressions", "in avg price per ad":
			// the thing whose change is bid for.
			p = changeOf.ReplaceAllString(p, "")
			words := strings.Fields(strings.ToLower(p))
			if slices.ContainsFunc(words, func(w string) bool {
				return !sizeNouns[strings.Trim(w, ",.?!")] && strings.IndexFunc(w, unicode.IsDigit) < 0 && !questionStopwords[w]
			}) {
				parts = append(parts, p)
			}
		}
	}
	// A clause asking the size of something by name ("..., and how big
	// was the FX hit?") asks it as an item of its own, whatever else the
	// question asks; one naming only what every figure is ("how big was
	// the decline") asks the size of the figure asked already.
	sized := map[string]bool{} // items a clause asks the size of by name (sizeAsked)
	for _, m := range sizeAsked.FindAllStringSubmatch(b.question, -1) {
		// "How big was that fee hike?": the thing pointed back to, by
		// its own words, each of which a requirement must name.
		item := pointingDeterminer.ReplaceAllString(m[1], "")
		words := strings.Fields(strings.ToLower(item))
		if slices.ContainsFunc(words, func(w string) bool { return !figureWords[w] && !sizeNouns[w] }) {
			parts = append(parts, item)
			if item != m[1] {
				sized[item] = true
			}
		}
	}
	// A clause of a list asking a number or a size ("..., and how many
	// new warehouses were they planning to open?", "How big were
	// NVIDIA's inventory provisions in FY2023 and ...") asks its thing as
	// an item of its own: the words it names, up to its verb or the
	// period asked.
	// Such an item is covered only by a requirement naming each of its
	// words: "inventories" does not name "inventory provisions".
	content := map[string]bool{}
	for _, w := range b.phraseWords() {
		content[strings.ToLower(w)] = true
	}
	strict := map[string]bool{}
	narrowed := map[string]bool{} // items of subjectless clauses (subjectlessItem)
	verbed := map[string]bool{}   // of those, the items narrowed by a verb
	for _, clause := range askClauses(b.question) {
		item := clauseItem(clause)
		if narrow := b.subjectlessItem(clause); narrow != "" {
			if !subjectlessAsks.MatchString(clause) {
				verbed[narrow] = true // "how many did it add": its last word a verb
			}
			// "content obligations — total, how much isn't on the
			// balance sheet yet": the thing named before, as the clause
			// narrows it.
			item = narrow
			narrowed[item] = true
		}
		if row := b.clauseRow(clause, content); row != "" {
			// "what was the total loss on equity investments and
			// warrant": a row a filing prints, "Total gain (loss) on
			// equity investments and warrant, net", named to the
			// clause's end.
			item = row
		}
		if item != "" {
			parts = append(parts, item)
			strict[item] = true
		}
	}
	if len(parts) == 0 {
		return
	}
	var named, figured strings.Builder
	for _, r := range b.g.Requirements {
		if r.Aspect == "general" && r.Kind == KindExplanation {
			// What the filing says on the question's topic is searched
			// for by the question's rarest words, whichever item they
			// come from: it names no item.
			continue
		}
		named.WriteString(" " + r.Need + " " + r.Completion.Topic)
		for _, g := range r.Completion.AllOf {
			named.WriteString(" " + strings.Join(g, " "))
			if slices.Contains(g, CountTerm) {
				// A count of people names them whatever the question
				// calls them: "how many people did NVIDIA employ".
				named.WriteString(" " + strings.Join(peopleWords, " "))
			}
		}
		if r.Kind == KindFigure || r.Kind == KindCalculation {
			figured.WriteString(" " + r.Need + " " + r.Completion.Topic)
		}
	}
	said, saidOfFigures := map[string]bool{}, map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(named.String()), func(r rune) bool { return !unicode.IsLetter(r) }) {
		said[stem5(w)] = true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(figured.String()), func(r rune) bool { return !unicode.IsLetter(r) }) {
		saidOfFigures[stem5(w)] = true
	}
	for _, part := range parts {
		// The period a part ends with ("marketable securities at end of
		// fiscal 2022") says when, not what.
		if !strict[part] {
			part = periodTail.ReplaceAllString(part, "")
		}
		// An item is a list part made of content words only ("renewal
		// rate"), years aside: a part with other words ("how much higher
		// was that", "order them largest to smallest") is a clause, not a
		// figure's name. A verb's forms ("using", "reported") name none.
		var item []string
		clause := false
		for _, w := range strings.FieldsFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' }) {
			lw := strings.ToLower(w)
			switch {
			case strings.IndexFunc(lw, unicode.IsDigit) >= 0:
			case irregularParticiples[lw] && len(item) > 0:
				// "average price paid": what was done with the figure.
			case periodWord(lw):
				// "year-end paid memberships": when, not what.
			case content[lw] && !strings.HasSuffix(lw, "ing") && !strings.HasSuffix(lw, "ed"):
				if !slices.Contains(item, lw) {
					item = append(item, lw)
				}
			case itemOwners[lw]:
				// "its worldwide renewal rate": whose, not what. ("The"
				// opens clauses' things as often: "and the reasons".)
			case lw == "per" && len(item) > 0:
				// "price per ad": "per" joins a rate's words.
			case len(lw) == 2 && !questionStopwords[lw] && !labelBreaks[lw] && !joiningWords[lw] && unicode.IsLetter(rune(lw[0])):
				// A name's short word ("ad impressions").
				if !slices.Contains(item, lw) {
					item = append(item, lw)
				}
			case strict[part]:
				// A clause's item: its other words ("new") qualify it.
			default:
				clause = true
			}
		}
		if narrowed[part] {
			// A thing narrowed by its clause's words, chosen already.
			item, clause = strings.Fields(part), false
		}
		// The item's own words say which figure it is ("services" of
		// "services revenue"): a requirement naming only the words every
		// figure shares ("revenue") names another.
		own := slices.DeleteFunc(slices.Clone(item), func(w string) bool { return figureWords[w] })
		if len(own) == 0 {
			own = item
		}
		covered := slices.ContainsFunc(own, func(w string) bool { return said[stem5(w)] })
		switch {
		case narrowed[part]:
			// A thing narrowed by its clause is covered by a figure
			// named so, not by a passage's words ("due to").
			covered = !slices.ContainsFunc(own, func(w string) bool { return !saidOfFigures[stem5(w)] })
		case strict[part] || sized[part]:
			covered = !slices.ContainsFunc(own, func(w string) bool { return !said[stem5(w)] })
		}
		if clause || len(item) == 0 || covered || b.plannedRowsHold(item) || b.plannedMetricNamed(item) {
			continue
		}
		// Its own parts only: "services revenue" beside "hardware
		// revenue" is no figure of the Hardware part.
		if narrowed[part] {
			// The thing's figure is planned already: the part the clause
			// narrows it to is stated in a sentence of its own words, or
			// missing.
			switch {
			case verbed[part]:
				// "how many did it add": the row the verb names
				// ("Paid net membership additions"); a verb no row
				// names ("how much did they earn") restates the figure.
				b.planVerbRow(item)
			default:
				b.planNarrowedItem(item)
			}
			continue
		}
		b.planPhraseFigureWithin(item, func(t string) []Segment { return b.cat.SegmentsIn(strings.Join(item, " "), t) })
	}
}

// itemOwners are the possessive determiners a list item may open with:
// they say whose figure it is ("and its renewal rate").
var itemOwners = map[string]bool{"its": true, "their": true, "our": true, "his": true, "her": true}

// plannedMetricNamed reports whether item is initials joined by "&" that
// are a catalogue figure's name ("SG&A") whose figure the plan looks up
// already, under the words of its label ("Selling, general and
// administrative expense"), which name no such initials.
func (b *builder) plannedMetricNamed(item []string) bool {
	name := strings.Join(item, " ")
	asks := FindFigures(name)
	if len(item) != 1 || !strings.Contains(name, "&") || len(asks) != 1 || asks[0].Metric == "" || asks[0].Phrase != normLabel(name) {
		return false
	}
	return slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
		return r.Kind == KindFigure && r.Completion.Kind == CondFact && strings.HasSuffix(r.ID, "-figure-"+asks[0].Metric)
	})
}

// planQuestionSearches adds, per issuer and period, one search with the
// question's own words serving the issuer's passage requirements
// (explanations, outlook, risks): the lexicon's fixed topic words find
// passages on the topic, the question's words find the ones on the point
// asked.
func (b *builder) planQuestionSearches() {
	words := b.searchWords()
	if len(words) == 0 || len(words) == 1 && b.searched(words[0]) {
		// One word of the question's is searched for on its own only
		// where no search holds it ("headcount at the end of 2024?",
		// whose aspect searches for "employees").
		return
	}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			var serves []string
			for _, r := range b.g.Requirements {
				if r.Issuer != t || r.Period != tools.PeriodLabel(p.fy) || r.Completion.Kind != CondPassage || strings.HasSuffix(r.ID, "-causal") {
					continue
				}
				switch r.Kind {
				case KindExplanation, KindOutlook, KindRisk:
					serves = append(serves, r.ID)
				}
			}
			if len(serves) > 0 {
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, strings.Join(words, " "), "", 6), serves)
			}
		}
	}
}

// searchWords returns the words of the question to search for: its
// content words without the verbs of how a figure moved ("jumped",
// "fell"), which say nothing of what moved; of more than eight, the eight
// rarest in filings, in the question's order. A long question's point is
// often in its last clause ("... jumped in FY2023. Does management expect
// that expense growth to continue into FY2024?"), past its first eight
// words.
func (b *builder) searchWords() []string {
	outside := b.outsideWords()
	all := slices.DeleteFunc(questionWordsN(b.question, b.cat, b.rt.Issuers, 0), func(w string) bool { return outside[w] })
	words := slices.DeleteFunc(slices.Clone(all), func(w string) bool {
		return fallWords.MatchString(w) || riseWords.MatchString(w) || steadyWords.MatchString(w) || adverb(w)
	})
	if len(words) < 2 {
		words = all
	}
	return rarest(words, questionWordCap, b.cat.TextStats())
}

// rarest returns at most n of words, the rarest in filings by stats'
// IDF (the earlier word between equals), in their own order.
func rarest(words []string, n int, stats *TextStats) []string {
	if len(words) <= n {
		return words
	}
	byRarity := slices.Clone(words)
	slices.SortStableFunc(byRarity, func(x, y string) int { return cmp.Compare(stats.IDF(y), stats.IDF(x)) })
	keep := byRarity[:n]
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return !slices.Contains(keep, w) })
}

// subjectWords returns the searchWords that name what the question is
// about: without the words of who holds a view and of holding one
// ("signalling", "management"), the verbs of asking and of what is
// expected, at most five, the rarest.
func (b *builder) subjectWords() []string {
	words := slices.DeleteFunc(b.searchWords(), func(w string) bool {
		return viewWords[w] || askingWords[w] || expecting.MatchString(w) || slices.Contains(OutlookWords, w)
	})
	return rarest(words, 5, b.cat.TextStats())
}

// expectsPronoun matches an expectation asked of a pronoun: "expect it
// to", "see them rising".
var expectsPronoun = regexp.MustCompile(`\b(?:expect|expects|expected|expecting|anticipate|anticipates|see|sees)\s+(?:it|them)\s+(?:to|rising|falling|growing|increasing|decreasing|declining)\b`)

// expectedOfPronoun returns the figure an expectation is asked of by a
// pronoun, as the question names it before ("What was interest expense
// and does mgmt expect it to keep rising into 2023 after refinancing":
// "interest expense"); "" when the question asks none so.
func (b *builder) expectedOfPronoun() string {
	norm := normalizeText(b.question)
	if loc := expectsPronoun.FindStringIndex(norm); loc != nil {
		return b.figureNamedIn(norm[:loc[0]])
	}
	return ""
}

// expectedTopic returns the words of what the question asks management's
// expectation of: the subject words of the clause that asks it ("Is Oracle
// signalling that growth in cloud services & license support expenses
// continues into FY24", not "or was FY23 the peak"), without how it is
// done ("heavily"), how it moves ("keep growing") or a phrase of
// expecting ("going forward"), each as its stem ("costs": "cost of
// shipping").
func (b *builder) expectedTopic() []string {
	if topic := b.expectedOfPronoun(); topic != "" {
		return termStems(topic)
	}
	clause := normalizeText(b.expectingClause(strings.ToLower(b.question), false))
	for _, w := range OutlookWords {
		if strings.Contains(w, " ") {
			clause = strings.ReplaceAll(clause, w, " ")
		}
	}
	// A noun after "that" or "this" ("expect that relief to last")
	// points back at what the question named before: that is the topic.
	referring := map[string]bool{}
	fields := strings.Fields(clause)
	for i := 0; i+1 < len(fields); i++ {
		if pointingDeterminers[fields[i]] {
			referring[fields[i+1]] = true
		}
	}
	var words []string
	for _, w := range b.subjectWords() {
		if !adverb(w) && !movement(w) && termIn(clause, w) && !referring[w] {
			words = append(words, termStem(w))
		}
	}
	if len(words) == 0 && len(referring) > 0 {
		topic := b.figureNamedBefore(clause)
		words = termStems(topic)
		if topic == "" {
			// Nothing named before: the noun is the topic after all.
			for _, w := range b.subjectWords() {
				if !adverb(w) && !movement(w) && termIn(clause, w) {
					words = append(words, termStem(w))
				}
			}
		}
	}
	return words
}

// plannedFigureIn returns the topic of the last figure the plan looks up
// whose name text (normalised) writes: the thing a later clause of the
// question refers back to; "" when none.
func (b *builder) plannedFigureIn(text string) string {
	topic := ""
	for _, r := range b.g.Requirements {
		t := strings.ToLower(r.Completion.Topic)
		if r.Kind == KindFigure && r.Completion.Kind == CondFact && t != "" && strings.Contains(text, t) {
			topic = t
		}
	}
	return topic
}

// figureNamedBefore returns the topic of the last figure the plan reads
// whose name the question writes before clause ("interest expense" of
// "eBay's interest expense fell in 2022. Does management expect that
// relief to last"); "" when none.
func (b *builder) figureNamedBefore(clause string) string {
	norm := normalizeText(b.question)
	at := strings.Index(norm, clause)
	if at < 0 {
		return ""
	}
	return b.figureNamedIn(norm[:at])
}

// figureNamedIn returns the topic of the last figure the question names
// in before, a normalised stretch of it from its start: a figure planned,
// the catalogue's or a row's the filings label, or one a sentence asserts
// a move of; "" when none is.
func (b *builder) figureNamedIn(before string) string {
	topic := b.plannedFigureIn(before)
	if topic == "" {
		// Before the figures are planned: the catalogue's figures and
		// the filings' rows the question names there.
		for _, f := range FindFigures(before) {
			topic = strings.ToLower(f.Phrase)
		}
		for _, words := range b.labelledFigures() {
			if w := strings.Join(words, " "); strings.Contains(before, w) {
				topic = w
			}
		}
	}
	if topic == "" {
		// The figure a sentence before asserts a move of ("eBay's
		// interest expense fell in 2022").
		if words := premiseWords(assertingSentence(b.question), issuerWordSet(b.cat, b.rt.Issuers)); len(words) > 0 && strings.Contains(before, strings.Join(words, " ")) {
			topic = strings.Join(words, " ")
		}
	}
	return topic
}

// expectingClause returns the clause of question (asides left out) that
// asks an expectation, or the whole question when no clause does; with
// commas, the part of that clause between commas that asks it ("does
// Apple expect gross margin pressure to continue", not "where tariffs
// weighed on products margin").
func (b *builder) expectingClause(question string, commas bool) string {
	clause := parenthetical.ReplaceAllString(question, " ")
	for _, c := range clauseSplit.Split(clause, -1) {
		if expectsClause.MatchString(strings.ToLower(c)) {
			clause = c
			break
		}
	}
	if commas {
		// An opening phrase of place or scope before it ("For AWS, does
		// Amazon expect ...") belongs to it.
		var lead []string
		for _, c := range strings.Split(clause, ",") {
			if expectsClause.MatchString(strings.ToLower(c)) {
				return strings.Join(append(lead, c), ",")
			}
			if f := strings.Fields(strings.ToLower(c)); len(f) > 0 && openingPrepositions[f[0]] {
				lead = append(lead, c)
			}
		}
	}
	return clause
}

// movement reports whether w is a verb of how a figure moves, in any of
// its forms ("narrow", "narrowed", "keep growing"): it says what is
// expected of the topic, not what the topic is.
func movement(w string) bool {
	for _, form := range []string{w, w + "ed", w + "s", w + "d"} {
		if fallWords.MatchString(form) || riseWords.MatchString(form) || steadyWords.MatchString(form) {
			return true
		}
	}
	return false
}

// adverb reports whether w is an adverb in "-ly" ("heavily",
// "significantly"), not one of the nouns and verbs that end so ("supply",
// "family", "apply").
func adverb(w string) bool {
	return strings.HasSuffix(w, "ly") && !lyWords[w] || timeAdverbs[w]
}

// timeAdverbs say when or how long, and name nothing asked: "still
// rising", "rising yet again".
var timeAdverbs = map[string]bool{"still": true, "yet": true, "already": true, "anymore": true, "again": true, "soon": true}

// lyWords are the English words in "-ly" that are no adverbs and may name
// what a question asks about.
var lyWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("supply oversupply undersupply resupply family assembly monopoly oligopoly duopoly anomaly rally ally italy july reply apply comply multiply") {
		lyWords[w] = true
	}
}

// searched reports whether a search the plan holds has word in its query.
func (b *builder) searched(word string) bool {
	for _, n := range b.g.Nodes {
		if n.Tool != tools.SearchFilings {
			continue
		}
		var a tools.SearchArgs
		if json.Unmarshal(n.Args, &a) == nil && slices.Contains(strings.Fields(strings.ToLower(a.Query)), word) {
			return true
		}
	}
	return false
}

// searchArgs are the arguments of a search of one issuer's filing.
func (b *builder) searchArgs(t string, p filingPeriod, query, section string, k int) tools.SearchArgs {
	args := tools.SearchArgs{
		Query:       strings.TrimSpace(query),
		Tickers:     []string{t},
		FiscalYears: []int{p.fy},
		K:           k,
	}
	if !p.found {
		// A quarter the corpus holds no 10-Q for is looked for in 10-Qs
		// alone, not in the year's annual report (periodsOf).
		args.Form = p.doc.Form
	} else {
		args.FiscalYears = []int{p.doc.FiscalYear}
		args.Form = p.doc.Form
		// Item headings of converted text and PDF filings are found
		// unreliably, so only an HTML filing is searched by item.
		if hasFacts(p.doc) {
			args.Section = formSection(p.doc.Form, section)
		}
	}
	return args
}

// formSection returns the item of a filing of form that holds what item
// section of an annual report holds: a 10-Q's discussion is its Item 2,
// its statements Item 1 and its market risk Item 3; a 10-Q has no
// business section (""). An annual form keeps the item as it is.
func formSection(form, section string) string {
	if !strings.HasPrefix(strings.ToUpper(form), "10-Q") {
		return section
	}
	switch section {
	case "Item 7":
		return "Item 2"
	case "Item 8":
		return "Item 1"
	case "Item 7A":
		return "Item 3"
	case "Item 1A":
		return "Item 1A"
	}
	return ""
}

// planPartGrowth plans the growth of the parts' figure the lookup l
// reads: its level against the year before, which the filing prints
// beside it ("Google Cloud revenue growth in 2024"; a 10-Q's quarter
// against the same quarter a year before). It returns the requirement.
func (b *builder) planPartGrowth(t string, p filingPeriod, segs []Segment, l looked, m reqMeta) string {
	period := tools.PeriodLabel(p.fy)
	var names []string
	for _, s := range segs {
		names = append(names, s.Name)
	}
	what := strings.Join(names, " ") + " revenue growth"
	id := t + "-" + period + "-figure-" + slug(what)
	if b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "revenue_growth", Kind: KindCalculation, Required: true,
		Need: fmt.Sprintf("%s's %s for %s: its revenue against the year before, as its %s %s prints them", b.cat.ShortName(t), what, period,
			tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: what, Of: []string{l.req}},
	}, m) {
		b.addNode(tools.Calculate, tools.CalculateArgs{
			Expression: "(revenue - revenue_prior) / revenue_prior",
			Facts: map[string]tools.FactRef{
				"revenue":       {Ticker: t, Concept: l.key, Period: period},
				"revenue_prior": {Ticker: t, Concept: l.key, Period: period, Prior: true},
			},
		}, []string{id}, l.node)
		// The filing prints the growth beside the part's figures
		// ("Cloud services $ 15,881 47% 50% $ 10,809").
		lower := make([]string, len(names))
		for i, n := range names {
			lower[i] = strings.ToLower(n)
		}
		// The part as the filing's table names it (its initials, say, for
		// the member's long name), whose row prints its growth too.
		if _, member, row := tools.SplitFigureKey(l.key); row != "" {
			if part, ok := strings.CutPrefix(member, corpus.TablePartPrefix); ok {
				lower = appendNew(lower, strings.ToLower(part))
			}
		}
		b.planPrintedAs(t, p, what, lower, strings.Join(lower, " ")+" revenues percent change", id, m)
		// Or in a table of growth rates under its caption, the part's row
		// a bare number ("Year-over-year Percentage Growth (Decline): ...
		// AWS 37 29").
		if pid := PrintedID(id); slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool { return r.ID == pid }) {
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, lower[len(lower)-1]+" year-over-year percentage growth", "", 6), []string{pid})
		}
	}
	return id
}

// partNames returns the names of the parts of issuer t's business the
// question names, in lower case.
func (b *builder) partNames(t string) []string {
	var out []string
	for _, s := range b.cat.SegmentsIn(b.question, t) {
		out = appendNew(out, strings.ToLower(s.Name))
	}
	return out
}

// wholeCountAsked reports whether the question asks a count in a clause
// naming none of issuer t's parts, beside a clause naming one: "How many
// full-time employees did Netflix have at the end of 2022, and roughly how
// many of them sat in the US and Canada?" asks both counts.
func (b *builder) wholeCountAsked(t string) bool {
	whole, part := false, false
	for _, c := range askClauses(b.question) {
		named := len(b.cat.SegmentsIn(c, t)) > 0
		part = part || named
		whole = whole || !named && howMany.MatchString(c)
	}
	return whole && part
}

// wordsBeyond returns the words a question names a measure by beyond an
// aspect's topic, a ratio of its figures ("the debt-to-equity ratio",
// "inventory turnover", "dividends per share"), as one group a sentence
// stating it must name; nil where it names none. The sentence must then
// name the measure, not only the topic and any number.
func (b *builder) wordsBeyond(a Aspect) []string {
	if m := perUnit.FindStringSubmatch(normalizeText(b.question)); m != nil {
		return []string{"per " + m[1]}
	}
	names := append(slices.Clone(a.Terms), a.Triggers...)
	clauses := askClauses(b.question)
	for _, c := range clauses {
		if len(clauses) > 1 && !slices.ContainsFunc(names, func(t string) bool { return termIn(normalizeText(c), normalizeTerm(t)) }) {
			// A ratio asked in a clause of its own ("How many employees
			// ..., and what was its overall turnover rate") is an item of
			// its own (planNamedRatio), not a measure of the topic.
			continue
		}
		for _, w := range ratioWords(c) {
			if ratioNouns[w] && !slices.ContainsFunc(names, func(t string) bool { return strings.Contains(strings.ToLower(t), w) }) {
				return wordForms(w)
			}
		}
	}
	return nil
}

// placeAsked returns the place a question narrows its count to, a name
// in capitals after "in", "based in" or "located in" ("How many eBay
// employees were based in Germany"): "" when it names none. An issuer's
// name and a word of a period (a month among them) are no place.
func (b *builder) placeAsked() string {
	m := placeIn.FindStringSubmatch(b.question)
	if m == nil {
		return ""
	}
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	for _, w := range strings.Fields(m[1]) {
		lw := strings.ToLower(w)
		if skip[lw] || skip[strings.TrimSuffix(lw, "'s")] || periodWord(lw) || fiscalWord[lw] {
			return ""
		}
	}
	return strings.ToLower(m[1])
}

// placeIn matches a place named in capitals after "in" ("based in
// Germany", "in the United Kingdom"): its words, group 1.
var placeIn = regexp.MustCompile(`\b(?:based|located|employed|work(?:ed|ing)?)\s+in\s+(?:the\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b`)

// ratioWords returns the question's words, lower case, asides left out,
// as the ratio nouns are looked for among them.
func ratioWords(question string) []string {
	return strings.FieldsFunc(normalizeText(withoutAsides(question)), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
}

// planNamedRatio plans a ratio the question names ("inventory turnover")
// that no requirement of the plan names: the figure as the filing states
// it, or its gap, so that the figures around it do not answer in its
// place. The ratio is named by its noun and the word before it.
func (b *builder) planNamedRatio() {
	if !b.rt.AsksFigure && !comparesFigures(b.question) && !asksHowMuch.MatchString(b.question) {
		return
	}
	ws := ratioWords(b.question)
	for i, w := range ws {
		if !ratioNouns[w] || i == 0 {
			continue
		}
		for _, r := range b.g.Requirements {
			if strings.Contains(strings.ToLower(r.Completion.Topic), w) || slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Contains(g, w) }) {
				return
			}
		}
		prev := strings.TrimSuffix(ws[i-1], "'s")
		if questionStopwords[prev] || phraseStopwords[prev] || len(prev) < 3 {
			return
		}
		b.planPhraseFigureOf([]string{prev, w})
		return
	}
}

// issuerWords returns words without those that are another asked
// issuer's own (TextStats.OwnIssuer): of "what share of the purchase
// price went to goodwill in Oracle's Cerner acquisition versus
// Microsoft's Nuance acquisition", Oracle's passage is asked for "cerner",
// not "nuance". Words are kept as they are when dropping would leave none.
func (b *builder) issuerWords(t string, words []string) []string {
	stats := b.cat.TextStats()
	if stats == nil || len(b.rt.Issuers) < 2 {
		return words
	}
	kept := slices.DeleteFunc(slices.Clone(words), func(w string) bool {
		o := stats.OwnIssuer(w)
		return o != "" && o != t && slices.Contains(b.rt.Issuers, o)
	})
	if len(kept) == 0 {
		return words
	}
	return kept
}

// ratioNouns name a measure that relates two figures; perUnit finds one
// written "per" a unit ("dividends per share").
var (
	ratioNouns = map[string]bool{"ratio": true, "ratios": true, "turnover": true, "yield": true, "coverage": true, "multiple": true, "payout": true}
	perUnit    = regexp.MustCompile(`\bper (share|member|user|subscriber|employee|unit|store|warehouse|square foot)\b`)
)

// planAspect plans one aspect of one issuer for one period and returns the
// ids of its required figure requirements.
func (b *builder) planAspect(t string, p filingPeriod, a Aspect, m reqMeta) []string {
	label := tools.PeriodLabel(p.fy)
	prefix := t + "-" + label + "-" + a.Name
	company := b.cat.ShortName(t)
	groups, query, topic := a.ExplainGroups(), a.Query, a.Label
	if a.Name == "general" {
		if words := b.issuerWords(t, b.questionWords()); len(words) > 0 {
			groups, query = b.topicGroups(words), strings.Join(words, " ")
			if asksWhy(b.question) {
				// Why, of the question's own topic ("Alphabet's TAC rate
				// declined in 2024 - from what to what, and why?"): a
				// sentence of the topic that gives a reason.
				groups = append(groups, DriverWords)
			}
		}
	}
	if a.Kind == KindOutlook && len(b.rt.Aspects) == 1 && len(b.rt.Figures) == 0 {
		// What management expects of a topic no aspect names ("Does
		// Oracle expect the Cerner-driven intangible amortization to keep
		// climbing"): an expectation about that topic, in the question's
		// own words, not any sentence that expects something.
		// The subject is the clause that asks the expectation ("Is Oracle
		// signalling that growth in cloud services & license support
		// expenses continues into FY24", not "or was FY23 the peak").
		if words := b.issuerWords(t, b.expectedTopic()); len(words) >= 1 {
			tg := b.topicGroups(words)
			groups = append(tg, groups...)
			var named []string
			for _, g := range tg {
				named = append(named, g...)
			}
			topic = strings.Join(named, " ") + " outlook"
		}
	}
	if a.Name == "general" || a.Name == "segments" {
		if terms := b.figureTerms(); len(terms) > 0 && asksWhy(b.question) {
			// Why a named figure moved: a sentence naming the figure with
			// a reason, as an aspect's explanation is, whatever verbs the
			// question used for the move ("pushed up", "higher"); of a
			// segment, the segment's figure ("Why did Amazon's North
			// America segment swing to an operating loss").
			groups = [][]string{terms, DriverWords}
			topic = b.figurePhrases()
			if a.Name == "segments" {
				if parts := b.partNames(t); len(parts) > 0 {
					groups = [][]string{parts, terms, DriverWords}
					query = strings.Join(parts, " ") + " " + topic + " primarily due to"
				}
			}
		}
	}
	partQuery := "" // a search for the part's own explanation, when one is asked
	if a.Name != "general" && a.Name != "segments" && len(a.Metrics) > 0 && asksReason(groups) && len(groups) == 2 {
		// Why a part's figure moved ("Amazon's International segment
		// sales fell 8% ... what was behind the decline"): the filing may
		// explain it in the question's word for the figure
		// ("International sales decreased 8% ... primarily due to"),
		// which the sentence naming the part then ranks first.
		if parts := b.partNames(t); len(parts) > 0 {
			terms := slices.Clone(groups[0])
			for _, f := range b.rt.Figures {
				if slices.Contains(a.Metrics, f.Metric) {
					phrase := strings.Join(append(slices.Clone(parts[:1]), f.Phrase), " ")
					terms = appendNew(terms, phrase)
					// The part's own discussion ("Google Cloud revenues
					// increased $10.1 billion ... primarily driven by") is
					// searched for by the part's name: the aspect's words
					// alone find the company's.
					partQuery = phrase + " increased primarily driven by"
				}
			}
			groups = [][]string{terms, groups[1]}
		}
	}
	countOf := false
	var wholeGroups [][]string // a count of the whole asked beside a part's (wholeCountAsked)
	asksCount := b.rt.AsksFigure && figureShaped.MatchString(b.question) || anyTerm(normalizeText(b.question), a.Counts) || perHead.MatchString(b.question)
	if len(a.Metrics) == 0 && a.Kind == KindExplanation && asksCount && !asksWhy(b.question) && !b.rt.Outlook {
		// "How many employees", "headcount at year-end": a topic the
		// catalogue has no figure for, asked as a number. The sentence
		// must state one.
		number := FigureTerm // "how much was spent on buybacks"
		switch noun := countedNoun(b.question); {
		case len(a.Counts) > 0:
			number = CountTerm // a number of people, not of dollars
		case noun != "":
			// "How many shares did NVIDIA repurchase": a number of shares
			// ("we repurchased 63 million shares"), not the dollars spent.
			number = NumberTerm + noun
		}
		groups = append(slices.Clone(groups), []string{number})
		countOf = true
		// A figure the question names beyond the topic ("the
		// debt-to-equity ratio", "dividends per share"): the sentence
		// must name it too, not only the topic and any number.
		// A figure per employee is computed over the count, not named
		// by the sentence stating it.
		if named := b.wordsBeyond(a); len(named) > 0 && !perHead.MatchString(b.question) {
			groups = append(groups, named)
		}
		// A part's count ("Reality Labs headcount") is stated of the
		// part: the issuer's whole count does not answer it.
		parts := b.partNames(t)
		if len(parts) > 0 && a.Name != "segments" {
			if b.wholeCountAsked(t) {
				wholeGroups = slices.Clone(groups)
			}
			groups = append(groups, parts)
		}
		// So is a place's ("employees based in Germany"): the count of
		// the whole, or of another country, does not answer it.
		if place := b.placeAsked(); place != "" && len(parts) == 0 {
			groups = append(groups, []string{place})
		}
	}
	if !p.found {
		id := prefix + "-" + kindSuffix(a.Kind)
		need := fmt.Sprintf("%s's %s for fiscal %d; the corpus holds no filing for that year", company, a.Label, p.fy)
		switch {
		case p.quarter != quarterAsk{}:
			// A passage of another quarter's 10-Q of the year does not
			// state this quarter: the sentence must be of the three
			// months ended in its month.
			id = prefix + "-" + p.quarter.slug() + "-" + kindSuffix(a.Kind)
			need = fmt.Sprintf("%s's %s for %s; the corpus holds no 10-Q for that quarter", company, a.Label, p.quarter)
			if p.unread {
				need = fmt.Sprintf("%s's %s for %s, stated in that quarter's 10-Q", company, a.Label, p.quarter)
			}
			if fyEnd, ok := b.cat.fiscalYearEnd(t); ok {
				groups = append(slices.Clone(groups), []string{"three months ended " + strings.ToLower(p.quarter.endMonth(fyEnd).String())})
			}
		case p.source > 0:
			need = fmt.Sprintf("%s's %s for fiscal %d, from its fiscal %d 10-K, which reports no later year", company, a.Label, p.fy, p.source)
		case p.doc.Form != "":
			need = fmt.Sprintf("%s's %s for the quarter asked, fiscal %d; the corpus holds no %s of that year, and an annual report does not state a quarter", company, a.Label, p.fy, p.doc.Form)
		}
		b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: a.Kind, Required: true,
			Need:       need,
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: a.Label, AllOf: groups},
		}, m)
		in := p
		if p.source > 0 {
			// A year after the report the question reads from is looked
			// for in that report, not in another.
			in.fy = p.source
		}
		b.addNode(tools.SearchFilings, b.searchArgs(t, in, query, "", 8), []string{id})
		return nil
	}
	if p.ahead > 0 {
		if !b.asksOwnYear(t, p) {
			b.planAhead(t, p, a, m)
			b.planUnreported(t, p, a, m)
		}
		return nil
	}
	form := p.doc.Form
	var figures []string
	tableFigures := false // figures read from a text filing's tables
	segs := b.cat.SegmentsIn(b.question, t)
	q, qualified := qualifiedFigure{}, false
	if len(a.Metrics) > 0 && len(segs) == 0 {
		q, qualified = b.qualifiedPart(t, a.Metrics[0])
	}
	if qualified {
		// A part of the figure the filing does not name as a segment:
		// that part, never the company-wide figure.
		if id := b.planQualifiedFigure(t, p, q, m); id != "" {
			figures = append(figures, id)
		}
		if q.Whole && b.canLookup(p, a.Metrics) {
			figures = append(figures, b.planFacts(t, p, a, m)...)
		}
	} else if len(a.Metrics) > 0 && len(segs) > 0 {
		// The named parts' figures, never the company's; of an aspect's
		// figures, those the question names when it names some ("Google
		// Cloud operating income" is not its net income, which no segment
		// reports).
		named := slices.DeleteFunc(slices.Clone(a.Metrics), func(metric string) bool {
			return !slices.ContainsFunc(b.rt.Figures, func(f FigureAsk) bool { return namesMetric(f, metric) })
		})
		metrics := a.Metrics
		if len(named) > 0 {
			metrics = named
		}
		metrics = segmentProfit(metrics, b.rt.Figures)
		// A row the part's table labels with a figure's name in it
		// ("average monthly revenue per paying membership in UCAN") is
		// that row of the part, not the part's revenue.
		rows, within := b.partLabelledRows(t, p, segs, m)
		figures = append(figures, rows...)
		metrics = slices.DeleteFunc(slices.Clone(metrics), within)
		// "iPhone and Mac net sales": each part's figure; "Mac net
		// sales in Europe": the one part of a part.
		for _, segs := range listedSegments(b.question, segs) {
			for _, metric := range metrics {
				req := !(a.Name == "margins" && metric == "gross_profit")
				if l, ok := b.lookupFigure(t, p, a.Name, metric, label, segs, req, m); ok && req {
					figures = append(figures, l.req)
					if asksShare(b.question) {
						b.planShare(t, p, a, metric, segs, l, m)
					}
					// A rate row ("comparable sales increase") is itself
					// the change asked; its growth would be a rate's.
					if a.Name == "revenue_growth" && metric == "revenue" && !b.cat.isChangeRate(p.doc.ID, l.key) {
						figures = append(figures, b.planPartGrowth(t, p, segs, l, m))
					}
				}
			}
			if a.Name == "margins" && (len(named) == 0 || slices.ContainsFunc(b.rt.Figures, func(f FigureAsk) bool { return f.Derived == "gross_margin" })) {
				// "Products gross margin %": the part's margin, computed
				// from the part's revenue and cost as the company's is.
				b.planDerived(t, p, a.Name, "gross_margin", segs, m)
			}
		}
		for _, q := range b.partsBeside(t, metrics, segs) {
			if id := b.planQualifiedFigure(t, p, q, m); id != "" {
				figures = append(figures, id)
			}
		}
	} else if len(a.Metrics) > 0 {
		if b.canLookup(p, a.Metrics) {
			figures = b.planFacts(t, p, a, m)
			tableFigures = !hasFacts(p.doc)
		} else {
			if form != "10-K" && hasFacts(p.doc) {
				b.note("%s's %s %s figures are read from its passages: lookup_fact reads annual periods.", t, label, form)
			}
			figures = b.planFigurePassages(t, p, a, m)
		}
	}

	if len(figures) > 0 && b.figuresOnly() {
		// The question asks for the figures, not for why they moved. A
		// figure read from a converted filing's table is corroborated by
		// the filing's own words stating it, when it has them.
		if tableFigures {
			b.planFigureStatement(t, p, a, m)
		}
		return figures
	}
	if (len(figures) > 0 || len(b.rt.Figures) > 0) && slices.Contains(b.rt.BaseYears, p.fy) {
		// A year named only as the base of a comparison ("lower than in
		// 2019"): its figures, not an account of its own.
		return figures
	}
	id := prefix + "-" + kindSuffix(a.Kind)
	need := fmt.Sprintf("%s's explanation of what drove its %s in its %s %s", company, a.Label, label, form)
	switch a.Kind {
	case KindRisk:
		need = fmt.Sprintf("the %s %s's %s %s describes", a.Label, company, label, form)
	case KindOutlook:
		need = fmt.Sprintf("what %s's management expects going forward, in its %s %s", company, label, form)
	}
	switch {
	case countOf && a.Name == "general":
		need = fmt.Sprintf("the figure %s's %s %s states on the question", company, label, form)
	case countOf && a.Name != "segments" && len(b.partNames(t)) > 0:
		need = fmt.Sprintf("the figure %s's %s %s states for the %s of %s", company, label, form, a.Label, strings.Join(b.partNames(t), ", "))
	case countOf:
		need = fmt.Sprintf("the figure %s's %s %s states for its %s", company, label, form, a.Label)
	case a.Name == "general":
		need = fmt.Sprintf("what %s's %s %s says on the question", company, label, form)
	case a.Kind == KindExplanation && !asksReason(groups):
		// A topic the filing describes ("competition"), not a figure
		// something drove.
		need = fmt.Sprintf("what %s's %s %s says about %s", company, label, form, a.Label)
	}
	if a.Kind == KindExplanation && a.Name != "general" && !countOf && !asksReason(groups) && reasonAsked.MatchString(normalizeText(b.question)) {
		// "Why did Meta's headcount grow": a topic the filing describes
		// ("Our employee headcount ... increased significantly over
		// time") answers why only in a sentence giving a reason.
		groups = append(slices.Clone(groups), ReasonWords)
		need = fmt.Sprintf("%s's reason, in its %s %s, for what the question asks of its %s", company, label, form, a.Label)
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: a.Kind, Required: true, Need: need,
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: topic, AllOf: groups},
	}, m)
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, a.Section, 8), []string{id})
	if wholeGroups != nil {
		// "How many full-time employees did Netflix have at the end of
		// 2022, and roughly how many of them sat in the US and Canada?":
		// the whole's count is asked as well as the part's.
		wid := id + "-whole"
		b.addReq(Requirement{
			ID: wid, Issuer: t, Period: label, Aspect: a.Name, Kind: a.Kind, Required: true,
			Need:       fmt.Sprintf("the figure %s's %s %s states for its %s", company, label, form, a.Label),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: topic, AllOf: wholeGroups},
		}, m)
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, a.Section, 8), []string{wid})
	}
	if countOf && len(groups) > 0 && len(b.periodsOf(t)) == 1 && asksGrowth(normalizeText(b.question)) {
		// "Meta headcount at Dec 31, 2024 and YoY change?": the count's
		// change is asked with it, stated by a sentence naming the topic,
		// a change and a figure beside the count ("Headcount was 74,067 as
		// of December 31, 2024, an increase of 10% year-over-year"), not
		// a part's growth ("a 13% growth in employee headcount ... in
		// engineering"). Two years asked show the change by their two
		// counts.
		cid := id + "-change"
		if b.addReq(Requirement{
			ID: cid, Issuer: t, Period: label, Aspect: a.Name, Kind: KindFigure, Required: true,
			Need:       fmt.Sprintf("how %s's %s changed, as its %s %s states it", company, a.Label, label, form),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: topic + " change", AllOf: [][]string{groups[0], ChangeWords, {FigureTerm}, groups[len(groups)-1]}},
		}, m) {
			// The topic in the question's own word ("headcount").
			norm := normalizeText(b.question)
			var own []string
			for _, term := range append(slices.Clone(a.Triggers), a.Terms...) {
				if termIn(norm, normalizeTerm(term)) {
					own = appendNew(own, term)
				}
			}
			words := strings.Join(own, " ")
			if words == "" {
				words = query
			}
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, words+" increase year-over-year", "", 8), []string{cid})
		}
	}
	if partQuery != "" {
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, partQuery, a.Section, 6), []string{id})
	}
	if a.Kind == KindOutlook {
		// What is expected for a year after the filing's own is written
		// for that year ("we expect this growth to continue during fiscal
		// 2024"): the question's subject with the year it names.
		for _, y := range b.rt.FiscalYears {
			subject := b.expectedOfPronoun() // "expect it to keep rising into 2023"
			if subject == "" {
				subject = strings.Join(b.subjectWords(), " ")
			}
			if y == p.doc.FiscalYear+1 && subject != "" {
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, fmt.Sprintf("%s fiscal %d", subject, y), "", 10), []string{id})
			}
		}
	}
	if label := b.ownLabel(p, a); addsWords(label, query) && a.Kind == KindExplanation && asksReason(groups) {
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, label+" primarily due to", a.Section, 6), []string{id})
	}
	if tableFigures {
		// A text filing's discussion of its figures sits beside the table
		// that prints them: search for the figures' words as well.
		var labels []string
		for _, metric := range a.Metrics {
			if mt, ok := tools.MetricByName(metric); ok {
				labels = append(labels, mt.Label)
			}
		}
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, "total "+strings.Join(labels, " "), "", 10), []string{id})
	}

	if b.rt.Outlook && a.Kind != KindOutlook {
		oid := prefix + "-outlook"
		om := m
		om.extra = true
		groups, what, topic := [][]string{termsAsked(a, b.question), OutlookWords}, "its "+a.Label, a.Label+" outlook"
		// Of a part the question names ("does Amazon expect ... weighing
		// on AWS growth to persist"), the expectation for a figure is the
		// part's: a sentence naming the part ("to impact our AWS revenue
		// growth rates"), not the company's guidance.
		// The parts are those of the clause asking the expectation: "where
		// tariffs weighed on products margin, does Apple expect gross
		// margin pressure to continue" asks of the company's margin.
		var parts []string
		if a.Name != "segments" && len(a.Metrics) > 0 {
			for _, seg := range b.cat.SegmentsIn(b.expectingClause(b.question, true), t) {
				parts = append(parts, b.partAliases(t, seg)...)
			}
		}
		if ec := strings.ToLower(b.expectingClause(b.question, true)); len(parts) == 0 && a.Name != "segments" && len(a.Metrics) > 0 &&
			expectsClause.MatchString(ec) && shareIn.MatchString(ec) {
			// A share of a row of the issuer's the clause names ("Is
			// Oracle expecting cloud services to keep taking a bigger
			// slice of its total revenue"): the expectation is the row's.
			parts = b.rowsNamedIn(b.expectingClause(b.question, true))
		}
		if len(parts) == 0 && a.Name != "segments" && len(a.Metrics) > 0 && refersToShare.MatchString(strings.ToLower(b.expectingClause(b.question, true))) {
			// "What share of revenue came from cloud services, and does
			// management expect that share to keep rising?": the share
			// pointed back to is the part's, named before.
			for _, seg := range b.cat.SegmentsIn(b.question, t) {
				parts = append(parts, b.partAliases(t, seg)...)
			}
			if len(parts) == 0 {
				// A part the filing prints as a row of its own, not a
				// segment ("Cloud services").
				parts = append(parts, b.shareParts[t]...)
			}
			if len(parts) == 0 {
				// "ORCL cloud services were ~32% of FY23 revenue. Does
				// management expect that mix shift to keep going?": the
				// row named before.
				parts = b.rowsNamedIn(b.question)
			}
		}
		if len(parts) > 0 {
			groups = [][]string{parts, termsAsked(a, b.question), OutlookWords}
			what, topic = asWritten(b.question, strings.Fields(parts[0]))+" "+a.Label, asWritten(b.question, strings.Fields(parts[0]))+" "+a.Label+" outlook"
		}
		if c := b.expectingClause(b.question, true); expectsClause.MatchString(strings.ToLower(c)) && figureShaped.MatchString(c) && len(a.Metrics) > 0 {
			// The expectation asked as a number ("How many dollars of
			// capital expenditures has Alphabet guided for 2025") is met
			// by a sentence stating the figure expected, not by one that
			// expects the figure to rise.
			groups = append(slices.Clone(groups), []string{ExpectedTerm})
		}
		b.addReq(Requirement{
			ID: oid, Issuer: t, Period: label, Aspect: a.Name, Kind: KindOutlook, Required: true,
			Need:       fmt.Sprintf("what %s's management expects for %s going forward, in its %s %s", company, what, label, form),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: topic, AllOf: groups},
		}, om)
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, a.Label+" expect future", "", 8), []string{oid})
		if len(parts) > 0 {
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, parts[0]+" "+a.Label+" expect", "", 8), []string{oid})
		}
		if label := b.ownLabel(p, a); addsWords(label, a.Label) {
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, label+" expected", "", 6), []string{oid})
		}
		// Guidance for a year after the filing's is written for that year
		// ("for fiscal 2023, we project capital expenditures will be").
		for _, y := range b.rt.FiscalYears {
			if y > p.doc.FiscalYear {
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, fmt.Sprintf("%s fiscal %d", a.Label, y), "", 6), []string{oid})
			}
		}
	}
	return figures
}

// rowsNamedIn returns, lower case, the rows of the asked issuers' filings
// that text names by their labels (labelledRuns), other than a catalogue
// figure's name ("total revenue"): "cloud services" in "Is Oracle
// expecting cloud services to keep taking a bigger slice of its total
// revenue".
func (b *builder) rowsNamedIn(text string) []string {
	var out []string
	for _, l := range b.labelledRunsIn(text, false) {
		if len(l.words) < 2 || namesCatalogueFigure(l.words) {
			continue
		}
		if n := strings.ToLower(strings.Join(l.words, " ")); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// shareIn matches, in a lower-case clause, a share of a whole asked: "a
// bigger slice of its total revenue", "the mix of".
var shareIn = regexp.MustCompile(`\b(?:` + shareNouns + `|slice|mix)\s+of\b`)

// refersToShare matches, in a lower-case clause, words pointing back to a
// share named before: "that share", "this mix", "the proportion".
var refersToShare = regexp.MustCompile(`\b(?:that|this|the|its|their)\s+(?:` + shareNouns + `|mix|slice)\b`)

// ownLabel returns the words the filing prints for the aspect's figure,
// to search for what it says of the figure in its own words ("Net revenues
// ... primarily due to", "Net sales are expected to be", where the
// aspect's query says "net sales revenue increased"): the row label of the
// aspect's figure the question names, or of its one figure, without
// "total". It returns "" when the aspect has no such figure.
func (b *builder) ownLabel(p filingPeriod, a Aspect) string {
	if !p.found {
		return ""
	}
	metric := ""
	for _, f := range b.rt.Figures {
		if slices.Contains(a.Metrics, f.Metric) {
			metric = f.Metric
			break
		}
	}
	if metric == "" && len(a.Metrics) == 1 {
		metric = a.Metrics[0]
	}
	m, ok := tools.MetricByName(metric)
	if !ok {
		return ""
	}
	key, ok := b.cat.ResolveMetric(p.doc.ID, m, "", b.question)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(normLabel(b.cat.FigureLabel(p.doc.ID, key)), "total ")
}

// asksReason reports whether a passage condition's groups ask for a
// reason (one of them is DriverWords).
func asksReason(groups [][]string) bool {
	return slices.ContainsFunc(groups, func(g []string) bool { return slices.Equal(g, DriverWords) })
}

// addsWords reports whether label holds a word query does not.
func addsWords(label, query string) bool {
	return label != "" && !allIn(strings.Fields(label), strings.Fields(normLabel(query)))
}

// planFigureStatement plans an optional passage of the filing stating the
// aspect's figures, beside the figures read from its tables.
func (b *builder) planFigureStatement(t string, p filingPeriod, a Aspect, m reqMeta) {
	label := tools.PeriodLabel(p.fy)
	var words, labels []string
	for _, metric := range a.Metrics {
		if mt, ok := tools.MetricByName(metric); ok {
			words = appendNew(words, mt.Label)
			words = appendNew(words, mt.Aliases...)
			labels = append(labels, mt.Label)
		}
	}
	if len(words) == 0 {
		return
	}
	id := t + "-" + label + "-" + a.Name + "-statement"
	if !b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: KindFigure, Required: false,
		Need:       fmt.Sprintf("the %s %s's own words stating %s's %s", label, p.doc.Form, b.cat.ShortName(t), joinAnd(labels)),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: joinAnd(labels), AllOf: [][]string{words, {FigureTerm}}},
	}, m) {
		return
	}
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, "total "+strings.Join(labels, " "), "", 10), []string{id})
}

// quantityWords say how much of a figure is asked ("total deferred
// revenue", "the amount of"), not what it is: a sentence on the topic need
// not use them.
var quantityWords = map[string]bool{"total": true, "amount": true, "number": true, "figure": true, "value": true, "sum": true}

// topicGroups is the condition on a passage about the question's own
// words: a sentence naming each of its two rarest words in the filings
// (by the document frequency of the corpus's statistics, the earlier
// word between equals); without statistics, or with one word, that word.
// "Meta's quantum computing roadmap" needs "quantum" and "computing", so
// a sentence on its AI roadmap does not meet it.
func (b *builder) topicGroups(words []string) [][]string {
	stats := b.cat.TextStats()
	if stats == nil || len(words) < 2 {
		return [][]string{words}
	}
	// The verbs a question asks with ("rise", "drove", "hurt") say how
	// the topic moved or what is asked of it, not what it is: a sentence
	// on the topic need not repeat them.
	rare := slices.DeleteFunc(slices.Clone(words), func(w string) bool {
		return fallWords.MatchString(w) || riseWords.MatchString(w) || causingWords[w] || affecting[w] || askingWords[w] || comparatives[w] || quantityWords[w]
	})
	if len(rare) < 2 {
		rare = slices.Clone(words)
	}
	slices.SortStableFunc(rare, func(x, y string) int { return cmp.Compare(stats.IDF(y), stats.IDF(x)) })
	return [][]string{{rare[0]}, {rare[1]}}
}

// figureTerms returns the words a sentence may use for the figures the
// question names: each one's phrase in the question and the catalogue's
// names for it.
func (b *builder) figureTerms() []string {
	var out []string
	for _, f := range b.rt.Figures {
		out = appendNew(out, f.Phrase)
		if m, ok := tools.MetricByName(f.Metric); ok && f.Metric != "" {
			out = appendNew(out, strings.ToLower(m.Label))
			out = appendNew(out, m.Aliases...)
		}
		if d, ok := tools.DerivedByName(f.Derived); ok && f.Derived != "" {
			out = appendNew(out, d.Aliases...)
			// A ratio moves with its numerator: "Provision for income
			// taxes decreased ... primarily due to" explains the
			// effective tax rate's fall.
			if in := d.Inputs(); d.Ratio && len(in) > 0 && strings.HasPrefix(d.Expression, in[0]+" /") {
				if m, ok := tools.MetricByName(in[0]); ok {
					out = appendNew(out, strings.ToLower(m.Label))
					out = appendNew(out, m.Aliases...)
				}
			}
		}
	}
	return out
}

// figurePhrases names the figures the question names, in its words.
func (b *builder) figurePhrases() string {
	var out []string
	for _, f := range b.rt.Figures {
		out = appendNew(out, f.Phrase)
	}
	return joinAnd(out)
}

// figuresOnly reports whether the question asks for figures and nothing
// about them: it asks for a number ("what was", "how much") or compares
// issuers' figures, and asks neither why nor what is expected. Such a
// question is answered by the figures; management's explanation is not
// planned.
func (b *builder) figuresOnly() bool {
	if asksWhy(b.question) || b.rt.Outlook || b.rt.Causal != nil {
		return false
	}
	return b.rt.AsksFigure || len(b.rt.Issuers) >= 2 && comparesFigures(b.question)
}

// comparesFigures reports whether a question sets figures side by side.
func comparesFigures(q string) bool {
	return anyTerm(normalizeText(q), []string{"compare", "comparison", "versus", "vs", "against", "relative to", "side by side", "higher", "lower", "larger", "smaller", "bigger"})
}

func kindSuffix(k RequirementKind) string {
	switch k {
	case KindRisk:
		return "risk"
	case KindOutlook:
		return "outlook"
	}
	return "explanation"
}

// planFacts plans an aspect's figures as tagged facts, and its
// calculation. It returns the required figure requirement ids.
func (b *builder) planFacts(t string, p filingPeriod, a Aspect, m reqMeta) []string {
	label := tools.PeriodLabel(p.fy)
	prefix := t + "-" + label + "-" + a.Name
	company := b.cat.ShortName(t)
	got := map[string]looked{}
	var required []string
	lookup := func(metric, period string, required bool) (looked, bool) {
		if d, ok := tools.DerivedByName("gross_margin"); ok && a.Name == "margins" {
			// A margin the filing prints as the difference of two of its
			// rows ("Net sales", "Less merchandise costs", "Gross
			// margin") is computed from those rows, as it defines it.
			return b.lookupInput(t, p, a.Name, d, metric, period, nil, required, m)
		}
		return b.lookupFigure(t, p, a.Name, metric, period, nil, required, m)
	}
	for _, metric := range b.aspectMetrics(a) {
		// Gross profit is optional: Alphabet, Meta, Amazon and Netflix do
		// not tag it, and the margin is computed from revenue and cost.
		req := !(a.Name == "margins" && metric == "gross_profit")
		if l, ok := lookup(metric, label, req); ok {
			got[metric] = l
			if req {
				required = append(required, l.req)
			}
		}
	}
	// calc plans the aspect's calculation over the named figures, each
	// name's figure of period periods[name] (the aspect's period when none).
	calc := func(need, topic, expr string, periods map[string]string, names ...string) {
		facts := map[string]tools.FactRef{}
		var of, deps []string
		for _, n := range names {
			period := cmp.Or(periods[n], label)
			facts[n] = tools.FactRef{Ticker: t, Concept: got[n].key, Period: period}
			of, deps = append(of, got[n].req), append(deps, got[n].node)
		}
		b.addCalculation(prefix+"-calculation", t, label, a.Name, need, topic, tools.CalculateArgs{Expression: expr, Facts: facts}, of, deps, m)
	}
	switch a.Name {
	case "margins":
		b.planReportedRatio(t, p, a.Name, []string{"gross", "margin", "percentage"}, m)
		switch {
		case got["revenue"].req == "":
		case got["cost_of_revenue"].req != "":
			calc(fmt.Sprintf("%s's %s gross margin, computed as (revenue - cost of revenue) / revenue from its reported figures", company, label),
				"gross margin", "(revenue - cost_of_revenue) / revenue", nil, "revenue", "cost_of_revenue")
		case got["gross_profit"].req != "":
			// The filing prints gross profit but no cost row to subtract.
			calc(fmt.Sprintf("%s's %s gross margin, computed as gross profit / revenue from its reported figures", company, label),
				"gross margin", "gross_profit / revenue", nil, "revenue", "gross_profit")
		}
		if d, ok := tools.DerivedByName("gross_margin"); ok && slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool { return r.ID == prefix+"-calculation" }) &&
			!slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, prefix+"-reported-") }) {
			// The margin as the filing prints it ("Gross margin was 56.9%
			// and 64.9% for fiscal years 2023 and 2022"), beside the one
			// computed, where no row of the filing reports it already.
			b.planPrinted(t, p, d, prefix+"-calculation", m)
		}
	case "revenue_growth":
		if got["revenue"].req == "" {
			return required
		}
		if p.fq > 0 {
			// A quarter read from an annual report's table of quarters
			// grew over the quarter before it, where the question asks
			// so, else over the same quarter a year before.
			revenue := got["revenue"]
			now := tools.FactRef{Ticker: t, Concept: revenue.key, Period: label, FiscalQuarter: p.fq}
			before := now
			before.Prior = true
			need := fmt.Sprintf("%s's revenue growth in Q%d of %s over the same quarter a year before, computed from its reported revenue", company, p.fq, label)
			topic := fmt.Sprintf("revenue growth, Q%d %s over Q%d %s", p.fq, label, p.fq, tools.PeriodLabel(p.fy-1))
			of, deps := []string{revenue.req}, []string{revenue.node}
			expr := "(revenue - revenue_prior) / revenue_prior"
			facts := map[string]tools.FactRef{"revenue": now, "revenue_prior": before}
			if l, ref, ok := b.planQuarterBefore(t, p, a.Name, "revenue", revenue.key, m); ok {
				required = append(required, l.req)
				need = fmt.Sprintf("%s's revenue growth in Q%d of %s over the quarter before, computed from its reported revenue", company, p.fq, label)
				topic = fmt.Sprintf("revenue growth, Q%d %s over Q%d %s", p.fq, label, ref.FiscalQuarter, ref.Period)
				of, deps = append(of, l.req), append(deps, l.node)
				expr = "(revenue - prior_quarter_revenue) / prior_quarter_revenue"
				facts = map[string]tools.FactRef{"revenue": now, "prior_quarter_revenue": ref}
			}
			b.addCalculation(prefix+"-calculation", t, label, a.Name, need, topic, tools.CalculateArgs{Expression: expr, Facts: facts}, of, deps, m)
			return required
		}
		priorLabel := tools.PeriodLabel(p.fy - 1)
		prior, ok := lookup("revenue", priorLabel, true)
		if !ok {
			return required
		}
		required = append(required, prior.req)
		got["revenue_prior"] = prior
		calc(fmt.Sprintf("%s's revenue growth from %s to %s, computed from its reported revenue", company, priorLabel, label),
			"revenue growth", "(revenue - revenue_prior) / revenue_prior", map[string]string{"revenue_prior": priorLabel}, "revenue", "revenue_prior")
	}
	return required
}

// addCalculation plans a required calculation of issuer t's figures for
// period: its requirement over the requirements of, and the calculate
// node after deps.
func (b *builder) addCalculation(id, t, period, aspect, need, topic string, args tools.CalculateArgs, of, deps []string, m reqMeta) {
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindCalculation, Required: true, Need: need,
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: topic, Of: of},
	}, m)
	b.addNode(tools.Calculate, args, []string{id}, deps...)
}

// planFigurePassages plans an aspect's figures as passages that state them,
// for a filing without tagged facts (or a 10-Q). One search serves them
// all. It returns the required figure requirement ids.
func (b *builder) planFigurePassages(t string, p filingPeriod, a Aspect, m reqMeta) []string {
	label := tools.PeriodLabel(p.fy)
	prefix := t + "-" + label + "-" + a.Name
	company := b.cat.ShortName(t)
	var ids, required, labels []string
	for _, metric := range b.aspectMetrics(a) {
		mt, ok := tools.MetricByName(metric)
		if !ok {
			continue
		}
		req := !(a.Name == "margins" && metric == "gross_profit")
		words := appendNew([]string{mt.Label}, mt.Aliases...)
		if metric == "gross_profit" {
			words = appendNew(words, "gross margin")
		}
		groups := [][]string{words, {FigureTerm}}
		need := fmt.Sprintf("a passage of %s's %s %s stating its %s", company, label, p.doc.Form, mt.Label)
		if a.Name == "revenue_growth" {
			groups = [][]string{words, ChangeWords, {FigureTerm}}
			need = fmt.Sprintf("a passage of %s's %s %s stating its %s and how it changed", company, label, p.doc.Form, mt.Label)
		}
		id := prefix + "-figure-" + metric
		b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: KindFigure, Required: req, Need: need,
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: mt.Label, AllOf: groups},
		}, m)
		ids = append(ids, id)
		labels = append(labels, mt.Label)
		if req {
			required = append(required, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	query := "total " + strings.Join(labels, " ")
	if a.Name == "revenue_growth" {
		query = "revenue increased"
	}
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 10), ids)
	return required
}

// aspectMetrics returns the figures of an aspect a plan looks up: those
// the question names, where it names some of an aspect that gathers
// several independent figures ("operating income" of operating and net
// income); all of them otherwise, and always for an aspect whose figures
// are the inputs of its calculation (gross margin, revenue growth).
func (b *builder) aspectMetrics(a Aspect) []string {
	if len(a.Metrics) < 2 || a.Name == "margins" || a.Name == "revenue_growth" {
		return a.Metrics
	}
	q := normalizeText(b.question)
	var named []string
	for _, metric := range a.Metrics {
		if mt, ok := tools.MetricByName(metric); ok && anyTerm(q, tools.MetricPhrases(mt)) {
			named = append(named, metric)
		}
	}
	if len(named) == 0 {
		return a.Metrics
	}
	return named
}

// planComparability plans the optional cross-issuer requirement for an
// aspect's figures; finish notes where the issuers' fiscal years differ.
func (b *builder) planComparability(a Aspect, figures, issuers []string, ai int) {
	id := "comparability-" + a.Name
	b.addReq(Requirement{
		ID: id, Aspect: a.Name, Kind: KindComparability, Required: false,
		Need:       fmt.Sprintf("%s figures of %s supported for stated periods, so they can be compared", a.Label, joinAnd(issuers)),
		Completion: Condition{Kind: CondComparable, Of: slices.Clone(figures)},
	}, reqMeta{aspect: ai, issuer: -1})
	for i := range b.g.Nodes {
		n := &b.g.Nodes[i]
		if slices.ContainsFunc(n.Serves, func(s string) bool { return slices.Contains(figures, s) }) {
			n.Serves = appendNew(n.Serves, id)
		}
	}
	b.compared = append(b.compared, comparison{aspect: a, figures: slices.Clone(figures)})
}

// comparison is an aspect whose figures are compared across issuers.
type comparison struct {
	aspect  Aspect
	figures []string // the required figure requirement ids
}

// comparisonNotes notes, for each comparison whose figures of two or more
// issuers survived trimming, where the issuers' periods differ and how a
// ratio is defined for all of them.
func (b *builder) comparisonNotes() {
	for _, c := range b.compared {
		var issuers []string
		for _, id := range c.figures {
			if i, ok := b.reqIdx[id]; ok {
				issuers = appendNew(issuers, b.g.Requirements[i].Issuer)
			}
		}
		if len(issuers) < 2 {
			continue
		}
		var ends []string
		months, years := map[string]bool{}, map[int]bool{}
		for _, t := range issuers {
			for _, p := range b.periodsOf(t) {
				if !p.found {
					continue
				}
				ends = append(ends, fmt.Sprintf("%s %s ends %s", t, tools.PeriodLabel(p.fy), p.doc.PeriodEnd.Format("2006-01-02")))
				months[p.doc.PeriodEnd.Format("01-02")] = true
				years[p.fy] = true
			}
		}
		switch {
		case len(years) > 1:
			b.note("The issuers' fiscal years differ (%s): their figures cover different periods and are compared as reported.", strings.Join(ends, "; "))
		case len(months) > 1:
			b.note("The issuers' fiscal years end on different dates (%s): their figures cover different twelve-month periods.", strings.Join(ends, "; "))
		}
		if c.aspect.Name == "margins" {
			b.note("Gross margin is computed the same way for every issuer, (revenue - cost of revenue) / revenue, since not every issuer tags gross profit.")
		}
	}
}

// planCausal plans the requirement that one filing links the cause to the
// effect in one sentence.
func (b *builder) planCausal(t string, p filingPeriod, c *Causal, ii int) {
	label := tools.PeriodLabel(p.fy)
	company := b.cat.ShortName(t)
	var causeLabels, effectLabels, queryTerms []string
	for _, n := range c.CauseAspects {
		if a, ok := AspectByName(n); ok {
			causeLabels = append(causeLabels, a.Label)
			queryTerms = append(queryTerms, a.Query)
		}
	}
	for _, n := range c.EffectAspects {
		if a, ok := AspectByName(n); ok {
			effectLabels = append(effectLabels, a.Label)
			queryTerms = append(queryTerms, a.Label)
		}
	}
	groups := [][]string{slices.Clone(c.Cause)}
	if len(c.CauseWords) > 0 {
		causeLabels = append(causeLabels, strings.Join(c.CauseWords, " "))
		queryTerms = append(queryTerms, c.CauseWords...)
		groups = nil
		for _, w := range c.CauseWords {
			groups = append(groups, []string{w})
		}
	}
	if len(groups) == 0 || len(groups[0]) == 0 || len(c.Effect) == 0 {
		return
	}
	groups = append(groups, slices.Clone(c.Effect))
	aspect := ""
	if len(c.EffectAspects) > 0 {
		aspect = c.EffectAspects[0]
	}
	id := t + "-" + label + "-causal"
	cause, effect := joinAnd(causeLabels), joinAnd(effectLabels)
	if effect == "" {
		effect = c.Effect[0]
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: aspect, Kind: KindExplanation, Required: true,
		Need: fmt.Sprintf("a passage in which %s's filing for %s links %s to %s, in one sentence", company, label, cause, effect),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: cause + " and " + effect,
			AllOf: groups},
	}, reqMeta{aspect: -1, issuer: ii, extra: true})
	if len(queryTerms) == 0 {
		// Cause and effect named by figures, not aspects ("the net loss
		// happened because AWS swung to an operating loss"): searched
		// for by their terms.
		queryTerms = append(slices.Clone(c.Cause[:min(2, len(c.Cause))]), c.Effect[:min(2, len(c.Effect))]...)
	}
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, strings.Join(queryTerms, " "), "", 10), []string{id})

	// What the filing does say moved the effect, as context: a correct
	// answer to a question whose premise the filing does not bear out
	// quotes the stated driver instead.
	eid := t + "-" + label + "-causal-context"
	if _, dup := b.reqIdx[eid]; dup {
		return
	}
	b.addReq(Requirement{
		ID: eid, Issuer: t, Period: label, Aspect: aspect, Kind: KindExplanation, Required: false,
		Need:       fmt.Sprintf("what %s's filing for %s says drove its %s", company, label, effect),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: effect, AllOf: [][]string{slices.Clone(c.Effect), DriverWords}},
	}, reqMeta{aspect: -1, issuer: ii, extra: true})
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, strings.Join(c.Effect[:min(2, len(c.Effect))], " ")+" increased decreased primarily due to", "", 8), []string{eid})
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// questionStopwords are left out of a question's words when they become a
// search and a condition.
var questionStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what which when where who whom whose why how does did do done doing is are was
	were be been being have has had having the a an and or but if then than that this these those there their
	they them its it's our your you about into onto from with without within for over under between through
	during before after above below more most much many some any each every other such only own same very can
	could should would will shall may might must tell say says said describe explain discuss company companies
	corporation inc filing filings report reports reported annual fiscal year years latest recent according per
	also just like make made give given main mainly please want know compare compared comparison contrast
	characterize characterise summarize summarise outline versus not out all any new now via yet one two six
	ten get got put let see use way far off too few lot big etc yes ago who why how say the and for are but
	its was has had did can may our per vs end day ytd yoy qoq ttm ltm fye
	come came comes coming go goes went gone keep keeps kept seem seems seemed
	look looks looked mean means meant happen happens happened even though although while despite whereas
	roughly approximately approx around nearly almost circa true false correct accurate
	try tries tried trying wanted wanting needing hoping wondering curious understand
	something anything somewhere somewhat`) {
		questionStopwords[w] = true
	}
}

// questionWords returns the question's content words (questionWords)
// without the names of the issuers it names that the corpus lacks ("DIS vs
// NFLX": "dis" is Disney, not what Netflix's filing must say).
func (b *builder) questionWords() []string {
	outside := b.outsideWords()
	return slices.DeleteFunc(questionWords(b.question, b.cat, b.rt.Issuers), func(w string) bool { return outside[w] })
}

// outsideWords are the words of the names the question gives of issuers
// the corpus does not hold.
func (b *builder) outsideWords() map[string]bool {
	outside := map[string]bool{}
	for _, nc := range b.rt.NotCovered {
		for _, w := range strings.FieldsFunc(strings.ToLower(nc), func(r rune) bool { return !unicode.IsLetter(r) }) {
			outside[w] = true
		}
	}
	return outside
}

// QuestionWords returns the content words of a question (questionWords).
func QuestionWords(question string, cat *Catalog, issuers []string) []string {
	if cat == nil {
		cat = NewCatalog(nil)
	}
	return questionWords(question, cat, issuers)
}

// Asides of a question that say nothing of what it asks: a date written
// out ("FYE Aug 28, 2022", "the year ended January 29, 2023", "Jan-29-2023",
// "Jan-23 FYE", "May-2023"), which the
// router reads as a period, and a sentence granting a format ("Billions is
// fine.", "Count in millions is fine"), besides the instruction clauses
// corpus.StripInstructions knows.
var (
	datePhrase    = regexp.MustCompile(`(?i)\b(?:fye|fiscal\s+year\s+end(?:ed|ing)?|(?:fiscal\s+)?years?\s+end(?:ed|ing)|period\s+end(?:ed|ing)|quarter\s+end(?:ed|ing))\b|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+|-)\d{1,2}(?:st|nd|rd|th)?\b(?:(?:,?\s*|-)(?:19|20)?\d{2}\b)?|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)-(?:19|20)\d{2}\b`)
	grantedFormat = regexp.MustCompile(`(?i)(?:^|[.?!;]\s*|\s[-–—]\s*)[^.?!;]{0,40}?\b(?:is|are)\s+(?:fine|ok|okay|good|enough|acceptable)\b[.!]?`)
)

// withoutAsides blanks out a question's dates, granted formats and
// instruction clauses.
func withoutAsides(q string) string {
	if loc := askMarker.FindStringIndex(q); loc != nil && len(strings.Fields(q[loc[1]:])) >= 4 {
		// "I've been a subscriber since ... what I actually want to know
		// is: how many paid memberships ...": the context before the ask
		// names nothing asked.
		q = q[loc[1]:]
	}
	q = grantedFormat.ReplaceAllString(q, " ")
	q = datePhrase.ReplaceAllString(q, " ")
	q = withoutHearsay(q)
	return corpus.StripInstructions(q)
}

// hearsay matches the words before a verb of saying that open a sentence
// or a clause ("A newsletter I get says", "Someone told me", "Saw a tweet
// saying"): who says what the question then checks, when it is not the
// issuer (withoutHearsay). Verbs that are also participles or nouns are
// left out ("Services revenue reported for fiscal 2024", "the risks
// mentioned"), and "claims" is a verb only after a sayer opened by "a" or
// "an" ("A blog post claims", not "product warranty claims").
var hearsay = regexp.MustCompile(`(?:^|[.?!;:]\s+|\s[-–—]\s+)((?:[\w'’-]+\s+){1,6}?)(says|said|saying|claims|told\s+me|tells\s+me|wrote|writes)\b(?:\s+that\b)?`)

// notHearsay are the words that make the one saying something the issuer,
// its filing or its people ("management said", "the 10-K says"), or the
// words a question asks with ("what was the revenue reported").
var notHearsay = map[string]bool{"management": true, "mgmt": true, "company": true, "filing": true, "filings": true, "10-k": true,
	"10-q": true, "report": true, "board": true, "ceo": true, "cfo": true, "they": true, "it": true, "we": true, "he": true,
	"she": true, "what": true, "how": true, "which": true, "who": true, "why": true, "when": true, "where": true, "was": true,
	"were": true, "is": true, "are": true, "did": true, "does": true, "do": true, "has": true, "have": true, "had": true,
	"statement": true, "note": true, "its": true, "their": true}

// indefiniteSayers are the sayers of one word that name no one in
// particular.
var indefiniteSayers = map[string]bool{"someone": true, "somebody": true, "everyone": true, "everybody": true, "people": true}

// withoutHearsay blanks out who says what a question checks, when that is
// someone other than the issuer: "A newsletter I get says Netflix ended
// 2024 with about 301.6 million paid memberships" asks of paid
// memberships, not of newsletters. A sayer written with a capital past
// its first word ("what Tim Cook said") is not blanked, nor one word other
// than an indefinite pronoun ("Apple said"), nor one holding a word of
// notHearsay.
func withoutHearsay(q string) string {
	return hearsay.ReplaceAllStringFunc(q, func(m string) string {
		sub := hearsay.FindStringSubmatch(m)
		words := strings.Fields(sub[1])
		if sub[2] == "claims" && !strings.EqualFold(words[0], "a") && !strings.EqualFold(words[0], "an") {
			return m
		}
		if len(words) == 1 && !indefiniteSayers[strings.ToLower(words[0])] {
			// One word other than an indefinite pronoun is a name, or
			// who is asked of: the issuer's own saying stays.
			return m
		}
		for i, w := range words {
			lw := strings.ToLower(strings.Trim(w, "'’"))
			if notHearsay[lw] || i > 0 && w != "I" && startsUpper(w) || strings.ContainsAny(w, "0123456789") {
				return m
			}
		}
		lead, _, _ := strings.Cut(m, sub[1])
		return lead + strings.Repeat(" ", len(m)-len(lead))
	})
}

// askMarker matches the words with which a question written after its
// context says what it asks: "what I actually want to know is:", "my
// question is", "the real question:".
var askMarker = regexp.MustCompile(`(?i)\b(?:what\s+i\s+(?:actually\s+|really\s+|mainly\s+)?(?:want|need|would\s+like)\s+to\s+know\s+is|(?:my|the)\s+(?:actual\s+|real\s+|main\s+)?question\s+is|(?:my|the)\s+(?:actual\s+|real\s+|main\s+)?question\s*:|here(?:'|’)?s\s+(?:my|the)\s+question)\s*[:,-]?\s*`)

// questionWords returns the content words of a question: lower case, three
// letters or more, without stop words or the names of its issuers; at most
// eight, in order.
func questionWords(question string, cat *Catalog, issuers []string) []string {
	return questionWordsN(question, cat, issuers, questionWordCap)
}

// questionWordCap is how many content words questionWords keeps.
const questionWordCap = 8

// questionWordsN is questionWords keeping at most max words; 0 keeps all.
func questionWordsN(question string, cat *Catalog, issuers []string, max int) []string {
	skip := issuerWordSet(cat, issuers)
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(withoutAsides(question)), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '&'
	}) {
		w = strings.TrimSuffix(w, "s'")
		if len(w) < 3 || questionStopwords[w] || skip[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
		if len(out) == max {
			break
		}
	}
	return out
}

// trim cuts the graph to max nodes: optional requirements first, then the
// later aspects, then outlook and causal requirements, then the later
// issuers, then requirements from the end, noting each cut.
func (b *builder) trim(max int) {
	if len(b.g.Nodes) <= max {
		return
	}
	drop := func(pred func(Requirement) bool) int {
		var ids []string
		for _, r := range b.g.Requirements {
			if pred(r) {
				ids = append(ids, r.ID)
			}
		}
		b.remove(ids)
		return len(ids)
	}
	if n := drop(func(r Requirement) bool { return !r.Required }); n > 0 {
		b.note("The plan was cut to %s: %d optional requirements were left out.", calls(max), n)
	}
	for ai := len(b.rt.Aspects) - 1; ai > 0 && len(b.g.Nodes) > max; ai-- {
		if n := drop(func(r Requirement) bool { return b.meta[r.ID].aspect == ai }); n > 0 {
			b.note("The plan was cut to %s: the aspect %q was left out.", calls(max), b.rt.Aspects[ai])
		}
	}
	for ii := len(b.rt.Issuers) - 1; ii >= 0 && len(b.g.Nodes) > max; ii-- {
		if n := drop(func(r Requirement) bool { m := b.meta[r.ID]; return m.extra && m.issuer == ii }); n > 0 {
			b.note("The plan was cut to %s: outlook and causal requirements of %s were left out.", calls(max), b.rt.Issuers[ii])
		}
	}
	for ii := len(b.rt.Issuers) - 1; ii > 0 && len(b.g.Nodes) > max; ii-- {
		if n := drop(func(r Requirement) bool { return b.meta[r.ID].issuer == ii }); n > 0 {
			b.note("The plan was cut to %s: %s was left out.", calls(max), b.rt.Issuers[ii])
		}
	}
	for len(b.g.Nodes) > max && len(b.g.Requirements) > 0 {
		last := b.g.Requirements[len(b.g.Requirements)-1]
		b.remove([]string{last.ID})
		b.note("The plan was cut to %s: requirement %s was left out.", calls(max), last.ID)
	}
}

// calls says "1 tool call" or "n tool calls".
func calls(n int) string {
	if n == 1 {
		return "1 tool call"
	}
	return strconv.Itoa(n) + " tool calls"
}

// remove deletes requirements, then whatever only they needed: calculations
// and comparisons built on them, nodes that serve nothing left, and nodes
// that depend on a deleted node.
func (b *builder) remove(ids []string) {
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	for changed := true; changed; {
		changed = false
		var reqs []Requirement
		for _, r := range b.g.Requirements {
			if gone[r.ID] {
				changed = true
				continue
			}
			if len(r.Completion.Of) > 0 {
				of := slices.DeleteFunc(slices.Clone(r.Completion.Of), func(id string) bool { return gone[id] })
				if len(of) != len(r.Completion.Of) {
					if r.Completion.Kind == CondCalculation || len(of) == 0 {
						gone[r.ID] = true
						changed = true
						continue
					}
					r.Completion.Of = of
				}
			}
			reqs = append(reqs, r)
		}
		b.g.Requirements = reqs
		goneNodes := map[string]bool{}
		var nodes []Node
		for _, n := range b.g.Nodes {
			n.Serves = slices.DeleteFunc(n.Serves, func(id string) bool { return gone[id] })
			if len(n.Serves) == 0 {
				goneNodes[n.ID] = true
				changed = true
				continue
			}
			nodes = append(nodes, n)
		}
		for _, n := range nodes {
			if slices.ContainsFunc(n.DependsOn, func(d string) bool { return goneNodes[d] }) {
				// Its inputs are gone: so are the requirements it serves.
				for _, id := range n.Serves {
					gone[id] = true
				}
				changed = true
			}
		}
		b.g.Nodes = nodes
	}
	b.reqIdx = map[string]int{}
	for i, r := range b.g.Requirements {
		b.reqIdx[r.ID] = i
	}
	b.nodeKey = map[string]int{}
	for i, n := range b.g.Nodes {
		b.nodeKey[n.Tool+"\x00"+string(n.Args)] = i
	}
}

// finish notes how the surviving comparisons compare, numbers
// the nodes n1, n2, ... in order and sets the graph's fiscal years to those
// its requirements and nodes use.
func (b *builder) finish() {
	g := b.g
	b.comparisonNotes()
	rename := map[string]string{}
	for i := range g.Nodes {
		rename[g.Nodes[i].ID] = fmt.Sprintf("n%d", i+1)
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		n.ID = rename[n.ID]
		for j, d := range n.DependsOn {
			n.DependsOn[j] = rename[d]
		}
	}
	years := map[int]bool{}
	for _, r := range g.Requirements {
		if fy, ok := FiscalYearOf(r.Period); ok {
			years[fy] = true
		}
	}
	for _, n := range g.Nodes {
		for _, fy := range nodeYears(n) {
			years[fy] = true
		}
	}
	for _, ps := range b.periods {
		for _, p := range ps {
			if p.next {
				years[p.doc.FiscalYear] = true // the filing its figures come from
			}
		}
	}
	g.FiscalYears = make([]int, 0, len(years))
	for y := range years {
		g.FiscalYears = append(g.FiscalYears, y)
	}
	slices.Sort(g.FiscalYears)
	if g.Requirements == nil {
		g.Requirements = []Requirement{}
	}
	if g.Nodes == nil {
		g.Nodes = []Node{}
	}
}

// nodeYears returns the fiscal years a node's arguments name.
func nodeYears(n Node) []int {
	var out []int
	switch n.Tool {
	case tools.SearchFilings:
		var a tools.SearchArgs
		if json.Unmarshal(n.Args, &a) == nil {
			out = append(out, a.FiscalYears...)
		}
	case tools.LookupFact:
		var a tools.LookupFactArgs
		if json.Unmarshal(n.Args, &a) == nil {
			if fy, ok := FiscalYearOf(a.Period); ok {
				out = append(out, fy)
			}
		}
	case tools.Calculate:
		var a tools.CalculateArgs
		if json.Unmarshal(n.Args, &a) == nil {
			for _, f := range a.Facts {
				if fy, ok := FiscalYearOf(f.Period); ok {
					out = append(out, fy)
				}
			}
		}
	}
	return out
}

// FactInputs maps each fact name of a calculate node to the id of the
// lookup_fact node among its dependencies that finds that fact: the same
// ticker and period, and a label or concept of the same metric. The
// executor uses it to bind each name to the concept its lookup actually
// found, since issuers tag one metric with different concepts.
func FactInputs(g *Graph, calc Node) (map[string]string, error) {
	if calc.Tool != tools.Calculate {
		return nil, fmt.Errorf("planner: node %s is a %s node, not calculate", calc.ID, calc.Tool)
	}
	var args tools.CalculateArgs
	if err := json.Unmarshal(calc.Args, &args); err != nil {
		return nil, fmt.Errorf("planner: node %s: calculate arguments: %v", calc.ID, err)
	}
	byID := map[string]Node{}
	for _, n := range g.Nodes {
		byID[n.ID] = n
	}
	out := make(map[string]string, len(args.Facts))
	for name, ref := range args.Facts {
		// A lookup of the very figure key the calculation names.
		for _, d := range calc.DependsOn {
			var la tools.LookupFactArgs
			if n, exists := byID[d]; exists && n.Tool == tools.LookupFact && json.Unmarshal(n.Args, &la) == nil &&
				la.Concept != "" && la.Concept == ref.Concept && la.Ticker == ref.Ticker && la.Period == ref.Period {
				out[name] = n.ID
				break
			}
		}
		if _, bound := out[name]; bound {
			continue
		}
		want, ok := metricOfConcept(ref.Concept)
		if !ok {
			want, ok = tools.MetricForLabel(name)
		}
		for _, d := range calc.DependsOn {
			n, exists := byID[d]
			if !exists || n.Tool != tools.LookupFact {
				continue
			}
			var la tools.LookupFactArgs
			if json.Unmarshal(n.Args, &la) != nil || la.Ticker != ref.Ticker || la.Period != ref.Period {
				continue
			}
			got, found := tools.MetricForLabel(la.Label)
			if la.Label == "" {
				got, found = metricOfConcept(la.Concept)
			}
			if ok && found && got.Name == want.Name {
				out[name] = n.ID
				break
			}
		}
		if _, bound := out[name]; !bound {
			return nil, fmt.Errorf("planner: node %s: no lookup_fact dependency finds %q (%s %s %s)", calc.ID, name, ref.Ticker, ref.Concept, ref.Period)
		}
	}
	return out, nil
}

// metricOfConcept returns the metric a concept belongs to, qualified or not.
func metricOfConcept(concept string) (tools.Metric, bool) {
	local := localName(concept)
	for _, m := range tools.Metrics {
		for _, c := range m.Concepts {
			if localName(c) == local {
				return m, true
			}
		}
	}
	return tools.Metric{}, false
}

// asksOwnYear reports whether p, a year ahead of its report by one, is
// also asked as that report's own year ("the headwinds it saw in 2022 ...
// into 2023"): the report's outlook, planned with its own year, is the
// expectation for the next.
func (b *builder) asksOwnYear(t string, p filingPeriod) bool {
	if p.ahead != p.doc.FiscalYear+1 {
		return false
	}
	return slices.ContainsFunc(b.periodsOf(t), func(o filingPeriod) bool {
		return o.ahead == 0 && o.found && o.doc.ID == p.doc.ID
	})
}

// mentionsForm reports whether a question names a form ("10-Q", "10Q").
func mentionsForm(question, form string) bool {
	q := strings.ToUpper(question)
	return strings.Contains(q, form) || strings.Contains(q, strings.ReplaceAll(form, "-", ""))
}

// termsAsked returns the terms of an aspect the question asks by: for an
// aspect whose terms name distinct things (Aspect.Distinct), the groups
// the question names ("2025 operating margin" is not net income); its
// terms otherwise.
func termsAsked(a Aspect, question string) []string {
	q := normalizeText(question)
	return a.termsNamed(func(t string) bool { return termIn(q, normalizeTerm(t)) })
}

// namedReport finds the annual report a question reads from, by its year:
// "according to its 2022 10-K", "per Apple's FY2021 10-K", "in the fiscal
// 2023 annual report", "I only have Alphabet's 2024 10-K".
var namedReport = regexp.MustCompile(`(?i)\b(?:according\s+to|per|in|from|using|use|based\s+on|(?:only\s+)?(?:have|has|got))\s+(?:(?:its|the|their|[a-z][\w.&-]*['’]s)\s+)?(?:fy\s?|fiscal\s+(?:year\s+)?)?['’]?(\d{4}|\d{2})\s+(?:10-?k|annual\s+report|form\s+10-?k)\b|(?:^|[^\w\s])?\s*(?:[a-z][\w.&-]*['’]s\s+|[a-z][\w.&-]*\s+)?(?:fy\s?|fiscal\s+)?(\d{4})\s+10-?k\s*[:—–]`)

// reportMention matches an annual report named by its fiscal year: "the
// FY2022 10-K", "its 2021 annual report".
var reportMention = regexp.MustCompile(`(?i)\b(?:fy\s?|fiscal\s+(?:year\s+)?)?['’]?(\d{4}|\d{2})\s+(?:10-?k|annual\s+report|form\s+10-?k)\b`)

// reportYears returns the distinct fiscal years of the annual reports a
// question names. Two or more ("gaming growth in the FY2021 10-K vs the
// FY2022 10-K") compare the reports, each read for its own year; none is
// the one source of the years asked.
func reportYears(question string) []int {
	var out []int
	for _, m := range reportMention.FindAllStringSubmatch(question, -1) {
		out = appendNewInts(out, fullYear(m[1]))
	}
	return out
}

// namedReportYear returns the fiscal year of the annual report a question
// names as its source (namedReport).
func namedReportYear(question string) (int, bool) {
	m := namedReport.FindStringSubmatch(question)
	if m == nil {
		return 0, false
	}
	y, err := strconv.Atoi(cmp.Or(m[1], m[2]))
	if err != nil {
		return 0, false
	}
	if y < 100 {
		y += 2000
	}
	return y, true
}

// yearsBesideReport returns the fiscal years a question names outside the
// name of the report it reads from: "Google Cloud op income for 2024 and
// 2023 ... from Alphabet's FY2024 10-K" asks 2024 as well.
func yearsBesideReport(question string) []int {
	loc := namedReport.FindStringIndex(question)
	if loc == nil {
		return nil
	}
	return findFiscalYears(question[:loc[0]] + " " + question[loc[1]:])
}

// ownReport reports whether d, found for fiscal year fy, is that year's own
// report rather than a later one printing it as a comparative.
func ownReport(d corpus.Document, found bool, fy int) bool {
	return found && d.FiscalYear == fy
}

// asksAhead reports whether the question asks of a year after an issuer's
// latest annual report: what it asks is expected, not reported.
func (b *builder) asksAhead() bool {
	for _, t := range b.rt.Issuers {
		if slices.ContainsFunc(b.periodsOf(t), func(p filingPeriod) bool { return p.ahead > 0 }) {
			return true
		}
	}
	return false
}

// askedInPast matches a figure asked in the past tense, its words after:
// "what was", "how much did".
var askedInPast = regexp.MustCompile(`(?i)\b(?:what|how\s+(?:much|many|big|large))\s+(?:was|were|did)\s+`)

// asksReportedLabel reports whether the question asks in the past tense
// the amount of a figure a filing labels ("eBay FY22: what was interest
// expense and does mgmt expect it to keep rising into 2023"): a figure
// reported, asked beside an expectation of the year ahead.
func (b *builder) asksReportedLabel() bool {
	words := b.labelledFigure()
	if len(words) == 0 {
		return false
	}
	what := strings.ToLower(asWritten(b.question, words))
	lower := strings.ToLower(b.question)
	for _, loc := range askedInPast.FindAllStringIndex(lower, -1) {
		// The figure's words within a few of the asking: "what was
		// interest expense", "what was eBay's 2022 take rate".
		if i := strings.Index(lower[loc[1]:], what); i >= 0 && len(strings.Fields(lower[loc[1]:loc[1]+i])) <= 3 {
			return true
		}
	}
	return false
}

// plansFigure reports whether the plan gathers any figure.
// asksUnplannedLabel reports whether a clause of the question shaped as a
// figure's ("What was the 2022 take rate?") names, by the words of a row
// label a filing asked prints, a row no requirement of the plan looks up.
func (b *builder) asksUnplannedLabel() bool {
	words := b.labelledFigure()
	if len(words) == 0 || !figureClause(b.question, words) && !b.bareClause(words) || namesCatalogueFigure(words) {
		return false
	}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			key, ok := b.cat.ResolvePhrase(p.doc.ID, words, "")
			if ok && !slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool { return slices.Contains(r.Completion.Concepts, key) }) {
				return true
			}
		}
	}
	return false
}

// topicsOnly reports whether every aspect named is a topic a filing
// explains, with no figure of the catalogue's.
func topicsOnly(aspects []string) bool {
	for _, name := range aspects {
		a, ok := AspectByName(name)
		if !ok || name == "general" || a.Kind != KindExplanation || len(a.Metrics) > 0 {
			return false
		}
	}
	return len(aspects) > 0
}

// phraseFigureResolves reports whether the words the question names its
// figure by (phraseWords) are those of a figure a filing asked tags or
// labels, within the parts the question names: the row planPhraseFigure
// would look up.
func (b *builder) phraseFigureResolves() bool {
	// A name of two words or more; a count ("how many employees") is
	// read from the filings' sentences, as the topic's plan reads it.
	words := b.phraseWords()
	if len(words) < 2 || len(words) > 4 || countedNoun(b.question) != "" {
		return false
	}
	for _, t := range b.rt.Issuers {
		segs := b.cat.SegmentsIn(b.question, t)
		own := withoutSegmentWords(words, segs)
		for _, p := range b.periodsOf(t) {
			if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			for _, mem := range memberChoices(segs) {
				ws := words
				if mem != "" && len(own) > 0 {
					ws = own
				}
				if _, ok := b.cat.ResolvePhrase(p.doc.ID, ws, mem); ok {
					return true
				}
			}
		}
	}
	return false
}

// partLabelledRows plans, for issuer t and period p, each figure the
// question names by a label (labelledFigures) that a table of the parts
// segs prints, as that row of the part, and returns the requirements and
// a test of whether a catalogue metric's name lies within one of those
// labels: that metric is the row's word ("revenue" of "average monthly
// revenue per paying membership"), not a figure asked of its own.
func (b *builder) partLabelledRows(t string, p filingPeriod, segs []Segment, m reqMeta) (ids []string, within func(metric string) bool) {
	var labels [][]string
	if b.cat.KnowsFigures(p.doc.ID) {
		for _, words := range b.labelledFigures() {
			if namesCatalogueFigure(words) {
				continue
			}
			own := withoutSegmentWords(words, segs)
			if len(own) < 2 {
				continue
			}
			for _, mem := range memberChoices(segs) {
				if mem == "" {
					break
				}
				key, ok := b.cat.ResolvePhrase(p.doc.ID, own, mem)
				if !ok {
					continue
				}
				what := asWritten(b.question, words)
				if names := segmentNames(segs); names != "" && !strings.Contains(strings.ToLower(what), strings.ToLower(names)) {
					what = names + " " + what
				}
				b.planNamedFigure(t, p, m, what, key, true, nil)
				ids = append(ids, t+"-"+tools.PeriodLabel(p.fy)+"-figure-"+slug(what))
				labels = append(labels, stems(own))
				break
			}
		}
	}
	return ids, func(metric string) bool {
		mt, ok := tools.MetricByName(metric)
		if !ok {
			return false
		}
		for _, label := range labels {
			for _, a := range append([]string{mt.Label}, mt.Aliases...) {
				if ws := stems(strings.Fields(strings.ToLower(a))); len(ws) > 0 && !slices.ContainsFunc(ws, func(w string) bool { return !slices.Contains(label, w) }) {
					return true
				}
			}
		}
		return false
	}
}

// segmentNames joins the names of segs as the question writes them.
func segmentNames(segs []Segment) string {
	var names []string
	for _, s := range segs {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}

// namesCatalogueFigure reports whether words are a name of a metric or
// derived figure the catalogue plans by its aspects ("net loss" is net
// income's): such a figure is planned as that metric, under whatever row
// label its filing prints.
func namesCatalogueFigure(words []string) bool {
	name := strings.Join(words, " ")
	if _, ok := tools.MetricForLabel(name); ok {
		return true
	}
	return slices.ContainsFunc(tools.DerivedMetrics, func(d tools.Derived) bool {
		return slices.ContainsFunc(append([]string{d.Label}, d.Aliases...), func(n string) bool { return strings.EqualFold(n, name) })
	})
}

// bareClause reports whether the clause of the question that holds words
// names the figure and nothing else but its issuer, period and the words
// of a period ("eBay take rate 2022 - and does management think ..."): a
// figure asked by its name alone.
func (b *builder) bareClause(words []string, others ...[]string) bool {
	what := strings.Join(words, " ")
	c := clauseOf(b.question, what)
	if !termIn(normalizeText(c), normalizeTerm(what)) {
		return false
	}
	// A comma before a question word starts a clause of its own: "GMV
	// and take rate, and why did net revenue fall".
	for _, part := range askAfterComma.Split(c, -1) {
		if termIn(normalizeText(part), normalizeTerm(what)) {
			c = part
			break
		}
	}
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	label := map[string]bool{}
	for _, w := range words {
		label[stem5(w)] = true
	}
	// The other rows a clause lists beside it ("GMV and take rate").
	for _, o := range others {
		for _, w := range o {
			label[stem5(w)] = true
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(c), func(r rune) bool { return !unicode.IsLetter(r) && r != '&' }) {
		w = strings.TrimSuffix(w, "s'")
		if label[stem5(w)] || skip[w] || phraseStopwords[w] || labelBreaks[w] || fiscalWord[w] || w == "and" {
			continue
		}
		return false
	}
	return true
}

// askAfterComma matches a comma that starts a clause asking something
// else: ", and why", ", what", ", does".
var askAfterComma = regexp.MustCompile(`(?i),\s*(?:(?:and|but|plus)\s+)?(?:why|what|how|does|did|do|is|are|was|were|will|which|who|where|when)\b`)

// fiscalWord are the letters of the ways a period is written ("FY2022",
// "YE22", "Q3").
var fiscalWord = map[string]bool{"fy": true, "fye": true, "ye": true, "cy": true, "q": true, "h": true}

// figureClause reports whether the clause of question that holds words
// is shaped as a question for a number (figureShaped).
func figureClause(question string, words []string) bool {
	what := strings.Join(words, " ")
	// Any clause naming it: "Does eBay expect the gap between GMV and
	// revenue to persist? What was 2022 GMV?"
	for _, c := range clauseBreak.Split(question, -1) {
		if termIn(normalizeText(c), normalizeTerm(what)) && figureShaped.MatchString(c) {
			return true
		}
	}
	// "eBay's take rate rose in 2022. What was it, and what does
	// management credit?": a clause asking the amount of what an earlier
	// sentence names.
	if loc := pronounFigure.FindStringIndex(question); loc != nil {
		return termIn(normalizeText(question[:loc[0]]), normalizeTerm(what))
	}
	return false
}

// pronounFigure matches a clause that asks the amount of what the
// question named before it, by a pronoun or a noun of amount: "What was
// it", "how much was that", "what were they", "— what was the amount".
var pronounFigure = regexp.MustCompile(`(?i)(?:^|[.?!;:,—–]\s*|\s-\s+|\band\s+)(?:what|how\s+(?:much|big|large|high|many))\s+(?:was|is|were|are)\s+(?:it|that|this|they|those|these|the\s+(?:(?:two|three|both)\s+)?(?:amount|figure|number|total|sum|value|size|level)s?)\b`)

func (b *builder) plansFigure() bool {
	return slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool { return r.Kind == KindFigure })
}

// namesMetric reports whether a figure asked names metric: as itself, or
// as an input of the ratio asked ("Products gross margin %" names Products
// revenue and cost of revenue).
// segmentProfit returns the figures named of a segment with its "profit"
// read as the segment's own measure of profit, its operating income: a
// segment reports no net income ("did Amazon's International segment turn
// a profit? What was its operating income?"). Net income named as such
// ("net income", "net loss") stays asked.
func segmentProfit(metrics []string, asks []FigureAsk) []string {
	if !slices.Contains(metrics, "net_income") || slices.ContainsFunc(asks, func(f FigureAsk) bool {
		return f.Metric == "net_income" && !profitWord(f.Phrase)
	}) {
		return metrics
	}
	out := slices.DeleteFunc(slices.Clone(metrics), func(m string) bool { return m == "net_income" })
	if !slices.Contains(out, "operating_income") {
		out = append(out, "operating_income")
	}
	return out
}

// profitWord reports whether a figure is named by the everyday word for
// profit alone.
func profitWord(phrase string) bool {
	switch strings.ToLower(phrase) {
	case "profit", "profits", "profitable", "profitability":
		return true
	}
	return false
}

func namesMetric(f FigureAsk, metric string) bool {
	if f.Metric == metric {
		return true
	}
	d, ok := tools.DerivedByName(f.Derived)
	return ok && slices.Contains(d.Inputs(), metric)
}

// planAhead plans what a question asks of a fiscal year after the latest
// annual report (p.ahead): what management expects for it, read from that
// report. The report's own figures and explanations are of another year
// and not asked. A report guides the year after its own at most; for a
// later year the sentence must name the year ("fiscal 2025"), else the
// expectation is a gap, not a quotation about another year.
func (b *builder) planAhead(t string, p filingPeriod, a Aspect, m reqMeta) {
	label := tools.PeriodLabel(p.fy)
	company := b.cat.ShortName(t)
	groups := [][]string{termsAsked(a, b.question), OutlookWords}
	what := a.Label
	switch {
	case a.Kind == KindOutlook:
		groups = a.ExplainGroups()
		what = "its business"
	case a.Name == "general":
		if words := b.issuerWords(t, b.questionWords()); len(words) > 0 {
			groups = append(b.topicGroups(words), OutlookWords)
		}
		what = "the question's topic"
	}
	if asksExpectedNumber(b.question) && a.Kind != KindOutlook && a.Name != "general" {
		// A forecast asked as a number ("what revenue does Netflix
		// forecast for 2025", "Amazon's Q1 2025 net sales guide") is met
		// by an expectation that states one, not by any sentence that
		// expects something of the figure.
		groups = append(slices.Clone(groups), []string{ExpectedTerm})
	}
	year := strconv.Itoa(p.ahead)
	decided := decisionVerb.MatchString(b.question) && a.Kind != KindOutlook
	if decided {
		// What a board approved for the year ("approved ... the fiscal
		// 2023 annual dividend of $2.24 per share") is stated as a
		// decision, not an expectation, and names the year it is for.
		groups = slices.Clone(groups)
		if i := slices.IndexFunc(groups, func(g []string) bool { return slices.Equal(g, OutlookWords) }); i >= 0 {
			groups[i] = append(slices.Clone(OutlookWords), decisionWords...)
		}
	}
	if p.ahead > p.doc.FiscalYear+1 || decided {
		groups = append(slices.Clone(groups), []string{year})
	}
	id := t + "-" + label + "-" + a.Name + "-outlook-" + year
	if !b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: KindOutlook, Required: true,
		Need: fmt.Sprintf("what %s's management expects for %s in fiscal %d, in its %s %s (its latest annual report)",
			company, what, p.ahead, label, p.doc.Form),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: a.Label + " outlook", AllOf: groups},
	}, m) {
		return
	}
	name := b.printedName(p, a)
	query := name + " expect"
	if a.Kind == KindOutlook || a.Name == "general" {
		query = strings.Join(b.questionWords(), " ")
	}
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 8), []string{id})
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, fmt.Sprintf("%s fiscal %d", name, p.ahead), "", 6), []string{id})
	if AsksGuidance.MatchString(b.question) && a.Kind != KindOutlook && a.Name != "general" {
		// Guidance asked for ("what did Amazon guide for net sales") is
		// printed as guidance, in the filing's words: "Net sales are
		// expected to be between $151.0 billion and $155.5 billion".
		b.addNode(tools.SearchFilings, b.searchArgs(t, p, name+" guidance expected to be", "", 6), []string{id})
	}
}

// actualAsked matches a question asking what was reported, not what was
// expected: "what Amazon actually reported for net sales in Q1 2025".
var actualAsked = regexp.MustCompile(`(?i)\bactual(?:ly|s)?\b|\breported\s+(?:results|figures|numbers)\b`)

// planUnreported plans, for a figure asked as actually reported of a year
// after the latest annual report (p.ahead), that figure as a requirement
// no filing of the corpus can meet: what management expected for the
// year (planAhead) is not what it reported, and the answer says so.
func (b *builder) planUnreported(t string, p filingPeriod, a Aspect, m reqMeta) {
	if len(a.Metrics) == 0 || !slices.ContainsFunc(clauseBreak.Split(b.question, -1), func(c string) bool {
		// The clause asking what was reported names the year ahead: "what
		// they actually spent in FY23" asks another year.
		return actualAsked.MatchString(c) && strings.Contains(c, strconv.Itoa(p.ahead))
	}) {
		return
	}
	mt, ok := tools.MetricByName(a.Metrics[0])
	if !ok {
		return
	}
	key, ok := b.cat.ResolveMetric(p.doc.ID, mt, "", b.question)
	if !ok {
		return
	}
	label := tools.PeriodLabel(p.ahead)
	id := t + "-" + label + "-" + a.Name + "-reported"
	if !b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: a.Name, Kind: KindFigure, Required: true,
		Need: fmt.Sprintf("%s's %s for fiscal %d as reported; no filing in the corpus reports that year (its latest annual report is for fiscal %d)",
			b.cat.ShortName(t), mt.Label, p.ahead, p.doc.FiscalYear),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: label, Concepts: []string{key}},
	}, m) {
		return
	}
	// Looked up all the same: a filing of that year ingested later
	// answers it.
	b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: label}, []string{id})
}

// asksExpectedNumber reports whether a question about a year ahead asks
// for a number: guidance, a forecast figure by name, a figure-shaped
// clause ("how much"), or a bare phrase ("2025 revenue forecast").
// "Does the company expect net revenues to keep diverging from GMV?"
// names a figure but asks what is expected of it, in words.
func asksExpectedNumber(question string) bool {
	if AsksGuidance.MatchString(question) || asksForecastFigure.MatchString(question) || figureShaped.MatchString(question) {
		return true
	}
	for _, w := range strings.FieldsFunc(normalizeText(question), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if askingWords[w] {
			return false
		}
	}
	return true
}

// asksForecastFigure matches a question asking for an expected figure by
// name ("what revenue does Netflix forecast for 2025", "how much does Meta
// expect to spend"), not for what management expects of it in words
// ("what does Apple expect for gross margin").
var asksForecastFigure = regexp.MustCompile(`(?i)\b(what(\s+[a-z&-]+){1,3}|how\s+much)\s+(does|did|do|is|are|will)\b.*\b(forecast|project|expect|anticipat|plan|target)`)

// AsksGuidance matches a question asking for an issuer's guidance, which is given
// in numbers.
var AsksGuidance = regexp.MustCompile(`(?i)\bguid(e|ed|es|ing|ance)\b`)

// printedName is the name filing p prints for aspect a's first figure
// ("net sales" where the statements print "Total net sales"), or the
// aspect's label where the catalog does not know it.
func (b *builder) printedName(p filingPeriod, a Aspect) string {
	if len(a.Metrics) == 0 || !p.found || !b.cat.KnowsFigures(p.doc.ID) {
		return a.Label
	}
	mt, ok := tools.MetricByName(a.Metrics[0])
	if !ok {
		return a.Label
	}
	key, ok := b.cat.ResolveMetric(p.doc.ID, mt, "", "")
	if !ok {
		return a.Label
	}
	l := strings.ToLower(labelName(b.cat.FigureLabel(p.doc.ID, key)))
	l = strings.TrimPrefix(l, "total ")
	if l == "" || len(strings.Fields(l)) > 4 || strings.ContainsAny(l, "(),:") {
		return a.Label
	}
	return l
}

// shareOf matches a question asking what share of a whole its part is:
// "what share of Apple's total net sales came from Services", "Services
// as a percentage of revenue", "% of revenue".
var shareOf = regexp.MustCompile(`(?i)\b(` + shareNouns + `)\s+of\b|%\s+of\b|\bas\s+a\s+(share|percentage|percent|proportion)\b|\bas\s+a\s+%`)

// shareNouns name a part's share of a whole, as a regular expression's
// alternatives.
const shareNouns = `share|percentage|percent|proportion|portion|fraction`

// asksShare reports whether a question asks a part's share of a whole;
// "per share of common stock" asks none.
func asksShare(question string) bool {
	for _, m := range shareOf.FindAllStringIndex(question, -1) {
		if !strings.HasSuffix(strings.ToLower(strings.TrimRight(question[:m[0]], " ")), "per") {
			return true
		}
	}
	return false
}

// planShare plans the share of the whole that the parts segs make of
// metric, whose part figure part is planned: the company-wide figure of
// the same period and the calculation part / whole ("Services share of
// revenue = 27,423 / 94,036 = 29.2%").
func (b *builder) planShare(t string, p filingPeriod, a Aspect, metric string, segs []Segment, part looked, m reqMeta) {
	var names []string
	for _, s := range segs {
		names = append(names, s.Name)
	}
	b.planShareOf(t, p, a.Name, metric, strings.Join(names, " "), part, m)
}

// planShareOf is planShare for a part named segName (a segment's name, or
// the words that narrow a figure: "cloud services").
func (b *builder) planShareOf(t string, p filingPeriod, aspect, metric, segName string, part looked, m reqMeta) {
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return
	}
	label := tools.PeriodLabel(p.fy)
	whole, ok := b.lookupFigure(t, p, aspect, metric, label, nil, true, m)
	if !ok || whole.key == part.key {
		return
	}
	what := fmt.Sprintf("%s share of %s", segName, mt.Label)
	if b.shareParts == nil {
		b.shareParts = map[string][]string{}
	}
	if !slices.Contains(b.shareParts[t], segName) {
		b.shareParts[t] = append(b.shareParts[t], segName)
	}
	partName, wholeName := slugName(segName+" "+metric), "total_"+metric
	id := t + "-" + label + "-" + metric + "-share-" + slug(segName)
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: true,
		Need:       fmt.Sprintf("%s's %s for %s, computed as %s / %s from its reported figures", b.cat.ShortName(t), what, label, partName, wholeName),
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{part.req, whole.req}},
	}, m)
	b.addNode(tools.Calculate, tools.CalculateArgs{Expression: partName + " / " + wholeName, Facts: map[string]tools.FactRef{
		partName:  {Ticker: t, Concept: part.key, Period: label},
		wholeName: {Ticker: t, Concept: whole.key, Period: label},
	}}, []string{id}, part.node, whole.node)
	// The share as the filing prints it, where it does ("cloud services
	// revenues represented 32% ... of our total revenues"), beside the one
	// computed.
	b.planPrintedAs(t, p, what, []string{strings.ToLower(segName)}, segName+" "+mt.Label+" represented percentage of total", id, m)
}

// slugName makes a calculation's name of words: lower case letters and
// digits joined by "_" ("Google Cloud revenue" -> "google_cloud_revenue").
func slugName(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words = append(words, w)
	}
	out := strings.Join(words, "_")
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "part_" + out
	}
	return out
}

// clauseSplit separates a question's sentences and its alternatives ("...
// continues into FY24, or was FY23 the peak?"); expectsClause finds the
// one that asks what is expected.
var (
	parenthetical = regexp.MustCompile(`\([^()]*\)`)
	clauseSplit   = regexp.MustCompile(`[?.;!]\s+|[?.;!]$|,\s*or\s+`)
	expectsClause = regexp.MustCompile(`\b(expect|anticipat|signal|plan|guid|think|believe|see|forecast|project|keep|continu|persist|outlook)`)
)

// termStems returns the stem of each word of text (termStem).
func termStems(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		out = append(out, termStem(w))
	}
	return out
}

// termStem returns the part of a word its other forms share, for a
// condition term (which matches longer words by prefix): "investing" reads
// "invest", "costs" "cost". It strips less than stem does, which cuts
// "shipping" to "ship", a stem of four letters that termIn matches only
// as a whole word.
func termStem(w string) string {
	switch {
	case len(w) > 6 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 5 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	}
	return singular(w)
}

// singular returns a plural noun's singular by its spelling: "costs"
// reads "cost", "expenses" "expense"; "business", "status" and short words
// are kept.
func singular(w string) string {
	if len(w) < 5 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
		return w
	}
	if strings.HasSuffix(w, "ies") {
		return w[:len(w)-3] + "y"
	}
	return w[:len(w)-1]
}

// planFigureWhy plans, where a question asks why of a figure it names
// ("SG&A as a % of sales improved — what drove the leverage?"), the
// filing's explanation of that figure, for each issuer and period asked
// whose plan asks no reason at all: what the filing says of another topic
// the question's words brought in (liquidity, for "leverage") does not
// answer why the figure moved.
func (b *builder) planFigureWhy() {
	if len(b.rt.Figures) == 0 || b.rt.Causal != nil || !asksForReason(b.question) {
		return
	}
	terms := b.figureTerms()
	if len(terms) == 0 {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || p.ahead > 0 || slices.Contains(b.rt.BaseYears, p.fy) {
				continue // a year the asked one is compared with is not asked why of
			}
			label := tools.PeriodLabel(p.fy)
			if slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
				return r.Issuer == t && r.Period == label && r.Kind == KindExplanation && asksReason(r.Completion.AllOf)
			}) {
				continue // the plan asks why already
			}
			id := t + "-" + label + "-figure-why"
			topic := b.figurePhrases()
			if !b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Aspect: "general", Kind: KindExplanation, Required: true,
				Need:       fmt.Sprintf("%s's explanation of what drove its %s in its %s %s", b.cat.ShortName(t), topic, label, p.doc.Form),
				Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: topic, AllOf: [][]string{terms, DriverWords}},
			}, reqMeta{aspect: -1, issuer: ii}) {
				continue
			}
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, topic+" primarily due to", "", 8), []string{id})
		}
	}
}

// reasonWords ask for a reason; unlike whyWords they do not ask what is
// expected or described.
var reasonWords = []string{"why", "explain", "drive", "driven", "driver", "driving", "drove", "reason", "cause", "because", "factor",
	"behind", "blame", "responsible for"}

// asksForReason reports whether a question asks why something happened.
func asksForReason(question string) bool {
	n := ownersShareOf.ReplaceAllString(normalizeText(question), "$1")
	return anyTerm(n, reasonWords) || whatCaused.MatchString(n) || pastTenseWhat(n)
}

// irregularParticiples are the past participles not spelled with "-ed"
// that follow a figure's noun to say what was done ("average price paid",
// "amount spent"): like a verb's other forms they name no figure.
var irregularParticiples = map[string]bool{"paid": true, "spent": true, "made": true, "sold": true, "bought": true,
	"held": true, "kept": true, "lost": true, "owed": true, "given": true, "taken": true, "built": true, "grown": true,
	"shown": true, "brought": true, "won": true, "got": true, "gotten": true, "put": true, "set": true, "cut": true}

// sizeAsked finds a clause asking the size of a thing by name: "how big
// was the FX hit", "how large were the impairment charges"; its group is
// the thing's name, to the clause's end.
var sizeAsked = regexp.MustCompile(`(?i)\bhow\s+(?:big|large|much|severe|sizable|significant)\s+(?:was|were|is|are)\s+(?:the\s+|its\s+|their\s+)?([a-z][a-z&' -]{1,60}?)\s*(?:[?.;,]|$)`)

// pointingDeterminer matches the word that opens a thing a clause points
// back to: "that fee hike", "this charge".
var pointingDeterminer = regexp.MustCompile(`(?i)^(?:that|this|these|those)\s+`)

// clauseAsks finds a clause asking a number or a size by name: "how many
// new warehouses", "how big were NVIDIA's inventory provisions"; its group
// is what follows, which clauseItem reads up to the clause's verb.
var clauseAsks = regexp.MustCompile(`(?i)^\W*(?:and\s+|but\s+|also\s+)?(?:how\s+many|how\s+(?:big|large|much|severe|sizable|significant)\s+(?:was|were|is|are)|what\s+(?:was|were|is|are)\s+(?:the|its|their)|what['’]s\s+(?:the|its|their))\s+(.+)$`)

// clauseWhatReported finds a clause asking the amount an issuer reported
// of a thing it names: "What did Oracle record as operating lease
// expense", "what weighted average discount rate did it use". Its group is
// the thing, read up to a period or a preposition.
var clauseWhatReported = regexp.MustCompile(`(?i)^\W*(?:and\s+|but\s+|also\s+)?` + recordedAs + `\s+(.+)$|^\W*(?:and\s+|but\s+|also\s+)?what\s+((?:[a-z&'-]+\s+){1,5}?)(?:did|does|do)\s+(?:it|they|the\s+company|(?-i:[A-Z][\w&.-]*))\s+(?:use|report|record|book|recognize|recognise|apply|assume)\b`)

// plannedRowsHold reports whether, for every issuer and period asked,
// the row label of a figure planned already holds every one of words
// (plannedRowHolds).
func (b *builder) plannedRowsHold(words []string) bool {
	held := false
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			if !b.plannedRowHolds(t, p, words) {
				return false
			}
			held = true
		}
	}
	return held
}

// plannedRowHolds reports whether the row label filing p prints for a
// figure planned already of issuer t holds every one of words (by their
// first five letters): "intangibles" in "what it spent on property,
// equipment and intangibles" is a word of the capital expenditures row
// planned, "Purchases related to property and equipment and intangible
// assets", not a figure of its own.
func (b *builder) plannedRowHolds(t string, p filingPeriod, words []string) bool {
	if !p.found {
		return false
	}
	return slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
		if r.Issuer != t || r.Completion.Kind != CondFact {
			return false
		}
		for _, c := range r.Completion.Concepts {
			label := map[string]bool{}
			for _, w := range strings.FieldsFunc(strings.ToLower(b.cat.FigureLabel(p.doc.ID, c)), func(r rune) bool { return !unicode.IsLetter(r) }) {
				label[stem5(w)] = true
			}
			if len(label) > 0 && !slices.ContainsFunc(words, func(w string) bool { return !label[stem5(strings.ToLower(w))] }) {
				return true
			}
		}
		return false
	})
}

// clauseRow returns the content words (content: the question's, lower
// case) of what a clause asks the number or size of (clauseAsks), to the
// clause's end, where they are two to four and a row of a filing asked is
// labelled with every one of them; "" when not.
func (b *builder) clauseRow(clause string, content map[string]bool) string {
	m := clauseAsks.FindStringSubmatch(clause)
	if m == nil {
		return ""
	}
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(m[1]), func(r rune) bool { return !unicode.IsLetter(r) && r != '&' }) {
		if content[w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) < 2 || len(words) > 4 {
		return ""
	}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			if _, ok := b.cat.ResolvePhrase(p.doc.ID, words, ""); ok {
				return strings.Join(words, " ")
			}
		}
	}
	return ""
}

// planNarrowedItem plans, for each issuer and period asked, the part of
// a thing the plan reads that a subjectless clause asks (subjectlessItem):
// a sentence of the filing naming each of its words with a figure, or its
// gap.
func (b *builder) planNarrowedItem(words []string) {
	what := strings.Join(words, " ")
	groups := make([][]string, 0, len(words)+1)
	for _, w := range words {
		groups = append(groups, wordForms(w))
	}
	groups = append(groups, []string{FigureTerm})
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		b.planNamedFigure(t, p, m, what, "", false, groups)
	})
}

// planVerbRow plans, for a thing narrowed by a verb ("paid memberships
// add"), the row each filing asked labels with the thing's words and a
// noun of the verb ("Paid net membership additions"): a word of the label
// the verb's letters begin. It reports whether it planned one.
func (b *builder) planVerbRow(words []string) bool {
	if len(words) < 2 {
		return false
	}
	thing, verb := words[:len(words)-1], words[len(words)-1]
	if len(verb) < 3 {
		return false
	}
	planned := false
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		if !b.cat.KnowsFigures(p.doc.ID) {
			return
		}
		for _, e := range b.cat.figures[p.doc.ID] {
			if e.Member != "" || e.Label == "" {
				continue
			}
			label := strings.Fields(normLabel(e.Label))
			have := stems(label)
			if !labelNamesVerb(label, verb) ||
				slices.ContainsFunc(thing, func(w string) bool {
					return !slices.Contains(have, stem5(w)) && !slices.Contains(have, stem5(strings.TrimSuffix(w, "s")))
				}) {
				continue
			}
			key := e.Key
			if !e.Table {
				key = tools.FigureKey(e.Concept, "")
			}
			b.planNamedFigure(t, p, m, lowerLabel(e.Label), key, true, nil)
			planned = true
			return
		}
	})
	return planned
}

// verbNamesRow reports whether a row of a filing asked is labelled with a
// noun the verb's letters begin ("add": "Paid net membership additions").
func (b *builder) verbNamesRow(verb string) bool {
	if len(verb) < 3 {
		return false
	}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			for _, e := range b.cat.figures[p.doc.ID] {
				if e.Member == "" && labelNamesVerb(strings.Fields(normLabel(e.Label)), verb) {
					return true
				}
			}
		}
	}
	return false
}

// labelNamesVerb reports whether a label's words hold a noun the verb's
// letters begin: "additions" of "add".
func labelNamesVerb(label []string, verb string) bool {
	return slices.ContainsFunc(label, func(w string) bool { return len(w) > len(verb) && strings.HasPrefix(w, verb) })
}

// subjectlessDid matches a clause asking how much of the thing named
// before it an issuer did something to, the thing left out: "how many did
// it add over the year". Group 1 is the verb, group 2 what follows it.
var subjectlessDid = regexp.MustCompile(`(?i)^\W*(?:and\s+|but\s+|also\s+)?how\s+(?:much|many)\s+(?:did|does|do|has|have|had)\s+(?:it|they|the\s+company|management|(?-i:[A-Z][\w&.-]*))\s+([a-z]{3,})\b(.*)$`)

// subjectlessAsks matches a clause asking how much of the thing named
// before it there is, its subject left out: "how much isn't on the balance
// sheet yet", "how much is due within the next 12 months". Group 1 is what
// narrows the thing.
var subjectlessAsks = regexp.MustCompile(`(?i)^\W*(?:and\s+|but\s+|also\s+)?how\s+(?:much|many)\s+(?:(?:is|was|are|were)(?:\s*n['’]t|\s+not)?|isn['’]t|wasn['’]t|aren['’]t|weren['’]t|sits?|sat|falls?|fell|comes?|came|remains?|remained)\s+(.+)$`)

// subjectlessItem returns, for a clause asking how much of the thing named
// before it there is (subjectlessAsks), that thing's words (the topic of
// the last figure the plan reads whose name the question writes before the
// clause) and up to two words of the clause that narrow it: "content
// obligations balance sheet". "" when the clause asks no such thing, or
// names nothing to narrow it by.
func (b *builder) subjectlessItem(clause string) string {
	m := subjectlessAsks.FindStringSubmatch(clause)
	if d := subjectlessDid.FindStringSubmatch(clause); m == nil && d != nil {
		// "how many did it add over the year": the verb and what
		// follows narrow the thing.
		m = []string{d[0], d[1] + " " + d[2]}
	}
	if m == nil {
		return ""
	}
	at := strings.Index(b.question, clause)
	if at < 0 {
		return ""
	}
	subject := b.plannedFigureIn(normalizeText(b.question[:at]))
	if subject == "" {
		return ""
	}
	var narrow []string
	for _, w := range strings.FieldsFunc(strings.ToLower(m[1]), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 3 || questionStopwords[w] || phraseStopwords[w] || periodWord(w) || timeAdverbs[w] || labelBreaks[w] || slices.Contains(narrow, w) {
			continue
		}
		narrow = append(narrow, w)
	}
	if len(narrow) == 0 || len(strings.Fields(subject))+min(len(narrow), 2) > 4 {
		return ""
	}
	return subject + " " + strings.Join(narrow[:min(len(narrow), 2)], " ")
}

// comparatives ask by how much one figure exceeds another.
var comparatives = map[string]bool{"more": true, "fewer": true, "less": true, "higher": true, "lower": true,
	"bigger": true, "smaller": true, "larger": true, "greater": true, "faster": true, "slower": true, "quicker": true}

// clauseSubjectAsks finds a clause asking how much of a thing there was,
// the thing the subject of a form of "be": "how much senior notes face
// value was outstanding" (not "how much cash did Netflix pay", whose
// thing is what was paid).
var clauseSubjectAsks = regexp.MustCompile(`(?i)^\W*(?:and\s+|but\s+|also\s+)?how\s+much\s+((?:[a-z&'’-]+\s+){1,5}(?:was|were|is|are)\b.*)$`)

// clauseItem returns the thing a clause asks the number or size of
// (clauseAsks), as its words up to its verb, a preposition or a period,
// names of issuers and owners dropped ("NVIDIA's inventory provisions in
// FY2023" is "inventory provisions"); "" when the clause asks none or
// names only what refers back to a figure asked (sizeNouns).
func clauseItem(clause string) string {
	m := clauseAsks.FindStringSubmatch(clause)
	if m == nil {
		m = clauseSubjectAsks.FindStringSubmatch(clause)
	}
	if m == nil {
		if r := clauseWhatReported.FindStringSubmatch(clause); r != nil {
			m = []string{r[0], cmp.Or(r[1], r[2])}
		}
	}
	if m == nil {
		return ""
	}
	var item []string
	for i, w := range strings.Fields(m[1]) {
		lw := strings.ToLower(strings.Trim(w, ",.?!;:"))
		if i == 0 && comparatives[lw] {
			return "" // "how many more people", "how much higher was that": a difference of figures asked
		}
		if i == 0 && lw == "of" {
			return "" // "how much of the debt": a part of what is named
		}
		if strings.HasSuffix(lw, "'s") || strings.HasSuffix(lw, "’s") {
			item = nil // the owner ("Google Cloud's") names no part of the thing
			continue
		}
		if lw == "the" || lw == "its" || lw == "their" {
			continue
		}
		if countedStops[lw] || labelBreaks[lw] || strings.IndexFunc(lw, unicode.IsDigit) >= 0 || lw == "" {
			break
		}
		item = append(item, lw)
	}
	if !slices.ContainsFunc(item, func(w string) bool { return !figureWords[w] && !sizeNouns[w] && !questionStopwords[w] }) ||
		slices.ContainsFunc(item, func(w string) bool { return notFigureBid[w] || reasonNouns[w] }) {
		return "" // "what was the main reason": a cause, asked as such
	}
	return strings.Join(item, " ")
}

// reasonAsked matches, in normalised text, a question asking why
// something happened rather than what a filing says of it.
var reasonAsked = regexp.MustCompile(`\b(why|reasons?|drivers?|drove|driven|driving|caus\w*|behind|explains?|explanation|attribut\w*|blame\w*|responsible)\b`)

// reasonNouns name a cause or a view asked for, not a figure: "what was
// the biggest factor", "what was the rationale".
var reasonNouns = map[string]bool{"reason": true, "rationale": true, "cause": true, "factor": true, "trend": true,
	"story": true, "strategy": true, "view": true, "takeaway": true, "message": true, "risk": true, "risks": true,
	"impact": true, "effect": true, "why": true, "primary": true, "biggest": true}

// askSplit separates a question's clauses: its sentences, and the parts
// of a list of questions ("X, and how many Y", "X — how big was Y").
var askSplit = regexp.MustCompile(`[?!;:]\s*|\.\s+|\s+[—–-]\s+|,\s*|\s+and\s+\x00`)

// askClauses splits a question into its clauses (askSplit), a clause
// joined by "and" keeping the word it asks with: "... and how much is due
// within the next 12 months" is the clause "how much is due ...".
func askClauses(question string) []string {
	clauses := askSplit.Split(andAsks.ReplaceAllString(question, " and \x00$1"), -1)
	for i, c := range clauses {
		clauses[i] = strings.ReplaceAll(c, "\x00", "")
	}
	return clauses
}

// andAsks matches "and" before the word a clause asks with.
var andAsks = regexp.MustCompile(`(?i)\s+and\s+(how|what)\b`)

// sizeNouns are the words that refer back to a figure the question asks
// already (its move, its effect) rather than name a thing of their own.
var sizeNouns = map[string]bool{"decline": true, "declines": true, "drop": true, "increase": true, "decrease": true, "rise": true,
	"growth": true, "change": true, "impact": true, "effect": true, "difference": true, "gap": true, "swing": true, "jump": true,
	"fall": true, "improvement": true, "deterioration": true, "amount": true, "number": true, "figure": true, "total": true,
	"ratio": true, "percentage": true, "percent": true, "share": true, "range": true, "hit": true, "it": true, "that": true,
	"this": true, "they": true, "those": true, "these": true, "expansion": true, "contraction": true, "compression": true,
	"estimate": true, "estimates": true, "guidance": true, "forecast": true, "projection": true, "expectation": true, "outlook": true,
	"figures": true, "value": true, "answer": true, "result": true, "results": true,
	// the figures named before, counted: "what were the two totals"
	"totals": true, "amounts": true, "numbers": true, "values": true, "both": true, "two": true, "three": true}

// sentenceSplit separates a question's sentences; bidsFigures finds one
// that opens by bidding figures ("Give FY23 amortization and ...",
// "Provide the 2024 figure"), its second group the word after the verb.
var (
	sentenceSplit = regexp.MustCompile(`[?!;]\s*|\.\s+`)
	bidsFigures   = regexp.MustCompile(`(?i)^\W*(give|provide|state|quote|list)\s+(?:me\s+)?(?:the\s+|its\s+|their\s+)?([a-z0-9&'-]+)`)
)

// notFigureBid are the words after a bid that ask for no figure: "give
// reasons", "provide context".
var notFigureBid = map[string]bool{"reasons": true, "reason": true, "context": true, "color": true, "colour": true, "commentary": true,
	"details": true, "detail": true, "background": true, "an": true, "a": true, "examples": true, "example": true, "explanation": true,
	"overview": true, "summary": true, "drivers": true, "driver": true, "causes": true, "factors": true, "answer": true, "it": true,
	"them": true, "that": true, "this": true, "your": true, "my": true, "us": true}
