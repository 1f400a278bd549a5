package llmtest

import (
	"slices"
	"testing"
)

func TestStrictSchemaProblems(t *testing.T) {
	str := map[string]any{"type": "string"}
	tests := []struct {
		name   string
		schema map[string]any
		want   []string
	}{
		{
			name: "closed objects, nested and nullable",
			schema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"a", "b"},
				"properties": map[string]any{
					"a": str,
					"b": map[string]any{"type": []string{"array", "null"}, "items": map[string]any{
						"type": []string{"object", "null"}, "additionalProperties": false, "required": []string{"c"},
						"properties": map[string]any{"c": str}}},
				}},
		},
		{
			name:   "open object",
			schema: map[string]any{"type": "object", "required": []string{"a"}, "properties": map[string]any{"a": str}},
			want:   []string{"$: additionalProperties is not false"},
		},
		{
			name: "a property not required, deep in an array",
			schema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"list"},
				"properties": map[string]any{"list": map[string]any{"type": "array", "items": map[string]any{
					"type": "object", "additionalProperties": false, "required": []string{"x"},
					"properties": map[string]any{"x": str, "y": str}}}}},
			want: []string{`$.list[]: property "y" is not required`},
		},
		{
			name: "required names a missing property",
			schema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"a", "ghost"},
				"properties": map[string]any{"a": str}},
			want: []string{`$: required names "ghost", which is not a property`},
		},
		{
			name: "inside anyOf",
			schema: map[string]any{"anyOf": []any{str, map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"a": str}}}},
			want: []string{`$.anyOf[1]: property "a" is not required`},
		},
		{
			name:   "does not marshal",
			schema: map[string]any{"type": "object", "bad": func() {}},
			want:   []string{"$: the schema does not marshal to JSON: json: unsupported type: func()"},
		},
	}
	for _, tt := range tests {
		if got := StrictSchemaProblems(tt.schema); !slices.Equal(got, tt.want) {
			t.Errorf("%s: StrictSchemaProblems = %q, want %q", tt.name, got, tt.want)
		}
	}
}
