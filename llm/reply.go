package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DecodeReply decodes a model's reply, one JSON object, into dst
// strictly: unknown fields and text after the object are errors. A reply
// wrapped in a Markdown code fence (as models without structured outputs
// tend to write) is unwrapped first. The errors say what is wrong with the
// reply in words fit to show the model when asking it again.
func DecodeReply(content string, dst any) error {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if s == "" {
		return errors.New("the reply is empty, not a JSON object")
	}
	if s[0] != '{' {
		return fmt.Errorf("the reply is not JSON: it starts with %q", preview(s, 40))
	}
	if err := DecodeStrict([]byte(s), dst); err != nil {
		return fmt.Errorf("the reply is not JSON of the schema: %v", err)
	}
	return nil
}

// DecodeStrict decodes one JSON value into dst, refusing unknown fields
// and trailing data: the strict decoding DecodeReply applies, for parts
// of a reply (each node of a plan, say) decoded on their own.
func DecodeStrict(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON value")
	}
	return nil
}

// preview returns at most n bytes of s, cut at a UTF-8 boundary, with
// "…" after a cut.
func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
