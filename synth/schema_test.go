package synth

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/validator"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*_schema.golden.json from the reply types")

// TestAnswerSchemaNullable: a gap's requirement and issuer may be null,
// what is missing and why may not.
func TestAnswerSchemaNullable(t *testing.T) {
	gaps := AnswerSchema()["properties"].(map[string]any)["gaps"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	for k, nullable := range map[string]bool{"requirement": true, "issuer": true, "what": false, "why": false} {
		types, _ := gaps[k].(map[string]any)["type"].([]string)
		if got := slices.Contains(types, "null"); got != nullable {
			t.Errorf("gaps[].%s nullable = %v, want %v", k, got, nullable)
		}
	}
}

// TestReplySchemasMatchGolden holds the wire format: the schemas sent to
// the model are byte for byte the hand-written ones they replaced. Run
// with -update after changing a reply type on purpose.
func TestReplySchemasMatchGolden(t *testing.T) {
	for name, s := range map[string]map[string]any{"answer": AnswerSchema(), "grade": GradeSchema()} {
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

func TestGoldenModelAnswerDecodes(t *testing.T) {
	reply, err := os.ReadFile(filepath.Join("testdata", "model_answer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := conforms(t, AnswerSchema(), reply); err != nil {
		t.Fatalf("the golden answer does not conform to AnswerSchema: %v", err)
	}
	a, err := decodeAnswer(&llm.ChatResponse{Content: string(reply)})
	if err != nil {
		t.Fatal(err)
	}
	want := &validator.Answer{
		Answer: "In fiscal 2024 Apple's products gross margin percentage increased due to cost savings [1]. The filings do not say whether this will persist.",
		Status: ledger.StatusPartial,
		Citations: []validator.Citation{
			{Index: 1, EvidenceID: "E0123456789ab", Excerpt: "increased during 2024 compared to 2023 due to cost savings"},
		},
		Gaps: []validator.Gap{
			{RequirementID: "AAPL-FY2024-outlook", Issuer: "AAPL", What: "management's outlook for gross margin", Why: "no passage found"},
			{What: "a comparison with other issuers", Why: "the question named one issuer"},
		},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("decoded =\n%+v\nwant\n%+v", a, want)
	}

	for name, edit := range map[string]func(m map[string]any){
		"status not in the enum": func(m map[string]any) { m["status"] = "budget_exhausted" },
		"null citations":         func(m map[string]any) { m["citations"] = nil },
		"missing nullable":       func(m map[string]any) { delete(m["gaps"].([]any)[1].(map[string]any), "issuer") },
		"extra field":            func(m map[string]any) { m["confidence"] = 0.9 },
	} {
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		edited, _ := json.Marshal(m)
		if conforms(t, AnswerSchema(), edited) == nil {
			t.Errorf("the schema accepts an answer with %s", name)
		}
	}
}
