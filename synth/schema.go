package synth

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
)

// AnswerSchema is the JSON Schema (strict structured outputs) of the
// answer a model returns: the text with [n] markers, its citations, a
// proposed status and the gaps it names. It is inferred from modelAnswer,
// the type the reply decodes into.
func AnswerSchema() map[string]any {
	return llm.StrictSchema[modelAnswer](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ledger.RunStatus](): llm.EnumSchema(ledger.StatusSupported, ledger.StatusPartial,
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
