package validator

import (
	"strings"
	"unicode"
)

// Normalize returns s in the form citations are compared in: every run of
// white space (NBSP and the other Unicode spaces included) becomes one
// space and the ends are trimmed; curly and low quotes and primes become '
// or "; en and em dashes, the Unicode hyphens and the minus sign become -;
// zero-width characters, soft hyphens and byte-order marks are dropped.
// Nothing else changes: case, punctuation and wording stay as they are, so
// comparing normalised strings is never fuzzy.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending: written before the next visible rune
	for _, r := range s {
		switch r {
		case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad':
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch r {
		case '‘', '’', '‚', '‛', '′':
			b.WriteByte('\'')
		case '“', '”', '„', '‟', '″':
			b.WriteByte('"')
		case '–', '—', '\u2010', '\u2011', '\u2012', '\u2212':
			b.WriteByte('-')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Verbatim reports whether excerpt is a verbatim part of evidenceText:
// its normal form is not empty and occurs in evidenceText's normal form.
// It never matches by similarity; a changed word is not verbatim.
func Verbatim(excerpt, evidenceText string) bool {
	n := Normalize(excerpt)
	return n != "" && strings.Contains(Normalize(evidenceText), n)
}
