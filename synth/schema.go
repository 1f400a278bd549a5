package synth

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ledgerline/research/ledger"
)

// AnswerSchema is the JSON Schema (strict structured outputs) of the
// answer a model returns: the text with [n] markers, its citations, a
// proposed status and the gaps it names. It is inferred from modelAnswer,
// the type the reply decodes into.
func AnswerSchema() map[string]any {
	return strictSchema[modelAnswer](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ledger.RunStatus](): enumSchema(ledger.StatusSupported, ledger.StatusPartial,
			ledger.StatusInsufficientEvidence, ledger.StatusConflictingEvidence),
	}})
}

// Model reply shapes. They are decoded strictly, and pointers tell a null
// or missing value from an empty one. For the schema, a field marked
// omitempty is one the model may set to null; every other field must hold
// a value (see strictSchema).
type modelAnswer struct {
	Answer    *string           `json:"answer" jsonschema:"plain text; every factual claim carries [n] markers"`
	Citations []modelCitation   `json:"citations"`
	Status    *ledger.RunStatus `json:"status"`
	Gaps      []modelGap        `json:"gaps"`
}

type modelCitation struct {
	Index      *int    `json:"index" jsonschema:"the n of the [n] markers"`
	EvidenceID *string `json:"evidence_id" jsonschema:"the id of the evidence cited, as given"`
	Excerpt    *string `json:"excerpt" jsonschema:"a verbatim span of that evidence's text, copied exactly"`
}

type modelGap struct {
	Requirement *string `json:"requirement,omitempty" jsonschema:"the requirement id, when the gap is one"`
	Issuer      *string `json:"issuer,omitempty" jsonschema:"the ticker, when the gap is an issuer's"`
	What        *string `json:"what" jsonschema:"what the answer needed"`
	Why         *string `json:"why" jsonschema:"why it is missing"`
}

// closed is a hand-written object schema in strict form: every property
// required, no other allowed.
func closed(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": slices.Sorted(maps.Keys(props)), "additionalProperties": false}
}

// strictSchema infers the JSON Schema of T with jsonschema-go and puts it
// in the form strict structured outputs accept, as the map llm.Schema
// carries. Descriptions come from the fields' jsonschema tags, enums from
// opts. Strict mode wants every property required and says "optional"
// with null, while jsonschema-go lets every pointer and slice be null and
// leaves omitempty fields out of required; so here every property is
// required, and one may be null exactly when its field is marked omitempty
// (or omitzero). Objects stay closed (jsonschema-go sets
// additionalProperties false on structs). Properties, required and the
// order inside a type list are the same as a hand-written schema's:
// sorted, and the type before "null".
//
// It is planner's strictSchema: both belong in llm, which owns
// llm.Schema, and should move there together.
//
// strictSchema panics if T has no schema: the reply types are ours, and a
// test infers each.
func strictSchema[T any](opts *jsonschema.ForOptions) map[string]any {
	s, err := jsonschema.For[T](opts)
	if err != nil {
		panic(fmt.Sprintf("synth: no schema for a reply type: %v", err))
	}
	strictify(s, false)
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("synth: the schema of %T does not marshal: %v", *new(T), err))
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(fmt.Sprintf("synth: the schema of %T does not read back: %v", *new(T), err))
	}
	nameLists(m)
	return m
}

// strictify rewrites s in place as strictSchema describes; nullable says
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

// enumSchema is the schema of a string that is one of vals.
func enumSchema[T ~string](vals ...T) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Enum: make([]any, len(vals))}
	for i, v := range vals {
		s.Enum[i] = string(v)
	}
	return s
}
