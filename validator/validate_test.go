package validator

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

func TestValidateCitations(t *testing.T) {
	f := setup(t)
	tests := []struct {
		name     string
		cite     Citation
		wantKept bool
		problem  string
	}{
		{"exact excerpt", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"}, true, ""},
		{"whole evidence", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: salesText}, true, ""},
		{"straight quotes and single spaces match curly quotes, double spaces and an em dash",
			Citation{Index: 1, EvidenceID: f.risk.ID, Excerpt: "The Company's future gross margins can be impacted by a variety of factors, including competition and pricing pressures - as discussed below."}, true, ""},
		{"line break and NBSP in the excerpt", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: "  Total net sales\nincreased\u00a02% or $7.8 billion "}, true, ""},
		{"invented evidence id", Citation{Index: 1, EvidenceID: "E000000000000", Excerpt: "Gross margin percentage was 46.2% in 2024"}, false, ProblemUnknownEvidence},
		{"paraphrased excerpt", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: "Gross margin was 46.2% in 2024"}, false, ProblemNotVerbatim},
		{"changed case is not verbatim", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: "gross margin percentage was 46.2% in 2024"}, false, ProblemNotVerbatim},
		{"excerpt of other evidence", Citation{Index: 1, EvidenceID: f.risk.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"}, false, ProblemNotVerbatim},
		{"empty excerpt", Citation{Index: 1, EvidenceID: f.sales.ID, Excerpt: "  "}, false, ProblemNotVerbatim},
		{"index zero", Citation{Index: 0, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage"}, false, ProblemInvalidIndex},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{
				Answer:       &Answer{Answer: "Apple discusses its gross margin [1]. The filing covers fiscal 2024.", Citations: []Citation{tc.cite}},
				Ledger:       f.l,
				Requirements: f.reqs,
				Met:          allMet(f.reqs),
			}
			out, rep := Validate(in)
			if got := len(out.Citations) == 1; got != tc.wantKept {
				t.Fatalf("kept = %v, want %v; problems %+v", got, tc.wantKept, rep.Problems)
			}
			if tc.wantKept {
				if out.Answer != "Apple discusses its gross margin [1]. The filing covers fiscal 2024." {
					t.Errorf("answer = %q", out.Answer)
				}
				if out.Citations[0].EvidenceID != tc.cite.EvidenceID || out.Citations[0].Index != 1 {
					t.Errorf("citation = %+v", out.Citations[0])
				}
				if len(rep.Problems) != 0 {
					t.Errorf("problems = %+v, want none", rep.Problems)
				}
				return
			}
			if rep.Count(tc.problem) != 1 {
				t.Errorf("problems %v, want one %s", kinds(rep), tc.problem)
			}
			// The claim lost its only citation: it must not stand.
			if out.Answer != "The filing covers fiscal 2024." {
				t.Errorf("answer = %q, want the uncited claim removed", out.Answer)
			}
			if rep.Count(ProblemClaimWithoutCitation) != 1 || rep.Kept != 0 || rep.Dropped != 1 {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

func TestValidateMarkers(t *testing.T) {
	f := setup(t)
	salesCite := Citation{EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"}
	riskCite := Citation{EvidenceID: f.risk.ID, Excerpt: "future gross margins can be impacted"}
	at := func(c Citation, i int) Citation { c.Index = i; return c }
	tests := []struct {
		name      string
		text      string
		cites     []Citation
		want      string
		wantCites []Citation
		problems  []string
	}{
		{
			name:      "renumbered in order of first appearance",
			text:      "Margins rose [3]. Margins are at risk [1]. Again [3].",
			cites:     []Citation{at(riskCite, 1), at(salesCite, 3)},
			want:      "Margins rose [1]. Margins are at risk [2]. Again [1].",
			wantCites: []Citation{at(salesCite, 1), at(riskCite, 2)},
		},
		{
			name:      "grouped forms",
			text:      "Both [2, 1]. Both again [1][2]. Tight [1,2].",
			cites:     []Citation{at(salesCite, 1), at(riskCite, 2)},
			want:      "Both [1][2]. Both again [2][1]. Tight [2][1].",
			wantCites: []Citation{at(riskCite, 1), at(salesCite, 2)},
		},
		{
			name:      "unreferenced citation pruned",
			text:      "Margins rose [2].",
			cites:     []Citation{at(riskCite, 1), at(salesCite, 2)},
			want:      "Margins rose [1].",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemUnreferenced},
		},
		{
			name:      "marker without citation removed from a sentence that keeps another",
			text:      "Margins rose [1, 7]. Margins held [1] [9].",
			cites:     []Citation{at(salesCite, 1)},
			want:      "Margins rose [1]. Margins held [1].",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemMarkerWithoutCitation, ProblemMarkerWithoutCitation},
		},
		{
			name:      "claim losing its only citation removed, its neighbours kept",
			text:      "Gross margin was 46.2% [1]. Revenue was $500 billion [2]. Risks remain [3].",
			cites:     []Citation{at(salesCite, 1), {Index: 2, EvidenceID: "E0123456789ab", Excerpt: "Revenue was $500 billion"}, at(riskCite, 3)},
			want:      "Gross margin was 46.2% [1]. Risks remain [2].",
			wantCites: []Citation{at(salesCite, 1), at(riskCite, 2)},
			problems:  []string{ProblemUnknownEvidence, ProblemMarkerWithoutCitation, ProblemClaimWithoutCitation},
		},
		{
			name:      "a bullet whose only claim is removed disappears with its line",
			text:      "Apple:\n- Revenue was $500 billion [2].\n- Gross margin was 46.2% [1].\n\n\nNot found: outlook.",
			cites:     []Citation{at(salesCite, 1), {Index: 2, EvidenceID: f.sales.ID, Excerpt: "Revenue was $500 billion"}},
			want:      "Apple:\n- Gross margin was 46.2% [1].\n\nNot found: outlook.",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemNotVerbatim, ProblemMarkerWithoutCitation, ProblemClaimWithoutCitation},
		},
		{
			name:      "marker after the full stop belongs to its sentence",
			text:      "Margins rose. [4] Margins held. [1]",
			cites:     []Citation{at(salesCite, 1)},
			want:      "Margins held. [1]",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemMarkerWithoutCitation, ProblemClaimWithoutCitation},
		},
		{
			name:      "two citations of one excerpt merge",
			text:      "Margins rose [1]. Margins rose again [2].",
			cites:     []Citation{at(salesCite, 1), {Index: 2, EvidenceID: f.sales.ID, Excerpt: " Gross margin  percentage was 46.2% in 2024"}},
			want:      "Margins rose [1]. Margins rose again [1].",
			wantCites: []Citation{at(salesCite, 1)},
		},
		{
			name:      "uncited figure removed, quoted evidence and uncited prose without figures kept",
			text:      "Revenue was $391.04 billion. The margin fell 3 percent. Apple wrote \"Gross margin percentage was 46.2%\" [1]. The filing is a 10-K.",
			cites:     []Citation{at(salesCite, 1)},
			want:      "Apple wrote \"Gross margin percentage was 46.2%\" [1]. The filing is a 10-K.",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemUncitedFigure, ProblemUncitedFigure},
		},
		{
			name:      "a gap line may name an amount",
			text:      "Gross margin was 46.2% [1].\n- Not found: Apple's outlook (the run's budget of $0.50 was spent).",
			cites:     []Citation{at(salesCite, 1)},
			want:      "Gross margin was 46.2% [1].\n- Not found: Apple's outlook (the run's budget of $0.50 was spent).",
			wantCites: []Citation{at(salesCite, 1)},
		},
		{
			name:      "advice removed",
			text:      "Investors should buy the stock now. We recommend holding. Gross margin was 46.2% [1].",
			cites:     []Citation{at(salesCite, 1)},
			want:      "Gross margin was 46.2% [1].",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemAdvice, ProblemAdvice},
		},
		{
			name:      "abbreviations do not split a sentence",
			text:      "U.S. sales, e.g. iPhone, rose [1]. Other text [5].",
			cites:     []Citation{at(salesCite, 1)},
			want:      "U.S. sales, e.g. iPhone, rose [1].",
			wantCites: []Citation{at(salesCite, 1)},
			problems:  []string{ProblemMarkerWithoutCitation, ProblemClaimWithoutCitation},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := Validate(&Input{
				Answer: &Answer{Answer: tc.text, Citations: tc.cites},
				Ledger: f.l, Requirements: f.reqs, Met: allMet(f.reqs),
			})
			if out.Answer != tc.want {
				t.Errorf("answer = %q\n        want %q", out.Answer, tc.want)
			}
			if !reflect.DeepEqual(out.Citations, tc.wantCites) {
				t.Errorf("citations = %+v\n           want %+v", out.Citations, tc.wantCites)
			}
			got := kinds(rep)
			slices.Sort(got)
			want := slices.Clone(tc.problems)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("problems = %v, want %v (%+v)", got, want, rep.Problems)
			}
		})
	}
}

func TestValidateCalculations(t *testing.T) {
	f := setup(t)
	text := "Gross margin = gross profit / revenue = 180,683 / 391,035 = 46.2% [1][2]. Apple discusses margins [3]."
	cites := []Citation{
		{Index: 1, EvidenceID: f.gp.ID, Excerpt: "180,683"},
		{Index: 2, EvidenceID: f.rev.ID, Excerpt: "391,035"},
		{Index: 3, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"},
	}
	mod := func(edit func(c *contract.Calculation)) contract.Calculation {
		c := f.margin.Clone()
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		calc contract.Calculation
		ok   bool
	}{
		{"recomputes", f.margin, true},
		{"recomputes at 6 places", mod(func(c *contract.Calculation) { c.Result = decimal.RequireFromString("0.462063") }), true},
		{"wrong result", mod(func(c *contract.Calculation) { c.Result = decimal.RequireFromString("0.4617") }), false},
		{"value differs from the ledger fact", mod(func(c *contract.Calculation) { c.Values["revenue"] = "391000000000" }), false},
		{"unknown fact", mod(func(c *contract.Calculation) { c.Inputs["revenue"] = "F000000000000" }), false},
		{"value without input", mod(func(c *contract.Calculation) { c.Values["cost"] = "1" }), false},
		{"expression does not evaluate", mod(func(c *contract.Calculation) { c.Expression = "gross_profit / (revenue - revenue)" }), false},
		{"no inputs", contract.Calculation{Expression: "46.2 / 100", Result: decimal.RequireFromString("0.462")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := Validate(&Input{
				Answer: &Answer{Answer: text, Citations: cites, Calculations: []contract.Calculation{tc.calc}},
				Ledger: f.l, Requirements: f.reqs, Met: allMet(f.reqs),
			})
			if tc.ok {
				if len(out.Calculations) != 1 || out.Answer != text || len(rep.Problems) != 0 {
					t.Fatalf("answer %q, calculations %d, problems %+v", out.Answer, len(out.Calculations), rep.Problems)
				}
				if out.Status != ledger.StatusSupported {
					t.Errorf("status = %s, want supported", out.Status)
				}
				return
			}
			if len(out.Calculations) != 0 {
				t.Errorf("calculation kept: %+v", out.Calculations)
			}
			// One problem for the calculation, one for the sentence stating its result.
			if rep.Count(ProblemCalculationMismatch) != 2 {
				t.Errorf("problems %v, want two calculation_mismatch", kinds(rep))
			}
			if out.Answer != "Apple discusses margins [1]." {
				t.Errorf("answer = %q, want the sentence stating the result removed", out.Answer)
			}
		})
	}
}

func TestValidateRemovesSentenceStatingMismatchedResult(t *testing.T) {
	f := setup(t)
	bad := f.margin.Clone()
	bad.Result = decimal.RequireFromString("0.5")
	out, rep := Validate(&Input{
		Answer: &Answer{
			Answer: "Gross margin = 180,683 / 391,035 = 50.0% [1][2]. Apple discusses margins [3].",
			Citations: []Citation{
				{Index: 1, EvidenceID: f.gp.ID, Excerpt: "180,683"},
				{Index: 2, EvidenceID: f.rev.ID, Excerpt: "391,035"},
				{Index: 3, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"},
			},
			Calculations: []contract.Calculation{bad},
		},
		Ledger: f.l, Requirements: f.reqs, Met: allMet(f.reqs),
	})
	if out.Answer != "Apple discusses margins [1]." {
		t.Errorf("answer = %q", out.Answer)
	}
	if len(out.Citations) != 1 || out.Citations[0].EvidenceID != f.sales.ID {
		t.Errorf("citations = %+v", out.Citations)
	}
	if rep.Count(ProblemCalculationMismatch) != 2 || rep.Count(ProblemUnreferenced) != 2 {
		t.Errorf("problems = %v", kinds(rep))
	}
}

func TestValidateGapsAndStatus(t *testing.T) {
	f := setup(t)
	l := *f.l
	l.Requirements = []ledger.Requirement{{ID: "aapl-drivers", CompletionCondition: "a sentence naming gross margin and a driver"}}
	answer := &Answer{
		Answer:    "Apple's gross margin percentage: \"Gross margin percentage was 46.2% in 2024\" [1].",
		Citations: []Citation{{Index: 1, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"}},
		Status:    ledger.StatusSupported,
		Gaps:      []Gap{{RequirementID: "aapl-outlook", What: "AAPL outlook", Why: "no forward-looking sentence"}},
	}
	met := map[string]bool{"aapl-revenue": true}
	executorGap := Gap{RequirementID: "aapl-gross-profit", Issuer: "AAPL", What: "AAPL gross profit FY2024", Why: "lookup_fact failed: store unavailable"}
	out, rep := Validate(&Input{Answer: answer, Ledger: &l, Requirements: f.reqs, Met: met, Gaps: []Gap{executorGap}})

	if out.Status != ledger.StatusPartial {
		t.Errorf("status = %s, want partial (the synthesizer's proposal is ignored)", out.Status)
	}
	want := []Gap{
		executorGap,
		answer.Gaps[0],
		{RequirementID: "aapl-drivers", Issuer: "AAPL", What: "AAPL management's explanation of gross margin", Why: "no evidence meeting: a sentence naming gross margin and a driver"},
	}
	if !reflect.DeepEqual(out.Gaps, want) {
		t.Errorf("gaps = %+v\n want %+v", out.Gaps, want)
	}
	if rep.Count(ProblemUncoveredRequirement) != 2 {
		t.Errorf("problems = %v, want two uncovered_requirement", kinds(rep))
	}

	// Without a ledger condition the plan's condition is described.
	out, _ = Validate(&Input{Answer: answer, Ledger: f.l, Requirements: f.reqs[:1]})
	if len(out.Gaps) != 2 || !strings.HasPrefix(out.Gaps[1].Why, "no evidence meeting: a tagged fact for AAPL FY2024") {
		t.Errorf("gaps = %+v", out.Gaps)
	}
	if out.Status != ledger.StatusInsufficientEvidence {
		t.Errorf("status = %s, want insufficient_evidence", out.Status)
	}
}

// A requirement the evidence meets but the answer names as unstated (no
// sentence of it could be quoted) is not answered: the status is partial,
// and the same gap not marked unstated changes nothing.
func TestValidateUnstatedRequirement(t *testing.T) {
	f := setup(t)
	answer := &Answer{
		Answer:    "Apple's gross margin percentage: \"Gross margin percentage was 46.2% in 2024\" [1].",
		Citations: []Citation{{Index: 1, EvidenceID: f.sales.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"}},
		Status:    ledger.StatusSupported,
	}
	met := map[string]bool{"aapl-revenue": true, "aapl-gross-profit": true, "aapl-drivers": true}
	for _, tt := range []struct {
		unstated bool
		want     ledger.RunStatus
	}{
		{false, ledger.StatusSupported},
		{true, ledger.StatusPartial},
	} {
		a := *answer
		a.Gaps = []Gap{{RequirementID: "aapl-drivers", Issuer: "AAPL", What: "AAPL management's explanation of gross margin",
			Why: "the evidence meeting it could not be quoted", Unstated: tt.unstated}}
		out, _ := Validate(&Input{Answer: &a, Ledger: f.l, Requirements: f.reqs, Met: met})
		if out.Status != tt.want {
			t.Errorf("unstated %v: status = %s, want %s", tt.unstated, out.Status, tt.want)
		}
		if !met["aapl-drivers"] {
			t.Fatal("Validate changed the caller's Met")
		}
	}
}

func TestValidateContradictionOnCitedFact(t *testing.T) {
	f := setup(t)
	other := newEvidence("docB", 300, ledger.KindFact, "AAPL", "FY2025", "401,000")
	l := *f.l
	l.Evidence = append(slices.Clone(l.Evidence), other)
	l.Facts = append(slices.Clone(l.Facts), newFact(other, f.revFact.Concept, "401000000000", aaplPeriod))
	recorded := ledger.Contradiction{RequirementID: "aapl-drivers", EvidenceIDs: []string{f.sales.ID, f.risk.ID}, Difference: "wording"}
	recorded.ID = ledger.ContradictionID(recorded.RequirementID, recorded.EvidenceIDs)
	l.Contradictions = []ledger.Contradiction{recorded}

	out, _ := Validate(&Input{
		Answer: &Answer{
			Answer:    "Apple's revenue was $391.04 billion [1].",
			Citations: []Citation{{Index: 1, EvidenceID: f.rev.ID, Excerpt: "391,035"}},
			// The synthesizer's contradictions are replaced.
			Contradictions: []ledger.Contradiction{{ID: "Cbogus", RequirementID: "x", EvidenceIDs: []string{"a", "b"}, Difference: "made up"}},
		},
		Ledger: &l, Requirements: f.reqs, Met: allMet(f.reqs),
	})
	if out.Status != ledger.StatusConflictingEvidence {
		t.Errorf("status = %s, want conflicting_evidence", out.Status)
	}
	if len(out.Contradictions) != 2 || out.Contradictions[0].ID != recorded.ID || out.Contradictions[1].RequirementID != "aapl-revenue" {
		t.Errorf("contradictions = %+v", out.Contradictions)
	}
}

func TestValidateNothingSurvives(t *testing.T) {
	f := setup(t)
	out, rep := Validate(&Input{
		Answer: &Answer{Answer: "Revenue was $1 trillion [1].", Citations: []Citation{{Index: 1, EvidenceID: "Enope", Excerpt: "x"}}},
		Ledger: f.l, Requirements: f.reqs, Met: allMet(f.reqs),
	})
	if rep.Count(ProblemEmptyAnswer) != 1 || out.Answer == "" || len(out.Citations) != 0 {
		t.Errorf("answer %q, problems %v", out.Answer, kinds(rep))
	}
	if out.Status != ledger.StatusInsufficientEvidence {
		t.Errorf("status = %s, want insufficient_evidence", out.Status)
	}
	if out.Citations == nil || out.Gaps == nil || out.Contradictions == nil {
		t.Error("lists must be empty, not nil, so JSON shows []")
	}
}

func TestValidateDoesNotMutateInput(t *testing.T) {
	f := setup(t)
	in := &Answer{
		Answer: "Margins rose [3]. Bad [2].",
		Citations: []Citation{
			{Index: 3, EvidenceID: f.sales.ID, Excerpt: " Gross margin percentage was 46.2% in 2024 "},
			{Index: 2, EvidenceID: "Enope", Excerpt: "x"},
		},
		Calculations: []contract.Calculation{f.margin},
		Status:       ledger.StatusSupported,
	}
	before, _ := json.Marshal(in)
	out, _ := Validate(&Input{Answer: in, Ledger: f.l, Requirements: f.reqs})
	after, _ := json.Marshal(in)
	if string(before) != string(after) {
		t.Errorf("input answer changed:\n%s\n%s", before, after)
	}
	out.Calculations[0].Inputs["revenue"] = "changed"
	if f.margin.Inputs["revenue"] == "changed" {
		t.Error("validated calculation shares its map with the input")
	}
}

func TestValidateNilInput(t *testing.T) {
	out, rep := Validate(nil)
	if out == nil || rep == nil || out.Status != ledger.StatusInsufficientEvidence {
		t.Fatalf("Validate(nil) = %+v, %+v", out, rep)
	}
}

func TestValidateRefused(t *testing.T) {
	out, rep := Validate(&Input{Refused: true, Answer: &Answer{Answer: "This engine does not say whether you should buy or sell a security."}})
	if out.Status != ledger.StatusRefused {
		t.Errorf("status = %s", out.Status)
	}
	if out.Answer != "This engine does not say whether you should buy or sell a security." || len(rep.Problems) != 0 {
		t.Errorf("answer %q, problems %+v", out.Answer, rep.Problems)
	}
}

func TestDecideStatus(t *testing.T) {
	f := setup(t)
	reqs := f.reqs // three required, one optional (aapl-outlook)
	onRequired := ledger.Contradiction{RequirementID: "aapl-revenue", EvidenceIDs: []string{"E1", "E2"}}
	onOptional := ledger.Contradiction{RequirementID: "aapl-outlook", EvidenceIDs: []string{"E3", "E4"}}
	optionalOnly := slices.Clone(reqs[3:])
	tests := []struct {
		name string
		in   StatusInput
		want ledger.RunStatus
	}{
		{"refused wins", StatusInput{Refused: true, BudgetExhausted: true, Requirements: reqs, Met: allMet(reqs), Citations: 3}, ledger.StatusRefused},
		{"budget exhausted", StatusInput{BudgetExhausted: true, Requirements: reqs, Met: allMet(reqs), Citations: 3}, ledger.StatusBudgetExhausted},
		{"contradiction on a required requirement", StatusInput{Requirements: reqs, Met: allMet(reqs), Citations: 3, Contradictions: []ledger.Contradiction{onRequired}}, ledger.StatusConflictingEvidence},
		{"contradiction on cited evidence", StatusInput{Requirements: reqs, Met: allMet(reqs), Citations: 3, Contradictions: []ledger.Contradiction{onOptional}, CitedEvidence: map[string]bool{"E4": true}}, ledger.StatusConflictingEvidence},
		{"contradiction elsewhere is not a conflict", StatusInput{Requirements: reqs, Met: allMet(reqs), Citations: 3, Contradictions: []ledger.Contradiction{onOptional}, CitedEvidence: map[string]bool{"E1": true}}, ledger.StatusSupported},
		{"no citation", StatusInput{Requirements: reqs, Met: allMet(reqs)}, ledger.StatusInsufficientEvidence},
		{"no requirements", StatusInput{Citations: 2}, ledger.StatusInsufficientEvidence},
		{"no required requirement met", StatusInput{Requirements: reqs, Met: map[string]bool{"aapl-outlook": true}, Citations: 1}, ledger.StatusInsufficientEvidence},
		{"all required met", StatusInput{Requirements: reqs, Met: map[string]bool{"aapl-revenue": true, "aapl-gross-profit": true, "aapl-drivers": true}, Citations: 3}, ledger.StatusSupported},
		{"some required met", StatusInput{Requirements: reqs, Met: map[string]bool{"aapl-revenue": true}, Citations: 1}, ledger.StatusPartial},
		{"all met but an issuer named is outside the corpus", StatusInput{Requirements: reqs, Met: allMet(reqs), Citations: 3, NotCovered: []string{"Samsung"}}, ledger.StatusPartial},
		{"only optional requirements, all met", StatusInput{Requirements: optionalOnly, Met: allMet(optionalOnly), Citations: 1}, ledger.StatusSupported},
		{"only optional requirements, none met", StatusInput{Requirements: optionalOnly, Citations: 1}, ledger.StatusInsufficientEvidence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideStatus(tc.in); got != tc.want {
				t.Errorf("DecideStatus = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two.", []string{"One. ", "Two."}},
		{"Rose 46.2% [1]. Fell [2].", []string{"Rose 46.2% [1]. ", "Fell [2]."}},
		{"He said \"Up.\" [1] Then down.", []string{"He said \"Up.\" [1] ", "Then down."}},
		{"U.S. sales rose. e.g. this", []string{"U.S. sales rose. e.g. this"}},
		{"Why? Because! Done", []string{"Why? ", "Because! ", "Done"}},
		{"Said \"A rose 5%. B Inc. fell.\" [1] Next.", []string{"Said \"A rose 5%. B Inc. fell.\" [1] ", "Next."}},
		{"Said “A. B.” [1] “C.” [2]", []string{"Said “A. B.” [1] ", "“C.” [2]"}},
		// A quoted filing sentence keeps its own quotation marks: curly
		// ones inside straight ones, straight ones inside curly ones.
		{"- X: \"Results under “GAAP.” Sales rose.\" [1] Next.", []string{"- X: \"Results under “GAAP.” Sales rose.\" [1] ", "Next."}},
		{"- X: “As described in \"Inventory.\" Sales rose.” [1] Next.", []string{"- X: “As described in \"Inventory.\" Sales rose.” [1] ", "Next."}},
		{"", nil},
	}
	for _, tc := range tests {
		got := splitSentences(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("splitSentences(%q) does not rejoin", tc.in)
		}
	}
}

func TestParseMarkers(t *testing.T) {
	tests := []struct {
		in   string
		want [][]int
	}{
		{"a [1] b", [][]int{{1}}},
		{"[1][2]", [][]int{{1}, {2}}},
		{"[1, 2] [3,4]", [][]int{{1, 2}, {3, 4}}},
		{"[a] [1 2] [] [1,] [1234567]", nil},
		{"[[1]]", [][]int{{1}}},
	}
	for _, tc := range tests {
		var got [][]int
		for _, g := range parseMarkers(tc.in) {
			got = append(got, g.refs)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseMarkers(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestResultForms(t *testing.T) {
	forms := resultForms(decimal.RequireFromString("0.4620634982"))
	for _, s := range []string{"Gross margin was 46.2%.", "a ratio of 0.46", "46.21 percent", "46%"} {
		if !statesAny(s, forms) {
			t.Errorf("%q does not state 0.462", s)
		}
	}
	for _, s := range []string{"146.2%", "46.25%", "0.462 is not 2 places"} {
		if statesAny(s, forms) {
			t.Errorf("%q states 0.462", s)
		}
	}
	big := resultForms(decimal.RequireFromString("180683000000"))
	for _, s := range []string{"$180.68 billion", "180,683 million", "180,683,000,000"} {
		if !statesAny(s, big) {
			t.Errorf("%q does not state 180683000000", s)
		}
	}
}
