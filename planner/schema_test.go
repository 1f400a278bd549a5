package planner

import (
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/tools"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*_schema.golden.json from the reply types")

// TestReplySchemasMatchGolden holds the wire format: the schemas sent to
// the model are byte for byte the hand-written ones they replaced. Run
// with -update after changing a reply type on purpose.
func TestReplySchemasMatchGolden(t *testing.T) {
	for name, s := range map[string]map[string]any{"graph": GraphSchema(), "nodes": NodesSchema()} {
		llmtest.MatchGolden(t, filepath.Join("testdata", name+"_schema.golden.json"), s, *updateGolden)
	}
}

// conforms checks a reply against a schema with jsonschema-go's
// validator, as the model's endpoint would hold it to the schema.
func conforms(t *testing.T, schema map[string]any, reply []byte) error {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	if err := json.Unmarshal(reply, &inst); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(inst)
}

func TestGoldenModelPlanDecodes(t *testing.T) {
	reply, err := os.ReadFile(filepath.Join("testdata", "model_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := conforms(t, GraphSchema(), reply); err != nil {
		t.Fatalf("the golden plan does not conform to GraphSchema: %v", err)
	}
	g, err := DecodeModelGraph(string(reply))
	if err != nil {
		t.Fatal(err)
	}
	want := []Requirement{
		{ID: "AAPL-FY2024-margins-explanation", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindExplanation,
			Need: "what management says drove gross margin", Required: true,
			Completion: Condition{Kind: CondPassage, Issuer: "AAPL", Period: "FY2024", Topic: "gross margin drivers",
				AllOf: [][]string{{"gross margin"}, {"due to", "driven by"}}}},
		{ID: "AAPL-FY2024-gross-profit", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindFigure, Need: "gross profit", Required: true,
			Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:GrossProfit"}}},
		{ID: "AAPL-FY2024-revenue", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindFigure, Need: "revenue", Required: true,
			Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024",
				Concepts: []string{"us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "us-gaap:Revenues"}}},
		{ID: "AAPL-FY2024-gross-margin", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindCalculation,
			Need:       "gross margin: gross profit over revenue",
			Completion: Condition{Kind: CondCalculation, Of: []string{"AAPL-FY2024-gross-profit", "AAPL-FY2024-revenue"}}},
	}
	if !reflect.DeepEqual(g.Requirements, want) {
		t.Errorf("requirements =\n%+v\nwant\n%+v", g.Requirements, want)
	}
	wantNodes := []struct{ id, tool, args string }{
		{"search-aapl", tools.SearchFilings, `{"query":"gross margin drivers","tickers":["AAPL"],"form":"10-K","fiscal_years":[2024],"section":"Item 7","k":8}`},
		{"fact-gp", tools.LookupFact, `{"ticker":"AAPL","concept":"us-gaap:GrossProfit","period":"FY2024"}`},
		{"fact-rev", tools.LookupFact, `{"ticker":"AAPL","label":"revenue","period":"FY2024"}`},
		{"calc-gm", tools.Calculate, `{"expression":"gross_profit / revenue","facts":{"gross_profit":{"ticker":"AAPL","concept":"us-gaap:GrossProfit","period":"FY2024"},"revenue":{"ticker":"AAPL","concept":"us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"}}}`},
	}
	if len(g.Nodes) != len(wantNodes) {
		t.Fatalf("nodes = %+v", g.Nodes)
	}
	for i, w := range wantNodes {
		n := g.Nodes[i]
		if n.ID != w.id || n.Tool != w.tool || string(n.Args) != w.args {
			t.Errorf("nodes[%d] = %s %s %s, want %s %s %s", i, n.ID, n.Tool, n.Args, w.id, w.tool, w.args)
		}
	}
	if calc := g.Nodes[3]; !slices.Equal(calc.Serves, []string{"AAPL-FY2024-gross-margin"}) || !slices.Equal(calc.DependsOn, []string{"fact-gp", "fact-rev"}) {
		t.Errorf("calc-gm serves %v, depends on %v", calc.Serves, calc.DependsOn)
	}
	g.Tickers, g.FiscalYears = []string{"AAPL"}, []int{2024}
	if err := Validate(g, Limits{}); err != nil {
		t.Errorf("the golden plan does not validate: %v", err)
	}
}

func TestGoldenModelReplanDecodes(t *testing.T) {
	reply, err := os.ReadFile(filepath.Join("testdata", "model_replan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := conforms(t, NodesSchema(), reply); err != nil {
		t.Fatalf("the golden re-plan does not conform to NodesSchema: %v", err)
	}
	nodes, reason, err := DecodeModelNodes(string(reply))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].ID != "around-1" || nodes[0].Tool != tools.ReadSurrounding ||
		string(nodes[0].Args) != `{"id":"docA:12","before":1,"after":2}` || reason != "the passage found continues past the chunk read" {
		t.Errorf("= %+v, %q", nodes, reason)
	}
}

// TestReplySchemasRejectWrongShapes checks that the schema, not only the
// decoder, refuses the shapes strict mode is there to prevent.
func TestReplySchemasRejectWrongShapes(t *testing.T) {
	tests := []struct {
		name string
		edit func(plan map[string]any)
	}{
		{"missing args", func(p map[string]any) { delete(node0(p), "args") }},
		{"null id", func(p map[string]any) { node0(p)["id"] = nil }},
		{"null serves", func(p map[string]any) { node0(p)["serves"] = nil }},
		{"unknown tool", func(p map[string]any) { node0(p)["tool"] = "shell" }},
		{"unknown argument", func(p map[string]any) { node0(p)["args"].(map[string]any)["tenant"] = "other" }},
		{"unknown kind", func(p map[string]any) { p["requirements"].([]any)[0].(map[string]any)["kind"] = "vibes" }},
		{"missing nullable", func(p map[string]any) { delete(p["requirements"].([]any)[0].(map[string]any), "issuer") }},
	}
	reply, err := os.ReadFile(filepath.Join("testdata", "model_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var plan map[string]any
			if err := json.Unmarshal(reply, &plan); err != nil {
				t.Fatal(err)
			}
			tt.edit(plan)
			edited, _ := json.Marshal(plan)
			if err := conforms(t, GraphSchema(), edited); err == nil {
				t.Errorf("the schema accepts a plan with %s", tt.name)
			}
		})
	}
}

func node0(plan map[string]any) map[string]any {
	return plan["nodes"].([]any)[0].(map[string]any)
}

type toyKind string

type toyInner struct {
	A string `json:"a"`
	B *int   `json:"b,omitempty"`
}

type toyReply struct {
	Name  *string            `json:"name" jsonschema:"the name"`
	Note  *string            `json:"note,omitempty" jsonschema:"may be null"`
	List  []string           `json:"list"`
	Maybe [][]int            `json:"maybe,omitzero"`
	Kind  *toyKind           `json:"kind"`
	Inner []toyInner         `json:"inner"`
	Later deferred[toyInner] `json:"later"`
	Skip  string             `json:"-"`
}

// TestStrictSchema holds llm.StrictSchema's mapping from Go to strict mode:
// required and not null unless the field is omitempty or omitzero, lists
// and pointers alike; enums and deferred parts from the options.
func TestStrictSchema(t *testing.T) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[toyKind](): llm.EnumSchema[toyKind]("x", "y"),
	}}
	deferSchema[toyInner](opts)
	inner := map[string]any{"type": "object", "additionalProperties": false, "required": []string{"a", "b"},
		"properties": map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": []string{"integer", "null"}}}}
	want := map[string]any{"type": "object", "additionalProperties": false,
		"required": []string{"inner", "kind", "later", "list", "maybe", "name", "note"},
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "description": "the name"},
			"note":  map[string]any{"type": []string{"string", "null"}, "description": "may be null"},
			"list":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"maybe": map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
			"kind":  map[string]any{"type": "string", "enum": []string{"x", "y"}},
			"inner": map[string]any{"type": "array", "items": inner},
			"later": inner,
		}}
	got := llm.StrictSchema[toyReply](opts)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("strictSchema =\n%s\nwant\n%s", g, w)
	}
	if p := llmtest.StrictSchemaProblems(got); len(p) > 0 {
		t.Errorf("not strict: %v", p)
	}
}

func TestArgNamesFollowModelArgs(t *testing.T) {
	props := GraphSchema()["properties"].(map[string]any)["nodes"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["args"].(map[string]any)["properties"].(map[string]any)
	if !slices.Equal(slices.Sorted(slices.Values(argNames)), slices.Sorted(maps.Keys(props))) {
		t.Errorf("argNames = %v, schema arguments = %v", argNames, slices.Sorted(maps.Keys(props)))
	}
	want := []string{"query", "tickers", "form", "fiscal_years", "section", "k", "ids", "id", "before", "after",
		"ticker", "concept", "label", "period", "expression", "facts"}
	if !slices.Equal(argNames, want) {
		t.Errorf("argNames = %v, want %v (the order the unknown-argument error lists them in)", argNames, want)
	}
}

func TestDeferredDecodesAsRawMessage(t *testing.T) {
	var got struct {
		A deferred[toyInner] `json:"a"`
		B deferred[toyInner] `json:"b"`
		C deferred[toyInner] `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a":{"a":"x"},"b":null}`), &got); err != nil {
		t.Fatal(err)
	}
	if string(got.A) != `{"a":"x"}` || string(got.B) != "null" || got.C != nil {
		t.Errorf("a %q, b %q, c %q", got.A, got.B, got.C)
	}
	if b, err := json.Marshal(got); err != nil || string(b) != `{"a":{"a":"x"},"b":null,"c":null}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}
