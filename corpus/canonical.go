package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Canonicalize returns the canonical form of extracted text: line endings
// normalised to '\n', every run of whitespace inside a line collapsed to one
// space, lines trimmed, runs of blank lines collapsed to one, and page breaks
// kept as a form feed on a line of its own. No blank line opens or ends the
// text or touches a page break. Canonicalize is idempotent.
func Canonicalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var b strings.Builder
	b.Grow(len(s))
	// A blank line is written only once a line of text follows it, so none
	// is left before a page break or at the end.
	pendingBlank, afterText := false, false
	emitLine := func(line string) {
		line = collapseSpaces(line)
		if line == "" {
			pendingBlank = afterText
			return
		}
		if pendingBlank {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		b.WriteByte('\n')
		pendingBlank, afterText = false, true
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "\n\f")
		if i < 0 {
			emitLine(s)
			break
		}
		emitLine(s[:i])
		if s[i] == '\f' {
			b.WriteString("\f\n")
			pendingBlank, afterText = false, false
		}
		s = s[i+1:]
	}
	if strings.Trim(b.String(), "\f\n") == "" {
		return ""
	}
	return b.String()
}

// collapseSpaces trims a line and collapses each run of Unicode white space
// (other than form feeds, which callers split on) into one ASCII space.
func collapseSpaces(line string) string {
	var b strings.Builder
	b.Grow(len(line))
	space := false
	for len(line) > 0 {
		r, size := utf8.DecodeRuneInString(line)
		line = line[size:]
		if unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
