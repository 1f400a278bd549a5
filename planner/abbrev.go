package planner

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Abbreviations a filing defines.
//
// A filing defines its own short forms the way writers do, a long form and
// then its short form in parentheses: "our traffic acquisition costs
// (TAC)", "Asia-Pacific (APAC)", "remaining performance obligations
// (RPO)". A question that writes such a short form ("Alphabet's TAC rate")
// names the issuer's own term, not another issuer whose ticker it happens
// to be (TAC is TransAlta's). definedAbbreviations finds them by the method
// of Schwartz and Hearst (2003): a short form of two to eight characters,
// upper-case letters among them, in parentheses, whose characters are
// found in order, right to left, in the words just before it, its first
// character starting a word. Only the short forms are kept, per issuer.

// Bounds of a definition.
const (
	minShortForm = 2
	maxShortForm = 8
)

// definedAbbreviations returns the short forms text defines, each once.
func definedAbbreviations(text string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; ; {
		open := strings.IndexByte(text[i:], '(')
		if open < 0 {
			break
		}
		open += i
		end := strings.IndexByte(text[open:], ')')
		if end < 0 {
			break
		}
		end += open
		i = open + 1
		short := text[open+1 : end]
		if !shortForm(short) || seen[short] {
			continue
		}
		// The words before the parenthesis on its line, at most
		// min(|short|+5, 2|short|) of them.
		lineStart := strings.LastIndexAny(text[:open], "\n\f") + 1
		words := strings.Fields(text[lineStart:open])
		n := min(len(short)+5, 2*len(short))
		if len(words) > n {
			words = words[len(words)-n:]
		}
		if longFormOf(short, strings.Join(words, " ")) {
			seen[short] = true
			out = append(out, short)
		}
	}
	return out
}

// shortForm reports whether s may be a short form: two to eight letters
// or digits (and "&" or "-"), beginning with a letter, at least two of
// them upper-case and no lower-case letter but after an upper-case one.
func shortForm(s string) bool {
	if n := utf8.RuneCountInString(s); n < minShortForm || n > maxShortForm {
		return false
	}
	upper := 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			if upper == 0 {
				return false
			}
		case unicode.IsDigit(r) || r == '&' || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return upper >= 2
}

// longFormOf reports whether long ends in a long form of short: the
// short form's letters and digits found in long in order, right to left,
// case aside, the first of them at the start of a word.
func longFormOf(short, long string) bool {
	s := []rune(strings.ToLower(short))
	l := []rune(strings.ToLower(long))
	li := len(l) - 1
	for si := len(s) - 1; si >= 0; si-- {
		c := s[si]
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			continue
		}
		for li >= 0 && (l[li] != c || si == 0 && li > 0 && (unicode.IsLetter(l[li-1]) || unicode.IsDigit(l[li-1]))) {
			li--
		}
		if li < 0 {
			return false
		}
		li--
	}
	return true
}

// Defines reports whether a filing of issuer defines short as an
// abbreviation of its own (definedAbbreviations).
func (s *TextStats) Defines(issuer, short string) bool {
	if s == nil {
		return false
	}
	return s.abbrev[issuer][short]
}
