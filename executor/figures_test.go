package executor

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
)

// figureLedger is a hand-made run ledger: Apple's revenue and cost of
// sales for two years shown in E1 (tagged) and again in E2, a segment's
// revenue in E3, a text filing's table row in E4, another issuer's revenue
// in E5 and an unlinked span E6.
func figureLedger() *ledger.RunLedger {
	fact := func(id, ev, concept, value, unit, period string) ledger.Fact {
		return ledger.Fact{ID: id, EvidenceID: ev, Concept: concept, Value: decimal.RequireFromString(value), Unit: unit, Period: period}
	}
	const fy24, fy23 = "2023-10-01/2024-09-28", "2022-09-25/2023-09-30"
	return &ledger.RunLedger{
		Evidence: []ledger.Evidence{
			{ID: "E1", Ticker: "AAPL", Period: "FY2024"}, {ID: "E2", Ticker: "AAPL", Period: "FY2024"},
			{ID: "E3", Ticker: "AAPL", Period: "FY2024"}, {ID: "E4", Ticker: "ACME", Period: "FY2024"},
			{ID: "E5", Ticker: "NVDA", Period: "FY2024"}, {ID: "E6", Ticker: "AAPL", Period: "FY2024"},
		},
		Facts: []ledger.Fact{
			fact("F1", "E1", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "391035000000", "USD", fy24),
			fact("F2", "E1", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "383285000000", "USD", fy23),
			fact("F3", "E1", "us-gaap:CostOfGoodsAndServicesSold", "210352000000", "USD", fy24),
			fact("F4", "E1", "us-gaap:NetIncomeLoss", "93736000000", "USD", fy24),
			fact("F5", "E2", "us-gaap:Revenues", "391035000001", "USD", fy24), // preferred concept, linked later
			fact("F6", "E2", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "1", "USD", fy24),
			fact("F7", "E3", "us-gaap:Revenues[aapl:IPhoneMember]", "201183000000", "USD", fy24),
			fact("F8", "E4", "table:Total net sales", "1000.5", "USD", ""),
			fact("F9", "E5", "us-gaap:Revenues", "60922000000", "USD", "2023-01-30/2024-01-28"),
			fact("F10", "E6", "us-gaap:CostOfGoodsAndServicesSold", "214137000000", "USD", fy23),
			fact("F11", "E1", "us-gaap:DeferredRevenueCurrent", "8249000000", "USD", "2024-09-28"),
			fact("F12", "E4", "stated:employees", "304000", "pure", ""),
		},
		Requirements: []ledger.Requirement{
			{ID: "rev", Status: ledger.RequirementSupported, Evidence: []string{"E1", "E2", "E3", "E5"}},
			{ID: "cost", Status: ledger.RequirementSupported, Evidence: []string{"E1"}},
			{ID: "net", Status: ledger.RequirementMissing, Evidence: []string{"E1"}},
			{ID: "iphone", Status: ledger.RequirementSupported, Evidence: []string{"E3", "E1"}},
			{ID: "table", Status: ledger.RequirementSupported, Evidence: []string{"E4"}},
			{ID: "rev-again", Status: ledger.RequirementSupported, Evidence: []string{"E2"}},
			{ID: "other", Status: ledger.RequirementSupported, Evidence: []string{"E1"}},
			{ID: "margin", Status: ledger.RequirementSupported, Evidence: []string{"E1"}},
			{ID: "growth", Status: ledger.RequirementSupported},
		},
	}
}

func figureReq(id, issuer, aspect, topic string, concepts ...string) planner.Requirement {
	return planner.Requirement{ID: id, Issuer: issuer, Period: "FY2024", Aspect: aspect, Kind: planner.KindFigure, Required: true,
		Completion: planner.Condition{Kind: planner.CondFact, Issuer: issuer, Period: "FY2024", Topic: topic, Concepts: concepts}}
}

func calcReq(id, issuer, aspect, topic string, of ...string) planner.Requirement {
	return planner.Requirement{ID: id, Issuer: issuer, Period: "FY2024", Aspect: aspect, Kind: planner.KindCalculation, Required: true,
		Completion: planner.Condition{Kind: planner.CondCalculation, Issuer: issuer, Period: "FY2024", Topic: topic, Of: of}}
}

var (
	revenueConcepts = []string{"us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"}
	revReq          = figureReq("rev", "AAPL", "margins", "", revenueConcepts...)
	costReq         = figureReq("cost", "AAPL", "margins", "", "us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold")
	marginCalc      = tools.Calculation{
		Expression: "(revenue - cost_of_revenue) / revenue",
		Inputs:     map[string]string{"revenue": "F1", "cost_of_revenue": "F3"},
		Values:     map[string]string{"revenue": "391035000000", "cost_of_revenue": "210352000000"},
		Result:     decimal.RequireFromString("0.4620634982"),
	}
)

// figureRow is what a test compares of a figure.
type figureRow struct {
	issuer, metric, period, value, unit string
	kind                                FigureKind
	source                              FigureSource
	evidence, formula, req              string
}

func rowOf(f Figure) figureRow {
	return figureRow{f.Issuer, f.Metric, f.Period, f.Value.String(), f.Unit, f.Kind, f.Source, strings.Join(f.EvidenceIDs, ","), f.Formula, f.RequirementID}
}

func TestFiguresOf(t *testing.T) {
	const fy24, fy23 = "2023-10-01/2024-09-28", "2022-09-25/2023-09-30"
	revFY24 := figureRow{"AAPL", "revenue", fy24, "391035000001", "USD", FigureReported, SourceXBRL, "E2", "", "rev"}
	revFY23 := figureRow{"AAPL", "revenue", fy23, "383285000000", "USD", FigureReported, SourceXBRL, "E1", "", "rev"}
	costFY24 := figureRow{"AAPL", "cost of revenue", fy24, "210352000000", "USD", FigureReported, SourceXBRL, "E1", "", "cost"}
	margin := figureRow{"AAPL", "margins calculation", fy24, "0.4620634982", "pure", FigureDerived, SourceXBRL, "E1", "(revenue - cost_of_revenue) / revenue", "margin"}
	tests := []struct {
		name  string
		reqs  []planner.Requirement
		calcs []tools.Calculation
		byReq map[string]*tools.Calculation
		want  []figureRow
	}{
		{
			name: "reported: the preferred concept per period, latest first, other issuers' and other concepts' facts left out",
			reqs: []planner.Requirement{revReq},
			want: []figureRow{revFY24, revFY23},
		},
		{
			name: "the topic names the metric",
			reqs: []planner.Requirement{figureReq("cost", "AAPL", "margins", "cost of sales", "us-gaap:CostOfGoodsAndServicesSold")},
			want: []figureRow{{"AAPL", "cost of sales", fy24, "210352000000", "USD", FigureReported, SourceXBRL, "E1", "", "cost"}},
		},
		{
			name: "only supported figure requirements, and only linked evidence",
			reqs: []planner.Requirement{figureReq("net", "AAPL", "profitability", "", "us-gaap:NetIncomeLoss"), costReq},
			want: []figureRow{costFY24},
		},
		{
			name: "a segment figure is its member's, never the company-wide figure",
			reqs: []planner.Requirement{figureReq("iphone", "AAPL", "segments", "", "us-gaap:Revenues[aapl:IPhoneMember]")},
			want: []figureRow{{"AAPL", "revenue (IPhoneMember)", fy24, "201183000000", "USD", FigureReported, SourceXBRL, "E3", "", "iphone"}},
		},
		{
			name: "a table row, by the key its lookup recorded; without a period it takes the evidence's",
			reqs: []planner.Requirement{figureReq("table", "ACME", "margins", "", "table:Total net sales")},
			want: []figureRow{{"ACME", "revenue", "FY2024", "1000.5", "USD", FigureReported, SourceTable, "E4", "", "table"}},
		},
		{
			name: "without a topic, the catalogue's label of the concept; outside the catalogue, the aspect",
			reqs: []planner.Requirement{
				figureReq("other", "AAPL", "profitability", "", "us-gaap:NetIncomeLoss"),
				figureReq("other", "AAPL", "balance_sheet", "", "us-gaap:DeferredRevenueCurrent"),
			},
			want: []figureRow{
				{"AAPL", "net income", fy24, "93736000000", "USD", FigureReported, SourceXBRL, "E1", "", "other"},
				{"AAPL", "balance_sheet", "2024-09-28", "8249000000", "USD", FigureReported, SourceXBRL, "E1", "", "other"},
			},
		},
		{
			name: "one entry per issuer, metric and period: the first requirement's",
			reqs: []planner.Requirement{revReq, figureReq("rev-again", "AAPL", "revenue_growth", "", revenueConcepts...)},
			want: []figureRow{revFY24, revFY23},
		},
		{
			name:  "derived: the calculation requirement computed it",
			reqs:  []planner.Requirement{revReq, costReq, calcReq("margin", "AAPL", "margins", "", "rev", "cost")},
			calcs: []tools.Calculation{marginCalc},
			byReq: map[string]*tools.Calculation{"margin": &marginCalc},
			want:  []figureRow{revFY24, revFY23, costFY24, margin},
		},
		{
			name:  "derived: without the map, the requirement whose figures show the inputs",
			reqs:  []planner.Requirement{calcReq("growth", "AAPL", "revenue_growth", "", "table"), calcReq("margin", "AAPL", "margins", "gross margin", "rev", "cost")},
			calcs: []tools.Calculation{marginCalc},
			want:  []figureRow{{"AAPL", "gross margin", fy24, "0.4620634982", "pure", FigureDerived, SourceXBRL, "E1", "(revenue - cost_of_revenue) / revenue", "margin"}},
		},
		{
			name: "derived: the latest input period, each input's evidence once, an amount in its unit",
			calcs: []tools.Calculation{{
				Expression: "cost_prior - cost + revenue",
				Inputs:     map[string]string{"cost": "F3", "cost_prior": "F10", "revenue": "F1"},
				Result:     decimal.RequireFromString("394820000000"),
			}},
			want: []figureRow{{"AAPL", "calculation", fy24, "394820000000", "USD", FigureDerived, SourceXBRL, "E6,E1", "cost_prior - cost + revenue", ""}},
		},
		{
			name: "derived: a table input makes it a table figure; a calculation over facts not in the ledger is left out",
			calcs: []tools.Calculation{
				{Expression: "sales / sales", Inputs: map[string]string{"sales": "F8"}, Result: decimal.NewFromInt(1)},
				{Expression: "x * 2", Inputs: map[string]string{"x": "F404"}, Result: decimal.NewFromInt(2)},
			},
			want: []figureRow{{"ACME", "calculation", "FY2024", "1", "pure", FigureDerived, SourceTable, "E4", "sales / sales", ""}},
		},
		{
			name: "derived: a count a sentence states makes it a text figure, whatever its other inputs",
			calcs: []tools.Calculation{
				{Expression: "sales / people", Inputs: map[string]string{"sales": "F8", "people": "F12"}, Result: decimal.RequireFromString("0.0033")},
			},
			want: []figureRow{{"ACME", "calculation", "FY2024", "0.0033", "USD/pure", FigureDerived, SourceText, "E4", "sales / people", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := figuresOf(tt.reqs, figureLedger(), tt.calcs, tt.byReq)
			if got == nil {
				t.Fatal("nil figures; want an empty list at least")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d figures; want %d:\n%+v", len(got), len(tt.want), got)
			}
			for i, f := range got {
				if r := rowOf(f); r != tt.want[i] {
					t.Errorf("figure %d:\n got %+v\nwant %+v", i, r, tt.want[i])
				}
			}
		})
	}
}

func TestFiguresOfNothing(t *testing.T) {
	if got := figuresOf(nil, nil, nil, nil); got == nil || len(got) != 0 {
		t.Errorf("figures %v; want []", got)
	}
	data, _ := json.Marshal(Result{Figures: figuresOf([]planner.Requirement{revReq}, &ledger.RunLedger{}, nil, nil)})
	if !strings.Contains(string(data), `"figures":[]`) {
		t.Errorf("JSON %s; want figures []", data)
	}
}

// TestFigureJSON pins the shape `research ask --format json` prints.
func TestFigureJSON(t *testing.T) {
	figs := figuresOf([]planner.Requirement{costReq, calcReq("margin", "AAPL", "margins", "", "rev", "cost")}, figureLedger(),
		[]tools.Calculation{marginCalc}, map[string]*tools.Calculation{"margin": &marginCalc})
	data, err := json.Marshal(figs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"issuer":"AAPL","metric":"cost of revenue","period":"2023-10-01/2024-09-28","value":"210352000000","unit":"USD",` +
		`"kind":"reported","source":"xbrl","evidence_ids":["E1"],"concept":"us-gaap:CostOfGoodsAndServicesSold","requirement_id":"cost"},` +
		`{"issuer":"AAPL","metric":"margins calculation","period":"2023-10-01/2024-09-28","value":"0.4620634982","unit":"pure",` +
		`"kind":"derived","source":"xbrl","evidence_ids":["E1"],"formula":"(revenue - cost_of_revenue) / revenue","requirement_id":"margin"}]`
	if string(data) != want {
		t.Errorf("JSON\n got %s\nwant %s", data, want)
	}
}
