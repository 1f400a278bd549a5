package synth

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

func TestMain(m *testing.M) {
	code := m.Run()
	corpustest.Cleanup()
	os.Exit(code)
}

// gather plans question with the rules planner and runs its nodes in
// order with the tools, as the executor does without its budget and

// statsOnce holds the sample corpus's text statistics, built once.
var statsOnce struct {
	sync.Mutex
	stats *planner.TextStats
}

// sampleStats returns the text statistics of the store's documents.
func sampleStats(t *testing.T, store corpus.Store, cat *planner.Catalog, docs []corpus.Document) *planner.TextStats {
	t.Helper()
	statsOnce.Lock()
	defer statsOnce.Unlock()
	if statsOnce.stats != nil {
		return statsOnce.stats
	}
	var sd []planner.StatsDoc
	for _, d := range docs {
		full, err := store.Document(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		sd = append(sd, planner.StatsDoc{ID: d.ID, Issuer: d.Ticker, Text: full.Text, Names: []string{d.Company, d.Ticker, cat.ShortName(d.Ticker)}})
	}
	statsOnce.stats = planner.NewTextStats(sd)
	return statsOnce.stats
}

// synthesize writes the rules answer of in, logs it and checks that every
// quotation in it is verbatim.
func synthesize(t *testing.T, in *Input) *validator.Answer {
	t.Helper()
	ans, err := Rules{}.Synthesize(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("answer:\n%s", ans.Answer)
	assertVerbatim(t, in.Ledger, ans)
	return ans
}

// concurrency, and returns the synthesizer's input.
func gather(t *testing.T, store corpus.Store, question string) *Input {
	t.Helper()
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cat := planner.NewCatalog(docs)
	// The corpus's word statistics, as the executor gives the catalog them.
	cat.SetTextStats(sampleStats(t, store, cat, docs))
	rt := planner.RouteQuestion(question, cat, nil)
	// The figures the issuers' filings report, as the executor gives the
	// planner them.
	for _, d := range docs {
		if !slices.Contains(rt.Issuers, d.Ticker) {
			continue
		}
		facts, err := store.Facts(ctx, corpus.FactFilter{DocumentID: d.ID})
		if err != nil {
			t.Fatal(err)
		}
		cat.SetFigures(d.ID, planner.FigureEntries(facts))
	}
	g, err := (&planner.RulesPlanner{}).Plan(ctx, question, rt, cat)
	if err != nil {
		t.Fatal(err)
	}
	led, err := embeddedledger.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	const runID = "synth-corpus"
	if _, _, err := led.OpenRun(ctx, ledger.Run{ID: runID, Question: question}); err != nil {
		t.Fatal(err)
	}
	var reqs []ledger.Requirement
	for _, r := range g.Requirements {
		reqs = append(reqs, ledger.Requirement{ID: r.ID, Issuer: r.Issuer, Period: r.Period, Description: r.Need,
			CompletionCondition: validator.DescribeCondition(r.Completion)})
	}
	if _, err := led.AddRequirements(ctx, runID, reqs); err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Store: store, Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}), Ledger: led, RunID: runID,
		Scope: tools.Scope{Tenant: embeddedledger.DefaultTenant, Tickers: g.Tickers, FiscalYears: g.FiscalYears}}

	outputs := map[string]*tools.Output{}
	calcs := map[string]*tools.Calculation{}
	for _, n := range g.Nodes {
		args := n.Args
		if n.Tool == tools.Calculate {
			// Bind each fact to the concept its lookup found.
			inputs, err := planner.FactInputs(g, n)
			if err != nil {
				t.Fatal(err)
			}
			var ca tools.CalculateArgs
			if err := json.Unmarshal(n.Args, &ca); err != nil {
				t.Fatal(err)
			}
			bound := true
			for name, node := range inputs {
				out := outputs[node]
				if out == nil || len(out.Facts) == 0 {
					bound = false
					break
				}
				ref := ca.Facts[name]
				ref.Concept = out.Facts[0].Concept
				ca.Facts[name] = ref
			}
			if !bound {
				continue
			}
			if args, err = json.Marshal(ca); err != nil {
				t.Fatal(err)
			}
		}
		out, err := tools.Run(ctx, env, tools.Call{ID: n.ID, Tool: n.Tool, Args: args, RequirementID: n.Serves[0]})
		if err != nil {
			t.Logf("node %s (%s) failed: %v", n.ID, n.Tool, err)
			continue
		}
		outputs[n.ID] = out
		var ids []string
		for _, e := range out.Evidence {
			ids = append(ids, e.ID)
		}
		for _, id := range n.Serves {
			if len(ids) > 0 {
				if err := led.UpdateRequirement(ctx, runID, id, ledger.RequirementPending, ids); err != nil {
					t.Fatal(err)
				}
			}
			if out.Calculation != nil {
				calcs[id] = out.Calculation
			}
		}
	}
	l, err := led.Load(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	calcMet := map[string]bool{}
	for _, r := range g.Requirements {
		if c := calcs[r.ID]; c != nil {
			calcMet[r.ID] = planner.CalculationMeets(r, c.Result)
		}
	}
	met := map[string]bool{}
	for range 2 { // comparability conditions build on the others
		for _, r := range g.Requirements {
			_, ok := planner.Check(r, l, calcMet, met)
			if r.Completion.Kind == planner.CondPrinted && len(r.Completion.Of) > 0 && calcMet[r.Completion.Of[0]] {
				// As the executor checks it: against the calculation.
				_, ok = planner.CheckPrinted(r, l, calcs[r.Completion.Of[0]])
			}
			if ok {
				met[r.ID] = true
			}
		}
	}
	return &Input{Question: question, Route: rt, Graph: g, Catalog: cat, Ledger: l, Met: met, Calculations: calcs}
}

func TestRulesOverSampleCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t) // one store for every question
	tests := []struct {
		question string
		want     []string
		// noLink: a causal question the filings answer with no sentence
		// linking cause and effect; it ends insufficient_evidence.
		noLink bool
	}{
		{
			question: "Compare gross margin at Apple and NVIDIA in their latest fiscal year and say whether management expects it to persist.",
			want: []string{
				"This answer covers Apple (AAPL) FY2024 (fiscal year ended 2024-09-28) and NVIDIA (NVDA) FY2023 (fiscal year ended 2023-01-29).",
				"Fiscal years end on different dates: AAPL 2024-09-28, NVDA 2023-01-29; figures are not for the same twelve months.",
				"- Gross margin, FY2024 = (revenue - cost of revenue) / revenue = (391,035 - 210,352) / 391,035 (millions) = 46.2% [",
				"Outlook on gross margin, FY2024",
			},
		},
		{
			// A reason the next sentence goes on with is quoted with it.
			question: "Intel's effective tax rate rose to 16.7% in 2020 from 12.5% in 2019. What does the 10-K say caused the increase?",
			want:     []string{"as a result of our planned divestiture of the NAND memory business. It also increased due to the reduction in our foreign derived intangible income benefit in 2020.\" ["},
		},
		{
			// A reason the next sentence explains in turn is quoted
			// with it.
			question: "Meta's Reality Labs keeps bleeding money. How much did it lose in 2024, and what does Meta say made the loss bigger?",
			want:     []string{"driven by an increase in RL costs and expenses. RL costs and expenses increased primarily due to increases in employee compensation and infrastructure costs.\" ["},
		},
		{
			question: "How did Alphabet's revenue grow in fiscal 2024, and is Tesla doing better?",
			want: []string{
				"TSLA (Tesla, Inc.) is not in the corpus; nothing is said about it.",
				"- Revenue growth, FY2024 over FY2023 = (revenue - prior-year revenue) / prior-year revenue = (350,018 - 307,394) / 307,394 (millions) = 13.9% [",
			},
		},
		{
			question: "Did AI improve gross margins at Apple and Meta in fiscal 2024?",
			want: []string{"Apple (AAPL):", "Meta (META):", "- Gross margin, FY2024 = (revenue - cost of revenue) / revenue = (164,501 - 30,161) / 164,501 (millions) = 81.7% [",
				"The filings do not state that artificial intelligence improved gross margin at Meta in FY2024"},
			noLink: true,
		},
		{
			// The reason points back to the sentence naming what rose: the
			// two are quoted as the filing writes them, in one quotation.
			question: "Why did Google Cloud's operating income rise in 2024?",
			want:     []string{"\"Google Cloud operating income increased $4.4 billion from 2023 to 2024. The increase in operating income was primarily driven by an increase in revenues,"},
		},
		{
			// The sentence naming the move gives no reason; the next one,
			// pointing back, does: quoted with it.
			question: "Why did Meta's general and administrative expenses fall in 2024?",
			want:     []string{"\"General and administrative expenses in 2024 decreased $1.67 billion, or 15%, compared to 2023. The decrease was mostly driven by a favorable impact of $1.55 billion in legal-related costs.\" ["},
		},
		{
			question: "What are the risks Amazon and Netflix describe in 2022?",
			want:     []string{"Amazon (AMZN):", "Netflix (NFLX):", "- Risk factors, FY2022: \""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			in := gather(t, store, tc.question)
			ans := synthesize(t, in)
			out, rep := validator.Validate(&validator.Input{Answer: ans, Ledger: in.Ledger, Requirements: in.Graph.Requirements, Met: in.Met})
			for _, p := range rep.Problems {
				if p.Kind != validator.ProblemUncoveredRequirement {
					t.Errorf("validation problem: %+v", p)
				}
			}
			if out.Answer != ans.Answer {
				t.Errorf("validation changed the answer:\n%s", out.Answer)
			}
			switch {
			case tc.noLink && out.Status != ledger.StatusInsufficientEvidence:
				t.Errorf("status = %s; want insufficient_evidence: no sentence links the cause to the effect", out.Status)
			case !tc.noLink && out.Status != ledger.StatusSupported && out.Status != ledger.StatusPartial:
				t.Errorf("status = %s", out.Status)
			}
			for _, w := range tc.want {
				if !strings.Contains(ans.Answer, w) {
					t.Errorf("answer lacks %q", w)
				}
			}
			// No sentence is quoted twice, and no issuer's topic gets more
			// than three quotations.
			for _, c := range ans.Citations {
				if q := quoteText(c.Excerpt); strings.Count(ans.Answer, q) > 1 {
					t.Errorf("quoted twice: %s", q)
				}
			}
			w := newWriter(Rules{}, in)
			w.answer()
			for topic, n := range w.topicQuotes {
				if n > maxQuotesPerTopic && !strings.HasSuffix(topic, "\x00figure") {
					t.Errorf("%d quotations for %q; at most %d", n, topic, maxQuotesPerTopic)
				}
			}
			// What is missing is said: a causal link plainly, the rest on a
			// "Not found:" line.
			w = newWriter(Rules{}, in)
			for _, r := range in.Graph.Requirements {
				switch {
				case !r.Required || in.Met[r.ID]:
				case w.isCausal(r):
					if !strings.Contains(ans.Answer, "do not state that") || !strings.Contains(ans.Answer, "at "+in.Catalog.ShortName(r.Issuer)+" in "+r.Period) {
						t.Errorf("unmet causal requirement %s is not said plainly", r.ID)
					}
				default:
					if !strings.Contains(ans.Answer, "- Not found: "+strings.TrimRight(unmarked(r.Need), ". ")) {
						t.Errorf("unmet requirement %s has no Not found line", r.ID)
					}
				}
			}
			// The answer does not depend on the order concurrent searches
			// returned the evidence in.
			slices.Reverse(in.Ledger.Evidence)
			for i := range in.Ledger.Requirements {
				slices.Reverse(in.Ledger.Requirements[i].Evidence)
			}
			again, err := Rules{}.Synthesize(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if again.Answer != ans.Answer {
				t.Errorf("with the evidence in reverse order the answer differs:\n%s", again.Answer)
			}
		})
	}
}

// A question asserting how a part of a figure moved in a quarter is checked
// against the quarterly report's own columns: the quarter against the same
// quarter a year before, as the 10-Q prints them side by side. A premise
// the figures contradict leaves the run short of supported and says so; one
// they bear out is met.
func TestPremiseOfAPartInAQuarter(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	tests := []struct {
		question string
		met      bool
		want     string
	}{
		{"Why did Mac net sales increase in Apple's June 2023 quarter?", false,
			"- The reported figures do not bear out the question: Apple's Mac revenue fell over the period."},
		{"Services net sales grew in Apple's third quarter of fiscal 2023; what drove it?", true,
			"- Services revenue change, FY2023 = revenue - prior-year revenue = 21,213 - 19,604 (millions) = $1.61 billion"},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			checkPremise(t, store, tc.question, func(r planner.Requirement) bool { return r.Completion.Sign != 0 }, tc.met, tc.want)
		})
	}
}

// checkPremise runs question and checks the required premise isPremise
// picks: met as want met says, the run not supported where it is not, and
// the answer holding want. It returns the answer.
func checkPremise(t *testing.T, store corpus.Store, question string, isPremise func(planner.Requirement) bool, met bool, want string) string {
	t.Helper()
	in := gather(t, store, question)
	var premise *planner.Requirement
	for i, r := range in.Graph.Requirements {
		if isPremise(r) {
			premise = &in.Graph.Requirements[i]
		}
	}
	if premise == nil || !premise.Required {
		t.Fatalf("requirements %+v: no required premise planned", in.Graph.Requirements)
	}
	if in.Met[premise.ID] != met {
		t.Errorf("premise %s met = %v, want %v", premise.ID, in.Met[premise.ID], met)
	}
	ans := synthesize(t, in)
	out, _ := validator.Validate(&validator.Input{Answer: ans, Ledger: in.Ledger, Requirements: in.Graph.Requirements, Met: in.Met})
	if !met && out.Status == ledger.StatusSupported {
		t.Errorf("status supported for a premise the figures contradict")
	}
	if !strings.Contains(ans.Answer, want) {
		t.Errorf("answer lacks %q:\n%s", want, ans.Answer)
	}
	return ans.Answer
}

// Answers over the sample corpus hold what a reader asked for, each in the
// filing's own words:
//   - a segment's gross margin computed from the segment's revenue and cost,
//     as the company's is, and explained from the quarterly report's
//     discussion (its Item 2);
//   - guidance for the year a question names above a general statement of
//     what management expects ("guide" asks for the outlook), including a
//     year after the filing's own, in a sentence whose first line the layout
//     broke ("For the fiscal year / ending January 31, 2023, we project");
//   - the explanation of the year asked above one of an earlier year, and the
//     tax rate the filing prints beside the one computed from its tax expense
//     ("Provision for taxes", not the cash flow statement's "Income taxes");
//   - a difference between two issuers' figures, computed and labelled;
//   - an annual figure read from a later annual report's prior-year column
//     named by its fiscal year, not by the quarterly report of that year.
func TestAnswersOverSampleCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	for _, tc := range []struct {
		question string
		want     []string
	}{
		{"Why did Apple's Products gross margin percentage fall in the June 2025 quarter, and what was it?", []string{
			"- Products gross margin, FY2025 = (revenue - cost of revenue) / revenue = (66,613 - 43,620) / 66,613 (millions) = 34.5% [",
			"\"Products gross margin percentage decreased during the third quarter of 2025",
		}},
		// Who holds the least and the most ranks the issuers by the
		// figure; it names no part of it.
		{"Cash and cash equivalents at each company's own fiscal year-end: Nvidia FY2023, Walmart FY2022. Who holds the least cash and who holds the most?", []string{
			"| NVIDIA (NVDA) | FY2023 (fiscal year ended 2023-01-29) | $3.39 billion [",
			"| Walmart (WMT) | FY2022 (fiscal year ended 2022-01-31) | $14.76 billion [",
		}},
		// A number read elsewhere, checked: who said it, and its scale,
		// name no figure.
		{"A newsletter I get says Netflix ended 2024 with about 301.6 million paid memberships. Correct?", []string{
			"- Paid memberships, FY2024: 301,626,000 as of 2024-12-31 [",
		}},
		// An amount stated and checked asks the figure, and only it.
		{"Quick sanity check: an article I read put eBay's 2022 gross merchandise volume at roughly $87 billion. Does the 10-K back that up?", []string{
			"- GMV, FY2022: $73.90 billion (73,900 million) for the fiscal year ended 2022-12-31 [",
		}},
		// A board's decision for the year after the latest report is read
		// from that report.
		{"What annual dividend did Walmart's board approve for fiscal 2023?", []string{
			"the fiscal 2023 annual dividend of $2.24 per share",
		}},
		{"META 2025 capex guide?", []string{
			"\"We anticipate making capital expenditures of approximately $60 billion to $65 billion in 2025",
		}},
		{"What did Walmart guide for fiscal 2023 capex and buybacks in its FY22 10-K?", []string{
			"we project capital expenditures will be approximately $18 billion",
			"\"In fiscal 2023, we plan to spend at least $10 billion in share repurchases.\"",
		}},
		{"Intel's effective tax rate rose in 2020 vs 2019. What caused it, per the 10-K?", []string{
			"- Effective tax rate, FY2020: 16.7% ",
			"- Effective tax rate, FY2020 = income tax expense / income before income taxes = 4,179 / 25,078 (millions) = 16.7% [",
			"\"Our effective tax rate increased in 2020 compared to 2019, primarily driven by",
		}},
		{"How much more revenue did Alphabet make than Meta in 2024?", []string{
			"- Revenue difference, FY2024 = alphabet - meta = 350,018 - 164,501 (millions) = $185.52 billion",
		}},
		// The quarter's explanation, not the nine months'.
		{"AAPL fiscal Q3 2025 (June qtr): products gross margin % went down y/y. Why?", []string{
			"during the third quarter of 2025 compared to the third quarter of 2024 due primarily to",
		}},
		// Initials of a figure's name, and a ticker that is a word.
		{"FY22 GM% for COST?", []string{"- Gross margin percentage, FY2022: 10.48%"}},
		// Two figures asked one after the other, each stated as it is:
		// the renewal rate's sentence need not state the fee revenue.
		{"Costco FY22 membership fee revenue and renewal rate", []string{
			"- Renewal rate, FY2022, as the filing states it: \"Our member renewal rate was 93% in the U.S. and Canada",
		}},
		// A part's share of the whole, computed from both figures.
		{"AWS % of Amazon net sales 2024", []string{
			"- Amazon Web Services share of revenue, FY2024 = amazon web services revenue / total revenue = 107,556 / 637,959 (millions) = 16.9% [",
		}},
		// "what" doing something to a figure asks its cause.
		{"what squeezed netflix operating margin in 2022", []string{
			"\"The decrease in operating margin is primarily due to revenues growing at a slower rate",
		}},
		// The company's figure is explained by what moved it, not by what
		// moved a segment's ("The gross margin of our Compute &
		// Networking segment decreased ... due to").
		{"What pulled NVIDIA's gross margin down in fiscal 2023?", []string{
			"explanation of gross margin, FY2023: \"Gross margin for fiscal year 2023 declined from a year ago, driven by $2.17 billion of inventory charges",
		}},
		// Parts listed are each asked; a part of a part no table prints is
		// a gap, never one of the parts.
		{"What were Apple's Europe and Japan net sales in fiscal 2022?", []string{
			"- Europe revenue, FY2022: $95.12 billion", "- Japan revenue, FY2022: $25.98 billion",
		}},
		{"What was Apple's Mac revenue in Europe in fiscal 2022?", []string{"Not found: Apple's Europe Mac revenue for FY2022"}},
		{"AWS and North America operating margin in 2024?", []string{
			"- Amazon Web Services operating margin, FY2024 = operating income / revenue = 39,834 / 107,556 (millions) = 37.0% [",
			"- North America operating margin, FY2024 = operating income / revenue = 24,967 / 387,497 (millions) = 6.4% [",
		}},
		// Guidance is named by the year it is for, and the filing by its own.
		{"Amazon's guidance for Q1 2025 net sales?", []string{
			"- Outlook on revenue for 2025, from the FY2024 filing, in management's words (forward-looking statements, quoted as written): \"• Net sales are expected to be between $151.0 billion and $155.5 billion",
		}},
		// An item listed with what was done with it ("average price
		// paid") is the figure, stated by the sentence of the question's
		// topic that names it (in the plural too).
		{"How much stock did Costco buy back in FY22 — shares, dollars, and average price paid?", []string{
			"- Average price, FY2022, as the filing states it: \"During 2022 and 2021, we repurchased 863,000",
		}},
		// A quarter of the year after a named report is guided in that
		// report: no gap for the later year, the figure named by the year
		// it is for, and a requirement whose best sentence is quoted above
		// points to it rather than quote a worse one.
		{"Heading into 2023, what first-quarter sales and operating income range did Amazon's 2022 10-K guide to?", []string{
			"- First-quarter sales for 2023, from the FY2022 filing, as the filing expects it (forward-looking, quoted as written): \"• Net sales are expected to be between $121.0 billion",
			"- Outlook on revenue for 2023, from the FY2022 filing, in management's words (forward-looking statements, quoted as written): the sentence quoted above [",
		}},
		// A part named by the short form its issuer's filings define
		// ("Non-Volatile Memory Solutions Group (NSG)").
		{"Intel's memory business (NSG) swung to an operating profit in 2020. How much did it make?", []string{
			"- Non-Volatile Memory Solutions Group operating income, FY2020: $361.00 million",
		}},
		{"Intel DCG revenue 2020", []string{"- Data Center Group revenue, FY2020: $26.10 billion"}},
		// A figure the filing narrows with another's name.
		{"AMZN cash capex in 2024 vs 2023?", []string{"- Cash capex, FY2023, as the filing states it: \"Cash capital expenditures were $48.1 billion, and $77.7 billion in 2023 and 2024"}},
		{"Meta FoA revenue 2024", []string{"- Family of Apps revenue, FY2024: $162.36 billion"}},
		// A part's name clipped ("intl").
		{"WMT intl sales FY22", []string{"- Walmart International revenue, FY2022: $100.96 billion"}},
		// Management's sentence before the rows of a converted table's
		// bridge, one of which is the year before's.
		{"Intel's gross margin % slipped in 2020 despite record revenue - what does management blame?", []string{
			"- Management's explanation of gross margin, FY2020: \"Our gross margin percentage was down as the increase in platform revenue was offset by higher platform unit cost",
		}},
		// A part's figure explained in the question's word for it.
		{"Amazon's International segment sales fell in 2022. What was behind the decline?", []string{
			"explanation of revenue growth, FY2022: \"International sales decreased 8% in 2022, compared to the prior year, primarily due to",
		}},
		{"What drove Apple's Greater China sales growth in fiscal 2024?", []string{
			"FY2023 (fiscal year ended 2023-09-30)",
			"The reported figures do not bear out the question",
		}},
		// A move asserted and sized: the amount and the rate.
		{"Walmart International sales dropped in FY22 (fiscal year ended Jan 31, 2022) — by how much, and what was behind it?", []string{
			"= 100,959 - 121,360 (millions) = -$20.40 billion",
			"= (100,959 - 121,360) / 121,360 (millions) = -16.8% [",
		}},
		// A derived figure computed from the rows the filing prints it
		// from; an item asked in dollars stated by an amount.
		{"Costco FY22 gross margin rate fell 65 bps - what drove it, and how big was the LIFO charge in dollars?", []string{
			"= (222,730 - 199,382) / 222,730 (millions) = 10.5% [",
			"- LIFO charge, FY2022, as the filing states it: \"Due to inflation, a $438 charge was recorded during 2022",
		}},
		{"did amazon actually burn cash in 2022? what was free cash flow, and what were operating cash flow and capex behind it?", []string{
			"- Purchases of property and equipment, net of proceeds from sales and incentives, FY2022: $58.32 billion",
			"= 46,752 - 58,321 (millions) = -$11.57 billion",
		}},
		// A rate's initials in lower case, a month and a two-digit year,
		// and "qtr": the quarter's own figures.
		{"aapl products gm% slipped in the jun-25 qtr vs the yr-ago qtr — what were the two prints and what did mgmt blame?", []string{
			"= (66,613 - 43,620) / 66,613 (millions) = 34.5% [",
			"\"Products gross margin percentage decreased during the third quarter of 2025 compared to the third quarter of 2024",
		}},
		// A contraction ("isn't") is no clipped word of a part's name.
		{"Auditor q on NFLX's FY24 10-K: content obligations at Dec 31, 2024 — total, how much isn't on the balance sheet yet, and how much is due within the next 12 months?", []string{
			"- Content obligations, FY2024: $23.25 billion",
		}},
		// The context before the ask names nothing; "how many did it add"
		// is the row of additions.
		{"I've been a Netflix subscriber since the DVD-by-mail days and my friends keep telling me everyone is cancelling. Sorry if this is basic, but what I actually want to know is: how many paid memberships did Netflix have at the end of 2022, and how many did it add over the year?", []string{
			"- Paid memberships, FY2022: 230,747,000",
			"- Paid net membership additions, FY2022: 8,903,000",
		}},
		// A count of the whole and of a region of it, the region's in a
		// sentence taking a part of the one before ("Of these, ..."): the
		// whole's sentence, quoted within that run, is not quoted again.
		{"How many full-time employees did Netflix have at the end of 2022, and roughly how many of them sat in the US and Canada?", []string{
			"in 65 countries. Of these, approximately 9,000 (70%) were located in the United States and Canada",
			"- Employees, FY2022, as the filing states it: the sentence quoted above [",
		}},
		// "What was the change", no unit asked, of a figure named by its
		// label: the amount and, beside it, the rate the filing's table
		// prints.
		{"Is it true that eBay's gross merchandise volume kept growing in 2022? What GMV does the 2022 10-K report, and what was the change?", []string{
			"- GMV change, FY2022 = gmv - prior-year gmv = 73,900 - 87,365 (millions) = -$13.47 billion",
			"= (73,900 - 87,365) / 87,365 (millions) = -15.4% [",
			"the filing prints (15)% [",
		}},
		// A share computed over the whole the filing's own rate names.
		{"COST FY22 SG&A as a % of sales improved — what was the ratio, and what drove the leverage?", []string{
			"= 19,779 / 222,730 (millions) = 8.9% [",
		}},
		// Two figures added as a share of a third, one named by initials.
		{"need INTC's last FY (ended Dec 26, 2020) opex split: R&D and MG&A in $, and R&D + MG&A as a % of revenue.", []string{
			"(MG&A), FY2020: $6.18 billion",
			"= (13,556 + 6,180) / 77,867 (millions) = 25.3% [",
		}},
		// A further topic added in a few words at the end, one word
		// clipped ("interest exp", a clip, not an outside ticker): the
		// filing's row label it spells, and what management expects of it.
		{"ebay mgmt outlook into 2023 - does the rev vs gmv divergence keep going? anything on interest exp", []string{
			"\"We expect the divergence between net revenues and GMV to continue to a lesser extent into 2023.\"",
			"\"As a result, we expect continued upward pressure on interest expense to continue into 2023.\"",
		}},
		// A part named to say it is not the one asked.
		{"NVDA FY23 (ended Jan-29-2023) Data Center end-market revenue, $mm — the market-platform number, not the Compute & Networking segment", []string{
			"- Data Center end market revenue, FY2023: $15.01 billion (15,005 million) for the fiscal year ended 2023-01-29 [",
		}},
		// Money said to be lost: a part's operating loss.
		{"Did Reality Labs really lose more than $17 billion in 2024?", []string{
			"- Reality Labs operating income, FY2024: -$17.73 billion (17,729 million) for the fiscal year ended 2024-12-31 [",
		}},
		// A part's move, its short form in lower case: the part's own
		// sentence, not the company's revenue held against the part's fall.
		{"why did intel iotg rev fall ~21% in 2020", []string{
			"\"IOTG revenue decreased $814 million, or 21%, primarily driven by the economic impacts of COVID-19",
		}},
		// A count and a rate asked in clauses of their own: each its own
		// item, the rate no revenue ("turnover").
		{"How many employees did NVIDIA have at the end of fiscal 2023, and what was its overall turnover rate that year?", []string{
			"\"In fiscal year 2023, our overall turnover rate was 5.3%.\"",
			"we had 26,196 employees in 35 countries",
		}},
		// Two annual reports named side by side: each read for its own
		// year, neither the source of the other's.
		{"Microsoft gaming revenue growth in the FY2021 10-K vs the FY2022 10-K - how much did it slow, and what reasons does each filing give?", []string{
			"Gaming revenue increased $3.8 billion or 33% driven by growth in Xbox content and services and Xbox hardware.\"",
			"Gaming revenue increased $860 million or 6% on a strong prior year comparable",
		}},
		// A part's short form typed in lower case.
		{"intc dcg operating income 2020 + op margin", []string{
			"- Data Center Group operating income, FY2020: $10.57 billion (10,571 million) for the fiscal year ended 2020-12-26 [",
		}},
		// A figure asked as reported beside what is expected of it in the
		// year ahead, the expectation asked of by a pronoun.
		{"eBay FY22: what was interest expense and does mgmt expect it to keep rising into 2023 after refinancing the 2022 maturities?", []string{
			"- Interest expense, FY2022: -$235.00 million for the fiscal year ended 2022-12-31 [",
			"\"As a result, we expect continued upward pressure on interest expense to continue into 2023.\"",
		}},
		// A total a sentence states where no row is labelled so, beside
		// what the issuer expects of it.
		{"What was Meta's total deferred revenue at the end of 2024, and how much of it does Meta expect to realize within a year?", []string{
			"\"Total deferred revenue was $772 million and $675 million as of December 31, 2024 and 2023, respectively.\"",
			"we expect $721 million of our deferred revenue to be realized in less than a year.\"",
		}},
	} {
		t.Run(tc.question, func(t *testing.T) {
			in := gather(t, store, tc.question)
			ans := synthesize(t, in)
			for _, want := range tc.want {
				if !strings.Contains(ans.Answer, want) {
					t.Errorf("answer lacks %q", want)
				}
			}
		})
	}
}

// A word typed in lower case after the noun it completes, the first
// letters of a word most filings use ("interest exp"), is no outside
// issuer's ticker (Eagle Materials' EXP).
func TestClippedWordIsNoTicker(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	in := gather(t, store, "ebay mgmt outlook into 2023 - does the rev vs gmv divergence keep going? anything on interest exp")
	if len(in.Route.NotCovered) > 0 {
		t.Errorf("not covered %v: \"exp\" is a clipped word", in.Route.NotCovered)
	}
}

// A move asserted of a part the question names by its short form, typed
// in lower case, is the part's: the company's revenue is not held against
// it.
func TestPartMoveByLowerCaseShortForm(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	in := gather(t, store, "why did intel iotg rev fall ~21% in 2020")
	for _, r := range in.Graph.Requirements {
		if strings.Contains(r.ID, "-premise-revenue") {
			t.Errorf("requirement %s: the company's revenue tested against the part's fall", r.ID)
		}
	}
	if ans := synthesize(t, in); strings.Contains(ans.Answer, "do not bear out") {
		t.Errorf("answer refutes the part's move with the company's figure:\n%s", ans.Answer)
	}
}

// A loss the question takes for granted is checked against the figure: a
// profit contradicts it, the run is not supported and the answer says what
// the figure was; a loss the figures show meets it, and nothing but the
// figure is stated for it.
func TestLossPremise(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	tests := []struct {
		question string
		met      bool
		want     string
	}{
		{"What caused eBay to post an operating loss in 2022?", false,
			"- The reported figures do not bear out the question: eBay's operating income for FY2022 was $2.35 billion (2,350 million), not a loss."},
		{"What drove Amazon's net loss in 2022?", true, "- Net income, FY2022: -$2.72 billion (2,722 million)"},
		// A profit taken for granted that the figure shows was a loss.
		{"Why did Amazon swing to a net profit in 2022?", false,
			"- The reported figures do not bear out the question: Amazon's net income for FY2022 was -$2.72 billion (2,722 million), not a profit."},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			answer := checkPremise(t, store, tc.question, func(r planner.Requirement) bool {
				return strings.Contains(r.ID, "-premise-loss-") && r.Completion.Sign == -1 ||
					strings.Contains(r.ID, "-premise-profit-") && r.Completion.Sign == 1
			}, tc.met, tc.want)
			if strings.Contains(answer, "= net income =") || strings.Contains(answer, "= operating income =") {
				t.Errorf("the figure is stated as a calculation of itself:\n%s", answer)
			}
		})
	}
}

// A part's figure that is a rate of change ("Calendar comparable sales
// increase") answers a question on its growth as it is printed: no growth
// of the rate is computed, and the premise that it grew is the rate's sign.
func TestRateOfChangeRow(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	in := gather(t, store, "What drove Walmart U.S. comparable sales growth in fiscal 2022?")
	ans := synthesize(t, in)
	if !strings.Contains(ans.Answer, "Walmart U.S. comparable sales, FY2022: 6.4%") {
		t.Errorf("answer lacks the printed rate:\n%s", ans.Answer)
	}
	if strings.Contains(ans.Answer, "prior-year revenue) / prior-year revenue = (6.4%") || strings.Contains(ans.Answer, "do not bear out") {
		t.Errorf("a growth of the rate is computed, or its premise is contradicted:\n%s", ans.Answer)
	}
}

// A figure the filing's table prints as "—" for the period asked is no
// figure: the run is not supported by the row. A count asked is quoted from
// the sentence stating it, not beside one that counts something else. A
// quarter no report is held of is a gap; a period a 10-Q compares with is
// read from its comparatives.
func TestBlankRowAndCountOverSampleCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	tests := []struct {
		question  string
		supported bool
		want, not string
	}{
		{"How much did Netflix's DVD revenue grow in 2024?", false, "the FY2024 filing's table prints no value for FY2024", "DVD revenues (1) | — | 82,839 | 145,698 | (100)%\" ["},
		{"How many employees did Amazon, Alphabet and Meta each have at the end of 2024?", true, "1,556,000", "Career Choice"},
		// A quarter the corpus holds no report of, its year written first:
		// a gap, not the June quarter's iPhone revenue.
		{"AAPL Sept-qtr FY25 (Q4, ended Sep-27-2025) iPhone rev and FY25 full-year total net sales? need to close out the model", false,
			"the corpus holds no 10-Q for that quarter", "44.58 billion"},
		// The period a 10-Q compares with, named by the date it ended: the
		// 10-Q's comparatives, not a 10-Q of fiscal 2022 the corpus lacks.
		{"need AAPL Mac revenue Q3 FY23 YTD (9M ended July 1 2023) + the y/y change vs the 9M ended June 25 2022", true,
			"(21,743 - 28,669) / 28,669 (millions) = -24.2%", "fiscal 2022; the corpus holds no 10-Q"},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			in := gather(t, store, tc.question)
			ans := synthesize(t, in)
			out, _ := validator.Validate(&validator.Input{Answer: ans, Ledger: in.Ledger, Requirements: in.Graph.Requirements, Met: in.Met})
			if got := out.Status == ledger.StatusSupported; got != tc.supported {
				t.Errorf("status %s; want supported %v", out.Status, tc.supported)
			}
			if !strings.Contains(ans.Answer, tc.want) {
				t.Errorf("answer lacks %q", tc.want)
			}
			if strings.Contains(ans.Answer, tc.not) {
				t.Errorf("answer quotes %q", tc.not)
			}
		})
	}
}

// A figure asked beside a move asserted of another ("GMV and take rate,
// and why did net revenue fall") is stated, not checked against the move:
// the take rate rose, and no premise of its fall is refuted.
func TestMoveOfAnotherClause(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	in := gather(t, store, "ebay fy22: GMV and take rate, and why did net revenue fall so much less than GMV?")
	for _, r := range in.Graph.Requirements {
		if strings.Contains(r.ID, "-premise-take-rate") {
			t.Errorf("requirement %s planned: no fall is asserted of the take rate", r.ID)
		}
	}
	ans := synthesize(t, in)
	if strings.Contains(ans.Answer, "do not bear out") || !strings.Contains(ans.Answer, "Take rate, FY2022: 13.25%") {
		t.Errorf("answer:\n%s\nwant the take rate stated, and no premise refuted", ans.Answer)
	}
}

// A figure's growth asked by the figure's short form ("how much did R&D
// grow") is computed over the year before, and cited beside the growth the
// filing's discussion prints for it.
func TestGrowthOfShortFormPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	store := corpustest.Store(t)
	in := gather(t, store, "nvda fy23 opex jumped 50% — leaving aside the Arm termination charge, how much did R&D grow (% y/y) and what drove it?")
	ans := synthesize(t, in)
	for _, want := range []string{"= (7,339 - 5,268) / 5,268 (millions) = 39.3%", "the filing prints 39%"} {
		if !strings.Contains(ans.Answer, want) {
			t.Errorf("answer lacks %q", want)
		}
	}
}
