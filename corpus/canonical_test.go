package corpus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"only space", " \t\n\n ", ""},
		{"collapse inside line", "Total  net\tsales   391,035", "Total net sales 391,035\n"},
		{"trim lines", "   indented   \n  next", "indented\nnext\n"},
		{"blank runs", "a\n\n\n\nb", "a\n\nb\n"},
		{"crlf", "a\r\nb\rc", "a\nb\nc\n"},
		{"page break kept", "page one\fpage two", "page one\n\f\npage two\n"},
		{"only page breaks", "\f\f", ""},
		{"empty first page", "\fpage two", "\f\npage two\n"},
		{"page break after blank", "one\n\n\n\f\n\n two", "one\n\f\ntwo\n"},
		{"nbsp and zero width", "a\u00a0\u00a0b\u200bc", "a b c\n"},
		{"leading blank lines", "\n\n\nx", "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Canonicalize(tt.in)
			if got != tt.want {
				t.Fatalf("Canonicalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Canonicalize(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{"", "a  b\n\n\nc", "x\fy\f", "\r\n\t \u00a0z", "\f\f\f", "é  ü\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := Canonicalize(s)
		if again := Canonicalize(got); again != got {
			t.Fatalf("not idempotent on %q: %q -> %q", s, got, again)
		}
		if got != "" && strings.Count(got, "\f") != strings.Count(s, "\f") {
			t.Fatalf("page breaks changed: %q -> %q", s, got)
		}
		if strings.Contains(got, "  ") || strings.Contains(got, "\n\n\n") || strings.Contains(got, "\t") {
			t.Fatalf("whitespace left uncollapsed: %q", got)
		}
	})
}
