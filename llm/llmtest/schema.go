package llmtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
)

// StrictSchemaProblems lists where schema breaks the rules strict
// structured outputs hold a JSON Schema to: every object sets
// additionalProperties to false and lists each of its properties, and
// nothing else, in required; and the schema marshals to JSON. Each
// problem names its place ("$.nodes[].args"). None means the schema can
// be sent with llm.Schema.Strict set.
func StrictSchemaProblems(schema map[string]any) []string {
	raw, err := json.Marshal(schema)
	if err != nil {
		return []string{fmt.Sprintf("$: the schema does not marshal to JSON: %v", err)}
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("$: the schema does not read back from JSON: %v", err)}
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if slices.Contains(typeNames(m["type"]), "object") {
			props, _ := m["properties"].(map[string]any)
			if m["additionalProperties"] != false {
				out = append(out, path+": additionalProperties is not false")
			}
			var required []string
			if list, ok := m["required"].([]any); ok {
				for _, r := range list {
					name, _ := r.(string)
					required = append(required, name)
					if _, ok := props[name]; !ok {
						out = append(out, fmt.Sprintf("%s: required names %q, which is not a property", path, name))
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(props)) {
				if !slices.Contains(required, k) {
					out = append(out, fmt.Sprintf("%s: property %q is not required", path, k))
				}
				walk(path+"."+k, props[k])
			}
		}
		if items, ok := m["items"]; ok {
			walk(path+"[]", items)
		}
		if alts, ok := m["anyOf"].([]any); ok {
			for i, alt := range alts {
				walk(fmt.Sprintf("%s.anyOf[%d]", path, i), alt)
			}
		}
	}
	walk("$", root)
	return out
}

// typeNames reads a schema's type: "object" or ["object", "null"].
func typeNames(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, t := range x {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// MatchGolden holds a schema's wire format: schema, indented as JSON, must
// be byte for byte the file at path; with update it rewrites the file
// instead (a test's -update flag, after a reply type changed on purpose).
func MatchGolden(t testing.TB, path string, schema map[string]any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("schema differs from %s (run with -update if the change is meant):\n%s", path, got)
	}
}
