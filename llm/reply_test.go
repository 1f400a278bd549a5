package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerline/research/llm"
)

type replyShape struct {
	Answer *string `json:"answer"`
	Score  float64 `json:"score"`
}

func TestDecodeReply(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // the answer decoded; "" when an error is wanted
		err     string // a part of the error
	}{
		{"plain object", `{"answer":"yes","score":1}`, "yes", ""},
		{"white space around", "\n  {\"answer\":\"yes\"}  \n", "yes", ""},
		{"json fence", "```json\n{\"answer\":\"fenced\"}\n```", "fenced", ""},
		{"bare fence", "```\n{\"answer\":\"bare\"}\n```", "bare", ""},
		{"empty", "  ", "", "the reply is empty, not a JSON object"},
		{"empty fence", "```json\n```", "", "the reply is empty"},
		{"prose", "The answer is yes.", "", `the reply is not JSON: it starts with "The answer is yes."`},
		{"long prose cut", strings.Repeat("é", 40), "", `it starts with "` + strings.Repeat("é", 20) + `…"`},
		{"array", `["yes"]`, "", `the reply is not JSON: it starts with "[\"yes\"]"`},
		{"unknown field", `{"answer":"yes","confidence":0.9}`, "", `the reply is not JSON of the schema: json: unknown field "confidence"`},
		{"wrong type", `{"answer":3}`, "", "the reply is not JSON of the schema: json: cannot unmarshal number"},
		{"trailing object", `{"answer":"a"} {"answer":"b"}`, "", "the reply is not JSON of the schema: text after the JSON value"},
		{"trailing text", `{"answer":"a"} thanks`, "", "text after the JSON value"},
		{"cut short", `{"answer":"a`, "", "the reply is not JSON of the schema: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got replyShape
			err := llm.DecodeReply(tt.content, &got)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("DecodeReply(%q) error = %v, want one holding %q", tt.content, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeReply(%q): %v", tt.content, err)
			}
			if got.Answer == nil || *got.Answer != tt.want {
				t.Errorf("DecodeReply(%q) answer = %v, want %q", tt.content, got.Answer, tt.want)
			}
		})
	}
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		raw string
		ok  bool
	}{
		{`{"answer":"a"}`, true},
		{` {"score":2} `, true},
		{`null`, true},
		{`{"answer":"a","extra":1}`, false},
		{`{"answer":"a"}]`, false},
		{`{"answer":"a"}{}`, false},
		{``, false},
	}
	for _, tt := range tests {
		var got replyShape
		if err := llm.DecodeStrict([]byte(tt.raw), &got); (err == nil) != tt.ok {
			t.Errorf("DecodeStrict(%q) error = %v, want ok %v", tt.raw, err, tt.ok)
		}
	}
}

func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`{"answer":"yes","score":1}`, "```json\n{\"answer\":\"x\"}\n```", "```", "{", `{"answer":"a"} x`, "plain words", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		var got replyShape
		err := llm.DecodeReply(content, &got)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "the reply is") {
				t.Fatalf("error %q does not say what is wrong with the reply", msg)
			}
			return
		}
		// An accepted reply is one JSON object of the shape, fence aside.
		s := strings.TrimSpace(content)
		if strings.HasPrefix(s, "```") {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("accepted %q, which is not a JSON object: %v", content, err)
		}
		for k := range m {
			// encoding/json matches field names without regard to case.
			if !strings.EqualFold(k, "answer") && !strings.EqualFold(k, "score") {
				t.Fatalf("accepted %q with the unknown field %q", content, k)
			}
		}
	})
}
