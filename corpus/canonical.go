package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Canonicalize returns the canonical form of extracted text: line endings
// normalised to '\n', every run of whitespace inside a line collapsed to one
// space, lines trimmed, runs of blank lines collapsed to one, and page breaks
// kept as a form feed on a line of its own. Canonicalize is idempotent.
func Canonicalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var b strings.Builder
	b.Grow(len(s))
	blank := true // at start, or after a blank line: suppress further blank lines
	wroteAny := false
	emitLine := func(line string) {
		line = collapseSpaces(line)
		if line == "" {
			if !blank {
				b.WriteByte('\n')
				blank = true
			}
			return
		}
		b.WriteString(line)
		b.WriteByte('\n')
		blank = false
		wroteAny = true
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "\n\f")
		if i < 0 {
			emitLine(s)
			break
		}
		emitLine(s[:i])
		if s[i] == '\f' {
			// A page break is a line of its own; a blank line may not follow it.
			b.WriteString("\f\n")
			blank = true
			wroteAny = true
		}
		s = s[i+1:]
	}
	_ = wroteAny
	out := b.String()
	return strings.TrimRight(out, "\n") + "\n"
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
