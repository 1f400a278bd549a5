package synth

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

const (
	aaplExplanation = "Products and Services Gross Margin\nProducts gross margin percentage increased during 2024 compared to 2023 due to cost savings, partially offset by a different Products mix. " +
		"Services gross margin increased during 2024 due primarily to higher Services net sales."
	aaplOutlook = "The Company’s future gross margins can be impacted by a variety of factors. " +
		"The Company expects its gross margins to be subject to volatility and downward pressure."
	aaplAI   = "The Company is investing in artificial intelligence across its products and services."
	nvdaWhy  = "The year-over-year decrease in gross margin was primarily due to inventory provisions of $2.17 billion, as described in \"Inventory\" [1] of Note 1."
	nvdaNext = "We expect gross margin to remain within the range of our outlook for fiscal year 2024."
)

// marginIssuer is one issuer's part of the fixture.
type marginIssuer struct {
	ticker, period, doc, revConcept, costConcept, revPeriod string
	revLine, costLine, why, next                            string
	rev, cost                                               string // values
}

var marginIssuers = []marginIssuer{
	{
		ticker: "AAPL", period: "FY2024", doc: "docAAPL2024",
		revConcept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", costConcept: "us-gaap:CostOfGoodsAndServicesSold",
		revPeriod: "2023-10-01/2024-09-28",
		revLine:   "Total net sales 391,035 383,285 394,328", costLine: "Total cost of sales 210,352 214,137 223,546",
		why: aaplExplanation, next: aaplOutlook, rev: "391035000000", cost: "210352000000",
	},
	{
		ticker: "NVDA", period: "FY2023", doc: "docNVDA2023",
		revConcept: "us-gaap:Revenues", costConcept: "us-gaap:CostOfRevenue",
		revPeriod: "2022-01-31/2023-01-29",
		revLine:   "Revenue $ 26,974 $ 26,914 $ 16,675", costLine: "Cost of revenue 11,618 9,439 6,279",
		why: nvdaWhy, next: nvdaNext, rev: "26974000000", cost: "11618000000",
	},
}

// fixture is a two-issuer margin question as the rules planner plans it,
// with a ledger that meets every requirement.
type fixture struct {
	in       *Input
	evidence map[string]ledger.Evidence // by a short name: "AAPL-rev", "NVDA-why", ...
	facts    map[string]ledger.Fact
}

func testCatalog() *planner.Catalog {
	return planner.NewCatalog([]corpus.Document{
		{ID: "docAAPL2024", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: time.Date(2024, 9, 28, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML},
		{ID: "docNVDA2023", Ticker: "NVDA", Company: "NVIDIA Corporation", Form: "10-K", FiscalYear: 2023, PeriodEnd: time.Date(2023, 1, 29, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML},
		{ID: "docAAPL2025", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2025, PeriodEnd: time.Date(2025, 9, 27, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML},
	})
}

func testEvidence(doc string, start int, kind ledger.EvidenceKind, ticker, period, text string) ledger.Evidence {
	e := ledger.Evidence{Kind: kind, DocumentID: doc, Start: start, End: start + len(text), Excerpt: text, Ticker: ticker, Form: "10-K", Period: period}
	e.ID = ledger.EvidenceID(doc, e.Start, e.End)
	return e
}

func testFact(e ledger.Evidence, concept, value, period string) ledger.Fact {
	f := ledger.Fact{EvidenceID: e.ID, Concept: concept, Value: decimal.RequireFromString(value), Unit: "USD", Period: period}
	f.ID = ledger.FactID(f.EvidenceID, f.Concept, f.Period, f.Unit)
	return f
}

func setupMargins(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{evidence: map[string]ledger.Evidence{}, facts: map[string]ledger.Fact{}}
	l := &ledger.RunLedger{Run: ledger.Run{ID: "run", Question: "Compare gross margin at Apple and NVIDIA and say whether management expects it to persist."}}
	g := &planner.Graph{Question: l.Run.Question, Tickers: []string{"AAPL", "NVDA"}, Planner: "rules"}
	calcs := map[string]*tools.Calculation{}
	margins, _ := planner.AspectByName("margins")
	var figures []string
	for _, is := range marginIssuers {
		add := func(name string, e ledger.Evidence) ledger.Evidence {
			f.evidence[is.ticker+"-"+name] = e
			l.Evidence = append(l.Evidence, e)
			return e
		}
		rev := add("rev", testEvidence(is.doc, 1000, ledger.KindFact, is.ticker, is.period, is.revLine))
		cost := add("cost", testEvidence(is.doc, 1100, ledger.KindFact, is.ticker, is.period, is.costLine))
		why := add("why", testEvidence(is.doc, 5000, ledger.KindPassage, is.ticker, is.period, is.why))
		next := add("next", testEvidence(is.doc, 8000, ledger.KindPassage, is.ticker, is.period, is.next))
		revFact := testFact(rev, is.revConcept, is.rev, is.revPeriod)
		costFact := testFact(cost, is.costConcept, is.cost, is.revPeriod)
		f.facts[is.ticker+"-rev"], f.facts[is.ticker+"-cost"] = revFact, costFact
		l.Facts = append(l.Facts, revFact, costFact)

		prefix := is.ticker + "-" + is.period + "-margins"
		revMetric, _ := tools.MetricByName("revenue")
		costMetric, _ := tools.MetricByName("cost_of_revenue")
		reqs := []planner.Requirement{
			{ID: prefix + "-figure-revenue", Issuer: is.ticker, Period: is.period, Aspect: "margins", Kind: planner.KindFigure, Required: true,
				Need:       is.ticker + " revenue for " + is.period,
				Completion: planner.Condition{Kind: planner.CondFact, Issuer: is.ticker, Period: is.period, Concepts: revMetric.Concepts}},
			{ID: prefix + "-figure-cost_of_revenue", Issuer: is.ticker, Period: is.period, Aspect: "margins", Kind: planner.KindFigure, Required: true,
				Need:       is.ticker + " cost of revenue for " + is.period,
				Completion: planner.Condition{Kind: planner.CondFact, Issuer: is.ticker, Period: is.period, Concepts: costMetric.Concepts}},
			{ID: prefix + "-calculation", Issuer: is.ticker, Period: is.period, Aspect: "margins", Kind: planner.KindCalculation, Required: true,
				Need:       is.ticker + " gross margin",
				Completion: planner.Condition{Kind: planner.CondCalculation, Issuer: is.ticker, Period: is.period, Of: []string{prefix + "-figure-revenue", prefix + "-figure-cost_of_revenue"}}},
			{ID: prefix + "-explanation", Issuer: is.ticker, Period: is.period, Aspect: "margins", Kind: planner.KindExplanation, Required: true,
				Need:       is.ticker + " management's explanation of gross margin",
				Completion: planner.Condition{Kind: planner.CondPassage, Issuer: is.ticker, Period: is.period, Topic: "gross margin", AllOf: margins.ExplainGroups()}},
			{ID: prefix + "-outlook", Issuer: is.ticker, Period: is.period, Aspect: "margins", Kind: planner.KindOutlook, Required: true,
				Need:       is.ticker + " outlook for gross margin",
				Completion: planner.Condition{Kind: planner.CondPassage, Issuer: is.ticker, Period: is.period, Topic: "gross margin outlook", AllOf: [][]string{margins.Terms, planner.OutlookWords}}},
		}
		g.Requirements = append(g.Requirements, reqs...)
		figures = append(figures, reqs[0].ID, reqs[1].ID)
		l.Requirements = append(l.Requirements,
			ledger.Requirement{ID: reqs[0].ID, Evidence: []string{rev.ID}},
			ledger.Requirement{ID: reqs[1].ID, Evidence: []string{cost.ID}},
			ledger.Requirement{ID: reqs[2].ID, Evidence: []string{rev.ID, cost.ID}},
			ledger.Requirement{ID: reqs[3].ID, Evidence: []string{why.ID}},
			ledger.Requirement{ID: reqs[4].ID, Evidence: []string{next.ID}},
		)
		expr := "(revenue - cost_of_revenue) / revenue"
		result, err := tools.Evaluate(expr, map[string]decimal.Decimal{"revenue": revFact.Value, "cost_of_revenue": costFact.Value})
		if err != nil {
			t.Fatal(err)
		}
		calcs[reqs[2].ID] = &tools.Calculation{
			Expression: expr,
			Inputs:     map[string]string{"revenue": revFact.ID, "cost_of_revenue": costFact.ID},
			Values:     map[string]string{"revenue": revFact.Value.String(), "cost_of_revenue": costFact.Value.String()},
			Result:     result,
		}
	}
	g.Requirements = append(g.Requirements, planner.Requirement{ID: "comparability-margins", Aspect: "margins", Kind: planner.KindComparability,
		Need: "gross margin figures of AAPL and NVDA", Completion: planner.Condition{Kind: planner.CondComparable, Of: figures}})
	f.in = &Input{
		Question: l.Run.Question,
		Route:    planner.Route{Issuers: []string{"AAPL", "NVDA"}, Aspects: []string{"margins"}, Outlook: true},
		Graph:    g, Catalog: testCatalog(), Ledger: l, Calculations: calcs,
	}
	f.recheck()
	return f
}

// appleOnly narrows the fixture to its one issuer Apple, whose figures are
// then stated line by line, not tabled.
func (f *fixture) appleOnly() {
	f.in.Route.Issuers, f.in.Graph.Tickers = []string{"AAPL"}, []string{"AAPL"}
	f.in.Graph.Requirements = slices.DeleteFunc(f.in.Graph.Requirements, func(r planner.Requirement) bool { return r.Issuer != "AAPL" })
}

// add gives the plan requirement r and the ledger its evidence.
func (f *fixture) add(r planner.Requirement, evidence ...string) {
	f.in.Graph.Requirements = append(f.in.Graph.Requirements, r)
	f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: r.ID, Evidence: evidence})
}

// recheck computes Met as the executor does.
func (f *fixture) recheck() {
	calcs := map[string]bool{}
	for id := range f.in.Calculations {
		calcs[id] = true
	}
	met := map[string]bool{}
	for _, r := range f.in.Graph.Requirements {
		_, ok := planner.Check(r, f.in.Ledger, calcs, met)
		if r.Completion.Kind == planner.CondPrinted {
			_, ok = planner.CheckPrinted(r, f.in.Ledger, f.in.Calculations[r.Completion.Of[0]])
		}
		if ok {
			met[r.ID] = true
		}
	}
	f.in.Met = met
}

func (f *fixture) validate(t *testing.T, ans *validator.Answer) (*validator.Answer, *validator.Report) {
	t.Helper()
	return validator.Validate(&validator.Input{Answer: ans, Ledger: f.in.Ledger, Requirements: f.in.Graph.Requirements, Met: f.in.Met, Gaps: f.in.Gaps})
}

func assertVerbatim(t *testing.T, l *ledger.RunLedger, ans *validator.Answer) {
	t.Helper()
	byID := map[string]string{}
	for _, e := range l.Evidence {
		byID[e.ID] = e.Excerpt
	}
	for i, c := range ans.Citations {
		if c.Index != i+1 {
			t.Errorf("citation %d has index %d", i, c.Index)
		}
		text, ok := byID[c.EvidenceID]
		if !ok || !validator.Verbatim(c.Excerpt, text) {
			t.Errorf("citation %d (%s) is not verbatim: %q", c.Index, c.EvidenceID, c.Excerpt)
		}
	}
}

var markerPattern = regexp.MustCompile(`\[(\d+)\]`)

func TestRulesTwoIssuers(t *testing.T) {
	f := setupMargins(t)
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("answer:\n%s", ans.Answer)
	assertVerbatim(t, f.in.Ledger, ans)

	out, rep := f.validate(t, ans)
	if len(rep.Problems) != 0 {
		t.Errorf("validation problems: %+v", rep.Problems)
	}
	if out.Answer != ans.Answer || len(out.Citations) != len(ans.Citations) || len(out.Calculations) != 2 {
		t.Errorf("validation changed the answer:\n%s", out.Answer)
	}
	if out.Status != ledger.StatusSupported || ans.Status != ledger.StatusSupported {
		t.Errorf("status = %s (proposed %s), want supported", out.Status, ans.Status)
	}

	for _, want := range []string{
		"This answer covers Apple (AAPL) FY2024 (fiscal year ended 2024-09-28) and NVIDIA (NVDA) FY2023 (fiscal year ended 2023-01-29).",
		"Fiscal years end on different dates: AAPL 2024-09-28, NVDA 2023-01-29; figures are not for the same twelve months.",
		// Issuers side by side first, each figure cited.
		"| Issuer | Period | Revenue | Cost of revenue | Gross margin |",
		"| Apple (AAPL) | FY2024 (fiscal year ended 2024-09-28) | $391.04 billion [1] | $210.35 billion [2] | 46.2% [1][2] |",
		"- Gross margin, FY2024 = (revenue - cost of revenue) / revenue = (391,035 - 210,352) / 391,035 (millions) = 46.2% [1][2].",
		"- Gross margin, FY2023 = (revenue - cost of revenue) / revenue = (26,974 - 11,618) / 26,974 (millions) = 56.9%",
		// Both sentences that say why, each explaining the margin of the
		// part it names.
		"\"Products gross margin percentage increased during 2024 compared to 2023 due to cost savings, partially offset by a different Products mix.\" [",
		"\"Services gross margin increased during 2024 due primarily to higher Services net sales.\" [",
		"Outlook on gross margin, FY2024, in management's words",
		"\"The Company expects its gross margins to be subject to volatility and downward pressure.\"",
		// A quoted sentence keeps its own quotation marks (the quotation
		// is wrapped in the other kind); a bracketed number cannot read as
		// a marker.
		"“The year-over-year decrease in gross margin was primarily due to inventory provisions of $2.17 billion, as described in \"Inventory\" (1) of Note 1.” [8]",
	} {
		if !strings.Contains(ans.Answer, want) {
			t.Errorf("answer lacks %q", want)
		}
	}
	// Citations are numbered in order of first use, one per (evidence, excerpt).
	seen := map[string]bool{}
	next := 1
	for _, m := range markerPattern.FindAllStringSubmatch(ans.Answer, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		if m[1] != strconv.Itoa(next) {
			t.Errorf("marker [%s] first used where [%d] was expected", m[1], next)
		}
		next++
	}
	if next-1 != len(ans.Citations) {
		t.Errorf("%d markers, %d citations", next-1, len(ans.Citations))
	}
	for _, w := range []string{"should buy", "recommend", "will rise"} {
		if strings.Contains(strings.ToLower(ans.Answer), w) {
			t.Errorf("answer holds advice or prediction %q", w)
		}
	}
}

func TestRulesCausalUnmet(t *testing.T) {
	f := setupMargins(t)
	ai, _ := planner.AspectByName("ai")
	margins, _ := planner.AspectByName("margins")
	aiEv := testEvidence("docAAPL2024", 9000, ledger.KindPassage, "AAPL", "FY2024", aaplAI)
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, aiEv)
	causal := planner.Requirement{ID: "AAPL-FY2024-causal", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: planner.KindExplanation, Required: true,
		Need:       "a passage in which Apple's filing for FY2024 links artificial intelligence to gross margin, in one sentence",
		Completion: planner.Condition{Kind: planner.CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: [][]string{ai.Terms, margins.Terms}}}
	f.in.Graph.Requirements = append(f.in.Graph.Requirements, causal)
	// Both passages are linked: one mentions AI, the other margins.
	f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: causal.ID, Evidence: []string{aiEv.ID, f.evidence["AAPL-why"].ID}})
	f.in.Route.Causal = &planner.Causal{Cause: ai.Terms, Effect: margins.Terms, CauseAspects: []string{"ai"}, EffectAspects: []string{"margins"}}
	f.in.Question = "Did AI improve Apple's gross margin?"
	f.recheck()
	if f.in.Met[causal.ID] {
		t.Fatal("fixture: the causal requirement must be unmet")
	}

	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	want := "- The filings do not state that artificial intelligence improved gross margin at Apple in FY2024; mentions of the two in separate passages do not establish a link."
	if !strings.Contains(ans.Answer, want) {
		t.Errorf("answer lacks %q:\n%s", want, ans.Answer)
	}
	line := lineContaining(ans.Answer, "do not state that")
	if markerPattern.MatchString(line) {
		t.Errorf("the causal line cites something: %q", line)
	}
	for _, c := range ans.Citations {
		if c.EvidenceID == aiEv.ID {
			t.Errorf("the AI passage is cited: %+v", c)
		}
	}
	if ans.Status != ledger.StatusPartial {
		t.Errorf("proposed status = %s, want partial", ans.Status)
	}
	if !hasGapFor(ans.Gaps, causal.ID) {
		t.Errorf("gaps %+v lack %s", ans.Gaps, causal.ID)
	}
	assertVerbatim(t, f.in.Ledger, ans)
	out, rep := f.validate(t, ans)
	if out.Answer != ans.Answer || rep.Count(validator.ProblemUncoveredRequirement) != 1 || len(rep.Problems) != 1 {
		t.Errorf("validation: %+v\n%s", rep.Problems, out.Answer)
	}
	if out.Status != ledger.StatusPartial {
		t.Errorf("status = %s, want partial", out.Status)
	}
}

func TestRulesCausalMet(t *testing.T) {
	f := setupMargins(t)
	ai, _ := planner.AspectByName("ai")
	margins, _ := planner.AspectByName("margins")
	linked := "Gross margin benefited from higher sales of artificial intelligence accelerators."
	ev := testEvidence("docNVDA2023", 9000, ledger.KindPassage, "NVDA", "FY2023", "Data Center grew. "+linked)
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, ev)
	causal := planner.Requirement{ID: "NVDA-FY2023-causal", Issuer: "NVDA", Period: "FY2023", Aspect: "margins", Kind: planner.KindExplanation, Required: true,
		Need:       "a passage linking artificial intelligence to gross margin",
		Completion: planner.Condition{Kind: planner.CondPassage, Issuer: "NVDA", Period: "FY2023", AllOf: [][]string{ai.Terms, margins.Terms}}}
	f.in.Graph.Requirements = append(f.in.Graph.Requirements, causal)
	f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: causal.ID, Evidence: []string{ev.ID}})
	f.in.Route.Causal = &planner.Causal{Cause: ai.Terms, Effect: margins.Terms, CauseAspects: []string{"ai"}, EffectAspects: []string{"margins"}}
	f.recheck()

	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	// The linking sentence explains the gross margin as well, as a passage
	// of the run's: quoted once, under the explanation or on the causal line.
	line := lineContaining(ans.Answer, "Sentences of the FY2023 filing that mention artificial intelligence and gross margin together (quoted as written): ")
	if !strings.Contains(line, "\""+linked+"\" [") && !(strings.Contains(line, "the sentence quoted above") && strings.Count(ans.Answer, linked) == 1) {
		t.Errorf("causal line = %q\n%s", line, ans.Answer)
	}
	assertVerbatim(t, f.in.Ledger, ans)
	if _, rep := f.validate(t, ans); len(rep.Problems) != 0 {
		t.Errorf("validation problems: %+v", rep.Problems)
	}
}

func TestRulesNothingMet(t *testing.T) {
	f := setupMargins(t)
	f.in.Met = map[string]bool{}
	f.in.Route.NotCovered = []string{"Tesla"}
	f.in.Gaps = []validator.Gap{{RequirementID: "AAPL-FY2024-margins-explanation", Issuer: "AAPL", What: "Apple's explanation", Why: "search_filings failed: store unavailable"}}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ans.Answer, "The corpus does not answer this question") {
		t.Errorf("answer = %q", ans.Answer)
	}
	if len(ans.Citations) != 0 || len(ans.Calculations) != 0 || markerPattern.MatchString(ans.Answer) {
		t.Errorf("citations %+v in an answer with nothing met", ans.Citations)
	}
	if ans.Status != ledger.StatusInsufficientEvidence {
		t.Errorf("status = %s", ans.Status)
	}
	for _, want := range []string{"Tesla is not in the corpus; nothing is said about it.", "- Not found: Apple's explanation (search_filings failed: store unavailable).", "- Not found: NVDA outlook for gross margin"} {
		if !strings.Contains(ans.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, ans.Answer)
		}
	}
	// Ten required requirements, each with one gap.
	if len(ans.Gaps) != 10 {
		t.Errorf("%d gaps, want 10: %+v", len(ans.Gaps), ans.Gaps)
	}
	out, _ := f.validate(t, ans)
	if out.Status != ledger.StatusInsufficientEvidence || out.Answer != ans.Answer {
		t.Errorf("validated: %s\n%s", out.Status, out.Answer)
	}
}

func TestRulesPartialWithGaps(t *testing.T) {
	f := setupMargins(t)
	// NVIDIA's outlook passage was never found: no passage of the run
	// holds it (a passage gathered for another requirement would meet it).
	for i := range f.in.Ledger.Requirements {
		if f.in.Ledger.Requirements[i].ID == "NVDA-FY2023-margins-outlook" {
			gone := f.in.Ledger.Requirements[i].Evidence
			f.in.Ledger.Evidence = slices.DeleteFunc(f.in.Ledger.Evidence, func(e ledger.Evidence) bool { return slices.Contains(gone, e.ID) })
			f.in.Ledger.Requirements[i].Evidence = nil
		}
	}
	f.recheck()
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	line := lineContaining(ans.Answer, "Not found: NVDA outlook for gross margin")
	if line == "" || !strings.Contains(line, "no evidence meeting: a passage from the NVDA FY2023 filing") {
		t.Errorf("not-found line = %q\n%s", line, ans.Answer)
	}
	if ans.Status != ledger.StatusPartial {
		t.Errorf("status = %s", ans.Status)
	}
	out, rep := f.validate(t, ans)
	if out.Status != ledger.StatusPartial || rep.Count(validator.ProblemUncoveredRequirement) != 1 || len(rep.Problems) != 1 {
		t.Errorf("validated %s, problems %+v", out.Status, rep.Problems)
	}
}

func TestRulesDisagreeingFilings(t *testing.T) {
	f := setupMargins(t)
	later := testEvidence("docAAPL2025", 700, ledger.KindFact, "AAPL", "FY2025", "Total net sales 416,161 401,000 383,285")
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, later)
	f.in.Ledger.Facts = append(f.in.Ledger.Facts, testFact(later, marginIssuers[0].revConcept, "401000000000", marginIssuers[0].revPeriod))
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	line := lineContaining(ans.Answer, "disagree")
	if !strings.Contains(line, "$391.04 billion (391,035 million) in the FY2024 10-K [") || !strings.Contains(line, "] versus $401.00 billion (401,000 million) in the FY2025 10-K [") {
		t.Errorf("disagreement line = %q", line)
	}
	assertVerbatim(t, f.in.Ledger, ans)
	out, rep := f.validate(t, ans)
	if out.Status != ledger.StatusConflictingEvidence || len(rep.Problems) != 0 {
		t.Errorf("validated %s, problems %+v", out.Status, rep.Problems)
	}
}

func TestRulesRefusedAndErrors(t *testing.T) {
	ans, err := Rules{}.Synthesize(context.Background(), &Input{Route: planner.Route{Refused: true, Reason: "No advice."}})
	if err != nil || ans.Status != ledger.StatusRefused || ans.Answer != "No advice." {
		t.Errorf("refused: %+v, %v", ans, err)
	}
	if _, err := (Rules{}).Synthesize(context.Background(), nil); !errors.Is(err, ErrNoInput) {
		t.Errorf("nil input: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Rules{}).Synthesize(ctx, &Input{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// No plan at all: nothing to say, and it says so.
	ans, err = Rules{}.Synthesize(context.Background(), &Input{Route: planner.Route{NotCovered: []string{"Tesla", "Samsung"}},
		Graph: &planner.Graph{Notes: []string{"The question names no issuer the corpus holds."}}})
	if err != nil || ans.Status != ledger.StatusInsufficientEvidence || !strings.Contains(ans.Answer, "Tesla and Samsung are not in the corpus; nothing is said about them.") ||
		!strings.Contains(ans.Answer, "The question names no issuer the corpus holds.") {
		t.Errorf("no plan: %+v, %v", ans, err)
	}
}

func TestRulesMaxQuotes(t *testing.T) {
	f := setupMargins(t)
	extra := testEvidence("docAAPL2024", 12000, ledger.KindPassage, "AAPL", "FY2024", "Gross margin decreased in Services due to higher costs. Unrelated.")
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, extra)
	for i := range f.in.Ledger.Requirements {
		if f.in.Ledger.Requirements[i].ID == "AAPL-FY2024-margins-explanation" {
			f.in.Ledger.Requirements[i].Evidence = append(f.in.Ledger.Requirements[i].Evidence, extra.ID)
		}
	}
	for _, tc := range []struct{ max, want int }{{0, 2}, {1, 1}, {3, 3}, {5, 3}} {
		ans, err := Rules{MaxQuotesPerRequirement: tc.max}.Synthesize(context.Background(), f.in)
		if err != nil {
			t.Fatal(err)
		}
		line := lineContaining(ans.Answer, "Management's explanation of gross margin, FY2024")
		if got := strings.Count(line, "\" ["); got != tc.want {
			t.Errorf("max %d: %d quotes in %q", tc.max, got, line)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		value, unit, want string
	}{
		{"391035000000", "USD", "$391.04 billion (391,035 million)"},
		{"-1250000000", "USD", "-$1.25 billion (1,250 million)"},
		{"512345678", "USD", "$512.35 million"},
		{"1234.5", "USD", "$1,234.50"},
		{"6.11", "USD/shares", "$6.11 per share"},
		{"897149.321267", "USD/employees", "$897,149.32 per employee"},
		{"15408095000", "shares", "15,408 million shares"},
		{"0.25", "pure", "25%"},
		{"0.1175", "pure", "11.75%"},
		{"301626000", "pure", "301,626,000"},
	}
	for _, tc := range tests {
		if got := readableAmount(decimal.RequireFromString(tc.value), tc.unit); got != tc.want {
			t.Errorf("readableAmount(%s %s) = %q, want %q", tc.value, tc.unit, got, tc.want)
		}
	}
}

func TestPeriodText(t *testing.T) {
	tests := map[string]string{
		"2023-10-01/2024-09-28": "for the fiscal year ended 2024-09-28",
		"2025-03-30/2025-06-28": "for the quarter ended 2025-06-28 (from 2025-03-30)",
		"2024-09-29/2025-06-28": "for the period 2024-09-29 to 2025-06-28",
		"2024-09-28":            "as of 2024-09-28",
		"FY2024":                "for FY2024",
	}
	for in, want := range tests {
		if got := factPeriodText(in); got != want {
			t.Errorf("factPeriodText(%q) = %q, want %q", in, got, want)
		}
	}
}

func lineContaining(text, sub string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func hasGapFor(gaps []validator.Gap, id string) bool {
	for _, g := range gaps {
		if g.RequirementID == id {
			return true
		}
	}
	return false
}

func TestRulesQuoteSelection(t *testing.T) {
	whole := "Gross margin increased due to a favorable mix."
	cut := "margin increased due to lower component costs."
	tests := []struct {
		name     string
		passages []string
		want     []string
	}{
		{"a whole sentence wins over a fragment", []string{whole + " Other text.", cut}, []string{whole}},
		{"a fragment is quoted when nothing else holds the words", []string{cut}, []string{cut}},
		{"the same sentence from overlapping passages is quoted once", []string{whole, "Products " + strings.ToLower(whole[:1]) + whole[1:]}, []string{whole}},
		// A further sentence holding the condition's words by chance,
		// scoring under half the best one's, is not quoted.
		{"a weak second sentence is left out", []string{whole, "The margin on the loan was lower."}, []string{whole}},
		// The main cause before one the filing adds to it, though longer.
		{"the main cause first", []string{"Gross margin decreased due to one basis point of rewards.", "Gross margin decreased 65 basis points, driven primarily by higher component costs and a LIFO charge."},
			[]string{"Gross margin decreased 65 basis points, driven primarily by higher component costs and a LIFO charge.", "Gross margin decreased due to one basis point of rewards."}},
		{"a cause added to another after it", []string{"Gross margin also decreased due to rewards.", "Gross margin decreased due to a LIFO charge for higher costs."},
			[]string{"Gross margin decreased due to a LIFO charge for higher costs.", "Gross margin also decreased due to rewards."}},
		{"a second sentence as good is quoted", []string{whole, "Gross margin increased due to lower component costs."},
			[]string{whole, "Gross margin increased due to lower component costs."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := setupMargins(t)
			// The case's passages are the filing's only ones in the run.
			f.in.Ledger.Evidence = slices.DeleteFunc(f.in.Ledger.Evidence, func(e ledger.Evidence) bool {
				return e.Kind == ledger.KindPassage && e.Ticker == "AAPL" && e.Period == "FY2024"
			})
			var ids []string
			for i, p := range tc.passages {
				e := testEvidence("docAAPL2024", 20000+i*1000, ledger.KindPassage, "AAPL", "FY2024", p)
				f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, e)
				ids = append(ids, e.ID)
			}
			for i := range f.in.Ledger.Requirements {
				if f.in.Ledger.Requirements[i].ID == "AAPL-FY2024-margins-explanation" {
					f.in.Ledger.Requirements[i].Evidence = ids
				}
			}
			f.recheck()
			ans, err := Rules{}.Synthesize(context.Background(), f.in)
			if err != nil {
				t.Fatal(err)
			}
			line := lineContaining(ans.Answer, "Management's explanation of gross margin, FY2024")
			var got []string
			for _, m := range regexp.MustCompile(`"([^"]*)" \[`).FindAllStringSubmatch(line, -1) {
				got = append(got, m[1])
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("quotes = %q, want %q", got, tc.want)
			}
			assertVerbatim(t, f.in.Ledger, ans)
		})
	}
}

// A quarter asked ranks the sentence on the quarter above the one on the
// months to date; a year asked does not.
func TestQuarterRanksAboveMonthsToDate(t *testing.T) {
	quarter := "Gross margin decreased during the third quarter of 2025 compared to the third quarter of 2024 due primarily to tariffs."
	months := "Gross margin decreased during the first nine months of 2025 compared to the same period in 2024 due primarily to tariffs."
	groups := [][]string{{"gross margin"}, planner.DriverWords}
	e := &ledger.Evidence{Ticker: "AAPL", Section: "Item 2", Page: 30, Form: "10-Q"}
	lead := func(quarterly bool) float64 {
		w := &writer{in: &Input{Question: "Why did Apple's gross margin fall?", Route: planner.Route{Issuers: []string{"AAPL"}, Quarterly: quarterly}}}
		r := planner.Requirement{Kind: planner.KindExplanation, Completion: planner.Condition{AllOf: groups}}
		return w.rank(quarter, e, r) - w.rank(months, e, r)
	}
	if got := lead(true); got <= 0 {
		t.Errorf("a quarter asked: the quarter's sentence leads by %.2f; want it first", got)
	}
	if got, year := lead(true), lead(false); got-year < 3 {
		t.Errorf("the quarter's sentence leads by %.2f when a quarter is asked and by %.2f when a year is; want 3 more", got, year)
	}
}

func TestFrontMatterRanksBelow(t *testing.T) {
	tests := []struct {
		e    ledger.Evidence
		want int
	}{
		{ledger.Evidence{Section: "", Page: 3}, 3},
		{ledger.Evidence{Section: "Item 7", Page: 3}, 0},
		{ledger.Evidence{Section: "", Page: 40}, 0},
		{ledger.Evidence{Section: "", Page: 0}, 0},
	}
	for _, tt := range tests {
		if got := frontMatter(&tt.e); got != tt.want {
			t.Errorf("frontMatter(section %q, page %d) = %d, want %d", tt.e.Section, tt.e.Page, got, tt.want)
		}
	}
}

// A sentence states a figure when one of its numbers, at the scale it is
// printed with, rounds to it; small bare numbers and percentages do not.
func TestStatesValue(t *testing.T) {
	v := []decimal.Decimal{decimal.NewFromInt(513_983_000_000)}
	tests := []struct {
		s    string
		want bool
	}{
		{"Total net sales increased 9% to $514.0 billion in 2022.", true},
		{"Net sales were $513,983 million.", true},
		{"Total net sales 469,822 513,983", true},
		{"Net sales rose to $514 billion.", true},
		{"Net sales rose to $520 billion.", false},
		{"% of net revenues 10 % 9% 11 %", false},
		{"Revenues $ — $ 55 $ 995", false},
		{"We increased reserves by $1.3 billion.", false},
	}
	for _, tc := range tests {
		if got := statesValue(tc.s, v); got != tc.want {
			t.Errorf("statesValue(%q) = %v; want %v", tc.s, got, tc.want)
		}
	}
}

// Headings and table rows are not sentences to quote as a filing's words.
func TestHeadingsAndRows(t *testing.T) {
	tests := []struct {
		s, dropped    string
		heading, cell bool
	}{
		{s: "COMPETITION", dropped: "COMPETITION", heading: true},
		{s: "Year Ended December 31,", dropped: "Year Ended December 31,", heading: true},
		{s: "Paid memberships at end of period (1) 89,625", dropped: "Paid memberships at end of period (1) 89,625"},
		{s: "Competition\nThe market for entertainment video is intensely competitive.", dropped: "The market for entertainment video is intensely competitive."},
		{s: "Risks Related to Our Business\nOur business is highly competitive.", dropped: "Our business is highly competitive."},
		{s: "Our business is highly competitive.", dropped: "Our business is highly competitive."},
		{s: "Total net revenues $ 9,795 $ 10,420 $ 8,894", dropped: "Total net revenues $ 9,795 $ 10,420 $ 8,894", heading: false, cell: true},
		{s: "Effective tax rate | 24.1% | 14.7%", dropped: "Effective tax rate | 24.1% | 14.7%", cell: true},
		{s: "Net revenues decreased 6% to $9.8 billion in 2022.", dropped: "Net revenues decreased 6% to $9.8 billion in 2022."},
		{s: "Net Sales Mix:", dropped: "Net Sales Mix:", heading: true},
		{s: "For the fiscal year\nending January 31, 2023, we project capital expenditures will be approximately $18 billion.", dropped: "For the fiscal year\nending January 31, 2023, we project capital expenditures will be approximately $18 billion."},
		{s: "The increase was primarily due to the following factors:", dropped: "The increase was primarily due to the following factors:"},
		// A converted table's rows run together as one line of text.
		{s: "Foreign currency – Revenue 10% decrease in foreign exchange rates $ (6,822) Earnings Foreign currency – Investments 10% decrease in foreign exchange rates (181)", dropped: "Foreign currency – Revenue 10% decrease in foreign exchange rates $ (6,822) Earnings Foreign currency – Investments 10% decrease in foreign exchange rates (181)", cell: true},
		{s: "Revenue rose 10% to $5.2 billion in 2022 (see Note 5.)", dropped: "Revenue rose 10% to $5.2 billion in 2022 (see Note 5.)"},
	}
	for _, tc := range tests {
		got := dropHeadings(tc.s)
		if got != tc.dropped {
			t.Errorf("dropHeadings(%q) = %q; want %q", tc.s, got, tc.dropped)
		}
		if h := heading(got); h != tc.heading {
			t.Errorf("heading(%q) = %v; want %v", got, h, tc.heading)
		}
		if c := tableRow(got); c != tc.cell {
			t.Errorf("tableRow(%q) = %v; want %v", got, c, tc.cell)
		}
	}
}

// A heading holding the question's words lends them to the sentence under
// it, which is quoted without the heading.
func TestSentenceUnderHeading(t *testing.T) {
	excerpt := "Item 3. Legal Proceedings\nDigital Markets Act Investigations\nOn March 25, 2024, the Commission announced that it had opened two formal noncompliance investigations against the Company under the DMA. The Commission's investigations concern two articles."
	heads := headingsOf(excerpt)
	at := strings.Index(excerpt, "On March 25")
	if h := headingBefore(heads, at); h != "Digital Markets Act Investigations" {
		t.Errorf("heading before the sentence %q", h)
	}
	if h := headingBefore(heads, -1); h != "" {
		t.Errorf("a sentence not found has heading %q", h)
	}
}

// An issuer the SEC's list resolved but the corpus lacks is named with the
// command that fetches its filings; one only written is not.
func TestFetchCommand(t *testing.T) {
	tests := []struct {
		nc    []string
		years []int
		want  string
	}{
		{[]string{"AMD (ADVANCED MICRO DEVICES INC)"}, []int{2023}, "research fetch --ticker AMD --forms 10-K,10-Q --since 2023 --until 2023"},
		{[]string{"TSLA (Tesla, Inc.)", "Samsung"}, nil, "research fetch --ticker TSLA --forms 10-K,10-Q --latest 1"},
		{[]string{"BRK-B (BERKSHIRE HATHAWAY INC)"}, []int{2022, 2024}, "research fetch --ticker BRK-B --forms 10-K,10-Q --since 2022 --until 2024"},
		{[]string{"Samsung"}, nil, ""},
	}
	for _, tc := range tests {
		if got := fetchCommand(tc.nc, tc.years); got != tc.want {
			t.Errorf("fetchCommand(%q, %v) = %q; want %q", tc.nc, tc.years, got, tc.want)
		}
	}
}

// The same words of one filing, registered twice (a sentence a lookup read
// a count from, found again by a search), are one source: cited once.
func TestCiteOnceAcrossEvidence(t *testing.T) {
	const sentence = "As of June 30, 2022, we employed approximately 221,000 people on a full-time basis."
	fact := testEvidence("docMSFT", 4000, ledger.KindFact, "MSFT", "FY2022", sentence)
	passage := testEvidence("docMSFT", 3900, ledger.KindPassage, "MSFT", "FY2022", "Human capital. "+sentence)
	other := testEvidence("docOTHER", 4000, ledger.KindFact, "MSFT", "FY2022", sentence)
	w := newWriter(Rules{}, &Input{Ledger: &ledger.RunLedger{Evidence: []ledger.Evidence{fact, passage, other}}})
	a, b, c := w.cite(fact.ID, sentence), w.cite(passage.ID, sentence), w.cite(other.ID, sentence)
	if a != "[1]" || b != "[1]" {
		t.Errorf("one filing's sentence cited as %s and %s; want [1] twice", a, b)
	}
	if c != "[2]" {
		t.Errorf("another filing's sentence cited as %s; want [2]", c)
	}
	if len(w.cites) != 2 || w.cites[0].EvidenceID != fact.ID {
		t.Errorf("citations %+v; want two, the first of the evidence cited first", w.cites)
	}
}

// Guidance for the year the question names ranks first, however the
// question writes the year ("FY2023", "FY23", "fiscal 2023").
func TestGuidanceForTheYearAskedRanksFirst(t *testing.T) {
	guide := "In 2022, we spent $3,891 on capital expenditures, and it is our current intention to spend approximately $3,800 to $4,000 during fiscal 2023."
	hedge := "There can be no assurance that current expectations will be realized, and plans are subject to change upon further review of our capital expenditure needs."
	groups := [][]string{{"capital expenditure", "capex"}, planner.OutlookWords}
	e := &ledger.Evidence{Ticker: "COST", Section: "Item 7", Form: "10-K", Period: "FY2022"}
	for _, q := range []string{
		"Costco - what did mgmt say they plan to spend on capex in FY2023?",
		"What is Costco's capex plan for FY23?",
		"What capital expenditures does Costco plan for fiscal 2023?",
	} {
		w := &writer{in: &Input{Question: q, Route: planner.Route{Issuers: []string{"COST"}, Outlook: true}}}
		r := planner.Requirement{Kind: planner.KindOutlook, Completion: planner.Condition{AllOf: groups}}
		if lead := w.rank(guide, e, r) - w.rank(hedge, e, r); lead <= 0 {
			t.Errorf("%q: the guidance for the year asked leads by %.2f; want it first", q, lead)
		}
	}
}

// A calculation two requirements share (revenue growth, and the premise
// that revenue grew) is stated once, and the second requirement is no
// gap.
func TestCalculationStatedOnce(t *testing.T) {
	f := setupMargins(t)
	const shared = "AAPL-FY2024-margins-calculation"
	premise := planner.Requirement{ID: "AAPL-FY2024-premise", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: planner.KindCalculation, Required: true,
		Need:       "whether Apple's gross margin is positive, as the question says",
		Completion: planner.Condition{Kind: planner.CondCalculation, Issuer: "AAPL", Period: "FY2024", Topic: "gross margin change", Of: []string{"AAPL-FY2024-margins-figure-revenue"}, Sign: 1}}
	f.appleOnly()
	f.add(premise, f.evidence["AAPL-rev"].ID, f.evidence["AAPL-cost"].ID)
	f.in.Calculations[premise.ID] = f.in.Calculations[shared]
	f.recheck()
	if !f.in.Met[premise.ID] {
		t.Fatal("the premise is not met")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ans.Answer, "(391,035 - 210,352) / 391,035"); n != 1 {
		t.Errorf("the calculation is stated %d times; want once:\n%s", n, ans.Answer)
	}
	if strings.Contains(ans.Answer, "Not found") {
		t.Errorf("a requirement met by a calculation stated above is named as missing:\n%s", ans.Answer)
	}
}

// A fact two requirements name (the figure asked, and the row a derived
// figure is printed from) is stated once, and neither requirement is
// named as missing.
func TestFactStatedOnce(t *testing.T) {
	f := setupMargins(t)
	f.appleOnly()
	revMetric, _ := tools.MetricByName("revenue")
	row := planner.Requirement{ID: "AAPL-FY2024-margins-figure-revenue-total-net-sales", Issuer: "AAPL", Period: "FY2024", Aspect: "margins",
		Kind: planner.KindFigure, Required: true, Need: "Apple's total net sales for FY2024, as the row its gross margin is printed from",
		Completion: planner.Condition{Kind: planner.CondFact, Issuer: "AAPL", Period: "FY2024", Topic: "total net sales", Concepts: revMetric.Concepts}}
	f.add(row, f.evidence["AAPL-rev"].ID)
	f.recheck()
	if !f.in.Met[row.ID] {
		t.Fatal("the row's requirement is not met")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ans.Answer, "$391.04 billion (391,035 million)"); n != 1 {
		t.Errorf("the fact is stated %d times; want once:\n%s", n, ans.Answer)
	}
	if strings.Contains(ans.Answer, "Not found") {
		t.Errorf("a requirement met by a fact stated above is named as missing:\n%s", ans.Answer)
	}
}

// A required figure the evidence meets but the answer cannot quote is
// named as unstated: the validator then does not count it as answered.
func TestUnquotableFigureIsUnstated(t *testing.T) {
	f := setupMargins(t)
	f.appleOnly()
	e := testEvidence("docAAPL2024", 9000, ledger.KindFact, "AAPL", "FY2024", "x")
	e.Excerpt = " "
	fact := testFact(e, "us-gaap:OperatingIncomeLoss", "123456000000", "2023-10-01/2024-09-28")
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, e)
	f.in.Ledger.Facts = append(f.in.Ledger.Facts, fact)
	r := planner.Requirement{ID: "AAPL-FY2024-figure-operating-income", Issuer: "AAPL", Period: "FY2024", Aspect: "figures", Kind: planner.KindFigure, Required: true,
		Need:       "Apple's operating income for FY2024",
		Completion: planner.Condition{Kind: planner.CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:OperatingIncomeLoss"}}}
	f.add(r, e.ID)
	f.recheck()
	if !f.in.Met[r.ID] {
		t.Fatal("the figure's requirement is not met")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ans.Gaps, func(g validator.Gap) bool { return g.RequirementID == r.ID && g.Unstated }) {
		t.Errorf("gaps %+v: the unquotable figure is not named as unstated:\n%s", ans.Gaps, ans.Answer)
	}
}

// A comparison that asks for an order ("which had the highest", "ranked
// low to high") says it, by the figure the question names, each value
// cited as the table cites it; one that asks none is not ranked.
func TestComparisonRanked(t *testing.T) {
	tests := []struct {
		q, want string // want "" for no ranking
	}{
		{"Which had the higher gross margin, Apple or NVIDIA?", "Ranked by gross margin, highest first: NVIDIA (NVDA) 56.9% [3][4], Apple (AAPL) 46.2% [1][2]."},
		{"Rank Apple and NVIDIA by revenue, lowest first.", "Ranked by revenue, lowest first: NVIDIA (NVDA) $26.97 billion [3], Apple (AAPL) $391.04 billion [1]."},
		{"Compare gross margin at Apple and NVIDIA.", ""},
		{"Compare gross margin at Apple and NVIDIA in their most recent fiscal years.", ""},
	}
	for _, tt := range tests {
		f := setupMargins(t)
		f.in.Question = tt.q
		ans, err := Rules{}.Synthesize(context.Background(), f.in)
		if err != nil {
			t.Fatal(err)
		}
		if tt.want == "" {
			if strings.Contains(ans.Answer, "Ranked by") {
				t.Errorf("%q: ranked though no order was asked:\n%s", tt.q, ans.Answer)
			}
			continue
		}
		if !strings.Contains(ans.Answer, tt.want) {
			t.Errorf("%q: no line %q in:\n%s", tt.q, tt.want, ans.Answer)
		}
	}
}

// A ratio the filing prints is stated beside the one computed, citing the
// line that prints it, in the issuer's section and in the comparison
// table; one it does not print adds nothing.
func TestPrintedRatioStated(t *testing.T) {
	f := setupMargins(t)
	const calc = "AAPL-FY2024-margins-calculation"
	const row = "Total gross margin percentage | 46.2% | 44.1% | 43.3%"
	printed := planner.Requirement{ID: planner.PrintedID(calc), Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: planner.KindFigure,
		Need:       "Apple's gross margin as its 10-K prints it",
		Completion: planner.Condition{Kind: planner.CondPrinted, Issuer: "AAPL", Period: "FY2024", Topic: "gross margin", AllOf: [][]string{{"gross margin"}}, Of: []string{calc}}}
	e := testEvidence("docAAPL2024", 20000, ledger.KindPassage, "AAPL", "FY2024", "Gross margin percentages were as follows:\n"+row)
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, e)
	f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: printed.ID, Evidence: []string{e.ID}})
	f.in.Graph.Requirements = append(f.in.Graph.Requirements, printed)
	f.recheck()
	if !f.in.Met[printed.ID] {
		t.Fatal("the printed gross margin is not met")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	n := slices.IndexFunc(ans.Citations, func(c validator.Citation) bool { return c.Excerpt == row })
	if n < 0 {
		t.Fatalf("the printed row is not cited:\n%s", ans.Answer)
	}
	marker := "[" + strconv.Itoa(ans.Citations[n].Index) + "]"
	for _, want := range []string{"the filing prints 46.2% " + marker, "(printed: 46.2% " + marker + ")"} {
		if !strings.Contains(ans.Answer, want) {
			t.Errorf("the answer does not say %q:\n%s", want, ans.Answer)
		}
	}
	if strings.Count(ans.Answer, "print") != 2 {
		t.Errorf("a printed figure is stated for NVIDIA, whose filing was not found printing one:\n%s", ans.Answer)
	}
	assertVerbatim(t, f.in.Ledger, ans)
}

// A figure whose sentence points back to the one naming its subject ("The
// transaction will occur ... for total consideration of $9.0 billion") is
// quoted with that sentence, verbatim, as one quotation; the answer
// validates.
func TestFigureQuotedWithItsSubject(t *testing.T) {
	f := setupMargins(t)
	run := "On October 19, 2020, we signed an agreement with SK hynix to divest our NAND memory business. " +
		"The transaction will occur over two closings for total consideration of $9.0 billion in cash."
	e := testEvidence("docAAPL2024", 30000, ledger.KindPassage, "AAPL", "FY2024", "Divestitures\n"+run+"\n\nOther matters are described below.")
	f.in.Ledger.Evidence = append(f.in.Ledger.Evidence, e)
	r := planner.Requirement{ID: "AAPL-FY2024-general-explanation", Issuer: "AAPL", Period: "FY2024", Aspect: "general", Kind: planner.KindExplanation, Required: true,
		Need:       "the figure the FY2024 10-K states on the question",
		Completion: planner.Condition{Kind: planner.CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: [][]string{{"nand"}, {"hynix"}, {planner.FigureTerm}}}}
	f.in.Graph.Requirements = append(f.in.Graph.Requirements, r)
	f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: r.ID, Evidence: []string{e.ID}})
	f.recheck()
	if !f.in.Met[r.ID] {
		t.Fatal("the run of sentences does not meet the requirement")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans.Answer, `"`+run+`" [`) {
		t.Errorf("answer does not quote the two sentences as one:\n%s", ans.Answer)
	}
	assertVerbatim(t, f.in.Ledger, ans)
	if _, rep := f.validate(t, ans); len(rep.Problems) != 0 {
		t.Errorf("validator: %v", rep.Problems)
	}
}

// Asked whether something will keep moving one way, the expectation that
// names that way ranks above one that it will merely go on; and a sentence
// that only introduces a list ("... due to:") ranks below one that says
// something whole.
func TestOutlookRanksTheWayAsked(t *testing.T) {
	e := &ledger.Evidence{Ticker: "META", Section: "Item 7", Form: "10-K", Period: "FY2024"}
	r := planner.Requirement{Kind: planner.KindOutlook, Completion: planner.Condition{AllOf: [][]string{{"expect", "anticipate", "outlook"}}}}
	w := &writer{in: &Input{Question: "Does Meta expect Reality Labs losses to keep growing?", Route: planner.Route{Issuers: []string{"META"}, Outlook: true}}}
	way := "We continue to expect our Reality Labs operating losses to increase in 2025."
	onward := "We expect our Reality Labs segment to continue to operate at a loss for the foreseeable future."
	if lead := w.rank(way, e, r) - w.rank(onward, e, r); lead <= 0 {
		t.Errorf("the expectation of growing losses leads by %.2f; want it first", lead)
	}
	w = &writer{in: &Input{Question: "Does Oracle expect cloud revenues to keep rising?", Route: planner.Route{Issuers: []string{"ORCL"}, Outlook: true}}}
	list := "We expect that our total cloud and license revenues generally will continue to increase due to:"
	whole := "We expect that our total cloud and license revenues generally will continue to increase."
	if lead := w.rank(whole, e, r) - w.rank(list, e, r); lead <= 0 {
		t.Errorf("the whole sentence leads the list's introduction by %.2f; want it first", lead)
	}
	// An introduction that states a quantity itself says something.
	counted := "At August 28, 2022, we operated 838 membership warehouses:"
	plain := "At August 28, 2022, we operated 838 membership warehouses."
	if d := w.rank(plain, e, r) - w.rank(counted, e, r); d != 0 {
		t.Errorf("a colon after a quantity costs %.2f; want nothing", d)
	}
	dated := "The following table outlines the expected future recognition of unearned revenue as of June 30, 2022:"
	if d := w.rank(strings.TrimSuffix(dated, ":")+".", e, r) - w.rank(dated, e, r); d <= 0 {
		t.Errorf("a list's introduction with only a date in it leads by %.2f; want it behind", -d)
	}
}

// Two requirements may read one figure (capex asked, and capex as an input
// of free cash flow): the figure is stated once.
func TestFigureStatedOnce(t *testing.T) {
	f := setupMargins(t)
	const rev = "AAPL-FY2024-margins-figure-revenue"
	f.appleOnly()
	i := slices.IndexFunc(f.in.Graph.Requirements, func(r planner.Requirement) bool { return r.ID == rev })
	again := f.in.Graph.Requirements[i]
	again.ID = "AAPL-FY2024-figures-figure-revenue"
	f.add(again, f.evidence["AAPL-rev"].ID)
	f.recheck()
	if !f.in.Met[again.ID] {
		t.Fatal("the second requirement is not met")
	}
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	line := lineContaining(ans.Answer, "Revenue, FY2024")
	if line == "" {
		t.Fatalf("no revenue line:\n%s", ans.Answer)
	}
	if n := strings.Count(ans.Answer, line); n != 1 {
		t.Errorf("%q is stated %d times; want once:\n%s", line, n, ans.Answer)
	}
}

// Why a figure moved is best told by the sentence that gives the move in
// numbers with its cause, not by one that explains it against another
// figure, though both name a change and a main cause.
func TestExplanationRanksTheMoveInNumbers(t *testing.T) {
	e := &ledger.Evidence{Ticker: "EBAY", Section: "Item 7", Form: "10-K", Period: "FY2022"}
	r := planner.Requirement{Kind: planner.KindExplanation, Period: "FY2022",
		Completion: planner.Condition{AllOf: [][]string{{"net revenues", "revenue"}, planner.DriverWords}}}
	w := &writer{in: &Input{Question: "eBay net revenues 2022 — down how much, and why?", Route: planner.Route{Issuers: []string{"EBAY"}}}}
	move := "Net revenues decreased 6% to $9.8 billion primarily due to a decline in traffic during 2022."
	against := "Net revenues decreased at a lower rate than GMV during 2022 primarily due to a higher take rate."
	if lead := w.rank(move, e, r) - w.rank(against, e, r); lead <= 0 {
		t.Errorf("the move in numbers leads by %.2f; want it first", lead)
	}
}

func TestSharesCount(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"we employed 1,556,000 people", "Over 240,000 employees took part", false},
		{"approximately 2.3 million associates", "Of the approximately 2.3 million associates, 53% are women", true},
		{"we had 74,067 employees", "headcount was 74,067", true},
		{"we had 74,067 employees", "no number here", false},
	}
	for _, tt := range tests {
		if got := sharesCount(tt.a, tt.b); got != tt.want {
			t.Errorf("sharesCount(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// A line opening with an amount is a row of a converted table's bridge,
// not management's sentence.
func TestOpensWithAmount(t *testing.T) {
	for _, s := range []string{"1,855 Higher gross margin", "(1,360) Lower gross margin", "$ 412 Higher costs"} {
		if !opensWithAmount.MatchString(s) {
			t.Errorf("%q: not read as opening with an amount", s)
		}
	}
	if opensWithAmount.MatchString("2024 was a record year for Intel.") {
		t.Error("a year read as an amount")
	}
}

// A figure computed as an amount from amounts (revenue less cost of
// revenue) fills its column of the comparison table and is ranked by, as a
// reported amount is.
func TestComparisonComputedAmount(t *testing.T) {
	f := setupMargins(t)
	f.in.Question = "Rank Apple and NVIDIA by gross profit, highest first."
	for _, r := range slices.Clone(f.in.Graph.Requirements) {
		calc := f.in.Calculations[r.ID]
		if calc == nil {
			continue
		}
		id := strings.TrimSuffix(r.ID, "-calculation") + "-gross-profit"
		inputs := calc.Inputs
		rev, cost := f.evidenceFact(t, inputs["revenue"]), f.evidenceFact(t, inputs["cost_of_revenue"])
		f.in.Graph.Requirements = append(f.in.Graph.Requirements, planner.Requirement{ID: id, Issuer: r.Issuer, Period: r.Period, Aspect: "figures",
			Kind: planner.KindCalculation, Required: true, Need: r.Issuer + " gross profit",
			Completion: planner.Condition{Kind: planner.CondCalculation, Issuer: r.Issuer, Period: r.Period, Topic: "gross profit", Of: r.Completion.Of}})
		f.in.Ledger.Requirements = append(f.in.Ledger.Requirements, ledger.Requirement{ID: id})
		f.in.Calculations[id] = &tools.Calculation{Expression: "revenue - cost_of_revenue", Inputs: inputs,
			Values: map[string]string{"revenue": rev.String(), "cost_of_revenue": cost.String()}, Result: rev.Sub(cost)}
	}
	f.recheck()
	ans, err := Rules{}.Synthesize(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	header := lineContaining(ans.Answer, "| Issuer | Period |")
	line := lineContaining(ans.Answer, "Ranked by gross profit, highest first: ")
	if !strings.Contains(header, "Gross profit") || !strings.Contains(line, "Apple (AAPL) $") || strings.Index(line, "Apple") > strings.Index(line, "NVIDIA") {
		t.Errorf("no gross profit column or ranking:\n%s", ans.Answer)
	}
}

// evidenceFact returns the value of the fact whose id is id.
func (f *fixture) evidenceFact(t *testing.T, id string) decimal.Decimal {
	t.Helper()
	for _, x := range f.in.Ledger.Facts {
		if x.ID == id {
			return x.Value
		}
	}
	t.Fatalf("no fact %s", id)
	return decimal.Decimal{}
}

// A sentence opening with a name written with a capital inside its first
// word ("iPad net sales decreased ...") is whole, not the tail of one cut
// at a passage's start.
func TestFragmentOfNames(t *testing.T) {
	for s, want := range map[string]int{
		"iPad net sales decreased during the third quarter.": 0,
		"eBay's net revenues decreased 6%.":                  0,
		"due primarily to lower net sales of iPad.":          1,
		"Net sales decreased.":                               0,
	} {
		if got := fragment(s); got != want {
			t.Errorf("fragment(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestNameLabel: a calculation's inputs are written as a reader knows them:
// a catalogue figure by its label, initials joined by "&" as the initials,
// a prior year's input as such, any other name in words.
func TestNameLabel(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"revenue":          "revenue",
		"revenue_prior":    "prior-year revenue",
		"g_a":              "G&A",
		"g_a_prior":        "prior-year G&A",
		"mg_a":             "MG&A",
		"content_spending": "content spending",
		"tv_ad":            "tv ad", // short words, no initials
	} {
		if got := nameLabel(name); got != want {
			t.Errorf("nameLabel(%q) = %q, want %q", name, got, want)
		}
	}
}
