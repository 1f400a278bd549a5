package llm

import (
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type strictToy struct {
	Name *string `json:"name"`
	Note *string `json:"note,omitempty"`
	Kind string  `json:"kind"`
}

// TestStrictSchema: every property required and the object closed; a
// property may be null exactly when its field is omitempty; enums from the
// options.
func TestStrictSchema(t *testing.T) {
	got := StrictSchema[strictToy](&jsonschema.ForOptions{})
	want := map[string]any{"type": "object", "additionalProperties": false,
		"required": []string{"kind", "name", "note"},
		"properties": map[string]any{
			"name": map[string]any{"type": "string"},
			"note": map[string]any{"type": []string{"string", "null"}},
			"kind": map[string]any{"type": "string"},
		}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("StrictSchema = %v\nwant %v", got, want)
	}
	e := EnumSchema("a", "b")
	if e.Type != "string" || !reflect.DeepEqual(e.Enum, []any{"a", "b"}) {
		t.Errorf("EnumSchema = %+v", e)
	}
}
