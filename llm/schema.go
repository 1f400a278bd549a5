package llm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// StrictSchema infers the JSON Schema of T with jsonschema-go and puts it
// in the form strict structured outputs accept, as the map Schema carries.
// Descriptions come from the fields' jsonschema tags, enums and other
// type schemas from opts. Strict mode wants every property required and
// says "optional" with null, while jsonschema-go lets every pointer and
// slice be null and leaves omitempty fields out of required; so here every
// property is required, and one may be null exactly when its field is
// marked omitempty (or omitzero). Objects stay closed (jsonschema-go sets
// additionalProperties false on structs). Properties, required and the
// order inside a type list are the same as a hand-written schema's:
// sorted, and the type before "null".
//
// StrictSchema panics if T has no schema: reply types are the caller's
// own, and a test infers each.
func StrictSchema[T any](opts *jsonschema.ForOptions) map[string]any {
	s, err := jsonschema.For[T](opts)
	if err != nil {
		panic(fmt.Sprintf("llm: no schema for reply type %T: %v", *new(T), err))
	}
	strictify(s, false)
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("llm: the schema of %T does not marshal: %v", *new(T), err))
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(fmt.Sprintf("llm: the schema of %T does not read back: %v", *new(T), err))
	}
	nameLists(m)
	return m
}

// EnumSchema is the schema of a string that is one of vals.
func EnumSchema[T ~string](vals ...T) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Enum: make([]any, len(vals))}
	for i, v := range vals {
		s.Enum[i] = string(v)
	}
	return s
}

// strictify rewrites s in place as StrictSchema describes; nullable says
// whether s is an optional property.
func strictify(s *jsonschema.Schema, nullable bool) {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if nullable {
		types = append(types, "null")
	}
	s.Type, s.Types = "", nil
	if len(types) == 1 {
		s.Type = types[0]
	} else {
		s.Types = types
	}
	if s.Properties != nil {
		for name, p := range s.Properties {
			strictify(p, !slices.Contains(s.Required, name))
		}
		s.Required = slices.Sorted(maps.Keys(s.Properties))
		s.PropertyOrder = nil
	}
	if s.Items != nil {
		strictify(s.Items, false)
	}
}

// nameLists turns the lists of names in a schema read back from JSON
// (type, required, enum of strings) into []string, as a hand-written
// schema holds them.
func nameLists(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if list, ok := e.([]any); ok && (k == "type" || k == "required" || k == "enum") {
				if names, ok := allStrings(list); ok {
					x[k] = names
					continue
				}
			}
			nameLists(e)
		}
	case []any:
		for _, e := range x {
			nameLists(e)
		}
	}
}

func allStrings(list []any) ([]string, bool) {
	out := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}
