package synth

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuoteText holds what the answer shows of a quoted sentence: it never
// holds a double quote or a bracket (which would end the quotation or read
// as a marker) and stays within its bound.
func FuzzQuoteText(f *testing.F) {
	for _, s := range []string{"", "Net sales rose [1] 5%.", "He said \"up\".", "“curly” [[2]]", strings.Repeat("word ", 200), "\xff[3]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := quoteText(s)
		if strings.ContainsAny(q, "\"[]") {
			t.Fatalf("quoteText(%q) = %q keeps a quote or bracket", s, q)
		}
		if len(q) > maxQuoteShown+len(" …") {
			t.Fatalf("quoteText(%q) is %d bytes", s, len(q))
		}
		if utf8.ValidString(s) && !utf8.ValidString(q) {
			t.Fatalf("quoteText(%q) = %q is not valid UTF-8", s, q)
		}
		if u := unmarked(s); strings.ContainsAny(u, "[]\n") {
			t.Fatalf("unmarked(%q) = %q", s, u)
		}
	})
}
