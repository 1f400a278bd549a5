package synth

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuoteText holds what the answer shows of a quoted sentence: the
// sentence's own words, whole and in order (white space aside), wrapped in
// one pair of quotation marks of a kind the sentence does not use, with no
// bracketed number that would read as a citation marker.
func FuzzQuoteText(f *testing.F) {
	for _, s := range []string{"", "Net sales rose [1] 5%.", "He said \"up\".", "“curly” [[2]]", strings.Repeat("word ", 200), "\xff[3]",
		"The Company’s “GAAP” results \"adjusted\"."} {
		f.Add(s)
	}
	marker := regexp.MustCompile(`\[\d+\]`)
	f.Fuzz(func(t *testing.T, s string) {
		q := quoteText(s)
		if marker.MatchString(q) {
			t.Fatalf("quoteText(%q) = %q holds a marker", s, q)
		}
		if utf8.ValidString(s) && !utf8.ValidString(q) {
			t.Fatalf("quoteText(%q) = %q is not valid UTF-8", s, q)
		}
		var inner string
		switch {
		case strings.HasPrefix(q, "“") && strings.HasSuffix(q, "”") && len(q) >= len("“”"):
			inner = q[len("“") : len(q)-len("”")]
			if strings.ContainsAny(inner, "“”") {
				t.Fatalf("quoteText(%q) = %q: curly marks inside curly marks", s, q)
			}
		case strings.HasPrefix(q, "\"") && strings.HasSuffix(q, "\"") && len(q) >= 2:
			inner = q[1 : len(q)-1]
			if strings.Contains(inner, "\"") {
				t.Fatalf("quoteText(%q) = %q: straight marks inside straight marks", s, q)
			}
		default:
			t.Fatalf("quoteText(%q) = %q is not wrapped in quotation marks", s, q)
		}
		want := strings.Fields(marker.ReplaceAllStringFunc(s, func(m string) string { return "(" + m[1:len(m)-1] + ")" }))
		if strings.ContainsAny(s, "“”") {
			for i := range want {
				want[i] = strings.ReplaceAll(want[i], "\"", "'")
			}
		}
		if got := strings.Fields(inner); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("quoteText(%q) = %q changes the words", s, q)
		}
		if u := unmarked(s); strings.ContainsAny(u, "[]\n") {
			t.Fatalf("unmarked(%q) = %q", s, u)
		}
	})
}
